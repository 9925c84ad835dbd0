"""The common block of an audit, without index arrays: every round the same rows.

A game server's log is mostly rounds of one shape: the same number of seats each
round, the banker's row at the same place in each, every row readable. Such a block is
a grid, rounds by seats (:func:`layout`), and the per-round work of
:meth:`~solver.audit.batch.Auditor._process` becomes work along its rows: the banker's
values are a column, broadcast against the players' (no gather of each player's
banker), a round's items are ORed along a row (no ``reduceat`` over round starts), the
first player of each round is a column (no row index of it), and the counts that
depend on a round's size are products. :func:`audit_uniform` gives the partial the
general path gives (the tests compare the two on the same blocks); anything else
(a malformed row, an impossible deal, ``--by`` groups) goes the general way.

>>> change = np.array([1, 0, 0, 1, 0, 0], dtype=bool)
>>> layout(change, np.array([1, 0, 0, 1, 0, 0]))
(3, 0)
>>> layout(change, np.array([1, 0, 0, 0, 1, 0])) is None
True
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from solver.audit.columns import RoundKeys
from solver.audit.partial import GroupCounts, Partial, Room, byte_counts, held_micro, net_counts
from solver.audit.resettle import resettle
from solver.audit.spec import AuditSpec


class Auditing(Protocol):
    """What is read of the :class:`~solver.audit.batch.Auditor`."""

    spec: AuditSpec
    do_settle: bool
    identity: bool
    n_units: int
    unit: npt.NDArray[np.int64]


__all__ = ["BITS_FROM", "Auditing", "audit_uniform", "bit_counts", "layout"]


def layout(change: npt.NDArray[np.bool_], role: npt.NDArray[Any]) -> tuple[int, int] | None:
    """``(m, j)`` when every round of the block has ``m >= 2`` rows (``change``: row i
    starts a round) with its one banker (``role`` 1; every other row a player's, 0) at
    row ``j`` of the round; None otherwise."""
    n = len(change)
    rounds = int(np.count_nonzero(change))
    if not rounds or n % rounds:
        return None
    m = n // rounds
    if m < 2 or not change[::m].all():  # as many starts as rounds, each m rows on
        return None
    grid = role.reshape(rounds, m)
    first = np.flatnonzero(grid[0] == 1)
    if len(first) != 1:
        return None
    j = int(first[0])
    if not (grid[:, j] == 1).all() or int(np.count_nonzero(role)) != rounds:
        return None
    return m, j


BITS_FROM = 1 << 10
"""The rounds from which a block's items are counted by their bits (:func:`bit_counts`:
fewer, and the bins of its lanes cost more than counting the items)."""
_LANE = 11
_BITS = ((np.arange(1 << _LANE)[:, None] >> np.arange(_LANE)) & 1).astype(np.float64)
"""Row v: the bits of v (a lane's value), as floats for a matrix product."""


def bit_counts(words: npt.NDArray[np.uint64], size: int) -> npt.NDArray[np.int64]:
    """How many of ``words`` have each bit ``0..size-1`` set (``size`` <= 64): the
    words cut in lanes of 11 bits, each lane's values counted (one ``bincount`` of a
    key per lane and word: a round's 25 cards are counted as 5), then the counts of
    the values holding each bit added up (a matrix product, exact: integers below
    2**53).

    >>> w = np.array([0b1011, 1 << 63, 0b10], dtype=np.uint64)
    >>> bit_counts(w, 64)[[0, 1, 2, 3, 63]].tolist()
    [1, 2, 0, 1, 1]
    """
    lanes = max(1, -(-size // _LANE))  # the lanes holding bits below size
    key = np.empty((lanes, len(words)), dtype=np.int64)
    mask = np.uint64((1 << _LANE) - 1)
    for i in range(lanes):
        np.bitwise_and(words >> np.uint64(i * _LANE), mask, out=key[i], casting="unsafe")
        key[i] += i << _LANE
    hist = np.bincount(key.ravel(), minlength=lanes << _LANE).reshape(lanes, 1 << _LANE)
    per_bit = (hist.astype(np.float64) @ _BITS).reshape(-1)  # lane by lane: bit order
    return np.rint(per_bit[:size]).astype(np.int64)


def audit_uniform(
    auditor: Auditing,
    t: pa.Table,
    rnd_arr: RoundKeys,
    room: Room,
    ids: npt.NDArray[np.uint8],
    cols: npt.NDArray[np.uint8],
    shape: tuple[int, int],
) -> Partial | None:
    """The partial of a block of whole rounds of one ``shape`` (:func:`layout`), every
    row readable, every hand full of items of the set (``ids``; ``cols``: its
    transpose, contiguous); None when a round deals an item twice (the general path
    names it). Needs the game's ``evaluate`` and ``settle_values`` and one item per
    bit (:attr:`~solver.audit.batch.Auditor.bitwise`)."""
    spec, part = auditor.spec, Partial()
    m, j = shape
    n, hs = len(ids), spec.hand_size
    rounds = n // m
    # impossible deals: the OR of a round's item bits has fewer bits than its items
    one = np.uint64(1)
    row_or = np.left_shift(one, cols[0], dtype=np.uint64)
    item = np.empty_like(row_or)
    for c in cols[1:]:
        row_or |= np.left_shift(one, c, out=item, dtype=np.uint64)
    seats = row_or.reshape(rounds, m)
    r_or = seats[:, 0].copy()  # (seat by seat: a reduce along rows of m is slower)
    for s in range(1, m):
        r_or |= seats[:, s]
    if (np.bitwise_count(r_or) < m * ids.shape[1]).any():
        return None
    part.rows, part.rounds = n, rounds
    vals = spec.hooks["evaluate"](cols[:hs].T)
    cats = vals["category"]
    others = [s for s in range(m) if s != j]  # the player seats of a round
    pvals, bvals = {}, {}
    for k, v in vals.items():
        if k != "category":
            grid = v.reshape(rounds, m)
            pvals[k] = grid[:, j + 1 :] if j == 0 else grid[:, others]
            bvals[k] = grid[:, j : j + 1]  # one banker per round, broadcast
    winner, net = spec.hooks["settle_values"](pvals, bvals)
    players = m - 1
    winner = np.broadcast_to(winner, (rounds, players)).reshape(-1)
    net = np.broadcast_to(net, (rounds, players)).reshape(-1)
    brows = np.arange(j, n, m, dtype=np.int64)
    held = net
    if auditor.do_settle:

        def pick(x: npt.NDArray[Any]) -> npt.NDArray[Any]:
            """The player rows' values of a column (a copy, no index array)."""
            grid = x.reshape(rounds, m)
            return (grid[:, j + 1 :] if j == 0 else grid[:, others]).reshape(-1)

        def prow() -> npt.NDArray[np.int64]:  # (made only when needed: seldom)
            return pick(np.arange(n, dtype=np.int64))

        def brow() -> npt.NDArray[np.int64]:
            return np.repeat(brows, players)

        held = resettle(spec, part, room, t, rnd_arr, prow, brow, ids, winner, net, pick)
    # the fairness counts of the one group, everything (as Auditor._count)
    L, U = len(spec.labels), auditor.n_units
    if cats.dtype.kind == "u" and cats.dtype.itemsize > 1 and int(cats.max(initial=0)) < 256:
        cats = cats.astype(np.uint8)  # counted as bytes: byte_counts, a quarter of the time
    banker = byte_counts(cats[j::m], L)
    player = byte_counts(cats, L)
    player[: len(banker)] -= banker
    if auditor.identity and hs == ids.shape[1] and rounds >= BITS_FROM:  # an item at most
        # once in a round
        unit = bit_counts(r_or, U)
    else:
        dealt = ids[:, :hs]
        items = dealt.ravel() if auditor.identity else auditor.unit[dealt.ravel()]
        unit = byte_counts(items, U)
    first = np.arange(0, len(winner), players)  # the first player row of each round
    outcome = np.bincount(winner[first].astype(np.int64), minlength=3)
    per = m * hs
    nets = net_counts(net[first], None, 1)[0]
    part.groups[""] = GroupCounts(
        L, U, n, rounds, banker.astype(np.int64), player.astype(np.int64),
        unit.astype(np.int64), outcome.astype(np.int64), rounds * per, rounds * per * per,
        nets, len(held), rounds * players * (players - 1), held_micro(held),
    )  # fmt: skip
    return part
