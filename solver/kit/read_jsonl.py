"""Reading a JSON Lines claims file in blocks, a broken line malformed, memory bounded.

Lines come from the one bounded reader (:class:`~solver.core.files.Lines`: CR, LF and
CRLF end a line, a BOM at the start is skipped), so a line of any length is held at
most :data:`MAX_LINE_BYTES` long: a longer one is a malformed row, skipped in bounded
pieces. A block of lines is read by Arrow at once when it can be (every line an object,
valid UTF-8, the same types), else line by line, where a line that is not UTF-8, not
JSON or not an object is malformed and the rest are read.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator, Mapping
from itertools import islice
from typing import Any

import numpy as np
import pyarrow as pa

from solver.core.errors import BullError
from solver.core.files import Lines, open_input
from solver.kit.columns import Chunk, map_columns

__all__ = ["MAX_LINE_BYTES", "read_jsonl"]

MAX_LINE_BYTES = 1 << 22
"""The longest JSON line read (bytes); a longer one is malformed (a claim is ~100)."""

_TOO_LONG = b"\0too long"  # no JSON text holds a NUL byte: a placeholder line


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
    line-by-line reader (a blank, broken, too long or not UTF-8 line, a value whose
    type changes)."""
    import pyarrow.json as pajson

    data = b"\n".join(lines) + b"\n"
    if _BLANK_LINE.search(b"\n" + data) or b"\0" in data:
        return None
    try:
        if not data.isascii():
            data.decode("utf-8")  # JSON text is UTF-8: a line that is not is malformed
        t = pajson.read_json(
            io.BytesIO(data),
            read_options=pajson.ReadOptions(
                use_threads=False, block_size=max(len(data) + 1, 1 << 20)
            ),
        )
    except (pa.ArrowException, ValueError):
        return None
    return t if t.num_rows == len(lines) else None


def _valid_text(obj: Any) -> bool:
    """Whether the strings of a parsed object encode as UTF-8 (``"\\ud800"`` escapes
    do not)."""
    try:
        json.dumps(obj, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _jsonl_slow(
    lines: list[bytes], start: int
) -> tuple[list[tuple[int, dict[str, Any]]], list[tuple[int, str]]]:
    rows: list[tuple[int, dict[str, Any]]] = []
    bad: list[tuple[int, str]] = []
    for k, raw in enumerate(lines):
        line = start + k
        if raw == _TOO_LONG:
            bad.append((line, f"line too long (over {MAX_LINE_BYTES:,} bytes)"))
            continue
        try:
            stripped = raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            bad.append((line, "not UTF-8 text"))
            continue
        if not stripped:
            continue
        try:
            obj = json.loads(stripped)
        except (ValueError, RecursionError) as exc:
            bad.append((line, f"not valid JSON ({str(exc).split(':')[0]})"))
            continue
        if not isinstance(obj, dict):
            bad.append((line, "not a JSON object"))
            continue
        if "\\u" in stripped and not _valid_text(obj):
            bad.append((line, "not UTF-8 text (an escaped lone surrogate)"))
            continue
        rows.append((line, obj))
    return rows, bad


def _placeholders(batches: Iterator[list[bytes | None]]) -> Iterator[bytes]:
    for batch in batches:
        if None in batch:
            yield from (_TOO_LONG if b is None else b for b in batch)
        else:
            yield from batch  # type: ignore[misc]  # no None in it


def read_jsonl(
    path: str, explicit: Mapping[str, str], batch_size: int
) -> tuple[dict[str, str], str, Iterator[Chunk]]:
    """Open a JSON Lines claims file: ``(field → column, "line", iterator of chunks)``."""
    f = open_input(path, "claims file")
    source = _placeholders(Lines(f, path, max_line=MAX_LINE_BYTES).batches())
    first = list(islice(source, batch_size))
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
                lines = list(islice(source, batch_size))
                if not lines:
                    return
                yield chunk_of(lines, start, _jsonl_fast(lines), None)
                start += len(lines)
        except OSError as exc:
            raise BullError(f"{path}: unreadable after line {start - 1}: {exc.strerror}") from None
        finally:
            f.close()

    return mapping, "line", gen()
