"""The Tau Ngau simulator: its independent evaluator equals the table on every hand, and
the exact edge lies inside its interval."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from solver.core.indexing import all_subsets
from solver.games.taungau import odds as tn_odds
from solver.games.taungau import simulate as tn_sim
from solver.store.tables import open_table


def test_taungau_evaluator_equals_the_table_on_every_hand(other_tables: Path) -> None:
    from solver.core.tiles import tile_copy, tile_pips

    # the simulator's own tile list, matched to tile ids by pips and copy
    ours: dict[tuple[int, int], list[int]] = {}
    for i, pips in enumerate(tn_sim._TILES):
        ours.setdefault(pips, []).append(i)
    to_ours = np.array([ours[tile_pips(t)][tile_copy(t)] for t in range(32)])
    hands = all_subsets(32, 5)
    t = open_table("taungau", other_tables)
    for preset in ("macau", "pagat"):
        got = tn_sim.taungau_hands(to_ours[hands], tn_sim._tn_rules(preset))
        assert (got == t.column(f"{preset}_strength")).all()


def test_taungau_exact_edge_inside_the_interval(other_tables: Path) -> None:
    macau = tn_odds.taungau_edge("macau", "first", other_tables)
    declare = tn_sim.simulate_taungau("macau", "declare", rounds=100_000, seed=7)
    first = tn_sim.simulate_taungau("macau", "first", rounds=100_000, seed=8)
    assert declare.contains(macau.ev_always_declare)
    assert declare.contains(macau.ev_optimal_last)  # no hand declines when last
    assert first.contains(macau.ev_optimal_first)
    assert first.ci_low > declare.ci_high  # seeing the banker is worth it
    pagat = tn_odds.taungau_edge("pagat", None, other_tables)
    even = tn_sim.simulate_taungau("pagat", "declare", rounds=100_000, seed=9)
    assert even.contains(pagat.ev_optimal)
