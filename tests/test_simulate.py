"""The Monte Carlo simulator: its evaluators against RULES.md and the tables, and every
exact figure of ``solver.analysis`` inside the simulator's confidence interval."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from solver import analysis as an
from solver import simulate as sim
from solver.errors import BullError
from solver.indexing import all_subsets, colex_rank_array
from solver.tables import open_table

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
CARD = {r: i for i, r in enumerate(RANKS)}
SUIT = {"S": 0, "H": 1, "D": 2, "C": 3}


def cards(text: str) -> list[int]:
    """Card ids ``rank * 4 + suit`` (the documented encoding), from RULES notation."""
    return [CARD[t[:-1]] * 4 + SUIT[t[-1]] for t in text.split()]


@pytest.fixture(scope="module")
def other_tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from solver.build import build

    out = tmp_path_factory.mktemp("simulate_tables")
    build(["taungau", "pokdeng"], tables=out)
    return out


# ------------------------------------------------------------------ the evaluators


def test_niuniu_evaluator_on_the_rules_examples() -> None:
    classic = sim._nn_rules("classic")
    hands = [
        cards("7S 3H 10D 8C 6S"),
        cards("JS QH KD 5C 5S"),
        cards("AS 2H 4D 7C 9S"),
        cards("4S 7H 8D JC KS"),
    ]
    cat, _ = sim.niuniu_hands(np.array(hands), classic)
    assert cat.tolist() == [4, 10, 3, 0]  # Niu 4, Niu Niu, Niu 3, no bull
    _, key = sim.niuniu_hands(np.array([cards("KS 9H 8C 3D 7S"), cards("KH 9S 8D 3C 7H")]), classic)
    assert key[0] > key[1]  # K♠ beats K♥
    casino = sim._nn_rules("casino")
    cat, _ = sim.niuniu_hands(
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
        cat, key = sim.niuniu_hands(hands, sim._nn_rules(preset))
        assert (cat == t.column(f"{preset}_category")[rows]).all()
        strength = t.column(f"{preset}_strength")[rows].astype(np.int64)
        a, b = slice(0, 100_000), slice(100_000, 200_000)
        assert (np.sign(key[a] - key[b]) == np.sign(strength[a] - strength[b])).all()


def test_taungau_evaluator_equals_the_table_on_every_hand(other_tables: Path) -> None:
    from solver.tiles import tile_copy, tile_pips

    # the simulator's own tile list, matched to tile ids by pips and copy
    ours: dict[tuple[int, int], list[int]] = {}
    for i, pips in enumerate(sim._TILES):
        ours.setdefault(pips, []).append(i)
    to_ours = np.array([ours[tile_pips(t)][tile_copy(t)] for t in range(32)])
    hands = all_subsets(32, 5)
    t = open_table("taungau", other_tables)
    for preset in ("macau", "pagat"):
        got = sim.taungau_hands(to_ours[hands], sim._tn_rules(preset))
        assert (got == t.column(f"{preset}_strength")).all()


def test_pokdeng_evaluator_on_the_rules_examples_and_every_hand(other_tables: Path) -> None:
    std = sim._pd_rules("standard")

    def net(p: str, d: str) -> int:
        pc = sim.pokdeng_classes(np.array([cards(p)]), std)
        dc = sim.pokdeng_classes(np.array([cards(d)]), std)
        return int(sim._pd_settle(pc, dc, std)[0])

    assert net("9S 9D", "AC 4C 4D") == 2
    assert net("5S 4C", "9S 9D") == 1
    assert net("6C 4C 5C", "KH 2S AC") == 3
    assert net("6C 4C 5C", "KH 2S 3C") == 2
    assert net("6C 4C 5C", "2S 3S") == 1
    assert net("3S 3H 3D", "KS KH KD") == 5  # Tong 9 beats Tong 0: 5 deng
    assert net("JS JH JD", "QS QH QD") == 0  # same type and points: push
    t = open_table("pokdeng", other_tables)
    size = t.column("size")
    card_cols = np.stack([t.column(f"card{i}") for i in range(3)], axis=1).astype(np.int64)
    levels = {0: 1, 1: 2, 2: 3, 3: 4, 4: 5, 5: 6}  # table type code -> our level
    for cfg in ("standard", "straights"):
        rules = sim._pd_rules(cfg)
        for n in (2, 3):
            m = size == n
            lv, pts, dg = sim.pokdeng_classes(card_cols[m][:, :n], rules)
            assert (lv == np.vectorize(levels.get)(t.column(f"{cfg}_type")[m])).all()
            assert (pts == t.column("points")[m]).all()
            assert (dg == t.column(f"{cfg}_deng")[m]).all()


# ------------------------------------------------------------------ exact inside the CI


@pytest.mark.slow
@pytest.mark.parametrize(
    "preset,bet", [("classic", "equal"), ("classic", "double"), ("casino", "standard")]
)
def test_niuniu_exact_edge_inside_the_interval(preset: str, bet: str, niuniu_tables: Path) -> None:
    exact = an.niuniu_edge(preset, bet, None, niuniu_tables)
    mc = sim.simulate_niuniu(preset, bet, rounds=150_000, players=4, seed=2026)
    assert mc.contains(exact.ev), (float(exact.ev), mc)
    assert not mc.contains(0)  # sensitive enough to see the 5 % commission
    assert mc.ci_high - mc.ci_low < 0.03


def test_taungau_exact_edge_inside_the_interval(other_tables: Path) -> None:
    macau = an.taungau_edge("macau", "first", other_tables)
    declare = sim.simulate_taungau("macau", "declare", rounds=100_000, seed=7)
    first = sim.simulate_taungau("macau", "first", rounds=100_000, seed=8)
    assert declare.contains(macau.ev_always_declare)
    assert declare.contains(macau.ev_optimal_last)  # no hand declines when last
    assert first.contains(macau.ev_optimal_first)
    assert first.ci_low > declare.ci_high  # seeing the banker is worth it
    pagat = an.taungau_edge("pagat", None, other_tables)
    even = sim.simulate_taungau("pagat", "declare", rounds=100_000, seed=9)
    assert even.contains(pagat.ev_optimal)


def draw_table(rules: str, k: int):  # type: ignore[no-untyped-def]
    """The exact optimal strategy as a policy: draw where the solution says draw."""
    from solver.pokdeng import load_rules
    from solver.pokdeng_strategy import Action, solve

    action = solve(load_rules(rules), k).action

    def optimal(hand: np.ndarray) -> np.ndarray:
        return np.asarray(action[colex_rank_array(hand)] == Action.DRAW)

    return optimal


@pytest.mark.parametrize("preset,k", [("standard", 4), ("straights", 5), ("standard", 3)])
def test_pokdeng_exact_edge_inside_the_interval(preset: str, k: int) -> None:
    exact = an.pokdeng_edge(preset, k)
    simple = sim.simulate_pokdeng(preset, "simple", k, rounds=120_000, players=3, seed=k)
    best = sim.simulate_pokdeng(
        preset, draw_table(preset, k), k, rounds=120_000, players=3, seed=10 + k
    )
    assert simple.contains(exact.ev_simple), (float(exact.ev_simple), simple)
    assert best.contains(exact.ev_optimal), (float(exact.ev_optimal), best)


def test_pokdeng_policy_matters_in_the_simulator() -> None:
    """Standing on everything is far worse than drawing on 4 or less: the simulator
    tells policies apart."""
    never = sim.simulate_pokdeng(
        "standard", lambda h: np.zeros(len(h), dtype=bool), 4, rounds=60_000, seed=3
    )
    simple = sim.simulate_pokdeng("standard", "simple", 4, rounds=60_000, seed=3)
    assert never.ci_high < simple.ci_low


# ------------------------------------------------------------------ mechanics


def test_seeded_and_reproducible() -> None:
    a = sim.simulate("taungau", "pagat", rounds=5_000, seed=42)
    b = sim.simulate("taungau", "pagat", rounds=5_000, seed=42)
    c = sim.simulate("taungau", "pagat", rounds=5_000, seed=43)
    assert a == b and a.mean != c.mean
    assert a.to_json()["rounds"] == 5_000


@pytest.mark.parametrize(
    "call",
    [
        lambda: sim.simulate("niuniu", rounds=1),
        lambda: sim.simulate("niuniu", players=0),
        lambda: sim.simulate("taungau", players=7),  # 40 tiles needed, 32 in the set
        lambda: sim.simulate("taungau", "pagat", policy="first"),
        lambda: sim.simulate("taungau", policy="sometimes"),
        lambda: sim.simulate("pokdeng", policy="always"),
        lambda: sim.simulate("chess"),
    ],
)
def test_bad_input(call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(BullError):
        call()
