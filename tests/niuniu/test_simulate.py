"""The Niu Niu simulator: its independent evaluator against the rules' examples and the
table, and the exact edge inside its interval."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from solver.games.niuniu import odds as nn_odds
from solver.games.niuniu import simulate as nn_sim
from solver.store.tables import open_table

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")

CARD = {r: i for i, r in enumerate(RANKS)}

SUIT = {"S": 0, "H": 1, "D": 2, "C": 3}


def cards(text: str) -> list[int]:
    """Card ids ``rank * 4 + suit`` (the documented encoding), from RULES notation."""
    return [CARD[t[:-1]] * 4 + SUIT[t[-1]] for t in text.split()]


def test_niuniu_evaluator_on_the_rules_examples() -> None:
    classic = nn_sim._nn_rules("classic")
    hands = [
        cards("7S 3H 10D 8C 6S"),
        cards("JS QH KD 5C 5S"),
        cards("AS 2H 4D 7C 9S"),
        cards("4S 7H 8D JC KS"),
    ]
    cat, _ = nn_sim.niuniu_hands(np.array(hands), classic)
    assert cat.tolist() == [4, 10, 3, 0]  # Niu 4, Niu Niu, Niu 3, no bull
    _, key = nn_sim.niuniu_hands(
        np.array([cards("KS 9H 8C 3D 7S"), cards("KH 9S 8D 3C 7H")]), classic
    )
    assert key[0] > key[1]  # K♠ beats K♥
    casino = nn_sim._nn_rules("casino")
    cat, _ = nn_sim.niuniu_hands(
        np.array([cards("AS 2S 3S 4S 5S"), cards("AS AH AD AC 2S"), cards("JS QS KS JH QH")]),
        casino,
    )
    assert cat.tolist() == [14, 15, 11]  # straight flush; five small bull over quads; faces


def test_niuniu_evaluator_orders_hands_like_the_table(niuniu_tables: Path) -> None:
    t = open_table("niuniu", niuniu_tables)
    rng = np.random.default_rng(11)
    rows = rng.integers(0, t.num_rows, 200_000)
    hands = np.stack([t.column(f"c{i}")[rows] for i in range(5)], axis=1)
    for preset in ("classic", "casino"):
        cat, key = nn_sim.niuniu_hands(hands, nn_sim._nn_rules(preset))
        assert (cat == t.column(f"{preset}_category")[rows]).all()
        strength = t.column(f"{preset}_strength")[rows].astype(np.int64)
        a, b = slice(0, 100_000), slice(100_000, 200_000)
        assert (np.sign(key[a] - key[b]) == np.sign(strength[a] - strength[b])).all()


@pytest.mark.slow
@pytest.mark.parametrize(
    "preset,bet", [("classic", "equal"), ("classic", "double"), ("casino", "standard")]
)
def test_niuniu_exact_edge_inside_the_interval(preset: str, bet: str, niuniu_tables: Path) -> None:
    exact = nn_odds.niuniu_edge(preset, bet, None, niuniu_tables)
    mc = nn_sim.simulate_niuniu(preset, bet, rounds=150_000, players=4, seed=2026)
    assert mc.contains(exact.ev), (float(exact.ev), mc)
    assert not mc.contains(0)  # sensitive enough to see the 5 % commission
    assert mc.ci_high - mc.ci_low < 0.03
