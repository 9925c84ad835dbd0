"""The exact scoring behind ``bull verify``'s diagnosis, batch by batch.

:class:`Causes` lays out a catalogue and its pairs of causes as the columns of a
:class:`~solver.kit.diagnosis.Tally` (one column per cause id, whatever the kinds of row
it is scored on); :class:`Scorer` scores every column on every checked group of rows of
a run (:mod:`solver.verify`), exactly, and says which further passes over the file its
counts need:

* **pairs** — the agreeing rows each pair that may be listed contradicts (a pair of a
  scoped cause with another is evaluated on the checker's ``interesting`` rows, off them
  it answers as its other member ``b`` does; a pair of two mistakes on every row), and
  the agreeing rows' atoms for the pattern learner;
* **learner** — once the diagnosis is final, the disagreeing rows its cover leaves
  unexplained (a row explained only by a cause that contradicts more than it explains
  is one), counted anew with every agreeing row for the learner
  (:class:`~solver.kit.learn.ShapeCounts`), when they are not the rows no cause explains.

>>> c = Causes.of([Variant("mistake=s", "S", mistake="s", stage="bull"),
...                Variant("mistake=t", "T", mistake="t", stage="points")], {})
>>> [v.key for v in c.all]
['mistake=s', 'mistake=t', 'mistake=s+mistake=t']
>>> c.cols, c.members, sorted(c.full)
({'hand': [2], 'showdown': [2]}, {2: (0, 1)}, [2])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.kit.check import Checked
from solver.kit.diagnosis import Tally, Variant, is_mistake_pair, pairs_of
from solver.kit.learn import ShapeCounts

__all__ = ["MODES", "Causes", "Scorer"]

MODES = ("hand", "showdown")
"""The kinds of row."""


@dataclass(frozen=True)
class Causes:
    """A catalogue and the pairs of causes scored with it: the variants, then one column
    per pair id (a pair scored on hand and on showdown rows is one cause, its counts
    summed)."""

    variants: list[Variant]
    pairs: dict[str, list[tuple[int, int, Variant]]]
    """Per kind of row, its pairs ``(a, b, combined)`` (:func:`pairs_of`), each id once."""
    cols: dict[str, list[int]]
    """Per kind of row, the column of each of its pairs."""
    members: dict[int, tuple[int, int]]
    """Every pair's column to its members' columns ``(a, b)``."""
    full: frozenset[int]
    """The columns of the pairs of two mistakes (scored on every row)."""
    all: list[Variant]
    """Every column's cause."""

    @classmethod
    def of(cls, variants: Sequence[Variant], base: Mapping[str, Any]) -> Causes:
        """The pairs of ``variants``; the checkers' special-ish hand rows are shapes of
        the hand whatever the rules (a structural scope), their showdown rows not."""
        causes = list(variants)
        col_of: dict[str, int] = {}
        pairs: dict[str, list[tuple[int, int, Variant]]] = {}
        cols: dict[str, list[int]] = {}
        members: dict[int, tuple[int, int]] = {}
        full: set[int] = set()
        for m in MODES:
            pairs[m], cols[m] = [], []
            for a, b, c in pairs_of(variants, m, base, structural=m == "hand"):
                col = col_of.get(c.key)
                if col in cols[m]:
                    continue  # a pair of scoped mistakes found twice
                if col is None:
                    col = col_of[c.key] = len(causes)
                    causes.append(c)
                    members[col] = (a, b)
                    if is_mistake_pair(c):
                        full.add(col)
                pairs[m].append((a, b, c))
                cols[m].append(col)
        return cls(list(variants), pairs, cols, members, frozenset(full), causes)


def _agree(
    res: Checked, variant: Variant, rows: npt.NDArray[np.int64], on: npt.NDArray[np.bool_]
) -> npt.NDArray[np.bool_]:
    """Per row of ``rows``: ``on`` and ``variant`` agrees with the row's claims."""
    out = np.zeros(len(rows), dtype=bool)
    at = np.flatnonzero(on)
    if len(at):
        out[at] = np.asarray(res.variant_agree(variant, rows[at]), dtype=bool)
    return out


class Scorer:
    """The diagnosis of one run: every cause (:class:`Causes`) scored on every checked
    group of rows (:meth:`add`), then the further passes over the file its exact counts
    need (:meth:`next_pass`, :meth:`again`)."""

    def __init__(self, variants: Sequence[Variant], base: Mapping[str, Any]) -> None:
        found = Causes.of(variants, base)
        self.found = found
        self.variants, self.causes = found.variants, found.all
        self.tally = Tally(self.causes, found.members)
        self.shapes = ShapeCounts()
        """Unexplained and agreeing rows by atom set, for the pattern learner."""
        n = len(self.causes)
        self.contradicts_off = {m: np.zeros(n, dtype=np.int64) for m in MODES}
        """Per kind of row and single cause: the agreeing rows off the special-ish ones
        it contradicts."""
        self.contradicts_in = {m: np.zeros(n, dtype=np.int64) for m in MODES}
        """Per kind of row and single cause: the agreeing rows it contradicts."""
        self.pair_contradicts = np.zeros(n, dtype=np.int64)
        self.active = np.zeros(n, dtype=bool)
        """The pairs whose contradicted rows the pairs pass counts."""
        self.mode_index = {
            m: [i for i, v in enumerate(self.variants) if m in v.modes] for m in MODES
        }
        self.pair_at = {m: dict(zip(found.cols[m], found.pairs[m], strict=True)) for m in MODES}
        self.alone: dict[str, dict[int, int]] = {m: {} for m in MODES}
        """Per kind of row, the pairs not scored on it of which only one member can
        explain such rows: the pair's column to that member's (the other member leaves
        such rows to the rules, so the pair answers as the one)."""
        for m in MODES:
            for col, (a, b) in found.members.items():
                can = [x for x in (a, b) if m in self.variants[x].modes]
                if col not in self.pair_at[m] and len(can) == 1:
                    self.alone[m][col] = can[0]
        self.stage = "first"
        """What the pass over the file under way does: ``first``, ``pairs``, ``learner``
        (the cover's unexplained rows anew), ``agreeing`` (the learner's agreeing rows
        left) or ``done``."""
        self.cover: list[int] = []

    def add(self, mode: str, res: Checked) -> npt.NDArray[np.bool_]:
        """The first pass: one checked group. Returns ``explains[i, c]``: cause ``c``
        explains the group's ``i``-th disagreeing row."""
        dis = res.disagree
        explains, contradicts = self._score(mode, res, dis)
        self.tally.add(explains)
        self.tally.add_counts(int((~dis).sum()), contradicts)
        dis_rows = np.flatnonzero(dis)
        self.shapes.add(res.record, dis_rows[~explains.any(axis=1)], np.flatnonzero(~dis))
        return explains

    def _score(
        self, mode: str, res: Checked, dis: npt.NDArray[np.bool_]
    ) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.int64]]:
        """Every cause on every row of the group, exactly: ``explains[i, c]`` and per
        single cause the agreeing rows it contradicts. A variant with this ``mode`` in its
        ``scope`` is evaluated on the interesting rows only: elsewhere its answers are the
        rules' own, so it agrees where they agree. A scoped pair is evaluated on the
        interesting disagreeing rows; off them it explains what its member ``b`` does."""
        n_dis = int(dis.sum())
        ex = np.zeros((len(self.causes), n_dis), dtype=bool)  # a cause's column is a row
        contradicts = np.zeros(len(self.causes), dtype=np.int64)
        pos = np.cumsum(dis) - 1  # a disagreeing row's place among them
        every = np.arange(len(res.rows), dtype=np.int64)
        special = np.asarray(res.interesting, dtype=bool)
        interesting = np.flatnonzero(special)
        for v in self.mode_index[mode]:
            variant = self.variants[v]
            scoped = mode in variant.scope
            sel = interesting if scoped else every
            if not len(sel):
                continue
            ok = np.asarray(res.variant_agree(variant, sel), dtype=bool)
            d = dis[sel]
            ex[v, pos[sel[d & ok]]] = True
            contradicts[v] = int((~d & ~ok).sum())
            self.contradicts_in[mode][v] += contradicts[v]
            if not scoped:
                self.contradicts_off[mode][v] += int((~d & ~ok & ~special[sel]).sum())
        for col, x in self.alone[mode].items():
            ex[col] = ex[x]
        if n_dis:
            every_dis = np.flatnonzero(dis)
            inside = np.flatnonzero(dis & special)
            off = ~special[every_dis]  # among the disagreeing rows
            for (_, b, combined), col in zip(self.pairs(mode), self.found.cols[mode], strict=True):
                full = col in self.found.full
                rows = every_dis if full else inside
                if len(rows):
                    ok = np.asarray(res.variant_agree(combined, rows), dtype=bool)
                    ex[col, pos[rows[ok]]] = True
                if not full:
                    ex[col] |= ex[b] & off
        return ex.T, contradicts

    def pairs(self, mode: str) -> list[tuple[int, int, Variant]]:
        """The pairs scored on rows of ``mode``."""
        return self.found.pairs[mode]

    def _known(self, col: int) -> int:
        """The agreeing rows a pair contradicts that the first pass counts: off the
        special-ish rows, those its member ``b`` contradicts there (a scoped pair); on the
        kinds of row where it answers as one member, those that member contradicts."""
        _, b = self.found.members[col]
        out = 0
        for m in MODES:
            if col in self.alone[m]:
                out += int(self.contradicts_in[m][self.alone[m][col]])
            elif col in self.pair_at[m] and col not in self.found.full:
                out += int(self.contradicts_off[m][b])
        return out

    def next_pass(self) -> bool:
        """Whether the counts need another pass over the file (:meth:`again`); call
        after each pass. A pair that cannot score more than both members alone and more
        than nothing (its explained rows less those it surely contradicts) is never
        listed (see :class:`Tally`), so its contradicted rows are not counted."""
        if self.stage == "first":
            explains = self.tally.explains()
            score = explains - self.tally.contradicts
            for col, (a, b) in self.found.members.items():
                bar = max(0, int(score[a]), int(score[b]))
                self.active[col] = explains[col] - self._known(col) > bar
            if self.active.any():
                self.stage = "pairs"
                return True
            self._finish_pairs()
        elif self.stage == "pairs":
            self._finish_pairs()
        elif self.stage in ("learner", "agreeing"):
            self.stage = "done"
        if self.stage in ("first", "pairs"):
            self.cover = self.tally.cover_columns()
            if self.tally.uncovered(self.cover):
                self.stage = "learner"
                self.shapes.restart()
                return True
            if self.stage == "first" and self.shapes.needs_pass():
                self.stage = "agreeing"
                return True
            self.stage = "done"
        return False

    def _finish_pairs(self) -> None:
        """The pairs' exact contradicted counts."""
        for col in self.found.members:
            self.tally.contradicts[col] = self.pair_contradicts[col] + self._known(col)

    def again(self, mode: str, res: Checked) -> None:
        """One checked group of a further pass (see :attr:`stage`)."""
        agreeing = np.flatnonzero(~res.disagree)
        if self.stage == "learner":
            self.shapes.add_all(res.record, self._left(mode, res), agreeing)
            return
        self.shapes.add_agreeing(res.record, agreeing)
        if self.stage != "pairs":
            return
        sel = np.flatnonzero(np.asarray(res.interesting, dtype=bool) & ~res.disagree)
        for (_, _, combined), col in zip(self.pairs(mode), self.found.cols[mode], strict=True):
            rows = agreeing if col in self.found.full else sel
            if self.active[col] and len(rows):
                ok = np.asarray(res.variant_agree(combined, rows), dtype=bool)
                self.pair_contradicts[col] += int((~ok).sum())

    def _left(self, mode: str, res: Checked) -> npt.NDArray[np.int64]:
        """The group's disagreeing rows no cause of the cover explains."""
        rows = np.flatnonzero(res.disagree)
        special = np.asarray(res.interesting, dtype=bool)[rows]
        hit = np.zeros(len(rows), dtype=bool)
        for col in self.cover:
            hit |= self._explains(mode, res, rows, special, col)
        return rows[~hit]

    def _explains(
        self,
        mode: str,
        res: Checked,
        rows: npt.NDArray[np.int64],
        special: npt.NDArray[np.bool_],
        col: int,
    ) -> npt.NDArray[np.bool_]:
        """Per disagreeing row of ``rows``: cause ``col`` explains it (as :meth:`_score`
        says)."""
        everywhere = np.ones(len(rows), dtype=bool)
        if col < len(self.variants):
            v = self.variants[col]
            if mode not in v.modes:
                return ~everywhere
            return _agree(res, v, rows, special if mode in v.scope else everywhere)
        if col in self.alone[mode]:
            return self._explains(mode, res, rows, special, self.alone[mode][col])
        pair = self.pair_at[mode].get(col)
        if pair is None:
            return ~everywhere
        _, b, combined = pair
        if col in self.found.full:
            return _agree(res, combined, rows, everywhere)
        inside = _agree(res, combined, rows, special)
        return inside | (~special & self._explains(mode, res, rows, special, b))
