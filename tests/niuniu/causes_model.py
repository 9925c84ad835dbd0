"""An independent, vectorised Niu Niu implementation written from RULES.md §3 and §9,
with a switch for every house rule and every catalogued mistake (issue 13): the
"other implementations" the diagnosis tests verify.

It shares no code with ``solver``: cards are ids ``rank * 4 + suit`` (rank 0..12 =
A..K, suit 0..3 = S H D C, as RULES §2 lists them), written in some order; every rule
is spelled out here from the rule text.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, replace
from functools import cache
from itertools import combinations, permutations
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:  # the tables' writers import pyarrow: a probe peer needs none
    import pyarrow as pa

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUITS = "SHDC"
NAMES = [r + s for r in RANKS for s in SUITS]
POINT_LABELS = ["no_bull", *(f"niu_{k}" for k in range(1, 10)), "niu_niu"]
LABELS = [*POINT_LABELS, "five_faces", "four_faces", "four_of_a_kind", "straight_flush"]
LABELS += ["five_small_bull", "three_of_a_kind", "straight"]

DOUBLE = (("niu_7", 2), ("niu_8", 2), ("niu_9", 2), ("niu_niu", 3), ("five_faces", 5))
"""RULES §3: classic's double bet, the winning hand's multiplier (else 1)."""
STANDARD = (
    ("niu_niu", 2),
    ("five_faces", 3),
    ("four_of_a_kind", 4),
    ("straight_flush", 5),
    ("five_small_bull", 6),
)
"""RULES §3: casino's standard bet (else 1)."""


@dataclass(frozen=True)
class Model:
    """One implementation: the rule choices, and the mistakes it makes."""

    specials: tuple[str, ...] = ("five_faces",)
    fsb_total: str = "at_most_10"  # or below_10
    fsb_rank: str = "4"  # or any
    ff_fifth: str = "ten"  # or any, all_ten_valued
    trips_bull: bool = False
    tie_break: str = "highest_card"  # rank_by_rank, none
    suit_order: str = "SHCD"  # high to low
    quads_first: bool = False
    on_tie: str = "push"  # or banker
    multipliers: tuple[tuple[str, int], ...] = ()  # the bet: the winning hand's, else 1
    commission: float = 0.05
    # mistakes
    skip_first: bool = False
    niu_zero: bool = False
    suit_from: str = ""  # "first" / "last"-written card of the top rank
    loser_multiplier: bool = False
    commission_on_stake: bool = False

    def but(self, **changes: Any) -> Model:
        return replace(self, **changes)


CLASSIC = Model()
CASINO = Model(
    specials=("five_faces", "four_of_a_kind", "straight_flush", "five_small_bull"),
    tie_break="rank_by_rank",
    suit_order="SHDC",
    quads_first=True,
    multipliers=STANDARD,
)
NO_FACES = Model(specials=("three_of_a_kind", "four_of_a_kind"))
PRESETS = {"classic": CLASSIC, "casino": CASINO, "no_faces": NO_FACES, "shoe6": CLASSIC}


def hand_answers(
    cards: npt.NDArray[np.integer], m: Model, strength: bool = True
) -> dict[str, npt.NDArray[Any]]:
    """``has_bull``, ``points`` (as reported), ``category`` (a label index into
    :data:`LABELS`) and, with ``strength``, the showdown key of hands written as
    ``cards``. The parts are cached per array (the bull per bull rule, the shape once,
    the tie key per tie-break, suit order and suit mistake)."""
    points = _cached(cards, ("bull", m.skip_first, m.trips_bull), lambda: _points(cards, m))
    sh = _cached(cards, ("shape",), lambda: _shape(cards))
    faces, tens, srank, total = sh["faces"], sh["tens"], sh["srank"], sh["total"]
    small = total <= 10 if m.fsb_total == "at_most_10" else total < 10
    if m.fsb_rank == "4":
        small &= srank[:, 4] <= 3
    if m.ff_fifth == "ten":
        four_faces = (faces == 4) & (tens == 1)
    elif m.ff_fifth == "any":
        four_faces = faces == 4
    else:
        four_faces = (srank[:, 0] >= 9) & (faces < 5)
    flags = {
        "five_faces": faces == 5,
        "four_faces": four_faces,
        "four_of_a_kind": sh["quads"],
        "straight_flush": sh["straight"] & sh["one_suit"],
        "five_small_bull": small,
        "three_of_a_kind": sh["trips"],
        "straight": sh["straight"],
    }
    cat = points.astype(np.int64)  # 0..10: the points' labels
    crank = cat.copy()
    for i, s in enumerate(m.specials):  # low to high: a higher one overrides
        cat[flags[s]] = LABELS.index(s)
        crank[flags[s]] = 11 + i
    reported = np.where((points == 10) & m.niu_zero, 0, points)
    out = {"has_bull": points > 0, "points": reported.astype(np.int64), "category": cat}
    if strength:

        def tie() -> npt.NDArray[np.int64]:
            return _tie_key(cards, m, sh, cat)

        if m.tie_break == "rank_by_rank" and m.quads_first:  # it reads the category
            key = tie()
        else:
            key = _cached(cards, ("tie", m.tie_break, m.suit_order, m.suit_from), tie)
        out["strength"] = crank * 10**9 + key
    return out


_KEEP = {"bull": 24, "shape": 12, "tie": 48}
"""Entries kept per part, least recently used out: the many tie keys (every tie-break,
suit order and suit mistake) must not push out the few bulls and shapes, which every
cause reads (a cache cleared whole recomputed them ~10 times over)."""
_CACHE: dict[str, OrderedDict[Any, tuple[Any, Any]]] = {part: OrderedDict() for part in _KEEP}


def _cached(cards: Any, what: tuple[Any, ...], make: Any) -> Any:
    part = _CACHE[what[0]]
    key = (id(cards), len(cards), *what)
    hit = part.get(key)
    if hit is not None and hit[0] is cards:
        part.move_to_end(key)
        return hit[1]
    value = make()
    part[key] = (cards, value)
    while len(part) > _KEEP[what[0]]:
        part.popitem(last=False)
    return value


def _points(cards: npt.NDArray[np.integer], m: Model) -> npt.NDArray[np.int16]:
    """The best bull's points (0 no bull, 10 Niu Niu). They depend on the ranks as
    written alone: looked up in :func:`_points_of` worked out for every sequence of 5
    ranks."""
    r = np.asarray(cards, dtype=np.int32) // 4
    key = (((r[:, 0] * 13 + r[:, 1]) * 13 + r[:, 2]) * 13 + r[:, 3]) * 13 + r[:, 4]
    return _points_table(m.skip_first, m.trips_bull)[key]


@cache
def _points_table(skip_first: bool, trips_bull: bool) -> npt.NDArray[np.int16]:
    """Entry ``((r0 * 13 + r1) * 13 + ...) * 13 + r4``: the points of ranks r0..r4."""
    ranks = np.indices((13,) * 5).reshape(5, -1).T  # row i: i's digits in base 13
    return _points_of(ranks * 4, skip_first, trips_bull)


def _points_of(
    cards: npt.NDArray[np.integer], skip_first: bool, trips_bull: bool
) -> npt.NDArray[np.int16]:
    """The best bull's points of hands written as ``cards``, from the rule text."""
    c = np.asarray(cards, dtype=np.int16)
    rank = c // 4
    value = np.minimum(rank + 1, 10)
    total = value.sum(axis=1)
    points = np.zeros(len(c), dtype=np.int16)
    first = 1 if skip_first else 0
    for t in combinations(range(first, 5), 3):
        s = value[:, t[0]] + value[:, t[1]] + value[:, t[2]]
        ok = s % 10 == 0
        if trips_bull:
            ok |= (rank[:, t[0]] == rank[:, t[1]]) & (rank[:, t[1]] == rank[:, t[2]])
        rest = (total - s) % 10
        np.maximum(points, np.where(ok, np.where(rest == 0, 10, rest), 0), out=points)
    return points


def _shape(cards: npt.NDArray[np.integer]) -> dict[str, npt.NDArray[Any]]:
    c = np.asarray(cards, dtype=np.int16)
    rank, suit = c // 4, c % 4
    srank = np.sort(rank, axis=1)  # equal ranks side by side
    quads = (srank[:, 0] == srank[:, 3]) | (srank[:, 1] == srank[:, 4])
    trips = quads | (srank[:, 0] == srank[:, 2]) | (srank[:, 1] == srank[:, 3])
    trips |= srank[:, 2] == srank[:, 4]
    return {
        "rank": rank,
        "suit": suit,
        "srank": srank,
        "total": np.minimum(rank + 1, 10).sum(axis=1),
        "faces": (rank >= 10).sum(axis=1),
        "tens": (rank == 9).sum(axis=1),
        "quads": quads,
        "trips": trips,
        "straight": (np.diff(srank, axis=1) == 1).all(axis=1),
        "one_suit": (suit == suit[:, :1]).all(axis=1),
    }


def _tie_key(
    cards: Any, m: Model, sh: dict[str, npt.NDArray[Any]], cat: npt.NDArray[np.int64]
) -> npt.NDArray[np.int64]:
    """What decides between equal categories (higher wins)."""
    rank, suit, srank = sh["rank"], sh["suit"], sh["srank"]
    strength = {s: 3 - m.suit_order.index(s) for s in SUITS}
    ss = np.array([strength[s] for s in SUITS], dtype=np.int16)[suit]
    top = srank[:, 4]
    at_top = rank == top[:, None]
    if m.suit_from == "first":
        top_suit = ss[np.arange(len(rank)), np.argmax(at_top, axis=1)]
    elif m.suit_from == "last":
        top_suit = ss[np.arange(len(rank)), 4 - np.argmax(at_top[:, ::-1], axis=1)]
    else:
        top_suit = np.where(at_top, ss, -1).max(axis=1)
    top_suit = top_suit.astype(np.int64)
    if m.tie_break == "highest_card":
        return top.astype(np.int64) * 4 + top_suit
    if m.tie_break == "rank_by_rank":
        order = srank[:, ::-1].astype(np.int64)
        if m.quads_first:
            quad = (cat == LABELS.index("four_of_a_kind")) & (srank[:, 0] == srank[:, 3])
            order[quad] = np.stack([srank[quad, 0]] * 4 + [srank[quad, 4]], axis=1)
        key = np.zeros(len(rank), dtype=np.int64)
        for i in range(5):
            key = key * 13 + order[:, i]
        return key * 4 + top_suit
    return np.zeros(len(rank), dtype=np.int64)


def showdown_answers(
    player: npt.NDArray[np.integer], banker: npt.NDArray[np.integer], m: Model
) -> dict[str, npt.NDArray[Any]]:
    """``winner`` (0 player, 1 banker, 2 push) and the player's ``net``."""
    p, b = hand_answers(player, m), hand_answers(banker, m)
    ps, bs = p["strength"], b["strength"]
    tie = 1 if m.on_tie == "banker" else 2
    winner = np.where(ps > bs, 0, np.where(ps < bs, 1, tie))
    mult = np.array([dict(m.multipliers).get(x, 1) for x in LABELS])
    pm, bm = mult[p["category"]], mult[b["category"]]
    if m.loser_multiplier:
        pm, bm = bm, pm
    win = pm - m.commission if m.commission_on_stake else pm * (1 - m.commission)
    net = np.where(winner == 0, win, np.where(winner == 1, -bm, 0.0))
    return {"winner": winner, "net": np.round(net, 9)}


# ---------------------------------------------------------------- hands and files


def subsets(n: int, k: int) -> npt.NDArray[np.uint8]:
    """Every k-subset of 0..n-1, increasing, in lexicographic order."""
    c = np.arange(n, dtype=np.int64)[:, None]
    for _ in range(k - 1):
        last = c[:, -1]
        reps = n - 1 - last  # each row grows by every larger id
        start = np.repeat(np.cumsum(reps) - reps, reps)
        grown = np.repeat(last + 1, reps) + np.arange(int(reps.sum())) - start
        c = np.column_stack([np.repeat(c, reps, axis=0), grown])
    return c.astype(np.uint8)


PERMS = np.array(list(permutations(range(5))), dtype=np.int64)
_ALL: dict[tuple[int, int], npt.NDArray[np.uint8]] = {}


def every_hand(deck: int = 52, seed: int = 1) -> npt.NDArray[np.uint8]:
    """Every 5-card hand of the first ``deck`` card ids, each written in a random order."""
    key = (deck, seed)
    if key not in _ALL:
        flat = subsets(deck, 5)
        rng = np.random.default_rng(seed)
        order = PERMS[rng.integers(0, len(PERMS), size=len(flat))]
        _ALL[key] = np.take_along_axis(flat, order, axis=1)
    return _ALL[key]


def shoe_hands(n: int, decks: int = 6, seed: int = 2) -> npt.NDArray[np.uint8]:
    """``n`` hands dealt from a shuffled shoe of ``decks`` decks (cards may repeat)."""
    rng = np.random.default_rng(seed)
    shoe = np.tile(np.arange(52, dtype=np.uint8), decks)
    out = np.empty((n, 5), dtype=np.uint8)
    for i in range(0, n, 50):
        rng.shuffle(shoe)
        k = min(50, n - i)
        out[i : i + k] = shoe[: 5 * k].reshape(k, 5)
    return out


def deals(
    n: int, deck: int = 52, seed: int = 3, decks: int = 1
) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
    """``n`` showdowns: player and banker hands from one deck of ``deck`` cards (or a
    shoe of ``decks``); a third with the banker holding the player's ranks in other
    suits, so that tie-breaks and suits decide, and the last 1% (at most 2,000) four of
    a kind against four of a kind (one deck)."""
    rng = np.random.default_rng(seed)
    if decks > 1:
        both = shoe_hands(2 * n, decks, seed)
        return both[:n].copy(), both[n:].copy()
    cards = np.argsort(rng.random((n, deck)), axis=1)[:, :10].astype(np.uint8)
    player, banker = cards[:, :5].copy(), cards[:, 5:].copy()
    same = rng.random(n) < 0.35
    shift = rng.integers(1, 4, size=(n, 5)).astype(np.uint8)
    twin = (player // 4) * 4 + (player % 4 + shift) % 4
    ok = same & ~(twin[:, :, None] == player[:, None, :]).any(axis=(1, 2))
    ok &= (np.sort(twin, axis=1)[:, 1:] != np.sort(twin, axis=1)[:, :-1]).all(axis=1)
    banker[ok] = twin[ok]
    # and a few hundred four of a kind against four of a kind (quad rank vs kickers)
    k = min(n // 100, 2_000)
    ranks = np.argsort(rng.random((k, deck // 4)), axis=1)[:, :4]
    suits = np.argsort(rng.random((k, 2)), axis=1)
    quads = ranks[:, :2, None] * 4 + np.arange(4)[None, None, :]
    kick = ranks[:, 2:] * 4 + suits
    player[-k:] = np.column_stack([quads[:, 0], kick[:, 0]])
    banker[-k:] = np.column_stack([quads[:, 1], kick[:, 1]])
    return player, banker


def texts(cards: npt.NDArray[np.integer]) -> pa.Array:
    import pyarrow as pa
    import pyarrow.compute as pc

    names = pa.array(NAMES)
    c = np.asarray(cards, dtype=np.int64)
    return pc.binary_join_element_wise(
        *[pc.take(names, pa.array(c[:, i])) for i in range(c.shape[1])], " "
    )


def hand_table(cards: npt.NDArray[np.integer], m: Model) -> pa.Table:
    import pyarrow as pa
    import pyarrow.compute as pc

    a = hand_answers(cards, m, strength=False)
    return pa.table(
        {
            "hand": texts(cards),
            "has_bull": pa.array(a["has_bull"]),
            "points": pa.array(a["points"]),
            "category": pc.take(pa.array(LABELS), pa.array(a["category"])),
        }
    )


WINNERS = ["player", "banker", "push"]


def showdown_table(
    player: npt.NDArray[np.integer], banker: npt.NDArray[np.integer], m: Model
) -> pa.Table:
    import pyarrow as pa
    import pyarrow.compute as pc

    a = showdown_answers(player, banker, m)
    return pa.table(
        {
            "player": texts(player),
            "banker": texts(banker),
            "winner": pc.take(pa.array(WINNERS), pa.array(a["winner"])),
            "net": pa.array(a["net"]),
        }
    )
