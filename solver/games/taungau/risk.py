"""Tau Ngau's risk figures: the exact edge with the whole distribution of the player's net
under the optimal declines (``bull edge``), from the same per-hand banker distributions
(:func:`solver.games.taungau.audit.net_distribution`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from fractions import Fraction
from typing import Any

from solver.games.taungau.audit import net_distribution
from solver.games.taungau.odds import TauNgauEdge, _taungau_rules, taungau_edge
from solver.kit.banker import BankerRisk
from solver.kit.banker import table_risk as kit_table_risk
from solver.kit.exact import TablesLike
from solver.kit.risk import NetDistribution

__all__ = ["SIM_TABLES", "edge", "table_risk"]


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


SIM_TABLES = 1_000_000
"""Tables simulated once per rule set for ``bull risk`` (then cached)."""


def table_risk(
    rules: Any,
    options: Mapping[str, Any],
    tables: str | None,
    players: int,
    rounds: int,
    reserve: Fraction | None = None,
    progress: Callable[[int, int], Any] | None = None,
    sim_tables: int | None = None,
) -> BankerRisk:
    """``bull risk taungau``: the banker against ``players`` players from one set of 32
    tiles, the players declining as the rules say (``banker_reveals`` of ``options``)."""
    from solver.games.taungau.audit import audit_spec

    r = _taungau_rules(rules)
    reveals = options.get("banker_reveals") or r.banker_reveals

    def player() -> NetDistribution:
        net = edge(r, reveals, tables).net
        assert net is not None
        return net

    return kit_table_risk(
        game="taungau",
        rules=r.name,
        setting={"banker_reveals": reveals},
        key={"risk": "taungau 1", "rules": r.to_data(), "banker_reveals": reveals},
        player=player,
        spec=lambda: audit_spec(rules, {"banker_reveals": reveals}, tables),
        max_players=5,
        players=players,
        rounds=rounds,
        reserve=reserve,
        sim_tables=SIM_TABLES if sim_tables is None else sim_tables,
        tables=tables,
        progress=progress,
    )
