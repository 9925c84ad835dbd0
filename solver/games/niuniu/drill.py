"""What ``bull drill`` deals and checks in Niu Niu: the rule set's deck (or shoe), five
cards a hand, a bull named by its three cards (full names or ranks only) and the
arithmetic of ``bull verify`` for a wrong answer.

>>> from solver.games.niuniu.rules import load_rules
>>> deck = drill_deck_of(load_rules("classic"))
>>> hand = ["AS", "2H", "4D", "7C", "9S"]
>>> three = deck.pick("a 2 7", hand); three
['AS', '2H', '7C']
>>> sorted(deck.bull_points(hand, three)), sorted(deck.bull_points(hand, ["AS", "2H", "4D"]))
([3], [])
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from solver.core.cards import CARD_NAMES, RANK_NAMES, card_name, parse_card
from solver.core.errors import BullError
from solver.games.niuniu.explain import card_value, why
from solver.games.niuniu.rules import Category, NiuNiuRules
from solver.kit.drill import DrillDeck

__all__ = ["bull_points", "drill_deck_of", "drill_why", "pick"]


def drill_deck_of(rules: NiuNiuRules) -> DrillDeck:
    """The drill's deck for ``rules``: every card of the deck, ``decks`` copies each."""
    return DrillDeck(
        tuple(CARD_NAMES[c] for c in range(rules.deck_size)) * rules.decks,
        5,
        pick=pick,
        bull_points=partial(bull_points, rules),
        why=partial(drill_why, rules),
    )


def pick(answer: str, hand: Sequence[str]) -> list[str]:
    """The cards of ``hand`` an answer names: card names (``AS 2H 7C``) or ranks only
    (``A 2 7``); raises ValueError naming a card the hand does not hold."""
    left = list(hand)
    out = []
    for tok in answer.replace(",", " ").replace("+", " ").split():
        up = tok.upper()
        rank = "10" if up == "T" else up
        try:
            name = card_name(parse_card(tok))
            found = name if name in left else None
        except BullError:
            found = None
            if rank in RANK_NAMES:
                found = next((c for c in left if c[:-1] == rank), None)
            elif len(tok) > 3:
                raise ValueError(f"{tok[:20]!r} is not a card") from None
        if found is None:
            raise ValueError(f"{tok[:20]!r} is not in the hand")
        left.remove(found)
        out.append(found)
    return out


def bull_points(rules: NiuNiuRules, hand: Sequence[str], three: Sequence[str]) -> frozenset[int]:
    """The points the bull ``three`` leaves (one value; empty when it is no bull)."""
    ids = [parse_card(c) for c in three]
    rest = list(hand)
    for c in three:
        rest.remove(c)
    same_rank = len({c >> 2 for c in ids}) == 1
    if sum(card_value(c) for c in ids) % 10 and not (rules.bull_from_three_of_a_kind and same_rank):
        return frozenset()
    total = sum(card_value(parse_card(c)) for c in rest)
    return frozenset({(total - 1) % 10 + 1})


def drill_why(rules: NiuNiuRules, rec: dict[str, Any]) -> str:
    """``'niu_3: A+2+7 = 10 is a bull, 4+9 = 13, points 3'``: an ``eval`` record's
    arithmetic, as ``bull verify`` writes it."""
    cards = sorted(parse_card(c) for c in rec["hand"])
    mask = 0
    for name in rec.get("bull") or []:
        c = parse_card(name)
        mask |= 1 << next(i for i in range(5) if cards[i] == c and not mask >> i & 1)
    return why(int(Category.from_label(str(rec["category"]))), cards, mask, rules)
