"""Playing cards: ids 0..51, parsing and printing.

A card is a small int ``rank * 4 + suit`` where ``rank`` is 0..12 for
A, 2, ..., 10, J, Q, K and ``suit`` is 0..3 for S, H, D, C. Sorting ids therefore
gives the canonical print order of RULES §8 (rank A→K, then suit S, H, D, C).

>>> parse_card("10h"), parse_card("Td"), parse_card("K♣")
(37, 38, 51)
>>> card_name(parse_card("as"))
'AS'
>>> format_hand(parse_hand("KS, 10H 3c 7D A♠"))
'AS 3C 7D 10H KS'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any, TypeAlias

from solver.core.errors import ParseError
from solver.core.inputs import check_hand, shown
from solver.core.text import CARD_CHARACTERS, only_notation

__all__ = [
    "CARD_NAMES",
    "RANK_NAMES",
    "SUIT_NAMES",
    "Card",
    "card_name",
    "card_rank",
    "card_suit",
    "check_copies",
    "format_hand",
    "hand_names",
    "make_card",
    "parse_card",
    "parse_cards",
    "parse_hand",
]

Card: TypeAlias = int
"""A card id, 0..51: ``rank * 4 + suit``."""

RANK_NAMES: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUIT_NAMES: tuple[str, ...] = ("S", "H", "D", "C")
CARD_NAMES: tuple[str, ...] = tuple(r + s for r in RANK_NAMES for s in SUIT_NAMES)

_RANKS = {name: i for i, name in enumerate(RANK_NAMES)} | {"T": 9, "1": 0}
_SUITS = {
    "S": 0,
    "H": 1,
    "D": 2,
    "C": 3,
    "♠": 0,
    "♥": 1,
    "♦": 2,
    "♣": 3,
    "♤": 0,
    "♡": 1,
    "♢": 2,
    "♧": 3,
}
_INT_ONLY = {int}
_SEPARATORS = re.compile(r"[\s,;]+")


def make_card(rank: int, suit: int) -> Card:
    """The id of the card of ``rank`` (0 = ace .. 12 = king) and ``suit`` (0..3 = S H D C)."""
    return rank * 4 + suit


def card_rank(card: Card) -> int:
    """0 for an ace, ..., 12 for a king."""
    return card >> 2


def card_suit(card: Card) -> int:
    """0..3 for S, H, D, C."""
    return card & 3


def card_name(card: Card) -> str:
    """Canonical spelling: rank then suit letter, e.g. ``'10H'``."""
    if not 0 <= card < 52:
        raise ParseError(f"not a card id: {card!r} (expected 0..51)")
    return CARD_NAMES[card]


def parse_card(text: str) -> Card:
    """Read one card: ``AS``, ``10h``, ``Td``, ``K♣`` (any case)."""
    token = only_notation(text, CARD_CHARACTERS).strip().upper()
    if len(token) >= 2 and token[:-1] in _RANKS and token[-1] in _SUITS and token[:-1] != "1":
        return make_card(_RANKS[token[:-1]], _SUITS[token[-1]])
    raise ParseError(
        f"unknown card {shown(text.strip())} (expected rank A 2-10 T J Q K and suit S H D C)"
    )


def parse_cards(text: str) -> list[Card]:
    """Read cards separated by spaces or commas, in the order given (no count or
    duplicate check)."""
    tokens = [t for t in _SEPARATORS.split(only_notation(text, CARD_CHARACTERS).strip()) if t]
    return [parse_card(t) for t in tokens]


def parse_hand(
    text: str | Iterable[str] | Iterable[int],
    size: int | Sequence[int] | None = None,
    copies: int = 1,
) -> tuple[Card, ...]:
    """Read a hand and return its cards sorted canonically.

    ``text`` is a string (``"AS 10H 3C 7D KS"``), an iterable of card strings or of
    card ids. ``size`` is the required number of cards (or a collection of allowed
    numbers). ``copies`` is how many of each card the deck holds (a shoe of N decks:
    N); a card written more often is rejected, naming it.

    >>> parse_hand("7d 3c", size=2)
    (11, 26)
    >>> parse_hand("AS AS")
    Traceback (most recent call last):
    ...
    solver.core.errors.ParseError: duplicate card AS in hand 'AS AS'
    >>> parse_hand("AS AS 3C", copies=2)
    (0, 0, 11)
    >>> parse_hand("AS AS AS", copies=2)
    Traceback (most recent call last):
    ...
    solver.core.errors.ParseError: card AS appears 3 times in hand 'AS AS AS'; a 2-deck shoe holds 2
    """
    if isinstance(text, str):
        cards = parse_cards(text)
        shown = text.strip()
    else:
        check_hand(text)
        items: Sequence[Any] = text if type(text) in (tuple, list) else list(text)  # type: ignore[assignment]
        if set(map(type, items)) == _INT_ONLY:  # fast path: card ids
            result: tuple[int, ...] = tuple(sorted(items))
            if (
                result
                and result[0] >= 0
                and result[-1] < 52
                and (len(set(result)) == len(result) or copies > 1)
                and (
                    size is None
                    or len(result) == size
                    or (not isinstance(size, int) and len(result) in size)
                )
            ):
                return result
        cards = []
        for item in items:
            if isinstance(item, str):
                cards.append(parse_card(item))
            elif not isinstance(item, bool) and hasattr(item, "__index__") and 0 <= item < 52:
                cards.append(item.__index__())  # an int, or a NumPy integer of an array
            else:
                raise ParseError(f"unknown card {item!r}")
        shown = " ".join(str(i) for i in items)
    check_copies(cards, copies, f"hand {shown!r}")
    if size is not None:
        allowed = (size,) if isinstance(size, int) else tuple(size)
        if len(cards) not in allowed:
            want = " or ".join(str(a) for a in allowed)
            raise ParseError(f"hand {shown!r} has {len(cards)} cards; expected {want}")
    return tuple(sorted(cards))


def check_copies(cards: Iterable[Card], copies: int, where: str) -> None:
    """Refuse more copies of a card than the deck or shoe holds (``copies`` of each),
    naming the card; ``where`` says what holds them (``"hand 'AS AS'"``, ``"the two
    hands"``).

    >>> check_copies([0, 0, 5], 2, "the two hands")
    >>> check_copies([0, 5, 5], 1, "the two hands")
    Traceback (most recent call last):
    ...
    solver.core.errors.ParseError: duplicate card 2H in the two hands
    """
    seen: dict[int, int] = {}
    for c in cards:
        n = seen[c] = seen.get(c, 0) + 1
        if n > copies:
            if copies == 1:
                raise ParseError(f"duplicate card {CARD_NAMES[c]} in {where}")
            n = sum(1 for x in cards if x == c) if isinstance(cards, Sequence) else n
            raise ParseError(
                f"card {CARD_NAMES[c]} appears {n} times in {where}; "
                f"a {copies}-deck shoe holds {copies}"
            )


def hand_names(cards: Iterable[Card]) -> list[str]:
    """Canonical names of the cards, in canonical order."""
    return [card_name(c) for c in sorted(cards)]


def format_hand(cards: Iterable[Card]) -> str:
    """Canonical spelling of a hand: ``'AS 3C 7D 10H KS'``."""
    return " ".join(hand_names(cards))
