"""Niu Niu's risk figures: the exact edge with the whole distribution of the player's net
(``bull edge``), from the same matchup counts as the edge
(:func:`solver.games.niuniu.audit.net_distribution`)."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

from solver.games.niuniu.audit import net_distribution
from solver.games.niuniu.odds import (
    EdgeResult,
    NiuNiuMatchups,
    edge_of,
    niuniu_edge,
    niuniu_matchups,
)
from solver.kit.exact import TablesLike
from solver.kit.risk import NetDistribution

__all__ = ["edge", "edge_with_net"]


def edge_with_net(rules: Any, mu: NiuNiuMatchups, bet: str, c: Fraction) -> EdgeResult:
    """:func:`~solver.games.niuniu.odds.edge_of` with its ``net`` distribution (any deck)."""
    return _attach(rules, mu, edge_of(rules, mu, bet, c))


def _attach(rules: Any, mu: NiuNiuMatchups, res: EdgeResult) -> EdgeResult:
    net = NetDistribution.of(net_distribution(rules, mu, res.bet, res.commission))
    if net.mean != res.ev:
        raise AssertionError("the net distribution's mean is not the exact edge")
    return replace(res, net=net)


def edge(
    rules: Any = None,
    bet: str | None = None,
    commission: float | Fraction | None = None,
    tables: TablesLike = None,
) -> EdgeResult:
    """:func:`~solver.games.niuniu.odds.niuniu_edge` with its ``net`` distribution."""
    from solver.games.niuniu.odds import _niuniu_rules

    r = _niuniu_rules(rules)
    res = niuniu_edge(r, bet, commission, tables)
    return _attach(r, niuniu_matchups(r, tables), res)  # the counts are cached
