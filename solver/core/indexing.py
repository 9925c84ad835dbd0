"""The combinatorial number system: dense colex ranks of sorted k-subsets, and of
k-multisets.

A sorted k-subset ``c0 < c1 < ... < c(k-1)`` of ``range(n)`` has colex rank
``C(c0, 1) + C(c1, 2) + ... + C(c(k-1), k)``. Ranks run densely over
``0 .. C(n, k) - 1`` and do not depend on ``n``, so a table of every k-subset is
indexed by an array lookup.

>>> colex_rank((0, 1, 2, 3, 4))
0
>>> colex_rank((47, 48, 49, 50, 51))
2598959
>>> colex_unrank(2598959, 5)
(47, 48, 49, 50, 51)

A sorted k-multiset ``m0 <= m1 <= ... <= m(k-1)`` (a hand from a shoe, where a card
may repeat) is the k-subset ``m0 < m1 + 1 < ... < m(k-1) + k - 1`` of
``range(n + k - 1)``: its **dense multiset rank** is that subset's colex rank, running
over ``0 .. C(n + k - 1, k) - 1``.

>>> multiset_rank((0, 0, 0, 0, 0)), multiset_rank((51, 51, 51, 51, 51))
(0, 3819815)
>>> multiset_unrank(3819815, 5)
(51, 51, 51, 51, 51)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from math import comb
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.core.errors import ParseError

__all__ = [
    "BINOM",
    "all_multisets",
    "all_subsets",
    "batch_lookup",
    "colex_rank",
    "colex_rank_array",
    "colex_unrank",
    "colex_unrank_array",
    "item_ids",
    "multiset_rank",
    "multiset_rank_array",
    "multiset_unrank",
    "sort_columns",
]

MAX_N = 64
MAX_K = 6
BINOM: npt.NDArray[np.int64] = np.array(
    [[comb(n, k) for k in range(MAX_K + 1)] for n in range(MAX_N + 1)], dtype=np.int64
)
"""``BINOM[n, k] = C(n, k)`` for n ≤ 64, k ≤ 6."""

_BINOM_T = [[comb(n, k) for n in range(MAX_N + 1)] for k in range(MAX_K + 1)]
_BINOM_COLS = [np.ascontiguousarray(BINOM[:, k]) for k in range(MAX_K + 1)]
_BINOM_COLS32 = [c.astype(np.int32) for c in _BINOM_COLS]  # C(64, 6) < 2**31


def colex_rank(subset: Sequence[int]) -> int:
    """Colex rank of a **sorted** subset (pure Python, for single lookups)."""
    r = 0
    for i, c in enumerate(subset):
        r += _BINOM_T[i + 1][c]
    return r


def colex_unrank(rank: int, k: int) -> tuple[int, ...]:
    """The sorted k-subset with colex rank ``rank`` (inverse of :func:`colex_rank`)."""
    out = [0] * k
    for i in range(k, 0, -1):
        c = i - 1
        while _BINOM_T[i][c + 1] <= rank:
            c += 1
        out[i - 1] = c
        rank -= _BINOM_T[i][c]
    return tuple(out)


_NETWORKS: dict[int, tuple[tuple[int, int], ...]] = {
    1: (),
    2: ((0, 1),),
    3: ((0, 1), (1, 2), (0, 1)),
    4: ((0, 1), (2, 3), (0, 2), (1, 3), (1, 2)),
    5: ((0, 1), (3, 4), (2, 4), (2, 3), (0, 3), (0, 2), (1, 4), (1, 3), (1, 2)),
}
"""Sorting networks of k columns: the pairs compared, in order."""


def sort_columns(columns: Sequence[npt.NDArray[np.integer]]) -> list[npt.NDArray[np.integer]]:
    """Sort k parallel id arrays elementwise (a sorting network; k ≤ 5 is fastest).

    >>> [a.tolist() for a in sort_columns([np.array([3, 0]), np.array([1, 2]), np.array([2, 1])])]
    [[1, 0], [2, 1], [3, 2]]
    """
    cols = list(columns)
    k = len(cols)
    if k not in _NETWORKS:
        stacked = np.sort(np.stack(cols, axis=1), axis=1)
        return [stacked[:, i] for i in range(k)]
    for i, j in _NETWORKS[k]:
        lo = np.minimum(cols[i], cols[j])
        cols[j] = np.maximum(cols[i], cols[j])
        cols[i] = lo
    return cols


def colex_rank_array(hands: npt.ArrayLike, *, presorted: bool = False) -> npt.NDArray[np.int32]:
    """Colex ranks (int32: every rank for n ≤ 64, k ≤ 6 fits) of many subsets: ``hands``
    has shape (n, k); rows need not be sorted.

    >>> colex_rank_array(np.array([[4, 3, 2, 1, 0], [51, 50, 49, 48, 47]])).tolist()
    [0, 2598959]
    """
    arr = np.asarray(hands)
    if arr.ndim != 2:
        raise ValueError("hands must be a 2-d array (n, k)")
    k = arr.shape[1]
    cols = [arr[:, i] for i in range(k)]
    if not presorted:
        cols = sort_columns(cols)
    if k == 5 and arr.dtype == np.uint8 and len(arr) and int(arr.max()) < 52:
        return _rank5(cols)  # two gathers instead of five (cards, tiles)
    rank: npt.NDArray[np.int32] = _BINOM_COLS32[1][cols[0]]
    for i in range(1, k):
        rank += _BINOM_COLS32[i + 1][cols[i]]
    return rank


def colex_unrank_array(ranks: npt.ArrayLike, k: int) -> npt.NDArray[np.uint8]:
    """Sorted subsets (shape (n, k), uint8) for an array of colex ranks."""
    r = np.array(ranks, dtype=np.int64, copy=True)
    out = np.empty((r.shape[0], k), dtype=np.uint8)
    for i in range(k, 0, -1):
        col = _BINOM_COLS[i]
        # largest c with C(c, i) <= r
        c = np.searchsorted(col, r, side="right") - 1
        out[:, i - 1] = c
        r -= col[c]
    return out


def all_subsets(n: int, k: int) -> npt.NDArray[np.uint8]:
    """Every sorted k-subset of ``range(n)``, shape (C(n, k), k), row i has colex rank i.

    >>> all_subsets(4, 2).tolist()
    [[0, 1], [0, 2], [1, 2], [0, 3], [1, 3], [2, 3]]
    """
    if k == 0:
        return np.zeros((1, 0), dtype=np.uint8)
    prev = all_subsets(n, k - 1)
    blocks = []
    for top in range(k - 1, n):
        # subsets whose largest element is `top`: all (k-1)-subsets of range(top), in colex order
        m = comb(top, k - 1)
        block = np.empty((m, k), dtype=np.uint8)
        block[:, : k - 1] = prev[:m]
        block[:, k - 1] = top
        blocks.append(block)
    return np.concatenate(blocks) if blocks else np.zeros((0, k), dtype=np.uint8)


def multiset_rank(multiset: Sequence[int]) -> int:
    """Dense rank of a **sorted** multiset (pure Python, for single lookups)."""
    r = 0
    for i, c in enumerate(multiset):
        r += _BINOM_T[i + 1][c + i]
    return r


def multiset_unrank(rank: int, k: int) -> tuple[int, ...]:
    """The sorted k-multiset of dense rank ``rank`` (inverse of :func:`multiset_rank`)."""
    return tuple(c - i for i, c in enumerate(colex_unrank(rank, k)))


def multiset_rank_array(hands: npt.ArrayLike, *, presorted: bool = False) -> npt.NDArray[np.int32]:
    """Dense multiset ranks (int32) of many hands (n, k) that may repeat an id.

    >>> multiset_rank_array(np.array([[3, 0, 0], [0, 0, 0]])).tolist()
    [10, 0]
    """
    arr = np.asarray(hands)
    if arr.ndim != 2:
        raise ValueError("hands must be a 2-d array (n, k)")
    k = arr.shape[1]
    cols: list[npt.NDArray[np.integer]] = [arr[:, i].astype(np.int32) for i in range(k)]
    if not presorted:
        cols = sort_columns(cols)
    rank: npt.NDArray[np.int32] = _BINOM_COLS32[1][cols[0]]
    for i in range(1, k):
        rank = rank + _BINOM_COLS32[i + 1][cols[i] + i]
    return rank


def all_multisets(n: int, k: int) -> npt.NDArray[np.uint8]:
    """Every sorted k-multiset of ``range(n)``, shape (C(n + k - 1, k), k); row i has
    dense multiset rank i.

    >>> all_multisets(3, 2).tolist()
    [[0, 0], [0, 1], [1, 1], [0, 2], [1, 2], [2, 2]]
    """
    out = all_subsets(n + k - 1, k)
    out -= np.arange(k, dtype=np.uint8)
    return out


_CHUNK = 32768
_PAIR_TABLES: list[npt.NDArray[np.int32]] = []


def _rank5_tables() -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]:
    """C(a,1) + C(b,2) indexed by b*52 + a, and C(a,3) + C(b,4) + C(c,5) by
    (c*52 + b)*52 + a: two gathers rank a sorted 5-subset of range(52)."""
    if not _PAIR_TABLES:
        b1, b2, b3, b4, b5 = (BINOM[:52, k] for k in range(1, 6))
        t01 = (b2[:, None] + b1[None, :]).astype(np.int32).ravel()
        t234 = b5[:, None, None] + b4[None, :, None] + b3[None, None, :]
        _PAIR_TABLES.extend([t01, t234.astype(np.int32).ravel()])
    return _PAIR_TABLES[0], _PAIR_TABLES[1]


def _rank5(c: Sequence[npt.NDArray[np.integer]]) -> npt.NDArray[np.int32]:
    """The colex ranks of sorted 5-subsets of range(52), given as five columns."""
    t01, t234 = _rank5_tables()
    i01 = c[1].astype(np.uint16)
    i01 *= 52
    i01 += c[0]
    i234 = c[4].astype(np.int32)
    i234 *= 52
    i234 += c[3]
    i234 *= 52
    i234 += c[2]
    rank = t01[i01]
    rank += t234[i234]
    return rank


def item_ids(
    hands: npt.ArrayLike, deck: int, widths: Sequence[int], what: str = "card"
) -> npt.NDArray[np.int64]:
    """A batch of hands as exact integer ids, or a :class:`~solver.core.errors.ParseError`
    naming the first bad row and column.

    The one validator behind every batch API: the array must be 2-D with a width in
    ``widths``; every value an exact whole number 0..deck-1 (integral floats are
    accepted, fractions, NaN, infinities, complex numbers, strings and booleans are not).
    Duplicates within a row are the caller's business (a shoe may hold two).

    >>> item_ids([[0, 1.0], [2, 3]], 52, (2,)).tolist()
    [[0, 1], [2, 3]]
    >>> item_ids([[0, 1], [2, 3.5]], 52, (2,))
    Traceback (most recent call last):
    ...
    solver.core.errors.ParseError: row 1, column 1: 3.5 is not a card id (a whole number 0..51)
    """
    try:
        arr = np.asarray(hands)
    except (ValueError, TypeError):
        _ragged(hands, what)
        arr = np.empty(0, dtype=object)
    shape = " or ".join(f"(n, {w})" for w in widths)
    if arr.ndim == 1 and arr.dtype.kind == "O" and len(arr):
        _ragged(list(arr), what)  # rows of different lengths, named
    if arr.ndim != 2 or arr.shape[1] not in tuple(widths):
        raise ParseError(f"a batch of hands must have shape {shape}, got {arr.shape}")
    if arr.size == 0:
        return np.zeros(arr.shape, dtype=np.int64)

    def fail(row: int, col: int, why: str) -> ParseError:
        v = arr[row, col]
        v = v.item() if isinstance(v, np.generic) else v
        return ParseError(f"row {row}, column {col}: {v!r} {why}")

    if arr.dtype.kind == "O":  # Python objects (a list holding None): each checked
        for (r, c), v in np.ndenumerate(arr):
            number = isinstance(v, int | float | np.integer | np.floating)
            if isinstance(v, bool | np.bool_) or not number:
                raise fail(r, c, f"is not a {what} id (ids are whole numbers 0..{deck - 1})")
            if not (math.isfinite(v) and v == int(v) and 0 <= v < deck):
                raise fail(r, c, f"is not a {what} id (a whole number 0..{deck - 1})")
        arr = arr.astype(np.int64)
    kind = arr.dtype.kind
    if kind not in "iuf":
        raise fail(0, 0, f"is not a {what} id (ids are whole numbers 0..{deck - 1})")
    if kind == "f":
        bad = ~np.isfinite(arr) | (arr != np.floor(arr))
        if bad.any():
            r, c = (int(x) for x in np.argwhere(bad)[0])
            raise fail(r, c, f"is not a {what} id (a whole number 0..{deck - 1})")
    bad = (arr < 0) | (arr >= deck)
    if bad.any():
        r, c = (int(x) for x in np.argwhere(bad)[0])
        raise fail(r, c, f"is out of range (a {what} id is 0..{deck - 1})")
    return arr.astype(np.int64)


def _ragged(hands: Any, what: str) -> None:
    """Name the first row of ``hands`` whose length differs from the first row's (or
    that is no row at all); returns when every row has one length.

    >>> _ragged([[0, 1], [2]], "card")
    Traceback (most recent call last):
    ...
    solver.core.errors.ParseError: a batch of cards: row 1 has 1 ids, row 0 has 2
    """
    try:
        rows = list(hands)
    except TypeError:
        raise ParseError(f"a batch of {what}s must be a 2-D array of ids") from None
    width: int | None = None
    for i, row in enumerate(rows):
        if isinstance(row, str | bytes) or not hasattr(row, "__len__"):
            raise ParseError(f"a batch of {what}s: row {i} is not a list of ids ({row!r:.40})")
        if width is None:
            width = len(row)
        elif len(row) != width:
            raise ParseError(f"a batch of {what}s: row {i} has {len(row)} ids, row 0 has {width}")
    if width is None or not rows:
        return
    raise ParseError(f"a batch of {what}s must be a 2-D array of ids")


def batch_lookup(
    hands: npt.ArrayLike,
    columns: Sequence[npt.NDArray[Any]],
    check: bool = True,
    with_rank: bool = False,
    presorted: bool = False,
) -> list[npt.NDArray[Any]]:
    """``[column[rank(hand)] for column in columns]`` for many 5-card hands at once.

    ``hands`` is (n, 5) card ids 0..51 in any order (``presorted``: each row in
    increasing order already, not sorted again); with ``check`` a row that
    repeats an id or holds one outside 0..51 raises ``ValueError`` naming the row.
    Works in cache-sized chunks: a sorting network, a colex rank from
    two precomputed tables, then one gather per column — the fast path behind the
    batch APIs. ``with_rank`` appends the ranks themselves to the result.

    >>> col = np.arange(2598960, dtype=np.int32)
    >>> batch_lookup(np.array([[4, 3, 2, 1, 0], [47, 51, 49, 50, 48]]), [col])[0].tolist()
    [0, 2598959]
    """
    if check:
        arr = item_ids(hands, 52, (5,))
    else:
        arr = np.asarray(hands)
        if arr.ndim != 2 or arr.shape[1] != 5:
            raise ValueError(f"hands must have shape (n, 5), got {arr.shape}")
    cols_t = np.ascontiguousarray(arr.T, dtype=np.uint8)
    n = arr.shape[0]
    outs = [np.empty(n, dtype=c.dtype) for c in columns]
    ranks = np.empty(n, dtype=np.int32) if with_rank else None
    for start in range(0, n, _CHUNK):
        c: list[npt.NDArray[np.integer]] = [cols_t[i, start : start + _CHUNK] for i in range(5)]
        if not presorted:
            c = sort_columns(c)
        if check:
            dup = (c[0] == c[1]) | (c[1] == c[2]) | (c[2] == c[3]) | (c[3] == c[4])
            if dup.any():
                raise ValueError(f"row {start + int(np.flatnonzero(dup)[0])} repeats a card")
        rank = _rank5(c)
        for col, out in zip(columns, outs, strict=True):
            np.take(col, rank, out=out[start : start + _CHUNK])
        if ranks is not None:
            ranks[start : start + _CHUNK] = rank
    return outs if ranks is None else [*outs, ranks]
