"""Niu Niu tests (hands, play, odds, simulator)."""
