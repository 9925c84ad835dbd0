"""The audit's table gathers of Niu Niu hands, by Arrow's ``take``.

numpy's ``take`` (and fancy indexing) widens its indices to ``intp`` first and gathers
one value at a time: for a hand's colex rank into a table of 2,598,960 rows, and for the
table that makes the rank's last three terms, Arrow's ``take`` (any integer index as it
is) costs about half. :func:`hand_values` is :func:`~solver.core.indexing.batch_lookup` of one
column (the same sorting network and colex rank; the tests compare them), and
:func:`gather` a small table's values at indices of any integer type. The arrays cross
to Arrow and back through their buffers (no copy; ``pa.array`` would import pandas).

>>> col = np.arange(2598960, dtype=np.int32)
>>> hand_values(np.array([[4, 3, 2, 1, 0], [47, 51, 49, 50, 48]], np.uint8), arrow(col))
array([      0, 2598959], dtype=int32)
>>> gather(arrow(np.array([0.5, -1.0])), np.array([1, 1, 0], np.uint8))
array([-1. , -1. ,  0.5])
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from solver.core.indexing import sort_columns

__all__ = ["arrow", "gather", "hand_values"]

_CHUNK = 32768
"""Hands ranked at once (their five columns and the rank stay in the cache)."""
_COLEX: list[pa.Array] = []


def arrow(values: npt.NDArray[Any]) -> pa.Array:
    """A numeric numpy array as an Arrow array of its buffer (no nulls, no copy)."""
    v = np.ascontiguousarray(values)
    return pa.Array.from_buffers(pa.from_numpy_dtype(v.dtype), len(v), [None, pa.py_buffer(v)])


def _numpy(a: pa.Array) -> npt.NDArray[Any]:
    dtype = np.dtype(a.type.to_pandas_dtype())
    return np.frombuffer(a.buffers()[1], dtype=dtype)[a.offset : a.offset + len(a)]


def gather(table: pa.Array, at: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """``table``'s values at ``at`` (any integer array in range), as numpy (read only)."""
    return _numpy(pc.take(table, arrow(at.reshape(-1)))).reshape(at.shape)


def _colex() -> pa.Array:
    """C(a,3) + C(b,4) + C(c,5) at (c*52 + b)*52 + a, as Arrow (its take reads the
    int32 index as it is): with C(x,1) + C(y,2) = x + y(y-1)/2, worked out, it ranks a
    sorted 5-subset of range(52) (its colex rank)."""
    if not _COLEX:
        comb = [np.array([math.comb(x, k) for x in range(52)], dtype=np.int64) for k in range(6)]
        t234 = comb[3][None, None, :] + comb[4][None, :, None] + comb[5][:, None, None]
        _COLEX.append(arrow(t234.reshape(-1).astype(np.int32)))
    return _COLEX[0]


def hand_values(ids: npt.NDArray[np.uint8], table: pa.Array) -> npt.NDArray[Any]:
    """``table``'s value at the colex rank of each hand of ``ids`` ((n, 5) distinct card
    ids 0..51 in any order; ``table``: one value per 5-card hand, by colex rank). The
    ranks are made in cache-sized chunks (two terms worked out, three gathered from one
    small table), the table gathered once for all (Arrow's take: its fixed cost paid
    once)."""
    t234 = _colex()
    cols = np.ascontiguousarray(ids.T, dtype=np.uint8)
    n = len(ids)
    rank = np.empty(n, dtype=np.int32)
    for start in range(0, n, _CHUNK):
        c = sort_columns([cols[i, start : start + _CHUNK] for i in range(5)])
        r = rank[start : start + _CHUNK]
        b = c[1].astype(np.int32)
        np.subtract(b, 1, out=r)
        r *= b
        r >>= 1
        r += c[0]  # C(a,1) + C(b,2)
        i234 = c[4].astype(np.int32)
        i234 *= 52
        i234 += c[3]
        i234 *= 52
        i234 += c[2]
        r += _numpy(pc.take(t234, arrow(i234)))
    return gather(table, rank)
