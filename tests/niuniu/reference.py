"""An independent, deliberately plain Niu Niu evaluator written from RULES.md §3.

It shares no code with ``solver`` beyond nothing at all: cards are (rank, suit) pairs
with rank 1..13 (A..K) and suit letters, and every rule is spelled out directly.

Bulls, specials and categories depend on a hand's ranks (sorted) and on whether its
suits are all one; each such shape is worked out once (``functools.cache``) and the
answer reused for every hand of that shape.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations
from typing import Any

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUITS = "SHDC"


def card(name: str) -> tuple[int, str]:
    name = name.upper().replace("T", "10")
    return RANKS.index(name[:-1]) + 1, name[-1]


def value(rank: int) -> int:
    return min(rank, 10)


def bull_info(ranks: list[int]) -> tuple[bool, int, int]:
    """(has bull, points 0..10, number of bull triples), from card ranks (in any order)."""
    return _bull_info(tuple(sorted(ranks)))


@cache
def _bull_info(ranks: tuple[int, ...]) -> tuple[bool, int, int]:
    vals = [value(r) for r in ranks]
    n = sum(1 for t in combinations(range(5), 3) if sum(vals[i] for i in t) % 10 == 0)
    if n == 0:
        return False, 0, 0
    pts = sum(vals) % 10
    return True, 10 if pts == 0 else pts, n


def specials(
    hand: list[tuple[int, str]],
    fsb_below_10: bool = False,
    fsb_any_rank: bool = False,
    four_faces_any: bool = False,
) -> set[str]:
    shape = _shape(hand)
    return set(_specials(*shape, fsb_below_10, fsb_any_rank, four_faces_any))


def _shape(hand: list[tuple[int, str]]) -> tuple[tuple[int, ...], bool]:
    """What the rules read of a hand: its ranks, sorted, and whether one suit holds it."""
    return tuple(sorted(r for r, _ in hand)), len({s for _, s in hand}) == 1


@cache
def _specials(
    sorted_ranks: tuple[int, ...],
    one_suit: bool,
    fsb_below_10: bool,
    fsb_any_rank: bool,
    four_faces_any: bool,
) -> frozenset[str]:
    ranks = list(sorted_ranks)
    faces = sum(1 for r in ranks if r >= 11)
    out = set()
    if faces == 5:
        out.add("five_faces")
    if faces == 4 and (four_faces_any or ranks.count(10) == 1):
        out.add("four_faces")
    if any(ranks.count(r) == 4 for r in ranks):
        out.add("four_of_a_kind")
    total = sum(value(r) for r in ranks)
    if (fsb_any_rank or all(r <= 4 for r in ranks)) and (
        total < 10 if fsb_below_10 else total <= 10
    ):
        out.add("five_small_bull")
    if one_suit and ranks == list(range(ranks[0], ranks[0] + 5)):
        out.add("straight_flush")
    return frozenset(out)


CLASSIC_ORDER = ["five_faces"]
CASINO_ORDER = ["five_faces", "four_of_a_kind", "straight_flush", "five_small_bull"]


def category(hand: list[tuple[int, str]], order: list[str]) -> str:
    """Category name under a preset whose specials are ``order`` (low to high)."""
    return _category(*_shape(hand), tuple(order))


@cache
def _category(ranks: tuple[int, ...], one_suit: bool, order: tuple[str, ...]) -> str:
    found = _specials(ranks, one_suit, False, False, False)
    for name in reversed(order):
        if name in found:
            return name
    has, pts, _ = _bull_info(ranks)
    if not has:
        return "no_bull"
    return "niu_niu" if pts == 10 else f"niu_{pts}"


def category_rank(cat: str, order: list[str]) -> int:
    if cat == "no_bull":
        return 0
    if cat == "niu_niu":
        return 10
    if cat.startswith("niu_"):
        return int(cat[4:])
    return 11 + order.index(cat)


def classic_beats(a: list[tuple[int, str]], b: list[tuple[int, str]]) -> bool:
    """Does hand ``a`` beat ``b`` under classic (RULES §3)? Written as the rule reads."""
    ca, cb = category(a, CLASSIC_ORDER), category(b, CLASSIC_ORDER)
    ra, rb = category_rank(ca, CLASSIC_ORDER), category_rank(cb, CLASSIC_ORDER)
    if ra != rb:
        return ra > rb
    suit_rank = {"S": 4, "H": 3, "C": 2, "D": 1}
    high_a = max(a, key=lambda c: (c[0], suit_rank[c[1]]))
    high_b = max(b, key=lambda c: (c[0], suit_rank[c[1]]))
    return (high_a[0], suit_rank[high_a[1]]) > (high_b[0], suit_rank[high_b[1]])


def casino_beats(a: list[tuple[int, str]], b: list[tuple[int, str]]) -> bool:
    """Does hand ``a`` beat ``b`` under casino (RULES §3)?"""
    ca, cb = category(a, CASINO_ORDER), category(b, CASINO_ORDER)
    ra, rb = category_rank(ca, CASINO_ORDER), category_rank(cb, CASINO_ORDER)
    if ra != rb:
        return ra > rb

    def ranks_down(h: list[tuple[int, str]], cat: str) -> list[int]:
        rs = sorted((r for r, _ in h), reverse=True)
        if cat == "four_of_a_kind":
            quad = next(r for r in rs if rs.count(r) >= 4)
            rs = [quad] * 4 + sorted((r for r in rs if r != quad), reverse=True)
            rs += [quad] * (5 - len(rs))
        return rs

    xa, xb = ranks_down(a, ca), ranks_down(b, cb)
    if xa != xb:
        return xa > xb
    suit_rank = {"S": 4, "H": 3, "D": 2, "C": 1}
    high_a = max(a, key=lambda c: (c[0], suit_rank[c[1]]))
    high_b = max(b, key=lambda c: (c[0], suit_rank[c[1]]))
    return suit_rank[high_a[1]] > suit_rank[high_b[1]]


# ------------------------------------------------------------------ house rules (RULES §9)
#
# The functions below read a rule set as the plain dict a rule file holds (the fields of
# RULES §8/§9 and the issue: deck, specials, special_definitions, bull_from_three_of_a_kind,
# tie_break, suit_order, quads_first, on_tie, multipliers) and spell every rule out again.

ALL_SPECIALS = (
    "five_faces",
    "four_faces",
    "four_of_a_kind",
    "straight_flush",
    "five_small_bull",
    "three_of_a_kind",
    "straight",
)


def bulls(ranks: list[int], trips: bool = False) -> tuple[bool, int, int, tuple[int, ...] | None]:
    """(has bull, points 1..10 or 0, number of bull triples, the first triple of positions
    reaching the points). ``ranks`` in the hand's canonical order (sorted). A triple is a
    bull when its values sum to a multiple of 10, or — ``trips`` — its three cards share a
    rank; it scores the last digit of the other two cards (0 counts 10); the best counts."""
    return _bulls(tuple(ranks), bool(trips))


@cache
def _bulls(ranks: tuple[int, ...], trips: bool) -> tuple[bool, int, int, tuple[int, ...] | None]:
    vals = [value(r) for r in ranks]
    found = []
    for t in combinations(range(5), 3):
        s = sum(vals[i] for i in t)
        if s % 10 == 0 or (trips and ranks[t[0]] == ranks[t[1]] == ranks[t[2]]):
            rest = sum(vals) - s
            found.append((t, rest % 10 or 10))
    if not found:
        return False, 0, 0, None
    best = max(p for _, p in found)
    return True, best, len(found), next(t for t, p in found if p == best)


def special_set(hand: list[tuple[int, str]], rules: dict[str, Any]) -> set[str]:
    """Every special ``hand`` is, by the definitions in ``rules`` (before precedence)."""
    return set(_special_set(*_shape(hand), _definitions(rules)))


def _definitions(rules: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    """The rule set's special definitions, as a key the caches can hold."""
    return tuple(sorted(rules.get("special_definitions", {}).items()))


@cache
def _special_set(
    sorted_ranks: tuple[int, ...], one_suit: bool, definitions: tuple[tuple[str, Any], ...]
) -> frozenset[str]:
    d = dict(definitions)
    ranks = list(sorted_ranks)
    faces = sum(1 for r in ranks if r >= 11)
    tens = ranks.count(10)
    most = max(ranks.count(r) for r in ranks)
    total = sum(value(r) for r in ranks)
    out = set()
    if faces == 5:
        out.add("five_faces")
    fifth = d.get("four_faces_fifth", "ten")
    if (
        (fifth == "ten" and faces == 4 and tens == 1)
        or (fifth == "any" and faces == 4)
        or (fifth == "all_ten_valued" and all(r >= 10 for r in ranks) and faces < 5)
    ):
        out.add("four_faces")
    if most >= 4:  # five of a kind (from a shoe) holds four of a kind
        out.add("four_of_a_kind")
    if most >= 3:
        out.add("three_of_a_kind")
    if ranks == list(range(ranks[0], ranks[0] + 5)):
        out.add("straight")
        if one_suit:
            out.add("straight_flush")
    small_ranks = d.get("five_small_bull_max_rank", "4") == "any" or all(r <= 4 for r in ranks)
    small_total = (
        total <= 10 if d.get("five_small_bull_total", "at_most_10") == "at_most_10" else total < 10
    )
    if small_ranks and small_total:
        out.add("five_small_bull")
    return frozenset(out)


def category_of(hand: list[tuple[int, str]], rules: dict[str, Any]) -> str:
    """The category label under ``rules``: the highest special it lists, else the points."""
    return _category_of(
        *_shape(hand),
        tuple(rules["specials"]),
        bool(rules.get("bull_from_three_of_a_kind", False)),
        _definitions(rules),
    )


@cache
def _category_of(
    ranks: tuple[int, ...],
    one_suit: bool,
    specials: tuple[str, ...],
    trips: bool,
    definitions: tuple[tuple[str, Any], ...],
) -> str:
    found = _special_set(ranks, one_suit, definitions)
    for name in reversed(specials):
        if name in found:
            return str(name)
    has, pts, _, _ = _bulls(ranks, trips)
    if not has:
        return "no_bull"
    return "niu_niu" if pts == 10 else f"niu_{pts}"


def level(cat: str, rules: dict[str, Any]) -> int:
    """How high a category ranks: no bull 0, niu n = n, niu niu 10, specials above."""
    return category_rank(cat, list(rules["specials"]))


def sort_key(hand: list[tuple[int, str]], rules: dict[str, Any]) -> tuple[int, ...]:
    """A key that orders hands as the rules compare them (equal keys: a tie)."""
    cat = category_of(hand, rules)
    suit_rank = {s: 4 - i for i, s in enumerate(rules["suit_order"])}
    high = max(hand, key=lambda c: (c[0], suit_rank[c[1]]))
    how = rules["tie_break"]
    if how == "highest_card":
        return (level(cat, rules), high[0], suit_rank[high[1]])
    if how == "rank_by_rank":
        rs = sorted((r for r, _ in hand), reverse=True)
        if cat == "four_of_a_kind" and rules.get("quads_first", False):
            quad = next(r for r in rs if rs.count(r) >= 4)
            rs = [quad] * 4 + sorted((r for r in rs if r != quad), reverse=True)
            rs += [quad] * (5 - len(rs))
        return (level(cat, rules), *rs, suit_rank[high[1]])
    return (level(cat, rules),)


def net(
    player: list[tuple[int, str]],
    banker: list[tuple[int, str]],
    rules: dict[str, Any],
    bet: str,
    commission: Any,
) -> Any:
    """The player's net in stakes: the winner collects its hand's multiplier for ``bet``
    (the loser pays it), less the commission on a player's winnings; a tie pushes or, with
    ``on_tie = "banker"``, the player pays the banker's multiplier."""
    table = rules["multipliers"][bet]

    def mult(h: list[tuple[int, str]]) -> int:
        return int(table.get(category_of(h, rules), table.get("default", 1)))

    kp, kb = sort_key(player, rules), sort_key(banker, rules)
    if kp > kb:
        return mult(player) * (1 - commission)
    if kp < kb or rules.get("on_tie", "push") == "banker":
        return -mult(banker)
    return 0
