"""The lines of a hand file (``bull eval --input``, ``bull round --input``), read in
blocks of bytes instead of one ``readline`` per line.

A :class:`LineBlock` holds the hand lines of about a megabyte of input as
:class:`~solver.kit.notation.Spans` over the bytes read (no copy, no Python string
per line), with their physical line numbers, and the lines that cannot be read. The
rules are those of the line-by-line reader it replaces:

* a line ends at LF, CR or CRLF (the CR of a CRLF is white space of its line); a
  UTF-8 byte-order mark at the start is skipped;
* blank lines and lines starting with ``#`` (after white space) are skipped, but
  counted for the line numbers;
* a line of more than :data:`MAX_LINE` bytes is reported ("line too long") and
  skipped without being held in memory; a line that is not UTF-8 is reported;
* a NUL byte, or a line of more than :data:`MAX_SKIPPED` bytes, means the input is
  not text: an error once the lines before it are answered.

The text of a line is Python's ``line.strip()`` of its decoded bytes
(:meth:`LineBlock.text`), so a line the fast tokenisers cannot read goes to the
per-hand parser exactly as before.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.core.errors import BullError
from solver.core.files import BOM, open_input
from solver.kit.notation import Spans

__all__ = ["BLOCK_BYTES", "MAX_LINE", "MAX_SKIPPED", "LineBlock", "read_blocks"]

MAX_LINE = 10_000
"""The longest hand line read (bytes, without its line end)."""
MAX_SKIPPED = 64 << 20
"""A line longer than this (bytes) means the input is no hand file at all."""
BLOCK_BYTES = 1 << 19
"""Bytes read at a time: memory stays bounded whatever the file's size."""

_WS = np.zeros(256, dtype=bool)
_WS[[9, 10, 11, 12, 13, 28, 29, 30, 31, 32]] = True
"""ASCII bytes Python's ``str.strip`` removes."""
_WS_BYTES = bytes(np.flatnonzero(_WS).tolist())


@dataclass
class LineBlock:
    """The hand lines of one block: ``spans`` (hand ``i`` is line ``numbers[i]``),
    and ``bad``, the lines that could not be read, as ``(line, message)``."""

    spans: Spans
    numbers: npt.NDArray[np.int64]
    bad: list[tuple[int, str]] = field(default_factory=list)
    error: BullError | None = None
    """Raised once this block is answered (the input is not text)."""

    def __len__(self) -> int:
        return len(self.numbers)

    def text(self, i: int) -> str:
        """Hand line ``i`` as the line reader gave it: decoded and stripped."""
        s = self.spans
        return bytes(s.data[s.starts[i] : s.ends[i]]).decode("utf-8").strip()


def _nul_error(source: str, n: int) -> BullError:
    return BullError(f"input {source} line {n}: NUL bytes; not a text file of hands")


def _huge_error(source: str, n: int) -> BullError:
    return BullError(
        f"input {source} line {n}: over {MAX_SKIPPED:,} bytes without a line "
        "end or with NUL bytes; not a text file of hands"
    )


def _too_long() -> str:
    return f"line too long (over {MAX_LINE:,} characters)"


def _block(
    data: npt.NDArray[np.uint8], first_line: int, source: str, final: bool
) -> tuple[LineBlock, int, int]:
    """The complete lines of ``data`` (all of it when ``final``): the block, how many
    bytes it used and how many line ends those hold."""
    ends_at = data == 10
    cr = data == 13
    if cr.any():  # a CR not followed by LF ends a line (at the very end: when final)
        after = np.append(data[1:], np.uint8(13 if final else 10))
        ends_at |= cr & (after != 10)
    nl = np.flatnonzero(ends_at)
    used = len(data) if final else (int(nl[-1]) + 1 if len(nl) else 0)
    ends = nl if used == (int(nl[-1]) + 1 if len(nl) else 0) else np.append(nl, len(data))
    ends = ends.astype(np.int64)
    starts = np.empty(len(ends), dtype=np.int64)
    if len(ends):
        starts[0] = 0
        starts[1:] = ends[:-1] + 1
    numbers = first_line + np.arange(len(ends), dtype=np.int64)
    error: BullError | None = None
    zero = np.flatnonzero(data[:used] == 0)
    if len(zero):  # the input stops being text at the first NUL
        k = int(np.searchsorted(ends, zero[0]))
        start = int(starts[k])
        head = int(zero[0]) - start < MAX_LINE + 2 or int(ends[k]) - start <= MAX_LINE
        error = (_nul_error if head else _huge_error)(source, int(numbers[k]))
        starts, ends, numbers = starts[:k], ends[:k], numbers[:k]
    length = ends - starts  # without its line end: the CR of a CRLF is not counted
    if len(ends):
        last = np.maximum(ends - 1, 0)
        at = np.minimum(ends, len(data) - 1)
        length -= (ends > starts) & (ends < len(data)) & (data[last] == 13) & (data[at] == 10)
    bad: list[tuple[int, str]] = [(int(n), _too_long()) for n in numbers[length > MAX_LINE]]
    keep = length <= MAX_LINE
    # blank and comment lines: the first byte that is not white space (most lines
    # start with it; the others are looked at one by one, or all at once if many)
    padded = np.append(data[:used], np.uint8(0))
    first = starts.copy()
    lead = np.flatnonzero(_WS[padded[starts]] & (starts < ends))
    if len(lead) > 64:
        solid = np.append(np.flatnonzero(~_WS[data[:used]]), used)
        first[lead] = solid[np.searchsorted(solid, starts[lead])]
    else:
        for k in lead.tolist():
            line = bytes(data[starts[k] : ends[k]])
            first[k] = starts[k] + len(line) - len(line.lstrip(_WS_BYTES))
    blank = (first >= ends) | (padded[np.minimum(first, used)] == ord("#"))
    # lines with bytes above 0x7f: decoded (and stripped) as Python does
    high = np.flatnonzero(data[:used] >= 0x80)
    if len(high):  # suit symbols alone need no decoding: they are valid UTF-8, no space
        sym = np.zeros(used + 2, dtype=bool)
        at = high[(data[high] == 0xE2) & (high + 2 < used)]
        at = at[(data[at + 1] == 0x99) & (data[at + 2] >= 0xA0) & (data[at + 2] <= 0xA7)]
        sym[at] = sym[at + 1] = sym[at + 2] = True
        high = high[~sym[high]]
    if len(high):
        odd = np.unique(np.searchsorted(ends, high))
        for k in odd.tolist():
            if k >= len(ends) or not keep[k]:
                continue
            raw = bytes(data[starts[k] : ends[k]]).rstrip(b"\r\n")
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                bad.append((int(numbers[k]), "not UTF-8 text"))
                keep[k] = False
                continue
            stripped = text.strip()
            blank[k] = not stripped or stripped.startswith("#")
    keep &= ~blank
    spans = Spans(data, starts[keep], ends[keep], np.ones(int(keep.sum()), dtype=bool))
    bad.sort()
    return LineBlock(spans, numbers[keep], bad, error), used, int(np.searchsorted(nl, used))


def _drain_long(stream: Any, tail: bytes, source: str, n: int) -> tuple[bytes, BullError | None]:
    """Skip the rest of line ``n`` (``tail`` holds its first bytes, no LF); the bytes
    after its end, or the error that ends the input."""
    if b"\0" in tail[: MAX_LINE + 2]:
        return b"", _nul_error(source, n)
    seen = len(tail)
    if b"\0" in tail or seen > MAX_SKIPPED:
        return b"", _huge_error(source, n)
    while True:
        chunk = _read(stream)
        if not chunk:
            return b"", None
        cut = min((i for i in (chunk.find(b"\n"), chunk.find(b"\r")) if i >= 0), default=-1)
        part = chunk if cut < 0 else chunk[: cut + 1]
        seen += len(part)
        if b"\0" in part or seen > MAX_SKIPPED:
            return b"", _huge_error(source, n)
        if cut >= 0:
            rest = chunk[cut + 1 :]
            if chunk[cut] == 13 and not rest:  # a CR last: its LF may come next
                rest = _read(stream)
            return rest[1:] if chunk[cut] == 13 and rest[:1] == b"\n" else rest, None


def _read(stream: Any) -> bytes:
    read1 = getattr(stream, "read1", None)
    data: bytes = read1(BLOCK_BYTES) if read1 is not None else stream.read(BLOCK_BYTES)
    return data


def read_blocks(source: str, label: str | None = None) -> Iterator[LineBlock]:
    """The hand lines of a file (``-``: standard input) in blocks, streamed.

    ``label`` names the input in errors (default: the path, ``stdin`` for ``-``).
    """
    name = label or ("stdin" if source == "-" else source)
    if source == "-":
        stream = getattr(sys.stdin, "buffer", None) or io.BytesIO()  # stdin closed: empty
    else:  # the one opener: a FIFO with no writer does not hang, a folder is refused
        stream = open_input(source, "input file", regular=False)
    try:
        line = 1
        pending = b""
        start = True
        while True:
            chunk = _read(stream)
            final = not chunk
            data = pending + chunk
            if start and not final and len(data) < len(BOM) and BOM.startswith(data):
                pending = data  # the start of a byte-order mark, read on
                continue
            if start:
                start = False
                data = data[len(BOM) :] if data.startswith(BOM) else data
            if not data:
                return
            block, used, line_ends = _block(np.frombuffer(data, dtype=np.uint8), line, name, final)
            line += line_ends
            line += 0 if not used or data[used - 1] in (10, 13) else 1
            pending = data[used:]
            if len(block.numbers) or block.bad or block.error:
                yield block
            if block.error is not None:
                raise block.error
            if len(pending) > MAX_LINE + 1:  # a line too long, still without its end
                if b"\0" in pending[: MAX_LINE + 2]:
                    raise _nul_error(name, line)
                pending, error = _drain_long(stream, pending, name, line)
                if error is not None:
                    raise error
                yield LineBlock(Spans.of_strings([]), np.zeros(0, np.int64), [(line, _too_long())])
                line += 1
            if final:
                return
    except OSError as exc:
        raise BullError(f"cannot read input file {source}: {exc.strerror}") from None
    finally:
        if source != "-":
            stream.close()
