"""Tau Ngau's risk figures: the exact edge with the whole distribution of the player's net
under the optimal declines (``bull edge``), from the same per-hand banker distributions
(:func:`solver.games.taungau.audit.net_distribution`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from solver.games.taungau.audit import net_distribution
from solver.games.taungau.odds import TauNgauEdge, _taungau_rules, taungau_edge
from solver.kit.exact import TablesLike
from solver.kit.risk import NetDistribution

__all__ = ["edge"]


def edge(
    rules: Any = None, banker_reveals: str | None = None, tables: TablesLike = None
) -> TauNgauEdge:
    """:func:`~solver.games.taungau.odds.taungau_edge` with its ``net`` distribution."""
    r = _taungau_rules(rules)
    res = taungau_edge(r, banker_reveals, tables)
    t = None if tables is None else str(tables)
    net = NetDistribution.of(net_distribution(r, res.banker_reveals, t))
    if net.mean != res.ev_optimal:
        raise AssertionError("the net distribution's mean is not the exact edge")
    return replace(res, net=net)
