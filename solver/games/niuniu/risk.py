"""Niu Niu's risk figures: the exact edge with the whole distribution of the player's net
(``bull edge``), from the same matchup counts as the edge
(:func:`solver.games.niuniu.audit.net_distribution`); the banker at a full table
(``bull risk``: :func:`table_risk`, the engine in :mod:`solver.kit.banker`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
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
from solver.kit.banker import BankerRisk
from solver.kit.banker import table_risk as kit_table_risk
from solver.kit.exact import TablesLike
from solver.kit.risk import NetDistribution

__all__ = ["SIM_TABLES", "edge", "edge_with_net", "table_risk"]


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


SIM_TABLES = 2_000_000
"""Tables simulated once per rule set and bet for ``bull risk`` (then cached)."""


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
    """``bull risk niuniu``: the banker against ``players`` players from one deck (or
    the rule set's shoe), under the bet and commission of ``options``."""
    from solver.games.niuniu.audit import audit_spec, exact_figures
    from solver.games.niuniu.odds import _niuniu_rules
    from solver.kit.exact import exact_commission

    r = _niuniu_rules(rules)
    bet = r.bet(options.get("bet"))
    comm = exact_commission(options.get("commission"), r.commission)

    def player() -> NetDistribution:  # the exact edge's, as bull audit keeps it on disk
        fig = exact_figures(r, bet, float(comm), tables)
        return NetDistribution.of((Fraction(a), Fraction(p)) for a, p in fig["net"])

    seats = (r.deck_size * int(r.decks)) // 5 - 1
    return kit_table_risk(
        game="niuniu",
        rules=r.name,
        setting={"bet": bet, "commission": float(comm)},
        key={"risk": "niuniu 1", "rules": r.to_data(), "bet": bet, "commission": str(comm)},
        player=player,
        spec=lambda: audit_spec(r, {"bet": bet, "commission": float(comm)}, tables),
        max_players=min(seats, 9 if r.decks == 1 else 16),
        players=players,
        rounds=rounds,
        reserve=reserve,
        sim_tables=SIM_TABLES if sim_tables is None else sim_tables,
        tables=tables,
        progress=progress,
    )
