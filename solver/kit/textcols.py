"""Text and JSON of whole columns: the lines of ``bull eval --input`` built a column at
a time with Arrow kernels instead of one Python call per hand, and kept as tables of
finished lines that a batch of hands reads by one ``take``.

Each helper spells a column exactly as Python spells one value — ``repr`` of a float
(what ``json.dumps`` writes), ``format(x, "+.4f")``, ``format(x, ".4%")``, a fraction's
``"p/q"``, an ``int`` — and falls back to Python for the rare values where a vector
shortcut could differ (a tie in decimal rounding; a float below 1e-4, which ``repr``
writes with an exponent). ``tests/test_fast_eval.py`` compares whole lines with the
per-hand records.

The kernels are called through ``pyarrow._compute`` and every array is made from its
buffers: ``import pyarrow.compute`` (0.1 to 0.2 s of wrapping every kernel) and
``pa.array``/``pa.scalar`` (which import pandas when it is installed, 0.3 s) stay off
the path of a command that answers a file of hands in about a second.

>>> fixed(np.array([0.79972, -0.00001, 2.5]), 4, plus=True).to_pylist()
['+0.7997', '-0.0000', '+2.5000']
>>> floats(np.array([0.5, -4.0, 1e-05, 5.902985259506998])).to_pylist()
['0.5', '-4.0', '1e-05', '5.902985259506998']
>>> fractions(np.array([6, 0, -3]), np.array([8, 5, 60])).to_pylist()
['3/4', '0/1', '-1/20']
>>> cache = LineCache(10)
>>> cache.add(np.array([7, 2]), strings(["seven\\n", "two\\n"]))
>>> bytes(line_bytes(cache.take(np.array([2, 7, 7]))))
b'two\\nseven\\nseven\\n'
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow._compute as _pc

__all__ = [
    "LineCache",
    "concat",
    "const",
    "fixed",
    "fixed_parts",
    "floats",
    "fractions",
    "ints",
    "join",
    "json_array",
    "json_strings",
    "line_bytes",
    "lookup",
    "nums",
    "strings",
]


def _call(name: str, *args: Any, options: Any = None) -> pa.Array:
    out: pa.Array = _pc.call_function(name, list(args), options)
    return out


def nums(v: npt.ArrayLike, dtype: Any = np.int64) -> pa.Array:
    """A numpy array of numbers (int64 or float64) as an Arrow array, from its buffer."""
    a = np.ascontiguousarray(v, dtype=dtype)
    typ = pa.float64() if a.dtype.kind == "f" else pa.int64()
    return pa.Array.from_buffers(typ, len(a), [None, pa.py_buffer(a)])


def _index(v: npt.ArrayLike, valid: npt.NDArray[np.bool_] | None = None) -> pa.Array:
    """Row numbers for ``take`` (null where ``valid`` is false)."""
    a = np.ascontiguousarray(v, dtype=np.int64)
    bits = None
    if valid is not None and not valid.all():
        bits = pa.py_buffer(np.packbits(valid, bitorder="little"))
    return pa.Array.from_buffers(pa.int64(), len(a), [bits, pa.py_buffer(a)])


def _bools(mask: npt.NDArray[np.bool_]) -> pa.Array:
    bits = np.packbits(np.asarray(mask, dtype=bool), bitorder="little")
    return pa.Array.from_buffers(pa.bool_(), len(mask), [None, pa.py_buffer(bits)])


def _from_bytes(data: bytes | npt.NDArray[np.uint8], lengths: npt.ArrayLike) -> pa.Array:
    """A string array of consecutive pieces of ``data`` of the given byte lengths."""
    lens = np.asarray(lengths, dtype=np.int64)
    off = np.zeros(len(lens) + 1, dtype=np.int64)
    np.cumsum(lens, out=off[1:])
    large = off[-1] >= 2**31
    typ = pa.large_string() if large else pa.string()
    offs = off if large else off.astype(np.int32)
    return pa.Array.from_buffers(typ, len(lens), [None, pa.py_buffer(offs), pa.py_buffer(data)])


def strings(values: Sequence[str]) -> pa.Array:
    """Python strings as an Arrow string array (a table for :func:`lookup`)."""
    encoded = [v.encode("utf-8") for v in values]
    return _from_bytes(b"".join(encoded), [len(e) for e in encoded])


def const(text: str, n: int) -> pa.Array:
    """``n`` rows of the same text."""
    b = text.encode("utf-8")
    return _from_bytes(b * n, np.full(n, len(b)))


def ints(v: npt.ArrayLike) -> pa.Array:
    """Integers as ``str(int)`` spells them."""
    return _call("cast", nums(v), options=_pc.CastOptions.safe(pa.string()))


def json_strings(values: Sequence[str | None]) -> pa.Array:
    """``json.dumps(v, ensure_ascii=False)`` of each value (``None``: ``null``)."""
    return strings([json.dumps(v, ensure_ascii=False) for v in values])


def lookup(table: pa.Array, index: npt.ArrayLike) -> pa.Array:
    """``table[index]`` per row."""
    return _call("take", table, _index(index))


def join(*parts: pa.Array | str) -> pa.Array:
    """Row-wise concatenation of columns and constant texts."""
    n = next(len(p) for p in parts if not isinstance(p, str))
    args = [const(p, n) if isinstance(p, str) else p for p in parts]
    return _call("binary_join_element_wise", *args, const("", n))


def fixed(
    v: npt.NDArray[np.float64], decimals: int, plus: bool = False, percent: bool = False
) -> pa.Array:
    """``format(x, f"{'+' if plus else ''}.{decimals}{'%' if percent else 'f'}")``."""
    x = np.asarray(v, dtype=np.float64)
    if percent:
        x = x * 100.0  # as Python does before formatting
    scale = 10.0**decimals
    scaled = np.abs(x) * scale
    k = np.rint(scaled)
    frac = scaled - np.floor(scaled)
    # far from a decimal tie the float product rounds the same way as the exact value
    unsure = (np.abs(frac - 0.5) <= np.abs(scaled) * 2.0**-48 + 1e-9) | (scaled >= 2.0**52)
    unsure |= ~np.isfinite(x)
    k = np.where(unsure, 0, k).astype(np.int64)
    step = 10**decimals
    whole = ints(k // step)
    part = _call("utf8_lpad", ints(k % step), options=_pc.PadOptions(decimals, "0"))
    neg = np.signbit(x)
    sign = lookup(strings(["+" if plus else "", "-"]), neg.astype(np.int64))
    out = join(sign, whole, "." if decimals else "", part if decimals else "")
    if percent:
        out = join(out, "%")
    if unsure.any():
        spec = f"{'+' if plus else ''}.{decimals}{'%' if percent else 'f'}"
        bad = np.flatnonzero(unsure)
        raw = np.asarray(v, dtype=np.float64)
        out = _patch(out, bad, [format(float(raw[i]), spec) for i in bad.tolist()])
    return out


_WHOLE = 1000
_TABLES: dict[tuple[int, bool], tuple[pa.Array, pa.Array]] = {}


def _fixed_tables(decimals: int, plus: bool) -> tuple[pa.Array, pa.Array]:
    """Signed whole parts ``-999 … 999`` (row ``sign * 1000 + whole``; a minus kept
    for a negative zero) and the zero-padded decimals ``.0000 … .9999``."""
    got = _TABLES.get((decimals, plus))
    if got is None:
        pos = [f"{'+' if plus else ''}{w}" for w in range(_WHOLE)]
        neg = [f"-{w}" for w in range(_WHOLE)]
        part = [f".{d:0{decimals}d}" for d in range(10**decimals)] if decimals else [""]
        got = _TABLES[(decimals, plus)] = (strings(pos + neg), strings(part))
    return got


def fixed_parts(
    v: npt.NDArray[np.float64], decimals: int, plus: bool = False, percent: bool = False
) -> list[pa.Array | str]:
    """:func:`fixed` as pieces for :func:`join` (a whole part and the decimals, then
    ``%``), read from small tables of texts."""
    x = np.asarray(v, dtype=np.float64)
    if not np.isfinite(x).all() or decimals > 4:
        return [fixed(v, decimals, plus, percent)]
    xs = x * 100.0 if percent else x
    scaled = np.abs(xs) * 10.0**decimals
    frac = scaled - np.floor(scaled)
    k = np.rint(scaled).astype(np.int64)
    unsure = np.flatnonzero(np.abs(frac - 0.5) <= scaled * 2.0**-48 + 1e-9)
    if len(unsure):  # a decimal tie, near enough: Python's own rounding
        spec = f".{decimals}{'%' if percent else 'f'}"
        for i in unsure.tolist():
            k[i] = int(format(abs(float(x[i])), spec).rstrip("%").replace(".", ""))
    step = 10**decimals
    whole = k // step
    if (whole >= _WHOLE).any():
        return [fixed(v, decimals, plus, percent)]
    signs, parts = _fixed_tables(decimals, plus)
    out: list[pa.Array | str] = [
        lookup(signs, np.signbit(xs) * _WHOLE + whole),
        lookup(parts, k % step),
    ]
    if percent:
        out.append("%")
    return out


def floats(v: npt.NDArray[np.float64]) -> pa.Array:
    """``repr(float(x))`` per row (what ``json.dumps`` writes)."""
    x = np.asarray(v, dtype=np.float64)
    # shortest round-trip digits, as repr
    out = _call("cast", nums(x, np.float64), options=_pc.CastOptions.safe(pa.string()))
    a = np.abs(x)
    integral = (x == np.floor(x)) & (a < 1e16)
    if integral.any():
        out = _call("if_else", _bools(integral), join(out, ".0"), out)
    odd = ((a < 1e-4) & (x != 0)) | (a >= 1e16) | ~np.isfinite(x)
    if odd.any():  # repr switches to an exponent there
        bad = np.flatnonzero(odd)
        out = _patch(out, bad, [repr(float(x[i])) for i in bad.tolist()])
    return out


def fractions(num: npt.ArrayLike, den: npt.ArrayLike) -> pa.Array:
    """``f"{f.numerator}/{f.denominator}"`` of ``Fraction(num, den)`` (``den`` > 0)."""
    n = np.asarray(num, dtype=np.int64)
    d = np.asarray(den, dtype=np.int64)
    g = np.gcd(n, d)
    g[g == 0] = 1
    return join(ints(n // g), "/", ints(d // g))


def _patch(out: pa.Array, rows: npt.NDArray[np.int64], values: list[str]) -> pa.Array:
    """``out`` with ``rows`` replaced by ``values``."""
    if not len(rows):
        return out
    mask = np.zeros(len(out), dtype=bool)
    mask[rows] = True
    fill = np.zeros(len(out), dtype=np.int64)
    fill[rows] = np.arange(len(rows))
    repl = lookup(strings(values), fill)
    return _call("if_else", _bools(mask), repl, out)


# ---------------------------------------------------------------- finished lines


class LineCache:
    """Finished lines by an integer key ``0 <= key < size`` (a hand's class: its
    multiset of tiles, its sorted cards), written once each and read by one ``take``
    per batch. Memory: 4 bytes a key plus the lines written."""

    def __init__(self, size: int) -> None:
        self.slot = np.full(size, -1, dtype=np.int32)
        self.table: pa.Array = strings([])
        self.written = 0
        """Lines the owner wrote itself (not read from a store)."""

    def missing(self, keys: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """The distinct ``keys`` that have no line yet, sorted."""
        slot = self.slot[keys]
        if (slot >= 0).all():
            return np.zeros(0, dtype=np.int64)
        return np.unique(keys[slot < 0])

    def add(self, keys: npt.NDArray[np.int64], lines: pa.Array) -> None:
        """Lines for ``keys`` (distinct, without lines yet), in their order."""
        at = len(self.table)
        self.table = _concat(self.table, lines) if at else lines  # before the slots: a
        self.slot[keys] = at + np.arange(len(keys), dtype=np.int32)  # reader sees either

    def take(
        self, keys: npt.NDArray[np.int64], valid: npt.NDArray[np.bool_] | None = None
    ) -> pa.Array:
        """The lines of ``keys`` in order (null where ``valid`` is false)."""
        slot = self.slot[keys]
        if valid is not None and not valid.all():
            slot = np.where(valid, slot, 0)
        return _call("take", self.table, _index(slot, valid))


def _concat(a: pa.Array, b: pa.Array) -> pa.Array:
    """Two string arrays as one (large offsets once the text passes 2 GB)."""
    large = a.nbytes + b.nbytes >= 2**31 - 1 or a.type != b.type
    if large:
        a, b = (_call("cast", x, options=_pc.CastOptions.safe(pa.large_string())) for x in (a, b))
    return pa.concat_arrays([a, b])


def concat(parts: list[pa.Array]) -> pa.Array:
    """String arrays (no nulls) as one, each part let go once copied: the memory at
    most the result and one part (``pa.concat_arrays`` holds them all).

    >>> concat([strings(["a", "bc"]), strings(["d"])]).to_pylist()
    ['a', 'bc', 'd']
    """
    sizes = [len(line_bytes(p)) for p in parts]
    data = np.empty(sum(sizes), dtype=np.uint8)
    ends = []
    at = 0
    while parts:
        p = parts.pop(0)
        raw = np.frombuffer(line_bytes(p), dtype=np.uint8)
        data[at : at + len(raw)] = raw
        ends.append(at + _offsets(p)[1:] - _offsets(p)[0])
        at += len(raw)
        del p, raw
    lens = np.diff(np.concatenate([[0], *ends])) if ends else np.zeros(0, np.int64)
    return _from_bytes(data, lens)


def _offsets(lines: pa.Array) -> npt.NDArray[np.int64]:
    bufs = lines.buffers()
    wide = np.int64 if lines.type == pa.large_string() else np.int32
    n = len(lines)
    return np.frombuffer(bufs[1], dtype=wide)[lines.offset : lines.offset + n + 1].astype(np.int64)


def line_bytes(lines: pa.Array) -> memoryview:
    """The text of a string array without nulls, every row one after the other (its
    data buffer, no copy): the lines themselves when each row ends with its line end."""
    if isinstance(lines, pa.ChunkedArray):
        lines = lines.combine_chunks()
    if lines.null_count:
        raise ValueError("line_bytes: the array has nulls")
    n = len(lines)
    bufs = lines.buffers()
    if n == 0 or bufs[2] is None:
        return memoryview(b"")
    wide = np.int64 if pa.types.is_large_string(lines.type) else np.int32
    off = np.frombuffer(bufs[1], dtype=wide)[lines.offset : lines.offset + n + 1]
    return memoryview(bufs[2])[int(off[0]) : int(off[-1])]


def json_array(lines: pa.Array) -> bytes:
    """The JSON Lines of ``lines`` (each row one JSON value and ``\\n``) as the bytes
    of one JSON array: ``[v1, v2, ...]`` as ``json.dumps`` writes a list of them.

    >>> json_array(strings(['{"a": 1}\\n', '[2]\\n']))
    b'[{"a": 1}, [2]]'
    >>> json_array(strings([]))
    b'[]'
    """
    data = line_bytes(lines)
    n = len(lines)
    if not n:
        return b"[]"
    raw = np.frombuffer(data, dtype=np.uint8)
    nl = raw == 10
    ends = np.flatnonzero(nl)
    if len(ends) != n or ends[-1] != len(raw) - 1:
        raise ValueError("json_array: each row must be one line")
    out = np.empty(len(raw) + n, dtype=np.uint8)  # "[", each line end as ", ", "]"
    pos = np.arange(1, len(raw) + 1) + np.cumsum(nl) - nl  # one byte later per line end
    keep = ~nl
    out[pos[keep]] = raw[keep]
    at = pos[ends]
    out[0] = ord("[")
    out[at[:-1]] = ord(",")
    out[at[:-1] + 1] = ord(" ")
    out[at[-1]] = ord("]")
    return out.tobytes()
