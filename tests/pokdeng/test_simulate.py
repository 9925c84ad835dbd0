"""The Pok Deng simulator: its independent classifier on the rules' examples and every
hand, the exact edge inside its interval, and the policy mattering."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from solver.core.indexing import colex_rank_array
from solver.games.pokdeng import odds as pd_odds
from solver.games.pokdeng import simulate as pd_sim
from solver.store.tables import open_table

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")

CARD = {r: i for i, r in enumerate(RANKS)}

SUIT = {"S": 0, "H": 1, "D": 2, "C": 3}


def cards(text: str) -> list[int]:
    """Card ids ``rank * 4 + suit`` (the documented encoding), from RULES notation."""
    return [CARD[t[:-1]] * 4 + SUIT[t[-1]] for t in text.split()]


def test_pokdeng_evaluator_on_the_rules_examples_and_every_hand(other_tables: Path) -> None:
    std = pd_sim._pd_rules("standard")

    def net(p: str, d: str) -> int:
        pc = pd_sim.pokdeng_classes(np.array([cards(p)]), std)
        dc = pd_sim.pokdeng_classes(np.array([cards(d)]), std)
        return int(pd_sim._pd_settle(pc, dc, std)[0])

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
        rules = pd_sim._pd_rules(cfg)
        for n in (2, 3):
            m = size == n
            lv, pts, dg, _ = pd_sim.pokdeng_classes(card_cols[m][:, :n], rules)
            assert (lv == np.vectorize(levels.get)(t.column(f"{cfg}_type")[m])).all()
            assert (pts == t.column("points")[m]).all()
            assert (dg == t.column(f"{cfg}_deng")[m]).all()


def draw_table(rules: str, k: int):  # type: ignore[no-untyped-def]
    """The exact optimal strategy as a policy: draw where the solution says draw."""
    from solver.games.pokdeng.rules import load_rules
    from solver.games.pokdeng.strategy import Action, solve

    action = solve(load_rules(rules), k).action

    def optimal(hand: np.ndarray) -> np.ndarray:
        return np.asarray(action[colex_rank_array(hand)] == Action.DRAW)

    return optimal


@pytest.mark.parametrize("preset,k", [("standard", 4), ("straights", 5), ("standard", 3)])
def test_pokdeng_exact_edge_inside_the_interval(preset: str, k: int) -> None:
    exact = pd_odds.pokdeng_edge(preset, k)
    simple = pd_sim.simulate_pokdeng(preset, "simple", k, rounds=120_000, players=3, seed=k)
    best = pd_sim.simulate_pokdeng(
        preset, draw_table(preset, k), k, rounds=120_000, players=3, seed=10 + k
    )
    assert simple.contains(exact.ev_simple), (float(exact.ev_simple), simple)
    assert best.contains(exact.ev_optimal), (float(exact.ev_optimal), best)


def test_pokdeng_policy_matters_in_the_simulator() -> None:
    """Standing on everything is far worse than drawing on 4 or less: the simulator
    tells policies apart."""
    never = pd_sim.simulate_pokdeng(
        "standard", lambda h: np.zeros(len(h), dtype=bool), 4, rounds=60_000, seed=3
    )
    simple = pd_sim.simulate_pokdeng("standard", "simple", 4, rounds=60_000, seed=3)
    assert never.ci_high < simple.ci_low
