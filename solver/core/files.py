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

import codecs
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from solver.core.errors import BullError

__all__ = [
    "BOM",
    "HEAD_BYTES",
    "TOO_LONG",
    "Head",
    "Lines",
    "arrow_source",
    "check_regular",
    "check_text",
    "kind_of",
    "lf_copy",
    "open_input",
    "read_text",
    "text_head",
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
    ``what`` and the file: it cannot be opened (a broken link is named so), it is a
    folder, or (``regular``) it is not a regular file (a link says what it leads to).
    The open never blocks: a FIFO with no writer reads as empty.

    >>> open_input("/dev/null", "log")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    solver.core.errors.BullError: cannot read log /dev/null: it is a character device, not ...
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if isinstance(exc, FileNotFoundError) and os.path.islink(path):
            problem = f"a broken link (to {os.readlink(path)})"
        else:
            problem = str(exc.strerror or exc)
        raise BullError(f"cannot read {what} {path}: {problem}") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode) or (regular and not stat.S_ISREG(mode)):
            via = f"a link to {os.path.realpath(path)}, " if os.path.islink(path) else ""
            raise BullError(
                f"cannot read {what} {path}: it is {via}{kind_of(mode)}, not a regular file"
            )
        if flags & getattr(os, "O_NONBLOCK", 0):
            import fcntl  # the reads that follow wait for data as usual

            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def check_regular(path: str, what: str) -> None:
    """What :func:`open_input` checks, for a file another program reads: a regular file
    this process can open, or a one-line :class:`BullError` naming it and what it is."""
    open_input(path, what).close()


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
        raise _not_utf8(raw, exc.start, where) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _not_utf8(raw: bytes, start: int, where: str, line: int | None = None) -> BullError:
    """The error for bytes of ``raw`` from ``start`` on that are not UTF-8: its line
    (``line``, or counted in ``raw``) and a guess at the encoding."""
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff") or b"\0" in raw[:200]:
        hint = " (UTF-16?)"
    elif b"\0" not in raw:
        hint = " (Latin-1?)"
    else:
        hint = ""
    return BullError(f"{where} line {line or _line_of(raw, start)}: not UTF-8 text{hint}")


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


HEAD_BYTES = 1 << 20
"""How much of a file another program reads is checked by :func:`text_head`."""


@dataclass(frozen=True)
class Head:
    """What the first bytes of a text file say (see :func:`text_head`)."""

    bom: bool
    """It starts with a UTF-8 byte-order mark."""
    bare_cr: bool
    """A line in the head ends with a CR alone (old Mac style)."""
    first_line: bytes | None
    """The first line, without the BOM and its line end (None: longer than the head)."""
    empty: bool
    """Nothing but a BOM and white space."""


def text_head(path: str, what: str, *, limit: int = HEAD_BYTES) -> Head:
    r"""The first ``limit`` bytes of the regular file ``path``, checked: UTF-8 (the
    error names the line), no NUL byte; what they say about its BOM and line ends. A
    file another program reads (an audit log) is checked here, so that a Latin-1 or
    UTF-16 file is refused in one line naming it, before that program reads it.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile(delete=False) as f:
    ...     _ = f.write(BOM + b"round,hand\r1,AS\r")
    >>> text_head(f.name, "log")
    Head(bom=True, bare_cr=True, first_line=b'round,hand', empty=False)
    >>> with open(f.name, "wb") as g:
    ...     _ = g.write("round\n".encode("utf-16-le"))
    >>> text_head(f.name, "log")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    solver.core.errors.BullError: log ... line 1: NUL bytes; not a text file (UTF-16?)
    """
    try:
        with open_input(path, what) as f:
            raw = f.read(limit + 1)
    except OSError as exc:
        raise BullError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    at_end = len(raw) <= limit
    bom = raw.startswith(BOM)
    body = raw[len(BOM) if bom else 0 : limit]
    where = f"{what} {path}"
    try:
        codecs.utf_8_decode(body, "strict", at_end)  # a sequence cut at the limit is fine
    except UnicodeDecodeError as exc:
        raise _not_utf8(body, exc.start, where) from None
    nul = body.find(b"\0")
    if nul >= 0:
        hint = " (UTF-16?)" if body[:200].count(b"\0") * 4 >= len(body[:200]) else ""
        line = _line_of(body, nul)
        raise BullError(f"{where} line {line}: NUL bytes; not a text file{hint}")
    cut_cr = not at_end and body.endswith(b"\r")  # its LF may be the next byte
    bare_cr = body.count(b"\r") - body.count(b"\r\n") - cut_cr > 0
    ends = [i for i in (body.find(b"\r"), body.find(b"\n")) if i >= 0]
    first = body[: min(ends)] if ends else (body if at_end else None)
    return Head(bom, bare_cr, first, at_end and not body.strip())


def check_text(path: str, what: str, *, chunk: int = 1 << 22) -> None:
    r"""The whole regular file ``path`` checked as UTF-8 text without NUL bytes (a
    leading BOM allowed), streamed in reads of ``chunk`` bytes (memory stays bounded; a
    read of plain ASCII is two passes in C, a few GB/s): bytes that are not UTF-8, or a
    NUL, are a :class:`BullError` naming ``what``, the file and the line, as
    :func:`text_head` names them in a file's head. For a file another program reads
    whole, which would replace such bytes silently, read a line holding them as a null
    row, refuse them without naming the file, or not read them at all.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile(delete=False) as f:
    ...     _ = f.write(BOM + b"a\r\n\xc3\xa9\rb\n" + b"x" * 20 + b"caf\xe9\n")
    >>> check_text(f.name, "log", chunk=8)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    solver.core.errors.BullError: log ... line 4: not UTF-8 text (Latin-1?)
    >>> with open(f.name, "wb") as g:
    ...     _ = g.write(b"a\r\nb\r\n" + b"x" * 20 + b"\0\xe9")
    >>> check_text(f.name, "log", chunk=8)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    solver.core.errors.BullError: log ... line 3: NUL bytes; not a text file
    """
    where = f"{what} {path}"
    with open_input(path, what) as f:
        pos = 0  # bytes of the file before ``pending``
        pending = b""  # the start of a UTF-8 sequence cut by the last read
        while True:
            data = _read(f, max(chunk, len(BOM) + 1), where)
            end = not data
            if pos == 0 and data.startswith(BOM):
                pos, data = len(BOM), data[len(BOM) :]
            nul = data.find(b"\0")
            if not pending and nul < 0 and data.isascii():
                pos += len(data)
            else:
                buf = pending + data
                nul += len(pending) if nul >= 0 else 0
                try:
                    if nul >= 0:  # a sequence the NUL cuts is not UTF-8
                        _, used = codecs.utf_8_decode(buf[:nul], "strict", True)
                    else:
                        _, used = codecs.utf_8_decode(buf, "strict", end)
                except UnicodeDecodeError as exc:
                    line = _line_in_file(f, pos + exc.start, chunk, where)
                    raise _not_utf8(buf, exc.start, where, line) from None
                if nul >= 0:
                    line = _line_in_file(f, pos + nul, chunk, where)
                    raise BullError(f"{where} line {line}: NUL bytes; not a text file")
                pending, pos = buf[used:], pos + used
            if end:
                return


def _read(f: BinaryIO, size: int, where: str) -> bytes:
    try:
        return f.read(size)
    except OSError as exc:
        raise BullError(f"cannot read {where}: {exc.strerror or exc}") from None


def _line_in_file(f: BinaryIO, offset: int, chunk: int, where: str) -> int:
    """The 1-based line of the seekable file ``f`` holding byte ``offset`` (CR, LF and
    CRLF end lines), counted in reads of ``chunk`` bytes."""
    f.seek(0)
    ends, done, cr = 0, 0, False
    while done < offset:
        data = _read(f, min(chunk, offset - done), where)
        if not data:
            break
        ends += data.count(b"\n") + data.count(b"\r") - data.count(b"\r\n")
        ends -= cr and data.startswith(b"\n")  # a CRLF cut by the reads
        cr = data.endswith(b"\r")
        done += len(data)
    return ends + 1


def lf_copy(path: str, what: str, dest: str, *, chunk: int = 1 << 20) -> None:
    r"""The regular file ``path`` written to ``dest`` with every line end LF (CR and
    CRLF too) and a leading BOM dropped, for a reader that ends lines at LF only. It is
    streamed in reads of ``chunk`` bytes (memory stays bounded) and checked as UTF-8 on
    the way: bytes that are not are a :class:`BullError` naming ``what``, the file and
    the line, as are a read or write error.

    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> src, dst = os.path.join(d, "a.jsonl"), os.path.join(d, "b.jsonl")
    >>> with open(src, "wb") as f:
    ...     _ = f.write(BOM + b'{"a": 1}\r\n{"a": 2}\r{"a": 3}\r')
    >>> lf_copy(src, "log", dst, chunk=12)  # the CR of a CRLF ends a read
    >>> open(dst, "rb").read()
    b'{"a": 1}\n{"a": 2}\n{"a": 3}\n'
    >>> with open(src, "wb") as f:
    ...     _ = f.write(b"ok\rok\r\xc3\xa9\rcaf\xe9\r")
    >>> lf_copy(src, "log", dst, chunk=7)  # a read cuts the é; doctest: +ELLIPSIS
    Traceback (most recent call last):
    solver.core.errors.BullError: log ... line 4: not UTF-8 text (Latin-1?)
    """
    where = f"{what} {path}"
    with open_input(path, what) as src:
        try:
            with open(dest, "wb") as out:  # a write error (a full disk) may come at close
                _lf_stream(src, out, where, max(chunk, len(BOM) + 1))
        except OSError as exc:
            raise BullError(f"cannot copy {where} to {dest}: {exc.strerror or exc}") from None


def _lf_stream(src: BinaryIO, out: BinaryIO, where: str, chunk: int) -> None:
    """The loop of :func:`lf_copy` (read errors are a :class:`BullError` here; write
    errors propagate)."""
    lines = 0  # line ends written so far
    carry = b""  # a CR that ended the last read: the LF of a CRLF may start this one
    pending = b""  # the start of a UTF-8 sequence cut by the last read
    first = True
    while True:
        try:
            data = src.read(chunk)
        except OSError as exc:
            raise BullError(f"cannot read {where}: {exc.strerror or exc}") from None
        end = not data
        if first and data.startswith(BOM):
            data = data[len(BOM) :]
        first = False
        data, carry = carry + data, b""
        if not end and data.endswith(b"\r"):
            data, carry = data[:-1], b"\r"
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        buf = pending + data
        try:
            _, used = codecs.utf_8_decode(buf, "strict", end)
        except UnicodeDecodeError as exc:
            line = lines + buf[: exc.start].count(b"\n") + 1
            raise _not_utf8(buf, exc.start, where, line) from None
        pending = buf[used:]
        out.write(data)
        lines += data.count(b"\n")
        if end:
            return


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
