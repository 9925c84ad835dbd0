"""An independent, deliberately plain Niu Niu evaluator written from RULES.md §3.

It shares no code with ``solver`` beyond nothing at all: cards are (rank, suit) pairs
with rank 1..13 (A..K) and suit letters, and every rule is spelled out directly.
"""

from __future__ import annotations

from itertools import combinations

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUITS = "SHDC"


def card(name: str) -> tuple[int, str]:
    name = name.upper().replace("T", "10")
    return RANKS.index(name[:-1]) + 1, name[-1]


def value(rank: int) -> int:
    return min(rank, 10)


def bull_info(ranks: list[int]) -> tuple[bool, int, int]:
    """(has bull, points 0..10, number of bull triples), from card ranks."""
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
    ranks = sorted(r for r, _ in hand)
    suits = {s for _, s in hand}
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
    if len(suits) == 1 and ranks == list(range(ranks[0], ranks[0] + 5)):
        out.add("straight_flush")
    return out


CLASSIC_ORDER = ["five_faces"]
CASINO_ORDER = ["five_faces", "four_of_a_kind", "straight_flush", "five_small_bull"]


def category(hand: list[tuple[int, str]], order: list[str]) -> str:
    """Category name under a preset whose specials are ``order`` (low to high)."""
    found = specials(hand)
    for name in reversed(order):
        if name in found:
            return name
    has, pts, _ = bull_info([r for r, _ in hand])
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
            quad = next(r for r in rs if rs.count(r) == 4)
            rs = [quad] * 4 + [r for r in rs if r != quad]
        return rs

    xa, xb = ranks_down(a, ca), ranks_down(b, cb)
    if xa != xb:
        return xa > xb
    suit_rank = {"S": 4, "H": 3, "D": 2, "C": 1}
    high_a = max(a, key=lambda c: (c[0], suit_rank[c[1]]))
    high_b = max(b, key=lambda c: (c[0], suit_rank[c[1]]))
    return suit_rank[high_a[1]] > suit_rank[high_b[1]]
