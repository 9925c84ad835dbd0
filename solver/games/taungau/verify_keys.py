"""Tau Ngau ``bull verify``: what an agreeing row's key says without the row.

:mod:`solver.kit.scoring` sweeps the causes the report needs over every key present
(:mod:`solver.kit.keycounts`). A key is a hand's shape and the order its tiles were
written (``shape * 120 + order``). The mistake of taking the first bull met in the
order written (:data:`~solver.games.taungau.diagnose.FIRST_WRITTEN`) is swept over every
key with its written order — in a large file nearly all four million — yet its answer
depends on the shape and on which three tiles it takes alone, and those on the
shape's bulls (ten triples: which of them are bulls, a mask of ten bits) and the order.
:class:`FirstWritten` reads it from two tables made once: the triple taken per mask and
order (1,024 x 120), and the mistake's answers per shape and triple taken (the shapes'
hands, each written with that triple first: 33,934 x 10 rows).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["FIRST_AFTER", "FirstWritten"]

FIRST_AFTER = 1 << 20
"""Keys asked of a :class:`FirstWritten` after which its tables are made (about a
third of a second of CPU) rather than a group of the keys made and scored."""

_FIELDS = ("has_bull", "points")
"""The claims compared with our answer as they are (bull and values are not keyed)."""


class FirstWritten:
    """:attr:`~solver.kit.check.Keys.agree` of Tau Ngau hand rows for the mistake of
    the first bull met in the order written, alone: the triple it takes is the first
    of the written order's search (``_written_triples`` of ``perms``, the sorted place
    of each tile written per order) that is a bull under some 3/6 choice, and its answers
    for a shape and a triple are those :func:`~solver.games.taungau.diagnose.
    taungau_hand_answers` gives the shape's hand written with that triple first — the
    first triple met, so the one taken when it is a bull (and when the hand has none,
    any triple: no bull). ``None`` for any other cause, and until :data:`FIRST_AFTER`
    keys have been asked."""

    def __init__(self, rules: Any, shapes: Callable[[], Any], perms: npt.NDArray[np.int64]):
        self.rules, self.shapes, self.perms = rules, shapes, perms
        self.asked = 0
        self.made: dict[str, npt.NDArray[Any]] = {}

    def __call__(
        self, variant: Any, keys: npt.NDArray[np.int64], fields: Sequence[str]
    ) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]] | None:
        from solver.games.taungau.diagnose import FIRST_WRITTEN

        if (
            variant.rules is not None
            or variant.mistake != FIRST_WRITTEN
            or not set(fields) <= set(_FIELDS)
        ):
            return None
        self.asked += len(keys)
        if not self.made:
            if self.asked <= FIRST_AFTER:
                return None
            self.made.update(self._tables(variant))
        shapes = self.shapes()
        shape, order = keys // len(self.perms), keys % len(self.perms)
        taken = self.made["taken"][self.made["bulls"][shape], order]
        ok = np.ones(len(keys), dtype=bool)
        for f in fields:
            ours = np.asarray(shapes.answers[f])[shape]
            theirs = self.made[f][shape, taken]
            ok &= ours.astype(theirs.dtype) == theirs
        return ok, np.asarray(shapes.interesting)[shape]

    def _tables(self, variant: Any) -> dict[str, npt.NDArray[Any]]:
        """``bulls``: per shape, the mask of its triples that are bulls under some 3/6
        choice; ``taken[mask, order]``: the triple the mistake takes; ``has_bull`` and
        ``points`` ``[shape, triple]``: its answers when it takes that triple."""
        from solver.games.taungau.diagnose import (
            _written_triples,
            remember_analysis,
            taungau_hand_answers,
        )
        from solver.games.taungau.hands import TRIPLES

        shapes = self.shapes()
        n = len(shapes.hands)
        every = shapes.analysis(np.arange(n))
        any_choice = np.asarray(np.asarray(every.bull_ok).any(axis=0), dtype=bool)  # (10, n)
        bulls = np.zeros(n, dtype=np.int64)
        for t in range(len(TRIPLES)):
            bulls |= any_choice[t].astype(np.int64) << t
        met = _written_triples(self.perms, len(self.perms))  # (10, orders): in search order
        masks = np.arange(1 << len(TRIPLES))
        is_bull = (masks[:, None, None] >> met[None, :, :]) & 1  # (masks, 10, orders)
        first = np.argmax(is_bull, axis=1)  # the first bull met (none: the first triple)
        taken = np.take_along_axis(met[None, :, :], first[:, None, :], axis=1)[:, 0, :]
        # every shape written with each triple first, the other two after it
        lead = np.array([[*t, *(p for p in range(5) if p not in t)] for t in TRIPLES])
        at = np.repeat(np.arange(n), len(TRIPLES))
        hands = shapes.hands[at]
        remember_analysis(hands, lambda: shapes.analysis(at))
        written = np.tile(lead, (n, 1))
        ans = taungau_hand_answers(hands, self.rules, variant, {"bull": None, "written": written})
        out = {"bulls": bulls, "taken": taken}
        for f in _FIELDS:
            out[f] = np.asarray(ans[f]).reshape(n, len(TRIPLES))
        return out
