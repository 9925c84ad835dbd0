"""Pok Deng's risk figures: the exact edge with the whole distribution of the player's net
drawing optimally (``bull edge``): every deal of the four hands' cards counted
(:func:`solver.games.pokdeng.audit.exact_net`: computed once, then kept next to the
rule-set tables)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from solver.games.pokdeng.audit import exact_net
from solver.games.pokdeng.odds import PokDengEdge, pokdeng_edge
from solver.games.pokdeng.rules import PokDengRules, load_rules
from solver.kit.exact import TablesLike
from solver.kit.risk import NetDistribution

__all__ = ["edge"]


def edge(
    rules: Any = None, dealer_draws_at_most: int | None = None, tables: TablesLike = None
) -> PokDengEdge:
    """:func:`~solver.games.pokdeng.odds.pokdeng_edge` with its ``net`` distribution."""
    r = rules if isinstance(rules, PokDengRules) else load_rules(rules)
    res = pokdeng_edge(r, dealer_draws_at_most, tables)
    t = None if tables is None else str(tables)
    net = NetDistribution.of(exact_net(r, "optimal", res.dealer_draws_at_most, t))
    if net.mean != res.ev_optimal:
        raise AssertionError("the net distribution's mean is not the exact edge")
    return replace(res, net=net)
