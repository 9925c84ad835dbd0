"""Exact edges under house rules: the Multi bet, ties to the banker, the 40-card deck.

Three independent checks:

* **A reduced deck, every pair.** On 16 real cards (with five faces, four faces, a
  straight flush and three of a kind among their hands) the solver's counting
  (:func:`~solver.games.niuniu.odds.matchups_of`, :func:`~solver.games.niuniu.odds.edge_of`)
  equals every ordered pair of disjoint hands settled by the reference from the rule text.
* **Identities on the full deck.** Both hands come from one deck and are exchangeable;
  the loser pays the winner's multiplier, so without ties W_k = L_k (the player wins with
  a k-hand as often as he loses to one) and EV = -c · Σ_k m_k P(player wins with k).
* **Ties, derived independently.** With ``tie_break = "none"`` two hands tie exactly
  when their categories are equal, and classic's categories depend on ranks only, so the
  number T_k of ordered disjoint pairs tying in category k is a sum over pairs of rank
  multisets: Π_r C(4, a_r) C(4 - a_r, b_r). Ties to the banker instead of a push change
  the EV by exactly -Σ_k m_k T_k / pairs (for the equal bet: -P(tie)).
"""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from itertools import combinations_with_replacement
from math import comb
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import solver.games.niuniu.play as nn
from niuniu import reference as ref
from solver.core.cards import parse_card
from solver.core.indexing import all_subsets
from solver.games.niuniu.odds import edge_of, matchups_of, niuniu_edge
from solver.games.niuniu.rules import load_rules

SUITS = "SHDC"
C = Fraction(1, 20)
MULTI = {
    "default": 1,
    **{f"niu_{k}": k for k in range(1, 10)},
    "no_bull": 1,
    "niu_niu": 10,
    "five_faces": 11,
}
"""The common "Multi" table: niu N pays N, niu niu 10, five faces 11, no bull 1."""


def classic(**changes: Any) -> dict[str, Any]:
    data = load_rules("classic").to_data()
    return {
        **data,
        "bets": ["equal", "double", "multi"],
        "multipliers": {**data["multipliers"], "multi": MULTI},
        **changes,
    }


def write(folder: Path, data: dict[str, Any]) -> str:
    path = folder / f"{data['name']}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


# ------------------------------------------------------------------ a reduced deck


DECK16 = [
    "AS",
    "2S",
    "3S",
    "4S",
    "5S",
    "5H",
    "5D",
    "9S",
    "10S",
    "10H",
    "JS",
    "JH",
    "QS",
    "QH",
    "KS",
    "KH",
]


def brute_force_edge(data: dict[str, Any], bet: str, cards: list[int]) -> Fraction:
    """Every ordered pair of disjoint hands of ``cards``, settled by the reference."""
    hands = [
        sorted(h)
        for h in (
            [cards[i] for i in range(len(cards)) if m >> i & 1]
            for m in range(1 << len(cards))
            if bin(m).count("1") == 5
        )
    ]
    as_ref = [[(c // 4 + 1, SUITS[c % 4]) for c in h] for h in hands]
    keys = [ref.sort_key(h, data) for h in as_ref]
    table = data["multipliers"][bet]
    mult = np.array(
        [table.get(ref.category_of(h, data), table.get("default", 1)) for h in as_ref],
        dtype=np.int64,
    )
    order = {k: i for i, k in enumerate(sorted(set(keys)))}
    level = np.array([order[k] for k in keys])
    bits = np.array([sum(1 << cards.index(c) for c in h) for h in hands])
    disjoint = (bits[:, None] & bits[None, :]) == 0
    win = disjoint & (level[:, None] > level[None, :])
    lose = disjoint & (level[:, None] < level[None, :])
    tie = disjoint & (level[:, None] == level[None, :])
    won = int((win.sum(axis=1) * mult).sum())
    paid = int((lose * mult[None, :]).sum())
    if data.get("on_tie", "push") == "banker":
        paid += int((tie * mult[None, :]).sum())
    pairs = int(disjoint.sum())
    assert pairs == comb(16, 5) * comb(11, 5)
    return ((1 - C) * won - paid) / pairs


MULTI_SET = {"name": "multi"}
PUSH_SET = {"name": "none_push", "tie_break": "none"}
BANKER_SET = {"name": "none_banker", "tie_break": "none", "on_tie": "banker"}
"""The full-deck tests' rule sets (below), also counted on the reduced deck: the same
rule data (name included) is the same rule-set table, built once for both."""


@pytest.mark.parametrize(
    ("changes", "bet"),
    [
        (MULTI_SET, "multi"),
        (BANKER_SET, "multi"),
        (PUSH_SET, "double"),
        (
            {
                "name": "hk16",
                "specials": ["three_of_a_kind", "four_faces", "five_faces", "straight_flush"],
                "bull_from_three_of_a_kind": True,
                "tie_break": "rank_by_rank",
                "on_tie": "banker",
            },
            "multi",
        ),
    ],
)
def test_reduced_deck_edge_equals_every_pair(
    changes: dict[str, Any], bet: str, rule_tables: Path, tmp_path: Path
) -> None:
    data = classic(**changes)
    path = write(tmp_path, data)
    cards = [parse_card(c) for c in DECK16]
    local = all_subsets(16, 5)
    ev = nn.evaluate_batch(np.array(cards, dtype=np.uint8)[local], path, tables=rule_tables)
    rules = load_rules(path)
    mu = matchups_of(
        rules, local, ev["strength"].astype(np.int64), ev["category"].astype(np.uint8), 16
    )
    got = edge_of(rules, mu, bet, C)
    assert got.ev == brute_force_edge(data, bet, cards)
    assert got.p_win + got.p_loss + got.p_push == 1


# ------------------------------------------------------------------ the full deck


@pytest.mark.slow
def test_multi_edge_identities(rule_tables: Path, tmp_path: Path) -> None:
    path = write(tmp_path, classic(**MULTI_SET))
    fair = niuniu_edge(path, "multi", 0, rule_tables)
    assert fair.ev == 0 and fair.p_win == fair.p_loss == Fraction(1, 2) and fair.p_push == 0
    e5 = niuniu_edge(path, "multi", None, rule_tables)
    assert e5.commission == C
    m = {**{f"niu_{k}": k for k in range(1, 10)}, "no_bull": 1, "niu_niu": 10, "five_faces": 11}
    assert e5.ev == -C * sum(m[k] * p for k, p in e5.player_win_category.items())
    e3 = niuniu_edge(path, "multi", 0.03, rule_tables)
    assert e5.ev / e3.ev == Fraction(5, 3)
    # the equal bet of the same file is classic's: -c/2
    assert niuniu_edge(path, "equal", None, rule_tables).ev == Fraction(-1, 40)
    assert sum(e5.hands_by_category.values()) == 2_598_960


def tie_pairs_by_category() -> dict[str, int]:
    """T_k for classic's categories, from rank multisets (see the module docstring)."""
    data = load_rules("classic").to_data()
    by_cat: dict[str, list[list[int]]] = {}
    for ms in combinations_with_replacement(range(1, 14), 5):
        counts = Counter(ms)
        if max(counts.values()) > 4:
            continue
        hand = []
        for r in sorted(counts):
            hand += [(r, SUITS[i]) for i in range(counts[r])]
        if len({s for _, s in hand}) == 1:
            hand[-1] = (hand[-1][0], "H")  # classic has no flush rule: any suits do
        vec = [counts.get(r, 0) for r in range(1, 14)]
        by_cat.setdefault(ref.category_of(hand, data), []).append(vec)
    f = np.zeros((5, 5), dtype=np.int64)
    for a in range(5):
        for b in range(5 - a):
            f[a, b] = comb(4, a) * comb(4 - a, b)
    out = {}
    total_hands = 0
    for cat, vecs in by_cat.items():
        arr = np.array(vecs, dtype=np.int64)
        total_hands += int(np.prod(f[arr, 0], axis=1).sum())
        t = 0
        for start in range(0, len(arr), 64):
            t += int(np.prod(f[arr[start : start + 64, None, :], arr[None, :, :]], axis=2).sum())
        out[cat] = t
    assert total_hands == comb(52, 5)
    return out


@pytest.mark.slow
def test_ties_to_the_banker_cost_exactly_the_tied_multipliers(
    rule_tables: Path, tmp_path: Path
) -> None:
    push = write(tmp_path, classic(**PUSH_SET))
    banker = write(tmp_path, classic(**BANKER_SET))
    pairs = comb(52, 5) * comb(47, 5)
    t = tie_pairs_by_category()
    p_tie = Fraction(sum(t.values()), pairs)
    double = load_rules(push).multiplier_row("double")
    labels = [c.label for c in nn.Category]
    for bet in ("equal", "double"):
        ep = niuniu_edge(push, bet, None, rule_tables)
        eb = niuniu_edge(banker, bet, None, rule_tables)
        assert ep.p_push == p_tie and eb.p_push == 0 and eb.p_loss == ep.p_loss + p_tie
        assert ep.ev == -C * sum(  # no bull..., each side wins W_k = L_k times
            (double[labels.index(k)] if bet == "double" else 1) * p
            for k, p in ep.player_win_category.items()
        )
        tied = sum((double[labels.index(k)] if bet == "double" else 1) * n for k, n in t.items())
        assert eb.ev - ep.ev == -Fraction(tied, pairs)
    assert (
        niuniu_edge(banker, "equal", None, rule_tables).ev
        == -C * Fraction(1, 2) * (1 - p_tie) - p_tie
    )


@pytest.mark.slow
def test_no_faces_edge(niuniu_tables: Path) -> None:
    """40 cards: C(40,5) x C(35,5) pairs, no ties (a card tie-break), so EV = -c/2."""
    e = niuniu_edge("no_faces", None, None, niuniu_tables)
    assert e.pairs == comb(40, 5) * comb(35, 5)
    assert e.ev == Fraction(-1, 40) and e.p_push == 0 and e.p_win == Fraction(1, 2)
    assert list(e.hands_by_category)[-2:] == ["three_of_a_kind", "four_of_a_kind"]
    assert sum(e.winner_category.values()) == 1
