"""Tau Ngau tests (hands, play, odds, simulator)."""
