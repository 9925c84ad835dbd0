"""Why a Niu Niu hand is what it is, in words for ``bull verify``'s reasons: the bull
that scores (``A+2+7 = 10 is a bull, 4+9 = 13, points 3``), the special a hand is, and why
a claimed special does not hold under the rule set.

>>> bull_text([0, 4, 12, 24, 32], 0b01011)   # A 2 4 7 9: the bull A+2+7
'A+2+7 = 10 is a bull, 4+9 = 13, points 3'
>>> from solver.games.niuniu.rules import load_rules
>>> special_why_not("four_faces", [37, 40, 44, 48, 49], load_rules("casino"))
'four_faces does not count under casino'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["bull_text", "card_value", "special_why_not", "value_names", "why"]


def value_names(cards: Sequence[int]) -> list[str]:
    """The rank names of ``cards`` (``A``, ``2`` … ``K``)."""
    from solver.core.cards import RANK_NAMES

    return [RANK_NAMES[c >> 2] for c in cards]


def card_value(c: int) -> int:
    """A card's value: A = 1, 2..9, 10/J/Q/K = 10."""
    return min((c >> 2) + 1, 10)


def special_why_not(special: str, cards: Sequence[int], rules: Any) -> str:
    """Why sorted ``cards`` are not the claimed ``special`` under ``rules``."""
    ranks = [c >> 2 for c in cards]
    values = [card_value(c) for c in cards]
    faces = sum(r >= 10 for r in ranks)
    total = sum(values)
    if special not in rules.specials:
        return f"{special} does not count under {rules.name}"
    if special == "five_faces":
        return f"only {faces} of the cards are J/Q/K"
    if special == "four_faces":
        if rules.four_faces_fifth == "all_ten_valued":
            low = next((c for c in cards if c >> 2 < 9), None)
            if low is None:
                return "all five cards are J/Q/K (five faces)"
            return f"{value_names([low])[0]} is not a 10, J, Q or K"
        if faces != 4:
            return f"{faces} of the cards are J/Q/K, not 4"
        fifth = next(c for c in cards if c >> 2 < 10)
        return f"the fifth card is {value_names([fifth])[0]}, not a 10"
    if special == "four_of_a_kind":
        return "no four cards of one rank"
    if special == "three_of_a_kind":
        return "no three cards of one rank"
    if special == "straight":
        return "not five consecutive ranks (ace low)"
    if special == "straight_flush":
        return "not five consecutive ranks in one suit"
    if special == "five_small_bull":
        big = [n for n, r in zip(value_names(cards), ranks, strict=True) if r > 3]
        if big and rules.five_small_bull_max_rank == "4":
            return f"{big[0]} is above 4"
        limit = "<= 10" if rules.five_small_bull_total == "at_most_10" else "< 10"
        return f"the total {total} is not {limit}"
    return f"not {special}"


def why(cat: int, cards: Sequence[int], bull_mask: int, rules: Any) -> str:
    """What sorted ``cards`` are under ``rules``: ``'niu_3: A+2+7 = 10 is a bull, ...'``."""
    from solver.games.niuniu.rules import Category

    names = value_names(cards)
    if getattr(rules, "categories", ()):  # a file in the rule language: its own words
        for c, code in zip(rules.categories, rules.codes, strict=True):
            if code == cat:
                return f"{c.name}: {c.when}"
    label = Category(cat).label
    ranks = [c >> 2 for c in cards]
    if cat == Category.FIVE_FACES:
        return "five_faces: all five cards J/Q/K"
    if cat == Category.FOUR_FACES:
        if rules.four_faces_fifth == "all_ten_valued":
            return "four_faces: every card 10/J/Q/K, not five faces"
        if rules.four_faces_fifth == "any":
            return "four_faces: four J/Q/K"
        return "four_faces: four J/Q/K and one 10"
    if cat == Category.FOUR_OF_A_KIND:
        quad = max(set(ranks), key=ranks.count)
        return f"four_of_a_kind: four {names[ranks.index(quad)]}s"
    if cat == Category.THREE_OF_A_KIND:
        trip = max(set(ranks), key=ranks.count)
        return f"three_of_a_kind: three {names[ranks.index(trip)]}s"
    if cat == Category.STRAIGHT:
        return f"straight: {names[ranks.index(min(ranks))]} to {names[ranks.index(max(ranks))]}"
    if cat == Category.STRAIGHT_FLUSH:
        return (
            f"straight_flush: {names[ranks.index(min(ranks))]} to "
            f"{names[ranks.index(max(ranks))]} in one suit"
        )
    if cat == Category.FIVE_SMALL_BULL:
        return f"five_small_bull: every card A..4, total {sum(card_value(c) for c in cards)}"
    if cat == Category.NO_BULL:
        return (
            f"no_bull: no three of {' '.join(sorted(names, key=_rank_key))} sum to a multiple of 10"
        )
    return f"{label}: {bull_text(cards, bull_mask)}"


def _rank_key(name: str) -> int:
    from solver.core.cards import RANK_NAMES

    return RANK_NAMES.index(name)


def bull_text(cards: Sequence[int], bull_mask: int) -> str:
    """``'A+2+7 = 10 is a bull, 4+9 = 13, points 3'`` for sorted ``cards`` (three of
    one rank that do not sum to a multiple of 10 are a bull only under
    ``bull_from_three_of_a_kind``)."""
    names = value_names(cards)
    bull = [i for i in range(5) if bull_mask >> i & 1]
    rest = [i for i in range(5) if not bull_mask >> i & 1]
    bsum = sum(card_value(cards[i]) for i in bull)
    rsum = sum(card_value(cards[i]) for i in rest)
    pts = (rsum - 1) % 10 + 1
    why = "is a bull" if bsum % 10 == 0 else "is a bull (three of a kind)"
    return (
        f"{'+'.join(names[i] for i in bull)} = {bsum} {why}, "
        f"{'+'.join(names[i] for i in rest)} = {rsum}, points {pts}"
    )
