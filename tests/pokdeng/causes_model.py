"""The Pok Deng implementations of the cause tests (issue 13): one per catalogued mistake
and rule option, a switch each, written from RULES.md §5 and the house rules of §9 and
sharing no code with ``solver``. A = 1, 2..9 their value, 10/J/Q/K = 0; points are the
last digit. Two cards of 8 or 9 are Pok. Types Pok > Tong > (Straight Flush > Straight)
> Sam Lueang > Normal; deng by kind of hand (a table with switches); the winner is paid
its own deng, equal type and points settle by a switch, Tong against Sam Lueang pays a
fixed amount.

Kept apart from ``test_causes`` so that a probe peer (``tests/_model_peer.py``) loads
only this: no pytest, pyarrow or solver.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cache

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUITS = ["S", "H", "D", "C"]
DECK = [r + s for r in RANKS for s in SUITS]
TYPES = ["normal", "sam_lueang", "straight", "straight_flush", "tong", "pok"]
DENG = {
    "two_card_pair": 2,
    "two_card_suited": 2,
    "pok_pair": 2,
    "pok_suited": 2,
    "three_suited": 3,
    "three_card_pair": 1,
    "tong": 5,
    "sam_lueang": 3,
    "straight": 3,
    "straight_flush": 5,
}


@dataclass(frozen=True)
class Impl:
    straights: bool = False
    ace: str = "both"
    deng: tuple[tuple[str, int], ...] = field(default_factory=lambda: tuple(DENG.items()))
    tong_vs_sam_lueang: int = 2
    equal_points: str = "deng_difference"
    order: tuple[str, ...] = ()
    mistakes: frozenset[str] = frozenset()
    shoe: bool = False  # dealt from an 8-deck shoe: a hand may hold identical cards
    flush_with_identical: bool = True  # one suit holding two identical: three-suited

    def with_deng(self, key: str, value: int) -> Impl:
        return replace(self, deng=tuple({**dict(self.deng), key: value}.items()))


STANDARD = Impl()
STRAIGHTS = Impl(straights=True)
SHOE8 = Impl(shoe=True)
PRESETS = {"standard": STANDARD, "straights": STRAIGHTS, "shoe8": SHOE8}
Cls = tuple[str, int, int, str]


RANK = {r: i for i, r in enumerate(RANKS)}


def rank(c: str) -> int:
    return RANK[c[:-1]]


def value(c: str) -> int:
    r = rank(c) + 1
    return r if r < 10 else 0


@cache
def shape(hand: tuple[str, ...]) -> tuple[int, int, tuple[int, ...], bool]:
    """What any implementation reads of a hand: its points, how many suits, its ranks
    sorted, and whether it holds two identical cards (a shoe)."""
    points = sum(value(c) for c in hand) % 10
    suits = len({c[-1] for c in hand})
    ranks = tuple(sorted(rank(c) for c in hand))
    return points, suits, ranks, len(set(hand)) < len(hand)


def classify(impl: Impl, hand: tuple[str, ...]) -> Cls:
    """(type, points, deng, two-card kind or '') of a hand, as the implementation says."""
    return classifier(impl)(hand)


@cache
def classifier(impl: Impl) -> Callable[[tuple[str, ...]], Cls]:
    """:func:`classify` for one implementation (its deng table and runs read once)."""
    d = dict(impl.deng)
    runs = [(lo, lo + 1, lo + 2) for lo in range(11) if lo > 0 or impl.ace != "high"]
    if impl.ace in ("high", "both"):
        runs.append((0, 11, 12))  # Q-K-A (never K-A-2)
    three_card_pok = "three_card_pok" in impl.mistakes

    def cls(hand: tuple[str, ...]) -> Cls:
        points, suits, ranks, identical = shape(hand)
        if len(hand) == 2:
            # two identical cards (a shoe) are a pair, not suited
            kind = "pair" if ranks[0] == ranks[1] else "suited" if suits == 1 else "plain"
            if points >= 8:
                deng = {"suited": d["pok_suited"], "pair": d["pok_pair"]}.get(kind, 1)
                return ("pok", points, deng, kind)
            deng = {"suited": d["two_card_suited"], "pair": d["two_card_pair"]}.get(kind, 1)
            return ("normal", points, deng, kind)
        if ranks[0] == ranks[2]:
            return ("tong", points, d["tong"], "")
        if impl.straights and ranks in runs:
            if suits == 1:
                return ("straight_flush", points, d["straight_flush"], "")
            return ("straight", points, d["straight"], "")
        if ranks[0] >= 10:
            return ("sam_lueang", points, d["sam_lueang"], "")
        if suits == 1 and (impl.flush_with_identical or not identical):
            deng = d["three_suited"]
        elif len(set(ranks)) == 2:
            deng = d["three_card_pair"]
        else:
            deng = 1
        kind_type = "pok" if three_card_pok and points >= 8 else "normal"
        return (kind_type, points, deng, "")

    return cls


def settle(impl: Impl, p: tuple[str, ...], q: tuple[str, ...]) -> int:
    """The player's net against the dealer."""
    a, b = classify(impl, p), classify(impl, q)
    ts = {a[0], b[0]}
    if ts == {"tong", "sam_lueang"}:
        return impl.tong_vs_sam_lueang if a[0] == "tong" else -impl.tong_vs_sam_lueang
    if "tong_by_rank" in impl.mistakes and a[0] == b[0] == "tong":
        ra, rb = rank(p[0]), rank(q[0])
        return a[2] if ra > rb else -b[2] if ra < rb else 0
    if "deng_before_points" in impl.mistakes:
        ka, kb = (TYPES.index(a[0]), a[2], a[1]), (TYPES.index(b[0]), b[2], b[1])
        return a[2] if ka > kb else -b[2] if ka < kb else 0
    ka2, kb2 = (TYPES.index(a[0]), a[1]), (TYPES.index(b[0]), b[1])
    if ka2 != kb2:
        return a[2] if ka2 > kb2 else -b[2]
    if impl.order and a[3] and b[3] and a[3] != b[3]:
        return a[2] if impl.order.index(a[3]) < impl.order.index(b[3]) else -b[2]
    if impl.equal_points == "push" or a[2] == b[2]:
        return 0
    if impl.equal_points == "higher_deng":
        return a[2] if a[2] > b[2] else -b[2]
    return a[2] - b[2]
