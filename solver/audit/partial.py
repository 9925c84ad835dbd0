"""What an audit counts: :class:`Partial`, exact integer counts and the examples
listed, per block of rows, Spark partition or whole run, that add up.

:meth:`Partial.extend` adds the partial of the rows that come next (the examples kept
are the first in the order of the rows); :meth:`Partial.merge` adds one from anywhere
(the examples kept are the first by their key), so every engine and every number of
threads gives the same result.

>>> a, b = Partial(rows=2, malformed_rows=[("2", "x")]), Partial(malformed_rows=[("1", "y")])
>>> a.extend(b)
>>> a.rows, a.malformed_rows
(2, [('2', 'x'), ('1', 'y')])
>>> c = Partial()
>>> c.merge(a)
>>> c.malformed_rows
[('1', 'y'), ('2', 'x')]
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from solver.core.errors import BullError

__all__ = [
    "MAX_AGREE_ROWS",
    "MAX_EXAMPLES",
    "MAX_GROUPS",
    "MAX_SETTLE_ROWS",
    "GroupCounts",
    "Partial",
    "Room",
    "TooManyGroups",
    "byte_counts",
    "held_counts",
    "held_micro",
    "net_counts",
    "round_order",
]

Room = dict[str, int]
"""Examples a block may still list: ``malformed``, ``impossible``, ``disagree``, and the
agreeing rows it may still keep (``agree``)."""


MAX_EXAMPLES = 100
"""Malformed rows and impossible deals listed (all are counted)."""
MAX_SETTLE_ROWS = 20_000
"""Disagreeing rows kept for the verify engine's diagnosis (all are counted)."""
MAX_AGREE_ROWS = 200_000
"""Agreeing rows kept for the diagnosis: a cause is scored on them too (the rows it
contradicts), as ``bull verify`` scores it; past this many, on the first ones (said)."""

MAX_GROUPS = 20_000
"""The most ``--by`` groups an audit counts (more: a one-line error; the listing of
groups is bounded further by the report)."""
HELD_CLIP = 1e6
"""A logged net is counted within +-this many bets (its micro-units stay exact in int64)."""


class TooManyGroups(BullError):
    """The ``--by`` columns make more than :data:`MAX_GROUPS` groups."""


_CHUNKS = re.compile(r"(\d+)")


def round_order(key: str) -> tuple[tuple[int, int, str], ...]:
    """The sort key of a round id: its numbers compared as numbers.

    >>> sorted(["10", "9", "b.csv:2", "a.csv:10", "a.csv:9"], key=round_order)
    ['9', '10', 'a.csv:9', 'a.csv:10', 'b.csv:2']
    """
    return tuple((0, int(c), "") if c.isdigit() else (1, 0, c) for c in _CHUNKS.split(key) if c)


def _rows_key(r: dict[str, Any]) -> tuple[Any, ...]:
    return (round_order(str(r["round"])), r["seat"])


def _first_rows(chunks: list[pa.Table], n: int) -> list[pa.Table]:
    """The first ``n`` rows of ``chunks`` (in order)."""
    out, left = [], n
    for c in chunks:
        if left <= 0:
            break
        out.append(c if c.num_rows <= left else c.slice(0, left))
        left -= out[-1].num_rows
    return out


def net_counts(
    net: npt.NDArray[np.float64] | None, code: npt.NDArray[np.int64] | None, groups: int
) -> list[dict[float, int]]:
    """Per group (``code`` per value; None: one group), how many of the ``net`` values
    come to each amount (exact counts; the amounts are the settlement's floats).

    >>> net_counts(np.array([1.0, -1.0, 1.0]), np.array([0, 1, 1]), 2)
    [{1.0: 1}, {-1.0: 1, 1.0: 1}]
    """
    out: list[dict[float, int]] = [{} for _ in range(groups)]
    if net is None or not len(net):
        return out
    x = np.asarray(net)
    if code is None and groups == 1:
        few = _amount_counts(x)
        if few is not None:
            return [few]
    amounts = np.unique(x[:: max(1, len(x) // 256)])  # the amounts, from a few values
    inv = np.minimum(np.searchsorted(amounts, x), len(amounts) - 1)
    if not (amounts[inv] == x).all():  # an amount the few missed: all of them
        amounts, inv = np.unique(x, return_inverse=True)
    k = len(amounts)
    key = inv.reshape(-1) if code is None else code * k + inv.reshape(-1)
    nc = np.bincount(key, minlength=groups * k).reshape(groups, k)
    for g in np.flatnonzero(nc.any(axis=1)).tolist():
        out[g] = {float(amounts[j]): int(nc[g, j]) for j in np.flatnonzero(nc[g]).tolist()}
    return out


def _amount_counts(x: npt.NDArray[np.float64]) -> dict[float, int] | None:
    """``x``'s amounts and their counts, by amount, by numpy's hashing ``unique`` (a tenth
    of the time of the search): None where it might not give the same as the search
    (a NaN, a negative zero beside zero: which of equal floats names the amount)
    or numpy has none (before 2.3)."""
    zero = x == 0
    if zero.any() and np.signbit(x[zero]).any():
        return None
    try:
        amounts, counts = np.unique(x, return_counts=True, sorted=False)
    except TypeError:  # numpy < 2.3: no hashing unique
        return None
    if not np.isfinite(amounts).all():
        return None
    order = np.argsort(amounts).tolist()
    return {float(amounts[j]): int(counts[j]) for j in order}


def held_counts(
    held: npt.NDArray[np.float64] | None,
    rnd: npt.NDArray[np.int64],
    code: npt.NDArray[np.int64] | None,
    groups: int,
) -> list[tuple[int, int, int]]:
    """Per group, for the hold check: the player rows, the ordered pairs of player rows
    in one round (``sum n (n - 1)``: they share the banker) and the total of their
    ``held`` nets in micro-units (exact integers; each net clipped to
    +-:data:`HELD_CLIP`). ``rnd``: each row's round, ``code``: its group (None: one).

    >>> held_counts(np.array([1.0, -0.5, 2.0]), np.array([0, 0, 1]), None, 1)
    [(3, 2, 2500000)]
    >>> held_counts(np.array([1.0, -0.5, 2.0]), np.array([0, 0, 1]), np.array([0, 1, 1]), 2)
    [(1, 0, 1000000), (2, 0, 1500000)]
    """
    if held is None or not len(held):
        return [(0, 0, 0)] * groups
    if code is None:  # rounds are numbered 0.. within a block: count rows per round
        c = np.bincount(rnd)
        return [(len(held), int((c * (c - 1)).sum()), held_micro(held))]
    micro = _micro(held)
    rows = np.bincount(code, minlength=groups)
    key, c = np.unique(rnd * groups + code, return_counts=True)
    pairs = np.bincount(key % groups, weights=(c * (c - 1)).astype(np.float64), minlength=groups)
    total = np.zeros(groups, dtype=np.int64)
    np.add.at(total, code, micro)
    return [(int(r), int(p), int(t)) for r, p, t in zip(rows, pairs, total, strict=True)]


def _micro(held: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
    return np.rint(np.clip(held, -HELD_CLIP, HELD_CLIP) * 1e6).astype(np.int64)


def held_micro(held: npt.NDArray[np.float64]) -> int:
    """The total of ``held`` nets in micro-units, each clipped to +-:data:`HELD_CLIP`
    (as :func:`held_counts` adds them).

    >>> held_micro(np.array([1.0, -0.5, 2e6]))
    1000000500000
    """
    y = np.clip(held, -HELD_CLIP, HELD_CLIP)
    y *= 1e6
    np.rint(y, out=y)
    if len(y) * float(np.abs(y).max(initial=0)) < 2**53:  # every partial sum exact
        return int(y.sum())
    return int(y.astype(np.int64).sum())


def byte_counts(
    items: npt.NDArray[Any], minlength: int, pairs_from: int = 1 << 14
) -> npt.NDArray[np.int64]:
    """``np.bincount(items, minlength=minlength)``; for bytes (uint8) a quarter of its
    time: the items are counted in pairs, as uint16 (65,536 bins, then folded), so
    half as many are widened to int64 and counted (from ``pairs_from`` items: for
    fewer, the bins cost more than they save).

    >>> x = np.array([3, 1, 3, 0, 255], dtype=np.uint8)
    >>> bool((byte_counts(x, 4, 2) == np.bincount(x, minlength=4)).all())
    True
    >>> len(byte_counts(x[:4], 6, 2))
    6
    """
    if items.dtype != np.uint8 or len(items) < max(2, pairs_from):
        return np.bincount(items, minlength=minlength)
    flat = np.ascontiguousarray(items).ravel()
    even = len(flat) - len(flat) % 2
    pairs = np.bincount(flat[:even].view(np.uint16), minlength=1 << 16).reshape(256, 256)
    counts = pairs.sum(axis=0) + pairs.sum(axis=1)  # the low bytes, the high bytes
    if even < len(flat):
        counts[flat[-1]] += 1
    used = np.flatnonzero(counts)
    size = max(minlength, int(used[-1]) + 1 if len(used) else 0)
    return (
        counts[:size]
        if size <= len(counts)
        else np.concatenate([counts, np.zeros(size - len(counts), dtype=counts.dtype)])
    )


@dataclass
class GroupCounts:
    """Exact counts of one group (``""``: everything)."""

    labels: int
    units: int
    rows: int = 0
    rounds: int = 0
    banker: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64))
    player: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64))
    unit: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64))
    outcome: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(3, np.int64))
    m_sum: int = 0
    m_sq: int = 0
    net: dict[float, int] = field(default_factory=dict)
    """The first player's net per round (the re-settled one): rounds by amount."""
    held_rows: int = 0
    """Player rows whose nets the hold check adds up (see :func:`held_counts`)."""
    held_pairs: int = 0
    held_micro: int = 0

    def __post_init__(self) -> None:
        if not len(self.banker):
            self.banker = np.zeros(self.labels, np.int64)
            self.player = np.zeros(self.labels, np.int64)
            self.unit = np.zeros(self.units, np.int64)

    def add(self, other: GroupCounts) -> None:
        self.rows += other.rows
        self.rounds += other.rounds
        self.banker += other.banker
        self.player += other.player
        self.unit += other.unit
        self.outcome += other.outcome
        self.m_sum += other.m_sum
        self.m_sq += other.m_sq
        for v, c in other.net.items():
            self.net[v] = self.net.get(v, 0) + c
        self.held_rows += other.held_rows
        self.held_pairs += other.held_pairs
        self.held_micro += other.held_micro


@dataclass
class Partial:
    """What a run of batches found; partials add up (see the module docstring)."""

    rows: int = 0
    rounds: int = 0
    malformed: int = 0
    malformed_rows: list[tuple[str, str]] = field(default_factory=list)
    impossible: int = 0
    impossible_rows: list[tuple[str, str]] = field(default_factory=list)
    groups: dict[str, GroupCounts] = field(default_factory=dict)
    settled: int = 0
    fields: dict[str, list[int]] = field(default_factory=dict)
    disagree: int = 0
    disagree_rows: list[dict[str, Any]] = field(default_factory=list)
    most_copies: int = 0
    """The most copies of one card (tile type) dealt in one impossible round."""
    agree_rows: list[pa.Table] = field(default_factory=list)
    """Chunks of agreeing player rows (``round``, ``seat``, ``player``, ``banker``,
    ``winner``, ``net``), up to :data:`MAX_AGREE_ROWS`: the diagnosis scores each
    cause on them too."""

    @property
    def agree_kept(self) -> int:
        """The agreeing rows kept (:attr:`agree_rows`)."""
        return sum(c.num_rows for c in self.agree_rows)

    def merge(self, other: Partial) -> None:
        """Add ``other`` (from anywhere); the examples kept are the first by their key."""
        self._add(other)

        def by_round(x: tuple[str, str]) -> tuple[Any, ...]:
            return (round_order(x[0]), x[1])

        self.malformed_rows = sorted(self.malformed_rows, key=by_round)[:MAX_EXAMPLES]
        self.impossible_rows = sorted(self.impossible_rows, key=by_round)[:MAX_EXAMPLES]
        rows = self.disagree_rows
        self.disagree_rows = sorted(rows, key=_rows_key)[:MAX_SETTLE_ROWS]
        if self.agree_kept > MAX_AGREE_ROWS:  # the first by key, whatever the engine
            t = pa.concat_tables(self.agree_rows)
            keys = [
                (round_order(str(r)), s)
                for r, s in zip(t.column("round").to_pylist(), t.column("seat").to_pylist(),
                                strict=True)
            ]  # fmt: skip
            order = sorted(range(t.num_rows), key=keys.__getitem__)[:MAX_AGREE_ROWS]
            self.agree_rows = [t.take(pa.array(order, pa.int64()))]

    def extend(self, other: Partial) -> None:
        """Add ``other``, the rows right after this one's: the examples kept are the
        first in the order of the rows, as if one partial had seen them all."""
        self._add(other)
        del self.malformed_rows[MAX_EXAMPLES:]
        del self.impossible_rows[MAX_EXAMPLES:]
        del self.disagree_rows[MAX_SETTLE_ROWS:]
        self.agree_rows = _first_rows(self.agree_rows, MAX_AGREE_ROWS)

    def _add(self, other: Partial) -> None:
        self.rows += other.rows
        self.rounds += other.rounds
        self.malformed += other.malformed
        self.malformed_rows = self.malformed_rows + other.malformed_rows
        self.impossible += other.impossible
        self.impossible_rows = self.impossible_rows + other.impossible_rows
        for k, g in other.groups.items():
            if k in self.groups:
                self.groups[k].add(g)
            else:
                self.groups[k] = g
        if len(self.groups) > MAX_GROUPS + 1:  # + "", everything
            raise TooManyGroups(f"more than {MAX_GROUPS:,} groups")
        self.most_copies = max(self.most_copies, other.most_copies)
        self.settled += other.settled
        for f, v in other.fields.items():
            mine = self.fields.setdefault(f, [0, 0, 0])
            for i in range(3):
                mine[i] += v[i]
        self.disagree += other.disagree
        self.disagree_rows = self.disagree_rows + other.disagree_rows
        self.agree_rows = self.agree_rows + other.agree_rows
