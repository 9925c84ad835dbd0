"""``bull eval GAME --input FILE`` answered a block at a time must print exactly what
answering each line alone prints: the same text or JSON line per hand, in input order,
and for a bad line the same message with its line number. The expected output is built
here line by line from the per-hand path (``Game.eval_records`` and ``eval_text``), on
files of random hands in every spelling mixed with malformed, blank and comment lines."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest

from solver import games
from solver.cli import main
from solver.commands import _BadLine, _read_lines
from solver.core.errors import BullError
from tests.test_fast_notation import random_card_line, random_tile_line


def expected(game: str, path: Path, flags: list[str]) -> tuple[str, str, int]:
    """stdout, stderr and exit code of answering each line alone."""
    g = games.get(game)
    opts: dict[str, object] = {}
    rules = None
    it = iter(flags)
    for f in it:
        if f == "--rules":
            rules = next(it)
        elif f == "--bet":
            opts["bet"] = next(it)
        elif f == "--banker-reveals":
            opts["banker_reveals"] = next(it)
    as_json = "--json" in flags
    out, err, bad = [], [], 0
    for n, line in _read_lines(str(path)):
        if isinstance(line, _BadLine):
            err.append(f"bull: error: {path} line {n}: {line}\n")
            bad += 1
            continue
        try:
            (rec,) = g.eval_records([line], rules, opts, None)
        except BullError as exc:
            err.append(f"bull: error: {path} line {n}: {exc}\n")
            bad += 1
            continue
        out.append((json.dumps(rec, ensure_ascii=False) if as_json else g.eval_text(rec)) + "\n")
    if bad:
        err.append(f"bull: {bad:,} input line(s) could not be answered\n")
    return "".join(out), "".join(err), 1 if bad else 0


def run(game: str, path: Path, flags: list[str]) -> tuple[str, str, int]:
    out, err = io.StringIO(), io.StringIO()
    rc = main(["eval", game, "--input", str(path), *flags], out=out, err=err)
    return out.getvalue(), err.getvalue(), rc


def write_lines(path: Path, lines: list[str], rng: random.Random) -> None:
    extra = ["", "   ", "# comment", "\xff\xfe"]
    body = []
    for line in lines:
        if rng.random() < 0.03:
            body.append(rng.choice(extra))
        body.append(line)
    raw = "\n".join(body).encode("utf-8", "surrogateescape")
    path.write_bytes(raw.replace("\xff\xfe".encode(), b"\xff\xfe") + b"\r\n")


def card_lines(rng: random.Random, n: int, sizes: tuple[int, ...]) -> list[str]:
    from solver.core.cards import CARD_NAMES

    out = []
    for _ in range(n):
        if rng.random() < 0.6:  # plain, well-formed hands
            k = rng.choice(sizes)
            out.append(" ".join(CARD_NAMES[c] for c in rng.sample(range(52), k)))
        else:
            out.append(random_card_line(rng))
    return out


CASES = [
    ("niuniu", []),
    ("niuniu", ["--json"]),
    ("niuniu", ["--bet", "double", "--json"]),
    ("niuniu", ["--rules", "no_faces"]),
    ("niuniu", ["--rules", "casino", "--json"]),
    ("niuniu", ["--rules", "shoe6"]),
    ("pokdeng", []),
    ("pokdeng", ["--json"]),
    ("pokdeng", ["--rules", "shoe8"]),
    ("pokdeng", ["--rules", "straights", "--json"]),
    ("taungau", []),
    ("taungau", ["--json"]),
    ("taungau", ["--rules", "pagat"]),
    ("taungau", ["--banker-reveals", "first", "--json"]),
]


@pytest.mark.parametrize(("game", "flags"), CASES, ids=[" ".join([g, *f]) for g, f in CASES])
def test_block_answers_match_line_answers(tmp_path: Path, game: str, flags: list[str]) -> None:
    rng = random.Random(hash((game, *flags)) & 0xFFFF)
    if game == "taungau":
        lines = [random_tile_line(rng) for _ in range(120)]
    else:
        lines = card_lines(rng, 200, (5,) if game == "niuniu" else (2, 3))
    path = tmp_path / "hands.txt"
    write_lines(path, lines, rng)
    assert run(game, path, flags) == expected(game, path, flags)
