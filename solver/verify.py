"""``bull verify``: check another implementation's claims, streamed and vectorised.

A claims file (CSV, JSON Lines or Parquet, by extension or ``--format``) holds **hand
rows** — a ``hand`` plus any of ``has_bull``, ``points``, ``category`` (or ``type``),
``deng`` (Pok Deng), ``bull`` (the three cards/tiles set aside, or ``none``) and
``values`` (Tau Ngau: ``{"[4:2]": 6}`` or ``[4:2]=6``) — and/or **showdown rows** —
``player`` and ``banker`` (or ``dealer``) plus any of ``winner`` and ``net``, and per row
optionally the Niu Niu ``bet`` and ``commission``. Extra columns are ignored; names are
matched case-insensitively and ``--column FIELD=NAME`` renames. A hand is text
(``"AS 10H 3C 7D KS"``, ``"[6:5][4:1]..."``, any spelling of RULES §2) or a list (of
names, or of card ids in our encoding).

The file is read in batches (``pyarrow.csv.open_csv``, ``ParquetFile.iter_batches``,
blocks of JSON Lines) by a reader thread; every batch is parsed and checked with Arrow
compute and numpy (the common spellings without a Python loop, table lookups by colex
rank), so memory stays bounded whatever the file size.

Every well-formed row is **checked**; an empty field is **not stated** (never a
disagreement); a row that cannot be read (an unknown card, a bad number, a wrong number
of fields) is **malformed**: reported with its line number (CSV, JSON Lines) or row
number (Parquet), counted, and the run goes on. Semantics (RULES §8): a Niu Niu or Tau
Ngau bull claim is right when it is a valid bull reaching the claimed score; a Tau
Ngau score the hand can reach but that is not its best is ``suboptimal``, one it cannot
reach ``illegal``. Each disagreeing row gets the correct answer and a short reason, and
the disagreements go to :mod:`solver.diagnose`, which names the rule variants that
explain them.

Exit codes: 0 everything agrees, 1 a disagreement or a malformed row, 2 bad input
(raised as :class:`~solver.errors.BullError`: unreadable file, missing columns, nothing
readable).

>>> sorted(FIELDS)[:4]
['banker', 'bet', 'bull', 'category']
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from .errors import BullError

__all__ = [
    "FIELDS",
    "FieldStats",
    "Malformed",
    "NiuNiuChecker",
    "PokDengChecker",
    "TauNgauChecker",
    "VerifyReport",
    "cli_verify",
    "make_checker",
    "parse_card_hands",
    "parse_tile_hands",
    "verify_file",
]

# ---------------------------------------------------------------- fields and columns

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

MAX_LISTED = 100
"""Malformed rows and examples kept in the summary (all are counted)."""

_BOOL_WORDS = {
    "true": True,
    "false": False,
    "1": True,
    "0": False,
    "yes": True,
    "no": False,
    "t": True,
    "f": False,
    "y": True,
    "n": False,
}
NONE_WORDS = ("none", "null", "no_bull", "-", "[]", "n/a", "na")
"""Spellings of an explicit "nothing" (no bull, no score); an empty field is not a claim."""


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


# ---------------------------------------------------------------- reading


@dataclass
class Chunk:
    """One batch of rows: logical field → Arrow array, and each row's line number."""

    columns: dict[str, pa.Array]
    lines: npt.NDArray[np.int64]
    bad: list[tuple[int, str]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.lines)


def detect_format(path: str, fmt: str | None) -> str:
    """``csv``, ``jsonl`` or ``parquet`` from ``--format`` or the file extension.

    >>> detect_format("a.NDJSON", None), detect_format("x.dat", "csv")
    ('jsonl', 'csv')
    """
    if fmt:
        return fmt
    ext = Path(path).suffix.lower()
    if ext in (".csv", ".txt"):
        return "csv"
    if ext in (".jsonl", ".ndjson", ".json"):
        return "jsonl"
    if ext in (".parquet", ".pq"):
        return "parquet"
    raise BullError(
        f"cannot tell the format of {path} from its extension; pass --format csv|jsonl|parquet"
    )


def _open_check(path: str) -> None:
    try:
        with open(path, "rb"):
            pass
    except OSError as exc:
        raise BullError(f"cannot read claims file {path}: {exc.strerror}") from None


def read_chunks(
    path: str, fmt: str, explicit: Mapping[str, str], batch_size: int
) -> tuple[dict[str, str], str, Iterator[Chunk]]:
    """Open a claims file: ``(field → column, line label, iterator of chunks)``.

    Bad input that makes the whole file unreadable raises :class:`BullError`.
    """
    _open_check(path)
    if batch_size < 1:
        raise BullError(f"--batch-size must be positive, got {batch_size}")
    if fmt == "parquet":
        return _read_parquet(path, explicit, batch_size)
    if fmt == "csv":
        return _read_csv(path, explicit, batch_size)
    if fmt == "jsonl":
        return _read_jsonl(path, explicit, batch_size)
    raise BullError(f"unknown format {fmt!r} (expected csv, jsonl or parquet)")


def _read_parquet(
    path: str, explicit: Mapping[str, str], batch_size: int
) -> tuple[dict[str, str], str, Iterator[Chunk]]:
    try:
        pf = pq.ParquetFile(path)
    except (OSError, pa.ArrowException) as exc:
        raise BullError(f"cannot read {path} as Parquet: {str(exc).splitlines()[0]}") from None
    mapping = map_columns(pf.schema_arrow.names, explicit)

    def gen() -> Iterator[Chunk]:
        start = 1
        wanted = sorted(set(mapping.values()))
        try:
            for batch in pf.iter_batches(batch_size=batch_size, columns=wanted):
                n = batch.num_rows
                cols = {
                    k: batch.column(batch.schema.get_field_index(v)) for k, v in mapping.items()
                }
                yield Chunk(cols, np.arange(start, start + n, dtype=np.int64))
                start += n
        except (OSError, pa.ArrowException) as exc:
            raise BullError(
                f"{path}: unreadable Parquet data after row {start - 1}: {str(exc).splitlines()[0]}"
            ) from None

    return mapping, "row", gen()


def _read_csv(
    path: str, explicit: Mapping[str, str], batch_size: int
) -> tuple[dict[str, str], str, Iterator[Chunk]]:
    with open(path, "rb") as f:
        first = f.readline()
    try:
        header_text = first.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise BullError(f"{path} line 1: not UTF-8 text") from None
    header = next(csv.reader([header_text]), [])
    header = [h.strip() for h in header]
    if not header or not any(header):
        raise BullError(f"{path}: no header line (expected column names such as hand,points)")
    mapping = map_columns(header, explicit)
    skipped: list[int] = []
    bad: list[tuple[int, str]] = []

    def handler(row: Any) -> str:
        number = int(row.number) if row.number is not None else -1
        skipped.append(number)
        if (row.text or "").strip():
            bad.append(
                (number, f"has {row.actual_columns} fields, the header has {row.expected_columns}")
            )
        return "skip"

    names = header
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise BullError(f"{path}: the header names column {dup!r} twice")
    read_opts = pacsv.ReadOptions(
        use_threads=False, block_size=max(1 << 20, batch_size * 64), column_names=names, skip_rows=1
    )
    parse_opts = pacsv.ParseOptions(invalid_row_handler=handler, ignore_empty_lines=False)
    conv = pacsv.ConvertOptions(
        column_types={n: pa.string() for n in names},
        include_columns=sorted(set(mapping.values())),
        strings_can_be_null=False,
        quoted_strings_can_be_null=False,
    )
    try:
        reader = pacsv.open_csv(
            path, read_options=read_opts, parse_options=parse_opts, convert_options=conv
        )
    except (OSError, pa.ArrowException) as exc:
        raise BullError(f"cannot read {path} as CSV: {str(exc).splitlines()[0]}") from None

    def gen() -> Iterator[Chunk]:
        done = 0
        try:
            for batch in reader:
                for start in range(0, batch.num_rows, batch_size):
                    part = batch.slice(start, batch_size)
                    n = part.num_rows
                    k = np.arange(done, done + n, dtype=np.int64)
                    s = np.array(sorted(skipped), dtype=np.int64)
                    shifted = s - np.arange(len(s)) - 2
                    lines = k + 2 + np.searchsorted(shifted, k, side="right")
                    cols = {
                        key: part.column(part.schema.get_field_index(v))
                        for key, v in mapping.items()
                    }
                    chunk = Chunk(cols, lines, list(bad))
                    bad.clear()
                    done += n
                    yield chunk
        except (OSError, pa.ArrowException) as exc:
            msg = str(exc).splitlines()[0]
            raise BullError(f"{path}: unreadable CSV after line {done + 1}: {msg}") from None
        if bad:
            yield Chunk(
                {k: pa.array([], pa.string()) for k in mapping},
                np.zeros(0, dtype=np.int64),
                list(bad),
            )

    return mapping, "line", gen()


def _py_column(values: list[Any]) -> pa.Array:
    if not any(isinstance(v, dict) for v in values):
        try:
            return pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
            pass

    def text(v: Any) -> str | None:
        if v is None:
            return None
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, list):
            return " ".join(str(x) for x in v)
        if isinstance(v, dict):
            return json.dumps(v, sort_keys=True)
        return str(v)

    return pa.array([text(v) for v in values], type=pa.string())


_BLANK_LINE = re.compile(rb"\n[ \t\r]*\n")


def _jsonl_fast(lines: list[bytes]) -> pa.Table | None:
    """A block of JSON Lines read by Arrow at once, or ``None`` when the block needs the
    line-by-line reader (a blank or broken line, a value whose type changes)."""
    import pyarrow.json as pajson

    data = b"".join(lines)
    if not data.endswith(b"\n"):
        data += b"\n"
    if _BLANK_LINE.search(b"\n" + data):
        return None
    try:
        t = pajson.read_json(
            io.BytesIO(data),
            read_options=pajson.ReadOptions(
                use_threads=False, block_size=max(len(data) + 1, 1 << 20)
            ),
        )
    except (pa.ArrowException, ValueError):
        return None
    return t if t.num_rows == len(lines) else None


def _jsonl_slow(
    lines: list[bytes], start: int
) -> tuple[list[tuple[int, dict[str, Any]]], list[tuple[int, str]]]:
    rows: list[tuple[int, dict[str, Any]]] = []
    bad: list[tuple[int, str]] = []
    for k, raw in enumerate(lines):
        line = start + k
        stripped = raw.strip()
        if not stripped:
            continue
        try:
            obj = json.loads(stripped)
        except (ValueError, UnicodeDecodeError) as exc:
            bad.append((line, f"not valid JSON ({str(exc).split(':')[0]})"))
            continue
        if not isinstance(obj, dict):
            bad.append((line, "not a JSON object"))
            continue
        rows.append((line, obj))
    return rows, bad


def _read_jsonl(
    path: str, explicit: Mapping[str, str], batch_size: int
) -> tuple[dict[str, str], str, Iterator[Chunk]]:
    from itertools import islice

    f = open(path, "rb")  # noqa: SIM115 - closed by the generator
    first = list(islice(f, batch_size))
    table = _jsonl_fast(first) if first else None
    rows: list[tuple[int, dict[str, Any]]] = []
    bad: list[tuple[int, str]] = []
    if table is not None:
        keys = list(table.column_names)
    else:
        rows, bad = _jsonl_slow(first, 1)
        keys = list(dict.fromkeys(k for _, obj in rows for k in obj))
        if not rows:
            f.close()
            if not bad:
                raise BullError(f"{path}: no rows (an empty JSON Lines file)")
            raise BullError(
                f"{path}: nothing readable as JSON Lines (line {bad[0][0]}: {bad[0][1]})"
            )
    mapping = map_columns(keys, explicit)

    def chunk_of(
        lines: list[bytes],
        start: int,
        t: pa.Table | None,
        parsed: tuple[list[tuple[int, dict[str, Any]]], list[tuple[int, str]]] | None,
    ) -> Chunk:
        if t is not None:
            n = t.num_rows
            cols = {
                k: (
                    t.column(c).combine_chunks()
                    if c in t.column_names
                    else pa.nulls(n, pa.string())
                )
                for k, c in mapping.items()
            }
            return Chunk(cols, np.arange(start, start + n, dtype=np.int64))
        got, errs = parsed if parsed is not None else _jsonl_slow(lines, start)
        cols = {k: _py_column([obj.get(c) for _, obj in got]) for k, c in mapping.items()}
        return Chunk(cols, np.array([ln for ln, _ in got], dtype=np.int64), errs)

    def gen() -> Iterator[Chunk]:
        try:
            start = 1
            yield chunk_of(first, start, table, None if table is not None else (rows, bad))
            start += len(first)
            while True:
                lines = list(islice(f, batch_size))
                if not lines:
                    return
                yield chunk_of(lines, start, _jsonl_fast(lines), None)
                start += len(lines)
        finally:
            f.close()

    return mapping, "line", gen()


# ---------------------------------------------------------------- value parsing


@dataclass
class Parsed:
    """A claim column parsed: ``value`` where ``stated``; ``bad`` rows are malformed."""

    value: npt.NDArray[Any]
    stated: npt.NDArray[np.bool_]
    bad: npt.NDArray[np.bool_]
    messages: dict[int, str] = field(default_factory=dict)


def _is_text(t: pa.DataType) -> bool:
    return bool(pa.types.is_string(t) or pa.types.is_large_string(t))


def _clean_text(arr: pa.Array) -> tuple[pa.Array, npt.NDArray[np.bool_]]:
    """Trimmed, lower-cased text and the rows that state something (non-empty)."""
    if not _is_text(arr.type):
        arr = pc.cast(arr, pa.string())
    t = pc.utf8_lower(pc.utf8_trim_whitespace(arr))
    stated = pc.fill_null(pc.greater(pc.utf8_length(t), 0), False)
    return t, np.asarray(stated.to_numpy(zero_copy_only=False), dtype=bool)


def _lookup(
    text: pa.Array, table: Mapping[str, Any], dtype: Any, fill: Any
) -> tuple[npt.NDArray[Any], npt.NDArray[np.bool_]]:
    keys = list(table)
    idx = pc.index_in(text, value_set=pa.array(keys, pa.string()))
    found = np.asarray(pc.is_valid(idx).to_numpy(zero_copy_only=False), dtype=bool)
    vals = np.array([table[k] for k in keys] + [fill], dtype=dtype)
    pos = np.asarray(pc.fill_null(idx, len(keys)).to_numpy(zero_copy_only=False), dtype=np.int64)
    return vals[pos], found


def _text_lookup(
    arr: pa.Array, table: Mapping[str, Any], dtype: Any, fill: Any, label: bool = False
) -> tuple[npt.NDArray[Any], npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """``(value, found, stated)``: exact matches first; only the other rows are trimmed,
    lower-cased (and, for labels, spaces and dashes turned into ``_``)."""
    if not _is_text(arr.type):
        arr = pc.cast(arr, pa.string())
    vals, found = _lookup(arr, table, dtype, fill)
    stated = found.copy()
    rest = np.flatnonzero(~found & ~_nulls(arr))
    if len(rest):
        sub = pc.utf8_lower(pc.utf8_trim_whitespace(pc.take(arr, pa.array(rest))))
        if label:
            sub = pc.replace_substring_regex(sub, r"[\s\-]+", "_")
        st = np.asarray(
            pc.fill_null(pc.greater(pc.utf8_length(sub), 0), False).to_numpy(zero_copy_only=False),
            dtype=bool,
        )
        v2, f2 = _lookup(sub, table, dtype, fill)
        vals[rest], found[rest], stated[rest] = v2, f2, st
    return vals, found, stated


def _nulls(arr: pa.Array) -> npt.NDArray[np.bool_]:
    if arr.null_count == 0:
        return np.zeros(len(arr), dtype=bool)
    return np.asarray(arr.is_null().to_numpy(zero_copy_only=False), dtype=bool)


def parse_bool(arr: pa.Array, name: str) -> Parsed:
    """``true/false/yes/no/1/0`` (any case), or a boolean column."""
    n = len(arr)
    if pa.types.is_boolean(arr.type):
        stated = ~_nulls(arr)
        val = np.asarray(pc.fill_null(arr, False).to_numpy(zero_copy_only=False), dtype=bool)
        return Parsed(val, stated, np.zeros(n, dtype=bool))
    if pa.types.is_integer(arr.type):
        stated = ~_nulls(arr)
        v = np.asarray(pc.fill_null(arr, 0).to_numpy(zero_copy_only=False))
        bad = stated & (v != 0) & (v != 1)
        return Parsed(v == 1, stated & ~bad, bad, _messages(arr, bad, name, "true or false"))
    val, found, stated = _text_lookup(arr, _BOOL_WORDS, bool, False)
    bad = stated & ~found
    return Parsed(val, stated & found, bad, _messages(arr, bad, name, "true or false"))


def parse_int(arr: pa.Array, name: str, none_value: int | None = None) -> Parsed:
    """Integers (``none_value`` stands for the words of :data:`NONE_WORDS`, if given)."""
    n = len(arr)
    if pa.types.is_integer(arr.type):
        stated = ~_nulls(arr)
        v = np.asarray(pc.fill_null(arr, 0).to_numpy(zero_copy_only=False)).astype(np.int64)
        return Parsed(v, stated, np.zeros(n, dtype=bool))
    if pa.types.is_floating(arr.type):
        stated = ~_nulls(arr)
        f = np.asarray(pc.fill_null(arr, 0).to_numpy(zero_copy_only=False), dtype=np.float64)
        bad = stated & ((f != np.round(f)) | ~np.isfinite(f))
        v = np.where(bad, 0, f).astype(np.int64)
        return Parsed(v, stated & ~bad, bad, _messages(arr, bad, name, "an integer"))
    if pa.types.is_boolean(arr.type):
        stated = ~_nulls(arr)
        return Parsed(
            np.zeros(n, np.int64),
            np.zeros(n, bool),
            stated,
            _messages(arr, stated, name, "an integer"),
        )
    text, stated = _clean_text(arr)
    digits = pc.match_substring_regex(text, r"^[+-]?\d{1,9}(\.0*)?$")
    ok = np.asarray(pc.fill_null(digits, False).to_numpy(zero_copy_only=False), dtype=bool)
    v = np.zeros(n, dtype=np.int64)
    if ok.any():
        sel = pa.array(np.flatnonzero(ok))
        nums = pc.cast(pc.cast(pc.take(text, sel), pa.float64()), pa.int64())
        v[ok] = np.asarray(nums.to_numpy(zero_copy_only=False), dtype=np.int64)
    none = np.zeros(n, dtype=bool)
    if none_value is not None:
        _, none = _lookup(text, dict.fromkeys(NONE_WORDS, 0), np.int64, 0)
        v[none] = none_value
    bad = stated & ~ok & ~none
    return Parsed(v, stated & ~bad, bad, _messages(arr, bad, name, "an integer"))


def parse_float(arr: pa.Array, name: str) -> Parsed:
    """Numbers (net stakes, commissions)."""
    n = len(arr)
    if pa.types.is_integer(arr.type) or pa.types.is_floating(arr.type):
        stated = ~_nulls(arr)
        v = np.asarray(
            pc.fill_null(pc.cast(arr, pa.float64()), 0.0).to_numpy(zero_copy_only=False),
            dtype=np.float64,
        )
        bad = stated & ~np.isfinite(v)
        return Parsed(v, stated & ~bad, bad, _messages(arr, bad, name, "a number"))
    text, stated = _clean_text(arr)
    ok_arr = pc.match_substring_regex(text, r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
    ok = np.asarray(pc.fill_null(ok_arr, False).to_numpy(zero_copy_only=False), dtype=bool)
    v = np.zeros(n, dtype=np.float64)
    if ok.any():
        sel = pa.array(np.flatnonzero(ok))
        v[ok] = np.asarray(
            pc.cast(pc.take(text, sel), pa.float64()).to_numpy(zero_copy_only=False),
            dtype=np.float64,
        )
    bad = stated & ~ok
    return Parsed(v, stated & ~bad, bad, _messages(arr, bad, name, "a number"))


def parse_label(arr: pa.Array, name: str, labels: Mapping[str, int]) -> Parsed:
    """A label from ``labels`` (normalised: lower case, spaces and dashes as ``_``)."""
    val, found, stated = _text_lookup(arr, labels, np.int64, -1, label=True)
    bad = stated & ~found
    want = "one of " + ", ".join(
        sorted({k for k, v in labels.items() if _canonical_label(labels, v) == k})
    )
    return Parsed(val, stated & found, bad, _messages(arr, bad, name, want))


def _canonical_label(labels: Mapping[str, int], value: int) -> str:
    return next(k for k, v in labels.items() if v == value)


def _messages(arr: pa.Array, bad: npt.NDArray[np.bool_], name: str, want: str) -> dict[int, str]:
    out: dict[int, str] = {}
    for i in np.flatnonzero(bad)[:MAX_LISTED].tolist():
        out[i] = f"{name} {_show(arr[i].as_py())}: expected {want}"
    return out


def _show(v: Any) -> str:
    s = json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else repr(v)
    return s if len(s) <= 60 else s[:57] + "..."


# ---------------------------------------------------------------- hands

PAD = 255
"""Filler after the last item of a short hand (Pok Deng two-card hands)."""

_CARD_RANKS = {
    "A": 0,
    "2": 1,
    "3": 2,
    "4": 3,
    "5": 4,
    "6": 5,
    "7": 6,
    "8": 7,
    "9": 8,
    "10": 9,
    "T": 9,
    "J": 10,
    "Q": 11,
    "K": 12,
}
_CARD_SUITS = {"S": 0, "H": 1, "D": 2, "C": 3}
_CARD_TOKENS: dict[str, int] = {
    rr + ss: rv * 4 + sv
    for r, rv in _CARD_RANKS.items()
    for s, sv in _CARD_SUITS.items()
    for rr in sorted({r, r.lower()})
    for ss in (s, s.lower())
}
_CARD_KEYS = pa.array(list(_CARD_TOKENS), pa.string())
_CARD_IDS = np.array(list(_CARD_TOKENS.values()), dtype=np.uint8)


def _fast_cards(
    text: pa.Array, sizes: tuple[int, ...]
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
    """Vectorised read of hands written as white-space separated card names in the
    common spellings; rows it cannot read (``ok`` false) go to the slow parser."""
    sp = pc.ascii_split_whitespace(text)
    lens = np.asarray(
        pc.fill_null(pc.list_value_length(sp), 0).to_numpy(zero_copy_only=False), dtype=np.int64
    )
    idx = pc.index_in(sp.flatten(), value_set=_CARD_KEYS)
    return _gather_tokens(lens, idx, _CARD_IDS, sizes)


def _gather_tokens(
    lens: npt.NDArray[np.int64], idx: pa.Array, table: npt.NDArray[np.uint8], sizes: tuple[int, ...]
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
    m = len(lens)
    width = max(sizes)
    filled = pc.fill_null(idx, 0) if idx.null_count else idx
    pos = np.asarray(filled.to_numpy(zero_copy_only=False))
    vals = table[pos]
    ids = np.full((m, width), PAD, dtype=np.uint8)
    size = np.zeros(m, dtype=np.int8)
    if idx.null_count == 0 and len(sizes) == 1 and np.all(lens == sizes[0]):
        ids[:, :] = vals.reshape(m, width)
        size[:] = width
        return ids, size, np.ones(m, dtype=bool)
    ok = np.isin(lens, sizes)
    if idx.null_count:
        unknown = ~np.asarray(pc.is_valid(idx).to_numpy(zero_copy_only=False), dtype=bool)
        row_of = np.repeat(np.arange(m), lens)
        ok &= np.bincount(row_of[unknown], minlength=m) == 0
    starts = np.cumsum(lens) - lens
    for k in sizes:
        rows = np.flatnonzero(ok & (lens == k))
        if len(rows):
            ids[rows, :k] = vals[starts[rows][:, None] + np.arange(k)]
            size[rows] = k
    return ids, size, ok


def _slow_cards(value: Any, sizes: tuple[int, ...]) -> list[int]:
    from .cards import parse_card, parse_cards, parse_hand

    if isinstance(value, str):
        parse_hand(value, size=sizes)  # names the bad card, the duplicate or the count
        return parse_cards(value)
    if isinstance(value, list):
        parse_hand(value, size=sizes)
        return [v if isinstance(v, int) else parse_card(v) for v in value]
    raise BullError(f"not a hand: {_show(value)}")


@dataclass
class Hands:
    """Parsed hands: ``ids`` in the order written (:data:`PAD` after a short hand),
    ``size`` per row; ``stated`` rows are non-empty, ``bad`` ones malformed (with a
    message), ``none`` ones an explicit "nothing" (e.g. no bull)."""

    ids: npt.NDArray[np.uint8]
    size: npt.NDArray[np.int8]
    stated: npt.NDArray[np.bool_]
    bad: npt.NDArray[np.bool_]
    none: npt.NDArray[np.bool_]
    messages: dict[int, str]
    sorted: npt.NDArray[np.uint8] | None = None


class _LazyColumn:
    """``column[index]`` gathered one element at a time, on demand."""

    def __init__(self, column: npt.NDArray[Any], index: npt.NDArray[np.integer]) -> None:
        self.column = column
        self.index = index

    def __getitem__(self, i: int) -> Any:
        return self.column[self.index[i]]


def parse_items(
    arr: pa.Array,
    sizes: tuple[int, ...],
    kind: str,
    fast: Callable[
        [pa.Array, tuple[int, ...]],
        tuple[npt.NDArray[np.uint8], npt.NDArray[np.int8], npt.NDArray[np.bool_]],
    ],
    slow: Callable[[Any, tuple[int, ...]], list[int]],
    item: str = "card",
    allow_none: bool = False,
) -> Hands:
    """Parse a column of hands of ``sizes`` items (cards or tiles).

    ``fast`` reads the common spellings of a text column at once (its ``ok`` rows);
    the other rows go to ``slow``, one at a time, whose :class:`BullError` message makes
    the row malformed.
    """
    n = len(arr)
    width = max(sizes)
    text = _joined_text(arr)
    trimmed = None
    if text is not None:
        ids, size, done = fast(text, sizes)
        stated = done.copy()
        rest = np.flatnonzero(~done)
        if len(rest):
            trimmed = pc.utf8_trim_whitespace(pc.take(text, pa.array(rest)))
            stated[rest] = np.asarray(
                pc.fill_null(pc.greater(pc.utf8_length(trimmed), 0), False).to_numpy(
                    zero_copy_only=False
                ),
                dtype=bool,
            )
    else:
        ids = np.full((n, width), PAD, dtype=np.uint8)
        size = np.zeros(n, dtype=np.int8)
        done = np.zeros(n, dtype=bool)
        lens = np.asarray(
            pc.fill_null(pc.list_value_length(arr), 0).to_numpy(zero_copy_only=False),
            dtype=np.int64,
        )
        stated = ~_nulls(arr) & (lens > 0)
        if item == "card" and stated.any():  # ids in our encoding, read at once
            flat = arr.flatten()
            vals = np.asarray(
                pc.fill_null(flat, 255).to_numpy(zero_copy_only=False), dtype=np.int64
            )
            bad_val = (vals < 0) | (vals > 51)
            row_of = np.repeat(np.arange(n), np.where(_nulls(arr), 0, lens))
            ok = stated & np.isin(lens, sizes) & (np.bincount(row_of[bad_val], minlength=n) == 0)
            starts = np.cumsum(np.where(_nulls(arr), 0, lens)) - np.where(_nulls(arr), 0, lens)
            for k in sizes:
                rows = np.flatnonzero(ok & (lens == k))
                if len(rows):
                    ids[rows, :k] = vals[starts[rows][:, None] + np.arange(k)].astype(np.uint8)
                    size[rows] = k
                    done[rows] = True
    slow_rows = stated & ~done
    none = np.zeros(n, dtype=bool)
    if allow_none and trimmed is not None and slow_rows.any():
        _, nw = _lookup(pc.utf8_lower(trimmed), dict.fromkeys(NONE_WORDS, 0), np.int64, 0)
        none[np.flatnonzero(~done)] = nw
        none &= slow_rows
        slow_rows &= ~none
    bad = np.zeros(n, dtype=bool)
    messages: dict[int, str] = {}
    for i in np.flatnonzero(slow_rows).tolist():
        try:
            items = slow(arr[i].as_py(), sizes)
        except BullError as exc:
            bad[i] = True
            if len(messages) < MAX_LISTED:
                messages[i] = f"{kind}: {exc}"
            continue
        ids[i, : len(items)] = items
        size[i] = len(items)
    srt = None
    if done.any():  # repeated items within a fast-read row (PAD sorts last)
        from .indexing import sort_columns

        cols = sort_columns([ids[:, j] for j in range(width)])
        dup = np.zeros(n, dtype=bool)
        for j in range(width - 1):
            dup |= (cols[j] == cols[j + 1]) & (cols[j] != PAD)
        dup &= done
        for i in np.flatnonzero(dup).tolist():
            bad[i] = True
            if len(messages) < MAX_LISTED:
                messages[i] = f"{kind}: {_dup_message(ids[i], item)}"
        srt = np.stack(cols, axis=1)  # every row's final ids, sorted
    return Hands(ids, size, stated, bad, none, messages, srt)


def _dup_message(row: npt.NDArray[np.uint8], item: str) -> str:
    from .cards import CARD_NAMES

    vals = [c for c in row.tolist() if c != PAD]
    d = next(c for c in vals if vals.count(c) > 1)
    return f"duplicate {item} {CARD_NAMES[d] if item == 'card' else d}"


def _joined_text(arr: pa.Array) -> pa.Array | None:
    """A string column for text or list-of-text columns (``None`` for lists of ids)."""
    t = arr.type
    if _is_text(t):
        return arr
    if pa.types.is_dictionary(t):
        return _joined_text(pc.cast(arr, t.value_type))
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        if _is_text(t.value_type):
            joined = pc.binary_join(arr, " ")
            return joined if _is_text(joined.type) else pc.cast(joined, pa.string())
        if pa.types.is_integer(t.value_type) or pa.types.is_null(t.value_type):
            return None
    if pa.types.is_null(t):
        return pa.array([None] * len(arr), pa.string())
    raise BullError(f"a hand column has type {t}; expected text or a list of names")


def parse_card_hands(
    arr: pa.Array, sizes: tuple[int, ...], kind: str = "hand", allow_none: bool = False
) -> Hands:
    """Card hands in any accepted spelling (RULES §2), as ids in the order written.

    >>> h = parse_card_hands(pa.array(["AS 10H 3C 7D KS", "AS AS 2C 3D 4H", None]), (5,))
    >>> h.ids[0].tolist(), h.bad.tolist(), h.stated.tolist()
    ([0, 37, 11, 26, 48], [False, True, False], [True, True, False])
    >>> h.messages[1]
    'hand: duplicate card AS'
    """
    return parse_items(arr, sizes, kind, _fast_cards, _slow_cards, "card", allow_none)


# ---------------------------------------------------------------- results


@dataclass(frozen=True)
class FieldStats:
    """Per claimed field: how many rows agree, disagree, or do not state it."""

    agree: int = 0
    disagree: int = 0
    not_stated: int = 0
    kinds: tuple[tuple[str, int], ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "agree": self.agree,
            "disagree": self.disagree,
            "not_stated": self.not_stated,
        }
        if self.kinds:
            out["kinds"] = dict(self.kinds)
        return out


@dataclass(frozen=True)
class Malformed:
    """A row that could not be read: its line (or Parquet row) number and why."""

    line: int
    message: str


@dataclass(frozen=True)
class VerifyReport:
    """The summary of one ``bull verify`` run."""

    game: str
    rules: str
    file: str
    line_label: str
    rows: int
    checked: int
    agree: int
    disagree: int
    malformed: int
    malformed_rows: tuple[Malformed, ...]
    fields: tuple[tuple[str, FieldStats], ...]
    diagnosis: tuple[Any, ...]
    cover: tuple[Any, ...]
    headline: str
    examples: tuple[dict[str, Any], ...]
    diagnosed: int

    @property
    def exit_code(self) -> int:
        return 0 if self.disagree == 0 and self.malformed == 0 else 1

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "rules": self.rules,
            "file": self.file,
            "rows": self.rows,
            "checked": self.checked,
            "agree": self.agree,
            "disagree": self.disagree,
            "malformed": self.malformed,
            "numbering": self.line_label,
            "malformed_rows": [{"line": m.line, "message": m.message} for m in self.malformed_rows],
            "by_field": {k: v.disagree for k, v in self.fields},
            "fields": {k: v.to_json() for k, v in self.fields},
            "diagnosis": [d.to_json() for d in self.diagnosis],
            "cover": [d.to_json() for d in self.cover],
            "headline": self.headline,
            "diagnosed": self.diagnosed,
            "examples": list(self.examples),
            "exit": self.exit_code,
        }

    def text(self) -> str:
        lab = self.line_label
        lines = [
            f"verify {self.game} {self.file} (rules {self.rules})",
            f"rows read {self.rows}, checked {self.checked}, agree {self.agree}, "
            f"disagree {self.disagree}, malformed {self.malformed}",
        ]
        if self.fields:
            lines.append(f"  {'field':<10} {'agree':>10} {'disagree':>10} {'not stated':>11}")
            for k, v in self.fields:
                extra = ""
                if v.kinds:
                    extra = "  (" + ", ".join(f"{n} {c}" for n, c in v.kinds) + ")"
                lines.append(f"  {k:<10} {v.agree:>10} {v.disagree:>10} {v.not_stated:>11}" + extra)
        if self.malformed:
            lines.append(f"malformed rows ({self.malformed}):")
            for m in self.malformed_rows[:20]:
                lines.append(f"  {lab} {m.line}: {m.message}")
            if self.malformed > 20:
                lines.append(f"  ... {self.malformed - 20} more")
        if self.examples:
            lines.append(f"disagreements (first {min(len(self.examples), 20)}):")
            for ex in self.examples[:20]:
                sep = "" if self.game == "taungau" else " "
                what = (
                    sep.join(ex["hand"])
                    if "hand" in ex
                    else f"{sep.join(ex.get('player', []))} vs "
                    f"{sep.join(ex.get('banker', ex.get('dealer', [])))}"
                )
                lines.append(f"  {lab} {ex['line']}: {what}: {ex['reason']}")
        if self.disagree:
            lines.append("diagnosis: " + self.headline)
            for d in self.diagnosis[:10]:
                lines.append(
                    f"  {d.explains:>8} of {self.diagnosed}  {d.description}"
                    + (
                        f"  (would contradict {d.contradicts} agreeing rows)"
                        if d.contradicts
                        else ""
                    )
                )
        lines.append(
            "result: "
            + (
                "all claims agree"
                if self.exit_code == 0
                else "disagreements found"
                if self.disagree
                else "malformed rows found"
            )
        )
        return "\n".join(lines)


# ---------------------------------------------------------------- checking, game-neutral


@dataclass
class Checked:
    """One batch of rows of one kind (``hand`` or ``showdown``), checked.

    ``rows``: positions in the chunk of the well-formed rows; per field, ``stated`` and
    ``agree`` masks over those rows (and optional ``kinds`` of disagreement). The game
    object behind it answers the questions the run asks about variants and reasons.
    """

    mode: str
    rows: npt.NDArray[np.int64]
    bad_rows: npt.NDArray[np.int64]
    messages: dict[int, str]
    stated: dict[str, npt.NDArray[np.bool_]]
    agree: dict[str, npt.NDArray[np.bool_]]
    kinds: dict[str, dict[str, npt.NDArray[np.bool_]]]
    variant_agree: Callable[[Any, npt.NDArray[np.int64]], npt.NDArray[np.bool_]]
    record: Callable[[int], dict[str, Any]]
    interesting: npt.NDArray[np.bool_]

    @property
    def disagree(self) -> npt.NDArray[np.bool_]:
        out = np.zeros(len(self.rows), dtype=bool)
        for f, st in self.stated.items():
            out |= st & ~self.agree[f]
        return out


def _empty_messages(hands: Hands, kind: str) -> dict[int, str]:
    """The parse messages, plus "empty" for rows that state no hand at all."""
    out = dict(hands.messages)
    for i in np.flatnonzero(~hands.stated)[:MAX_LISTED].tolist():
        out[i] = f"{kind}: empty"
    return out


def _merge_bad(
    n: int, parts: Sequence[tuple[npt.NDArray[np.bool_], Mapping[int, str]]]
) -> tuple[npt.NDArray[np.bool_], dict[int, str]]:
    bad = np.zeros(n, dtype=bool)
    messages: dict[int, str] = {}
    for mask, msgs in parts:
        bad |= mask
        for i, m in msgs.items():
            messages.setdefault(i, m)
    for i in np.flatnonzero(bad)[:MAX_LISTED].tolist():
        messages.setdefault(i, "malformed")
    return bad, messages


def _blank(columns: Mapping[str, pa.Array], n: int) -> npt.NDArray[np.bool_]:
    """Rows where every mapped column is empty (e.g. a blank CSV line): ignored."""
    empty = np.ones(n, dtype=bool)
    for arr in columns.values():
        if _is_text(arr.type):
            st = np.asarray(
                pc.fill_null(
                    pc.greater(pc.utf8_length(pc.utf8_trim_whitespace(arr)), 0), False
                ).to_numpy(zero_copy_only=False),
                dtype=bool,
            )
        else:
            st = ~_nulls(arr)
        empty &= ~st
    return empty


def _take(columns: Mapping[str, pa.Array], rows: npt.NDArray[np.int64]) -> dict[str, pa.Array]:
    idx = pa.array(rows, pa.int64())
    return {
        k: (
            v
            if len(rows) == len(v) and np.array_equal(rows, np.arange(len(v)))
            else pc.take(v, idx)
        )
        for k, v in columns.items()
    }


def _value_names(cards: Sequence[int]) -> list[str]:
    from .cards import RANK_NAMES

    return [RANK_NAMES[c >> 2] for c in cards]


def _nn_value(c: int) -> int:
    return min((c >> 2) + 1, 10)


# ---------------------------------------------------------------- Niu Niu


def _nn_labels() -> dict[str, int]:
    from .niuniu import Category

    labels = {c.label: int(c) for c in Category}
    labels |= {
        "niu_0": 0,
        "no_niu": 0,
        "nobull": 0,
        "none": 0,
        "niu_10": 10,
        "niuniu": 10,
        "bull_bull": 10,
    }
    labels |= {f"niu{k}": k for k in range(1, 10)} | {f"bull_{k}": k for k in range(1, 10)}
    return labels


def _nn_special_why_not(special: str, cards: Sequence[int], rules: Any) -> str:
    ranks = [c >> 2 for c in cards]
    values = [_nn_value(c) for c in cards]
    faces = sum(r >= 10 for r in ranks)
    total = sum(values)
    if special not in rules.specials:
        return f"{special} does not count under {rules.name}"
    if special == "five_faces":
        return f"only {faces} of the cards are J/Q/K"
    if special == "four_faces":
        if faces != 4:
            return f"{faces} of the cards are J/Q/K, not 4"
        fifth = next(c for c in cards if c >> 2 < 10)
        return f"the fifth card is {_value_names([fifth])[0]}, not a 10"
    if special == "four_of_a_kind":
        return "no four cards of one rank"
    if special == "straight_flush":
        return "not five consecutive ranks in one suit"
    if special == "five_small_bull":
        big = [n for n, r in zip(_value_names(cards), ranks, strict=True) if r > 3]
        if big and rules.five_small_bull_max_rank == "4":
            return f"{big[0]} is above 4"
        limit = "<= 10" if rules.five_small_bull_total == "at_most_10" else "< 10"
        return f"the total {total} is not {limit}"
    return f"not {special}"


def _nn_why(cat: int, cards: Sequence[int], bull_mask: int, rules: Any) -> str:
    from .niuniu import Category

    names = _value_names(cards)
    label = Category(cat).label
    ranks = [c >> 2 for c in cards]
    if cat == Category.FIVE_FACES:
        return "five_faces: all five cards J/Q/K"
    if cat == Category.FOUR_FACES:
        return "four_faces: four J/Q/K and one 10"
    if cat == Category.FOUR_OF_A_KIND:
        quad = max(set(ranks), key=ranks.count)
        return f"four_of_a_kind: four {names[ranks.index(quad)]}s"
    if cat == Category.STRAIGHT_FLUSH:
        return (
            f"straight_flush: {names[ranks.index(min(ranks))]} to "
            f"{names[ranks.index(max(ranks))]} in one suit"
        )
    if cat == Category.FIVE_SMALL_BULL:
        return f"five_small_bull: every card A..4, total {sum(_nn_value(c) for c in cards)}"
    if cat == Category.NO_BULL:
        return (
            f"no_bull: no three of {' '.join(sorted(names, key=_rank_key))} sum to a multiple of 10"
        )
    return f"{label}: {_nn_bull_text(cards, bull_mask)}"


def _rank_key(name: str) -> int:
    from .cards import RANK_NAMES

    return RANK_NAMES.index(name)


def _nn_bull_text(cards: Sequence[int], bull_mask: int) -> str:
    """``'A+2+7 = 10 is the bull, 4+9 = 13 → points 3'`` for sorted ``cards``."""
    names = _value_names(cards)
    bull = [i for i in range(5) if bull_mask >> i & 1]
    rest = [i for i in range(5) if not bull_mask >> i & 1]
    bsum = sum(_nn_value(cards[i]) for i in bull)
    rsum = sum(_nn_value(cards[i]) for i in rest)
    pts = (rsum - 1) % 10 + 1
    return (
        f"{'+'.join(names[i] for i in bull)} = {bsum} is a bull, "
        f"{'+'.join(names[i] for i in rest)} = {rsum}, points {pts}"
    )


class NiuNiuChecker:
    """Checks Niu Niu claims: table lookups for presets, the evaluator for rule files."""

    game = "niuniu"
    fields: ClassVar[dict[str, tuple[str, ...]]] = {
        "hand": ("has_bull", "points", "category", "bull"),
        "showdown": ("winner", "net"),
    }

    def __init__(self, rules: Any, options: Mapping[str, Any], tables: str | None) -> None:
        from .diagnose import niuniu_catalogue
        from .niuniu import PRESETS, load_rules

        self.rules = load_rules(rules)
        self.options = dict(options)
        self.bet = self.rules.bet(self.options.get("bet"))
        comm = self.options.get("commission")
        if comm is not None and not 0 <= comm < 1:
            raise BullError(f"commission {comm!r} must be a fraction in [0, 1), e.g. 0.05")
        self.commission = self.rules.commission if comm is None else float(comm)
        self.tables = tables
        self.preset = self.rules.name in PRESETS and self.rules == load_rules(self.rules.name)
        self._cols: dict[str, npt.NDArray[Any]] | None = None
        self.labels = _nn_labels()
        self.variants = niuniu_catalogue(self.rules, "all", bet=self.bet)

    def prepare(self) -> None:
        """Load what the worker threads share (the table columns) before they start."""
        if self.preset:
            self._table()

    # -- answers
    def _table(self) -> dict[str, npt.NDArray[Any]]:
        if self._cols is None:
            from .tables import open_table

            t = open_table("niuniu", self.tables)
            if t.rules.get(self.rules.name) != self.rules.to_data():
                from .errors import TableError

                raise TableError(
                    f"table niuniu was built with other {self.rules.name!r} rules "
                    "than this solver's; rebuild with `bull build`"
                )
            name = self.rules.name
            has, pts, cat = (t.column("has_bull"), t.column("points"), t.column(f"{name}_category"))
            # one gather per hand instead of three: bull | points << 1 | category << 5
            packed = (
                has.astype(np.uint16) | (pts.astype(np.uint16) << 1) | (cat.astype(np.uint16) << 5)
            )
            self._cols = {"packed": packed, "bull_mask": t.column("bull_mask")}
        return self._cols

    def answers(
        self, cards: npt.NDArray[np.uint8], srt: npt.NDArray[np.uint8] | None = None
    ) -> dict[str, npt.NDArray[Any]]:
        """Our ``has_bull``, ``points`` and ``category`` for hands (n, 5) in input order,
        with the ``sorted`` cards and a ``row`` function for the rest of a row
        (``bull_mask``, ``strength``)."""
        from .indexing import batch_lookup, sort_columns

        if srt is None:
            srt = np.stack(sort_columns([cards[:, i] for i in range(5)]), axis=1)
        if self.preset:
            cols = self._table()
            packed, ranks = batch_lookup(srt, [cols["packed"]], check=False, with_rank=True)
            out: dict[str, Any] = {
                "has_bull": (packed & 1).astype(bool),
                "points": (packed >> 1) & 15,
                "category": packed >> 5,
            }
            out["bull_mask"] = _LazyColumn(cols["bull_mask"], ranks)
        else:
            from .niuniu import evaluate_arrays

            ev = evaluate_arrays(srt, self.rules)
            out = {k: ev[k] for k in ("has_bull", "points", "bull_mask", "category")}
        out["sorted"] = srt
        return out

    # -- hand rows
    def check_hands(self, cols: Mapping[str, pa.Array]) -> Checked:
        from .diagnose import niuniu_hand_answers

        n = len(cols["hand"])
        hands = parse_card_hands(cols["hand"], (5,))
        parts: list[tuple[npt.NDArray[np.bool_], Mapping[int, str]]] = [
            (hands.bad | ~hands.stated, _empty_messages(hands, "hand"))
        ]
        claims: dict[str, Any] = {}
        if "has_bull" in cols:
            claims["has_bull"] = parse_bool(cols["has_bull"], "has_bull")
        if "points" in cols:
            claims["points"] = parse_int(cols["points"], "points", none_value=0)
        if "category" in cols:
            claims["category"] = parse_label(cols["category"], "category", self.labels)
        for p in claims.values():
            parts.append((p.bad, p.messages))
        bull = None
        if "bull" in cols:
            bull = parse_card_hands(cols["bull"], (3,), "bull", allow_none=True)
            parts.append((bull.bad, bull.messages))
        bad, messages = _merge_bad(n, parts)
        rows = np.flatnonzero(~bad)
        cards = hands.ids[rows]
        ans = self.answers(cards, None if hands.sorted is None else hands.sorted[rows])
        stated = {f: p.stated[rows] for f, p in claims.items()}
        cv = {f: p.value[rows] for f, p in claims.items()}
        bull_ids = bull_valid = None
        if bull is not None:
            stated["bull"] = bull.stated[rows]
            bull_ids = bull.ids[rows]
            bull_none = bull.none[rows]
            in_hand = (bull_ids[:, :, None] == cards[:, None, :]).any(axis=2).all(axis=1)
            vals = np.minimum((bull_ids.astype(np.int64) >> 2) + 1, 10).sum(axis=1)
            bull_valid = in_hand & (vals % 10 == 0) & ~bull_none

        def agree(
            a: Mapping[str, npt.NDArray[Any]], sel: Any = slice(None)
        ) -> dict[str, npt.NDArray[np.bool_]]:
            out: dict[str, npt.NDArray[np.bool_]] = {}
            if "has_bull" in cv:
                out["has_bull"] = cv["has_bull"][sel] == a["has_bull"]
            if "points" in cv:
                out["points"] = cv["points"][sel] == a["points"]
            if "category" in cv:
                out["category"] = cv["category"][sel] == a["category"]
            if bull_ids is not None and bull_valid is not None:
                forb = a.get("forbidden")
                ok = bull_valid[sel].copy()
                if forb is not None:
                    ok &= ~(bull_ids[sel] == np.asarray(forb)[:, None]).any(axis=1)
                if "points" in cv:  # a valid bull reaching the claimed score (RULES §8)
                    ok &= ~stated["points"][sel] | (cv["points"][sel] == a["points"])
                out["bull"] = np.where(bull_none[sel], ~np.asarray(a["has_bull"], bool), ok)
            return out

        base_agree = agree(ans)

        def variant_agree(variant: Any, sel: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
            va = niuniu_hand_answers(cards[sel], self.rules, variant)
            res = agree(va, sel)
            ok = np.ones(len(sel), dtype=bool)
            for f, m in res.items():
                ok &= ~stated[f][sel] | m
            return ok

        srt = ans["sorted"]
        # special-ish hands, where the special-hand variants can differ: every card
        # small (a total <= 10 needs all ranks <= 6), four faces, four of a kind, a flush
        r0, r1, r3, r4 = (srt[:, j] >> 2 for j in (0, 1, 3, 4))
        s0 = srt[:, 0] & 3
        flush = (
            ((srt[:, 1] & 3) == s0)
            & ((srt[:, 2] & 3) == s0)
            & ((srt[:, 3] & 3) == s0)
            & ((srt[:, 4] & 3) == s0)
        )
        interesting = (r4 <= 5) | (r1 >= 10) | (r0 == r3) | (r1 == r4) | flush

        def record(i: int) -> dict[str, Any]:
            return self._hand_record(i, cards, ans, cv, stated, base_agree, bull_ids)

        return Checked(
            "hand",
            rows,
            np.flatnonzero(bad),
            messages,
            stated,
            base_agree,
            {},
            variant_agree,
            record,
            interesting,
        )

    def _hand_record(
        self,
        i: int,
        cards: npt.NDArray[np.uint8],
        ans: Mapping[str, npt.NDArray[Any]],
        cv: Mapping[str, Any],
        stated: Mapping[str, npt.NDArray[np.bool_]],
        agree: Mapping[str, npt.NDArray[np.bool_]],
        bull_ids: npt.NDArray[np.uint8] | None,
    ) -> dict[str, Any]:
        from .cards import hand_names
        from .niuniu import Category

        srt = [int(c) for c in ans["sorted"][i]]
        mask = int(ans["bull_mask"][i])
        has = bool(ans["has_bull"][i])
        pts = int(ans["points"][i])
        cat = int(ans["category"][i])
        correct = {
            "has_bull": has,
            "points": pts,
            "category": Category(cat).label,
            "bull": hand_names([srt[p] for p in range(5) if mask >> p & 1]) if has else None,
        }
        claimed: dict[str, Any] = {}
        reasons: list[str] = []
        fields = [f for f in stated if stated[f][i] and not agree[f][i]]
        bull_text = _nn_bull_text(srt, mask) if has else ""
        names = " ".join(_value_names(srt))
        for f in stated:
            if not stated[f][i]:
                continue
            if f == "bull" and bull_ids is not None:
                b = [int(c) for c in bull_ids[i] if c != PAD]
                claimed[f] = hand_names(b) if b else None
            else:
                v = cv[f][i]
                claimed[f] = (
                    bool(v)
                    if f == "has_bull"
                    else Category(int(v)).label
                    if f == "category" and 0 <= v < len(Category)
                    else int(v)
                )
        said: list[str] = []
        for f in fields:
            if f == "has_bull":
                said.append("no_bull" if not claimed[f] else "a bull")
            elif f == "points":
                said.append(f"points {claimed[f]}")
            elif f == "category":
                c = int(cv["category"][i])
                text = f"category {claimed[f]}"
                if c >= Category.FIVE_FACES and c != cat:
                    special = Category(c).label
                    if special in self.rules.specials and self._qualifies(special, srt):
                        text += f" ({Category(cat).label} ranks above it under {self.rules.name})"
                    else:
                        text += f" ({_nn_special_why_not(special, srt, self.rules)})"
                said.append(text)
            elif f == "bull":
                cb = claimed.get("bull")
                if cb is None:
                    said.append("bull none")
                    continue
                b = sorted(int(c) for c in bull_ids[i] if c != PAD) if bull_ids is not None else []
                missing = [c for c in b if c not in srt]
                if missing:
                    said.append(
                        f"bull {' '.join(cb)} ({hand_names(missing)[0]} is not in the hand)"
                    )
                else:
                    s = sum(_nn_value(c) for c in b)
                    said.append(
                        f"bull {' '.join(cb)} ({'+'.join(_value_names(b))} = {s} is "
                        "not a multiple of 10)"
                    )
        ours: list[str] = []
        if any(f in fields for f in ("has_bull", "points", "bull")) or (
            "category" in fields and cat <= Category.NIU_NIU
        ):
            ours.append(
                bull_text if has else f"no three of {names} sum to a multiple of 10, points 0"
            )
        if "category" in fields and (
            cat > Category.NIU_NIU or int(cv["category"][i]) > Category.NIU_NIU
        ):
            ours.append("it is " + _nn_why(cat, srt, mask, self.rules))
        elif "category" in fields:
            ours.append(f"category {Category(cat).label}")
        reasons = [f"claimed {', '.join(said)}; {'; '.join(ours)}"]
        return {
            "hand": hand_names(srt),
            "fields": fields,
            "claimed": claimed,
            "correct": correct,
            "reason": "; ".join(dict.fromkeys(reasons)),
        }

    def _qualifies(self, special: str, srt: Sequence[int]) -> bool:
        from .niuniu import evaluate_arrays

        ev = evaluate_arrays(np.array([srt], dtype=np.uint8), self.rules)
        return bool(ev[special][0])

    # -- showdown rows
    def check_showdowns(self, cols: Mapping[str, pa.Array]) -> Checked:
        from .diagnose import niuniu_showdown_answers

        n = len(cols["player"])
        player = parse_card_hands(cols["player"], (5,), "player")
        banker = parse_card_hands(cols["banker"], (5,), "banker")
        parts: list[tuple[npt.NDArray[np.bool_], Mapping[int, str]]] = [
            (player.bad | ~player.stated, player.messages),
            (banker.bad | ~banker.stated, banker.messages),
        ]
        claims: dict[str, Parsed] = {}
        if "winner" in cols:
            claims["winner"] = parse_label(cols["winner"], "winner", _WINNER_LABELS)
        if "net" in cols:
            claims["net"] = parse_float(cols["net"], "net")
        for p in claims.values():
            parts.append((p.bad, p.messages))
        bet = np.full(n, self.rules.bets.index(self.bet), dtype=np.int64)
        comm = np.full(n, self.commission, dtype=np.float64)
        if "bet" in cols:
            pb = parse_label(cols["bet"], "bet", {b: i for i, b in enumerate(self.rules.bets)})
            parts.append((pb.bad, pb.messages))
            bet = np.where(pb.stated, pb.value, bet)
        if "commission" in cols:
            pcm = parse_float(cols["commission"], "commission")
            out_of_range = pcm.stated & ((pcm.value < 0) | (pcm.value >= 1))
            parts.append(
                (
                    pcm.bad | out_of_range,
                    {
                        i: f"commission {pcm.value[i]:g}: expected a fraction in [0, 1)"
                        for i in np.flatnonzero(out_of_range)[:MAX_LISTED].tolist()
                    }
                    | pcm.messages,
                )
            )
            comm = np.where(pcm.stated & ~out_of_range, pcm.value, comm)
        overlap = (player.ids[:, :, None] == banker.ids[:, None, :]).any(axis=(1, 2))
        overlap &= player.stated & banker.stated & ~player.bad & ~banker.bad
        ov_msgs = {}
        for i in np.flatnonzero(overlap)[:MAX_LISTED].tolist():
            from .cards import CARD_NAMES

            shared = sorted(set(player.ids[i].tolist()) & set(banker.ids[i].tolist()))
            ov_msgs[i] = f"card {CARD_NAMES[shared[0]]} is in both hands (one deck)"
        parts.append((overlap, ov_msgs))
        bad, messages = _merge_bad(n, parts)
        for i in np.flatnonzero(bad & ~player.stated)[:MAX_LISTED].tolist():
            messages[i] = "player: empty"
        for i in np.flatnonzero(bad & player.stated & ~banker.stated)[:MAX_LISTED].tolist():
            messages[i] = "banker: empty"
        rows = np.flatnonzero(~bad)
        pl, bk = player.ids[rows], banker.ids[rows]
        bet, comm = bet[rows], comm[rows]
        ans = niuniu_showdown_answers(pl, bk, bet, comm, self.rules)
        stated = {f: p.stated[rows] for f, p in claims.items()}
        cv = {f: p.value[rows] for f, p in claims.items()}

        def agree(
            a: Mapping[str, npt.NDArray[Any]], sel: Any = slice(None)
        ) -> dict[str, npt.NDArray[np.bool_]]:
            out: dict[str, npt.NDArray[np.bool_]] = {}
            if "winner" in cv:
                out["winner"] = cv["winner"][sel] == a["winner"]
            if "net" in cv:
                out["net"] = np.abs(cv["net"][sel] - a["net"]) <= 1e-6
            return out

        base_agree = agree(ans)

        def variant_agree(variant: Any, sel: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
            va = niuniu_showdown_answers(pl[sel], bk[sel], bet[sel], comm[sel], self.rules, variant)
            ok = np.ones(len(sel), dtype=bool)
            for f, m in agree(va, sel).items():
                ok &= ~stated[f][sel] | m
            return ok

        interesting = ans["player_category"] == ans["banker_category"]
        interesting |= (ans["player_category"] > 10) | (ans["banker_category"] > 10)

        def record(i: int) -> dict[str, Any]:
            return self._showdown_record(i, pl, bk, bet, comm, ans, cv, stated, base_agree)

        return Checked(
            "showdown",
            rows,
            np.flatnonzero(bad),
            messages,
            stated,
            base_agree,
            {},
            variant_agree,
            record,
            interesting,
        )

    def _showdown_record(
        self,
        i: int,
        pl: npt.NDArray[np.uint8],
        bk: npt.NDArray[np.uint8],
        bet: npt.NDArray[np.int64],
        comm: npt.NDArray[np.float64],
        ans: Mapping[str, npt.NDArray[Any]],
        cv: Mapping[str, Any],
        stated: Mapping[str, npt.NDArray[np.bool_]],
        agree: Mapping[str, npt.NDArray[np.bool_]],
    ) -> dict[str, Any]:
        from .cards import card_name, hand_names
        from .niuniu import Category

        w = int(ans["winner"][i])
        net = float(ans["net"][i])
        pcat, bcat = (
            Category(int(ans["player_category"][i])),
            Category(int(ans["banker_category"][i])),
        )
        bet_name = self.rules.bets[int(bet[i])]
        correct = {
            "winner": WINNERS[w],
            "net": net,
            "player_category": pcat.label,
            "banker_category": bcat.label,
        }
        claimed: dict[str, Any] = {}
        for f in stated:
            if stated[f][i]:
                claimed[f] = WINNERS[int(cv[f][i])] if f == "winner" else float(cv[f][i])
        fields = [f for f in stated if stated[f][i] and not agree[f][i]]
        if pcat != bcat:
            hi, lo = (
                (("player", pcat), ("banker", bcat))
                if w == 0
                else (("banker", bcat), ("player", pcat))
            )
            why = f"{hi[0]}'s {hi[1].label} beats {lo[0]}'s {lo[1].label}"
        elif w == 2:
            why = f"both {pcat.label}, equal on the tie-break ({self.rules.tie_break}): push"
        else:
            r = self.rules
            ss = r.suit_strength

            def top(h: npt.NDArray[np.uint8]) -> int:
                return int(max(h.tolist(), key=lambda c: (c >> 2, ss[c & 3])))

            tp, tb = top(pl[i]), top(bk[i])
            if r.tie_break == "highest_card" or (tp >> 2) == (tb >> 2):
                why = (
                    f"both {pcat.label}; highest card {card_name(tp if w == 0 else tb)} "
                    f"beats {card_name(tb if w == 0 else tp)} (suits "
                    f"{' > '.join(SUIT_NAMES_[s] for s in r.suit_order)})"
                )
            else:
                why = f"both {pcat.label}; {WINNERS[w]} wins rank by rank"
        said = ", ".join(claimed[f] if f == "winner" else f"net {claimed[f]:+g}" for f in fields)
        m = self.rules.multiplier_row(bet_name)
        if w == 0:
            pay = f"{m[pcat]} x stake ({bet_name} bet) less {comm[i] * 100:g}% commission"
        elif w == 1:
            pay = f"the player pays {m[bcat]} ({bet_name} bet)"
        else:
            pay = "nobody pays"
        outcome = f"{WINNERS[w]} wins: {why}" if w != 2 else why
        reasons = [f"claimed {said}; {outcome}; player net {net:+g}: {pay}"]
        return {
            "player": hand_names(pl[i].tolist()),
            "banker": hand_names(bk[i].tolist()),
            "fields": fields,
            "claimed": claimed,
            "correct": correct,
            "reason": "; ".join(dict.fromkeys(reasons)),
        }


SUIT_NAMES_ = ("S", "H", "D", "C")
WINNERS = ("player", "banker", "push")
_WINNER_LABELS = {"player": 0, "banker": 1, "dealer": 1, "push": 2, "tie": 2}


# ---------------------------------------------------------------- Tau Ngau


def _tile_re(k: int) -> str:
    return r"^[\s,]*(?:\[[1-6]:[1-6]\][\s,]*){" + str(k) + r"}$"


def _tile_tables() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    from .tiles import TILE_TYPES, TYPE_COPIES, TYPE_FIRST_ID

    index = np.full((7, 7), -1, dtype=np.int64)
    for t, (hi, lo) in enumerate(TILE_TYPES):
        index[hi, lo] = index[lo, hi] = t
    return index, np.array(TYPE_FIRST_ID, dtype=np.int64), np.array(TYPE_COPIES, dtype=np.int64)


_TILE_INDEX, _TILE_FIRST, _TILE_COPIES = _tile_tables()


def _fast_tiles(
    text: pa.Array, sizes: tuple[int, ...]
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
    """Vectorised read of hands written ``[6:5][4:1]...`` (separators optional): canonical
    sorted tile ids (copy 0 of a civil type before copy 1)."""
    n = len(text)
    width = max(sizes)
    ids = np.full((n, width), PAD, dtype=np.uint8)
    size = np.zeros(n, dtype=np.int8)
    ok = np.zeros(n, dtype=bool)
    for k in sizes:
        rest = np.flatnonzero(~ok)
        if not len(rest):
            break
        sub = pc.take(text, pa.array(rest))
        m = np.asarray(
            pc.fill_null(pc.match_substring_regex(sub, _tile_re(k)), False).to_numpy(
                zero_copy_only=False
            ),
            dtype=bool,
        )
        if not m.any():
            continue
        digits = pc.replace_substring_regex(pc.take(sub, pa.array(np.flatnonzero(m))), "[^1-6]", "")
        off = np.frombuffer(digits.buffers()[1], dtype=np.int32)[
            digits.offset : digits.offset + len(digits) + 1
        ]
        raw = np.frombuffer(digits.buffers()[2], dtype=np.uint8)[off[0] : off[-1]]
        pips = (raw.astype(np.int64) - 48).reshape(-1, k, 2)
        types = np.sort(_TILE_INDEX[pips[:, :, 0], pips[:, :, 1]], axis=1)
        dup = np.zeros(types.shape, dtype=bool)
        dup[:, 1:] = types[:, 1:] == types[:, :-1]
        over = (dup & (_TILE_COPIES[types] == 1)).any(axis=1)
        if k > 2:
            over |= (types[:, 2:] == types[:, :-2]).any(axis=1)
        rows = rest[np.flatnonzero(m)]
        good = ~over
        ids[rows[good], :k] = (_TILE_FIRST[types[good]] + dup[good]).astype(np.uint8)
        size[rows[good]] = k
        ok[rows[good]] = True
    return ids, size, ok


def _slow_tiles(value: Any, sizes: tuple[int, ...]) -> list[int]:
    from .tiles import canonical_hand, parse_hand

    if isinstance(value, str | list):
        return list(canonical_hand(parse_hand(value, size=sizes)))
    raise BullError(f"not a hand of tiles: {_show(value)}")


def parse_tile_hands(
    arr: pa.Array, sizes: tuple[int, ...], kind: str = "hand", allow_none: bool = False
) -> Hands:
    """Tile hands in any accepted spelling (RULES §2), as canonical sorted ids.

    >>> h = parse_tile_hands(pa.array(["[6:5][4:1][2:2][3:3][5:4]", "66 66 66 11 22"]), (5,))
    >>> h.ids[0].tolist(), h.bad.tolist()
    ([3, 8, 10, 19, 28], [False, True])
    """
    return parse_items(arr, sizes, kind, _fast_tiles, _slow_tiles, "tile", allow_none)


def _parse_values(
    arr: pa.Array,
) -> tuple[
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.bool_],
    npt.NDArray[np.bool_],
    dict[int, str],
]:
    """The ``values`` claims ({"[4:2]": 6}, ``[4:2]=6 [2:1]=3``): per row a mask of the
    wild tiles whose value is stated, their bits (6 = 1; bit 0 [2:1], bit 1 [4:2]),
    stated and bad rows."""
    n = len(arr)
    mask = np.zeros(n, dtype=np.int64)
    bits = np.zeros(n, dtype=np.int64)
    stated = np.zeros(n, dtype=bool)
    bad = np.zeros(n, dtype=bool)
    messages: dict[int, str] = {}
    cache: dict[str, tuple[int, int] | str] = {}
    text = (
        arr
        if _is_text(arr.type)
        else pc.cast(arr, pa.string())
        if not (pa.types.is_struct(arr.type) or pa.types.is_map(arr.type))
        else None
    )
    for i in range(n):
        raw = arr[i].as_py() if text is None else text[i].as_py()
        if raw is None:
            continue
        key = json.dumps(raw, sort_keys=True) if not isinstance(raw, str) else raw
        if not key.strip() or key.strip().lower() in (*NONE_WORDS, "{}"):
            continue
        got = cache.get(key)
        if got is None:
            got = _values_of(raw)
            cache[key] = got
        stated[i] = True
        if isinstance(got, str):
            bad[i] = True
            if len(messages) < MAX_LISTED:
                messages[i] = f"values {_show(raw)}: {got}"
            continue
        mask[i], bits[i] = got
    return mask, bits, stated, bad, messages


def _values_of(raw: Any) -> tuple[int, int] | str:
    from .taungau import WILD_TILES
    from .tiles import parse_tile

    items: list[tuple[str, Any]]
    if isinstance(raw, str):
        s = raw.strip()
        if s.startswith("{"):
            try:
                obj = json.loads(s)
            except ValueError:
                return "not valid JSON"
            if not isinstance(obj, dict):
                return 'expected an object like {"[4:2]": 6}'
            items = list(obj.items())
        else:
            items = []
            for part in re.split(r"[\s,;]+", s):
                if not part:
                    continue
                if "=" not in part:
                    return "expected TILE=3|6 pairs, e.g. [4:2]=6"
                k, v = part.split("=", 1)
                items.append((k, v))
    elif isinstance(raw, dict):
        items = list(raw.items())
    else:
        return 'expected an object like {"[4:2]": 6} or [4:2]=6'
    mask = bits = 0
    for k, v in items:
        if v is None:
            continue
        try:
            tile = parse_tile(str(k))
        except BullError as exc:
            return str(exc)
        if tile not in WILD_TILES:
            return f"{k} is not [2:1] or [4:2]: only those take a 3/6 value"
        b = WILD_TILES.index(tile)
        if str(v).strip() not in ("3", "6"):
            return f"the value of {k} must be 3 or 6, not {v!r}"
        mask |= 1 << b
        bits |= (str(v).strip() == "6") << b
    return mask, bits


_TN_LABEL_NONE = -1


class TauNgauChecker:
    """Checks Tau Ngau claims: legal and optimal scores, real bulls with their 3/6
    values, and settlements."""

    game = "taungau"
    fields: ClassVar[dict[str, tuple[str, ...]]] = {
        "hand": ("has_bull", "points", "bull", "values"),
        "showdown": ("winner", "net"),
    }

    def __init__(self, rules: Any, options: Mapping[str, Any], tables: str | None) -> None:
        from .diagnose import taungau_catalogue
        from .taungau import load_rules

        for key in ("bet", "commission", "dealer_draws_at_most"):
            if options.get(key) is not None:
                raise BullError(f"--{key.replace('_', '-')} does not apply to taungau")
        self.rules = load_rules(rules)
        self.tables = tables
        self.reveals = options.get("banker_reveals") or self.rules.banker_reveals
        self.variants = taungau_catalogue(self.rules, "all", self.reveals)
        self._decisions: dict[Any, npt.NDArray[np.uint8]] = {}

    def prepare(self) -> None:
        """Nothing to preload: hands are analysed directly (the table serves showdowns)."""

    def _scale_digit(
        self, points: npt.NDArray[np.int64]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
        """Last digit of claimed scores, and which claims are bull scores at all."""
        if self.rules.zero_counts_as == 10:
            return points % 10, (points >= 1) & (points <= 10)
        return points, (points >= 0) & (points <= 9)

    def check_hands(self, cols: Mapping[str, pa.Array]) -> Checked:
        from .diagnose import taungau_hand_answers
        from .taungau import _VALUES

        n = len(cols["hand"])
        hands = parse_tile_hands(cols["hand"], (5,))
        parts: list[tuple[npt.NDArray[np.bool_], Mapping[int, str]]] = [
            (hands.bad | ~hands.stated, _empty_messages(hands, "hand"))
        ]
        claims: dict[str, Parsed] = {}
        if "has_bull" in cols:
            claims["has_bull"] = parse_bool(cols["has_bull"], "has_bull")
        if "points" in cols:
            claims["points"] = parse_int(cols["points"], "points", none_value=_TN_LABEL_NONE)
        for p in claims.values():
            parts.append((p.bad, p.messages))
        bull = None
        if "bull" in cols:
            bull = parse_tile_hands(cols["bull"], (3,), "bull", allow_none=True)
            parts.append((bull.bad, bull.messages))
        vals = None
        if "values" in cols:
            vals = _parse_values(cols["values"])
            parts.append((vals[3], vals[4]))
        bad, messages = _merge_bad(n, parts)
        rows = np.flatnonzero(~bad)
        tiles = hands.ids[rows]
        ans = taungau_hand_answers(tiles, self.rules)
        stated = {f: p.stated[rows] for f, p in claims.items()}
        cv = {f: p.value[rows] for f, p in claims.items()}
        m = len(rows)
        hv = _VALUES[:, tiles].astype(np.int64)  # (4, m, 5) values mod 10
        digit = hv.sum(axis=2) % 10  # (4, m)
        from .taungau import TRIPLES

        exists = np.zeros((4, m), dtype=bool)
        for t in TRIPLES:
            exists |= hv[:, :, list(t)].sum(axis=2) % 10 == 0
        cons = np.ones((4, m), dtype=bool)
        if vals is not None:
            vm, vb = vals[0][rows], vals[1][rows]
            stated["values"] = vals[2][rows]
            for c in range(4):
                cons[c] = (c & vm) == vb
        score_ok = np.ones((4, m), dtype=bool)
        if "points" in cv:
            d, is_score = self._scale_digit(cv["points"])
            use = stated["points"] & is_score
            score_ok = ~use[None, :] | (digit == d[None, :])
        b_valid = b_none = bull_ids = None
        if bull is not None:
            stated["bull"] = bull.stated[rows]
            bull_ids = bull.ids[rows]
            b_none = bull.none[rows]
            from .tiles import TYPE_OF_TILE

            tot = np.array(TYPE_OF_TILE + (255,) * (256 - len(TYPE_OF_TILE)), dtype=np.int64)
            ht, bt = tot[tiles], tot[bull_ids]
            contained = np.ones(m, dtype=bool)
            for j in range(3):
                in_bull = (bt == bt[:, j : j + 1]).sum(axis=1)
                in_hand = (ht == bt[:, j : j + 1]).sum(axis=1)
                contained &= in_bull <= in_hand
            padded = np.zeros((4, 256), dtype=np.int64)
            padded[:, : _VALUES.shape[1]] = _VALUES
            bsum = padded[:, bull_ids].sum(axis=2) % 10 == 0  # (4, m)
            b_valid = contained & (bsum & cons & score_ok).any(axis=0) & ~b_none

        def agree(
            a: Mapping[str, npt.NDArray[Any]], sel: Any = slice(None)
        ) -> dict[str, npt.NDArray[np.bool_]]:
            out: dict[str, npt.NDArray[np.bool_]] = {}
            if "has_bull" in cv:
                out["has_bull"] = cv["has_bull"][sel] == a["has_bull"]
            if "points" in cv:
                out["points"] = cv["points"][sel] == a["points"]
            if b_valid is not None and b_none is not None:
                out["bull"] = np.where(b_none[sel], ~np.asarray(a["has_bull"], bool), b_valid[sel])
            if vals is not None:
                out["values"] = np.asarray((cons & exists & score_ok).any(axis=0))[sel]
            return out

        base_agree = agree(ans)
        kinds: dict[str, dict[str, npt.NDArray[np.bool_]]] = {}
        if "points" in cv:
            d, is_score = self._scale_digit(cv["points"])
            legal = is_score & ((ans["reach"] >> np.clip(d, 0, 9)) & 1).astype(bool)
            wrong = stated["points"] & ~base_agree["points"]
            kinds["points"] = {"suboptimal": wrong & legal, "illegal": wrong & ~legal}

        def variant_agree(variant: Any, sel: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
            va = taungau_hand_answers(tiles[sel], self.rules, variant)
            ok = np.ones(len(sel), dtype=bool)
            for f, mm in agree(va, sel).items():
                ok &= ~stated[f][sel] | mm
            return ok

        from .taungau import WILD_TILES

        interesting = (
            (tiles == WILD_TILES[0]).any(axis=1)
            | (tiles == WILD_TILES[1]).any(axis=1)
            | (ans["reach"] & 1).astype(bool)
        )

        def record(i: int) -> dict[str, Any]:
            return self._hand_record(i, tiles, ans, cv, stated, base_agree, kinds, bull_ids)

        return Checked(
            "hand",
            rows,
            np.flatnonzero(bad),
            messages,
            stated,
            base_agree,
            kinds,
            variant_agree,
            record,
            interesting,
        )

    def _bull_why(self, bull: list[int], hand: list[int], points: int | None) -> str:
        """Why a claimed Tau Ngau bull is wrong: a tile not in the hand, no multiple of 10
        under any 3/6 choice, or a remainder that cannot score the claimed points."""
        from .taungau import tile_value
        from .tiles import TILE_NAMES, TYPE_OF_TILE

        left = [TYPE_OF_TILE[t] for t in hand]
        for t in bull:
            if TYPE_OF_TILE[t] not in left:
                return f"{TILE_NAMES[t]} is not in the hand"
            left.remove(TYPE_OF_TILE[t])
        sums = sorted({sum(tile_value(t, c) for t in bull) for c in range(4)})
        if all(x % 10 for x in sums):
            return f"it totals {' or '.join(map(str, sums))}, not a multiple of 10"
        rest = [t for t in hand if TYPE_OF_TILE[t] in left]
        rest_sums = sorted({sum(tile_value(t, c) for t in rest) % 10 for c in range(4)})
        scores = sorted({self.rules.score(d) for d in rest_sums})
        claimed = "" if points is None else f", not the claimed {self._show_points(points)}"
        return f"a bull, but the other two score {' or '.join(map(str, scores))}{claimed}"

    def _show_points(self, p: int) -> str:
        return "no score (no bull)" if p == _TN_LABEL_NONE else str(p)

    def _hand_record(
        self,
        i: int,
        tiles: npt.NDArray[np.uint8],
        ans: Mapping[str, npt.NDArray[Any]],
        cv: Mapping[str, Any],
        stated: Mapping[str, npt.NDArray[np.bool_]],
        agree: Mapping[str, npt.NDArray[np.bool_]],
        kinds: Mapping[str, Mapping[str, npt.NDArray[np.bool_]]],
        bull_ids: npt.NDArray[np.uint8] | None,
    ) -> dict[str, Any]:
        from .taungau import WILD_TILES, analyse, best_plays
        from .tiles import TILE_NAMES, hand_names

        h = tiles[i : i + 1]
        play = best_plays(analyse(h), self.rules)
        has = bool(ans["has_bull"][i])
        best = int(ans["points"][i])
        mask = int(play.bull_mask[0])
        tl = [int(t) for t in h[0]]
        bull = [tl[p] for p in range(5) if mask >> p & 1]
        rest = [tl[p] for p in range(5) if not mask >> p & 1]
        values = (
            {
                TILE_NAMES[w]: 6 if int(play.values[0]) >> b & 1 else 3
                for b, w in enumerate(WILD_TILES)
                if w in tl
            }
            if has
            else None
        )
        reach = sorted(self.rules.score(d) for d in range(10) if int(ans["reach"][i]) >> d & 1)
        correct = {
            "has_bull": has,
            "points": None if best == _TN_LABEL_NONE else best,
            "bull": hand_names(bull) if has else None,
            "values": values,
            "reachable": reach,
        }
        claimed: dict[str, Any] = {}
        for f in stated:
            if not stated[f][i]:
                continue
            if f == "bull" and bull_ids is not None:
                b = [int(t) for t in bull_ids[i] if t != PAD]
                claimed[f] = hand_names(b) if b else None
            elif f == "has_bull":
                claimed[f] = bool(cv[f][i])
            elif f == "points":
                p = int(cv[f][i])
                claimed[f] = None if p == _TN_LABEL_NONE else p
            else:
                claimed[f] = "stated"
        fields = [f for f in stated if stated[f][i] and not agree[f][i]]
        how = (
            (
                f"best {best}: bull {''.join(hand_names(bull))} + {''.join(hand_names(rest))}"
                + "".join(f" {k}={v}" for k, v in (values or {}).items())
                + f" (reachable: {', '.join(map(str, reach))})"
            )
            if has
            else "no three tiles make a multiple of 10 under any 3/6 choice"
        )
        said = []
        kind = None
        for f in fields:
            if f == "has_bull":
                said.append("no bull" if not claimed[f] else "a bull")
            elif f == "points":
                kind = next((k for k, mk in kinds["points"].items() if mk[i]), None)
                said.append(f"points {self._show_points(int(cv[f][i]))} ({kind})")
            elif f == "bull":
                b = [int(t) for t in bull_ids[i] if t != PAD] if bull_ids is not None else []
                pts = int(cv["points"][i]) if "points" in cv and stated["points"][i] else None
                said.append(
                    f"bull {''.join(claimed[f])} ({self._bull_why(b, tl, pts)})"
                    if claimed[f]
                    else "bull none"
                )
            elif f == "values":
                said.append("values (no bull reaches the claimed score with them)")
        rec = {
            "hand": hand_names(tl),
            "fields": fields,
            "claimed": claimed,
            "correct": correct,
            "reason": f"claimed {', '.join(said)}; {how}",
        }
        if kind:
            rec["kind"] = kind
        return rec

    # -- showdowns
    def _decision_last(self, rules: Any, tiles: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
        from .taungau_play import evaluate_batch

        spec = rules.to_data() if rules != self.rules else self.rules
        if isinstance(spec, dict) and spec.get("name") in ("macau", "pagat"):
            spec = {**spec, "name": f"{spec['name']}-variant"}
        out = evaluate_batch(tiles, spec, tables=self.tables)
        return np.asarray(out.get("decision_last", np.zeros(len(tiles), np.uint8)))

    def check_showdowns(self, cols: Mapping[str, pa.Array]) -> Checked:
        from .diagnose import taungau_showdown_answers
        from .taungau_play import settle_batch

        n = len(cols["player"])
        player = parse_tile_hands(cols["player"], (5,), "player")
        banker = parse_tile_hands(cols["banker"], (5,), "banker")
        parts: list[tuple[npt.NDArray[np.bool_], Mapping[int, str]]] = [
            (player.bad | ~player.stated, player.messages),
            (banker.bad | ~banker.stated, banker.messages),
        ]
        claims: dict[str, Parsed] = {}
        if "winner" in cols:
            claims["winner"] = parse_label(cols["winner"], "winner", _WINNER_LABELS)
        if "net" in cols:
            claims["net"] = parse_float(cols["net"], "net")
        for p in claims.values():
            parts.append((p.bad, p.messages))
        # the two hands come from one set: give the banker the other copy of a shared type
        from .tiles import TYPE_NAMES, TYPE_OF_TILE

        tot = np.array(TYPE_OF_TILE + (255,) * (256 - len(TYPE_OF_TILE)), dtype=np.int64)
        pt, bt = tot[player.ids], tot[banker.ids]
        in_p = (bt[:, :, None] == pt[:, None, :]).sum(axis=2)
        own = np.zeros(bt.shape, dtype=np.int64)
        own[:, 1:] = bt[:, 1:] == bt[:, :-1]
        copy = in_p + own
        over = (copy >= _TILE_COPIES[np.minimum(bt, 20)]).any(axis=1)
        over &= ~player.bad & ~banker.bad & player.stated & banker.stated
        ov_msgs = {}
        for i in np.flatnonzero(over)[:MAX_LISTED].tolist():
            j = int(np.flatnonzero(copy[i] >= _TILE_COPIES[bt[i]])[0])
            t = int(bt[i, j])
            held = int((pt[i] == t).sum() + (bt[i] == t).sum())
            ov_msgs[i] = (
                f"tile {TYPE_NAMES[t]} is held {held} times in the two hands; "
                f"the set has {_TILE_COPIES[t]}"
            )
        parts.append((over, ov_msgs))
        bad, messages = _merge_bad(n, parts)
        rows = np.flatnonzero(~bad)
        pl = player.ids[rows]
        bk = (_TILE_FIRST[bt[rows]] + copy[rows]).astype(np.uint8)
        bk = np.sort(bk, axis=1)
        res = settle_batch(pl, bk, self.rules, banker_reveals=self.reveals, tables=self.tables)
        ans = {
            "winner": np.where(res["winner"] > 0, 0, np.where(res["winner"] < 0, 1, 2)),
            "net": np.asarray(res["net"], dtype=np.float64),
            "declines": res["declines"],
        }
        stated = {f: p.stated[rows] for f, p in claims.items()}
        cv = {f: p.value[rows] for f, p in claims.items()}

        def agree(
            a: Mapping[str, npt.NDArray[Any]], sel: Any = slice(None)
        ) -> dict[str, npt.NDArray[np.bool_]]:
            out: dict[str, npt.NDArray[np.bool_]] = {}
            if "winner" in cv:
                out["winner"] = cv["winner"][sel] == a["winner"]
            if "net" in cv:
                out["net"] = np.abs(cv["net"][sel] - a["net"]) <= 1e-6
            return out

        base_agree = agree(ans)

        def variant_agree(variant: Any, sel: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
            va = taungau_showdown_answers(
                pl[sel], bk[sel], self.rules, self.reveals, self._decision_last, variant
            )
            ok = np.ones(len(sel), dtype=bool)
            for f, mm in agree(va, sel).items():
                ok &= ~stated[f][sel] | mm
            return ok

        def record(i: int) -> dict[str, Any]:
            from .tiles import hand_names

            w = int(ans["winner"][i])
            claimed = {
                f: (WINNERS[int(cv[f][i])] if f == "winner" else float(cv[f][i]))
                for f in stated
                if stated[f][i]
            }
            fields = [f for f in stated if stated[f][i] and not base_agree[f][i]]
            hp = taungau_answers_one(pl[i], self.rules)
            hb = taungau_answers_one(bk[i], self.rules)
            dec = " and declines his bull" if ans["declines"][i] else ""
            net = ans["net"][i]
            said = ", ".join(
                f"net {claimed[f]:+g}" if f == "net" else str(claimed[f]) for f in fields
            )
            reason = (
                f"claimed {said}; player "
                f"{hp}{dec}, banker {hb} ({self.rules.settlement}, banker reveals "
                f"{self.reveals}): {WINNERS[w]}{' wins' if w != 2 else ''}, player "
                f"net {net:+g}"
            )
            return {
                "player": hand_names(pl[i].tolist()),
                "banker": hand_names(bk[i].tolist()),
                "fields": fields,
                "claimed": claimed,
                "correct": {"winner": WINNERS[w], "net": net, "declines": bool(ans["declines"][i])},
                "reason": reason,
            }

        interesting = np.ones(len(rows), dtype=bool)
        return Checked(
            "showdown",
            rows,
            np.flatnonzero(bad),
            messages,
            stated,
            base_agree,
            {},
            variant_agree,
            record,
            interesting,
        )


def taungau_answers_one(tiles: npt.NDArray[np.uint8], rules: Any) -> str:
    """``'scores 7'`` or ``'has no bull'`` for one sorted hand."""
    from .diagnose import taungau_hand_answers

    a = taungau_hand_answers(tiles[None, :], rules)
    return "has no bull" if not a["has_bull"][0] else f"scores {int(a['points'][0])}"


# ---------------------------------------------------------------- Pok Deng


def _pd_labels() -> dict[str, int]:
    from .pokdeng import HandType

    labels = {t.label: int(t) for t in HandType}
    labels |= {
        "riang": int(HandType.STRAIGHT),
        "straightflush": int(HandType.STRAIGHT_FLUSH),
        "samlueang": int(HandType.SAM_LUEANG),
        "sam_leung": int(HandType.SAM_LUEANG),
        "three_of_a_kind": int(HandType.TONG),
        "pok_8": int(HandType.POK),
        "pok_9": int(HandType.POK),
        "pok8": int(HandType.POK),
        "pok9": int(HandType.POK),
    }
    return labels


_PD_WINNERS = ("player", "dealer", "push")


class PokDengChecker:
    """Checks Pok Deng claims: points, type, deng of 2- and 3-card hands; settlements."""

    game = "pokdeng"
    fields: ClassVar[dict[str, tuple[str, ...]]] = {
        "hand": ("points", "category", "deng"),
        "showdown": ("winner", "net"),
    }

    def __init__(self, rules: Any, options: Mapping[str, Any], tables: str | None) -> None:
        from .diagnose import pokdeng_catalogue
        from .pokdeng import load_rules

        for key in ("bet", "commission", "banker_reveals"):
            if options.get(key) is not None:
                raise BullError(f"--{key.replace('_', '-')} does not apply to pokdeng")
        self.rules = load_rules(rules)
        self.tables = tables
        self.labels = _pd_labels()
        self.variants = pokdeng_catalogue(self.rules, "all")

    def prepare(self) -> None:
        """Nothing to preload: hands are classified directly."""

    def check_hands(self, cols: Mapping[str, pa.Array]) -> Checked:
        from .diagnose import pokdeng_hand_answers

        n = len(cols["hand"])
        hands = parse_card_hands(cols["hand"], (2, 3))
        parts: list[tuple[npt.NDArray[np.bool_], Mapping[int, str]]] = [
            (hands.bad | ~hands.stated, _empty_messages(hands, "hand"))
        ]
        claims: dict[str, Parsed] = {}
        if "points" in cols:
            claims["points"] = parse_int(cols["points"], "points")
        if "category" in cols:
            claims["category"] = parse_label(cols["category"], "type", self.labels)
        if "deng" in cols:
            claims["deng"] = parse_int(cols["deng"], "deng")
        for p in claims.values():
            parts.append((p.bad, p.messages))
        bad, messages = _merge_bad(n, parts)
        rows = np.flatnonzero(~bad)
        cards, size = hands.ids[rows], hands.size[rows]
        ans = pokdeng_hand_answers(cards, size, self.rules)
        stated = {f: p.stated[rows] for f, p in claims.items()}
        cv = {f: p.value[rows] for f, p in claims.items()}
        key = {"points": "points", "category": "type", "deng": "deng"}

        def agree(
            a: Mapping[str, npt.NDArray[Any]], sel: Any = slice(None)
        ) -> dict[str, npt.NDArray[np.bool_]]:
            return {f: cv[f][sel] == a[key[f]] for f in cv}

        base_agree = agree(ans)

        def variant_agree(variant: Any, sel: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
            va = pokdeng_hand_answers(cards[sel], size[sel], self.rules, variant)
            ok = np.ones(len(sel), dtype=bool)
            for f, mm in agree(va, sel).items():
                ok &= ~stated[f][sel] | mm
            return ok

        interesting = (size == 3) | (ans["deng"] > 1) | (ans["type"] > 0)

        def record(i: int) -> dict[str, Any]:
            from .cards import hand_names
            from .pokdeng import HandClass, HandType

            hc = HandClass(
                HandType(int(ans["type"][i])), int(ans["points"][i]), int(ans["deng"][i])
            )
            claimed: dict[str, Any] = {}
            for f in stated:
                if stated[f][i]:
                    v = int(cv[f][i])
                    claimed[f] = HandType(v).label if f == "category" else v
            fields = [f for f in stated if stated[f][i] and not base_agree[f][i]]
            said = ", ".join(f"{'type' if f == 'category' else f} {claimed[f]}" for f in fields)
            names = [c for c in cards[i].tolist() if c != PAD]
            return {
                "hand": hand_names(names),
                "fields": fields,
                "claimed": claimed,
                "correct": {"points": hc.points, "category": hc.type.label, "deng": hc.deng},
                "reason": f"claimed {said}; {' '.join(hand_names(names))} is {hc} "
                f"under {self.rules.name}",
            }

        return Checked(
            "hand",
            rows,
            np.flatnonzero(bad),
            messages,
            stated,
            base_agree,
            {},
            variant_agree,
            record,
            interesting,
        )

    def check_showdowns(self, cols: Mapping[str, pa.Array]) -> Checked:
        from .diagnose import pokdeng_showdown_answers

        n = len(cols["player"])
        player = parse_card_hands(cols["player"], (2, 3), "player")
        dealer = parse_card_hands(cols["banker"], (2, 3), "dealer")
        parts: list[tuple[npt.NDArray[np.bool_], Mapping[int, str]]] = [
            (player.bad | ~player.stated, player.messages),
            (dealer.bad | ~dealer.stated, dealer.messages),
        ]
        claims: dict[str, Parsed] = {}
        if "winner" in cols:
            claims["winner"] = parse_label(cols["winner"], "winner", _WINNER_LABELS)
        if "net" in cols:
            claims["net"] = parse_float(cols["net"], "net")
        for p in claims.values():
            parts.append((p.bad, p.messages))
        pi, di = player.ids.astype(np.int64), dealer.ids.astype(np.int64)
        overlap = ((pi[:, :, None] == di[:, None, :]) & (pi[:, :, None] != PAD)).any(axis=(1, 2))
        overlap &= ~player.bad & ~dealer.bad & player.stated & dealer.stated
        from .cards import CARD_NAMES

        ov = {
            i: f"card {CARD_NAMES[sorted(set(pi[i].tolist()) & set(di[i].tolist()))[0]]} "
            "is in both hands (one deck)"
            for i in np.flatnonzero(overlap)[:MAX_LISTED].tolist()
        }
        parts.append((overlap, ov))
        bad, messages = _merge_bad(n, parts)
        rows = np.flatnonzero(~bad)
        pl, ps = player.ids[rows], player.size[rows]
        dl, ds = dealer.ids[rows], dealer.size[rows]
        ans = pokdeng_showdown_answers(pl, ps, dl, ds, self.rules)
        stated = {f: p.stated[rows] for f, p in claims.items()}
        cv = {f: p.value[rows] for f, p in claims.items()}

        def agree(
            a: Mapping[str, npt.NDArray[Any]], sel: Any = slice(None)
        ) -> dict[str, npt.NDArray[np.bool_]]:
            out: dict[str, npt.NDArray[np.bool_]] = {}
            if "winner" in cv:
                out["winner"] = cv["winner"][sel] == a["winner"]
            if "net" in cv:
                out["net"] = np.abs(cv["net"][sel] - a["net"]) <= 1e-6
            return out

        base_agree = agree(ans)

        def variant_agree(variant: Any, sel: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
            va = pokdeng_showdown_answers(pl[sel], ps[sel], dl[sel], ds[sel], self.rules, variant)
            ok = np.ones(len(sel), dtype=bool)
            for f, mm in agree(va, sel).items():
                ok &= ~stated[f][sel] | mm
            return ok

        interesting = (
            (ans["player_type"] == ans["dealer_type"])
            | (ans["player_type"] > 0)
            | (ans["dealer_type"] > 0)
        )

        def record(i: int) -> dict[str, Any]:
            from .cards import hand_names
            from .pokdeng import classify_hand, settle_classes

            p = [c for c in pl[i].tolist() if c != PAD]
            d = [c for c in dl[i].tolist() if c != PAD]
            st = settle_classes(
                classify_hand(p, self.rules), classify_hand(d, self.rules), self.rules
            )
            claimed = {
                f: (_PD_WINNERS[int(cv[f][i])] if f == "winner" else float(cv[f][i]))
                for f in stated
                if stated[f][i]
            }
            fields = [f for f in stated if stated[f][i] and not base_agree[f][i]]
            said = ", ".join(
                f"net {claimed[f]:+g}" if f == "net" else str(claimed[f]) for f in fields
            )
            return {
                "player": hand_names(p),
                "dealer": hand_names(d),
                "fields": fields,
                "claimed": claimed,
                "correct": {"winner": st.winner, "net": st.net},
                "reason": f"claimed {said}; {st.reason}; player net {st.net:+d}",
            }

        return Checked(
            "showdown",
            rows,
            np.flatnonzero(bad),
            messages,
            stated,
            base_agree,
            {},
            variant_agree,
            record,
            interesting,
        )


# ---------------------------------------------------------------- the run

SAMPLE_FIRST = 5_000
"""Agreeing rows, from the start of the file, re-checked against every variant."""
SAMPLE_INTERESTING = 20_000
"""Agreeing special-ish rows (rare hands, equal categories) re-checked likewise."""


def _prefetch(chunks: Iterator[Chunk], depth: int = 2) -> Iterator[Chunk]:
    """Read (decode, decompress) the next chunks in a background thread while the
    current one is checked: Arrow releases the GIL while it decodes."""
    import queue
    import threading

    q: queue.Queue[tuple[str, Any]] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def work() -> None:
        try:
            for c in chunks:
                while not stop.is_set():
                    try:
                        q.put(("chunk", c), timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            q.put(("end", None))
        except BaseException as exc:  # handed to the consumer
            q.put(("error", exc))

    t = threading.Thread(target=work, name="bull-verify-reader", daemon=True)
    t.start()
    try:
        while True:
            kind, item = q.get()
            if kind == "end":
                return
            if kind == "error":
                raise item
            yield item
    finally:
        stop.set()
        t.join(timeout=5)


def make_checker(
    game: str, rules: str | None, options: Mapping[str, Any], tables: str | None
) -> Any:
    """The checker of ``game``."""
    if game == "niuniu":
        return NiuNiuChecker(rules, options, tables)
    if game == "taungau":
        return TauNgauChecker(rules, options, tables)
    if game == "pokdeng":
        return PokDengChecker(rules, options, tables)
    raise BullError(f"`bull verify` does not support {game!r} yet")


class _Writer:
    """Writes disagreeing rows as JSON Lines, or CSV for a ``.csv`` name."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.csv = Path(path).suffix.lower() == ".csv"
        try:
            self.f = open(path, "w", encoding="utf-8", newline="")  # noqa: SIM115
        except OSError as exc:
            raise BullError(f"cannot write {path}: {exc.strerror}") from None
        self.w = None
        if self.csv:
            self.w = csv.writer(self.f)
            self.w.writerow(
                [
                    "line",
                    "row_type",
                    "hand",
                    "player",
                    "banker",
                    "fields",
                    "kind",
                    "claimed",
                    "correct",
                    "reason",
                    "explained_by",
                ]
            )

    def write(self, rec: Mapping[str, Any]) -> None:
        if self.w is None:
            self.f.write(json.dumps(rec, ensure_ascii=False) + "\n")
            return
        self.w.writerow(
            [
                rec.get("line"),
                rec.get("row_type"),
                " ".join(rec.get("hand") or []),
                " ".join(rec.get("player") or []),
                " ".join(rec.get("banker") or rec.get("dealer") or []),
                " ".join(rec.get("fields", [])),
                rec.get("kind", ""),
                json.dumps(rec.get("claimed"), ensure_ascii=False),
                json.dumps(rec.get("correct"), ensure_ascii=False),
                rec.get("reason"),
                "; ".join(rec.get("explained_by", [])),
            ]
        )

    def close(self) -> None:
        self.f.close()


def verify_file(
    game: str,
    path: str,
    *,
    rules: str | None = None,
    fmt: str | None = None,
    columns: Mapping[str, str] | None = None,
    batch_size: int = 262_144,
    options: Mapping[str, Any] | None = None,
    tables: str | None = None,
    out: str | None = None,
) -> VerifyReport:
    r"""Verify a claims file; see the module docstring. ``out`` writes the disagreeing
    rows (JSON Lines, or CSV for a ``.csv`` name).

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "claims.csv")
    >>> _ = open(path, "w").write("hand,points,type\n9S 9D,8,pok\n4D 5H 6S,5,straight\n")
    >>> r = verify_file("pokdeng", path)
    >>> r.checked, r.disagree, r.exit_code
    (2, 1, 1)
    >>> r.headline
    'all 1 disagreement is explained by: straights counted (ace both)'
    """
    from .diagnose import DIAGNOSE_LIMIT, Tally

    checker = make_checker(game, rules, options or {}, tables)
    fmt = detect_format(path, fmt)
    mapping, label, chunks = read_chunks(path, fmt, columns or {}, batch_size)
    modes = []
    if "hand" in mapping:
        modes.append("hand")
    if "player" in mapping and "banker" in mapping:
        modes.append("showdown")
    if not modes:
        raise BullError(
            f"{path}: missing required columns: need 'hand', or 'player' and "
            "'banker'/'dealer' (rename with --column FIELD=NAME)"
        )
    fields = [f for m in modes for f in checker.fields[m] if f in mapping]
    if not fields:
        want = ", ".join(f for m in modes for f in checker.fields[m])
        raise BullError(f"{path}: no claim columns to check (expected any of: {want})")
    checker.prepare()
    variants = checker.variants
    tally = Tally(variants)
    mode_index = {
        m: np.array([i for i, v in enumerate(variants) if m in v.modes], dtype=np.int64)
        for m in ("hand", "showdown")
    }
    stats = {f: [0, 0, 0] for f in fields}
    kinds: dict[str, Counter[str]] = {f: Counter() for f in fields}
    rows_read = checked = disagree = malformed = 0
    malformed_rows: list[Malformed] = []
    examples: list[dict[str, Any]] = []
    writer = _Writer(out) if out else None
    first_left = SAMPLE_FIRST
    interesting_left = SAMPLE_INTERESTING
    try:

        def split(
            chunk: Chunk,
        ) -> tuple[Chunk, int, list[tuple[str, npt.NDArray[np.int64], Checked]]]:
            n = len(chunk)
            if not n:
                return chunk, 0, []
            keep = np.flatnonzero(~_blank(chunk.columns, n)) if fmt == "csv" else np.arange(n)
            if "hand" in modes and "showdown" in modes:
                hand_st = _stated_rows(chunk.columns["hand"])
                groups = [("hand", keep[hand_st[keep]]), ("showdown", keep[~hand_st[keep]])]
            else:
                groups = [(modes[0], keep)]
            done = []
            for mode, sel in groups:
                if not len(sel):
                    continue
                need = ("hand",) if mode == "hand" else ("player", "banker")
                cols = _take(
                    {
                        k: v
                        for k, v in chunk.columns.items()
                        if k in need
                        or k in checker.fields[mode]
                        or k in ("bet", "commission", "values")
                    },
                    sel,
                )
                res = checker.check_hands(cols) if mode == "hand" else checker.check_showdowns(cols)
                done.append((mode, sel, res))
            return chunk, len(keep), done

        for chunk, kept, groups in map(split, _prefetch(chunks)):
            for line, msg in chunk.bad:
                malformed += 1
                rows_read += 1
                if len(malformed_rows) < MAX_LISTED:
                    malformed_rows.append(Malformed(line, msg))
            rows_read += kept
            for mode, sel, res in groups:
                lines = chunk.lines[sel]
                for i in res.bad_rows.tolist():
                    malformed += 1
                    if len(malformed_rows) < MAX_LISTED:
                        malformed_rows.append(
                            Malformed(int(lines[i]), res.messages.get(i, "malformed"))
                        )
                checked += len(res.rows)
                dis = res.disagree
                disagree += int(dis.sum())
                for f in res.stated:
                    st, ag = res.stated[f], res.agree[f]
                    stats[f][0] += int((st & ag).sum())
                    stats[f][1] += int((st & ~ag).sum())
                    stats[f][2] += int((~st).sum())
                    for k, m in res.kinds.get(f, {}).items():
                        kinds[f][k] += int(m.sum())
                for f in fields:
                    if f not in res.stated:
                        stats[f][2] += len(res.rows)
                idx = mode_index[mode]
                dis_rows = np.flatnonzero(dis)
                explains = None
                if len(dis_rows) and tally.total < DIAGNOSE_LIMIT:
                    dis_rows_d = dis_rows[: DIAGNOSE_LIMIT - tally.total]
                    explains = np.zeros((len(dis_rows_d), len(variants)), dtype=bool)
                    for v in idx.tolist():
                        explains[:, v] = res.variant_agree(variants[v], dis_rows_d)
                    tally.add(explains)
                agree_rows = np.flatnonzero(~dis)
                sample = agree_rows[:first_left]
                first_left -= len(sample)
                extra = agree_rows[len(sample) :]
                extra = extra[res.interesting[extra]][:interesting_left]
                interesting_left -= len(extra)
                sample = np.concatenate([sample, extra])
                if len(sample):
                    contra = np.zeros((len(sample), len(variants)), dtype=bool)
                    for v in idx.tolist():
                        contra[:, v] = ~res.variant_agree(variants[v], sample)
                    tally.add_contradicts(contra)
                if writer is not None or len(examples) < MAX_LISTED:
                    limit = len(dis_rows) if writer is not None else MAX_LISTED - len(examples)
                    for j, i in enumerate(dis_rows[:limit].tolist()):
                        rec = {"line": int(lines[res.rows[i]]), "row_type": mode, **res.record(i)}
                        if explains is not None and j < len(explains):
                            rec["explained_by"] = [
                                variants[v].description for v in np.flatnonzero(explains[j])[:5]
                            ]
                        if writer is not None:
                            writer.write(rec)
                        if len(examples) < MAX_LISTED:
                            examples.append(rec)
    finally:
        if writer is not None:
            writer.close()
    if rows_read == 0:
        raise BullError(f"{path}: no rows to check")
    if checked == 0:
        first = malformed_rows[0] if malformed_rows else None
        where = f" (first: {label} {first.line}: {first.message})" if first else ""
        raise BullError(f"{path}: nothing readable: all {malformed} rows are malformed{where}")
    ranked = tally.ranked()
    return VerifyReport(
        game=game,
        rules=checker.rules.name,
        file=path,
        line_label=label,
        rows=rows_read,
        checked=checked,
        agree=checked - disagree,
        disagree=disagree,
        malformed=malformed,
        malformed_rows=tuple(malformed_rows),
        fields=tuple(
            (
                f,
                FieldStats(
                    stats[f][0],
                    stats[f][1],
                    stats[f][2],
                    tuple(sorted((k, c) for k, c in kinds[f].items() if c)),
                ),
            )
            for f in fields
        ),
        diagnosis=tuple(ranked),
        cover=tuple(tally.cover()),
        headline=tally.headline()
        + (
            f" (diagnosed on the first {tally.total:,} of {disagree:,} disagreements)"
            if tally.total < disagree
            else ""
        ),
        examples=tuple(examples),
        diagnosed=tally.total,
    )


def _stated_rows(arr: pa.Array) -> npt.NDArray[np.bool_]:
    text = _joined_text(arr)
    if text is None:
        return ~_nulls(arr)
    return np.asarray(
        pc.fill_null(pc.greater(pc.utf8_length(pc.utf8_trim_whitespace(text)), 0), False).to_numpy(
            zero_copy_only=False
        ),
        dtype=bool,
    )


def cli_verify(args: Any, out: Any) -> int:
    """The ``bull verify`` subcommand: print the summary, return the exit code."""
    options = {
        k: getattr(args, k)
        for k in ("bet", "commission", "banker_reveals", "dealer_draws_at_most")
        if getattr(args, k, None) is not None
    }
    report = verify_file(
        args.game,
        args.file,
        rules=args.rules,
        fmt=args.format,
        columns=parse_column_options(args.column or []),
        batch_size=args.batch_size,
        options=options,
        tables=args.tables,
        out=args.out,
    )
    if args.json:
        out.write(json.dumps(report.to_json(), ensure_ascii=False) + "\n")
    else:
        out.write(report.text() + "\n")
    return report.exit_code
