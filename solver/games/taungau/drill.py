"""What ``bull drill`` deals and checks in Tau Ngau: the 32 tiles, five a hand, a bull
named by its three tiles (any spelling ``bull eval`` reads) and the pip arithmetic for a
wrong answer, [2:1] and [4:2] counting 3 or 6 (RULES.md §4).

>>> from solver.games.taungau.rules import load_rules
>>> deck = drill_deck_of(load_rules("macau"))
>>> hand = ["[2:1]", "[3:3]", "[4:1]", "[5:5]", "[6:5]"]
>>> three = deck.pick("21 33 65", hand); three
['[2:1]', '[3:3]', '[6:5]']
>>> sorted(deck.bull_points(hand, three)), sorted(deck.bull_points(hand, hand[:3]))
([5], [])
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from solver.core.errors import BullError
from solver.core.tiles import TILE_NAMES, parse_tiles
from solver.games.taungau.hands import tile_value
from solver.games.taungau.rules import TauNgauRules
from solver.kit.drill import DrillDeck

__all__ = ["bull_points", "drill_deck_of", "drill_why", "pick"]

_WILD = ("[2:1]", "[4:2]")


def drill_deck_of(rules: TauNgauRules) -> DrillDeck:
    """The drill's deck: the 32 tiles."""
    return DrillDeck(
        tuple(TILE_NAMES),
        5,
        join="",
        pick=pick,
        bull_points=partial(bull_points, rules),
        why=partial(drill_why, rules),
    )


def pick(answer: str, hand: Sequence[str]) -> list[str]:
    """The tiles of ``hand`` an answer names; raises ValueError naming a tile the hand
    does not hold or text that is not a tile."""
    try:
        names = [TILE_NAMES[t] for t in parse_tiles(answer)]
    except BullError as exc:
        raise ValueError(str(exc).splitlines()[0][:80]) from None
    left = list(hand)
    for n in names:
        if n not in left:
            raise ValueError(f"{n} is not in the hand")
        left.remove(n)
    return names


def _values(names: Sequence[str], choice: int) -> list[int]:
    """Tile values under a 3/6 choice (bit 0: [2:1] is 6, bit 1: [4:2] is 6)."""
    ids = {n: t for t, n in reversed(list(enumerate(TILE_NAMES)))}
    return [tile_value(ids[n], choice) for n in names]


def bull_points(rules: TauNgauRules, hand: Sequence[str], three: Sequence[str]) -> frozenset[int]:
    """Every score the bull ``three`` can leave over the 3/6 choices (empty: no bull
    under any choice)."""
    rest = list(hand)
    for n in three:
        rest.remove(n)
    return frozenset(
        rules.score(sum(_values(rest, c)) % 10)
        for c in range(4)
        if sum(_values(three, c)) % 10 == 0
    )


def drill_why(rules: TauNgauRules, rec: dict[str, Any]) -> str:
    """``'[2:1]+[3:3]+[6:5] = 3+6+11 = 20 is a bull, [4:1]+[5:5] = 5+10 = 15, points 5'``."""
    if not rec.get("has_bull"):
        return "no bull: no three tiles total a multiple of 10 ([2:1] and [4:2] count 3 or 6)"
    chosen = rec.get("values") or {}
    choice = (1 if chosen.get(_WILD[0]) == 6 else 0) | (2 if chosen.get(_WILD[1]) == 6 else 0)

    def part(names: Sequence[str]) -> tuple[str, int]:
        vals = _values(names, choice)
        return f"{'+'.join(names)} = {'+'.join(map(str, vals))} = {sum(vals)}", sum(vals)

    bull, _ = part(rec["bull"])
    rest, total = part(rec["rest"])
    return f"{bull} is a bull, {rest}, points {rules.score(total % 10)}"
