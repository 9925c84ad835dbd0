"""Tau Ngau exact odds and edge: pagat against enumeration and its symmetry, the macau
edge, and a rule file without a table."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np

from solver.core.indexing import all_subsets, colex_rank_array
from solver.games.taungau import odds as tn_odds
from solver.kit import exact as an
from solver.store.tables import open_table


def test_taungau_pagat_is_symmetric_and_counts_equal_enumeration(other_tables: Path) -> None:
    res = tn_odds.taungau_edge("pagat", None, other_tables)
    assert res.ev_always_declare == res.ev_optimal == 0  # even money, exchangeable
    assert res.p_win == res.p_loss and res.p_win + res.p_push + res.p_loss == 1
    # inclusion-exclusion over tiles against direct enumeration for sample hands
    strength = open_table("taungau", other_tables).column("pagat_strength").astype(np.int64)
    hands = all_subsets(32, 5)
    c = an.disjoint_counts(hands, strength, 32)
    for row in (0, 777, 123_456, len(hands) - 1):
        rest = np.array([x for x in range(32) if x not in hands[row]], dtype=np.uint8)
        s = strength[colex_rank_array(rest[all_subsets(27, 5)], presorted=True)]
        mine = strength[row]
        assert (c.below[row], c.equal[row], c.above[row]) == (
            (s < mine).sum(),
            (s == mine).sum(),
            (s > mine).sum(),
        )


def test_taungau_macau_edge(other_tables: Path) -> None:
    res = tn_odds.taungau_edge("macau", "last", other_tables)
    # knowing more can only help: first >= last >= always declaring
    assert res.ev_optimal_first >= res.ev_optimal_last >= res.ev_always_declare
    assert res.ev_optimal == res.ev_optimal_last
    assert tn_odds.taungau_edge("macau", "first", other_tables).ev_optimal == res.ev_optimal_first
    # RULES §4: declining is right from banker score p + 5, so only for p <= 5
    assert res.decline_from == {p: (p + 5 if p <= 5 else None) for p in range(1, 11)}
    # the outcome probabilities by inclusion-exclusion agree with the banker distributions
    strength = open_table("taungau", other_tables).column("macau_strength").astype(np.int64)
    c = an.disjoint_counts(all_subsets(32, 5), strength, 32)
    has = strength > 0
    assert res.p_win == Fraction(int(c.below[has].sum()), res.pairs)
    assert res.p_push == Fraction(int(c.equal[has].sum()), res.pairs)
    # a no-bull player pays 4 whatever the banker holds
    assert res.ev_by_score["no_bull"] == -4
    # the Tau Ngau module's own per-hand EV columns (a separate implementation) agree
    t = open_table("taungau", other_tables)
    for column, ev in (
        ("macau_ev_declare_num", res.ev_always_declare),
        ("macau_ev_first_num", res.ev_optimal_first),
        ("macau_ev_last_num", res.ev_optimal_last),
    ):
        assert Fraction(int(t.column(column).astype(np.int64).sum()), res.pairs) == ev


def test_taungau_rule_file_without_table(tmp_path: Path, other_tables: Path) -> None:
    from solver.games.taungau.rules import load_rules as tn_rules

    data = tn_rules("macau").to_data() | {"name": "macau3", "no_bull_pays": 3}
    path = tmp_path / "macau3.json"
    path.write_text(json.dumps(data))
    res = tn_odds.taungau_edge(str(path), "first", other_tables)
    assert res.rules == "macau3"
    # paying 3, declining is right when the bull would lose more than 3: from p + 4
    assert res.decline_from[4] == 8 and res.decline_from[6] == 10
    assert res.decline_from[7] is None
    assert res.ev_by_score["no_bull"] == -3
