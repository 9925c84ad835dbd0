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
import pyarrow.compute as pc

from solver.audit.columns import RoundKeys, arrow_of, column, raw_values
from solver.audit.partial import (
    HELD_CLIP,
    GroupCounts,
    Partial,
    Room,
    byte_counts,
    held_micro,
    net_counts,
)
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
    players = m - 1
    cells = spec.hooks.get("settle_cells")
    got = None
    if cells is not None:  # every row against its round's banker (the banker's own
        # too, dropped when counted): 1-d arrays, not a grid's columns (a quarter of the time)
        mine = {k: v for k, v in vals.items() if k != "category"}
        got = cells(mine, {k: np.repeat(v[j::m], m) for k, v in mine.items()})
    if got is None:
        others = [s for s in range(m) if s != j]  # the player seats of a round
        pvals, bvals = {}, {}
        for k, v in vals.items():
            if k != "category":
                grid = v.reshape(rounds, m)
                pvals[k] = grid[:, j + 1 :] if j == 0 else grid[:, others]
                bvals[k] = grid[:, j : j + 1]  # one banker per round, broadcast
        winner, net = spec.hooks["settle_values"](pvals, bvals)
        winner = np.broadcast_to(winner, (rounds, players))
        net = np.broadcast_to(net, (rounds, players))
        every_w = every_n = None
    else:
        cell, who, amount = got
        every_w, every_n = _take(who, cell), _take(amount, cell)
        winner, net = _players(every_w, m, j), _players(every_n, m, j)
    brows = np.arange(j, n, m, dtype=np.int64)
    held: npt.NDArray[np.float64] | None = None  # (None: the re-settled nets)
    if auditor.do_settle and not (
        every_w is not None
        and every_n is not None
        and room["agree"] <= 0
        and _claims_agree(t, part, m, j, every_w, every_n)
    ):  # (claims that all agree, counted as they are: the held nets are the cells')

        def pick(x: npt.NDArray[Any]) -> npt.NDArray[Any]:
            """The player rows' values of a column (a copy, no index array)."""
            return _players(x, m, j).reshape(-1)

        def prow() -> npt.NDArray[np.int64]:  # (made only when needed: seldom)
            return pick(np.arange(n, dtype=np.int64))

        def brow() -> npt.NDArray[np.int64]:
            return np.repeat(brows, players)

        held = resettle(spec, part, room, t, rnd_arr, prow, brow, ids, winner.reshape(-1),
                        net.reshape(-1), pick)  # fmt: skip
        got = None  # (the held nets are the logged ones)
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
    per = m * hs
    counted = None if got is None else _cell_counts(got[0], m, j, got[1], got[2])
    if counted is None:
        outcome = np.bincount(winner[:, 0].astype(np.int64), minlength=3)
        nets = net_counts(np.ascontiguousarray(net[:, 0]), None, 1)[0]
        held_total = held_micro(net.reshape(-1) if held is None else held)
    else:
        outcome, nets, held_total = counted
    part.groups[""] = GroupCounts(
        L, U, n, rounds, banker.astype(np.int64), player.astype(np.int64),
        unit.astype(np.int64), outcome.astype(np.int64), rounds * per, rounds * per * per,
        nets, rounds * players, rounds * players * (players - 1), held_total,
    )  # fmt: skip
    return part


def _take(table: npt.NDArray[Any], at: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """``table[at]`` by Arrow's take: ``at`` as it is (numpy widens it to intp first;
    a float table gathered by bytes costs ~5x Arrow's).

    >>> _take(np.array([0.5, -1.0]), np.array([1, 0], np.uint8)).tolist()
    [-1.0, 0.5]
    """
    return raw_values(pc.take(arrow_of(table), arrow_of(at)))


def _players(x: npt.NDArray[Any], m: int, j: int) -> npt.NDArray[Any]:
    """The player rows' values of a column of the block, rounds by seats (a view when
    the banker's row is a round's first)."""
    grid = x.reshape(-1, m)
    return grid[:, 1:] if j == 0 else grid[:, [s for s in range(m) if s != j]]


def _claims_agree(
    t: pa.Table,
    part: Partial,
    m: int,
    j: int,
    winner: npt.NDArray[np.int8],
    net: npt.NDArray[np.float64],
) -> bool:
    """Whether every player row states its ``result`` (a label the read coded: column
    ``result#``) and its ``net`` (float64), each exactly the re-settled one (``winner``,
    ``net``: of every row of the block, the banker's rows ignored): then counted as
    :func:`~solver.audit.resettle.resettle` counts them (every row stated and agreeing;
    no array of flags, no copy of a column) and True; else nothing is counted (False:
    :func:`~solver.audit.resettle.resettle` looks at each row)."""
    names = t.column_names
    rows = len(winner) // m * (m - 1)
    fields = []
    if "result" in names:
        if "result#" not in names:
            return False
        codes = column(t, "result#")
        if codes.type != pa.int8() or codes.null_count:
            return False
        if _players_equal(raw_values(codes), winner, m, j) < rows:
            return False
        fields.append("winner")
    if "net" in names:
        arr = column(t, "net")
        if arr.type != pa.float64():
            return False
        if arr.null_count and arr.null_count != _null_bankers(arr, m, j):
            return False  # (a null player row)
        if _players_equal(raw_values(arr), net, m, j) < rows:  # (a NaN is not equal)
            return False
        fields.append("net")
    for f in fields:
        part.fields.setdefault(f, [0, 0, 0])[0] += rows
    if fields:
        part.settled += rows
    return True


def _players_equal(a: npt.NDArray[Any], b: npt.NDArray[Any], m: int, j: int) -> int:
    """How many player rows (each round's row ``j`` the banker's) have ``a == b``.

    >>> _players_equal(np.array([5, 1, 2, 7, 1, 0]), np.array([0, 1, 2, 0, 1, 2]), 3, 0)
    3
    """
    eq = a == b
    return int(np.count_nonzero(eq)) - int(np.count_nonzero(eq[j::m]))


def _null_bankers(arr: pa.Array, m: int, j: int) -> int:
    """How many of the banker rows (row ``j`` of each round of ``m``) of ``arr`` are null,
    from its validity bits at those rows alone.

    >>> _null_bankers(pa.array([None, 1.0, 2.0, 3.0, None, None]), 3, 0)
    1
    """
    bits = np.frombuffer(arr.buffers()[0], dtype=np.uint8)
    at = np.arange(arr.offset + j, arr.offset + len(arr), m, dtype=np.int64)
    valid = (bits[at >> 3] >> (at & 7).astype(np.uint8)) & 1
    return len(at) - int(np.count_nonzero(valid))


def _cell_counts(
    cell: npt.NDArray[np.uint8],
    m: int,
    j: int,
    who: npt.NDArray[np.int8],
    amount: npt.NDArray[np.float64],
) -> tuple[npt.NDArray[np.int64], dict[float, int], int] | None:
    """From the showdowns' cells (of every row, rounds of ``m`` rows, the banker's row
    ``j`` of each dropped; ``who`` wins and the player's ``amount`` in each cell): the
    first players' outcomes and nets by amount, and the total of every player's net in
    micro-units, as :func:`~solver.audit.partial.net_counts` and
    :func:`~solver.audit.partial.held_micro` count the nets themselves (None where an
    amount is not finite or a zero is negative: those count them).

    >>> out, nets, held = _cell_counts(np.array([2, 0, 2, 2, 1, 0], dtype=np.uint8), 3, 0,
    ...     np.array([0, 1, 2], dtype=np.int8), np.array([0.95, -1.0, 0.0]))
    >>> out.tolist(), nets, held
    ([1, 1, 0], {-1.0: 1, 0.95: 1}, 900000)
    """
    if not np.isfinite(amount).all() or (np.signbit(amount) & (amount == 0)).any():
        return None
    size = len(amount)
    first = byte_counts(cell[1 if j == 0 else 0 :: m], size)[:size].astype(np.int64)
    if size < 255:  # the banker rows' cells set apart (in a copy: one count, not two)
        marked = cell.copy()
        marked[j::m] = 255
        every = byte_counts(marked, 256)[:size]
    else:
        every = byte_counts(cell, size)[:size] - byte_counts(cell[j::m], size)[:size]
    outcome = np.zeros(3, dtype=np.int64)
    np.add.at(outcome, who.astype(np.intp), first)
    nets: dict[float, int] = {}
    for c in np.argsort(amount, kind="stable").tolist():
        if first[c]:
            a = float(amount[c])
            nets[a] = nets.get(a, 0) + int(first[c])
    micro = np.rint(np.clip(amount, -HELD_CLIP, HELD_CLIP) * 1e6)
    held = sum(int(mc) * int(e) for mc, e in zip(micro.tolist(), every.tolist(), strict=True))
    return outcome, nets, held
