"""Niu Niu ``bull verify``: what an agreeing row's key says without the row.

:mod:`solver.kit.scoring` sweeps the causes the report needs over every key present
(:mod:`solver.kit.keycounts`). The bull search that skips the first card written is
swept over every key with its written order — in a large file millions — and its
answer for a key depends on the hand and the place of the card written first alone:
:class:`SkipFirst` reads it from :func:`skipped_points` of every hand of the table (made
once) instead of the hand made anew in its written order for each key.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["SKIPPED_AFTER", "SkipFirst", "skipped_points", "special_ish"]

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
    rank = (srt >> 2).astype(np.int16)
    value = np.minimum(rank + 1, 10)
    total = value.sum(axis=1)
    out = np.zeros(srt.shape, dtype=np.uint8)
    for a, b, c in combinations(range(5), 3):
        bsum = value[:, a] + value[:, b] + value[:, c]
        ok = bsum % 10 == 0
        if trips:
            ok |= (rank[:, a] == rank[:, b]) & (rank[:, b] == rank[:, c])
        pts = np.where(ok, (total - bsum - 1) % 10 + 1, 0).astype(np.uint8)
        for p in {0, 1, 2, 3, 4} - {a, b, c}:  # a skipped card outside the bull
            np.maximum(out[:, p], pts, out=out[:, p])
    return out


SKIPPED_AFTER = 1 << 20
"""Keys asked of a :class:`SkipFirst` after which the bull search that skips
the first card is read from a table of every hand (:func:`skipped_points`, made once in
about a second of CPU) rather than scored on each key's hand as written."""


class SkipFirst:
    """:attr:`~solver.kit.check.Keys.agree` of Niu Niu hand rows (key: the hand's rank
    and the place of its first card written among its sorted cards) for the bull search
    that skips the first card written, alone: its points read from
    :func:`skipped_points` of every hand (``every()``, sorted, row = rank), made once
    :data:`SKIPPED_AFTER` keys have been asked, and its answers made from them as
    :func:`~solver.games.niuniu.diagnose.niuniu_hand_answers` makes them (no bull
    without points; a category that is not special is the points); our answers from
    the table's ``packed`` column (``table()``). ``None`` for any other variant, a rule
    set in the rule language, and before then."""

    def __init__(
        self,
        rules: Any,
        every: Callable[[], npt.NDArray[np.uint8]],
        table: Callable[[], Mapping[str, npt.NDArray[Any]]],
    ) -> None:
        self.rules, self.every, self.table = rules, every, table
        self.asked = 0
        self.made: tuple[npt.NDArray[np.uint8], npt.NDArray[np.bool_]] | None = None

    def __call__(
        self, variant: Any, keys: npt.NDArray[np.int64], fields: Sequence[str]
    ) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]] | None:
        from solver.games.niuniu.rules import Category
        from solver.kit.diagnosis import mistakes_of

        if (
            variant.rules is not None
            or self.rules.categories
            or mistakes_of(variant) != {"bull_skips_first"}
            or not set(fields) <= set(_FIELDS)
        ):
            return None
        self.asked += len(keys)
        if self.made is None:
            if self.asked <= SKIPPED_AFTER:
                return None
            every = self.every()
            trips = bool(self.rules.bull_from_three_of_a_kind)
            self.made = (skipped_points(every, trips).ravel(), special_ish(every))
        points_by_key, special = self.made
        rank = keys // 5
        packed = self.table()["packed"][rank]
        ours = {
            "has_bull": (packed & 1).astype(bool),
            "points": ((packed >> 1) & 15).astype(np.int64),
            "category": (packed >> 5).astype(np.int64),
        }
        pts = points_by_key[keys].astype(np.int64)
        theirs = {
            "has_bull": pts > 0,
            "points": pts,
            "category": np.where(ours["category"] <= Category.NIU_NIU, pts, ours["category"]),
        }
        ok = np.ones(len(keys), dtype=bool)
        for f in fields:
            ok &= ours[f] == theirs[f]
        return ok, special[rank]
