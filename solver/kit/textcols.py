"""Text and JSON of whole columns: the lines of ``bull eval --input`` built with Arrow
compute instead of one Python call per hand.

Each helper spells a column exactly as Python spells one value — ``repr`` of a float
(what ``json.dumps`` writes), ``format(x, "+.4f")``, ``format(x, ".4%")``, a fraction's
``"p/q"``, an ``int`` — and falls back to Python for the rare values where a vector
shortcut could differ (a tie in decimal rounding; a float below 1e-4, which ``repr``
writes with an exponent). ``tests/test_fast_eval.py`` compares whole lines with the
per-hand records.

>>> fixed(np.array([0.79972, -0.00001, 2.5]), 4, plus=True).to_pylist()
['+0.7997', '-0.0000', '+2.5000']
>>> floats(np.array([0.5, -4.0, 1e-05, 5.902985259506998])).to_pylist()
['0.5', '-4.0', '1e-05', '5.902985259506998']
>>> fractions(np.array([6, 0, -3]), np.array([8, 5, 60])).to_pylist()
['3/4', '0/1', '-1/20']
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

__all__ = [
    "fixed",
    "fixed_parts",
    "floats",
    "fractions",
    "ints",
    "join",
    "json_strings",
    "lookup",
    "strings",
]


def ints(v: npt.ArrayLike) -> pa.Array:
    """Integers as ``str(int)`` spells them."""
    return pc.cast(pa.array(np.asarray(v, dtype=np.int64)), pa.string())


def strings(values: Sequence[str]) -> pa.Array:
    """A small table of texts, for :func:`lookup`."""
    return pa.array(list(values), pa.string())


def json_strings(values: Sequence[str | None]) -> pa.Array:
    """``json.dumps(v, ensure_ascii=False)`` of each value (``None``: ``null``)."""
    return strings([json.dumps(v, ensure_ascii=False) for v in values])


def lookup(table: pa.Array, index: npt.ArrayLike) -> pa.Array:
    """``table[index]`` per row."""
    return pc.take(table, pa.array(np.asarray(index, dtype=np.int64)))


def join(*parts: pa.Array | str) -> pa.Array:
    """Row-wise concatenation of columns and constant texts."""
    args = [p if isinstance(p, pa.Array | pa.ChunkedArray) else pa.scalar(p) for p in parts]
    return pc.binary_join_element_wise(*args, "")


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
    k = k.astype(np.int64)
    step = 10**decimals
    whole = ints(k // step)
    part = pc.utf8_lpad(ints(k % step), decimals, "0")
    neg = np.signbit(x)
    sign = pa.array(np.where(neg, "-", "+" if plus else ""), pa.string())
    out = join(sign, whole, "." if decimals else "", part if decimals else "")
    if percent:
        out = join(out, "%")
    if unsure.any() or not np.isfinite(x).all():
        spec = f"{'+' if plus else ''}.{decimals}{'%' if percent else 'f'}"
        bad = np.flatnonzero(unsure | ~np.isfinite(x))
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
    out = pc.cast(pa.array(x), pa.string())  # shortest round-trip digits, as repr
    a = np.abs(x)
    integral = (x == np.floor(x)) & (a < 1e16)
    if integral.any():
        out = pc.if_else(pa.array(integral), join(out, ".0"), out)
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
    arr = out.to_pylist() if len(out) < 64 else None
    if arr is not None:
        for i, s in zip(rows.tolist(), values, strict=True):
            arr[i] = s
        return pa.array(arr, pa.string())
    mask = np.zeros(len(out), dtype=bool)
    mask[rows] = True
    fill = np.zeros(len(out), dtype=np.int64)
    fill[rows] = np.arange(len(rows))
    repl = pc.take(pa.array(values, pa.string()), pa.array(fill))
    return pc.if_else(pa.array(mask), repl, out)
