"""What Niu Niu's ``bull verify`` reads of the rule set's table: our answers per hand
packed in one column, the bull masks, and a hand's rank in the table, kept between runs
in the user's cache (:mod:`~solver.kit.linestore`) where a table's digest names them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["Ranks", "bull_masks", "packed_answers"]


def packed_answers(t: Any, category: str) -> npt.NDArray[np.uint16]:
    """The answers of table ``t`` packed (uint16) for one gather per hand instead of
    three: bull | points << 1 | category << 5 (``category``: the rule set's column).
    Kept for the last two tables in this process and, between runs, in the user's cache
    (:mod:`~solver.kit.linestore`: named by the table's content digest and the column,
    its CRC checked when read, else made again): the three columns take 0.1 to 0.2 s to
    read and check, the stored array about 0.01 s."""
    key = {"table": t.name, "digest": t.meta.get("digest"), "category": category}
    memo = json.dumps(key, sort_keys=True)
    for k, got in _PACKED:
        if k == memo:
            return got

    def make() -> dict[str, npt.NDArray[Any]]:
        has, pts, cat = (t.column("has_bull"), t.column("points"), t.column(category))
        out = has.astype(np.uint16) | (pts.astype(np.uint16) << 1)
        out |= cat.astype(np.uint16) << 5
        return {"packed": out}

    def whole(a: Mapping[str, npt.NDArray[Any]]) -> bool:
        p = a.get("packed")
        return p is not None and p.dtype == np.uint16 and len(p) == t.num_rows

    packed = _kept(t, "niuniu-verify-packed", {"category": category}, whole, make)["packed"]
    _PACKED.insert(0, (memo, packed))
    del _PACKED[2:]
    return packed


_PACKED: list[tuple[str, npt.NDArray[np.uint16]]] = []


class Ranks(Sequence[int]):
    """The ranks in the table of sorted hands (the colex rank of a set, the dense rank
    of a shoe's multiset), worked out as they are read: a preset's answers come by
    shape, and only the rows whose records are written read a rank — a row at a time
    in Python while they are few (1.5 µs each), all at once from the
    :data:`ONE_BY_ONE`-th on (a file whose rows mostly disagree).

    >>> Ranks(np.array([[0, 1, 2, 3, 4], [47, 48, 49, 50, 51]], dtype=np.uint8), False)[1]
    2598959
    """

    ONE_BY_ONE = 256

    def __init__(self, srt: npt.NDArray[np.uint8], shoe: bool) -> None:
        self.srt, self.shoe = srt, shoe
        self._asked = 0
        self._all: npt.NDArray[np.int32] | None = None

    def __len__(self) -> int:
        return len(self.srt)

    def __getitem__(self, i: Any) -> Any:
        from solver.core.indexing import (
            colex_rank,
            colex_rank_array,
            multiset_rank,
            multiset_rank_array,
        )

        if self._all is None and (isinstance(i, slice) or self._asked >= self.ONE_BY_ONE):
            ranked = multiset_rank_array if self.shoe else colex_rank_array
            self._all = ranked(self.srt, presorted=True)
        if self._all is not None:
            got = self._all[i]
            return got.tolist() if isinstance(i, slice) else int(got)
        self._asked += 1
        cards = self.srt[i].tolist()
        return multiset_rank(cards) if self.shoe else colex_rank(cards)


def bull_masks(t: Any) -> npt.NDArray[Any]:
    """Table ``t``'s ``bull_mask`` column, kept in the user's cache as :func:`packed_answers`
    keeps the answers (named by the table's content digest): read from the table, the
    column took the first chunk with a disagreement 0.08 s, the stored array 0.003 s."""

    def make() -> dict[str, npt.NDArray[Any]]:
        return {"bull_mask": np.asarray(t.column("bull_mask"))}

    def whole(a: Mapping[str, npt.NDArray[Any]]) -> bool:
        m = a.get("bull_mask")
        return m is not None and m.dtype.kind in "iu" and len(m) == t.num_rows

    return _kept(t, "niuniu-verify-bull-mask", {}, whole, make)["bull_mask"]


def _kept(
    t: Any,
    kind: str,
    key: Mapping[str, Any],
    whole: Callable[[Mapping[str, npt.NDArray[Any]]], bool],
    make: Callable[[], dict[str, npt.NDArray[Any]]],
) -> dict[str, npt.NDArray[Any]]:
    """``make()``'s arrays of table ``t``, read-only, kept in the user's cache under
    ``kind`` (:func:`~solver.kit.linestore.kept`) named by the table's content digest and
    ``key``; made each time for a table without a digest (nothing names its arrays)."""
    from solver.kit import linestore

    digest = t.meta.get("digest")
    got = (
        make()
        if not digest
        else linestore.kept(kind, {"table": t.name, "digest": digest, **key}, whole, make)
    )
    for a in got.values():
        a.setflags(write=False)
    return got
