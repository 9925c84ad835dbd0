"""The exact strategy of a user's rule file: a ``pokdeng_strategy`` table of its own, built
on first use and cached by the rule set's content digest
(:func:`solver.store.custom.rule_table`), then read back as a
:class:`~solver.games.pokdeng.strategy.Solution`.

A preset's strategy lives in the committed ``pokdeng_strategy`` table; any other rule
set — a file, a dict, a :class:`~solver.games.pokdeng.rules.PokDengRules` — gets one
1,326-row table per dealer policy (the policy is part of the rule content, so of the
digest). The first use says on stderr that it is building.

A rule set dealt from a shoe (``decks > 1``, e.g. the preset ``shoe8``) gets the
tables ``pokdeng_shoe<N>`` (every 2- and 3-card multiset of the 52 faces with its
``weight``, :func:`shoe_hands_table`) and ``pokdeng_strategy_shoe<N>`` (1,378 multiset
starts, :func:`shoe_strategy_table`), cached the same way by their rule content.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from solver.core.errors import TableError
from solver.core.shoe import shoe_weights
from solver.games.pokdeng.hands import (
    N_SHOE_THREE,
    N_SHOE_TWO,
    N_TWO,
    all_shoe_hands,
    classify,
)
from solver.games.pokdeng.rules import HandType, PokDengRules
from solver.games.pokdeng.shoe import ShoeSolution, shoe_overall, solve_shoe
from solver.games.pokdeng.strategy import (
    DRAW_DEN,
    Solution,
    overall_ev,
    solution_columns,
    solve,
    strategy_extra,
)
from solver.store.custom import rule_table
from solver.store.tables import LoadedTable, make_table

__all__ = [
    "rule_solution",
    "rule_strategy_table",
    "shoe_hands",
    "shoe_hands_table",
    "shoe_rule_solution",
    "shoe_solution_from_table",
    "shoe_strategy_table",
    "solution_from_table",
]

_SOLUTIONS: dict[tuple[PokDengRules, str | None], Solution] = {}
_SHOE: dict[tuple[PokDengRules, str | None], ShoeSolution] = {}
NO_CARD = 255


def rule_strategy_table(rules: PokDengRules) -> pa.Table:
    """``pokdeng_strategy`` for one rule set at its own dealer policy: 1,326 rows
    (configuration 0 = the rule set), the overall EVs in the metadata."""
    sol = solve(rules)
    k = rules.dealer_draws_at_most
    extra = strategy_extra([rules.name], [k], {rules.name: {str(k): overall_ev(sol)}})
    columns = solution_columns(sol, 0)
    return make_table("pokdeng_strategy", columns, rules={rules.name: rules.to_data()}, extra=extra)


def solution_from_table(table: LoadedTable, rules: PokDengRules) -> Solution:
    """The :class:`Solution` a :func:`rule_strategy_table` holds."""

    def num(key: str) -> npt.NDArray[np.int64]:
        n = table.column(f"{key}_num").astype(np.int64)
        den = table.column(f"{key}_den").astype(np.int64)
        out: npt.NDArray[np.int64] = n * (DRAW_DEN // den)
        return out

    if (table.column("rank") != np.arange(N_TWO)).any():
        raise TableError(f"the rule-set strategy table {table.path} is out of order; delete it")
    return Solution(
        rules=rules,
        dealer_draws_at_most=rules.dealer_draws_at_most,
        type=table.column("type").astype(np.int8),
        points=table.column("points").astype(np.int8),
        deng=table.column("deng").astype(np.int8),
        ev_stand_num=num("ev_stand"),
        ev_draw_num=num("ev_draw"),
    )


def rule_solution(
    rules: PokDengRules, k: int | None = None, tables: str | os.PathLike[str] | None = None
) -> Solution:
    """The exact strategy of ``rules`` with the dealer drawing on ``k`` or less (default:
    the rules' own policy), from its cached table (built on first use).

    >>> from solver.games.pokdeng.rules import load_rules
    >>> house = PokDengRules.from_data("house-doc", {"equal_points": "push"})
    >>> sol = rule_solution(house)
    >>> sol.action_of([16, 28]).label, sol.dealer_draws_at_most     # 5S 8S: 3 points
    ('draw', 4)
    """
    r = rules if k is None else rules.with_policy(k)
    key = (r, None if tables is None else os.fspath(tables))
    hit = _SOLUTIONS.get(key)
    if hit is None:
        data: dict[str, Any] = r.to_data()
        t = rule_table("pokdeng_strategy", data, lambda: rule_strategy_table(r), tables, N_TWO)
        hit = _SOLUTIONS[key] = solution_from_table(t, r)
    return hit


# ---------------------------------------------------------------- shoe tables


def shoe_hands_table(rules: PokDengRules) -> pa.Table:
    """``pokdeng_shoe<N>``: every two-card multiset (rows 0..1377, dense multiset rank)
    then every three-card multiset (row 1378 + rank) with type, points, deng, strength
    and ``weight`` (ways to deal it from the full shoe: Π C(N, m_c))."""
    two, three = all_shoe_hands(2), all_shoe_hands(3)
    n = N_SHOE_TWO + N_SHOE_THREE
    cards = np.full((n, 3), NO_CARD, dtype=np.uint8)
    cards[:N_SHOE_TWO, :2] = two
    cards[N_SHOE_TWO:] = three
    t2, p2, d2 = classify(two, rules)
    t3, p3, d3 = classify(three, rules)
    t, p = np.r_[t2, t3], np.r_[p2, p3]
    columns: dict[str, Any] = {
        "size": np.r_[np.full(N_SHOE_TWO, 2), np.full(N_SHOE_THREE, 3)].astype(np.uint8),
        "rank": np.r_[np.arange(N_SHOE_TWO), np.arange(N_SHOE_THREE)].astype(np.int32),
        "card0": cards[:, 0],
        "card1": cards[:, 1],
        "card2": cards[:, 2],
        "weight": np.r_[shoe_weights(two, rules.decks), shoe_weights(three, rules.decks)],
        "type": t,
        "points": p,
        "deng": np.r_[d2, d3],
        "strength": (10 * t.astype(np.int16) + p).astype(np.int8),
    }
    extra = {
        "columns": {
            "size": "uint8: 2 or 3 cards",
            "rank": "int32: dense multiset rank of the sorted card ids among hands of this size",
            "card0, card1, card2": f"uint8 card ids, ascending, may repeat; card2 = {NO_CARD} "
            "for two cards",
            "weight": "int64: ways to deal the hand from the full shoe, Π C(decks, m_c); the "
            "weights of one size sum to C(52 decks, size)",
            "type, points, deng, strength": "int8, as in the pokdeng table",
        },
        "decks": rules.decks,
        "type_codes": {str(int(v)): v.label for v in HandType},
    }
    name = f"pokdeng_shoe{rules.decks}"
    return make_table(name, columns, rules={rules.name: rules.to_data()}, extra=extra)


def shoe_hands(rules: PokDengRules, tables: str | os.PathLike[str] | None = None) -> LoadedTable:
    """The cached ``pokdeng_shoe<N>`` table of a shoe rule set (built on first use)."""
    data: dict[str, Any] = rules.to_data()
    return rule_table(
        f"pokdeng_shoe{rules.decks}",
        data,
        lambda: shoe_hands_table(rules),
        tables,
        N_SHOE_TWO + N_SHOE_THREE,
    )


def shoe_strategy_table(rules: PokDengRules) -> pa.Table:
    """``pokdeng_strategy_shoe<N>``: the 1,378 multiset starts at the rules' own dealer
    policy, exact EV and P(push) numerators over ``den`` (in the metadata), the weights,
    and the overall figures."""
    sol = solve_shoe(rules)
    two = all_shoe_hands(2)
    den = sol.den
    columns: dict[str, Any] = {
        "rank": np.arange(N_SHOE_TWO, dtype=np.int16),
        "card0": two[:, 0],
        "card1": two[:, 1],
        "weight": sol.weight,
        "type": sol.type,
        "points": sol.points,
        "deng": sol.deng,
        "action": sol.action,
        "ev_stand": sol.ev_stand_num / den,
        "ev_draw": sol.ev_draw_num / den,
        "margin": sol.margin_num / den,
        "ev_stand_num": sol.ev_stand_num,
        "ev_draw_num": sol.ev_draw_num,
        "push_stand_num": sol.push_stand_num,
        "push_draw_num": sol.push_draw_num,
    }
    extra = {
        "columns": {
            "rank": "int16: dense multiset rank of the two-card start",
            "weight": "int64: ways to deal the start from the full shoe",
            "*_num": "int64: numerators over den (exact EV, P(push))",
        },
        "den": den,
        "decks": rules.decks,
        "dealer_draws_at_most": rules.dealer_draws_at_most,
        "overall": shoe_overall(sol),
    }
    name = f"pokdeng_strategy_shoe{rules.decks}"
    return make_table(name, columns, rules={rules.name: rules.to_data()}, extra=extra)


def shoe_solution_from_table(table: LoadedTable, rules: PokDengRules) -> ShoeSolution:
    """The :class:`~solver.games.pokdeng.shoe.ShoeSolution` a shoe strategy table holds."""
    if (table.column("rank") != np.arange(N_SHOE_TWO)).any():
        raise TableError(f"the rule-set strategy table {table.path} is out of order; delete it")

    def col(key: str) -> npt.NDArray[np.int64]:
        return table.column(key).astype(np.int64)

    return ShoeSolution(
        rules=rules,
        dealer_draws_at_most=rules.dealer_draws_at_most,
        decks=rules.decks,
        den=int(table.meta["extra"]["den"]),
        type=table.column("type").astype(np.int8),
        points=table.column("points").astype(np.int8),
        deng=table.column("deng").astype(np.int8),
        weight=col("weight"),
        ev_stand_num=col("ev_stand_num"),
        ev_draw_num=col("ev_draw_num"),
        push_stand_num=col("push_stand_num"),
        push_draw_num=col("push_draw_num"),
    )


def shoe_rule_solution(
    rules: PokDengRules, k: int | None = None, tables: str | os.PathLike[str] | None = None
) -> ShoeSolution:
    """The exact shoe strategy of ``rules`` (any ``decks``) with the dealer drawing on
    ``k`` or less, from its cached ``pokdeng_strategy_shoe<N>`` table."""
    r = rules if k is None else rules.with_policy(k)
    key = (r, None if tables is None else os.fspath(tables))
    hit = _SHOE.get(key)
    if hit is None:
        data: dict[str, Any] = r.to_data()
        name = f"pokdeng_strategy_shoe{r.decks}"
        t = rule_table(name, data, lambda: shoe_strategy_table(r), tables, N_SHOE_TWO)
        hit = _SHOE[key] = shoe_solution_from_table(t, r)
    return hit
