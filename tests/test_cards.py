from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from solver.core.cards import (
    CARD_NAMES,
    card_name,
    card_rank,
    card_suit,
    format_hand,
    parse_card,
    parse_hand,
)
from solver.core.errors import ParseError


def test_every_card_round_trips() -> None:
    assert len(set(CARD_NAMES)) == 52
    for card in range(52):
        name = card_name(card)
        assert parse_card(name) == card
        assert parse_card(name.lower()) == card


def test_encoding_is_rank_times_four_plus_suit() -> None:
    assert parse_card("AS") == 0
    assert parse_card("AC") == 3
    assert parse_card("2S") == 4
    assert parse_card("KC") == 51
    assert card_rank(parse_card("10H")) == 9
    assert card_suit(parse_card("10H")) == 1


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("10h", "10H"),
        ("Td", "10D"),
        ("tC", "10C"),
        ("K♣", "KC"),
        ("a♠", "AS"),
        ("Q♥", "QH"),
        ("j♦", "JD"),
    ],
)
def test_alternative_spellings(text: str, name: str) -> None:
    assert card_name(parse_card(text)) == name


@pytest.mark.parametrize("bad", ["1S", "11H", "KX", "S", "", "AS1", "ZZ", "10", "♠A"])
def test_unknown_cards_are_named(bad: str) -> None:
    with pytest.raises(ParseError, match="unknown card"):
        parse_card(bad)


def test_hand_separators_and_canonical_order() -> None:
    assert format_hand(parse_hand("KS,10H 3c ,7D  A♠")) == "AS 3C 7D 10H KS"
    assert format_hand(parse_hand("5C 5S 5D 5H 4D")) == "4D 5S 5H 5D 5C"


def test_hand_errors_name_the_problem() -> None:
    with pytest.raises(ParseError, match="duplicate card 7D"):
        parse_hand("7D 3C 7d 4S 5S", size=5)
    with pytest.raises(ParseError, match="has 4 cards; expected 5"):
        parse_hand("7D 3C 4S 5S", size=5)
    with pytest.raises(ParseError, match="unknown card 'XX'"):
        parse_hand("7D 3C XX 4S 5S", size=5)
    with pytest.raises(ParseError, match="expected 2 or 3"):
        parse_hand("7D", size=(2, 3))


@given(st.lists(st.integers(0, 51), min_size=1, max_size=10, unique=True))
def test_parse_print_is_identity(cards: list[int]) -> None:
    assert parse_hand(format_hand(cards)) == tuple(sorted(cards))
    assert parse_hand([card_name(c) for c in cards]) == tuple(sorted(cards))
    assert parse_hand(cards) == tuple(sorted(cards))


@given(st.text(max_size=30))
def test_parser_never_crashes_on_garbage(text: str) -> None:
    try:
        parse_hand(text, size=5)
    except ParseError as exc:
        assert "\n" not in str(exc)
