"""Only the documented spellings of cards and tiles are read (RULES.md §2): look-alike
letters and other scripts' digits are errors naming the character; full-width forms of
the notation's own characters read as those characters."""

from __future__ import annotations

import io
import unicodedata

import pytest

from solver.cli import main
from solver.core.cards import parse_hand
from solver.core.errors import ParseError
from solver.core.tiles import parse_tiles

LOOK_ALIKES = [
    "\u017f",  # long s: it upper-cases to 'S'
    "\u212a",  # Kelvin sign
    "\u0405",  # Cyrillic capital dze
    "\U0001d412",  # mathematical bold S
    "\u0663",  # Arabic-Indic three
    "\u09e9",  # Bengali three
    "\U0001d7d1",  # mathematical bold three
    "\u00b3",  # superscript three
    "\u2163",  # Roman numeral four
]


@pytest.mark.parametrize("ch", LOOK_ALIKES, ids=lambda c: f"U+{ord(c):04X}")
def test_card_look_alikes_are_named(ch: str) -> None:
    for text in (f"A{ch} 2H 3D 4C 5S", f"{ch}S 2H 3D 4C 5S", f"AS 2H 3D 4C {ch}"):
        with pytest.raises(ParseError) as e:
            parse_hand(text)
        assert f"U+{ord(ch):04X}" in str(e.value) and unicodedata.name(ch) in str(e.value)


@pytest.mark.parametrize("ch", LOOK_ALIKES, ids=lambda c: f"U+{ord(c):04X}")
def test_tile_look_alikes_are_named(ch: str) -> None:
    with pytest.raises(ParseError, match=f"U\\+{ord(ch):04X}"):
        parse_tiles(f"[6:{ch}] 66 11 22 33")


def test_full_width_forms_read_as_the_notation() -> None:
    assert parse_hand("\uff21\uff33 \uff11\uff10\uff28") == parse_hand("AS 10H")
    assert parse_tiles("\uff3b\uff16\uff1a\uff15\uff3d") == parse_tiles("[6:5]")
    assert parse_hand("A♠ 10♥") == parse_hand("AS 10H")


@pytest.mark.parametrize(
    "game,hand",
    [
        ("niuniu", "AS 2H 3D 4C 5\u017f"),
        ("pokdeng", "9\u017f 9D"),
        ("taungau", "66 65 43 42 2\u0662"),
    ],
)
def test_the_cli_says_which_character(game: str, hand: str) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert main(["eval", game, hand], out=out, err=err) == 2
    assert out.getvalue() == "" and err.getvalue().count("\n") == 1
    assert "U+017F" in err.getvalue() or "U+0662" in err.getvalue()
