r"""The one way an input file is opened and read: bounded, UTF-8 checked, never hanging.

Every file a user names (a rule file, a player strategy, a vectors document, a file of
hands, a claims file) is opened by :func:`open_input`: without blocking (a FIFO with no
writer does not hang the open), a folder refused, and — when the reader needs a file
it can seek in or read whole (``regular=True``) — anything but a regular file refused
in one line naming the file and what it is (``/dev/zero``, a FIFO, a socket).

A file read whole goes through :func:`read_text`: at most ``limit`` bytes, a UTF-8
byte-order mark skipped, the bytes checked as UTF-8 (the error names the line), and
CR, LF and CRLF line ends all read as ``\n``. A file read line by line goes through
:class:`Lines`: physical lines split on CR, LF or CRLF (a CR at the end of a read does
not wait for the next byte, so an interactive stream never blocks), a BOM at the start
skipped, a line longer than ``max_line`` bytes given as :data:`TOO_LONG` and skipped
in bounded pieces — memory stays bounded whatever the input.

>>> import io
>>> list(Lines(io.BytesIO(b"\xef\xbb\xbfa\r\nb\rc\nd"), "input x", max_line=10))
[b'a', b'b', b'c', b'd']
>>> list(Lines(io.BytesIO(b"ok\n" + b"9" * 50 + b"\nend"), "input x", max_line=10))
[b'ok', None, b'end']
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from typing import Any, BinaryIO

from solver.core.errors import BullError

__all__ = [
    "BOM",
    "TOO_LONG",
    "Lines",
    "arrow_source",
    "kind_of",
    "open_input",
    "read_text",
    "utf8_name",
    "utf8_text",
]

BOM = b"\xef\xbb\xbf"
"""The UTF-8 byte-order mark some editors write at the start of a file."""
TOO_LONG = None
"""What :class:`Lines` gives for a line longer than its ``max_line``."""

_CHUNK = 1 << 16


def kind_of(mode: int) -> str:
    """What a file that is not a regular one is, in words.

    >>> kind_of(stat.S_IFIFO), kind_of(stat.S_IFCHR)
    ('a FIFO (named pipe)', 'a character device')
    """
    for test, name in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def open_input(path: str, what: str, *, regular: bool = True) -> BinaryIO:
    """``path`` opened for reading in binary, or a one-line :class:`BullError` naming
    ``what`` and the file: it cannot be opened, it is a folder, or (``regular``) it is
    not a regular file. The open never blocks: a FIFO with no writer reads as empty."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise BullError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode) or (regular and not stat.S_ISREG(mode)):
            raise BullError(f"cannot read {what} {path}: it is {kind_of(mode)}, not a regular file")
        if flags & getattr(os, "O_NONBLOCK", 0):
            import fcntl  # the reads that follow wait for data as usual

            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def arrow_source(path: str | os.PathLike[str], what: str = "file") -> Any:
    """What Arrow opens for ``path``: a regular file (checked by :func:`open_input`: a
    FIFO would make Arrow's own open wait forever), given by its name — or, when the
    name is not UTF-8 (surrogate escapes, which Arrow cannot encode), as the open file.

    >>> arrow_source(__file__) == __file__
    True
    """
    name = os.fspath(path)
    f = open_input(name, what)
    if not utf8_name(name):
        return f
    f.close()
    return name


def utf8_name(path: str | os.PathLike[str]) -> bool:
    """Whether a file name is UTF-8 text (one in another encoding reaches Python as
    surrogate escapes).

    >>> utf8_name("caf\\xe9"), utf8_name(os.fsdecode(b"caf\\xe9"))
    (True, False)
    """
    try:
        os.fspath(path).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _line_of(raw: bytes, offset: int) -> int:
    """The 1-based line holding byte ``offset`` (CR, LF and CRLF end lines).

    >>> _line_of(b"a\\r\\nb\\rc\\nd", 8)
    4
    """
    head = raw[:offset]
    return head.count(b"\n") + head.count(b"\r") - head.count(b"\r\n") + 1


def utf8_text(raw: bytes, where: str) -> str:
    """``raw`` decoded as UTF-8 (a leading BOM skipped), line ends made ``\\n``; bytes
    that are not UTF-8 are a :class:`BullError` naming ``where`` and the line.

    >>> utf8_text(BOM + b"a\\r\\nb\\rc", "f")
    'a\\nb\\nc'
    >>> utf8_text(b"ok\\ncaf\\xe9\\n", "rule file f")
    Traceback (most recent call last):
    ...
    solver.core.errors.BullError: rule file f line 2: not UTF-8 text (Latin-1?)
    """
    if raw.startswith(BOM):
        raw = raw[len(BOM) :]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if raw[:2] in (b"\xff\xfe", b"\xfe\xff") or b"\0" in raw[:200]:
            hint = " (UTF-16?)"
        elif b"\0" not in raw:
            hint = " (Latin-1?)"
        else:
            hint = ""
        line = _line_of(raw, exc.start)
        raise BullError(f"{where} line {line}: not UTF-8 text{hint}") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_text(path: str, what: str, limit: int, *, error: type[BullError] = BullError) -> str:
    """A regular file read whole as text (see :func:`utf8_text`), at most ``limit``
    bytes; every failure is one line of ``error`` naming ``what`` and the file."""
    try:
        with open_input(path, what) as f:
            if os.fstat(f.fileno()).st_size > limit:
                raise error(f"{what} {path} is larger than {limit:,} bytes")
            raw = f.read(limit + 1)
    except OSError as exc:
        raise error(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    except BullError as exc:
        raise exc if isinstance(exc, error) else error(str(exc)) from None
    if len(raw) > limit:
        raise error(f"{what} {path} is larger than {limit:,} bytes")
    try:
        return utf8_text(raw, f"{what} {path}")
    except BullError as exc:
        raise error(str(exc)) from None


def _empty(_: int) -> bytes:
    return b""


class Lines:
    """The physical lines of a binary (or text) stream, without their line ends.

    CR, LF and CRLF end a line; a UTF-8 BOM at the start is skipped; a line longer than
    ``max_line`` bytes is :data:`TOO_LONG` (``None``), its rest skipped in bounded
    pieces. With ``nul`` a NUL byte is a :class:`BullError` naming ``what`` and the
    line, once the lines before it are given (the input is not ``text``); past
    ``max_skip`` bytes of one line the input is endless: a :class:`BullError`, or with
    ``endless_ends`` the end of the lines. :attr:`number` counts the lines read so far
    (a read gives many at once: number lines yourself). Read errors propagate as
    :class:`OSError`; a stream of ``None`` (a closed stdin) has no lines.

    >>> import io
    >>> list(Lines(io.BytesIO(b"ok\\na\\0b\\n"), "input f", max_line=9, nul=True))
    Traceback (most recent call last):
    ...
    solver.core.errors.BullError: input f line 2: NUL bytes; not a text file
    """

    def __init__(
        self,
        stream: Any,
        what: str,
        *,
        max_line: int,
        nul: bool = False,
        max_skip: int | None = None,
        endless_ends: bool = False,
        text: str = "a text file",
    ) -> None:
        self.stream = getattr(stream, "buffer", stream)
        self.what = what
        self.max_line = max_line
        self.nul = nul
        self.max_skip = max_skip
        self.endless_ends = endless_ends
        self.text = text
        self.number = 0
        read1 = getattr(self.stream, "read1", None)
        self._read = read1 if read1 is not None else getattr(self.stream, "read", _empty)

    def _chunk(self) -> tuple[bytes, bool]:
        """The next read, cut before a NUL byte (``True``: cut) when NULs are refused."""
        data = self._read(_CHUNK) or b""
        if isinstance(data, str):  # a text stream (io.StringIO)
            data = data.encode("utf-8", "surrogateescape")
        at = data.find(b"\0") if self.nul else -1
        return (data, False) if at < 0 else (data[:at], True)

    def _endless(self) -> BullError:
        return BullError(
            f"{self.what} line {self.number + 1}: over {self.max_skip or 0:,} bytes without "
            f"a line end or with NUL bytes; not {self.text}"
        )

    def __iter__(self) -> Iterator[bytes | None]:
        for batch in self.batches():
            yield from batch

    def batches(self) -> Iterator[list[bytes | None]]:
        """The lines in lists, one per read (at least one line each): the fast way to
        take many lines. :attr:`number` counts every line of the lists given."""
        pending = b""  # the start of a line not ended yet
        skipping = -1  # bytes of a too-long line skipped so far (-1: not skipping)
        skip_lf = False  # the last line ended with a CR: a LF that follows is its end
        start = True
        while True:
            data, cut = self._chunk()
            end = not data and not cut
            if start:
                if not end and len(pending + data) < len(BOM) and BOM.startswith(pending + data):
                    pending += data
                    if not cut:
                        continue
                data = pending + data
                pending = b""
                start = False
                if data.startswith(BOM):
                    data = data[len(BOM) :]
                    if not data and not cut:
                        continue
            if end:  # the end of the input
                if skipping >= 0 or pending:
                    self.number += 1
                    yield [TOO_LONG if skipping >= 0 else pending]
                return
            if skip_lf:
                skip_lf = False
                if data.startswith(b"\n"):
                    data = data[1:]
            ended = data.endswith((b"\n", b"\r"))
            parts: list[bytes | None] = list(data.splitlines())
            tail = b"" if ended or not parts else parts.pop()
            assert tail is not None
            skip_lf = data.endswith(b"\r")  # its LF may be the first byte of the next read
            if parts:
                if skipping >= 0:
                    parts[0] = TOO_LONG
                    skipping = -1
                elif pending:
                    parts[0] = pending + (parts[0] or b"")
                    pending = b""
                if max(len(p or b"") for p in parts) > self.max_line:
                    parts = [TOO_LONG if p is None or len(p) > self.max_line else p for p in parts]
                self.number += len(parts)
                yield parts
            if skipping >= 0:
                skipping += len(tail)
            else:
                pending += tail
                if len(pending) > self.max_line:
                    skipping = len(pending)
                    pending = b""
            if cut:  # a NUL byte: in the first bytes of its line, or deep in a long one
                into = skipping if skipping >= 0 else len(pending)
                if into >= self.max_line + 2 and self.max_skip is not None:
                    raise self._endless()
                line = self.number + 1
                raise BullError(f"{self.what} line {line}: NUL bytes; not {self.text}")
            if self.max_skip is not None and skipping > self.max_skip:
                if self.endless_ends:
                    return
                raise self._endless()
