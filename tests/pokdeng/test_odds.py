"""Pok Deng exact edge: the mirror identity of the simple policy and agreement with the
strategy table."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from solver.games.pokdeng import odds as pd_odds
from solver.store.tables import open_table


def test_pokdeng_simple_policy_mirrors_the_dealer() -> None:
    """Heads-up with the dealer's own policy (draw on 4 or less) the game is symmetric:
    the simple player's EV is exactly 0; optimal drawing can only do better."""
    for preset in ("standard", "straights"):
        res = pd_odds.pokdeng_edge(preset, 4)
        assert res.ev_simple == 0
        assert res.ev_optimal > 0
    for k in (3, 5):
        res = pd_odds.pokdeng_edge("standard", k)
        assert res.ev_optimal >= res.ev_simple


def test_pokdeng_edge_agrees_with_the_strategy_table(other_tables: Path) -> None:
    meta = open_table("pokdeng_strategy", other_tables).meta["extra"]["overall_ev"]
    for preset in ("standard", "straights"):
        for k in (3, 4, 5):
            res = pd_odds.pokdeng_edge(preset, k)
            rec = meta[preset][str(k)]
            assert res.ev_optimal == Fraction(rec["ev_optimal_fraction"])
            assert res.ev_simple == Fraction(rec["ev_simple_fraction"])
