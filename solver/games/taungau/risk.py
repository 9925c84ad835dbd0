"""Tau Ngau's risk figures: the exact edge with the whole distribution of the player's net
under the optimal declines (``bull edge``), from the same per-hand banker distributions
(:func:`solver.games.taungau.audit.net_distribution`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.games.taungau.audit import net_distribution
from solver.games.taungau.odds import TauNgauEdge, _taungau_rules, taungau_edge
from solver.kit.banker import BankerRisk, Worst
from solver.kit.banker import table_risk as kit_table_risk
from solver.kit.exact import TablesLike
from solver.kit.packing import WorstSearch
from solver.kit.realize import UNUSABLE, Deal, Realizer
from solver.kit.risk import NetDistribution
from solver.kit.table_worst import WorstProblem, worst_figure

__all__ = ["SIM_TABLES", "edge", "table_risk", "worst_problem"]


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

    key = {"risk": "taungau 1", "rules": r.to_data(), "banker_reveals": reveals}

    def worst(n: int, bound: Fraction) -> Worst:
        return worst_figure(key, lambda: worst_problem(r, reveals, tables), n, bound, tables)

    return kit_table_risk(
        game="taungau",
        rules=r.name,
        setting={"banker_reveals": reveals},
        key=key,
        player=player,
        spec=lambda: audit_spec(rules, {"banker_reveals": reveals}, tables),
        max_players=5,
        players=players,
        rounds=rounds,
        reserve=reserve,
        sim_tables=SIM_TABLES if sim_tables is None else sim_tables,
        tables=tables,
        progress=progress,
        worst=worst,
    )


def _net_matrix(
    r: Any, reveals: str, tables: str | None
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Each hand's strength (colex order of the 32 tiles) and its net against a banker
    of each strength 0..10, the players declining as the rules say (as
    :func:`solver.games.taungau.audit.net_distribution` counts them)."""
    from solver.games.taungau.play import rule_columns
    from solver.games.taungau.rules import Decision

    ps = rule_columns(r, ["strength"], tables)["strength"].astype(np.int64)
    pay = np.array([r.payoff_value(s) for s in range(11)], dtype=np.int64)
    no_bull = np.asarray(r.no_bull_payments(), dtype=np.int64)
    bs = np.arange(11, dtype=np.int64)[None, :]
    declines = np.zeros((len(ps), 11), dtype=bool)
    if r.has_decline:
        if reveals == "first":
            declines = (ps[:, None] > 0) & (pay[ps][:, None] - pay[bs] < -no_bull[bs])
        else:
            dec = rule_columns(r, ["decision_last"], tables)["decision_last"]
            declines = np.broadcast_to(
                (np.asarray(dec) == Decision.DECLINE)[:, None], (len(ps), 11)
            )
    eff = np.where(declines, 0, ps[:, None])
    if r.settlement == "difference":
        net = np.where(eff == 0, -no_bull[bs], pay[eff] - pay[bs])
    else:
        net = np.sign(eff - bs)
    return ps, np.asarray(net, dtype=np.int64)


def worst_problem(
    rules: Any,
    reveals: str | None,
    tables: str | None,
    deck: Sequence[int] | None = None,
) -> WorstProblem:
    """The worst round's search (:mod:`solver.kit.packing`) for Tau Ngau: kinds are the
    21 tile types, a type is a hand's multiset of them (its tiles' values, so its
    strength and decision, are the type's); groups of banker types by the banker's
    strength. ``deck``: the tile ids dealt from (default all 32)."""
    from solver.core.indexing import all_subsets
    from solver.core.tiles import NUM_TILES, NUM_TYPES, TILE_NAMES, TYPE_OF_TILE

    r = _taungau_rules(rules)
    mode = reveals or r.banker_reveals
    strength, net = _net_matrix(r, mode, tables)
    hands = all_subsets(NUM_TILES, 5)
    copies = np.ones(NUM_TILES, dtype=np.int64)
    if deck is not None:
        copies = np.bincount(np.asarray(deck, dtype=np.int64), minlength=NUM_TILES)
        if len(copies) > NUM_TILES or copies.max(initial=0) > 1:
            raise ValueError("the deck names a tile twice or a tile the set does not hold")
        ok = (copies[hands] > 0).all(axis=1)
        hands, strength, net = hands[ok], strength[ok], net[ok]
    tile_type = np.array(TYPE_OF_TILE, dtype=np.int64)
    counts = np.zeros((len(hands), NUM_TYPES), dtype=np.int64)
    for i in range(5):
        counts[np.arange(len(hands)), tile_type[hands[:, i]]] += 1
    _, first, tid = np.unique(
        counts @ (3 ** np.arange(NUM_TYPES, dtype=np.int64)),
        return_index=True,
        return_inverse=True,
    )
    tid = tid.reshape(-1)
    n_types = len(first)
    tnet = np.full((n_types, 11), UNUSABLE, dtype=np.int64)
    np.maximum.at(tnet, tid, net)  # every hand of a type has the same net
    tstr = strength[first]
    levels = np.unique(tstr).tolist()
    groups = [np.nonzero(tstr == s)[0] for s in levels]
    real = Realizer(hands, tid, n_types, copies)

    def group_weights(g: int) -> npt.NDArray[np.int64]:
        return np.ascontiguousarray(tnet[:, levels[g]])

    def realize(
        b: int, types: tuple[int, ...], floor: int, target: int, budget: list[int]
    ) -> Deal | None:
        s = int(tstr[b])
        return real.best(
            real.members(b).tolist(), types, lambda bh, pm: net[pm, s], floor, target, budget
        )

    def describe(h: int) -> tuple[list[str], str]:
        sc = r.score_of_strength(int(strength[h]))
        return [TILE_NAMES[t] for t in sorted(hands[h].tolist())], (
            "no_bull" if sc is None else str(sc)
        )

    search = WorstSearch(
        supply=np.bincount(tile_type, weights=copies, minlength=NUM_TYPES).astype(np.int64),
        player_kinds=counts[first],
        banker_kinds=counts[first],
        groups=groups,
        group_weights=group_weights,
        weights=lambda b: None,
        realize=realize,
    )
    return WorstProblem(search, 1, describe)
