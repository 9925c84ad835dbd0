"""Pok Deng tests (hands, play, strategy, odds, simulator)."""
