"""Finding and mapping logs of play for ``bull audit``.

``LOGS`` are files, folders (every log file under them) or globs, all of one format:
Parquet, CSV or JSON Lines (by extension, or ``--format``). A log has one row per seat
per round; its columns are matched to the logical fields of :data:`AUDIT_FIELDS`
case-insensitively, like ``bull verify``'s (``--column FIELD=NAME`` renames), and the
``--by`` columns must exist.

Every local log is checked through the one input checker of :mod:`solver.core.files`
before an engine reads it (:func:`find_logs`, :func:`check_logs`): a regular file (a
device, a FIFO, a link to one or a broken link named as such), and a CSV or JSON Lines
log UTF-8 text without NUL bytes, whole (the error names the file and the line), the
CSV header without a column named twice. A BOM is skipped and CR, LF and CRLF all end
a line on both engines; the one engine reader that ends lines at LF only (DuckDB's JSON
Lines) is given an LF copy of a log with CR-only line ends (:func:`engine_view`),
streamed into a temporary folder that is deleted afterwards. A log with LF or CRLF line
ends is read where it is.

>>> sorted(AUDIT_FIELDS)
['hand', 'net', 'result', 'role', 'round']
>>> map_log_columns(["Round_ID", "Role", "Cards", "x"], {}, [])
{'round': 'Round_ID', 'role': 'Role', 'hand': 'Cards'}
"""

from __future__ import annotations

import contextlib
import glob
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from solver.core.errors import BullError
from solver.core.files import (
    HEAD_BYTES,
    Head,
    Lines,
    check_regular,
    check_text,
    lf_copy,
    open_input,
    text_head,
)

__all__ = [
    "AUDIT_FIELDS",
    "FORMATS",
    "NEEDS_LF",
    "LogSet",
    "bad_json_line",
    "check_logs",
    "engine_view",
    "find_logs",
    "map_log_columns",
    "parse_columns",
    "parse_round_key",
    "scope_columns",
]

AUDIT_FIELDS: dict[str, tuple[str, ...]] = {
    "round": ("round", "round_id", "game_id", "hand_id", "round_no"),
    "role": ("role", "seat_role", "position"),
    "hand": ("hand", "cards", "tiles"),
    "result": ("result", "outcome", "winner"),
    "net": ("net", "payout", "player_net"),
}
"""Logical field → the column names looked for by default (case-insensitive)."""
REQUIRED = ("round", "role", "hand")
FORMATS = {
    ".parquet": "parquet",
    ".pq": "parquet",
    ".csv": "csv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
}


@dataclass(frozen=True)
class LogSet:
    """The files of one audit, their format, and the logical field → column map."""

    files: tuple[str, ...]
    fmt: str
    columns: Mapping[str, str]
    by: tuple[str, ...]


def parse_columns(items: Sequence[str]) -> dict[str, str]:
    """``["round=game_no"]`` → ``{"round": "game_no"}`` (unknown fields are errors).

    >>> parse_columns(["hand = cards"])
    {'hand': 'cards'}
    """
    out: dict[str, str] = {}
    for item in items:
        key, sep, name = (s.strip() for s in item.partition("="))
        if not sep or not name:
            raise BullError(f"--column {item!r}: expected FIELD=NAME, e.g. round=game_no")
        if key not in AUDIT_FIELDS:
            raise BullError(
                f"--column {item!r}: unknown field {key!r} (fields: {', '.join(AUDIT_FIELDS)})"
            )
        out[key] = name
    return out


def find_logs(paths: Sequence[str], fmt: str | None = None) -> tuple[list[str], str]:
    """Every file named by ``paths`` (files, folders, globs) and their one format."""
    if not paths:
        raise BullError("no logs given")
    files: list[str] = []
    for p in paths:
        if "://" in p:  # a URI (hdfs://, s3a://...): the engine reads it
            files.append(p)
        elif any(ch in p for ch in "*?["):
            hits = sorted(h for h in glob.glob(p, recursive=True) if os.path.isfile(h))
            if not hits:
                raise BullError(f"{p}: no file matches")
            files += hits
        elif os.path.isdir(p):
            hits = sorted(
                os.path.join(d, f)
                for d, _, names in os.walk(p)
                for f in names
                if os.path.splitext(f)[1].lower() in FORMATS
                and not f.startswith((".", "_"))
                and os.path.isfile(os.path.join(d, f))  # not a FIFO or device named x.csv
            )
            if not hits:
                raise BullError(f"{p}: no log files (.parquet, .csv, .jsonl) in the folder")
            files += hits
        else:
            check_regular(p, "log")  # a device, a FIFO, a folder or a broken link: named
            files.append(p)
    seen: dict[str, str] = {}
    for f in files:
        real = f if "://" in f else os.path.realpath(f)
        if real in seen:  # its rounds would be read twice: every card dealt twice
            also = "" if seen[real] == f else f" (also as {seen[real]})"
            raise BullError(f"{f}: the log is named twice{also}; give each log once")
        seen[real] = f
    if fmt is None:
        kinds = {FORMATS.get(os.path.splitext(f.rstrip("/"))[1].lower()) for f in files}
        if None in kinds:
            bad = next(f for f in files if os.path.splitext(f)[1].lower() not in FORMATS)
            raise BullError(
                f"cannot tell the format of {bad} from its extension; pass --format "
                "parquet|csv|jsonl"
            )
        if len(kinds) > 1:
            raise BullError(f"the logs mix formats ({', '.join(sorted(map(str, kinds)))})")
        fmt = kinds.pop()
    assert fmt is not None
    return files, fmt


NEEDS_LF = frozenset({("duckdb", "jsonl")})
"""The engines' readers that end a line at LF only (DuckDB's JSON Lines: a CR-only log
is "unexpected content after document"): they are given an LF copy of a log whose
first megabyte ends a line with a CR alone. DuckDB's CSV reader and Spark's readers
end lines at CR, LF and CRLF themselves (the tests audit each style on both)."""


def check_logs(files: Sequence[str], fmt: str) -> list[Head | None]:
    """The head of each local CSV or JSON Lines log (None: a URI or Parquet), each
    log checked whole through the one input reader first
    (:func:`~solver.core.files.check_text`: UTF-8 text without NUL bytes; the error
    names the file and the line), then its head read
    (:func:`~solver.core.files.text_head`). A CSV header naming a column twice (also in
    another case: columns match case-insensitively) is a one-line error too, and so
    are logs that are all empty. The engines read such bytes each in their own way:
    DuckDB refuses them in a column it reads without naming the log (and never reads
    the others), Spark puts U+FFFD for them in a CSV field and reads a JSON line
    holding them as a null row.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
    ...     _ = f.write("round,role,hand,Round")
    >>> try:
    ...     check_logs([f.name], "csv")
    ... except BullError as e:
    ...     print(str(e).split(": ", 1)[1])
    the header names the column 'round' twice (columns 1 and 4)
    """
    if fmt == "parquet":
        return [None] * len(files)
    heads: list[Head | None] = []
    for path in files:
        if "://" in path:
            heads.append(None)
            continue
        check_text(path, "log")
        heads.append(text_head(path, "log"))
    if heads and all(h is not None and h.empty for h in heads):
        raise BullError(f"{files[0]}: no rows to audit (the file is empty)")
    if fmt == "csv":
        for path, head in zip(files, heads, strict=True):
            if head is not None:
                _check_header(path, head)
    return heads


def _check_header(path: str, head: Head) -> None:
    import csv

    if head.first_line is None:
        raise BullError(f"{path}: the header is longer than {HEAD_BYTES:,} bytes")
    names = next(csv.reader([head.first_line.decode("utf-8", errors="replace")]), [])
    seen: dict[str, int] = {}
    for i, name in enumerate(names):
        key = name.strip().lower()
        if key in seen:
            raise BullError(
                f"{path}: the header names the column {names[seen[key]].strip()!r} twice "
                f"(columns {seen[key] + 1} and {i + 1})"
            )
        seen[key] = i


@contextlib.contextmanager
def engine_view(
    files: Sequence[str], heads: Sequence[Head | None], fmt: str, engine: str
) -> Iterator[list[str]]:
    """The files ``engine`` reads for ``files``: each one itself, or (see
    :data:`NEEDS_LF`) an LF copy of one with CR-only line ends, under the same base name
    in a temporary folder deleted when the block ends. A :class:`BullError` raised in
    the block names the logs, not their copies."""
    want = [h is not None and h.bare_cr and (engine, fmt) in NEEDS_LF for h in heads]
    if not any(want):
        yield list(files)
        return
    import shutil
    import tempfile

    tmp = tempfile.mkdtemp(prefix="bull-audit-lf-")
    copies: dict[str, str] = {}
    try:
        view = list(files)
        for i, path in enumerate(files):
            if want[i]:
                os.mkdir(os.path.join(tmp, str(i)))
                view[i] = os.path.join(tmp, str(i), os.path.basename(path))
                lf_copy(path, "log", view[i])
                copies[view[i]] = path
        try:
            yield view
        except BullError as exc:
            msg = str(exc)
            for copy, path in copies.items():
                msg = msg.replace(copy, path)
            raise BullError(msg) from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def bad_json_line(path: str, near: int) -> int:
    r"""The line of the JSON Lines log ``path``, ``near`` or the one before it, that is
    not a JSON object (DuckDB's reader names the line after the bad one); ``near``
    when neither is. Read through :class:`~solver.core.files.Lines` (CR, LF and CRLF).

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("wb", suffix=".jsonl", delete=False) as f:
    ...     _ = f.write(b'{"a": 1}\r\n{"a": \r\n\r\n{"a": 3}\r\n')
    >>> bad_json_line(f.name, 3), bad_json_line(f.name, 2), bad_json_line(f.name, 4)
    (2, 2, 4)
    """
    import json

    with open_input(path, "log") as f:
        for number, line in enumerate(Lines(f, f"log {path}", max_line=1 << 24), 1):
            if number >= near - 1:
                try:
                    ok = line is not None and (
                        not line.strip() or isinstance(json.loads(line), dict)
                    )
                except ValueError:  # not JSON, or not UTF-8
                    ok = False
                if not ok or number >= near:
                    return number if not ok else near
    return near


def map_log_columns(
    names: Sequence[str], explicit: Mapping[str, str], by: Sequence[str]
) -> dict[str, str]:
    """Logical field → column (``explicit`` ones must exist; the required ones too),
    and ``by:<name>`` → column for each ``--by`` column."""
    lower = {n.lower(): n for n in names}
    have = ", ".join(names) or "none"
    out: dict[str, str] = {}
    for key, defaults in AUDIT_FIELDS.items():
        if key in explicit:
            want = explicit[key]
            found = want if want in names else lower.get(want.lower())
            if found is None:
                raise BullError(f"column {want!r} (for {key}) is not in the logs (columns: {have})")
            out[key] = found
            continue
        for cand in defaults:
            if cand in lower:
                out[key] = lower[cand]
                break
    missing = [k for k in REQUIRED if k not in out]
    if missing:
        raise BullError(
            f"the logs lack the column(s) {', '.join(missing)} (columns: {have}; rename with "
            "--column FIELD=NAME)"
        )
    for b in by:
        found = b if b in names else lower.get(b.lower())
        if found is None:
            raise BullError(f"--by {b!r}: no such column in the logs (columns: {have})")
        out[f"by:{b}"] = found
    return out


def parse_round_key(items: Sequence[str]) -> list[str]:
    """``--round-key COL[,COL]``: the columns that identify a round (the last: its id).

    >>> parse_round_key(["table, day,round"])
    ['table', 'day', 'round']
    """
    out: list[str] = []
    for item in items:
        names = [s.strip() for s in item.split(",")]
        if not all(names):
            raise BullError(f"--round-key {item!r}: expected COL[,COL], e.g. table,round")
        out += names
    if len(set(out)) < len(out):
        raise BullError(f"--round-key {','.join(out)}: a column is named twice")
    return out


def scope_columns(names: Sequence[str], key: Sequence[str]) -> list[str]:
    """The logs' columns of the ``--round-key`` columns before the last (matched
    case-insensitively), which a round id is unique within."""
    lower = {n.lower(): n for n in names}
    out = []
    for k in key[:-1]:
        found = k if k in names else lower.get(k.lower())
        if found is None:
            have = ", ".join(names) or "none"
            raise BullError(f"--round-key {k!r}: no such column in the logs (columns: {have})")
        out.append(found)
    return out
