"""The batch tokenisers (:mod:`solver.kit.notation`) against the per-hand parsers of
:mod:`solver.core.cards` and :mod:`solver.core.tiles`, on many random, odd and
malformed hands: a hand the fast path reads must be read exactly as the per-hand
parser reads it (same items, same order), and the plain spellings must be read fast.
Every other hand goes to the per-hand parser, so its error message is unchanged."""

from __future__ import annotations

import random

import pytest

from solver.core.cards import CARD_NAMES, parse_cards
from solver.core.errors import BullError
from solver.core.tiles import TILE_TYPES, _parse_types
from solver.kit.notation import PAD, Spans, card_tokens, tile_tokens

SEPS = [" "] * 30 + ["  ", "\t", ",", ";", ", ", " ;", "\r", "\x0b", "\x1c", "\u3000", "\xa0"]
SUIT_SYMBOLS = {"S": "♠♤", "H": "♥♡", "D": "♦♢", "C": "♣♧"}


def card_spelling(rng: random.Random, card: int) -> str:
    name = CARD_NAMES[card]
    rank, suit = name[:-1], name[-1]
    if rank == "10" and rng.random() < 0.3:
        rank = rng.choice("Tt")
    r = rng.random()
    if r < 0.15:
        suit = rng.choice(SUIT_SYMBOLS[suit])
    elif r < 0.35:
        suit = suit.lower()
    if rng.random() < 0.2:
        rank = rank.lower()
    return rank + suit


BAD_CARDS = [
    "XX",
    "1S",
    "11H",
    "10",
    "K",
    "♠",
    "\uff21\uff33",
    "A♠♠",
    "0S",
    "1♠",
    "KSS",
    "S",
    "AS#",
    "\uff21♠",
]


def random_card_line(rng: random.Random) -> str:
    k = rng.choice([0, 1, 2, 2, 3, 3, 4, 5, 5, 5, 5, 6, 7])
    cards = [rng.randrange(52) for _ in range(k)]
    toks = [card_spelling(rng, c) for c in cards]
    if toks and rng.random() < 0.15:
        toks[rng.randrange(len(toks))] = rng.choice(BAD_CARDS)
    if toks and rng.random() < 0.1:
        toks.append(toks[0])  # a repeat
    line = ""
    for t in toks:
        line += (rng.choice(SEPS) if line and rng.random() < 0.97 else "") + t
    if rng.random() < 0.2:
        line = rng.choice([" ", "\t", "  "]) + line
    if rng.random() < 0.2:
        line += rng.choice([" ", "\t", "\r", " \r"])
    if rng.random() < 0.03:
        line = "\ufeff" + line
    return line


def odd(line: str) -> bool:
    """Characters the fast path leaves to the per-hand parser (it folds some)."""
    return any(c in "\x0b\x1c" or (ord(c) > 127 and c not in "♠♥♦♣♤♡♢♧") for c in line)


def slow_cards(text: str) -> list[int] | None:
    try:
        return parse_cards(text)
    except BullError:
        return None


@pytest.mark.parametrize("sizes", [(5,), (2, 3)])
def test_cards_match_the_per_hand_parser(sizes: tuple[int, ...]) -> None:
    rng = random.Random(26)
    lines = [random_card_line(rng) for _ in range(3000)]
    ids, size, ok = card_tokens(Spans.of_strings(lines), sizes)
    assert ok.sum() > 250  # the plain spellings are read here
    for i, line in enumerate(lines):
        want = slow_cards(line)
        if ok[i]:
            got = [c for c in ids[i].tolist() if c != PAD]
            assert want == got, (line, got, want)
            assert len(got) == size[i] and size[i] in sizes
        elif want is not None and len(want) in sizes:
            # left to the per-hand parser: only odd spellings may be
            assert odd(line), line


def test_cards_plain_and_edges() -> None:
    lines = [
        "KS 9H 8C 3D 7S",
        " ks\t9h 8c 3d 7s ",
        "10H TH th 10h 10♥",
        "A♠ 2♥ 3♦ 4♣ 5♤",
        "AS,2S;3S , 4S 5S",
        "AS 2S 3S 4S",
        "AS 2S 3S 4S 5S 6S",
        "\ufeffAS 2S 3S 4S 5S",
        "",
        None,
        "AS 2S 3S 4S 1S",
    ]
    ids, _size, ok = card_tokens(Spans.of_strings(lines), (5,))
    assert ok.tolist() == [True, True, True, True, True, False, False, False, False, False, False]
    assert ids[2].tolist() == [37] * 5
    assert ids[3].tolist() == [0, 5, 10, 15, 16]


def test_adjacent_values_do_not_run_together() -> None:
    import pyarrow as pa

    arr = pa.array(["AS 2S", "3S 4S", None, "5S 6S"]).slice(1)
    ids, _size, ok = card_tokens(Spans.of_arrow(arr), (2,))
    assert ok.tolist() == [True, False, True]
    assert ids[0].tolist() == [8, 12] and ids[2].tolist() == [16, 20]


def tile_spelling(rng: random.Random, t: int) -> str:
    hi, lo = TILE_TYPES[t]
    a, b = (hi, lo) if rng.random() < 0.7 else (lo, hi)
    return rng.choice([f"[{a}:{b}]", f"[{a}:{b}]", f"{a}{b}", f"{a}:{b}"])


BAD_TILES = ["[6:5", "6:", "[65]", "6-5", "666", "[7:1]", "70", "[0:0]", "6", ":65", "[6:5]]"]


def random_tile_line(rng: random.Random) -> str:
    k = rng.choice([0, 1, 3, 4, 5, 5, 5, 5, 6])
    toks = [tile_spelling(rng, rng.randrange(21)) for _ in range(k)]
    if toks and rng.random() < 0.15:
        toks[rng.randrange(len(toks))] = rng.choice(BAD_TILES)
    line = ""
    for t in toks:
        line += (rng.choice(["", "", *SEPS]) if line else "") + t
    if rng.random() < 0.2:
        line = " " + line + rng.choice(["", " ", "\r"])
    return line


def test_tiles_match_the_per_hand_parser() -> None:
    rng = random.Random(7)
    lines = [random_tile_line(rng) for _ in range(3000)]
    types, _size, ok = tile_tokens(Spans.of_strings(lines), (5,))
    assert ok.sum() > 400
    for i, line in enumerate(lines):
        try:
            want: list[int] | None = _parse_types(line)
        except BullError:
            want = None
        if ok[i]:
            got = [t for t in types[i].tolist() if t >= 0]
            assert want == got, (line, got, want)
        elif want is not None and len(want) == 5:
            assert odd(line), line
