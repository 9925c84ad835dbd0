"""Reading a log's columns in a batch: the labels of ``role`` and ``result``, numbers,
and where rounds start.

The DuckDB engine may read ``role`` and ``result`` as label codes in SQL (a column
``<name>#``; see :func:`solver.audit.duckdb_engine.coded`): :func:`label` then parses
only the rows without a code, so every engine makes the same of every row.

>>> import pyarrow as pa
>>> t = pa.table({"role": ["banker", " Player", "croupier"]})
>>> p = label(t, "role", ROLES)
>>> p.value.tolist(), p.stated.tolist(), p.bad.tolist()
([1, 0, -1], [True, True, False], [False, False, True])
>>> changes(pa.array([1, 1, 2, 3, 3])).tolist()
[True, False, True, True, False]
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from solver.core.errors import BullError
from solver.kit.parse import Parsed, parse_float, parse_label

__all__ = [
    "EMPTY",
    "RESULT_LABELS",
    "ROLES",
    "UNKNOWN",
    "NotInRoundOrder",
    "Pick",
    "RoundKeys",
    "Rows",
    "all_finite",
    "arrow_of",
    "changes",
    "column",
    "hand_lists",
    "label",
    "number",
    "raw_values",
    "rows_of",
    "text_of",
    "validity",
]

RESULT_LABELS = {
    "win": 0, "won": 0, "player": 0, "w": 0,
    "loss": 1, "lose": 1, "lost": 1, "l": 1, "banker": 1, "dealer": 1,
    "push": 2, "tie": 2, "draw": 2, "p": 2,
}  # fmt: skip
"""The ``result`` of a player row: who won its showdown (0 the player, 1 the banker)."""
ROLES = {"player": 0, "banker": 1, "dealer": 1}


UNKNOWN = -1
"""A label code: text the SQL did not code (the batch parses it)."""
EMPTY = -2
"""A label code: no value (null)."""


class NotInRoundOrder(BullError):
    """The rows of a round are not together: the engine must sort by round."""


def column(t: pa.Table, name: str) -> pa.Array:
    """A column as one array (no copy when it is one chunk already)."""
    c = t.column(name)
    return c.chunk(0) if c.num_chunks == 1 else c.combine_chunks()


Pick = Callable[[npt.NDArray[Any]], npt.NDArray[Any]]
"""A column's values at some rows (``x[rows]``, by a faster way)."""
Rows = npt.NDArray[np.int64] | Callable[[], npt.NDArray[np.int64]]
"""Row numbers, or what makes them when they are first needed (with a :data:`Pick`
they seldom are: only for the rows to parse, or to name)."""


def rows_of(rows: Rows) -> npt.NDArray[np.int64]:
    """The row numbers of ``rows``, made if need be.

    >>> rows_of(lambda: np.arange(2)).tolist(), rows_of(np.array([3])).tolist()
    ([0, 1], [3])
    """
    return rows() if callable(rows) else rows


def label(
    t: pa.Table,
    key: str,
    labels: dict[str, int],
    rows: Rows | None = None,
    pick: Pick | None = None,
    narrow: bool = False,
) -> Parsed:
    """:func:`~solver.kit.parse.parse_label` of column ``key`` (of ``rows``; None: all),
    or of its label codes when the engine read them in SQL (column ``key#``, see
    :func:`solver.audit.duckdb_engine.coded`): only the rows without a code are parsed
    here, so both give the same values, rows and messages. ``pick``: the codes at
    ``rows`` (for ``code[rows]``); the values are int8 then (or with ``narrow``: an eighth
    of the copy), else int64."""
    raw = column(t, key)
    if key + "#" not in t.column_names:
        return parse_label(raw if rows is None else raw.take(pa.array(rows_of(rows))), key, labels)
    codes = column(t, key + "#")
    code = raw_values(codes)
    if codes.null_count:  # rows the SQL left to the parser
        code = np.where(validity(codes), code, np.int8(UNKNOWN))
    if rows is not None:
        code = code[rows_of(rows)] if pick is None else pick(code)
    code = code.astype(np.int8 if narrow or pick is not None else np.int64)  # a copy
    known = code >= 0
    if known.all():
        return Parsed(code, known, np.zeros(len(code), dtype=bool))
    code[code == EMPTY] = -1  # a null: not stated
    rest = np.flatnonzero(code == UNKNOWN)
    if not len(rest):
        return Parsed(code, known, np.zeros(len(code), dtype=bool))
    sub = parse_label(raw.take(pa.array(rest if rows is None else rows_of(rows)[rest])), key,
                      labels)  # fmt: skip
    stated, bad = known.copy(), np.zeros(len(code), dtype=bool)
    code[rest], stated[rest], bad[rest] = sub.value, sub.stated, sub.bad
    return Parsed(code, stated, bad, {int(rest[i]): m for i, m in sub.messages.items()})


def raw_values(arr: pa.Array) -> npt.NDArray[Any]:
    """The value buffer of a numeric array as numpy, no copy (a null row's slot as it
    is: read it with :func:`validity`).

    >>> raw_values(pa.array([7, 8, 9], pa.int8()).slice(1)).tolist()
    [8, 9]
    """
    dtype = np.dtype(arr.type.to_pandas_dtype())
    return np.frombuffer(arr.buffers()[1], dtype=dtype)[arr.offset : arr.offset + len(arr)]


def validity(arr: pa.Array) -> npt.NDArray[np.bool_]:
    """The validity bitmap of an array with nulls, one bool per row.

    >>> validity(pa.array([1, None, 3]).slice(1)).tolist()
    [False, True]
    """
    bits = np.frombuffer(arr.buffers()[0], dtype=np.uint8)
    return np.unpackbits(bits, bitorder="little")[arr.offset : arr.offset + len(arr)].view(bool)


def number(arr: pa.Array, name: str, rows: Rows, pick: Pick | None = None) -> Parsed:
    """:func:`~solver.kit.parse.parse_float` of ``arr[rows]``; a float64 column is read
    from its buffers (no Arrow take; ``pick``: for ``x[rows]``)."""
    if arr.type != pa.float64():
        return parse_float(arr.take(pa.array(rows_of(rows))), name)
    at = (lambda x: x[rows_of(rows)]) if pick is None else pick
    values = at(raw_values(arr))
    stated = at(validity(arr)) if arr.null_count else np.ones(len(values), dtype=bool)
    if not all_finite(values) and (stated & ~np.isfinite(values)).any():  # the messages
        return parse_float(arr.take(pa.array(rows_of(rows))), name)  # name the values
    every = bool(stated.all())
    return Parsed(values if every else np.where(stated, values, 0.0), stated,
                  np.zeros(len(stated), dtype=bool))  # fmt: skip


def all_finite(x: npt.NDArray[np.floating[Any]]) -> bool:
    """Whether every value of ``x`` is finite: by its sum when that is finite (a NaN or
    an infinity makes it NaN or infinite; one pass, no array of flags), else value by
    value (finite values whose sum overflows).

    >>> all_finite(np.array([1.0, -2.0])), all_finite(np.array([1e308, 1e308, np.nan]))
    (True, False)
    >>> all_finite(np.array([1e308, 1e308]))
    True
    """
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(np.sum(x)):
            return True
    return bool(np.isfinite(x).all())


def changes(rnd: pa.Array, scope: pa.Array | None = None) -> npt.NDArray[np.bool_]:
    """Row i starts a new round (row 0 always); raises when rounds go backwards.

    ``scope`` (the file, or the ``--round-key`` columns before the last): a round is
    identified by its scope and its id, in order by scope, then id.

    >>> changes(pa.array([1, 2, 1, 1]), pa.array([0, 0, 1, 1])).tolist()
    [True, True, True, False]
    """
    n = len(rnd)
    out = np.ones(n, dtype=bool)
    if scope is not None and n > 1:
        a, b = rnd.slice(1), rnd.slice(0, n - 1)
        sa, sb = scope.slice(1), scope.slice(0, n - 1)
        same = np.asarray(pc.fill_null(pc.equal(sa, sb), False))
        back = np.asarray(pc.fill_null(pc.less(a, b), False)) & same
        back |= np.asarray(pc.fill_null(pc.less(sa, sb), False))
        if back.any():
            raise NotInRoundOrder("round ids are not in order")
        out[1:] = np.asarray(pc.fill_null(pc.not_equal(a, b), True)) | ~same
        return out
    if n > 1:
        if pa.types.is_integer(rnd.type) and rnd.null_count == 0:
            x = raw_values(rnd)  # (np.asarray of Arrow imports pandas)
            if (x[1:] < x[:-1]).any():
                raise NotInRoundOrder("round ids are not in order")
            out[1:] = x[1:] != x[:-1]
            return out
        a, b = rnd.slice(1), rnd.slice(0, n - 1)
        if pc.any(pc.less(a, b)).as_py():
            raise NotInRoundOrder("round ids are not in order")
        out[1:] = np.asarray(pc.fill_null(pc.not_equal(a, b), True))
    return out


def _round_key(v: Any) -> str:
    return str(v)


class RoundKeys:
    """The round ids of a block as the examples name them: ``id``, or ``scope:id``
    when rounds are identified within a scope (a file: its base name; the
    ``--round-key`` columns before the last)."""

    def __init__(self, t: pa.Table, files: Sequence[str] | None = None) -> None:
        self.round = column(t, "round")
        self.scope = column(t, "scope") if "scope" in t.column_names else None
        self.files = files
        self.null_count = self.round.null_count

    def _scope(self, v: Any) -> str:
        if self.files is None:
            return "" if v is None else str(v)
        if isinstance(v, int) and 0 <= v < len(self.files):
            v = self.files[v]
        return os.path.basename(str(v).rstrip("/"))

    def __call__(self, i: int) -> str:
        r = _round_key(self.round[int(i)].as_py())
        if self.scope is None:
            return r
        return f"{self._scope(self.scope[int(i)].as_py())}:{r}"

    def take(self, rows: npt.NDArray[np.int64]) -> pa.Array:
        """The keys of ``rows`` as strings."""
        idx = arrow_of(np.asarray(rows, dtype=np.int64))
        r = pc.cast(self.round.take(idx), pa.string())
        if self.scope is None:
            return r
        sc = [self._scope(v) for v in self.scope.take(idx).to_pylist()]
        return pc.binary_join_element_wise(pa.array(sc, pa.string()), r, ":")


def arrow_of(values: npt.NDArray[Any], mask: npt.NDArray[np.bool_] | None = None) -> pa.Array:
    """A numeric numpy array as Arrow, from its buffer (``mask``: the null rows): what
    ``pa.array(values, mask=mask)`` gives, without ``pa.array``, which imports pandas
    (a third of a second, in each worker) to ask whether they are a pandas object.

    >>> arrow_of(np.array([1, 2, 3], np.int8), np.array([False, True, False])).to_pylist()
    [1, None, 3]
    """
    v = np.ascontiguousarray(values)
    if v.dtype.kind not in "iuf":
        raise TypeError(f"arrow_of: {v.dtype} is not a number type")
    valid = None
    if mask is not None and mask.any():
        valid = pa.py_buffer(np.packbits(~np.asarray(mask, dtype=bool), bitorder="little"))
    return pa.Array.from_buffers(pa.from_numpy_dtype(v.dtype), len(v), [valid, pa.py_buffer(v)])


def text_of(words: Sequence[str]) -> pa.Array:
    """A string Arrow array of ``words``, from buffers (see :func:`arrow_of`).

    >>> text_of(["player", "", "banker"]).to_pylist()
    ['player', '', 'banker']
    """
    data = [w.encode() for w in words]
    off = np.zeros(len(data) + 1, dtype=np.int32)
    np.cumsum([len(d) for d in data], out=off[1:])
    return pa.Array.from_buffers(
        pa.string(), len(data), [None, pa.py_buffer(off), pa.py_buffer(b"".join(data))]
    )


def hand_lists(ids: npt.NDArray[np.uint8], pad: int = 255) -> pa.Array:
    """Rows of ids (``pad`` after a short hand) as a list<uint8> array.

    >>> hand_lists(np.array([[1, 2], [3, 255]], dtype=np.uint8)).to_pylist()
    [[1, 2], [3]]
    """
    mask = ids != pad
    if ids.shape[1] and mask.all():  # every hand full: the rows as they are
        k = ids.shape[1]
        offsets = np.arange(0, (len(ids) + 1) * k, k, dtype=np.int32)
        values = np.ascontiguousarray(ids, dtype=np.uint8).ravel()
        return pa.ListArray.from_arrays(arrow_of(offsets), arrow_of(values))
    offsets = np.zeros(len(ids) + 1, dtype=np.int32)
    np.cumsum(mask.sum(axis=1), out=offsets[1:])
    return pa.ListArray.from_arrays(arrow_of(offsets), arrow_of(ids[mask].astype(np.uint8)))
