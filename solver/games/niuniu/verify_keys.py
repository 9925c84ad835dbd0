"""Niu Niu ``bull verify``: the keys of hand rows, and what a key says without the row.

A hand row's key (:class:`Shapes`) is its hand's shape and the place of the card
written first. For a preset's rule set a shape is the hand's ranks and whether it is
a flush (:func:`hand_shapes`: 7,462 shapes of one deck's 2,598,960 hands), all its
catalogue's causes read of a hand row: a file of millions of rows has some tens of
thousands of keys, counted in a count per key (:mod:`solver.kit.keycounts`) rather
than sorted, and every cause is swept over them at the cost of a small group. For the
rule language a shape is a hand.

:mod:`solver.kit.scoring` sweeps the causes the report needs over every key present,
a group of one row per key at a time. :class:`KeyAnswers` answers for most causes
from the keys alone: the bull search that skips the first card written — its answer
depends on the hand and the card written first alone — read from
:func:`skipped_points` of a hand of each shape (made once) instead of each key's hand
made anew in its written order; a cause scoped to the special-ish hands evaluated on
those keys only (about one random hand in 17).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "SKIPPED_AFTER",
    "KeyAnswers",
    "Shapes",
    "every_hand",
    "hand_shapes",
    "place_of",
    "skipped_points",
    "special_ish",
]

_FIELDS = ("has_bull", "points", "category")
"""The claims compared with our answer as they are (the bull is checked as a bull)."""


def special_ish(srt: npt.NDArray[np.uint8]) -> npt.NDArray[np.bool_]:
    """Sorted hands where the special-hand variants can differ: every card small (a
    total <= 10 needs all ranks <= 6), four faces, every card ten-valued, three or four
    of a kind (also the bull from three of a kind), a flush, a straight.

    >>> special_ish(np.array([[0, 4, 8, 12, 17], [0, 9, 18, 27, 51]], dtype=np.uint8)).tolist()
    [True, False]
    """
    r0, r1, r2, r3, r4 = (srt[:, j] >> 2 for j in range(5))
    s0 = srt[:, 0] & 3
    flush = (
        ((srt[:, 1] & 3) == s0)
        & ((srt[:, 2] & 3) == s0)
        & ((srt[:, 3] & 3) == s0)
        & ((srt[:, 4] & 3) == s0)
    )
    trips = (r0 == r2) | (r1 == r3) | (r2 == r4)
    straight = (r1 == r0 + 1) & (r2 == r1 + 1) & (r3 == r2 + 1) & (r4 == r3 + 1)
    out: npt.NDArray[np.bool_] = (r4 <= 5) | (r1 >= 10) | (r0 >= 9) | trips | flush | straight
    return out


def hand_shapes(
    every: npt.NDArray[np.uint8],
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64]]:
    """Sorted hands (n, 5) by *shape*: their ranks as a multiset and whether they are a
    flush — all a preset's rule set and its catalogue's causes read of a hand row's
    hand (RULES §1: the suits count only for a flush; they order tie-breaks, which
    hand rows do not claim). Each hand's shape (dense, in order of the ranks), and a
    hand of each shape (its index in ``every``).

    >>> every = np.array([[0, 4, 8, 12, 17], [1, 5, 9, 13, 16], [0, 4, 8, 12, 16]], np.uint8)
    >>> [a.tolist() for a in hand_shapes(every)]
    [[0, 0, 1], [0, 2]]
    """
    code = np.zeros(len(every), dtype=np.int64)
    suit = every[:, 0] & 3
    flush = np.ones(len(every), dtype=bool)
    for j in range(every.shape[1]):
        code = code * 13 + (every[:, j] >> 2)
        flush &= (every[:, j] & 3) == suit
    code = code * 2 + flush
    present = np.zeros(int(code.max(initial=0)) + 1, dtype=bool)
    present[code] = True
    dense = np.cumsum(present) - 1
    shape = dense[code].astype(np.int32)
    first = np.empty(int(present.sum()), dtype=np.int64)
    first[shape[::-1]] = np.arange(len(every) - 1, -1, -1)  # any one will do: the first
    return shape, first


def place_of(srt: npt.NDArray[np.uint8], card: npt.NDArray[np.uint8]) -> npt.NDArray[np.int64]:
    """The first place of ``card[i]`` among the sorted cards ``srt[i]``: how many are
    lower.

    >>> place_of(np.array([[1, 2, 2, 5, 9]], dtype=np.uint8), np.array([5], dtype=np.uint8))
    array([3])
    """
    place = np.zeros(len(card), dtype=np.uint8)
    for j in range(srt.shape[1]):
        place += srt[:, j] < card
    return place.astype(np.int64)


def every_hand(shoe: bool) -> npt.NDArray[np.uint8]:
    """Every hand of a table (one deck's subsets, or a shoe's multisets), sorted, in the
    table's order (a smaller deck's hands come first): made once per process
    (read-only), as every verify reads the same."""
    got = _EVERY.get(shoe)
    if got is None:
        from solver.core.indexing import all_multisets, all_subsets

        got = all_multisets(52, 5) if shoe else all_subsets(52, 5)
        got.setflags(write=False)
        _EVERY[shoe] = got
    return got


_EVERY: dict[bool, npt.NDArray[np.uint8]] = {}


def _every_shape(shoe: bool, count: int) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64]]:
    """:func:`hand_shapes` of the first ``count`` hands of :func:`every_hand`: made
    once per process."""
    got = _SHAPES.get((shoe, count))
    if got is None:
        got = _SHAPES[(shoe, count)] = hand_shapes(every_hand(shoe)[:count])
        for a in got:
            a.setflags(write=False)
    return got


_SHAPES: dict[tuple[bool, int], tuple[npt.NDArray[np.int32], npt.NDArray[np.int64]]] = {}


class Shapes:
    """The shapes of a Niu Niu table's hands that hand rows are keyed by (a key: the
    shape times 5 plus the place of the first card written, see
    :class:`~solver.kit.check.Keys`). For a rule set of the presets' kind (``shaped``)
    a shape is a :func:`hand_shapes` shape — every cause of its catalogue answers a
    hand row alike on the hands of one shape written with a card of one rank first
    (``tests/test_verify_keys.py`` checks it) — and the place is that of the first
    card's rank; for the rule language (a category may read any card) a shape is a
    hand, the place its first card's.

    ``every``: every hand, sorted (row = rank); ``sorted()``: a hand of each shape
    (row = shape); ``table()``: our answers by shape (``packed``, from the table's
    ``packed`` column); ``special``: whether a shape is special-ish (shaped only);
    ``space``: how many keys there are."""

    def __init__(self, shoe: bool, packed: npt.NDArray[Any], shaped: bool) -> None:
        self.every = every_hand(shoe)
        self.of: npt.NDArray[np.int32] | None = None
        self.first: npt.NDArray[np.int64] | None = None
        self._sorted, self._packed = self.every, packed
        self.special = np.zeros(0, dtype=bool)
        if shaped:
            self.of, self.first = _every_shape(shoe, len(packed))
            self._sorted, self._packed = self.every[self.first], packed[self.first]
            self.special = special_ish(self._sorted)
        self.space = len(self._packed) * 5

    def sorted(self) -> npt.NDArray[np.uint8]:
        return self._sorted

    def table(self) -> dict[str, npt.NDArray[Any]]:
        return {"packed": self._packed}

    def shape_of(self, rank: npt.NDArray[np.integer]) -> npt.NDArray[np.int32] | None:
        """The shapes of the hands of ``rank`` (``None``: not shaped, the ranks are)."""
        return None if self.of is None else self.of[rank]

    def rank_of(self, shape: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """The rank in the table of a hand of each ``shape``."""
        return shape if self.first is None else self.first[shape]

    def key(
        self,
        rank: npt.NDArray[np.integer],
        shape: npt.NDArray[np.int32] | None,
        srt: npt.NDArray[np.uint8],
        first: npt.NDArray[np.uint8],
    ) -> npt.NDArray[np.int64]:
        """The keys of hands of ``rank`` (of ``shape``, when shaped), sorted ``srt``,
        written with card ``first`` first."""
        if shape is None:
            return rank.astype(np.int64) * 5 + place_of(srt, first)
        # the place of the first card's rank (a card of that rank goes there)
        return shape.astype(np.int64) * 5 + place_of(srt, first & np.uint8(252))


def skipped_points(srt: npt.NDArray[np.uint8], trips: bool) -> npt.NDArray[np.uint8]:
    """Per sorted hand (n, 5) and place ``p``: the points of the best bull among its
    cards but the one at ``p`` (0: none; 10 for a Niu Niu) — what the bull search that
    skips the first card written finds in the hand written with that card first, the
    others in any order (it looks at the four others as a set; the points are the
    last digit of the two cards outside the bull, the skipped one among them, 0 as 10).
    ``trips``: three cards of one rank make a bull too. A 2 3 8 10: without the A or
    the 3, 2+8+10 = 20 is a bull and the other two make 4; without the 2, the 8 or the
    10 no three of the rest sum to a multiple of 10.

    >>> skipped_points(np.array([[0, 4, 8, 28, 36]], dtype=np.uint8), False).tolist()
    [[4, 0, 4, 0, 0]]
    """
    rank = [srt[:, j] >> 2 for j in range(5)]  # a column each, small integers
    value = [np.take(_VALUE, srt[:, j]) for j in range(5)]
    total = value[0] + value[1] + value[2] + value[3] + value[4]
    out = [np.zeros(len(srt), dtype=np.uint8) for _ in range(5)]
    for a, b, c in combinations(range(5), 3):
        bsum = value[a] + value[b] + value[c]
        # a bull's points (0: none) by the three cards' sum and the five's
        pts = np.take(_BULL_POINTS, bsum.astype(np.uint16) << 6 | total)
        if trips:
            three = (rank[a] == rank[b]) & (rank[b] == rank[c])
            pts = np.where(three, np.take(_LAST_DIGIT, total - bsum), pts)
        for p in {0, 1, 2, 3, 4} - {a, b, c}:  # a skipped card outside the bull
            np.maximum(out[p], pts, out=out[p])
    return np.stack(out, axis=1)


_VALUE = np.array([min(c // 4 + 1, 10) for c in range(256)], dtype=np.uint8)
"""A card id's value: A 1 ... 10, J, Q, K 10 (ids past 51: unused)."""
_LAST_DIGIT = ((np.arange(64) - 1) % 10 + 1).astype(np.uint8)
"""The points of two cards' total: its last digit, 0 as 10."""


def _bull_points() -> npt.NDArray[np.uint8]:
    """``[bull << 6 | total]``: the points of a hand whose five values sum to ``total``
    with three of them summing to ``bull`` — the last digit of the other two (0 as 10)
    when ``bull`` is a multiple of 10, else 0 (no bull there)."""
    bull, total = np.arange(64)[:, None], np.arange(64)[None, :]
    rest = np.clip(total - bull, 0, 63)
    out = np.where((bull % 10 == 0) & (total > bull), _LAST_DIGIT[rest], 0)
    return out.astype(np.uint8).ravel()


_BULL_POINTS = _bull_points()


SKIPPED_AFTER = 1 << 20
"""Keys asked of a :class:`KeyAnswers` after which the bull search that skips
the first card is read from a table of every shape (:func:`skipped_points`, made once:
of every hand of the table, in about a second of CPU) rather than scored on each key's
hand as written."""


class KeyAnswers:
    """:attr:`~solver.kit.check.Keys.agree` of Niu Niu hand rows (key: the hand's shape
    times 5 plus the place of its first card written among its sorted cards; a shape is
    a hand of the table, or for a preset's rule set a :func:`hand_shapes` shape), for a
    rule set of the presets' kind (not the rule language):

    * the bull search that skips the first card written, alone: its points read from
      :func:`skipped_points` of a hand of each shape (``every()``, sorted, row = shape),
      made once :data:`SKIPPED_AFTER` keys, or as many as there are shapes, have been
      asked (``None`` before), and its answers made from them as
      :func:`~solver.games.niuniu.variant_answers.niuniu_hand_answers` makes them (no
      bull without points; a category that is not special is the points);
    * a cause that does not depend on the written order: evaluated by
      ``niuniu_hand_answers`` on the keys' sorted hands as a group of the keys does
      (our answers given for a mistake), and for a cause scoped to hand rows on the
      special-ish hands alone (:func:`special_ish`; off them it is not counted).

    Our answers come from the table's ``packed`` column by shape (``table()``); ``None``
    for any other cause."""

    def __init__(
        self,
        rules: Any,
        every: Callable[[], npt.NDArray[np.uint8]],
        table: Callable[[], Mapping[str, npt.NDArray[Any]]],
    ) -> None:
        self.rules, self.every, self.table = rules, every, table
        self.asked = 0
        self.made: tuple[npt.NDArray[np.uint8], npt.NDArray[np.bool_]] | None = None
        self.last: tuple[Any, Any, dict[str, npt.NDArray[Any]]] | None = None
        """The keys asked last, their shapes and our answers, and their hands if made."""

    def __call__(
        self, variant: Any, keys: npt.NDArray[np.int64], fields: Sequence[str]
    ) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]] | None:
        from solver.kit.diagnosis import mistakes_of

        if self.rules.categories or not set(fields) <= set(_FIELDS):
            return None
        skip = variant.rules is None and mistakes_of(variant) == {"bull_skips_first"}
        if variant.order and not skip:
            return None
        if self.last is None or self.last[0] is not keys:  # the causes ask in turn
            self.last = (keys, self._ours(keys), {})
        _, (shape, ours), hands = self.last
        if skip:
            return self._skipped(keys, shape, fields, ours)
        from solver.games.niuniu.variant_answers import niuniu_hand_answers

        if not hands:
            hands["sorted"] = self.every()[shape]
            hands["special"] = special_ish(hands["sorted"])
            some = np.flatnonzero(hands["special"])  # the scoped causes' keys, made once
            hands["at"], hands["sorted_at"] = some, hands["sorted"][some]
            hands.update((f"{f}_at", v[some]) for f, v in ours.items())
        srt, special = hands["sorted"], hands["special"]
        ok = np.ones(len(keys), dtype=bool)
        at: Any
        if "hand" in variant.scope:  # the special-ish keys alone
            at, srt = hands["at"], hands["sorted_at"]
            mine = {f: hands[f"{f}_at"] for f in ours}
        else:  # every key: the arrays as they are
            at, mine = slice(None), dict(ours)
        known = None if variant.rules is not None else {**mine, "sorted": srt}
        theirs = niuniu_hand_answers(srt, self.rules, variant, known)
        for f in fields:
            ok[at] &= mine[f] == np.asarray(theirs[f])
        return ok, special

    def _ours(
        self, keys: npt.NDArray[np.int64]
    ) -> tuple[npt.NDArray[np.int64], dict[str, npt.NDArray[Any]]]:
        """The keys' shapes and our answers for them (from the table)."""
        shape = keys // 5
        packed = self.table()["packed"][shape]
        ours = {
            "has_bull": (packed & 1).astype(bool),
            "points": ((packed >> 1) & 15).astype(np.int64),
            "category": (packed >> 5).astype(np.int64),
        }
        return shape, ours

    def _skipped(
        self,
        keys: npt.NDArray[np.int64],
        shape: npt.NDArray[np.int64],
        fields: Sequence[str],
        ours: Mapping[str, npt.NDArray[Any]],
    ) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]] | None:
        """The bull search that skips the first card written, from the table."""
        from solver.games.niuniu.rules import Category

        self.asked += len(keys)
        if self.made is None:
            every = self.every()
            if self.asked <= min(SKIPPED_AFTER, len(every)):
                return None
            trips = bool(self.rules.bull_from_three_of_a_kind)
            self.made = (skipped_points(every, trips).ravel(), special_ish(every))
        points_by_key, special = self.made
        pts = points_by_key[keys].astype(np.int64)
        theirs = {
            "has_bull": pts > 0,
            "points": pts,
            "category": np.where(ours["category"] <= Category.NIU_NIU, pts, ours["category"]),
        }
        ok = np.ones(len(keys), dtype=bool)
        for f in fields:
            ok &= ours[f] == theirs[f]
        return ok, special[shape]
