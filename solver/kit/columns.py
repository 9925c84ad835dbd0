"""The columns of a claims file: logical fields, the ``--column`` renames, and the one
batch type the readers yield (:class:`Chunk`), each column made a type the parsers read.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from solver.core.errors import BullError
from solver.kit.plain import string_offsets

__all__ = [
    "CODED",
    "FIELDS",
    "MAX_FIELD_BYTES",
    "MAX_LISTED",
    "Chunk",
    "arrow_ints",
    "arrow_mask",
    "map_columns",
    "normal_column",
    "parse_column_options",
]

FIELDS: dict[str, tuple[str, ...]] = {
    "hand": ("hand", "cards", "tiles"),
    "has_bull": ("has_bull",),
    "points": ("points", "score"),
    "category": ("category", "type"),
    "deng": ("deng",),
    "bull": ("bull",),
    "values": ("values",),
    "player": ("player",),
    "banker": ("banker", "dealer"),
    "winner": ("winner",),
    "net": ("net",),
    "bet": ("bet",),
    "commission": ("commission",),
}
"""Logical field → the column names looked for by default (case-insensitive)."""

CODED = ("category", "winner")
"""Fields of a few labels: read from Parquet as dictionaries (each distinct value once,
as the file stores them), their parses made of the dictionary's (:attr:`Chunk.codes`)."""

MAX_LISTED = 100
"""Malformed rows and examples kept in the summary (all are counted)."""
MAX_FIELD_BYTES = 1 << 16
"""The longest field read (bytes): a longer one makes its row malformed (a hand is ~20),
and no message quotes megabytes of it."""


def parse_column_options(items: Sequence[str]) -> dict[str, str]:
    """``["hand=cards", ...]`` → ``{"hand": "cards"}``; unknown fields are errors.

    >>> parse_column_options(["hand=Cards", "points = pts"])
    {'hand': 'Cards', 'points': 'pts'}
    """
    out: dict[str, str] = {}
    for item in items:
        if "=" not in item:
            raise BullError(f"--column {item!r}: expected FIELD=NAME, e.g. hand=cards")
        key, name = (s.strip() for s in item.split("=", 1))
        if key not in FIELDS:
            raise BullError(
                f"--column {item!r}: unknown field {key!r} (fields: {', '.join(FIELDS)})"
            )
        if not name:
            raise BullError(f"--column {item!r}: empty column name")
        out[key] = name
    return out


def map_columns(names: Sequence[str], explicit: Mapping[str, str]) -> dict[str, str]:
    """Logical field → file column, from ``explicit`` (must exist) or the defaults.

    >>> map_columns(["Hand", "Points", "x"], {})
    {'hand': 'Hand', 'points': 'Points'}
    """
    lower = {n.lower(): n for n in names}
    out: dict[str, str] = {}
    for key, default_names in FIELDS.items():
        if key in explicit:
            want = explicit[key]
            if want in names:
                out[key] = want
            elif want.lower() in lower:
                out[key] = lower[want.lower()]
            else:
                raise BullError(
                    f"column {want!r} (for {key}) is not in the file "
                    f"(columns: {', '.join(names) or 'none'})"
                )
            continue
        for cand in default_names:
            if cand in lower:
                out[key] = lower[cand]
                break
    return out


@dataclass
class Chunk:
    """One batch of rows: logical field → Arrow array, and each row's line number.

    Every column is made one of the few types the parsers read (:func:`normal_column`),
    and a row whose text is not UTF-8 is moved to :attr:`bad` — whatever types the
    file's writer chose.
    """

    columns: dict[str, pa.Array]
    lines: npt.NDArray[np.int64]
    bad: list[tuple[int, str]] = field(default_factory=list)
    made: dict[str, Any] = field(default_factory=dict)
    """What was parsed of the columns ahead of need, by field (see
    :class:`solver.kit.check.Columns`)."""
    codes: dict[str, tuple[npt.NDArray[np.int64], pa.Array]] = field(default_factory=dict)
    """The columns read as dictionaries of text, by field: each row's place in the
    dictionary (a null row: one past its end) and the dictionary's values, as text."""
    coded_as_is: bool = False
    """Keep a column of :attr:`codes` as its dictionary array (``dictionary<string>``)
    rather than decode it to ``string``: for a reader whose parsers read such columns
    (:func:`~solver.kit.check.parsed`, Arrow's ``take``); a Parquet label column of 10 M
    rows decodes in 0.16 s."""

    def __post_init__(self) -> None:
        ok = np.ones(len(self.lines), dtype=bool)
        why: dict[int, str] = {}
        for key, arr in list(self.columns.items()):
            if (coded := _coded(arr)) is not None:
                self.codes[key] = coded
                if self.coded_as_is and _as_is(arr, coded[1]):
                    continue
            self.columns[key], good = normal_column(arr)
            if good is not None:
                why.update((int(i), "not UTF-8 text") for i in np.flatnonzero(ok & ~good))
                ok &= good
            if self.columns[key].type == pa.string() and len(arr):
                long = _long(self.columns[key])
                if long is not None and (long := ok & long).any():
                    text = f"{key}: over {MAX_FIELD_BYTES:,} bytes (not one {key})"
                    why.update((int(i), text) for i in np.flatnonzero(long))
                    ok &= ~long
        if not ok.all():
            self.bad = sorted([*self.bad, *((int(self.lines[i]), m) for i, m in why.items())])
            keep = arrow_mask(ok)
            self.columns = {k: pc.filter(v, keep) for k, v in self.columns.items()}
            self.codes = {k: (at[ok], values) for k, (at, values) in self.codes.items()}
            self.lines = self.lines[ok]

    def __len__(self) -> int:
        return len(self.lines)


def _as_is(arr: pa.Array, values: pa.Array) -> bool:
    """Whether a dictionary column may be kept as it is (:attr:`Chunk.coded_as_is`): its
    values ``string`` as read, none of them too long to be one field.

    >>> _as_is(pa.array(["pok", "tong"]).dictionary_encode(), pa.array(["pok", "tong"]))
    True
    """
    return arr.type.value_type == pa.string() and _long(values) is None


def _coded(arr: pa.Array) -> tuple[npt.NDArray[np.int64], pa.Array] | None:
    """A dictionary column of text as each row's place in the dictionary (a null row:
    one past its end) and the dictionary's values as ``string``; ``None`` for any other
    column, or a dictionary with a value that is not UTF-8.

    >>> at, values = _coded(pa.array(["pok", None, "pok", "tong"]).dictionary_encode())
    >>> at.tolist(), values.to_pylist()
    ([0, 2, 0, 1], ['pok', 'tong'])
    """
    if isinstance(arr, pa.ChunkedArray) or not pa.types.is_dictionary(arr.type):
        return None
    t = arr.type.value_type
    if not (pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t)):
        return None
    values, good = normal_column(arr.dictionary)
    if good is not None or values.type != pa.string():
        return None
    idx = arr.indices
    width = idx.type.bit_width // 8
    raw = np.frombuffer(
        idx.buffers()[1], dtype=f"i{width}" if pa.types.is_signed_integer(idx.type) else f"u{width}"
    )
    at = raw[idx.offset : idx.offset + len(idx)].astype(np.int64)
    if idx.null_count:
        at[~np.asarray(idx.is_valid().to_numpy(zero_copy_only=False), dtype=bool)] = len(values)
    return at, values


def arrow_ints(values: npt.NDArray[np.integer]) -> pa.Array:
    """An int64 Arrow array of numpy integers (made from the buffer: ``pa.array`` would
    import pandas, half a second, to ask whether they are a pandas object).

    >>> arrow_ints(np.array([3, 1])).to_pylist()
    [3, 1]
    """
    v = np.ascontiguousarray(values, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), len(v), [None, pa.py_buffer(v)])


def arrow_mask(values: npt.NDArray[np.bool_]) -> pa.Array:
    """A boolean Arrow array of a numpy mask (see :func:`arrow_ints`).

    >>> arrow_mask(np.array([True, False, True])).to_pylist()
    [True, False, True]
    """
    bits = np.packbits(np.asarray(values, dtype=bool), bitorder="little")
    return pa.Array.from_buffers(pa.bool_(), len(values), [None, pa.py_buffer(bits)])


def _sizes(arr: pa.Array) -> npt.NDArray[np.int64]:
    """The byte length of each value of a string column (a null: 0).

    >>> _sizes(pa.array(["ab", None, "", "xyz"])).tolist()
    [2, 0, 0, 3]
    """
    off = string_offsets(arr)
    size = np.diff(off).astype(np.int64)
    if arr.null_count:
        size[~np.asarray(arr.is_valid().to_numpy(zero_copy_only=False), dtype=bool)] = 0
    return size


def _long(arr: pa.Array) -> npt.NDArray[np.bool_] | None:
    """The rows of a string column over :data:`MAX_FIELD_BYTES` (``None``: none is,
    as when the column's bytes are fewer, or its longest offset step is no longer).

    >>> _long(pa.array(["ab", None])) is None, _long(pa.array(["x" * 70000, "y"])).tolist()
    (True, [True, False])
    """
    off = string_offsets(arr)
    if int(off[-1]) - int(off[0]) <= MAX_FIELD_BYTES or np.diff(off).max() <= MAX_FIELD_BYTES:
        return None
    return _sizes(arr) > MAX_FIELD_BYTES


def _ascii(arr: pa.Array) -> bool:
    """Whether every byte of a string column's values (and of its null rows', if any)
    is ASCII: then it is UTF-8, with no need to check each character.

    >>> _ascii(pa.array(["KS 9H", None, ""])), _ascii(pa.array(["10♠"]))
    (True, False)
    """
    bufs = arr.buffers()
    if bufs[2] is None or not len(arr):
        return True
    off = string_offsets(arr)
    data = np.frombuffer(bufs[2], dtype=np.uint8)[int(off[0]) : int(off[-1])]
    return not len(data) or int(data.max()) < 0x80


def _as_text(values: list[Any]) -> pa.Array:
    """Python values as text: a list of strings joined by spaces (a hand), anything
    else as JSON (read as malformed where it is parsed)."""

    def text(v: Any) -> str | None:
        if v is None or isinstance(v, str):
            return v
        if isinstance(v, bytes):
            return v.decode("utf-8", "replace")
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, list) and all(isinstance(x, str) for x in v):
            return " ".join(v)
        return json.dumps(v, sort_keys=True, default=str)

    return pa.array([text(v) for v in values], type=pa.string())


def _utf8_rows(arr: pa.Array) -> tuple[pa.Array, npt.NDArray[np.bool_] | None]:
    """A binary or string column as ``string``, and which rows are UTF-8 (``None``: all).

    >>> _utf8_rows(pa.array([b"KS 9H", None]))[0].to_pylist()
    ['KS 9H', None]
    """
    if pa.types.is_binary(arr.type) and _ascii(arr):  # ASCII bytes are UTF-8: no check
        return arr.view(pa.string()), None
    try:
        out = arr.cast(pa.string())  # a cast from binary checks the bytes
        if arr.type == out.type:  # Arrow's JSON reader keeps bytes as they come
            if _ascii(out):
                out.validate()  # the layout; ASCII bytes are UTF-8
            else:
                out.validate(full=True)
        return out, None
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    values: list[str | None] = []
    ok = np.ones(len(arr), dtype=bool)
    for i, v in enumerate(arr.cast(pa.binary()).to_pylist()):
        try:
            values.append(None if v is None else v.decode("utf-8"))
        except UnicodeDecodeError:
            ok[i] = False
            values.append("")
    return pa.array(values, pa.string()), ok


def normal_column(arr: pa.Array) -> tuple[pa.Array, npt.NDArray[np.bool_] | None]:
    """A column as one of the types the parsers read — ``string``, ``bool``, ``int64``,
    ``double``, ``list<int64>`` (card ids) or ``list<string>`` (card names) — and which
    rows are UTF-8 text (``None``: every row). Narrow or unsigned integers, dictionaries,
    large and binary strings, fixed-size lists are converted; what no parser reads
    (structs, maps, dates, nested lists) becomes text, read as malformed where it is
    parsed.

    >>> normal_column(pa.array([[0, 5]], pa.list_(pa.int8())))[0].type
    ListType(list<item: int64>)
    >>> normal_column(pa.array([b"ok", b"\\xff"]))[1].tolist()
    [True, False]
    """
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    t = arr.type
    if pa.types.is_dictionary(t):
        return normal_column(arr.dictionary_decode())
    if pa.types.is_null(t):
        return pa.nulls(len(arr), pa.string()), None
    if t in (pa.string(), pa.bool_(), pa.int64(), pa.float64()):
        if t == pa.string():
            return _utf8_rows(arr)
        return arr, None
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t):
        return _utf8_rows(arr)
    if pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return _utf8_rows(arr.cast(pa.binary()))
    with contextlib.suppress(pa.ArrowException):
        if pa.types.is_integer(t):
            return arr.cast(pa.int64()), None
        if pa.types.is_floating(t):
            return arr.cast(pa.float64()), None
        if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
            v = t.value_type
            if pa.types.is_dictionary(v):
                v = v.value_type
            if pa.types.is_integer(v) or pa.types.is_floating(v):  # whole numbers only
                return arr.cast(pa.list_(pa.int64())), None
            if pa.types.is_string(v) or pa.types.is_large_string(v):
                out = arr.cast(pa.list_(pa.string()))
                out.validate(full=True)
                return out, None
    return _as_text(arr.to_pylist()), None
