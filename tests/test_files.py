"""The one input reader (solver.core.files): lines split as a user expects, bounded,
never hanging; a file read whole checked as UTF-8 with the bad line named."""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.core.errors import BullError
from solver.core.files import BOM, Lines, open_input, read_text


class Trickle(io.RawIOBase):
    """A stream that gives its bytes in the pieces asked for (an interactive or piped
    input: a CR may end one read and its LF start the next)."""

    def __init__(self, data: bytes, sizes: list[int]) -> None:
        self.data, self.sizes, self.pos = data, sizes or [1], 0

    def read1(self, n: int = -1) -> bytes:
        size = self.sizes[self.pos % len(self.sizes)] if self.pos < len(self.data) else 1
        out = self.data[self.pos : self.pos + min(size, n)]
        self.pos += len(out)
        return out


def reference(data: bytes, max_line: int) -> list[bytes | None]:
    """The lines by the rule text: a BOM at the start skipped; CR, LF and CRLF each end a
    line; a last line without an end is a line; longer than max_line: None."""
    if data.startswith(BOM):
        data = data[3:]
    lines = re.split(rb"\r\n|\r|\n", data)
    if lines and lines[-1] == b"":
        lines.pop()
    return [None if len(x) > max_line else x for x in lines]


@settings(max_examples=300, deadline=None)
@given(
    data=st.lists(st.sampled_from([b"a", b"bc", b"\r", b"\n", b"\r\n", BOM, b"x" * 7]))
    .map(b"".join)
    .map(lambda d: d if d else b""),
    bom=st.booleans(),
    sizes=st.lists(st.integers(1, 9), max_size=5),
    max_line=st.integers(1, 12),
)
def test_lines_split_as_the_rule_text_says(
    data: bytes, bom: bool, sizes: list[int], max_line: int
) -> None:
    data = BOM + data if bom else data
    got = list(Lines(Trickle(data, sizes), "input t", max_line=max_line))
    assert got == reference(data, max_line)


def test_a_cr_at_the_end_of_a_read_does_not_wait_for_the_next_byte() -> None:
    """An interactive answer ended by CR is given at once (the next read would block)."""

    class Once(io.RawIOBase):
        def __init__(self) -> None:
            self.given = False

        def read1(self, n: int = -1) -> bytes:
            if self.given:
                raise AssertionError("read past the first line")
            self.given = True
            return b"7\r"

    assert next(iter(Lines(Once(), "answers", max_line=10))) == b"7"


def test_a_long_line_is_skipped_in_bounded_pieces() -> None:
    """A line far longer than max_line is one None; the reader never holds it."""
    data = b"ok\n" + b"9" * 3_000_000 + b"\r\nend"
    lines = Lines(Trickle(data, [65536]), "input t", max_line=100)
    assert list(lines) == [b"ok", None, b"end"]


def test_endless_input_is_an_error_or_an_end() -> None:
    with open("/dev/zero", "rb") as zero, pytest.raises(BullError, match="line 1: NUL bytes"):
        list(Lines(zero, "input z", max_line=10, nul=True))
    endless = Trickle(b"9" * 400_000, [65536])
    with pytest.raises(BullError, match="over 100,000 bytes without a line end"):
        list(Lines(endless, "input e", max_line=10, max_skip=100_000))
    endless = Trickle(b"9" * 400_000, [65536])
    assert list(Lines(endless, "e", max_line=10, max_skip=100_000, endless_ends=True)) == []
    assert list(Lines(None, "closed stdin", max_line=10)) == []


@pytest.mark.parametrize(
    ("raw", "needle"),
    [
        ("ok\ncafé\n".encode("latin-1"), "f line 2: not UTF-8 text (Latin-1?)"),
        ("a\nb\n".encode("utf-16"), "f line 1: not UTF-8 text (UTF-16?)"),
        (b"a\r\nb\rc\n\xff", "f line 4: not UTF-8 text"),
    ],
)
def test_read_text_names_the_line_that_is_not_utf8(tmp_path: Path, raw: bytes, needle: str) -> None:
    path = tmp_path / "f"
    path.write_bytes(raw)
    with pytest.raises(BullError) as e:
        read_text(str(path), "rule file", 1000)
    assert needle in str(e.value) and "\n" not in str(e.value)


def test_read_text_skips_the_bom_and_reads_every_line_end(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(BOM + b"a\r\nb\rc\nd")
    assert read_text(str(path), "rule file", 1000) == "a\nb\nc\nd"
    path.write_bytes(b"x" * 1001)
    with pytest.raises(BullError, match="larger than 1,000 bytes"):
        read_text(str(path), "rule file", 1000)


def test_what_is_not_a_regular_file_is_refused_at_once(tmp_path: Path) -> None:
    """A FIFO with no writer (the open would block forever), a device, a folder."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path, kind in [(fifo, "a FIFO"), (Path("/dev/zero"), "a character device")]:
        with pytest.raises(BullError, match=f"it is {kind}"):
            open_input(str(path), "player strategy")
    with pytest.raises(BullError, match="it is a folder"):
        open_input(str(tmp_path), "input file", regular=False)
    with open_input(str(fifo), "input file", regular=False) as f:  # no writer: empty
        assert f.read() == b""


def _first_bad(data: bytes) -> tuple[int, str] | None:
    """The line and kind of the first byte that is not UTF-8 text, by the rule text: a
    BOM at the start skipped; Python's decoder finds the first invalid byte; the lines
    before it are split at CR, LF and CRLF; a NUL counts as soon as it comes."""
    if data.startswith(BOM):
        data = data[3:]
    try:
        data.decode("utf-8")
        bad = len(data)
    except UnicodeDecodeError as exc:
        bad = exc.start
    nul = data.find(b"\0")
    if 0 <= nul < bad:
        return len(re.split(rb"\r\n|\r|\n", data[:nul])), "NUL bytes"
    if bad == len(data):
        return None
    return len(re.split(rb"\r\n|\r|\n", data[:bad])), "not UTF-8 text"


TEXTISH = st.lists(
    st.sampled_from([b"a", b"\r", b"\n", b"\r\n", "é".encode(), "€".encode(), b"\xe9",
                     b"\xe2\x82", b"\0", BOM, b"xyz" * 5]),
    max_size=40,
).map(b"".join)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(raw=TEXTISH, chunk=st.integers(1, 12), bom=st.booleans())
def test_check_text_names_the_first_bad_line_whatever_the_reads(
    tmp_path_factory: pytest.TempPathFactory, raw: bytes, chunk: int, bom: bool
) -> None:
    """The whole-file check streams the file in reads of ``chunk`` bytes (a UTF-8
    sequence, a CRLF or the BOM cut by them) and names the line of the first byte that
    is not UTF-8 or is a NUL, as the reference reads the file whole."""
    from solver.core.files import check_text

    data = (BOM if bom else b"") + raw
    path = tmp_path_factory.mktemp("check") / "f"
    path.write_bytes(data)
    want = _first_bad(data)
    if want is None:
        check_text(str(path), "log", chunk=chunk)
        return
    with pytest.raises(BullError) as e:
        check_text(str(path), "log", chunk=chunk)
    assert str(e.value).startswith(f"log {path} line {want[0]}: {want[1]}"), (data, str(e.value))


def test_a_link_to_what_is_not_a_file_says_so(tmp_path: Path) -> None:
    """A link to a device or a FIFO names where it leads; a broken link is named so."""
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "null").symlink_to("/dev/null")
    (tmp_path / "lfifo").symlink_to(tmp_path / "fifo")
    (tmp_path / "broken").symlink_to(tmp_path / "gone")
    for name, needle in [
        ("null", "null: it is a link to /dev/null, a character device, not a regular file"),
        ("lfifo", f"lfifo: it is a link to {tmp_path}/fifo, a FIFO (named pipe), not a"),
        ("broken", f"broken: a broken link (to {tmp_path}/gone)"),
        ("gone", "gone: No such file or directory"),
    ]:
        with pytest.raises(BullError) as e:
            open_input(str(tmp_path / name), "log")
        assert needle in str(e.value), str(e.value)
