"""Agreeing rows counted by key, for ``bull verify``'s diagnosis (:mod:`solver.kit.scoring`).

A checker that can say what an agreeing row's diagnosis depends on gives each row a key
(:class:`~solver.kit.check.Keys`: for Niu Niu the hand's shape — its ranks, and whether
it is a flush — and the place of the first card's rank). Such rows are not scored one
by one: they are counted per key, per kind of row and per set of stated fields, as the
sorted distinct keys and their counts (at most one entry per key: bounded whatever the
file's size). Once the first pass is over, the causes whose counts the report needs are
scored once per distinct key present (:meth:`KeyCounts.groups` makes the group of one
agreeing row per key) and weighted by its count — exactly the sum a pass over the rows
would make; a checker whose keys answer for a cause themselves
(:attr:`~solver.kit.check.Keys.agree`) is asked first, and the group is made only for
the causes it leaves (:func:`by_keys`).

>>> from solver.kit.check import Keys
>>> keys = Keys(np.array([3, 1, 3, -1]), 8, lambda k, f: None)
>>> kc = KeyCounts()
>>> kc.add("hand", keys, ("points",), np.array([3, 1, 3]))
>>> [(f, k.tolist(), w.tolist()) for f, k, w in kc.present("hand", fine=True)]
[(('points',), [1, 3], [1, 2])]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.kit.check import Checked, Keys
from solver.kit.learn import Shapes, atoms

__all__ = [
    "DEFER",
    "FIRST_PART",
    "GROUP",
    "MAX_WEIGHTS",
    "Deferred",
    "KeyCounts",
    "Part",
    "Waiting",
    "by_fields",
    "by_keys",
    "row_atoms",
    "weighted_atoms",
]

GROUP = 1 << 17
"""Keys scored at a time (one group of agreeing rows per so many keys)."""
FIRST_PART = 1 << 13
"""Keys of the first group of a sweep (the next ones four times more, up to :data:`GROUP`)."""
_PENDING = 1 << 24
"""Keys buffered before they are counted, at least (or as many as the key space holds:
four bytes each, 64 MB; one sort for them all, merged with the counts so far)."""
_INT32 = (1 << 31) - 1
_DENSE = 1 << 19
"""Key spaces up to this many keys are counted as they come, in a count per key of the
space (eight bytes each: 4 MB at most), instead of buffered and sorted (Pok Deng's 53³
hands: 10 M keys in 0.02 s against 0.13 s, and no buffer of 40 MB; Tau Ngau's 407 K
keys, 10 M of them in 0.03 s against 0.4 s; in a space of 13 M keys the counts' random
access costs as much as the sort)."""


@dataclass
class _Table:
    """The counts of one kind of row and one set of stated fields: the distinct keys
    counted so far, sorted, and their counts (at most one entry per key of the space)."""

    space: int
    order: int
    rows: Callable[[npt.NDArray[np.int64], Sequence[str]], Checked]
    agree: Callable[..., Any] | None = None
    """The checker's :attr:`~solver.kit.check.Keys.agree`, if any."""
    atoms: Callable[..., Any] | None = None
    """The checker's :attr:`~solver.kit.check.Keys.atoms`, if any."""
    keys: npt.NDArray[np.integer] | None = None
    counts: npt.NDArray[np.int64] | None = None
    pending: list[npt.NDArray[np.integer]] = field(default_factory=list)
    waiting: int = 0
    found: dict[bool, tuple[npt.NDArray[np.integer], npt.NDArray[np.int64]]] = field(
        default_factory=dict
    )
    """The keys present and their counts, fine and by shape, once read."""
    dense: npt.NDArray[np.int64] | None = None
    """The count of every key of a space of at most :data:`_DENSE` keys."""

    def add(self, keys: npt.NDArray[np.int64]) -> None:
        self.found.clear()
        if self.space <= _DENSE:  # counted at once: a count per key of the space
            if self.dense is None:
                self.dense = np.zeros(self.space, dtype=np.int64)
            if len(keys):
                self.dense += np.bincount(keys, minlength=self.space)
            return
        self.pending.append(keys.astype(np.int32) if self.space <= _INT32 else keys)
        self.waiting += len(keys)
        if self.waiting >= max(_PENDING, self.space):
            self.flush()

    def flush(self) -> None:
        """Count the keys buffered: sorted, runs of equal keys counted, merged with the
        counts so far (a sort of the two lists of distinct keys); in a space of at most
        :data:`_DENSE` keys, read from the count per key. Either way the distinct keys,
        sorted, and their counts."""
        if self.dense is not None:
            present = np.flatnonzero(self.dense)
            if len(present):
                self.keys, self.counts = present, np.take(self.dense, present)
            return
        if not self.pending:
            return
        k = np.concatenate(self.pending)
        self.pending, self.waiting = [], 0
        if not len(k):
            return
        k.sort()  # in place: one large array fewer (each is page-faulted in fresh)
        keys, counts = _runs(k, None)
        if self.keys is not None and self.counts is not None:
            both = np.concatenate([self.keys, keys])
            order = np.argsort(both, kind="stable")
            keys, counts = _runs(both[order], np.concatenate([self.counts, counts])[order])
        self.keys, self.counts = keys, counts


def _runs(
    k: npt.NDArray[np.integer], weight: npt.NDArray[np.int64] | None
) -> tuple[npt.NDArray[np.integer], npt.NDArray[np.int64]]:
    """Sorted keys as their distinct values and the count (or summed ``weight``) of each.

    >>> [a.tolist() for a in _runs(np.array([1, 1, 4, 7, 7, 7]), None)]
    [[1, 4, 7], [2, 1, 3]]
    """
    new = np.empty(len(k), dtype=bool)  # where a run starts (few large copies: each is
    new[:1] = True  # page-faulted in fresh)
    np.not_equal(k[1:], k[:-1], out=new[1:])
    start = np.flatnonzero(new)
    # the keys as they come (int32 in a space that fits: a copy to int64 would be one
    # more large array page-faulted in, a third of this function's time on 10 M keys)
    keys = np.take(k, start)
    if weight is not None:
        return keys, np.add.reduceat(weight, start).astype(np.int64, copy=False)
    # each run's length, written over its start (no new array: a block at a time, each
    # block's next start not yet overwritten)
    for lo in range(0, len(start) - 1, _BLOCK):
        hi = min(lo + _BLOCK, len(start) - 1)
        np.subtract(start[lo + 1 : hi + 1], start[lo:hi], out=start[lo:hi])
    start[-1:] = len(k) - start[-1:]
    return keys, start


_BLOCK = 1 << 20
"""Run lengths computed at a time by :func:`_runs`."""


@dataclass(frozen=True)
class Part:
    """Up to :data:`GROUP` keys present of one set of stated fields, with their counts:
    the group of one agreeing row per key is made only when asked (:meth:`group`); the
    checker's ``agree`` (:attr:`~solver.kit.check.Keys.agree`) may answer for a variant
    without it."""

    fields: tuple[str, ...]
    keys: npt.NDArray[np.integer]
    weight: npt.NDArray[np.int64]
    rows: Callable[..., Checked]
    agree: Callable[..., Any] | None
    atoms: Callable[..., Any] | None = None

    def group(self) -> Checked:
        return self.rows(self.keys, self.fields)

    def atom_counts(self) -> Shapes:
        """The group's rows counted by atom set, each as often as its key
        (:func:`weighted_atoms`), from the keys alone when the checker can say it."""
        if self.atoms is not None:
            got: Shapes = self.atoms(self.keys, self.fields, self.weight)
            return got
        return weighted_atoms(self.group(), self.weight)


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
            t = self.tables[(mode, fields)] = _Table(
                keys.space, keys.order, keys.rows, keys.agree, keys.atoms
            )
        t.add(at)

    def modes(self) -> set[str]:
        return {m for m, _ in self.tables}

    def present(
        self, mode: str, fine: bool
    ) -> Iterator[tuple[tuple[str, ...], npt.NDArray[np.integer], npt.NDArray[np.int64]]]:
        """Per set of stated fields: the keys present and their counts — with ``fine``
        every key, else one key per shape (its written order the first: ``o = 0``), the
        counts of its orders summed."""
        for (m, fields), t in self.tables.items():
            if m != mode:
                continue
            t.flush()
            if t.keys is None or t.counts is None:
                continue
            fine = fine or t.order == 1
            if fine not in t.found:
                if fine:
                    t.found[fine] = (t.keys, t.counts)
                else:  # the keys are sorted: so are their shapes
                    shape, counts = _runs(t.keys // t.order, t.counts)
                    t.found[fine] = (shape * t.order, counts)
            yield (fields, *t.found[fine])

    def groups(
        self, mode: str, fine: bool, stating: bool = False
    ) -> Iterator[tuple[Checked, npt.NDArray[np.int64]]]:
        """Groups of one agreeing row per key present (:meth:`present`), at most
        :data:`GROUP` at a time, and each row's count; with ``stating`` only those of
        rows that state some field (no cause contradicts a row that states none)."""
        for part in self.parts(mode, fine, stating):
            yield part.group(), part.weight

    def parts(self, mode: str, fine: bool, stating: bool = False) -> Iterator[Part]:
        """:meth:`groups` as their keys, the group made on demand (:meth:`Part.group`);
        the first few smaller (:data:`FIRST_PART`, four times more each): a pair of
        causes scored on them often shows it cannot be listed before the next."""
        for fields, at, weight in self.present(mode, fine):
            if stating and not fields:
                continue
            table = self.tables[(mode, fields)]
            start, step = 0, min(GROUP, FIRST_PART)
            while start < len(at):
                end = start + step
                yield Part(
                    fields, at[start:end], weight[start:end], table.rows, table.agree, table.atoms
                )
                start, step = end, min(GROUP, step * 4)

    def order(self, mode: str) -> int:
        """How many written orders a shape's keys tell apart (1: none)."""
        return min((t.order for (m, _), t in self.tables.items() if m == mode), default=1)


@dataclass
class _Waiting:
    """Disagreeing rows of one kind and one set of stated fields, waiting to be scored:
    their keys, their claims, and where each one's answer goes."""

    rows: Callable[..., Checked]
    keys: list[npt.NDArray[np.int64]] = field(default_factory=list)
    claims: list[dict[str, npt.NDArray[Any]]] = field(default_factory=list)
    slots: list[tuple[Any, npt.NDArray[np.int64]]] = field(default_factory=list)


class Deferred:
    """Disagreeing keyed rows set aside to be scored together (a few thousand at a time
    instead of a few per group): each row is its key and its claims (the
    :class:`~solver.kit.check.Keys` promise), and ``slot`` says where its answer goes.

    >>> from solver.kit.check import Keys
    >>> d = Deferred()
    >>> keys = Keys(np.array([3, 1]), 8, lambda k, f, c: (k.tolist(), c["points"].tolist()))
    >>> d.add("hand", keys, ("points",), np.array([0, 1]), {"points": np.array([5, 6])}, "a")
    >>> d.waiting
    2
    >>> [(m, g, [(s, p.tolist()) for s, p in slots]) for m, g, slots in d.take()]
    [('hand', ([3, 1], [5, 6]), [('a', [0, 1])])]
    """

    def __init__(self) -> None:
        self.queues: dict[tuple[str, tuple[str, ...]], _Waiting] = {}
        self.waiting = 0

    def add(
        self,
        mode: str,
        keys: Keys,
        fields: tuple[str, ...],
        at: npt.NDArray[np.int64],
        claims: Mapping[str, npt.NDArray[Any]],
        slot: Any,
        places: npt.NDArray[np.int64] | None = None,
    ) -> None:
        """Set aside the rows ``at`` (stating exactly ``fields``, whose values are
        ``claims[f][at]``); their answers go to ``slot`` at ``places`` (default
        ``0..len(at)-1``)."""
        q = self.queues.get((mode, fields))
        if q is None:
            q = self.queues[(mode, fields)] = _Waiting(keys.rows)
        q.keys.append(keys.of[at])
        q.claims.append({f: np.asarray(claims[f])[at] for f in fields})
        q.slots.append((slot, np.arange(len(at)) if places is None else places))
        self.waiting += len(at)

    def take(self) -> Iterator[tuple[str, Checked, list[tuple[Any, npt.NDArray[np.int64]]]]]:
        """Every row set aside, as groups (at most :data:`GROUP` rows) with, in the
        groups' row order, the slots their answers go to."""
        queues, self.queues, self.waiting = self.queues, {}, 0
        for (mode, fields), q in queues.items():
            keys = np.concatenate(q.keys)
            claims = {f: np.concatenate([c[f] for c in q.claims]) for f in fields}
            slots = iter(q.slots)
            slot, places = next(slots)
            for start in range(0, len(keys), GROUP):
                end = min(len(keys), start + GROUP)
                part = {f: v[start:end] for f, v in claims.items()}
                out: list[tuple[Any, npt.NDArray[np.int64]]] = []
                need = end - start
                while need:
                    take = min(need, len(places))
                    out.append((slot, places[:take]))
                    places, need = places[take:], need - take
                    if not len(places) and (need or end < len(keys)):
                        slot, places = next(slots)
                yield mode, q.rows(keys[start:end], fields, part), out


@dataclass
class Waiting:
    """A group of the first pass: its disagreeing rows' answers as they are scored, how
    many are left, and whom to tell."""

    done: Callable[[npt.NDArray[np.bool_]], Any] | None
    explains: npt.NDArray[np.bool_]
    left: int = 0


DEFER = 1 << 14
"""Disagreeing rows set aside before they are scored together."""


def by_fields(
    res: Checked, at: npt.NDArray[np.int64]
) -> Iterator[tuple[tuple[str, ...], npt.NDArray[np.int64]]]:
    """The rows ``at`` by the fields they state: ``(fields, positions in at)``."""
    fields = list(res.stated)
    code = np.zeros(len(at), dtype=np.int64)
    for j, f in enumerate(fields):
        code |= res.stated[f][at].astype(np.int64) << j
    for c in np.unique(code).tolist():
        yield tuple(f for j, f in enumerate(fields) if c >> j & 1), np.flatnonzero(code == c)


def by_keys(
    part: Part, mode: str, variants: Sequence[Any], todo: Sequence[int]
) -> dict[int, tuple[int, int]]:
    """Per cause of ``todo`` (indices into ``variants``) the checker answers for from
    ``part``'s keys alone (:attr:`~solver.kit.check.Keys.agree`): the agreeing rows it
    contradicts among them, and how many of those are not interesting (0 for a cause
    scoped to ``mode``: it is scored on the interesting rows only) — the counts the
    group of the keys would give (:meth:`solver.kit.scoring.Scorer._score`)."""
    out: dict[int, tuple[int, int]] = {}
    if part.agree is None:
        return out
    for v in todo:
        got = part.agree(variants[v], part.keys, part.fields)
        if got is None:
            continue
        ok, special = got
        bad = ~np.asarray(ok, dtype=bool)
        if mode in variants[v].scope:
            bad &= special
            out[v] = (int(part.weight[bad].sum()), 0)
        else:
            out[v] = (int(part.weight[bad].sum()), int(part.weight[bad & ~special].sum()))
    return out


def row_atoms(res: Checked, rows: npt.NDArray[np.int64], counts: str = "lost_counts") -> Shapes:
    """Rows of a group counted by atom set: vectorised when the checker can (its
    ``record.lost_counts`` for disagreeing rows, ``record.atom_counts`` for agreeing
    ones), else from their records."""
    vectorised = getattr(res.record, counts, None)
    if vectorised is not None and len(rows):
        out: Shapes = vectorised(rows)
        return out
    return Counter(atoms(res.record(int(i))) for i in rows.tolist())


def weighted_atoms(group: Checked, weight: npt.NDArray[np.int64]) -> Shapes:
    """A group's rows counted by atom set, row ``i`` counted ``weight[i]`` times: by the
    checker's ``record.weighted_atom_counts(rows, weight)`` when it has one, else the
    rows of each count together (vectorised when the checker can)."""
    together = getattr(group.record, "weighted_atom_counts", None)
    if together is not None:  # the checker weighs its rows itself
        got: Shapes = together(np.arange(len(weight)), weight)
        return got
    counts = getattr(group.record, "atom_counts", None)
    out: Shapes = Counter()
    if counts is None:
        for i, w in zip(range(len(weight)), weight.tolist(), strict=True):
            out[atoms(group.record(i))] += w
        return out
    values, inv = np.unique(weight, return_inverse=True)
    inv = inv.ravel()
    if len(values) > MAX_WEIGHTS:  # many counts: by their bits, the rows of each bit
        for bit in range(int(weight.max()).bit_length()):
            for shape, c in counts(np.flatnonzero(weight >> bit & 1)).items():
                out[shape] += c << bit
        return out
    for j, w in enumerate(values.tolist()):
        for shape, c in counts(np.flatnonzero(inv == j)).items():
            out[shape] += c * w
    return out


MAX_WEIGHTS = 16
"""Distinct counts above which the rows are counted by the bits of their counts."""
