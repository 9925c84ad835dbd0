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
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Generic, TypeVar

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from solver.core.errors import BullError
from solver.core.files import Lines, arrow_source, open_input
from solver.kit.columns import (
    CODED,
    FIELDS,
    MAX_LISTED,
    Chunk,
    map_columns,
    parse_column_options,
)
from solver.kit.read_jsonl import read_jsonl

T = TypeVar("T")

__all__ = [
    "FIELDS",
    "MAX_LISTED",
    "Chunk",
    "Prefetch",
    "detect_format",
    "map_columns",
    "parse_column_options",
    "peek_rules",
    "prefetch",
    "read_chunks",
]


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
            with open_input(path, "claims file") as f:
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
    except (OSError, ValueError, AttributeError, RecursionError, csv.Error, pa.ArrowException):
        return None  # BullError (not a regular file) is a ValueError
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
    """What Arrow reads (:func:`~solver.core.files.arrow_source`): a regular file, by
    name or, when the name is not UTF-8, open."""
    return arrow_source(path, "claims file")


def _open_check(path: str, fmt: str) -> None:
    """The file is a regular file that can be opened (a FIFO, ``/dev/zero``: refused at
    once instead of waited on or read forever; standard input is ``-``), and a text
    format does not start with NUL bytes (a binary file)."""
    with open_input(path, "claims file") as f:
        try:
            head = f.read(1 << 16)
        except OSError as exc:
            raise BullError(f"cannot read claims file {path}: {exc.strerror}") from None
    if fmt != "parquet" and b"\0" in head:
        raise BullError(f"{path} holds NUL bytes: not a {fmt.upper()} text file")


def read_chunks(
    path: str, fmt: str, explicit: Mapping[str, str], batch_size: int, coded_as_is: bool = False
) -> tuple[dict[str, str], str, Iterator[Chunk]]:
    """Open a claims file: ``(field → column, line label, iterator of chunks)``;
    ``coded_as_is``: a Parquet label column read as a dictionary stays one
    (:attr:`~solver.kit.columns.Chunk.coded_as_is`).

    Bad input that makes the whole file unreadable raises :class:`BullError`.
    """
    if batch_size < 1:
        raise BullError(f"--batch-size must be positive, got {batch_size}")
    if path == "-":
        return _read_stdin(fmt, explicit, batch_size, coded_as_is)
    _open_check(path, fmt)
    if fmt == "parquet":
        return _read_parquet(path, explicit, batch_size, coded_as_is)
    if fmt == "csv":
        return _read_csv(path, explicit, batch_size)
    if fmt == "jsonl":
        return read_jsonl(path, explicit, batch_size)
    raise BullError(f"unknown format {fmt!r} (expected csv, jsonl or parquet)")


def _read_stdin(
    fmt: str, explicit: Mapping[str, str], batch_size: int, coded_as_is: bool = False
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
            if sys.stdin is not None:  # a closed stdin is an empty file
                shutil.copyfileobj(getattr(sys.stdin, "buffer", sys.stdin), spool, 1 << 20)
        mapping, label, chunks = read_chunks(name, fmt, explicit, batch_size, coded_as_is)
    except BullError as exc:  # named as the user named it: standard input
        remove()
        raise BullError(str(exc).replace(name, "standard input")) from None
    except BaseException:
        remove()
        raise

    def gen() -> Iterator[Chunk]:
        try:
            yield from chunks
        except BullError as exc:
            raise BullError(str(exc).replace(name, "standard input")) from None
        finally:
            remove()

    return mapping, label, gen()


def _read_parquet(
    path: str, explicit: Mapping[str, str], batch_size: int, coded_as_is: bool = False
) -> tuple[dict[str, str], str, Iterator[Chunk]]:
    try:
        pf = pq.ParquetFile(_arrow_source(path))
    except (OSError, pa.ArrowException) as exc:
        raise BullError(f"cannot read {path} as Parquet: {str(exc).splitlines()[0]}") from None
    mapping = map_columns(pf.schema_arrow.names, explicit)
    schema = pf.schema_arrow
    at = {f: schema.get_field_index(mapping[f]) for f in CODED if f in mapping}
    coded = sorted(  # labels stored as text: read as dictionaries (a value parsed once)
        {mapping[f] for f, i in at.items() if i >= 0 and pa.types.is_string(schema.field(i).type)}
    )
    groups = pf.metadata.num_row_groups
    # a batch of dictionaries ends where a row group does (each has its own): read a row
    # group at a time, when they are large enough that their batches stay large
    if coded and groups and pf.metadata.num_rows >= groups * (batch_size // 2):
        try:
            pf = pq.ParquetFile(_arrow_source(path), read_dictionary=coded)
        except (OSError, pa.ArrowException) as exc:
            raise BullError(f"cannot read {path} as Parquet: {str(exc).splitlines()[0]}") from None
    else:
        coded = []

    def batches(wanted: list[str]) -> Iterator[pa.RecordBatch]:
        if not coded:
            yield from pf.iter_batches(batch_size=batch_size, columns=wanted)
            return
        for g in range(groups):
            yield from pf.iter_batches(batch_size=batch_size, columns=wanted, row_groups=[g])

    def gen() -> Iterator[Chunk]:
        start = 1
        wanted = sorted(set(mapping.values()))
        try:
            for batch in batches(wanted):
                n = batch.num_rows
                cols = {
                    k: batch.column(batch.schema.get_field_index(v)) for k, v in mapping.items()
                }
                lines = np.arange(start, start + n, dtype=np.int64)
                yield Chunk(cols, lines, coded_as_is=coded_as_is)
                start += n
        except (OSError, pa.ArrowException) as exc:
            raise BullError(
                f"{path}: unreadable Parquet data after row {start - 1}: {str(exc).splitlines()[0]}"
            ) from None

    return mapping, "row", gen()


def _read_csv(
    path: str, explicit: Mapping[str, str], batch_size: int
) -> tuple[dict[str, str], str, Iterator[Chunk]]:
    with open_input(path, "claims file") as f:  # a header line, not a whole file
        first = next(iter(Lines(f, path, max_line=1 << 20)), b"")
    if first is None:
        raise BullError(f"{path}: the first line is over 1 MB; not a CSV header")
    try:
        header_text = first.decode("utf-8")
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
        ends = text.count("\n") + text.count("\r") - text.count("\r\n")
        skipped.append((number, ends, message))
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
    coded = {mapping[f] for f in CODED if f in mapping}  # labels: as dictionaries
    conv = pacsv.ConvertOptions(
        # decoded here, row by row if need be
        column_types={
            n: pa.dictionary(pa.int32(), pa.binary()) if n in coded else pa.binary() for n in names
        },
        strings_can_be_null=False,
        quoted_strings_can_be_null=False,
    )
    source = _arrow_source(path)
    lines = _PhysicalLines()

    def gen() -> Iterator[Chunk]:  # opened here: the first block is read by the reader
        try:
            reader = pacsv.open_csv(
                source, read_options=read_opts, parse_options=parse_opts, convert_options=conv
            )
        except (OSError, pa.ArrowException) as exc:
            raise BullError(f"cannot read {path} as CSV: {str(exc).splitlines()[0]}") from None
        done = 0
        try:
            for batch in reader:
                for start in range(0, batch.num_rows, batch_size):
                    part = batch.slice(start, batch_size)
                    n = part.num_rows
                    nl = np.zeros(n, dtype=np.int64)
                    for col in part.columns:
                        nl += _line_ends(col)
                    physical, bad = lines.place(done, nl, skipped)
                    cols = {
                        k: part.column(part.schema.get_field_index(v)) for k, v in mapping.items()
                    }
                    done += n
                    yield Chunk(cols, physical, sorted(bad))  # rows not UTF-8: malformed
        except (OSError, pa.ArrowException) as exc:
            msg = str(exc).splitlines()[0]
            raise BullError(f"{path}: unreadable CSV after line {done + 1}: {msg}") from None
        _, bad = lines.place(done, np.zeros(0, dtype=np.int64), skipped)
        if bad:
            yield Chunk(
                {k: pa.array([], pa.string()) for k in mapping}, np.zeros(0, dtype=np.int64), bad
            )

    return mapping, "line", gen()


def _line_ends(col: pa.Array) -> npt.NDArray[np.int64] | int:
    """The line ends (CR, LF or CRLF) inside each value of a binary column (quoted
    values may hold them); ``0`` when its data holds none (the common case, found by a
    byte search instead of three passes).

    >>> _line_ends(pa.array([b"a", b"b\\r\\nc\\rd", None])).tolist()
    [0, 2, 0]
    >>> _line_ends(pa.array([b"x\\ny", b"a", b"x\\ny"]).dictionary_encode()).tolist()
    [1, 0, 1]
    """
    if pa.types.is_dictionary(col.type):  # the dictionary's values', by row
        per_value = _line_ends(col.dictionary)
        if isinstance(per_value, int):
            return per_value
        at = np.asarray(col.indices.fill_null(0).to_numpy(zero_copy_only=False), np.int64)
        return np.take(per_value, at)
    buf = col.buffers()[2]
    data = np.zeros(0, dtype=np.uint8) if buf is None else np.frombuffer(buf, dtype=np.uint8)
    out: npt.NDArray[np.int64] | int = 0
    if not len(data) or data.min() > 13:  # one pass, no copy: no byte is CR or LF
        return out
    ends = [(e, 1) for e in (b"\n", b"\r") if (data == e[0]).any()]
    if len(ends) == 2:
        ends.append((b"\r\n", -1))
    for end, sign in ends:
        counts = pc.fill_null(pc.count_substring(col, end.decode()), 0)
        out = out + sign * counts.to_numpy(zero_copy_only=False).astype(np.int64)
    return out


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
        if n and len(skipped) == self.taken and not nl.any():
            # the common case: no row skipped since, no line end inside a value
            start = done + 2 + self.taken + self.extra
            return np.arange(start, start + n, dtype=np.int64), []
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


def prefetch(
    chunks: Iterator[Chunk], depth: int = 2, spare: Callable[[Chunk], Any] | None = None
) -> Prefetch[Chunk]:
    """Read (decode, decompress) the next chunks in a background thread while the
    current one is checked: Arrow releases the GIL while it decodes. The thread starts
    at once (the first chunk is read while the caller prepares); iterate the result, or
    :meth:`Prefetch.close` it. ``spare(chunk)``: work the thread does on a chunk when it
    has time to spare (see :class:`Prefetch`)."""
    return Prefetch(chunks, depth, spare)


class Prefetch(Generic[T]):
    """The ``items``, in order, taken ahead by a thread started on creation (at most
    ``depth`` waiting). An exception is raised to the consumer in the item's place.

    ``spare(item)`` is called in the thread on an item read while an item before it
    still waits to be taken (the consumer is busy: the thread would wait anyway); an
    item read while none waits is handed over at once. The work so shared out follows
    whichever side is slower, on an idle machine or a loaded one."""

    def __init__(
        self, items: Iterable[T], depth: int, spare: Callable[[T], Any] | None = None
    ) -> None:
        import queue
        import threading

        self._q: queue.Queue[tuple[str, Any]] = queue.Queue(maxsize=depth)
        self._stop = threading.Event()
        self._spare = spare
        self._thread = threading.Thread(
            target=self._work, args=(items,), name="bull-verify-reader", daemon=True
        )
        self._thread.start()

    def _put(self, kind: str, item: Any) -> bool:
        """Hand over an item unless stopped meanwhile (then: ``False``)."""
        import queue

        while not self._stop.is_set():
            try:
                self._q.put((kind, item), timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _work(self, items: Iterable[T]) -> None:
        try:
            for item in items:
                if self._spare is not None and not self._q.empty():
                    self._spare(item)
                if not self._put("item", item):
                    return
            self._put("end", None)
        except BaseException as exc:  # handed to the consumer
            self._put("error", exc)

    def __iter__(self) -> Iterator[T]:
        import queue

        try:
            while True:
                try:
                    kind, item = self._q.get(timeout=0.1)
                except queue.Empty:
                    if self._stop.is_set():  # closed: nothing more comes
                        return
                    continue
                if kind == "end":
                    return
                if kind == "error":
                    raise item
                yield item
        finally:
            self.close()

    def close(self) -> None:
        """Stop the thread (the items not taken are dropped)."""
        self._stop.set()
        self._thread.join(timeout=5)
