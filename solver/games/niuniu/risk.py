"""Niu Niu's risk figures: the exact edge with the whole distribution of the player's net
(``bull edge``), from the same matchup counts as the edge
(:func:`solver.games.niuniu.audit.net_distribution`); the banker at a full table
(``bull risk``: :func:`table_risk`, the engine in :mod:`solver.kit.banker`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.games.niuniu.audit import net_distribution
from solver.games.niuniu.odds import (
    EdgeResult,
    MatchupSums,
    NiuNiuMatchups,
    edge_of,
    niuniu_edge,
    niuniu_sums,
)
from solver.kit.banker import BankerRisk, Worst
from solver.kit.banker import table_risk as kit_table_risk
from solver.kit.exact import TablesLike
from solver.kit.packing import WorstSearch
from solver.kit.realize import UNUSABLE, Deal, Realizer
from solver.kit.risk import NetDistribution
from solver.kit.table_worst import WorstProblem, worst_figure

__all__ = ["SIM_TABLES", "edge", "edge_with_net", "table_risk", "worst_problem"]


def edge_with_net(
    rules: Any, mu: NiuNiuMatchups | MatchupSums, bet: str, c: Fraction
) -> EdgeResult:
    """:func:`~solver.games.niuniu.odds.edge_of` with its ``net`` distribution (any deck)."""
    return _attach(rules, mu, edge_of(rules, mu, bet, c))


def _attach(rules: Any, mu: NiuNiuMatchups | MatchupSums, res: EdgeResult) -> EdgeResult:
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
    from solver.games.niuniu.matchups import _niuniu_rules

    r = _niuniu_rules(rules)
    res = niuniu_edge(r, bet, commission, tables)
    return _attach(r, niuniu_sums(r, tables), res)  # the sums are cached


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
    from solver.games.niuniu.matchups import _niuniu_rules
    from solver.kit.exact import exact_commission

    r = _niuniu_rules(rules)
    bet = r.bet(options.get("bet"))
    comm = exact_commission(options.get("commission"), r.commission)

    def player() -> NetDistribution:  # the exact edge's, as bull audit keeps it on disk
        fig = exact_figures(r, bet, float(comm), tables)
        return NetDistribution.of((Fraction(a), Fraction(p)) for a, p in fig["net"])

    seats = (r.deck_size * int(r.decks)) // 5 - 1
    key = {"risk": "niuniu 1", "rules": r.to_data(), "bet": bet, "commission": str(comm)}

    def worst(n: int, bound: Fraction) -> Worst:
        return worst_figure(key, lambda: worst_problem(r, bet, comm, tables), n, bound, tables)

    return kit_table_risk(
        game="niuniu",
        rules=r.name,
        setting={"bet": bet, "commission": float(comm)},
        key=key,
        player=player,
        spec=lambda: audit_spec(r, {"bet": bet, "commission": float(comm)}, tables),
        max_players=min(seats, 9 if r.decks == 1 else 16),
        players=players,
        rounds=rounds,
        reserve=reserve,
        sim_tables=SIM_TABLES if sim_tables is None else sim_tables,
        tables=tables,
        progress=progress,
        worst=worst,
    )


@dataclass(frozen=True)
class _Hands:
    """What the worst-round search reads of a rule set's hands (any bet): every hand
    (``hands``: card ids), its strength and category, its type (``tid``) — a count of
    each kind (``kinds``: per type) — and per type and category its strongest and
    weakest hand (``top``, ``low``: -1 and int64 max where it has none); ``copies`` of
    each card in the deck, ``supply`` of each kind."""

    hands: npt.NDArray[np.uint8]
    strength: npt.NDArray[np.int64]
    cat: npt.NDArray[np.int64]
    tid: npt.NDArray[np.int64]
    kinds: npt.NDArray[np.int64]
    top: npt.NDArray[np.int64]
    low: npt.NDArray[np.int64]
    copies: npt.NDArray[np.int64]
    supply: npt.NDArray[np.int64]


def _hands(r: Any, tables: str | None, deck: Sequence[int] | None) -> _Hands:
    """:class:`_Hands` of ``r``: kinds are ranks, except that ten-valued ranks (10, J,
    Q, K) share one when swapping them changes no type's set of categories (kinds only
    coarsen the search's bound: any choice is exact, this one keeps it tight)."""
    from solver.games.niuniu.matchups import _niuniu_columns

    hands, strength, cat8 = _niuniu_columns(r, tables)
    cat = cat8.astype(np.int64)
    copies = np.full(r.deck_size, int(r.decks), dtype=np.int64)
    if deck is not None:
        copies = np.bincount(np.asarray(deck, dtype=np.int64), minlength=r.deck_size)
        if len(copies) > r.deck_size or copies.max(initial=0) > r.decks:
            raise ValueError("the deck holds cards the rule set's deck does not")
        ok = np.ones(len(hands), dtype=bool)
        for i in range(5):
            ok &= (hands == hands[:, i : i + 1]).sum(axis=1) <= copies[hands[:, i]]
        hands, strength, cat = hands[ok], strength[ok], cat[ok]
    ranks = r.deck_size // 4
    ncat = int(cat.max(initial=0)) + 1
    power = 8 ** np.arange(ranks, dtype=np.int64)
    key = power[hands[:, 0] // 4]
    for i in range(1, 5):
        key = key + power[hands[:, i] // 4]
    order = np.argsort(key * ncat + cat, kind="stable")
    cell = (key * ncat + cat)[order]
    at = np.concatenate([[0], np.nonzero(cell[1:] != cell[:-1])[0] + 1])
    c_key, c_cat = cell[at] // ncat, cell[at] % ncat
    c_top = np.maximum.reduceat(strength[order], at)
    c_low = np.minimum.reduceat(strength[order], at)
    r_keys, c_type = np.unique(c_key, return_inverse=True)  # rank-level types
    c_type = c_type.reshape(-1)
    r_counts = (r_keys[:, None] // power[None, :]) % 8
    kind = list(range(ranks))
    if ranks == 13:  # may 10, J, Q, K share a kind?
        mask = np.zeros(len(r_keys), dtype=np.int64)
        np.bitwise_or.at(mask, c_type, np.left_shift(1, c_cat))
        where = {int(k): i for i, k in enumerate(r_keys.tolist())}
        for x, y in ((10, 11), (11, 12), (9, 10)):
            moved = r_counts.copy()
            moved[:, [x, y]] = moved[:, [y, x]]
            back = np.array([where.get(int(k), -1) for k in (moved @ power).tolist()])
            if (back >= 0).all() and np.array_equal(mask[back], mask):
                ky = kind[y]
                kind = [kind[x] if k == ky else k for k in kind]
    dense = {k: i for i, k in enumerate(sorted(set(kind)))}
    to_kind = np.array([dense[k] for k in kind], dtype=np.int64)
    n_kinds = len(dense)
    counts = np.zeros((len(r_keys), n_kinds), dtype=np.int64)
    for rank in range(ranks):
        counts[:, to_kind[rank]] += r_counts[:, rank]
    kinds, r_type = np.unique(counts, axis=0, return_inverse=True)
    r_type = r_type.reshape(-1)
    n_types = len(kinds)
    top = np.full((n_types, ncat), -1, dtype=np.int64)
    low = np.full((n_types, ncat), np.iinfo(np.int64).max, dtype=np.int64)
    np.maximum.at(top, (r_type[c_type], c_cat), c_top)
    np.minimum.at(low, (r_type[c_type], c_cat), c_low)
    tid = np.empty(len(hands), dtype=np.int64)
    tid[order] = np.repeat(r_type[c_type], np.diff(np.append(at, len(order))))
    card_kind = to_kind[np.arange(r.deck_size) // 4]
    supply = np.bincount(card_kind, weights=copies, minlength=n_kinds).astype(np.int64)
    return _Hands(hands, strength, cat, tid, kinds, top, low, copies, supply)


_HANDS: dict[tuple[Any, ...], _Hands] = {}


def worst_problem(
    rules: Any,
    bet: str | None,
    commission: Fraction,
    tables: str | None,
    deck: Sequence[int] | None = None,
) -> WorstProblem:
    """The worst round's search (:mod:`solver.kit.packing`) for Niu Niu under ``rules``,
    ``bet`` and ``commission``: a type is a count of each kind (:func:`_hands`); a
    player type's weight against a banker type (its kinds and category) is what its
    strongest hand of each category takes against the banker's weakest hand. ``deck``:
    the cards dealt from (a card listed as often as the deck holds it; default the rule
    set's deck or shoe)."""
    from solver.core.cards import CARD_NAMES
    from solver.games.niuniu.matchups import _niuniu_rules

    r = _niuniu_rules(rules)
    bet = r.bet(bet)
    memo = (r, tables, None if deck is None else tuple(sorted(deck)))
    if memo not in _HANDS:
        _HANDS.clear()  # one rule set at a time: they are large
        _HANDS[memo] = _hands(r, tables, deck)
    h = _HANDS[memo]
    hands, strength, cat, top, low = h.hands, h.strength, h.cat, h.top, h.low
    n_types = len(h.kinds)
    mult = np.zeros(top.shape[1], dtype=np.int64)
    row = r.multiplier_row(bet)
    mult[: min(len(row), len(mult))] = row[: len(mult)]
    q, p = commission.denominator, commission.numerator
    won, lost = mult * (q - p), -mult * q  # in 1/q stakes
    bt, bc = np.nonzero(top >= 0)  # banker types: a kind count and a category
    b_low = low[bt, bc]
    push = r.on_tie == "push"
    t_top, t_low = top.max(axis=1), low.min(axis=1)

    def weights_at(s: int, loss: int) -> npt.NDArray[np.int64]:
        """Each player type's largest net against a banker hand of strength s whose
        loss pays ``loss``."""
        win = np.where(top > s, won[None, :], UNUSABLE).max(axis=1)
        tie = (t_low <= s) & (s <= t_top)
        out = np.where(tie, np.maximum(win, 0 if push else loss), win)
        return np.asarray(np.where(t_low < s, np.maximum(out, loss), out), dtype=np.int64)

    groups = [np.nonzero(bc == c)[0] for c in np.unique(bc).tolist()]

    def group_weights(g: int) -> npt.NDArray[np.int64]:
        m = groups[g]
        return weights_at(int(b_low[m].min()), int(lost[bc[m[0]]]))

    def weights(b: int) -> npt.NDArray[np.int64]:
        return weights_at(int(b_low[b]), int(lost[bc[b]]))

    real = Realizer(hands, h.tid, n_types, h.copies)

    def nets(bh: int, pm: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        sb, ps = strength[bh], strength[pm]
        tie = 0 if push else lost[cat[bh]]
        return np.where(ps > sb, won[cat[pm]], np.where(ps == sb, tie, lost[cat[bh]]))

    def realize(
        b: int, types: tuple[int, ...], floor: int, target: int, budget: list[int]
    ) -> Deal | None:
        mem = real.members(int(bt[b]))
        mem = mem[cat[mem] == bc[b]]
        mem = mem[np.argsort(strength[mem], kind="stable")]  # the weakest first
        return real.best(mem.tolist(), types, nets, floor, target, budget)

    def describe(i: int) -> tuple[list[str], str]:
        return [CARD_NAMES[c] for c in sorted(hands[i].tolist())], r.labels[int(cat[i])]

    search = WorstSearch(
        supply=h.supply,
        player_kinds=h.kinds,
        banker_kinds=h.kinds[bt],
        groups=groups,
        group_weights=group_weights,
        weights=weights,
        realize=realize,
    )
    return WorstProblem(search, q, describe)
