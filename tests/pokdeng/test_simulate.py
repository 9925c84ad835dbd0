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


TYPE_HOUSES = {
    "runs_as_normal": [
        {"name": "pok", "when": "cards == 2 and points >= 8", "deng": "kind"},
        {"name": "tong", "when": "kind == 3", "deng": 5},
        {"name": "normal", "when": "cards == 3 and straight(both) and suited", "deng": 5},
        {"name": "normal", "when": "cards == 3 and straight(both)", "deng": 3},
        {"name": "sam_lueang", "when": "faces == 3", "deng": 3},
        {"name": "normal", "when": "true", "deng": "kind"},
    ],
    "pictures_first_ace_low": [
        {"name": "pok", "when": "cards == 2 and points >= 8", "deng": "kind"},
        {"name": "tong", "when": "kind == 3", "deng": 5},
        {"name": "sam_lueang", "when": 'cards == 3 and all_in("J-K")', "deng": 3},
        {"name": "straight_flush", "when": "straight(low) and suited", "deng": 5},
        {"name": "straight", "when": "straight(low)", "deng": 3},
        {"name": "normal", "when": "cards == 2 and pair", "deng": 3},
        {"name": "normal", "when": "true", "deng": "kind"},
    ],
}


def _types_file(tmp_path: Path, name: str) -> str:
    from solver.core.rules import to_toml

    path = tmp_path / f"{name}.toml"
    data = {"game": "pokdeng", "name": name, "types": TYPE_HOUSES[name]}
    path.write_text(to_toml(data), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("house", sorted(TYPE_HOUSES))
def test_the_simulator_reads_a_types_file_and_holds_the_exact_edge(
    house: str, tmp_path: Path
) -> None:
    """A rule file of ``[[types]]``: the simulator's own evaluator of the language gives
    every hand the solver's type, points and deng, and the exact edge of the file lies
    inside the simulated interval (both policies)."""
    from solver.games.pokdeng.hands import all_hands, classify
    from solver.games.pokdeng.rules import load_rules

    rules = load_rules(_types_file(tmp_path, house))
    levels = np.array([1, 2, 3, 4, 5, 6])  # type code -> the simulator's level
    for n in (2, 3):
        hands = all_hands(n)
        lv, pts, dg, _ = pd_sim.pokdeng_classes(hands, rules)
        kind, points, deng = classify(hands, rules)
        assert (lv == levels[kind]).all() and (pts == points).all() and (dg == deng).all()
    from solver.games.pokdeng.strategy import DRAW_DEN, Action, solve

    sol = solve(rules, 4)

    def optimal(hand: np.ndarray) -> np.ndarray:
        return np.asarray(sol.action[colex_rank_array(hand)] == Action.DRAW)

    def never(hand: np.ndarray) -> np.ndarray:
        return np.zeros(len(hand), dtype=bool)

    exact = pd_odds.pokdeng_edge(rules, 4)
    best = pd_sim.simulate_pokdeng(rules, optimal, 4, rounds=100_000, players=3, seed=22)
    assert best.contains(exact.ev_optimal), (float(exact.ev_optimal), best)
    # standing on every two cards: the exact EV is the mean of the stand EVs of the
    # 1,326 starts; the dealer's three-card hands then decide much of it
    stand = sol.ev_stand_num.sum() / (len(sol.ev_stand_num) * DRAW_DEN)
    sim = pd_sim.simulate_pokdeng(rules, never, 4, rounds=100_000, players=3, seed=23)
    assert sim.contains(stand), (stand, sim)
    if house == "pictures_first_ace_low":  # the check tells the file from the preset
        std = solve(load_rules("standard"), 4).ev_stand_num
        assert not sim.contains(std.sum() / (len(std) * DRAW_DEN))
