"""Pok Deng house rules outside today's catalogue (issue 22), each written here from
its rule text and RULES.md §5 — one hand at a time, with no code of the solver's — for
the language stage of ``bull verify pokdeng --infer`` to learn
(``test_pokdeng_infer``). A house is a function from a hand (card ids, one deck: rank
``id >> 2``, suit ``id & 3``) to its (type, points, deng); the deng table is the
standard one (a pair or one suit of two cards 2, three of one suit 3, Tong 5, Sam
Lueang 3, a straight 3 and a straight flush 5)."""

from __future__ import annotations

import csv
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from pathlib import Path

__all__ = ["HOUSES", "House", "claims_file", "every_hand", "name_of", "standard"]

Hand = tuple[int, ...]
Answer = tuple[str, int, int]
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


def name_of(cards: Hand) -> str:
    return " ".join(RANKS[c >> 2] + "SHDC"[c & 3] for c in cards)


@cache
def _parts(cards: Hand) -> tuple[list[int], bool, int]:
    """A hand's ranks sorted (read, never changed), whether of one suit, its points."""
    ranks = sorted(c >> 2 for c in cards)
    points = sum(r + 1 if r < 9 else 0 for r in ranks) % 10
    return ranks, len({c & 3 for c in cards}) == 1, points


def _two(cards: Hand, pair_deng: int = 2) -> Answer:
    """Two cards: Pok on 8 or 9; a pair or one suit pays 2 (``pair_deng`` for a pair
    that is not a Pok)."""
    ranks, suited, points = _parts(cards)
    pair = ranks[0] == ranks[1]
    if points >= 8:
        return "pok", points, 2 if pair or suited else 1
    return "normal", points, pair_deng if pair else 2 if suited else 1


def _run(ranks: list[int]) -> bool:
    """Three consecutive ranks, the ace low (A-2-3) or high (Q-K-A)."""
    return (ranks[1] == ranks[0] + 1 and ranks[2] == ranks[1] + 1) or ranks == [0, 11, 12]


def _normal3(ranks: list[int], suited: bool) -> int:
    """The deng of a Normal three-card hand: one suit 3, else 1 (a pair pays 1)."""
    return 3 if suited else 1


def standard(cards: Hand) -> Answer:
    """The preset ``standard`` (RULES §5): no straights; Tong, then Sam Lueang (three
    pictures), then Normal."""
    if len(cards) == 2:
        return _two(cards)
    ranks, suited, points = _parts(cards)
    if len(set(ranks)) == 1:
        return "tong", points, 5
    if ranks[0] >= 10:
        return "sam_lueang", points, 3
    return "normal", points, _normal3(ranks, suited)


def runs_as_normal(cards: Hand) -> Answer:
    """Runs "paid their deng but typed and compared as normal hands by points": a run of
    three is a Normal hand paid 3 (5 of one suit), tested before the pictures."""
    if len(cards) == 2:
        return _two(cards)
    ranks, suited, points = _parts(cards)
    if len(set(ranks)) == 1:
        return "tong", points, 5
    if _run(ranks):
        return "normal", points, 5 if suited else 3
    if ranks[0] >= 10:
        return "sam_lueang", points, 3
    return "normal", points, _normal3(ranks, suited)


def pictures_first(cards: Hand) -> Answer:
    """Straights counted (ace low or high), but "J-Q-K tested as pictures before the
    straight test": J-Q-K is Sam Lueang, of one suit or not."""
    if len(cards) == 2:
        return _two(cards)
    ranks, suited, points = _parts(cards)
    if len(set(ranks)) == 1:
        return "tong", points, 5
    if ranks[0] >= 10:
        return "sam_lueang", points, 3
    if _run(ranks):
        return ("straight_flush", points, 5) if suited else ("straight", points, 3)
    return "normal", points, _normal3(ranks, suited)


def tens_are_pictures(cards: Hand) -> Answer:
    """No straights; three cards of 10, J, Q or K are Sam Lueang (the tens count as
    pictures), three of a rank still Tong."""
    if len(cards) == 2:
        return _two(cards)
    ranks, suited, points = _parts(cards)
    if len(set(ranks)) == 1:
        return "tong", points, 5
    if ranks[0] >= 9:
        return "sam_lueang", points, 3
    return "normal", points, _normal3(ranks, suited)


def pairs_pay_three(cards: Hand) -> Answer:
    """No straights; a two-card pair that is not a Pok pays 3 deng (a Pok pair 2)."""
    if len(cards) == 2:
        return _two(cards, pair_deng=3)
    ranks, suited, points = _parts(cards)
    if len(set(ranks)) == 1:
        return "tong", points, 5
    if ranks[0] >= 10:
        return "sam_lueang", points, 3
    return "normal", points, _normal3(ranks, suited)


@dataclass(frozen=True)
class House:
    name: str
    answer: Callable[[Hand], Answer]
    start: str
    """The preset ``--infer`` starts from."""
    learned: tuple[str, ...]
    """The item ids the language stage must adopt."""


HOUSES = (
    House("runs_as_normal", runs_as_normal, "standard", ("type:normal:3", "type:normal:5")),
    House("pictures_first", pictures_first, "straights", ("type:sam_lueang:3",)),
    House("tens_are_pictures", tens_are_pictures, "standard", ("type:sam_lueang:3",)),
    House("pairs_pay_three", pairs_pay_three, "standard", ("type:normal:3",)),
)


def every_hand() -> list[Hand]:
    """Every hand of two and of three cards of one deck (1,326 + 22,100)."""
    return list(_EVERY_HAND)


_EVERY_HAND = (*combinations(range(52), 2), *combinations(range(52), 3))


def claims_file(house: House, path: Path) -> Path:
    """The house's claims on every hand (type, points and deng), as CSV."""
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["hand", "category", "points", "deng"])
        for cards in every_hand():
            kind, points, deng = house.answer(cards)
            w.writerow([name_of(cards), kind, points, deng])
    return path
