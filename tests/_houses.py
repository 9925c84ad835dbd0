"""Thirteen Niu Niu house rules outside today's catalogue, implemented here from the issue
text (issue 22) and RULES.md §3/§8 — numpy over card ids, never the solver's compiler —
and the claims files they write (hand rows and a seeded showdown sample).

Every house starts from ``classic`` (five faces the only special, ties by the highest
card with suits S > H > C > D, a push when still equal, the equal bet paying 1 less a 5%
commission) and changes what its docstring says. Categories are listed highest first:
a hand takes the first that holds, and that order is also how they rank.
"""

from __future__ import annotations

import csv
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import chain, combinations
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

RANK_NAMES = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUIT_NAMES = "SHDC"  # card id = rank * 4 + suit
SUIT_STRENGTH = np.array([3, 2, 0, 1])  # S > H > C > D

B = dict[str, npt.NDArray[Any]]


@functools.cache
def all_hands() -> npt.NDArray[np.uint8]:
    """Every 5-card hand of one deck, sorted card ids (2,598,960 rows)."""
    flat = chain.from_iterable(combinations(range(52), 5))
    return np.fromiter(flat, dtype=np.uint8, count=5 * 2_598_960).reshape(-1, 5)


def base(cards: npt.NDArray[np.integer]) -> B:
    """What the houses look at, from RULES §8: the bull (three cards summing to a
    multiple of 10; points the other two's last digit, 0 as 10), whether some bull's
    other two cards are a pair, and the ranks, suits and values."""
    c = np.asarray(cards, dtype=np.int64)
    r, s = c >> 2, c & 3
    v = np.minimum(r + 1, 10)
    pts = np.zeros(len(c), dtype=np.int64)
    pair_rest = np.zeros(len(c), dtype=bool)
    for tri in combinations(range(5), 3):
        x, y = (i for i in range(5) if i not in tri)
        ok = v[:, list(tri)].sum(axis=1) % 10 == 0
        p = (v[:, x] + v[:, y]) % 10
        p = np.where(p == 0, 10, p)
        pts = np.where(ok, np.maximum(pts, p), pts)
        pair_rest |= ok & (r[:, x] == r[:, y])
    counts = (r[:, :, None] == np.arange(13)).sum(axis=1)
    srt = np.sort(r, axis=1)
    distinct = counts.max(axis=1) == 1
    low = distinct & (srt[:, 4] - srt[:, 0] == 4)
    high = (srt == np.array([0, 9, 10, 11, 12])).all(axis=1)
    return {
        "r": r, "s": s, "v": v, "points": pts, "pair_rest": pair_rest, "counts": counts,
        "kind": counts.max(axis=1), "pairs": (counts >= 2).sum(axis=1),
        "total": v.sum(axis=1), "flush": (s == s[:, :1]).all(axis=1),
        "straight_any": low | high,
    }  # fmt: skip


Pred = Callable[[B], npt.NDArray[np.bool_]]
FIVE_FACES: tuple[str, Pred] = ("five_faces", lambda b: (b["r"] >= 10).all(axis=1))


def _points(k: int) -> Pred:
    return lambda b: b["points"] == k


NIUS: list[tuple[str, Pred]] = [("niu_niu", _points(10))] + [
    (f"niu_{k}", _points(k)) for k in range(9, 0, -1)
]
NO_BULL: tuple[str, Pred] = ("no_bull", lambda b: np.ones(len(b["r"]), dtype=bool))


# ---------------------------------------------------------------- tie keys (a list of
# numbers compared in order; equal all the way: the house's push)


def highest_card(b: B, i: int) -> list[int]:
    return [max(int(b["r"][i, j]) * 4 + int(SUIT_STRENGTH[b["s"][i, j]]) for j in range(5))]


def ranks_one_by_one(b: B, i: int) -> list[int]:
    return sorted((int(x) for x in b["r"][i]), reverse=True)


def pairs_then_ranks(b: B, i: int) -> list[int]:
    """The issue's no-bull chain: number of pairs, then pair rank, then ranks one by one."""
    counts = b["counts"][i]
    pair_rank = max((r + 1 for r in range(13) if counts[r] >= 2), default=0)
    return [int((counts >= 2).sum()), pair_rank, *ranks_one_by_one(b, i)]


def nothing(b: B, i: int) -> list[int]:
    return []


@dataclass(frozen=True)
class House:
    """A house: categories highest first, per-category tie keys and multipliers (the
    equal bet), and the commission on a player's win."""

    name: str
    doc: str
    cats: list[tuple[str, Pred]]
    learned: tuple[str, ...]
    """The ids ``--infer`` must adopt (at least these)."""
    ties: dict[str, Callable[[B, int], list[int]]] = field(default_factory=dict)
    pays: dict[str, int] = field(default_factory=dict)
    commission: float = 0.05

    def category(self, b: B) -> npt.NDArray[np.int64]:
        """Each hand's category index in :attr:`cats` (0 highest)."""
        out = np.full(len(b["r"]), -1, dtype=np.int64)
        for i, (_, pred) in enumerate(self.cats):
            out = np.where((out < 0) & pred(b), i, out)
        return out

    def names(self, b: B) -> list[str]:
        return [self.cats[i][0] for i in self.category(b).tolist()]

    def showdown(self, p: B, q: B, i: int, cp: int, cq: int) -> tuple[str, float]:
        """Row ``i``'s winner and the player's net."""
        if cp != cq:
            win = "player" if cp < cq else "banker"
        else:
            key = self.ties.get(self.cats[cp][0], highest_card)
            kp, kq = key(p, i), key(q, i)
            win = "player" if kp > kq else "banker" if kq > kp else "push"
        if win == "push":
            return win, 0.0
        cat = self.cats[cp if win == "player" else cq][0]
        m = self.pays.get(cat, 1)
        return win, round(m * (1 - self.commission), 9) if win == "player" else float(-m)


def _with(special: tuple[str, Pred], above_five_faces: bool = False) -> list[tuple[str, Pred]]:
    if above_five_faces:
        return [special, FIVE_FACES, *NIUS, NO_BULL]
    return [FIVE_FACES, special, *NIUS, NO_BULL]


BOMB: tuple[str, Pred] = ("bomb", lambda b: b["kind"] == 4)
GOURD: tuple[str, Pred] = ("gourd", lambda b: (b["kind"] == 3) & (b["pairs"] == 2))
CLASSIC_CATS = [FIVE_FACES, *NIUS, NO_BULL]

HOUSES = [
    House("hk_bull_pair", "a bull whose other two cards are a pair: above niu niu, paid 5",
          _with(("bull_pair", lambda b: (b["points"] > 0) & b["pair_rest"])),
          ("category:bull_pair", "multiplier:equal:bull_pair"), pays={"bull_pair": 5}),
    House("all_small", "every card A-4, no total test: above everything",
          _with(("all_small", lambda b: (b["r"] <= 3).all(axis=1)), True),
          ("category:all_small",)),
    House("all_big", "every card 10, J, Q or K (tens count), below five faces",
          _with(("all_big", lambda b: (b["r"] >= 9).all(axis=1))), ("category:all_big",)),
    House("pair_chain", "two no-bull hands: number of pairs, pair rank, ranks one by one, "
          "else a push; every other equal category a push", CLASSIC_CATS,
          ("tie:no_bull", "tie:niu_niu", "tie:niu_1"),
          ties={"no_bull": pairs_then_ranks, **{n: nothing for n, _ in CLASSIC_CATS[:-1]}}),
    House("table_no_commission", "1x niu 1-7, 2x niu 8-9, 3x niu niu, 4/4/5 for gourd, "
          "bomb and five faces; no commission",
          [FIVE_FACES, BOMB, GOURD, *NIUS, NO_BULL],
          ("category:bomb", "category:gourd", "commission", "multiplier:equal:five_faces",
           "multiplier:equal:bomb", "multiplier:equal:niu_niu", "multiplier:equal:niu_8"),
          pays={"five_faces": 5, "bomb": 4, "gourd": 4, "niu_niu": 3, "niu_9": 2, "niu_8": 2},
          commission=0.0),
    House("same_suit", "a flush: above niu niu", _with(("same_suit", lambda b: b["flush"])),
          ("category:same_suit",)),
    House("dragon", "a straight, the ace low or high: above everything",
          _with(("dragon", lambda b: b["straight_any"]), True), ("category:dragon",)),
    House("bomb", "four of a kind: above everything", _with(BOMB, True), ("category:bomb",)),
    House("gourd", "three of a kind and a pair: above niu niu", _with(GOURD),
          ("category:gourd",)),
    House("tiny", "the five values sum to 12 or less: above everything",
          _with(("tiny", lambda b: b["total"] <= 12), True), ("category:tiny",)),
    House("niu_niu_by_ranks", "two niu niu hands compare ranks one by one, else a push",
          CLASSIC_CATS, ("tie:niu_niu",), ties={"niu_niu": ranks_one_by_one}),
    House("bomb_over_small", "two new categories that overlap (A A A A 2 is both): four of a "
          "kind above every card A-4, above five faces",
          [BOMB, ("all_small", lambda b: (b["r"] <= 3).all(axis=1)), FIVE_FACES, *NIUS, NO_BULL],
          ("category:bomb", "category:all_small")),
    House("two_pair_bull", "a bull with two pairs: above niu niu, paid 2",
          _with(("two_pair_bull", lambda b: (b["points"] > 0) & (b["pairs"] == 2))),
          ("category:two_pair_bull", "multiplier:equal:two_pair_bull"),
          pays={"two_pair_bull": 2}),
]  # fmt: skip


def text(cards: npt.NDArray[np.integer]) -> str:
    return " ".join(RANK_NAMES[c >> 2] + SUIT_NAMES[c & 3] for c in cards.tolist())


@functools.cache
def classes() -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64], B]:
    """One hand per class of hands (the ranks held, and whether one suit): every house's
    category is a function of the class (ranks, values and the flush decide it; only the
    tie keys look at suits). Returns the class hands, every hand's class, and the class
    hands' :func:`base`."""
    every = all_hands()
    r = every.astype(np.int64) >> 2
    s = every & 3
    key = np.zeros(len(every), dtype=np.int64)
    for j in range(5):  # sorted ids: the ranks ascend
        key = key * 13 + r[:, j]
    key = key * 2 + (s == s[:, :1]).all(axis=1)
    _, first, inv = np.unique(key, return_index=True, return_inverse=True)
    reps = every[first]
    return reps, inv.astype(np.int64), base(reps)


def categories_of_every_hand(house: House) -> npt.NDArray[np.int64]:
    """The house's category index of every hand (through its class)."""
    _, inv, b = classes()
    return house.category(b)[inv]


def _disjoint(a: int, b: int) -> bool:
    every = all_hands()
    return not set(every[a].tolist()) & set(every[b].tolist())


def _pairs(
    rng: np.random.Generator, xs: npt.NDArray[np.int64], ys: npt.NDArray[np.int64], k: int,
    same: npt.NDArray[np.int64] | None = None,
) -> list[tuple[int, int]]:  # fmt: skip
    """Up to ``k`` deals of a hand of ``xs`` and one of ``ys`` sharing no card (and, with
    ``same``, equal in it), found by drawing at most 50 times as many."""
    out: list[tuple[int, int]] = []
    for _ in range(50 * k):
        if len(out) == k:
            break
        a = int(xs[rng.integers(len(xs))])
        cands = ys[rng.integers(len(ys), size=1 if same is None else 400)]
        if same is not None:
            cands = cands[same[cands] == same[a]]
            if not len(cands):
                continue
        b = int(cands[0])
        if a != b and _disjoint(a, b):
            out.append((a, b))
    return out


def deals(house: House, seed: int, random_deals: int = 500) -> list[tuple[int, int]]:
    """Showdowns as pairs of hand indices: random deals; 40 within every category and 20
    more with the same highest rank; 60 between no-bull hands with two pairs and the same
    top pair; 3 between every two categories (each way)."""
    every = all_hands()
    _, inv, b = classes()
    cat = categories_of_every_hand(house)
    by_cat = [np.flatnonzero(cat == i) for i in range(len(house.cats))]
    by_cat = [x for x in by_cat if len(x)]
    rng = np.random.default_rng(seed)
    out = [(int(a), int(b)) for a, b in rng.integers(len(every), size=(random_deals, 2))]
    top = b["r"].max(axis=1)[inv]
    for idx in by_cat:
        out += _pairs(rng, idx, idx, 40) + _pairs(rng, idx, idx, 20, top)
    two = np.flatnonzero(((b["points"] == 0) & (b["pairs"] == 2))[inv])
    top_pair = (12 - np.argmax((b["counts"][:, ::-1] >= 2), axis=1))[inv]
    out += _pairs(rng, two, two, 60, top_pair)
    for x in by_cat:
        for y in by_cat:
            if x is not y:
                out += _pairs(rng, x, y, 3)
    return [(p, q) for p, q in out if _disjoint(p, q)]


def settle(house: House, pairs: list[tuple[int, int]]) -> list[tuple[str, float]]:
    """The house's winner and player net of each deal."""
    every = all_hands()
    p = base(every[[a for a, _ in pairs]])
    q = base(every[[b for _, b in pairs]])
    cp, cq = house.category(p), house.category(q)
    return [house.showdown(p, q, i, int(cp[i]), int(cq[i])) for i in range(len(pairs))]


def claims_file(house: House, path: Path, seed: int, hands: int = 2_000) -> Path:
    """Hand rows (a random sample, and up to 150 hands of every category) and the
    showdown rows of :func:`deals`, claimed as ``house`` says."""
    rng = np.random.default_rng(seed)
    every = all_hands()
    cat = categories_of_every_hand(house)
    pick = [rng.choice(len(every), hands, replace=False)]
    for i in range(len(house.cats)):
        idx = np.flatnonzero(cat == i)
        if len(idx):
            pick.append(rng.choice(idx, min(150, len(idx)), replace=False))
    hand_idx = np.concatenate(pick)
    names = [house.cats[i][0] for i in cat[hand_idx].tolist()]
    _, inv, b = classes()
    points = b["points"][inv[hand_idx]].tolist()
    rows: list[dict[str, Any]] = [
        {"hand": text(every[j]), "category": n, "points": int(p)}
        for j, n, p in zip(hand_idx.tolist(), names, points, strict=True)
    ]
    pairs = deals(house, seed)
    for (a, b), (win, net) in zip(pairs, settle(house, pairs), strict=True):
        rows.append({"player": text(every[a]), "banker": text(every[b]), "winner": win,
                     "net": net})  # fmt: skip
    fields = ["hand", "category", "points", "player", "banker", "winner", "net"]
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for row in rows:
            w.writerow(row)
    return path
