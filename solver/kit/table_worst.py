"""The banker's worst round at a table for ``bull risk``: searched once, then cached.

A game describes its problem (:class:`WorstProblem`: the search of
:mod:`solver.kit.packing`, the lattice of its nets and how to print a hand);
:func:`worst_figure` answers for N players from the cache next to the rule-set tables
(``rules/risk-worst-<digest>-<code>.json``, one file per rule set and options, a row per
table size) or searches and adds the row. A search that passes its budget of nodes
gives no exact answer: the row then holds the bound N x one player's largest win and
says why (:class:`~solver.kit.banker.Worst`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from solver.kit.banker import Worst
from solver.kit.exact import fraction_text
from solver.kit.packing import WorstSearch, worst_round
from solver.kit.realize import NODES, SearchTooLong

__all__ = ["VERSION", "WorstProblem", "worst_figure", "worst_from_row"]

VERSION = 1
"""Bumped when a cached row's meaning changes."""


@dataclass(frozen=True)
class WorstProblem:
    """What the search needs of a game: ``search``; its nets are whole multiples of
    1/``step`` stakes; ``describe(h)``: hand h's item names and its label (category,
    score or type)."""

    search: WorstSearch
    step: int
    describe: Callable[[int], tuple[list[str], str]]


def _row(problem: WorstProblem, players: int, budget: int) -> dict[str, Any]:
    """Search the worst round at ``players`` players: the cache row."""
    try:
        w = worst_round(problem.search, players, budget)
    except SearchTooLong:
        return {"players": players, "exact": False, "nodes": budget}
    step = problem.step
    names, label = problem.describe(w.banker)
    hands = []
    for h, net in zip(w.players, w.nets, strict=True):
        pn, pl = problem.describe(h)
        hands.append({"hand": pn, "label": pl, "net": fraction_text(Fraction(net, step))})
    return {
        "players": players,
        "exact": True,
        "amount": fraction_text(Fraction(w.amount, step)),
        "banker": {"hand": names, "label": label},
        "player_results": hands,
        "bankers": w.bankers,
        "nodes": w.nodes,
        "leaves": w.leaves,
        "seconds": round(w.seconds, 3),
    }


def worst_from_row(row: Mapping[str, Any], bound: Fraction) -> Worst:
    """The :class:`~solver.kit.banker.Worst` of a cache row (``bound``: N x one player's
    largest win, for a search that gave no exact answer)."""
    n = int(row["players"])
    if not row["exact"]:
        return Worst(
            bound,
            False,
            f"{n} x one player's largest win; the exact search of the worst deal passed "
            f"its budget of {int(row['nodes']):,} nodes",
        )
    deal = {
        "banker": dict(row["banker"]),
        "player_results": [dict(p) for p in row["player_results"]],
    }
    amount = Fraction(row["amount"])
    nets = sum((Fraction(p["net"]) for p in row["player_results"]), Fraction(0))
    if nets != amount:
        raise ValueError("a cached worst round does not add up")
    return Worst(amount, True, "the worst deal, searched exhaustively", deal)


_MEMO: dict[str, tuple[Path, dict[str, Any]]] = {}
_PROBLEMS: dict[str, WorstProblem] = {}


def worst_figure(
    key: Mapping[str, Any],
    make: Callable[[], WorstProblem],
    players: int,
    bound: Fraction,
    tables: str | None,
    budget: int = NODES,
) -> Worst:
    """The worst round at ``players`` players for the rule set and options ``key``:
    from the cache, or searched (``make()`` sets the problem up, once per process) and
    added to it (the file is replaced whole)."""
    from solver.store.custom import cached_figures, rule_digest, store_figures

    full_key = {**dict(key), "worst": VERSION, "budget": budget}
    memo = rule_digest(full_key) + (tables or "")
    if memo not in _MEMO:
        path, data = cached_figures("risk-worst", full_key, tables, 1 << 22)
        rows: dict[str, Any] = {}
        try:
            if data is not None:
                rows = {str(k): v for k, v in data["rows"].items()}
        except (AttributeError, KeyError, TypeError):
            rows = {}
        _MEMO[memo] = (path, rows)
    path, stored = _MEMO[memo]
    row = stored.get(str(players))
    if row is None:
        problem = _PROBLEMS.get(memo)
        if problem is None:
            _PROBLEMS.clear()  # one rule set's hands at a time: they are large
            problem = _PROBLEMS[memo] = make()
        row = stored[str(players)] = _row(problem, players, budget)
        store_figures(path, full_key, {"rows": stored})
    try:
        return worst_from_row(row, bound)
    except (KeyError, TypeError, ValueError, ZeroDivisionError):  # a damaged cache row
        stored.pop(str(players), None)
        problem = _PROBLEMS.get(memo) or make()
        return worst_from_row(_row(problem, players, budget), bound)
