"""Tiles: the 32-tile set of RULES §4, ids, parse/print round trips, bad input."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from taungau import fixtures as ref

from solver.core.errors import ParseError
from solver.core.tiles import (
    NUM_TILES,
    TILE_NAMES,
    canonical_hand,
    canonicalize_array,
    format_hand,
    hand_names,
    parse_hand,
    parse_tile,
    parse_tiles,
    tile_copy,
    tile_id,
    tile_name,
    tile_pips,
)


def test_the_set_matches_rules() -> None:
    """32 tiles: the eleven civil types twice, the ten military once (RULES §4), and the
    documented encoding (types by (high, low), civil copies consecutive)."""
    assert NUM_TILES == 32
    assert list(TILE_NAMES) == ref.NAMES
    assert Counter(TILE_NAMES) == {n: 2 for n in ref.CIVIL} | {n: 1 for n in ref.MILITARY}
    assert [tile_pips(t) for t in range(32)] == ref.TILE_TYPE


def test_sorted_ids_print_in_canonical_order() -> None:
    keys = [tile_pips(t) for t in range(32)]
    assert keys == sorted(keys)
    assert TILE_NAMES[-1] == "[6:6]"


@pytest.mark.parametrize("tile", range(32))
def test_print_parse_round_trip(tile: int) -> None:
    """parse(print(t)) is t's type (copy 0); every spelling of RULES §2 parses alike."""
    name = tile_name(tile)
    first = tile - tile_copy(tile)
    assert parse_tile(name) == first
    hi, lo = tile_pips(tile)
    for spelling in (
        f"[{hi}:{lo}]",
        f"[{lo}:{hi}]",
        f"{hi}:{lo}",
        f"{lo}:{hi}",
        f"{hi}{lo}",
        f"{lo}{hi}",
        f" [{lo}:{hi}] ",
    ):
        assert parse_tile(spelling) == first, spelling
    assert tile_name(parse_tile(name)) == name
    assert tile_id(hi, lo, tile_copy(tile)) == tile


def test_copies_are_assigned_in_order() -> None:
    assert parse_tiles("[6:6][6:6]") == [30, 31]
    assert parse_tiles("66 6:6") == [30, 31]
    assert parse_hand("[6:6] 11 [6:6] 11 21") == (0, 1, 2, 30, 31)


def test_separators_optional() -> None:
    a = parse_hand("[6:5][4:1][2:2][3:3][5:4]")
    assert a == parse_hand("[6:5] [4:1], [2:2]; [3:3] [5:4]")
    assert a == parse_hand("65 41 22 33 54")
    assert a == parse_hand("6541223354")
    assert a == parse_hand(["[6:5]", "14", "2:2", "33", "45"])
    assert format_hand(a) == "[2:2][3:3][4:1][5:4][6:5]"


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[7:1] 11 22 33 44", "'[7:1]'"),
        ("[0:0] 11 22 33 44", "'[0:0]'"),
        ("11 22 33 44 xx", "'xx'"),
        ("11 22 33 44 5", "'5'"),
        ("[6:6][6:6][6:6] 11 22", "too many copies of [6:6]"),
        ("[4:2] [2:4] 11 22 33", "too many copies of [4:2]"),
        ("11 22 33 44", "has 4 tiles; expected 5"),
        ("11 22 33 44 55 66", "has 6 tiles; expected 5"),
        ("", "has 0 tiles; expected 5"),
    ],
)
def test_bad_input_names_the_item(text: str, needle: str) -> None:
    with pytest.raises(ParseError) as exc:
        parse_hand(text)
    msg = str(exc.value)
    assert needle in msg
    assert "\n" not in msg


def test_ids_input() -> None:
    assert parse_hand([31, 0, 2, 5, 7]) == (0, 2, 5, 7, 31)
    with pytest.raises(ParseError, match="duplicate tile id 3"):
        parse_hand([3, 3, 4, 5, 6])
    with pytest.raises(ParseError, match="not a tile id"):
        parse_hand([32, 3, 4, 5, 6])


def test_canonical_forms_agree() -> None:
    """canonical_hand and canonicalize_array map both copies to the same answer."""
    rng = np.random.default_rng(3)
    hands = np.array([rng.choice(32, 5, replace=False) for _ in range(2000)])
    arr = canonicalize_array(hands)
    for row, out in zip(hands.tolist(), arr.tolist(), strict=True):
        assert tuple(out) == canonical_hand(row)
        assert sorted(ref.hand_types(row)) == [ref.TILE_TYPE[t] for t in out]


@given(st.lists(st.integers(0, 31), min_size=5, max_size=5, unique=True))
def test_parse_print_round_trip_hands(ids: list[int]) -> None:
    text = format_hand(ids)
    assert parse_hand(text) == canonical_hand(ids)
    assert hand_names(parse_hand(text)) == [ref.NAMES[i] for i in sorted(ids)]


def test_distinct_multisets() -> None:
    """RULES §6: 33,934 distinct multisets among the 201,376 hands."""
    assert len({ref.hand_types(h) for h in combinations(range(32), 5)}) == 33934
