"""What ``bull drill`` deals and checks in Pok Deng: two cards a hand (no drawing), the
points only, and the arithmetic for a wrong answer (A = 1, 2-9 their pips, 10/J/Q/K = 0;
the last digit of the total, RULES.md §5).

>>> drill_why({"hand": ["8H", "9S"], "type": "normal", "points": 7, "deng": 1})
'8H+9S = 8+9 = 17, points 7 (normal, 1 deng)'
"""

from __future__ import annotations

from typing import Any

from solver.core.cards import CARD_NAMES, parse_card
from solver.kit.drill import DrillDeck

__all__ = ["drill_deck_of", "drill_why"]


def drill_deck_of(decks: int) -> DrillDeck:
    """The drill's deck: the 52 cards, ``decks`` copies each."""
    return DrillDeck(tuple(CARD_NAMES) * decks, 2, asks_bull=False, why=drill_why)


def drill_why(rec: dict[str, Any]) -> str:
    """The points of an ``eval`` record as a sum of card values."""
    vals = [(parse_card(c) >> 2) + 1 for c in rec["hand"]]
    vals = [v if v < 10 else 0 for v in vals]
    total = sum(vals)
    return (
        f"{'+'.join(rec['hand'])} = {'+'.join(map(str, vals))} = {total}, points "
        f"{total % 10} ({rec['type']}, {rec['deng']} deng)"
    )
