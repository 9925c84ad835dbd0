"""The whole-batch paths of ``bull eval --input`` (issue 26) against the per-hand ones.

* The block tokeniser (plain ASCII cards, ``[a:b]`` tiles) reads a batch in a few
  whole-batch passes; it must read every hand it accepts exactly as the per-hand
  parser of :mod:`solver.core.cards` / :mod:`solver.core.tiles` does, and accept the
  same hands as the general batch path, on batches made to take it: lines of a file
  with comments and blank lines between, Arrow values with no separator between them.
* ``Game.eval_ids`` (card or tile ids in, finished lines out, no text parsed) must give,
  line for line, what the per-hand records give (``eval_records`` and ``eval_text`` or
  ``json.dumps``), for every game, text and JSON, several rule sets; ``json_array``
  must be ``json.dumps`` of the list of records.
* Lines stored in the user's cache are used only when they check, and give the same
  output as lines written in the run.
"""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from solver import games
from solver.cli import main
from solver.core.cards import CARD_NAMES, parse_cards
from solver.core.errors import BullError
from solver.core.tiles import NUM_TILES, TILE_NAMES, TILE_TYPES, _parse_types
from solver.kit import linestore, notation
from solver.kit.lines import read_blocks
from solver.kit.notation import PAD, Spans, card_tokens, tile_tokens
from solver.kit.textcols import json_array, line_bytes

SEPS = [" ", " ", " ", "  ", "\t", ",", ";", ", "]


def ascii_card(rng: random.Random, card: int) -> str:
    name = CARD_NAMES[card]
    rank, suit = name[:-1], name[-1]
    if rank == "10" and rng.random() < 0.3:
        rank = rng.choice("Tt")
    if rng.random() < 0.2:
        suit = suit.lower()
    if rng.random() < 0.2:
        rank = rank.lower()
    return rank + suit


def ascii_card_line(rng: random.Random, regular: bool) -> str:
    k = 5 if regular else rng.choice([0, 1, 2, 3, 3, 4, 5, 5, 6])
    toks = [ascii_card(rng, rng.randrange(52)) for _ in range(k)]
    if not regular and toks and rng.random() < 0.15:
        toks[rng.randrange(len(toks))] = rng.choice(["XX", "1S", "11H", "10", "KSS", "S", "0S"])
    if not regular and toks and rng.random() < 0.1:
        toks[rng.randrange(len(toks))] += rng.choice(["\x0b", "\x7f", "\x01"])
    line = ""
    for t in toks:
        line += (rng.choice(SEPS) if line else "") + t
    if not regular and rng.random() < 0.2:
        line = rng.choice([" ", "\t"]) + line + rng.choice(["", " ", "\r"])
    return line


def bracket_line(rng: random.Random, regular: bool) -> str:
    k = 5 if regular else rng.choice([0, 3, 4, 5, 5, 6])
    toks = []
    for _ in range(k):
        hi, lo = TILE_TYPES[rng.randrange(21)]
        toks.append(f"[{hi}:{lo}]" if rng.random() < 0.7 else f"[{lo}:{hi}]")
    if not regular and toks and rng.random() < 0.1:
        toks[rng.randrange(len(toks))] = rng.choice(["[7:1]", "[0:0]", "[6:5]]", "[65]"])
    line = ""
    for t in toks:
        line += (rng.choice(["", "", *SEPS]) if line else "") + t
    return line


def per_hand_cards(text: str) -> list[int] | None:
    try:
        return parse_cards(text)
    except BullError:
        return None


def per_hand_tiles(text: str) -> list[int] | None:
    try:
        return _parse_types(text)
    except BullError:
        return None


def file_spans(tmp_path: Path, lines: list[str], rng: random.Random) -> tuple[Spans, list[str]]:
    """The lines written to a file with comments and blank lines between, read back."""
    body = []
    for line in lines:
        if rng.random() < 0.05:
            body.append(rng.choice(["", "# a comment: KS 9H [6:5]", "   "]))
        body.append(line)
    path = tmp_path / "hands.txt"
    path.write_text("\n".join(body) + "\n", encoding="utf-8")
    (block,) = list(read_blocks(str(path)))
    return block.spans, [block.text(i) for i in range(len(block))]


@pytest.mark.parametrize("regular", [True, False])
@pytest.mark.parametrize("source", ["file", "arrow"])
def test_block_card_tokeniser(tmp_path: Path, regular: bool, source: str) -> None:
    rng = random.Random(hash((regular, source)) & 0xFFFF)
    lines = [ascii_card_line(rng, regular) for _ in range(1200)]
    if source == "file":
        spans, texts = file_spans(tmp_path, lines, rng)
    else:  # Arrow values back to back: "KS 9H" then "AS 2S" must not run together
        spans, texts = Spans.of_arrow(pa.array(lines, pa.string())), lines
    sizes = (5,) if regular else (2, 3)
    assert notation._fast_cards(spans, sizes) is not None  # the batch takes the fast path
    ids, size, ok = card_tokens(spans, sizes)
    g_ids, g_size, g_ok = notation._card_tokens(spans, sizes)  # the general path
    assert ok.tolist() == g_ok.tolist()
    assert ok.sum() > len(lines) // 5
    for i, text in enumerate(texts):
        want = per_hand_cards(text)
        if ok[i]:
            got = [c for c in ids[i].tolist() if c != PAD]
            assert got == want, (text, got, want)
            assert len(got) == size[i] == g_size[i] and got == [
                c for c in g_ids[i].tolist() if c != PAD
            ]
        elif want is not None and len(want) in sizes:  # left alone: only for an odd byte
            raw = bytes(spans.data[spans.starts[i] : spans.ends[i]])
            assert any(c in raw for c in b"\x0b\x7f\x01"), text


@pytest.mark.parametrize("regular", [True, False])
def test_block_tile_tokeniser(tmp_path: Path, regular: bool) -> None:
    rng = random.Random(11 + regular)
    lines = [bracket_line(rng, regular) for _ in range(1200)]
    spans, texts = file_spans(tmp_path, lines, rng)
    if regular:
        assert notation._fast_tiles(spans, (5,)) is not None
    types, _size, ok = tile_tokens(spans, (5,))
    _, _, g_ok = notation._tile_tokens(spans, (5,))
    assert ok.tolist() == g_ok.tolist()
    for i, text in enumerate(texts):
        want = per_hand_tiles(text)
        if ok[i]:
            assert [t for t in types[i].tolist() if t >= 0] == want, text
        else:
            assert want is None or len(want) != 5, text


def test_a_tile_in_a_comment_does_not_count(tmp_path: Path) -> None:
    body = "[6:5][4:1]\n# [1:1][2:2][3:3]\n[1:1][2:2][3:3]\n"
    path = tmp_path / "t.txt"
    path.write_text(body, encoding="utf-8")
    (block,) = list(read_blocks(str(path)))
    _types, size, ok = tile_tokens(block.spans, (2, 3))
    assert ok.tolist() == [True, True] and size.tolist() == [2, 3]


def expected_lines(
    game: str, texts: list[str], rules: str | None, opts: dict, as_json: bool
) -> list[str | None]:
    """Each hand's line by the per-hand records (``None``: the hand is refused)."""
    g = games.get(game)
    good = list(range(len(texts)))
    for i in range(min(3, len(texts))):  # the tests put a refused hand first
        try:
            g.eval_records([texts[i]], rules, opts, None)
        except BullError:
            good.remove(i)
    out: list[str | None] = [None] * len(texts)
    try:
        recs = g.eval_records([texts[i] for i in good], rules, opts, None)
    except BullError:  # a refused hand past the first three: one at a time
        recs = []
        for i in list(good):
            try:
                recs += g.eval_records([texts[i]], rules, opts, None)
            except BullError:
                good.remove(i)
    for i, rec in zip(good, recs, strict=True):
        out[i] = (json.dumps(rec, ensure_ascii=False) if as_json else g.eval_text(rec)) + "\n"
    return out


def random_ids(game: str, rng: random.Random, n: int) -> tuple[np.ndarray, list[str]]:
    if game == "taungau":
        rows = [rng.sample(range(NUM_TILES), 5) for _ in range(n)]
        return np.array(rows), ["".join(TILE_NAMES[t] for t in r) for r in rows]
    if game == "pokdeng":
        rows = [rng.sample(range(52), rng.choice([2, 3])) for _ in range(n)]
        rows = [r + [PAD] * (3 - len(r)) for r in rows]
        rows[0] = [5, 5, PAD]  # a card twice: no hand of one deck
        texts = [" ".join(CARD_NAMES[c] for c in r if c != PAD) for r in rows]
        return np.array(rows), texts
    rows = [rng.sample(range(52), 5) for _ in range(n)]
    rows[0] = [0, 1, 2, 3, 3]  # a card twice
    return np.array(rows), [" ".join(CARD_NAMES[c] for c in r) for r in rows]


ID_CASES = [
    ("niuniu", None, {}, False),
    ("niuniu", None, {}, True),
    ("niuniu", "casino", {}, True),
    ("niuniu", "no_faces", {}, False),
    ("niuniu", None, {"bet": "double"}, True),
    ("pokdeng", None, {}, False),
    ("pokdeng", None, {}, True),
    ("pokdeng", "shoe8", {}, False),
    ("taungau", None, {}, False),
    ("taungau", None, {}, True),
    ("taungau", "pagat", {}, False),
    ("taungau", None, {"banker_reveals": "first"}, True),
]


@pytest.mark.parametrize(("game", "rules", "opts", "as_json"), ID_CASES)
def test_eval_ids_match_the_records(
    game: str, rules: str | None, opts: dict, as_json: bool
) -> None:
    rng = random.Random(hash((game, rules, as_json, *opts)) & 0xFFFF)
    ids, texts = random_ids(game, rng, 200)
    lines = games.get(game).eval_ids(ids, rules, opts, None, as_json)
    assert lines is not None
    got = lines.to_pylist()
    want = expected_lines(game, texts, rules, opts, as_json)
    assert got == want
    if as_json:  # one JSON array of the records
        ok = [i for i, w in enumerate(want) if w is not None]
        arr = json_array(lines.take(pa.array(ok)))
        recs = [json.loads(want[i]) for i in ok]
        assert arr.decode("utf-8") == json.dumps(recs, ensure_ascii=False)
        assert json.loads(arr) == recs


def test_json_array_of_nothing() -> None:
    assert json_array(pa.array([], pa.string())) == b"[]"


def run_eval(game: str, path: Path, flags: list[str]) -> tuple[str, str, int]:
    out, err = io.StringIO(), io.StringIO()
    rc = main(["eval", game, "--input", str(path), *flags], out=out, err=err)
    return out.getvalue(), err.getvalue(), rc


def test_taungau_stored_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run that writes many lines stores them all; the next run reads them; a stored
    file that does not check is written again. Every time the output is the per-hand
    one. (The set of "all" hands is cut to a few hundred here: writing all 33,934
    lines takes two seconds.)"""
    from solver.games.taungau import eval_lines as tl

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    rng = random.Random(5)
    ids, texts = random_ids("taungau", rng, 40)
    path = tmp_path / "hands.txt"
    path.write_text("\n".join(texts) + "\n", encoding="utf-8")
    key, ok = tl.hand_keys(tl._TYPE_OF[ids], np.ones(len(ids), dtype=bool))
    every = np.union1d(key[ok], tl.all_keys()[::150])
    monkeypatch.setattr(tl, "all_keys", lambda: every)
    monkeypatch.setattr(tl, "_STORE_AFTER", 5)
    want = "".join(w for w in expected_lines("taungau", texts, None, {}, False) if w)
    monkeypatch.setattr(tl, "_LINES", {})
    assert run_eval("taungau", path, []) == (want, "", 0)
    (stored,) = (tmp_path / "cache").rglob("taungau-eval-*.npz")
    keys, lines = linestore.load("taungau-eval", _store_key())
    assert keys.tolist() == every.tolist() and len(lines) == len(every)
    monkeypatch.setattr(tl, "_LINES", {})  # a new run: the lines are read
    monkeypatch.setattr(tl, "_write", _no_writing)
    assert run_eval("taungau", path, []) == (want, "", 0)
    raw = bytearray(stored.read_bytes())  # a byte of a line changed: not believed
    at = raw.rindex(b"[6:6]")
    raw[at + 1] = ord("5")
    stored.write_bytes(bytes(raw))
    assert linestore.load("taungau-eval", _store_key()) is None
    monkeypatch.undo()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(tl, "_LINES", {})
    monkeypatch.setattr(tl, "all_keys", lambda: every)
    assert run_eval("taungau", path, []) == (want, "", 0)


def _store_key() -> dict:
    from solver.games.taungau import eval_lines as tl
    from solver.games.taungau.play import _source

    src = _source(None, None)
    return tl._store_key(src, src.rules.banker_reveals if src.rules.has_decline else None, False)


def _no_writing(*args: object) -> None:
    raise AssertionError("lines written although they were stored")


def test_eval_ids_rows_that_are_no_hand() -> None:
    g = games.get("niuniu")
    lines = g.eval_ids(np.array([[0, 1, 2, 3, 60], [0, 1, 2, 3, 4]]), None, {}, None, False)
    assert lines is not None and lines.null_count == 1 and lines[0].as_py() is None
    assert bytes(line_bytes(lines.take(pa.array([1])))).startswith(b"AS AH AD AC 2S: ")
