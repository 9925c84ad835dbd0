"""The block reader of hand files (:mod:`solver.kit.lines`) against the line-by-line
reader it replaces (``solver.commands._read_lines``): the same hand lines with the same
numbers and text, the same unreadable lines, the same error at a NUL byte — on random
files of hands, blank lines, comments, CRLF and CR-only ends, a BOM, bytes that are not
UTF-8 and lines too long."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from solver.commands import _BadLine, _read_lines
from solver.core.errors import BullError
from solver.kit import lines as L


def old(path: Path) -> tuple[list[tuple[int, str]], str | None]:
    out: list[tuple[int, str]] = []
    try:
        for n, line in _read_lines(str(path)):
            out.append((n, f"!{line}" if isinstance(line, _BadLine) else line))
    except BullError as exc:
        return out, str(exc)
    return out, None


def new(path: Path) -> tuple[list[tuple[int, str]], str | None]:
    out: list[tuple[int, str]] = []
    try:
        for block in L.read_blocks(str(path)):
            rows = [(int(n), block.text(i)) for i, n in enumerate(block.numbers)]
            rows += [(n, f"!{m}") for n, m in block.bad]
            out += sorted(rows)
    except BullError as exc:
        return out, str(exc)
    return out, None


PIECES = [
    b"KS 9H 8C 3D 7S",
    b"  as 2s 3s 4s 5s\t",
    b"",
    b"   ",
    b"# a comment",
    b"  # indented comment",
    b"10\xe2\x99\xa0 J\xe2\x99\xa5 Q\xe2\x99\xa6 K\xe2\x99\xa3 A\xe2\x99\xa4",
    b"\xff\xfe bad bytes",
    b"\xe3\x80\x80AS 2S 3S 4S 5S\xe3\x80\x80",  # ideographic spaces: stripped
    b"\x1cAS\x1c",
    b"\xc2\xa0",  # a no-break space alone: blank
    b"[6:5][4:1] 22 33 54",
]


def random_file(rng: random.Random) -> bytes:
    out = b"\xef\xbb\xbf" if rng.random() < 0.2 else b""
    for _ in range(rng.randrange(1, 60)):
        r = rng.random()
        if r < 0.03:
            piece = b"X" * rng.choice([L.MAX_LINE - 1, L.MAX_LINE, L.MAX_LINE + 1, 30000])
        else:
            piece = rng.choice(PIECES)
        out += piece + rng.choice([b"\n", b"\n", b"\r\n", b"\r", b"\r\r\n"])
    if rng.random() < 0.3:
        out = out.rstrip(b"\n")
    if rng.random() < 0.1:
        at = rng.randrange(len(out) + 1)
        out = out[:at] + b"\0" + out[at:]
    return out


@pytest.mark.parametrize("block", [1 << 20, 4096])
def test_block_reader_matches_line_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    monkeypatch.setattr(L, "BLOCK_BYTES", block)
    rng = random.Random(block)
    for k in range(60):
        path = tmp_path / f"f{k}.txt"
        path.write_bytes(random_file(rng))
        want, got = old(path), new(path)
        assert got == want, path.read_bytes()[:200]


def test_a_huge_line_is_skipped_in_pieces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(L, "BLOCK_BYTES", 4096)
    path = tmp_path / "long.txt"
    path.write_bytes(b"AS 2S 3S 4S 5S\n" + b"Y" * 50_000 + b"\nKS 9H 8C 3D 7S\n")
    assert new(path) == old(path)
    assert new(path)[0][1] == (2, f"!line too long (over {L.MAX_LINE:,} characters)")
