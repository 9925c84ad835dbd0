"""Reading a claims file for ``bull verify``: formats, columns, batches, broken lines.

A claims file is CSV, JSON Lines or Parquet (by extension or ``--format``). Its columns
are matched to the logical fields of :data:`FIELDS` case-insensitively (``--column
FIELD=NAME`` renames), and it is read in batches — ``pyarrow.csv.open_csv``,
``ParquetFile.iter_batches``, blocks of JSON Lines — each a :class:`Chunk` of Arrow
arrays with every row's line number (Parquet: row number), so memory stays bounded
whatever the file size. A line that cannot be split into fields (a CSV line with the
wrong number of fields, a JSON line that is not an object) is carried in the chunk as
malformed; a file that is unreadable as a whole raises :class:`~solver.core.errors.BullError`.
:func:`prefetch` reads the next batches in a background thread.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from solver.core.errors import BullError

__all__ = [
    "FIELDS",
    "MAX_LISTED",
    "Chunk",
    "detect_format",
    "map_columns",
    "parse_column_options",
    "peek_rules",
    "prefetch",
    "read_chunks",
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


def peek_rules(path: str, fmt: str) -> str | None:
    """The ``rules`` column of the file's first row, if it has one (a vectors file says
    which rule set its answers hold for); ``None`` otherwise or when unreadable. Reads
    at most the first 64 KB of a text file."""
    if path == "-":
        return None
    try:
        if fmt == "parquet":
            pf = pq.ParquetFile(_arrow_source(path))
            if "rules" not in pf.schema_arrow.names or pf.metadata.num_rows == 0:
                return None
            value = pf.read_row_group(0, columns=["rules"]).column(0)[0].as_py()
        else:
            with open(path, "rb") as f:
                head = f.read(1 << 16)
            if b"\0" in head:
                return None
            lines = head.decode("utf-8-sig", "replace").splitlines()
            if fmt == "jsonl":
                first = next((ln for ln in lines if ln.strip()), "")
                value = json.loads(first).get("rules") if first else None
            else:
                row = next(csv.DictReader(lines[:2]), None)
                value = None if row is None else row.get("rules")
    except (OSError, ValueError, AttributeError, csv.Error, pa.ArrowException):
        return None
    return value if isinstance(value, str) and value else None


def detect_format(path: str, fmt: str | None) -> str:
    """``csv``, ``jsonl`` or ``parquet`` from ``--format`` or the file extension.

    >>> detect_format("a.NDJSON", None), detect_format("x.dat", "csv")
    ('jsonl', 'csv')
    """
    if fmt:
        return fmt
    if path == "-":
        raise BullError("reading claims from standard input needs --format csv|jsonl|parquet")
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


def _arrow_source(path: str) -> Any:
    """What Arrow reads: the path, or an open file when the path is not valid UTF-8 (a
    file name in another encoding reaches Python as surrogate escapes Arrow refuses)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return open(path, "rb")
    return path


def _open_check(path: str, fmt: str) -> None:
    """The file can be opened, and a text format does not start with NUL bytes (a binary
    file, ``/dev/zero``: refused at once instead of read forever)."""
    try:
        with open(path, "rb") as f:
            head = f.read(1 << 16)
    except OSError as exc:
        raise BullError(f"cannot read claims file {path}: {exc.strerror}") from None
    if fmt != "parquet" and b"\0" in head:
        raise BullError(f"{path} holds NUL bytes: not a {fmt.upper()} text file")


def read_chunks(
    path: str, fmt: str, explicit: Mapping[str, str], batch_size: int
) -> tuple[dict[str, str], str, Iterator[Chunk]]:
    """Open a claims file: ``(field → column, line label, iterator of chunks)``.

    Bad input that makes the whole file unreadable raises :class:`BullError`.
    """
    if batch_size < 1:
        raise BullError(f"--batch-size must be positive, got {batch_size}")
    if path == "-":
        return _read_stdin(fmt, explicit, batch_size)
    _open_check(path, fmt)
    if fmt == "parquet":
        return _read_parquet(path, explicit, batch_size)
    if fmt == "csv":
        return _read_csv(path, explicit, batch_size)
    if fmt == "jsonl":
        return _read_jsonl(path, explicit, batch_size)
    raise BullError(f"unknown format {fmt!r} (expected csv, jsonl or parquet)")


def _read_stdin(
    fmt: str, explicit: Mapping[str, str], batch_size: int
) -> tuple[dict[str, str], str, Iterator[Chunk]]:
    """Claims from standard input: spooled to a temporary file as they arrive (the
    readers need a file; Parquet needs to seek), which is removed when reading ends."""
    import atexit
    import contextlib
    import os
    import shutil
    import sys
    import tempfile

    fd, name = tempfile.mkstemp(prefix="bull-stdin-", suffix=f".{fmt}")

    def remove() -> None:
        with contextlib.suppress(OSError):
            os.unlink(name)

    atexit.register(remove)  # also when the run stops before reading every chunk
    try:
        with os.fdopen(fd, "wb") as spool:
            shutil.copyfileobj(sys.stdin.buffer, spool, 1 << 20)
        mapping, label, chunks = read_chunks(name, fmt, explicit, batch_size)
    except BaseException:
        remove()
        raise

    def gen() -> Iterator[Chunk]:
        try:
            yield from chunks
        finally:
            remove()

    return mapping, label, gen()


def _read_parquet(
    path: str, explicit: Mapping[str, str], batch_size: int
) -> tuple[dict[str, str], str, Iterator[Chunk]]:
    try:
        pf = pq.ParquetFile(_arrow_source(path))
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
        first = f.readline(1 << 20)  # a header line, not a whole file without line ends
    if len(first) >= 1 << 20:
        raise BullError(f"{path}: the first line is over 1 MB; not a CSV header")
    try:
        header_text = first.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise BullError(f"{path} line 1: not UTF-8 text") from None
    header = next(csv.reader([header_text]), [])
    header = [h.strip() for h in header]
    if not header or not any(header):
        raise BullError(f"{path}: no header line (expected column names such as hand,points)")
    mapping = map_columns(header, explicit)
    # rows the CSV parser skipped: (logical row number, newlines inside it, message)
    skipped: list[tuple[int, int, str | None]] = []

    def handler(row: Any) -> str:
        number = int(row.number) if row.number is not None else -1
        text = row.text or ""
        message = None
        if text.strip():
            message = f"has {row.actual_columns} fields, the header has {row.expected_columns}"
        skipped.append((number, text.count("\n"), message))
        return "skip"

    names = header
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise BullError(f"{path}: the header names column {dup!r} twice")
    read_opts = pacsv.ReadOptions(
        use_threads=False, block_size=max(1 << 20, batch_size * 64), column_names=names, skip_rows=1
    )
    parse_opts = pacsv.ParseOptions(
        invalid_row_handler=handler, ignore_empty_lines=False, newlines_in_values=True
    )
    conv = pacsv.ConvertOptions(
        column_types={n: pa.binary() for n in names},  # decoded here, row by row if need be
        strings_can_be_null=False,
        quoted_strings_can_be_null=False,
    )
    try:
        reader = pacsv.open_csv(
            _arrow_source(path),
            read_options=read_opts,
            parse_options=parse_opts,
            convert_options=conv,
        )
    except (OSError, pa.ArrowException) as exc:
        raise BullError(f"cannot read {path} as CSV: {str(exc).splitlines()[0]}") from None

    lines = _PhysicalLines()

    def gen() -> Iterator[Chunk]:
        done = 0
        try:
            for batch in reader:
                for start in range(0, batch.num_rows, batch_size):
                    part = batch.slice(start, batch_size)
                    n = part.num_rows
                    nl = np.zeros(n, dtype=np.int64)
                    for col in part.columns:
                        counts = pc.fill_null(pc.count_substring(col, "\n"), 0)
                        nl += np.asarray(counts.to_numpy(zero_copy_only=False), dtype=np.int64)
                    physical, bad = lines.place(done, nl, skipped)
                    cols, ok, why = _decoded(part, mapping)
                    bad += [(int(physical[i]), why) for i in np.flatnonzero(~ok)]
                    if not ok.all():
                        keep = pa.array(ok)
                        cols = {k: pc.filter(v, keep) for k, v in cols.items()}
                        physical = physical[ok]
                    done += n
                    yield Chunk(cols, physical, sorted(bad))
        except (OSError, pa.ArrowException) as exc:
            msg = str(exc).splitlines()[0]
            raise BullError(f"{path}: unreadable CSV after line {done + 1}: {msg}") from None
        _, bad = lines.place(done, np.zeros(0, dtype=np.int64), skipped)
        if bad:
            yield Chunk(
                {k: pa.array([], pa.string()) for k in mapping}, np.zeros(0, dtype=np.int64), bad
            )

    return mapping, "line", gen()


def _decoded(
    part: pa.RecordBatch, mapping: Mapping[str, str]
) -> tuple[dict[str, pa.Array], npt.NDArray[np.bool_], str]:
    """The mapped columns as UTF-8 text, and which rows decode (a row that does not is
    malformed, not the end of the file)."""
    ok = np.ones(part.num_rows, dtype=bool)
    cols: dict[str, pa.Array] = {}
    for key, name in mapping.items():
        raw = part.column(part.schema.get_field_index(name))
        try:
            cols[key] = raw.cast(pa.string())
            continue
        except (pa.ArrowInvalid, pa.ArrowException):
            pass
        values = []
        for i, v in enumerate(raw.to_pylist()):
            try:
                values.append(v.decode("utf-8") if v is not None else None)
            except UnicodeDecodeError:
                ok[i] = False
                values.append("")
        cols[key] = pa.array(values, pa.string())
    return cols, ok, "not UTF-8 text"


class _PhysicalLines:
    """Physical line numbers of CSV rows: the parser's logical row number (the header is
    row 1; skipped rows count) plus every newline inside the quoted fields of the rows
    before it.

    >>> pl = _PhysicalLines()
    >>> skipped = [(3, 0, "bad")]          # logical row 3 was skipped
    >>> lines, bad = pl.place(0, np.array([1, 0, 0]), skipped)  # row 2 holds a newline
    >>> lines.tolist(), bad
    ([2, 5, 6], [(4, 'bad')])
    """

    def __init__(self) -> None:
        self.extra = 0  # newlines inside the rows placed so far
        self.taken = 0  # skipped rows placed so far

    def place(
        self,
        done: int,
        nl: npt.NDArray[np.int64],
        skipped: list[tuple[int, int, str | None]],
    ) -> tuple[npt.NDArray[np.int64], list[tuple[int, str]]]:
        """Lines of the next ``len(nl)`` good rows (``done`` good rows before them), and
        the messages of the skipped rows placed with them (all the rest when ``nl`` is
        empty)."""
        n = len(nl)
        rows = sorted(skipped)
        s = np.array([r[0] for r in rows], dtype=np.int64)
        before = s - 2 - np.arange(len(s))  # good rows before skipped row j
        g = np.arange(done, done + n, dtype=np.int64)
        logical = g + 2 + np.searchsorted(before, g, side="right")
        upto = int(np.searchsorted(before, g[-1], side="right")) if n else len(rows)
        # rows by logical number (good and skipped): number + newlines of the rows before
        take = rows[self.taken : max(upto, self.taken)]
        nums = np.concatenate([logical, np.array([r[0] for r in take], np.int64)])
        nls = np.concatenate([nl, np.array([r[1] for r in take], np.int64)]).astype(np.int64)
        who = np.concatenate([np.arange(n), -1 - np.arange(self.taken, self.taken + len(take))])
        order = np.argsort(nums, kind="stable")
        line_of = nums[order] + np.cumsum(nls[order]) - nls[order] + self.extra
        who_o = who[order]
        physical = np.empty(n, dtype=np.int64)
        physical[who_o[who_o >= 0]] = line_of[who_o >= 0]
        msgs = [(int(line_of[k]), rows[-1 - int(who_o[k])][2]) for k in np.flatnonzero(who_o < 0)]
        bad = [(ln, str(m)) for ln, m in msgs if m is not None]
        self.extra += int(nls.sum())
        self.taken = max(upto, self.taken)
        return physical, bad


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
        if isinstance(v, list):  # a hand written as a list of cards or tiles
            if all(isinstance(x, str) for x in v):
                return " ".join(v)
            return json.dumps(v)  # anything else: malformed where it is read
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


def prefetch(chunks: Iterator[Chunk], depth: int = 2) -> Iterator[Chunk]:
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
