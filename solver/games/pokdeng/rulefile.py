"""The exact strategy of a user's rule file: a ``pokdeng_strategy`` table of its own, built
on first use and cached by the rule set's content digest
(:func:`solver.store.custom.rule_table`), then read back as a
:class:`~solver.games.pokdeng.strategy.Solution`.

A preset's strategy lives in the committed ``pokdeng_strategy`` table; any other rule
set — a file, a dict, a :class:`~solver.games.pokdeng.rules.PokDengRules` — gets one
1,326-row table per dealer policy (the policy is part of the rule content, so of the
digest). The first use says on stderr that it is building.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from solver.core.errors import TableError
from solver.games.pokdeng.hands import N_TWO
from solver.games.pokdeng.rules import PokDengRules
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

__all__ = ["rule_solution", "rule_strategy_table", "solution_from_table"]

_SOLUTIONS: dict[tuple[PokDengRules, str | None], Solution] = {}


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
