"""Pok Deng rules: hand types, points, deng, and settlement (RULES.md §5).

Every two-card and three-card hand is classified at once with numpy: its
:class:`HandType`, its points (last digit of the card values, A = 1, 2..9 face,
10/J/Q/K = 0), its deng (the payout multiplier) and a strength that orders hands by
type then points (``strength = 10 * type + points``). Settlement is vectorised too:
the player's net in stakes for arrays of (type, points, deng) on both sides.

Rule options are data (:class:`PokDengRules`): straights on or off and where the ace
goes, the deng values (a three-card pair among them), the Tong-vs-Sam-Lueang payout
(2; paying 5 is the common mistake), what equal type and points pay, a house order of
two-card kinds, whether a dealer Pok settles at once, and the dealer's drawing policy.

>>> from solver.games.pokdeng.rules import load_rules
>>> rules = load_rules()
>>> classify_hand(parse_hand("9S 9D"), rules)
HandClass(type=HandType.POK, points=8, deng=2)
>>> str(classify_hand(parse_hand("6C 4C 5C"), rules))
'Normal 5, 3 deng'
>>> settle_hands(parse_hand("6C 4C 5C"), parse_hand("KH 2S 3C"), rules).net
2
>>> straights = load_rules("straights")
>>> str(classify_hand(parse_hand("6C 4C 5C"), straights))
'Straight Flush 5, 5 deng'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from solver.core.cards import CARD_NAMES, Card, check_copies, parse_hand
from solver.core.errors import ParseError
from solver.core.indexing import all_multisets, all_subsets
from solver.games.pokdeng.rules import HandType, Kind, PokDengRules

__all__ = [
    "CARD_VALUES",
    "N_SHOE_THREE",
    "N_SHOE_TWO",
    "N_THREE",
    "N_TWO",
    "HandClass",
    "Settlement",
    "all_hands",
    "all_shoe_hands",
    "classify",
    "classify_all",
    "classify_hand",
    "parse_hand",
    "settle",
    "settle_classes",
    "settle_hands",
    "two_card_kind",
]

N_TWO = 1326
"""Number of two-card hands, C(52, 2)."""
N_THREE = 22100
"""Number of three-card hands, C(52, 3)."""
N_SHOE_TWO = 1378
"""Number of two-card multisets of the 52 faces (a shoe), C(53, 2)."""
N_SHOE_THREE = 24804
"""Number of three-card multisets of the 52 faces (a shoe), C(54, 3)."""

CARD_VALUES: npt.NDArray[np.int8] = np.array(
    [(r + 1 if r < 9 else 0) for r in range(13) for _ in range(4)], dtype=np.int8
)
"""Value of each card id: A = 1, 2..9 face value, 10/J/Q/K = 0."""


# ---------------------------------------------------------------- rules as data


# ---------------------------------------------------------------- classification


@lru_cache(maxsize=2)
def all_hands(size: int) -> npt.NDArray[np.uint8]:
    """Every sorted ``size``-card hand (2 or 3) in colex order: row i has colex rank i."""
    if size not in (2, 3):
        raise ValueError("Pok Deng hands have 2 or 3 cards")
    arr = all_subsets(52, size)
    arr.setflags(write=False)
    return arr


@lru_cache(maxsize=2)
def all_shoe_hands(size: int) -> npt.NDArray[np.uint8]:
    """Every sorted ``size``-card multiset of the 52 faces (2 or 3; a hand from a shoe)
    in dense multiset order: row i has multiset rank i.

    >>> all_shoe_hands(2).shape, all_shoe_hands(3)[:2].tolist()
    ((1378, 2), [[0, 0, 0], [0, 0, 1]])
    """
    if size not in (2, 3):
        raise ValueError("Pok Deng hands have 2 or 3 cards")
    arr = all_multisets(52, size)
    arr.setflags(write=False)
    return arr


def classify(
    cards: npt.ArrayLike, rules: PokDengRules
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8], npt.NDArray[np.int8]]:
    """Type, points and deng of many hands: ``cards`` has shape (n, 2) or (n, 3), card
    ids in any order within a row (validity is the caller's job). Rows may repeat a
    card (a shoe): two identical cards are a pair, three are Tong, and three cards of
    one suit are three-suited deng even with two identical (see ``PokDengRules.decks``).

    >>> from solver.games.pokdeng.rules import load_rules
    >>> t, p, d = classify([[32, 34], [0, 4]], load_rules())   # 9S 9D, AS 2S
    >>> t.tolist(), p.tolist(), d.tolist()
    ([5, 0], [8, 3], [2, 2])
    """
    arr = np.asarray(cards, dtype=np.int64)
    if arr.ndim != 2 or arr.shape[1] not in (2, 3):
        raise ValueError("cards must have shape (n, 2) or (n, 3)")
    if rules.types:  # a file in the rule language: its own types, in its order
        from solver.games.pokdeng.language import classify_types

        return classify_types(arr, rules.types, rules.deng, rules.flush_with_identical)
    n, size = arr.shape
    ranks = arr >> 2
    suits = arr & 3
    points = (CARD_VALUES[arr].astype(np.int16).sum(axis=1) % 10).astype(np.int8)
    dg = rules.deng
    htype = np.zeros(n, dtype=np.int8)
    deng = np.ones(n, dtype=np.int8)
    if size == 2:
        pair = ranks[:, 0] == ranks[:, 1]
        suited = suits[:, 0] == suits[:, 1]
        pok = points >= 8
        htype[pok] = HandType.POK
        deng[suited] = dg.two_card_suited
        deng[pair] = dg.two_card_pair
        deng[pok & suited] = dg.pok_suited
        deng[pok & pair] = dg.pok_pair
        return htype, points, deng
    r = np.sort(ranks, axis=1)
    suited = (suits[:, 0] == suits[:, 1]) & (suits[:, 1] == suits[:, 2])
    deng[suited] = dg.three_suited
    pair = (r[:, 0] == r[:, 1]) != (r[:, 1] == r[:, 2])  # exactly two share a rank
    # one deck: a pair is never suited; a shoe: one suit (two identical cards) stays
    # three-suited; a special type's deng overrides both
    deng[pair & ~suited if rules.flush_with_identical else pair] = dg.three_card_pair
    sam = r[:, 0] >= 10  # J, Q, K only
    htype[sam] = HandType.SAM_LUEANG
    deng[sam] = dg.sam_lueang
    if rules.straights:
        consecutive = (r[:, 1] == r[:, 0] + 1) & (r[:, 2] == r[:, 1] + 1)
        if rules.ace == "high":
            consecutive &= r[:, 0] != 0  # A-2-3 is not a straight
        straight = consecutive
        if rules.ace in ("high", "both"):
            straight = straight | ((r[:, 0] == 0) & (r[:, 1] == 11) & (r[:, 2] == 12))
        htype[straight] = HandType.STRAIGHT
        deng[straight] = dg.straight
        htype[straight & suited] = HandType.STRAIGHT_FLUSH
        deng[straight & suited] = dg.straight_flush
    tong = r[:, 0] == r[:, 2]
    htype[tong] = HandType.TONG
    deng[tong] = dg.tong
    return htype, points, deng


def two_card_kind(cards: npt.ArrayLike) -> npt.NDArray[np.int8]:
    """The :class:`~solver.games.pokdeng.rules.Kind` of many hands (shape (n, 2) or
    (n, 3)): suited, pair or plain for two cards, ``THREE_CARDS`` for three.

    Two identical cards (a shoe) are a pair, not suited.

    >>> two_card_kind([[32, 34], [0, 4], [0, 5], [0, 0]]).tolist()   # 9S 9D, AS 2S, AS 2H, AS AS
    [2, 3, 1, 2]
    """
    arr = np.asarray(cards, dtype=np.int64)
    if arr.ndim != 2 or arr.shape[1] not in (2, 3):
        raise ValueError("cards must have shape (n, 2) or (n, 3)")
    if arr.shape[1] == 3:
        return np.full(len(arr), Kind.THREE_CARDS, dtype=np.int8)
    suited = (arr[:, 0] & 3) == (arr[:, 1] & 3)
    pair = (arr[:, 0] >> 2) == (arr[:, 1] >> 2)
    out = np.where(pair, Kind.PAIR, np.where(suited, Kind.SUITED, Kind.PLAIN))
    return out.astype(np.int8)


def classify_all(rules: PokDengRules) -> dict[int, tuple[npt.NDArray[np.int8], ...]]:
    """``{2: (type, points, deng), 3: (...)}`` for every hand, in colex order."""
    return {size: classify(all_hands(size), rules) for size in (2, 3)}


@dataclass(frozen=True)
class HandClass:
    """What settlement needs of a hand: its type, points and deng, and its
    :class:`~solver.games.pokdeng.rules.Kind` (for a house ``two_card_order``; left out
    of the repr)."""

    type: HandType
    points: int
    deng: int
    kind: Kind = field(default=Kind.THREE_CARDS, repr=False)

    @property
    def strength(self) -> int:
        """``10 * type + points``: orders hands by type, then points."""
        return 10 * int(self.type) + self.points

    def __str__(self) -> str:
        if self.type == HandType.SAM_LUEANG:
            return f"{self.type.title}, {self.deng} deng"
        return f"{self.type.title} {self.points}, {self.deng} deng"


def classify_hand(cards: Sequence[Card], rules: PokDengRules) -> HandClass:
    """Classify one hand of 2 or 3 card ids (use :func:`parse_hand` to read text); a
    shoe of ``rules.decks`` decks allows that many copies of a card."""
    shown = " ".join(CARD_NAMES[c] for c in cards)
    if len(cards) not in (2, 3):
        raise ParseError(f"a Pok Deng hand has 2 or 3 cards, got {shown!r}")
    if rules.decks == 1 and len(set(cards)) != len(cards):
        raise ParseError(f"a Pok Deng hand has 2 or 3 distinct cards, got {shown!r}")
    check_copies(cards, rules.decks, f"hand {shown!r}")
    arr = np.asarray([list(cards)])
    t, p, d = classify(arr, rules)
    return HandClass(HandType(int(t[0])), int(p[0]), int(d[0]), Kind(int(two_card_kind(arr)[0])))


# ---------------------------------------------------------------- settlement


def settle(
    p_type: npt.ArrayLike,
    p_points: npt.ArrayLike,
    p_deng: npt.ArrayLike,
    d_type: npt.ArrayLike,
    d_points: npt.ArrayLike,
    d_deng: npt.ArrayLike,
    rules: PokDengRules,
    p_kind: npt.ArrayLike | None = None,
    d_kind: npt.ArrayLike | None = None,
) -> npt.NDArray[np.int64]:
    """The player's net in stakes (arrays broadcast): type, then points decide; the winner
    is paid its own deng; equal type and points pay as ``rules.equal_points`` says,
    unless ``rules.two_card_order`` ranks two two-card hands (then the higher kind is
    paid its own deng); Tong against Sam Lueang pays ``rules.tong_vs_sam_lueang_pays``.
    ``p_kind``/``d_kind`` (:class:`~solver.games.pokdeng.rules.Kind` codes) are needed
    only when the rules have a ``two_card_order``.

    >>> from solver.games.pokdeng.rules import load_rules
    >>> settle([5, 0], [9, 3], [1, 1], [5, 0], [8, 5], [2, 3], load_rules()).tolist()
    [1, -3]
    >>> house = PokDengRules(equal_points="higher_deng", two_card_order=("suited", "pair", "plain"))
    >>> settle([0, 5], [5, 8], [3, 2], [0, 5], [5, 8], [1, 2], house, [0, 2], [1, 3]).tolist()
    [3, -2]
    """
    pt = np.asarray(p_type, dtype=np.int64)
    dt = np.asarray(d_type, dtype=np.int64)
    ps = 10 * pt + np.asarray(p_points, dtype=np.int64)
    ds = 10 * dt + np.asarray(d_points, dtype=np.int64)
    pd = np.asarray(p_deng, dtype=np.int64)
    dd = np.asarray(d_deng, dtype=np.int64)
    if rules.equal_points == "push":
        tie = np.zeros(np.broadcast(pd, dd).shape, dtype=np.int64)
    elif rules.equal_points == "higher_deng":
        tie = np.where(pd > dd, pd, np.where(pd < dd, -dd, 0))
    else:  # deng_difference
        tie = pd - dd
    if rules.two_card_order:
        if p_kind is None or d_kind is None:
            raise ValueError("a two_card_order needs the kind of each hand (p_kind, d_kind)")
        ranks = np.array(rules.kind_ranks(), dtype=np.int64)
        pr = ranks[np.asarray(p_kind, dtype=np.int64)]
        dr = ranks[np.asarray(d_kind, dtype=np.int64)]
        ordered = (pr > 0) & (dr > 0) & (pr != dr)  # two two-card hands of different kinds
        tie = np.where(ordered, np.where(pr > dr, pd, -dd), tie)
    net = np.where(ps > ds, pd, np.where(ps < ds, -dd, tie))
    pays = rules.tong_vs_sam_lueang_pays
    net = np.where((pt == HandType.TONG) & (dt == HandType.SAM_LUEANG), pays, net)
    net = np.where((pt == HandType.SAM_LUEANG) & (dt == HandType.TONG), -pays, net)
    return np.asarray(net, dtype=np.int64)


@dataclass(frozen=True)
class Settlement:
    """One showdown: ``winner`` is ``player``, ``dealer`` or ``push``; ``net`` is the
    player's net in stakes; ``reason`` says which rule decided."""

    winner: str
    net: int
    reason: str


def settle_classes(player: HandClass, dealer: HandClass, rules: PokDengRules) -> Settlement:
    """Settle two classified hands, with the reason.

    >>> from solver.games.pokdeng.rules import load_rules
    >>> r = load_rules()
    >>> s = settle_classes(HandClass(HandType.TONG, 9, 5), HandClass(HandType.SAM_LUEANG, 0, 3), r)
    >>> s.winner, s.net, s.reason
    ('player', 2, 'Tong beats Sam Lueang: pays 2 (Tong vs Sam Lueang rule)')
    """
    p, d = player, dealer
    net = int(settle(p.type, p.points, p.deng, d.type, d.points, d.deng, rules, p.kind, d.kind))
    winner = "player" if net > 0 else "dealer" if net < 0 else "push"
    if {p.type, d.type} == {HandType.TONG, HandType.SAM_LUEANG}:
        reason = (
            f"Tong beats Sam Lueang: pays {rules.tong_vs_sam_lueang_pays} (Tong vs Sam Lueang rule)"
        )
    elif p.type != d.type:
        hi, who = (p, "player") if p.type > d.type else (d, "dealer")
        lo = d if hi is p else p
        reason = f"{hi.type.title} beats {lo.type.title}: {who}'s {hi.deng} deng"
    elif p.points != d.points:
        hi, who = (p, "player") if p.points > d.points else (d, "dealer")
        lo = d if hi is p else p
        reason = (
            f"{hi.type.title} {hi.points} beats {lo.type.title} {lo.points}: {who}'s {hi.deng} deng"
        )
    elif rules.kind_rank(p.kind) and rules.kind_rank(d.kind) and p.kind != d.kind:
        hi, who = (
            (p, "player") if rules.kind_rank(p.kind) > rules.kind_rank(d.kind) else (d, "dealer")
        )
        lo = d if hi is p else p
        reason = (
            f"both {p.type.title} {p.points} in two cards: {hi.kind.label} beats "
            f"{lo.kind.label} (two_card_order), {who}'s {hi.deng} deng"
        )
    elif p.deng != d.deng and rules.equal_points != "push":
        who = "player" if p.deng > d.deng else "dealer"
        if rules.equal_points == "higher_deng":
            paid = f"{who}'s {max(p.deng, d.deng)} deng in full (equal_points = higher_deng)"
        else:
            paid = f"{who} wins the difference {abs(p.deng - d.deng)}"
        reason = f"both {p.type.title} {p.points}: deng {p.deng} vs {d.deng}, {paid}"
    elif p.deng != d.deng:
        reason = f"both {p.type.title} {p.points}: push (equal_points = push)"
    else:
        reason = f"both {p.type.title} {p.points} with {p.deng} deng: push"
    return Settlement(winner, net, reason)


def settle_hands(player: Sequence[Card], dealer: Sequence[Card], rules: PokDengRules) -> Settlement:
    """Settle two hands of card ids (one deck: they must not share a card; a shoe of
    ``rules.decks`` decks: no card more than that many times in the two together)."""
    shared = sorted(set(player) & set(dealer))
    if shared and rules.decks == 1:
        raise ParseError(f"card {CARD_NAMES[shared[0]]} is in both hands (one deck)")
    check_copies([*player, *dealer], rules.decks, "the two hands")
    return settle_classes(classify_hand(player, rules), classify_hand(dealer, rules), rules)
