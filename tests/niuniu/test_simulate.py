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


# ------------------------------------------------------------------ house rules


def _house(**changes: object) -> dict[str, object]:
    from solver.games.niuniu.rules import load_rules

    data = load_rules("classic").to_data()
    multi = {"default": 1, **{f"niu_{k}": k for k in range(1, 10)}, "niu_niu": 10}
    return {
        **data,
        "bets": ["equal", "double", "multi"],
        "multipliers": {**data["multipliers"], "multi": {**multi, "five_faces": 11}},
        **changes,
    }


HOUSE = {
    "hk": _house(
        name="sim_hk",
        specials=[
            "straight",
            "three_of_a_kind",
            "four_faces",
            "five_faces",
            "four_of_a_kind",
            "straight_flush",
            "five_small_bull",
        ],
        bull_from_three_of_a_kind=True,
        tie_break="rank_by_rank",
        quads_first=True,
        special_definitions={"four_faces_fifth": "all_ten_valued"},
    ),
    "none_banker": _house(name="none_banker", tie_break="none", on_tie="banker"),
}


@pytest.mark.parametrize("name", ["hk", "none_banker"])
def test_niuniu_evaluator_orders_house_rule_hands_like_the_table(
    name: str, rule_tables: Path
) -> None:
    from solver.games.niuniu.rules import load_rules
    from solver.games.niuniu.source import rules_table

    rules = load_rules(HOUSE[name])
    t = rules_table(rules, rule_tables, notice=lambda s: None)
    rng = np.random.default_rng(12)
    rows = rng.integers(0, t.num_rows, 200_000)
    hands = np.stack([t.column(f"c{i}")[rows] for i in range(5)], axis=1)
    cat, key = nn_sim.niuniu_hands(hands, rules)
    assert (cat == t.column(f"{rules.name}_category")[rows]).all()
    strength = t.column(f"{rules.name}_strength")[rows].astype(np.int64)
    a, b = slice(0, 100_000), slice(100_000, 200_000)
    assert (np.sign(key[a] - key[b]) == np.sign(strength[a] - strength[b])).all()


def test_niuniu_evaluator_on_the_no_faces_deck(niuniu_tables: Path) -> None:
    t = open_table("niuniu_no_faces", niuniu_tables)
    hands = np.stack([t.column(f"c{i}") for i in range(5)], axis=1)
    cat, _ = nn_sim.niuniu_hands(hands, nn_sim._nn_rules("no_faces"))
    assert (cat == t.column("no_faces_category")).all()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "bet"), [("no_faces", "equal"), ("multi", "multi"), ("none_banker", "double")]
)
def test_house_rule_edges_inside_the_interval(
    name: str, bet: str, niuniu_tables: Path, rule_tables: Path, tmp_path: Path
) -> None:
    import json

    if name == "no_faces":
        rules: object = "no_faces"
        tables = niuniu_tables
    else:
        data = HOUSE.get(name) or _house(name="multi")
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(data))
        rules, tables = str(path), rule_tables
    exact = nn_odds.niuniu_edge(rules, bet, None, tables)
    mc = nn_sim.simulate_niuniu(rules, bet, rounds=150_000, players=4, seed=2027)
    assert mc.contains(exact.ev), (float(exact.ev), mc)
    assert not mc.contains(0)
