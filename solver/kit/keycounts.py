"""Agreeing rows counted by key, for ``bull verify``'s diagnosis (:mod:`solver.kit.scoring`).

A checker that can say what an agreeing row's diagnosis depends on gives each row a key
(:class:`~solver.kit.check.Keys`: for Niu Niu the hand's rank among every hand, and the
place of the first card written). Such rows are not scored one by one: they are counted
per key, per kind of row and per set of stated fields, in a dense table whose size is
the number of keys (bounded whatever the file's size). Once the first pass is over, the
causes whose counts the report needs are scored once per distinct key present
(:meth:`KeyCounts.groups` makes the group of one agreeing row per key) and weighted by
its count — exactly the sum a pass over the rows would make.

>>> from solver.kit.check import Keys
>>> keys = Keys(np.array([3, 1, 3, -1]), 8, lambda k, f: None)
>>> kc = KeyCounts()
>>> kc.add("hand", keys, ("points",), np.array([3, 1, 3]))
>>> [(f, k.tolist(), w.tolist()) for f, k, w in kc.present("hand", fine=True)]
[(('points',), [1, 3], [1, 2])]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.kit.check import Checked, Keys

__all__ = ["GROUP", "KeyCounts"]

GROUP = 1 << 17
"""Keys scored at a time (one group of agreeing rows per so many keys)."""
_PENDING = 1 << 21
"""Keys buffered before they are added to the table (sorted: one pass over it)."""
_INT32 = (1 << 31) - 1


@dataclass
class _Table:
    """The counts of one kind of row and one set of stated fields."""

    space: int
    order: int
    rows: Callable[[npt.NDArray[np.int64], Sequence[str]], Checked]
    counts: npt.NDArray[Any] | None = None
    pending: list[npt.NDArray[np.int64]] = field(default_factory=list)
    waiting: int = 0
    total: int = 0
    found: dict[bool, tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]] = field(
        default_factory=dict
    )
    """The keys present and their counts, fine and by shape, once read."""

    def add(self, keys: npt.NDArray[np.int64]) -> None:
        self.found.clear()
        self.pending.append(keys)
        self.waiting += len(keys)
        if self.waiting >= _PENDING:
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        k = np.sort(np.concatenate(self.pending))
        self.pending, self.waiting = [], 0
        if not len(k):
            return
        if self.counts is None:
            self.counts = np.zeros(self.space, dtype=np.int32)
        self.total += len(k)
        if self.total > _INT32 and self.counts.dtype != np.int64:
            self.counts = self.counts.astype(np.int64)
        start = np.flatnonzero(np.concatenate(([True], k[1:] != k[:-1])))
        size = np.diff(np.append(start, len(k)))
        self.counts[k[start]] += size.astype(self.counts.dtype)


class KeyCounts:
    """Agreeing keyed rows counted per ``(kind of row, stated fields)`` by key."""

    def __init__(self) -> None:
        self.tables: dict[tuple[str, tuple[str, ...]], _Table] = {}

    def add(
        self, mode: str, keys: Keys, fields: tuple[str, ...], at: npt.NDArray[np.int64]
    ) -> None:
        """Count the keys ``at`` (agreeing rows of ``mode`` stating exactly ``fields``)."""
        t = self.tables.get((mode, fields))
        if t is None:
            t = self.tables[(mode, fields)] = _Table(keys.space, keys.order, keys.rows)
        t.add(at)

    def modes(self) -> set[str]:
        return {m for m, _ in self.tables}

    def present(
        self, mode: str, fine: bool
    ) -> Iterator[tuple[tuple[str, ...], npt.NDArray[np.int64], npt.NDArray[np.int64]]]:
        """Per set of stated fields: the keys present and their counts — with ``fine``
        every key, else one key per shape (its written order the first: ``o = 0``), the
        counts of its orders summed."""
        for (m, fields), t in self.tables.items():
            if m != mode:
                continue
            t.flush()
            if t.counts is None:
                continue
            fine = fine or t.order == 1
            if fine not in t.found:
                counts = t.counts
                if not fine:
                    shape = counts.reshape(-1, t.order).sum(axis=1, dtype=np.int64)
                    at = np.flatnonzero(shape)
                    t.found[fine] = (at * t.order, shape[at])
                else:
                    at = np.flatnonzero(counts)
                    t.found[fine] = (at, counts[at].astype(np.int64))
            yield (fields, *t.found[fine])

    def groups(
        self, mode: str, fine: bool, stating: bool = False
    ) -> Iterator[tuple[Checked, npt.NDArray[np.int64]]]:
        """Groups of one agreeing row per key present (:meth:`present`), at most
        :data:`GROUP` at a time, and each row's count; with ``stating`` only those of
        rows that state some field (no cause contradicts a row that states none)."""
        for fields, at, weight in self.present(mode, fine):
            if stating and not fields:
                continue
            rows = self.tables[(mode, fields)].rows
            for start in range(0, len(at), GROUP):
                yield rows(at[start : start + GROUP], fields), weight[start : start + GROUP]

    def order(self, mode: str) -> int:
        """How many written orders a shape's keys tell apart (1: none)."""
        return min((t.order for (m, _), t in self.tables.items() if m == mode), default=1)
