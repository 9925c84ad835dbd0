"""Niu Niu ``bull verify``: the keys of hand rows, and what a key says without the row.

A hand row's key (:class:`Shapes`) is its hand's shape and the place of the card
written first. For a preset's rule set a shape is the hand's ranks and whether it is
a flush (:func:`shape_codes`: 7,462 shapes of one deck's 2,598,960 hands), all its
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
from itertools import combinations, combinations_with_replacement
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "SKIPPED_AFTER",
    "KeyAnswers",
    "Shapes",
    "every_hand",
    "place_of",
    "shape_codes",
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


def shape_codes(srt: npt.NDArray[np.uint8]) -> npt.NDArray[np.int32]:
    """Sorted hands (n, 5) by *shape*: their ranks as a multiset and whether they are a
    flush — all a preset's rule set and its catalogue's causes read of a hand row's
    hand (RULES §1: the suits count only for a flush; they order tie-breaks, which
    hand rows do not claim) — as a code: the ranks in base 13, times 2, plus the flush.

    >>> srt = np.array([[0, 4, 8, 12, 17], [1, 5, 9, 13, 16], [0, 4, 8, 12, 16]], np.uint8)
    >>> shape_codes(srt).tolist()
    [5156, 5156, 5157]
    """
    code = (srt[:, 0] >> 2).astype(np.int32)
    suit = srt[:, 0] & 3
    flush = np.ones(len(srt), dtype=bool)
    for j in range(1, srt.shape[1]):
        code *= 13
        code += srt[:, j] >> 2
        flush &= (srt[:, j] & 3) == suit
    code *= 2
    code += flush
    return code


def _shape_table() -> tuple[npt.NDArray[np.int32], npt.NDArray[np.uint8]]:
    """Every shape's code (:func:`shape_codes`) → a dense shape number (-1: no shape),
    and a hand of each shape, sorted: its ranks, suits in turn over a run of one rank
    (a flush: all spades; else not all of one suit). Made once."""
    if not _TABLE:
        ranks = np.array(list(combinations_with_replacement(range(13), 5)), dtype=np.uint8)
        run = np.zeros_like(ranks)  # a card's copy among the cards of its rank before it
        for j in range(1, 5):
            for i in range(j):
                run[:, j] += ranks[:, i] == ranks[:, j]
        plain = run & 3
        plain[(plain == plain[:, :1]).all(axis=1), 4] = 1  # not all of one suit
        both = np.stack([ranks * 4 + plain, ranks * 4], axis=1).reshape(-1, 5)
        hands = np.sort(both, axis=1)  # shape by shape: not a flush, then a flush
        dense = np.full(13**5 * 2, -1, dtype=np.int32)
        dense[shape_codes(hands)] = np.arange(len(hands), dtype=np.int32)
        for a in (dense, hands):
            a.setflags(write=False)
        _TABLE.extend([dense, hands])
    return _TABLE[0], _TABLE[1]


_TABLE: list[Any] = []


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


class Shapes:
    """The shapes of a Niu Niu table's hands that hand rows are keyed by (a key: the
    shape times 5 plus the place of the first card written, see
    :class:`~solver.kit.check.Keys`). For a rule set of the presets' kind (``shaped``)
    a shape is a :func:`shape_codes` shape, 12,376 of them (7,462 in one deck) —
    every cause of its catalogue answers a hand row alike on the hands of one shape
    written with a card of one rank first (``tests/test_verify_keys.py`` checks it) —
    and the place is that of the first card's rank; for the rule language (a category
    may read any card) a shape is a hand of the table, the place its first card's.

    ``packed``: the table's ``packed`` column (our answers, row = rank); ``deck`` and
    ``decks``: the cards the rule set deals (ids below ``deck``, each at most ``decks``
    times). ``sorted()``: a hand of each shape (row = shape); ``table()``: our answers
    by shape; ``special``: whether a shape is special-ish (shaped only); ``space``: how
    many keys there are."""

    def __init__(
        self, shoe: bool, packed: npt.NDArray[Any], shaped: bool, deck: int, decks: int
    ) -> None:
        self.shaped = shaped
        if not shaped:
            self._sorted, self._packed = every_hand(shoe), packed
            self._rank: npt.NDArray[np.int64] | None = None
            self.special = np.zeros(0, dtype=bool)
        else:
            from solver.core.indexing import colex_rank_array, multiset_rank_array

            self._dense, self._sorted = _shape_table()
            hands = self._sorted
            copies = np.ones(len(hands), dtype=np.int64)  # the most copies of a card held
            for j in range(1, 5):
                same = np.ones(len(hands), dtype=np.int64)
                for i in range(j):
                    same += hands[:, i] == hands[:, j]
                np.maximum(copies, same, out=copies)
            dealt = (hands[:, 4] < deck) & (copies <= decks)  # the deck deals the hand
            rank = np.full(len(hands), -1, dtype=np.int64)
            ranked = multiset_rank_array if shoe else colex_rank_array
            rank[dealt] = ranked(hands[dealt], presorted=True)
            self._rank = rank
            self._packed = np.where(dealt, packed[np.maximum(rank, 0)], 0).astype(packed.dtype)
            self.special = special_ish(hands)
        self.space = len(self._packed) * 5

    def sorted(self) -> npt.NDArray[np.uint8]:
        return self._sorted

    def table(self) -> dict[str, npt.NDArray[Any]]:
        return {"packed": self._packed}

    def shape_of(
        self, rank: npt.NDArray[np.integer] | None, srt: npt.NDArray[np.uint8]
    ) -> npt.NDArray[np.int64]:
        """The shapes of the hands ``srt`` (sorted), of ``rank`` in the table (read only
        by the rule language's shapes: a preset's are read from the cards)."""
        if not self.shaped:
            if rank is None:
                raise ValueError("a hand of the rule language is shaped by its rank")
            return rank.astype(np.int64)
        return self._dense[shape_codes(srt)].astype(np.int64)

    def rank_of(self, shape: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """The rank in the table of :meth:`sorted`'s hand of each ``shape``."""
        return shape if self._rank is None else self._rank[shape]

    def key(
        self, shape: npt.NDArray[np.int64], srt: npt.NDArray[np.uint8], first: npt.NDArray[np.uint8]
    ) -> npt.NDArray[np.int64]:
        """The keys of hands of ``shape``, sorted ``srt``, written with card ``first``
        first: with shapes, the place of the first card's rank (a card of that rank
        goes there)."""
        card = first & np.uint8(252) if self.shaped else first
        return shape * 5 + place_of(srt, card)


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
