"""Pok Deng's risk figures: the exact edge with the whole distribution of the player's net
drawing optimally (``bull edge``): every deal of the four hands' cards counted
(:func:`solver.games.pokdeng.audit.exact_net`: computed once, then kept next to the
rule-set tables)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from fractions import Fraction
from typing import Any

from solver.games.pokdeng.audit import exact_net
from solver.games.pokdeng.odds import PokDengEdge, pokdeng_edge
from solver.games.pokdeng.rules import PokDengRules, load_rules
from solver.kit.banker import BankerRisk
from solver.kit.banker import table_risk as kit_table_risk
from solver.kit.exact import TablesLike
from solver.kit.risk import NetDistribution

__all__ = ["SIM_TABLES", "edge", "table_risk"]


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


SIM_TABLES = 500_000
"""Tables simulated once per rule set and dealer policy for ``bull risk`` (then cached)."""


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
    """``bull risk pokdeng``: the dealer against ``players`` players from one deck (or
    the rule set's shoe), every player drawing optimally, the dealer by ``options``'
    ``dealer_draws_at_most`` (default: the rule set's)."""
    from solver.games.pokdeng.audit import audit_spec

    r = rules if isinstance(rules, PokDengRules) else load_rules(rules)
    k = options.get("dealer_draws_at_most")
    k = r.dealer_draws_at_most if k is None else int(k)

    def player() -> NetDistribution:
        net = edge(r, k, tables).net
        assert net is not None
        return net

    return kit_table_risk(
        game="pokdeng",
        rules=r.name,
        setting={"dealer_draws_at_most": k, "player_strategy": "optimal"},
        key={"risk": "pokdeng 1", "rules": r.to_data(), "dealer_draws_at_most": k},
        player=player,
        spec=lambda: audit_spec(
            rules, {"player_strategy": "optimal", "dealer_draws_at_most": k}, tables
        ),
        max_players=16,
        players=players,
        rounds=rounds,
        reserve=reserve,
        sim_tables=SIM_TABLES if sim_tables is None else sim_tables,
        tables=tables,
        progress=progress,
        notes=("every player draws optimally against the dealer's policy, as bull edge",),
    )
