"""The exact covariance of two players' nets against one banker hand (Tau Ngau).

Three hands, the banker's B and two players' P1 and P2, dealt disjoint from the tile
set. Each player's net ``f_s(P)`` depends on his hand and the banker's strength s only,
so E[X1 X2] is the sum, over banker hands B, of

    Q(R) = sum over disjoint P1, P2 within R (the tiles B leaves) of f_s(P1) f_s(P2)
         = sum over sets S within R of (-1)^|S| G(S)^2,   G(S) = sum of f_s(P), P ⊇ S

(Möbius inversion over the tiles the two hands share: a pair sharing the set U is
counted sum over S ⊆ U of (-1)^|S| = [U empty] times). Q depends on what R holds, not on
which copy of a tile type: banker hands with one multiset of tile types share it, so it
is found once per multiset. For one B the tiles of R are relabelled 0..|R|-1 in order,
so the hands within R and the sets S they hold are one fixed pattern for every B (G over
the sets of k tiles summed from those of k + 1); only the nets are gathered anew.
Everything is integer: the result is an exact fraction.

>>> cov = exact_covariance("pagat", None, None, deck=list(range(15)))
>>> cov.pairs, cov.covariance == cov.moment - cov.mean**2
(756756, True)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["ExactCovariance", "exact_covariance", "net_matrix"]


@dataclass(frozen=True)
class ExactCovariance:
    """E[X1] (``mean``), E[X1 X2] (``moment``) and their ``covariance``, over ``pairs``
    deals of a banker and two players (ordered: each (B, P1, P2) once); ``groups``
    banker multisets searched and the ``seconds`` it took."""

    mean: Fraction
    moment: Fraction
    covariance: Fraction
    pairs: int
    groups: int
    seconds: float


def _colex(s: Sequence[int]) -> int:
    """The colex rank of a sorted set."""
    return sum(comb(x, j + 1) for j, x in enumerate(s))


def _pattern(n: int) -> tuple[npt.NDArray[np.int64], list[npt.NDArray[np.int64]]]:
    """The hands of 5 among ``n`` positions (colex order), and for k = 0..4 the sets of
    k+1 positions holding each set of k (``up[k]``, shape (C(n, k), n - k), colex
    ranks): G over the sets of k is G over those of k + 1 summed, over 5 - k (each hand
    holding S is met once for each of its 5 - k positions outside S)."""
    from solver.core.indexing import all_subsets

    hands = all_subsets(n, 5).astype(np.int64)
    up = []
    for k in range(5):
        rows = [
            [_colex(sorted((*sub, x))) for x in range(n) if x not in sub]
            for sub in all_subsets(n, k).tolist()
        ]
        up.append(np.asarray(rows, dtype=np.int64).reshape(comb(n, k), n - k))
    return hands, up


def net_matrix(
    r: Any, reveals: str, tables: str | None
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Each hand's strength (colex order of the 32 tiles) and its net against a banker
    of each strength 0..10, the players declining as the rules say (what
    :func:`solver.games.taungau.audit.net_distribution` counts too)."""
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


def exact_covariance(
    rules: Any,
    reveals: str | None,
    tables: str | None,
    deck: Sequence[int] | None = None,
    progress: Callable[[int, int], object] | None = None,
) -> ExactCovariance:
    """The exact covariance (see the module docstring) under ``rules`` and the reveal
    order; ``deck``: the tile ids dealt from (default all 32)."""
    from solver.core.indexing import all_subsets
    from solver.core.tiles import NUM_TILES, TYPE_OF_TILE
    from solver.games.taungau.odds import _taungau_rules

    t0 = time.perf_counter()
    r = _taungau_rules(rules)
    strength, net = net_matrix(r, reveals or r.banker_reveals, tables)
    tiles = np.arange(NUM_TILES) if deck is None else np.unique(np.asarray(deck))
    n = len(tiles)
    if n < 15:
        raise ValueError("three hands need at least 15 tiles")
    # the deck's hands, as colex ranks into the 32-tile tables
    binom = np.array([[comb(i, j) for j in range(6)] for i in range(NUM_TILES + 1)])
    local = all_subsets(n, 5).astype(np.int64)
    full = tiles[local]
    rank = sum(binom[full[:, j], j + 1] for j in range(5))
    f_all = net[rank]  # (hands of the deck, 11): each hand's net against each strength
    s_all = strength[rank]
    tt = np.asarray(TYPE_OF_TILE, dtype=np.int64)[tiles]
    key = np.zeros(len(local), dtype=np.int64)
    for j in range(5):
        key = key * 32 + tt[local[:, j]]  # the banker hand's multiset of types (sorted ids)
    _, first, count = np.unique(key, return_index=True, return_counts=True)
    lbinom = np.array([[comb(i, j) for j in range(6)] for i in range(n + 1)])
    hands, up = _pattern(n - 5)
    f_by = [np.ascontiguousarray(f_all[:, v]) for v in range(f_all.shape[1])]
    moment = 0
    mean = 0
    for done, (b, c) in enumerate(zip(first.tolist(), count.tolist(), strict=True)):
        if progress is not None and done % 500 == 0:
            progress(done, len(first))
        rest = np.setdiff1d(np.arange(n), local[b])  # R, relabelled 0..n-6 in order
        ranks = sum(lbinom[rest, j + 1][hands[:, j]] for j in range(5))
        g = f_by[int(s_all[b])][ranks]  # G over the sets of 5: the hands themselves
        q = -int(g @ g)  # (-1)^|S| for the sets of 5
        for k in range(4, -1, -1):
            g = g[up[k]].sum(axis=1) // (5 - k)
            q += int(g @ g) * (-1) ** (k % 2)
        moment += c * q
        mean += c * int(g[0])
    b_count = comb(n, 5)
    pairs = b_count * comb(n - 5, 5) * comb(n - 10, 5)
    m1 = Fraction(mean, b_count * comb(n - 5, 5))
    m2 = Fraction(moment, pairs)
    return ExactCovariance(m1, m2, m2 - m1 * m1, pairs, len(first), time.perf_counter() - t0)
