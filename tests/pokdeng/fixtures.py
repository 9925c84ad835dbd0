"""Independent Pok Deng reference for the tests, written from RULES.md §5 only.

Nothing here imports the code under test: cards are read from their names, hands are
classified with plain Python, and showdowns are settled by a separate function. The
strategy reference enumerates every dealer hand and both draw cards directly.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache, lru_cache
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUITS = ["S", "H", "D", "C"]
# card id = rank index * 4 + suit index (the layout the solver documents for its tables)
NAME = [r + s for r in RANKS for s in SUITS]
VALUE = {
    "A": 1,
    "2": 2,
    "3": 3,
    "4": 4,
    "5": 5,
    "6": 6,
    "7": 7,
    "8": 8,
    "9": 9,
    "10": 0,
    "J": 0,
    "Q": 0,
    "K": 0,
}
TYPE_ORDER = ["normal", "sam_lueang", "straight", "straight_flush", "tong", "pok"]


def ids(text: str) -> tuple[int, ...]:
    """'9S 9D' -> card ids, read with this module's own table of names."""
    return tuple(NAME.index(t) for t in text.split())


def rank_of(card: int) -> str:
    return NAME[card][:-1]


def suit_of(card: int) -> str:
    return NAME[card][-1]


def ref_class(
    cards: Sequence[int], straights: bool = False, ace: str = "both", three_card_pair: int = 1
) -> tuple[str, int, int]:
    """(type, points, deng) straight from the rules text. ``three_card_pair``: the deng
    of three cards exactly two of which share a rank (RULES §9: some houses pay 2),
    unless the hand is of a special type, which pays its own deng."""
    ranks = [rank_of(c) for c in cards]
    suits = [suit_of(c) for c in cards]
    points = sum(VALUE[r] for r in ranks) % 10
    if len(cards) == 2:
        deng = 2 if (suits[0] == suits[1] or ranks[0] == ranks[1]) else 1
        return ("pok" if points in (8, 9) else "normal", points, deng)
    one_suit = len(set(suits)) == 1
    if len(set(ranks)) == 1:
        return ("tong", points, 5)
    if straights:
        positions = sorted(RANKS.index(r) for r in ranks)  # A=0 .. K=12
        if positions in _runs(ace):
            return ("straight_flush", points, 5) if one_suit else ("straight", points, 3)
    if all(r in ("J", "Q", "K") for r in ranks):
        return ("sam_lueang", points, 3)
    if one_suit:
        return ("normal", points, 3)
    return ("normal", points, three_card_pair if len(set(ranks)) == 2 else 1)


@cache
def _runs(ace: str) -> list[list[int]]:
    """The rank positions of the straights under ``ace`` (low, high or both)."""
    runs = []
    for low in range(11):  # A23 .. JQK
        if low == 0 and ace == "high":
            continue
        runs.append([low, low + 1, low + 2])
    if ace in ("high", "both"):
        runs.append([0, 11, 12])  # Q-K-A; K-A-2 never
    return runs


def ref_kind(cards: Sequence[int]) -> str:
    """The kind of a two-card hand for a house order: 'suited', 'pair' or 'plain'; ''
    for three cards."""
    if len(cards) == 3:
        return ""
    a, b = cards
    if suit_of(a) == suit_of(b):
        return "suited"
    return "pair" if rank_of(a) == rank_of(b) else "plain"


def ref_settle(
    player: tuple[str, int, int],
    dealer: tuple[str, int, int],
    tong_vs_sam_lueang: int = 2,
    equal_points: str = "deng_difference",
    order: Sequence[str] = (),
    kinds: tuple[str, str] = ("", ""),
) -> int:
    """The player's net: type, then points; the winner is paid its own deng; Tong against
    Sam Lueang pays a fixed amount. A tie on both: under a house ``order`` of two-card
    kinds (high to low) two two-card hands of different ``kinds`` are ranked by it, the
    higher paid its own deng; otherwise ``equal_points`` says: the deng difference,
    a push, or the higher deng in full."""
    if player[0] == "tong" and dealer[0] == "sam_lueang":
        return tong_vs_sam_lueang
    if player[0] == "sam_lueang" and dealer[0] == "tong":
        return -tong_vs_sam_lueang
    kp = (TYPE_ORDER.index(player[0]), player[1])
    kd = (TYPE_ORDER.index(dealer[0]), dealer[1])
    if kp > kd:
        return player[2]
    if kp < kd:
        return -dealer[2]
    pk, dk = kinds
    if order and pk and dk and pk != dk:
        return player[2] if order.index(pk) < order.index(dk) else -dealer[2]
    if equal_points == "push":
        return 0
    if equal_points == "higher_deng":
        if player[2] == dealer[2]:
            return 0
        return player[2] if player[2] > dealer[2] else -dealer[2]
    assert equal_points == "deng_difference"
    return player[2] - dealer[2]


CONFIG_ARGS = {
    "standard": (False, "both"),
    "straights": (True, "both"),
    "straights_low": (True, "low"),
    "straights_high": (True, "high"),
}


Cls = tuple[str, int, int, str]
"""A reference class: (type, points, deng, two-card kind or '')."""


class Reference:
    """Lookup tables of :func:`ref_class` for one configuration, for fast direct loops.

    ``house``: the house options of RULES §9 — ``three_card_pair`` (deng),
    ``equal_points`` and ``order`` (a house order of two-card kinds, high to low)."""

    def __init__(
        self,
        straights: bool,
        ace: str,
        tong_vs_sam_lueang: int = 2,
        three_card_pair: int = 1,
        equal_points: str = "deng_difference",
        order: Sequence[str] = (),
    ) -> None:
        self.pays = tong_vs_sam_lueang
        self.house = (equal_points, tuple(order))

        def cls(h: tuple[int, ...]) -> Cls:
            return (*ref_class(h, straights, ace, three_card_pair), ref_kind(h))

        self.two = {h: cls(h) for h in combinations(range(52), 2)}
        self.three = {h: cls(h) for h in combinations(range(52), 3)}
        classes = sorted(set(self.two.values()) | set(self.three.values()))
        self.classes = classes
        self.code = {c: i for i, c in enumerate(classes)}
        n = len(classes)
        self.settle = np.array(
            [[self.net(a, b) for b in classes] for a in classes],
            dtype=np.int64,
        )
        # dense lookups: code of a sorted hand by its cards
        self.code2 = np.full((52, 52), -1, dtype=np.int64)
        for (a, b), c in self.two.items():
            self.code2[a, b] = self.code2[b, a] = self.code[c]
        self.code3 = np.full((52, 52, 52), -1, dtype=np.int64)
        for (a, b, e), c in self.three.items():
            k = self.code[c]
            for p in ((a, b, e), (a, e, b), (b, a, e), (b, e, a), (e, a, b), (e, b, a)):
                self.code3[p] = k
        del n

    def net(self, a: Cls, b: Cls) -> int:
        """The player's net of class ``a`` against the dealer's ``b``."""
        equal, order = self.house
        return ref_settle(a[:3], b[:3], self.pays, equal, order, (a[3], b[3]))

    def hand(self, cards: Iterable[int]) -> Cls:
        t = tuple(sorted(cards))
        return self.two[t] if len(t) == 2 else self.three[t]


def direct_loops(
    ref: Reference, start: Sequence[int], k: int, pok_first: bool = True
) -> tuple[int, int]:
    """Pure-Python enumeration: (stand numerator, draw numerator) over 1225*48*47.

    For every dealer two-card hand D of the 50 unseen cards, every player draw x of the
    48 left and every dealer draw c of the 47 left: settle the final hands. A dealer
    standing on D (Pok, or a total above k) ignores c; with ``pok_first`` a dealer Pok
    settles against the player's two cards before the player draws.
    """
    code = ref.code  # a class's row and column in ref.settle
    net = ref.settle.tolist()  # net[a][b]: ref.net of the classes a and b
    unseen = [c for c in range(52) if c not in start]
    p2 = ref.hand(start)
    player_pok = p2[0] == "pok"
    stand_row = net[code[p2]]
    draw_row = {x: net[code[p2 if player_pok else ref.hand((*start, x))]] for x in unseen}
    stand = draw = 0
    for d in combinations(unseen, 2):
        dc = ref.hand(d)
        dealer_draws = dc[0] != "pok" and dc[1] <= k
        rest = [c for c in unseen if c not in d]
        finals = [code[ref.hand((*d, c)) if dealer_draws else dc] for c in rest]
        settles_early = dc[0] == "pok" and pok_first
        early = stand_row[code[dc]]  # the player's two cards against D
        for x in rest:
            row = draw_row[x]
            for c, final in zip(rest, finals, strict=True):
                if c == x:
                    continue
                stand += stand_row[final]
                draw += early if settles_early else row[final]
    return stand, draw


def direct_numpy(
    ref: Reference, start: Sequence[int], k: int, pok_first: bool = True
) -> tuple[int, int]:
    """The same enumeration of every ordered (D, x, c), vectorised with numpy lookups of
    the reference classifier (no shortcut: all 2,763,600 deals are settled). The final
    classes are looked up once per (D, c) for the dealer and once per (D, x) for the
    player, in small tables every deal then reads."""
    unseen = np.array([c for c in range(52) if c not in start])
    dx_at, dc_at = _deals()
    assert len(dc_at) == 1225 * 48 * 47
    i, j = np.triu_indices(50, 1)  # the 1,225 dealer hands, as positions among the unseen
    d0, d1 = unseen[i], unseen[j]
    a, b = start
    p2 = ref.code2[a, b]
    player_pok = ref.classes[p2][0] == "pok"
    dcode = ref.code2[d0, d1]
    is_pok = np.array([cl[0] == "pok" for cl in ref.classes])[dcode]
    dpts = np.array([cl[1] for cl in ref.classes])[dcode]
    dealer_draws = ~is_pok & (dpts <= k)
    in_d = (i[:, None] == np.arange(50)) | (j[:, None] == np.arange(50))  # (1225, 50)
    # the dealer's final class for D and his third card c; -1 where c is a card of D
    by_dc = np.where(
        dealer_draws[:, None], ref.code3[d0[:, None], d1[:, None], unseen[None]], dcode[:, None]
    )
    final = np.where(in_d, -1, by_dc).astype(np.int32).ravel()[dc_at]
    assert final.min() >= 0  # no deal reads a card of D
    by_x = np.full(50, p2) if player_pok else ref.code3[a, b, unseen]
    # the player's final class for D and his third card x: his two cards against a
    # dealer Pok that settles first
    by_dx = np.where(is_pok[:, None] & pok_first, p2, by_x[None, :])
    by_dx = np.where(in_d, -1, by_dx).astype(np.int32).ravel()
    pfinal = by_dx[dx_at]
    assert pfinal.min() >= 0
    settle = ref.settle.astype(np.int32)
    stand = settle[p2][final].sum(dtype=np.int64)
    draw = settle.ravel()[pfinal * len(settle) + final].sum(dtype=np.int64)
    return int(stand), int(draw)


@lru_cache(maxsize=1)
def _deals() -> tuple[np.ndarray, np.ndarray]:
    """Every ordered deal (D, x, c) of the 50 unseen cards: D is one of the 1,225 pairs
    of positions i < j, x and c positions outside D, x != c; as indices of (D, x) and
    of (D, c) into (1225, 50) tables."""
    i, j = np.triu_indices(50, 1)  # the 1,225 dealer hands
    x, c = np.nonzero(~np.eye(50, dtype=bool))  # 2,450 ordered (x, c)
    keep = (
        (x[None] != i[:, None])
        & (x[None] != j[:, None])
        & (c[None] != i[:, None])
        & (c[None] != j[:, None])
    )
    di, xc = np.nonzero(keep)
    return (di * 50 + x[xc]).astype(np.int32), (di * 50 + c[xc]).astype(np.int32)


_BUILT: dict[str, Path] = {}


def built_tables(factory: pytest.TempPathFactory) -> Path:
    """The Pok Deng tables: the committed ones, else built once into a temporary directory."""
    from _tables import tables_for

    return tables_for("pokdeng", factory)
