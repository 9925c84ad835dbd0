"""The exact scoring behind ``bull verify``'s diagnosis, batch by batch.

:class:`Scorer` scores every column of a :class:`~solver.kit.causes.Causes` (a catalogue
and its pairs of causes) on every checked group of rows of a run (:mod:`solver.verify`),
exactly.

Disagreeing rows (few, as a rule) are scored one by one. An agreeing row is counted
instead, by its key (:class:`~solver.kit.check.Keys`: what its diagnosis depends on —
for Niu Niu the hand and the place of the first card written), in a table of the size
of the key space (:mod:`solver.kit.keycounts`); once the first pass is over, only the
causes the report needs are scored, once per key present, weighted by its count: the
causes that explain some row and the members of such pairs, the pairs that may be
listed, and, when some disagreeing row is left unexplained, every agreeing row's atoms
for the pattern learner (:mod:`solver.kit.learn`). A further pass over the file is made
only for rows a key cannot stand for (a claimed bull, a cause that depends on a written
order the key does not hold):

* **pairs** — the agreeing rows each pair that may be listed contradicts (a pair of a
  scoped cause with another is evaluated on the checker's ``interesting`` rows, off them
  it answers as its other member ``b`` does; a pair of two mistakes on every row);
* **learner** — the disagreeing rows the final cover leaves unexplained (a row explained
  only by a cause that contradicts more than it explains is one), when the first pass
  could not count them by the causes that explain them, and agreeing rows it did not
  count.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.kit.causes import MODES, Causes
from solver.kit.check import Checked
from solver.kit.diagnosis import Tally, Variant
from solver.kit.keycounts import (
    DEFER,
    Deferred,
    KeyCounts,
    Part,
    Waiting,
    by_fields,
    by_keys,
    row_atoms,
)
from solver.kit.learn import Shapes, explain_patterns

__all__ = ["MODES", "Causes", "Scorer"]


def _agree(
    res: Checked, variant: Variant, rows: npt.NDArray[np.int64], on: npt.NDArray[np.bool_]
) -> npt.NDArray[np.bool_]:
    """Per row of ``rows``: ``on`` and ``variant`` agrees with the row's claims."""
    out = np.zeros(len(rows), dtype=bool)
    at = np.flatnonzero(on)
    if len(at):
        out[at] = np.asarray(res.variant_agree(variant, rows[at]), dtype=bool)
    return out


def _count(bad: npt.NDArray[np.bool_], weight: npt.NDArray[np.int64] | None) -> int:
    """Rows flagged in ``bad`` (each counted ``weight`` times, if given)."""
    return int(np.count_nonzero(bad)) if weight is None else int(weight[bad].sum())


@dataclass
class _Sweep:
    """Scoring groups of one agreeing row per key: each row's count, and the causes to
    score (the rest need no count)."""

    weight: npt.NDArray[np.int64]
    singles: set[int]
    pairs: set[int]


class Scorer:
    """The diagnosis of one run: every cause (:class:`Causes`) scored on every checked
    group of rows (:meth:`add`), then, once the first pass is over, what the report needs
    besides (:meth:`next_pass`; a further pass over the file, :meth:`again`, only when
    some rows were scored one by one and their counts are needed).

    Disagreeing rows are scored one by one. Agreeing rows with a key
    (:class:`~solver.kit.check.Keys`) are counted by key (:class:`KeyCounts`), and a
    cause's count over them is made only when the report needs it: for a cause that
    explains some row, or a member of such a pair."""

    def __init__(self, variants: Sequence[Variant], base: Mapping[str, Any]) -> None:
        found = Causes.of(variants, base)
        self.found = found
        self.variants, self.causes = found.variants, found.all
        self.tally = Tally(self.causes, found.members)
        n = len(self.causes)
        self.contradicts_off = {m: np.zeros(n, dtype=np.int64) for m in MODES}
        """Per kind of row and single cause: the agreeing rows off the special-ish ones
        it contradicts."""
        self.contradicts_in = {m: np.zeros(n, dtype=np.int64) for m in MODES}
        """Per kind of row and single cause: the agreeing rows it contradicts."""
        self.pair_contradicts, self.pair_keyed = np.zeros(n, np.int64), np.zeros(n, np.int64)
        """Per pair: the agreeing rows it contradicts (scored one by one; counted by key)."""
        self.active = np.zeros(n, dtype=bool)
        """The pairs whose contradicted rows are counted (see :meth:`next_pass`)."""
        self.mode_index = {
            m: [i for i, v in enumerate(self.variants) if m in v.modes] for m in MODES
        }
        self._in_mode = {m: set(ix) for m, ix in self.mode_index.items()}
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
        """What the pass over the file under way does: ``first``, ``pairs`` (what the
        pairs contradict among the rows scored one by one), ``learner`` (the rows the
        pattern learner needs that the first pass did not count) or ``done``."""
        self.cover: list[int] = []
        self.keyed = KeyCounts()
        self.by_row, self.unordered = {m: 0 for m in MODES}, {m: 0 for m in MODES}
        """Per kind of row: agreeing rows scored one by one (no key), and keyed rows
        whose key knows no written order (causes that depend on it are scored on them)."""
        self._sweep: _Sweep | None = None
        # the pattern learner (solver.kit.learn): disagreeing rows by the causes that
        # explain them (their explains bits, packed), counted by atom set; agreeing rows
        self.lost: dict[bytes, Shapes] = {}
        self.lost_complete = True
        """Whether :attr:`lost` holds every disagreeing row (else: those no cause explains)."""
        self.recorded = self.rows_seen = 0
        """Disagreeing rows whose atoms were counted from their records (a checker
        without a vectorised count), and the rows of the groups seen so far."""
        self.agreeing: Shapes = Counter()
        self.uncounted: set[int] = set()
        """Groups whose agreeing rows without a key the learner has not counted."""
        self.seen_disagree, self.groups = False, 0
        self.deferred = Deferred()
        self.queue: deque[Waiting] = deque()
        """The groups of the first pass whose disagreeing rows wait to be scored."""
        self.ordered = {
            m: any(self.causes[c].order for c in [*self.mode_index[m], *found.cols[m]])
            for m in MODES
        }
        """Per kind of row: whether some cause scored on it depends on the written order."""
        self.unexplained: Shapes | None = Counter()
        """The disagreeing rows the cover leaves unexplained (``None``: counted in the
        learner's pass, :attr:`pass_unexplained`)."""
        self.pass_unexplained: Shapes = Counter()
        self._pass_group = 0  # groups seen by the pass under way

    # ---------------------------------------------------------------- the first pass

    def add(
        self, mode: str, res: Checked, done: Callable[[npt.NDArray[np.bool_]], Any] | None = None
    ) -> None:
        """The first pass: one checked group. ``done(explains)`` is called, in the order
        of the groups, once ``explains[i, c]`` (cause ``c`` explains the group's ``i``-th
        disagreeing row) is known: at once, or when the disagreeing rows with a key are
        scored together (:class:`~solver.kit.keycounts.Deferred`, at the latest by
        :meth:`next_pass`)."""
        dis = res.disagree
        self.rows_seen += len(res.rows)
        self._count_keys(mode, res, dis)
        later = self._deferrable(mode, res, dis)
        now = dis & ~later
        explains, contradicts = self._score(mode, res, now)
        self.tally.add(explains)
        self.tally.add_counts(len(dis) - int(np.count_nonzero(dis)), contradicts)
        self._add_lost(res, now, explains)
        self.seen_disagree |= bool(dis.any())
        self._add_agreeing(res, dis)
        self.groups += 1
        rows = np.flatnonzero(dis)
        entry = Waiting(done, np.zeros((len(rows), len(self.causes)), dtype=bool))
        entry.explains[np.flatnonzero(now[rows])] = explains
        if later.any() and res.keys is not None and res.claims is not None:
            at = np.flatnonzero(later)
            places = np.flatnonzero(later[rows])
            entry.left = len(at)
            for fields, sel in by_fields(res, at):
                self.deferred.add(mode, res.keys, fields, at[sel], res.claims, entry, places[sel])
        self.queue.append(entry)
        if self.deferred.waiting >= DEFER:
            self._score_deferred()
        self._done()

    def _deferrable(
        self, mode: str, res: Checked, dis: npt.NDArray[np.bool_]
    ) -> npt.NDArray[np.bool_]:
        """The disagreeing rows scored later, together: those with a key that holds all
        their causes depend on (and the claims that make them disagree)."""
        if res.keys is None or res.claims is None or not dis.any():
            return np.zeros(len(dis), dtype=bool)
        if res.keys.order == 1 and self.ordered[mode]:
            return np.zeros(len(dis), dtype=bool)
        return dis & (res.keys.of >= 0)

    def _score_deferred(self) -> None:
        """Score the disagreeing rows set aside, and pass each its answers."""
        for mode, group, slots in self.deferred.take():
            dis = group.disagree
            if not dis.all():
                raise AssertionError("a key's row agrees where the row it stands for does not")
            explains, _ = self._score(mode, group, dis)
            self.tally.add(explains)
            self._add_lost(group, dis, explains)
            start = 0
            for entry, places in slots:
                entry.explains[places] = explains[start : start + len(places)]
                entry.left -= len(places)
                start += len(places)

    def _done(self) -> None:
        """Pass the groups whose every row is scored their answers, in order."""
        while self.queue and not self.queue[0].left:
            entry = self.queue.popleft()
            if entry.done is not None:
                entry.done(entry.explains)

    def _unkeyed(self, res: Checked, dis: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
        """The agreeing rows without a key."""
        if res.keys is None:
            return ~dis
        return ~dis & (res.keys.of < 0)

    def _count_keys(self, mode: str, res: Checked, dis: npt.NDArray[np.bool_]) -> None:
        """Count the group's agreeing keyed rows, by the fields they state."""
        self.by_row[mode] += int(np.count_nonzero(self._unkeyed(res, dis)))
        if res.keys is None:
            return
        keys = res.keys
        at = ~dis & (keys.of >= 0)
        if keys.order == 1:
            self.unordered[mode] += int(np.count_nonzero(at))
        if all(st.all() or not (at & ~st).any() for st in res.stated.values()):
            self.keyed.add(mode, keys, tuple(res.stated), keys.of[at])
            return
        rows = np.flatnonzero(at)
        for fields, sel in by_fields(res, rows):
            self.keyed.add(mode, keys, fields, keys.of[rows[sel]])

    def _scored(
        self, res: Checked, dis: npt.NDArray[np.bool_], special: npt.NDArray[np.bool_]
    ) -> Callable[[Variant], npt.NDArray[np.int64]]:
        """``rows(variant)``: the rows ``variant`` is scored on here — the interesting
        ones for a scoped variant, else every one — but the agreeing rows counted by key
        (:meth:`next_pass`), unless the key knows nothing of the written order the
        variant depends on."""
        mode = res.mode
        every = np.arange(len(res.rows), dtype=np.int64)
        counted = None if self._sweep is not None or res.keys is None else ~dis & (res.keys.of >= 0)
        unordered = res.keys is not None and res.keys.order == 1
        found: dict[tuple[bool, bool], npt.NDArray[np.int64]] = {}

        def rows(variant: Variant) -> npt.NDArray[np.int64]:
            scoped = mode in variant.scope
            skip = counted is not None and not (variant.order and unordered)
            got = found.get((scoped, skip))
            if got is None:
                on = special if scoped else np.ones(len(every), dtype=bool)
                if skip and counted is not None:
                    on = on & ~counted
                got = found[(scoped, skip)] = np.flatnonzero(on)
            return got

        return rows

    def _score(
        self, mode: str, res: Checked, dis: npt.NDArray[np.bool_]
    ) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.int64]]:
        """Every cause on every row of the group scored here, exactly: ``explains[i, c]``
        and per single cause the agreeing rows it contradicts. A variant with this
        ``mode`` in its ``scope`` is evaluated on the interesting rows only: elsewhere its
        answers are the rules' own, so it agrees where they agree. A scoped pair is
        evaluated on the interesting disagreeing rows; off them it explains what its
        member ``b`` does. Agreeing rows counted by key are left to :meth:`next_pass`;
        in its sweep (:attr:`_sweep`) the rows are those of the keys, each counted as
        often as its key."""
        sweep = self._sweep
        weight = None if sweep is None else sweep.weight
        n_dis = int(np.count_nonzero(dis))
        ex = np.zeros((len(self.causes), n_dis), dtype=bool)  # a cause's column is a row
        contradicts = np.zeros(len(self.causes), dtype=np.int64)
        pos = np.cumsum(dis) - 1  # a disagreeing row's place among them
        special = np.asarray(res.interesting, dtype=bool)
        scored = self._scored(res, dis, special)
        for v in self.mode_index[mode]:
            if sweep is not None and v not in sweep.singles:
                continue
            variant = self.variants[v]
            scoped = mode in variant.scope
            sel = scored(variant)
            if not len(sel):
                continue
            ok = np.asarray(res.variant_agree(variant, sel), dtype=bool)
            d = dis[sel]
            ex[v, pos[sel[d & ok]]] = True
            bad = ~d & ~ok
            w = None if weight is None else weight[sel]
            contradicts[v] = _count(bad, w)
            self.contradicts_in[mode][v] += contradicts[v]
            if not scoped:
                self.contradicts_off[mode][v] += _count(bad & ~special[sel], w)
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

    def _pair_counts(
        self,
        mode: str,
        res: Checked,
        agreeing: npt.NDArray[np.bool_],
        cols: set[int],
        weight: npt.NDArray[np.int64] | None,
        out: npt.NDArray[np.int64],
    ) -> None:
        """Add to ``out[col]`` the ``agreeing`` rows each pair of ``cols`` contradicts:
        the interesting ones for a scoped pair (off them it answers as its member ``b``,
        counted there), every one for a pair of two mistakes."""
        every = np.flatnonzero(agreeing)
        inside = np.flatnonzero(agreeing & np.asarray(res.interesting, dtype=bool))
        for (_, _, combined), col in zip(self.pairs(mode), self.found.cols[mode], strict=True):
            rows = every if col in self.found.full else inside
            if col in cols and len(rows):
                ok = np.asarray(res.variant_agree(combined, rows), dtype=bool)
                out[col] += _count(~ok, None if weight is None else weight[rows])

    def _add_lost(
        self, res: Checked, dis: npt.NDArray[np.bool_], explains: npt.NDArray[np.bool_]
    ) -> None:
        """The disagreeing rows for the pattern learner, by the causes that explain them
        (all, when the checker counts rows' atoms vectorised, else those no cause
        explains: the others, if needed, in a further pass)."""
        rows = np.flatnonzero(dis)
        if not len(rows):
            return
        self.seen_disagree = True
        packed = np.packbits(explains, axis=1)
        keys = np.ascontiguousarray(packed).view(np.dtype((np.void, packed.shape[1]))).ravel()
        uniq, inv = np.unique(keys, return_inverse=True)
        inv = inv.ravel()
        counts = getattr(res.record, "lost_counts", None)
        zero = bytes(packed.shape[1])
        few = (self.recorded + len(rows)) * _RECORD_EVERY <= self.rows_seen
        if counts is None and len(uniq) <= _MAX_LOST_PATTERNS and few:
            # no vectorised count: the rows' own records, while they are few (else the
            # rows no cause explains, and a further pass over the file if needed)
            self.recorded += len(rows)
            for j, key in enumerate(uniq.tolist()):
                self.lost.setdefault(bytes(key), Counter()).update(row_atoms(res, rows[inv == j]))
            return
        if counts is None or len(uniq) > _MAX_LOST_PATTERNS:
            some = np.flatnonzero(~explains.any(axis=1))
            if len(some) < len(rows):
                self.lost_complete = False
            if len(some):
                self.lost.setdefault(zero, Counter()).update(row_atoms(res, rows[some]))
            return
        for j, key in enumerate(uniq.tolist()):
            self.lost.setdefault(bytes(key), Counter()).update(counts(rows[inv == j]))

    def _add_agreeing(self, res: Checked, dis: npt.NDArray[np.bool_]) -> None:
        """The agreeing rows without a key for the pattern learner: counted here from the
        first group with a disagreeing row on (vectorised), else left to a further pass."""
        rows = np.flatnonzero(self._unkeyed(res, dis))
        if not len(rows):
            return
        counts = getattr(res.record, "atom_counts", None)
        if self.seen_disagree and counts is not None:
            self.agreeing.update(counts(rows))
        else:
            self.uncounted.add(self.groups)

    # ---------------------------------------------------------------- after a pass

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

    def _count_keyed(self) -> None:
        """The counts over the keyed agreeing rows of the causes the report needs: every
        single cause that explains a row or is a member of a pair that does, and those
        pairs (see :meth:`next_pass`) while they may be listed."""
        explains = self.tally.explains()
        pairs = {c for c in self.found.members if explains[c] > 0}
        singles = {v for v in range(len(self.variants)) if explains[v] > 0}
        for col in pairs:
            singles.update(self.found.members[col])
        plan = []
        for mode in sorted(self.keyed.modes()):
            ordered = self.keyed.order(mode) > 1
            for fine in (False, True) if ordered else (False,):  # else: scored row by row
                one = {v for v in singles if bool(self.variants[v].order) == fine}
                two = {c for c in pairs if bool(self.causes[c].order) == fine}
                if one or two & set(self.found.cols[mode]):
                    plan.append((mode, fine, one, two))
        left = Counter(v for _, _, one, _ in plan for v in one)  # sweeps a count awaits
        for mode, fine, one, two in plan:
            for part in self.keyed.parts(mode, fine, stating=True):
                two = {c for c in two if self._may_list(c, explains, left)}
                rest = one - self._by_keys(mode, part, one)
                if not rest and not two:
                    continue
                group, weight = part.group(), part.weight
                self._sweep = _Sweep(weight, rest, two)
                try:
                    none = np.zeros(len(group.rows), dtype=bool)
                    _, contradicts = self._score(mode, group, none)
                    self.tally.add_counts(0, contradicts)
                    self._pair_counts(mode, group, ~none, two, weight, self.pair_keyed)
                finally:
                    self._sweep = None
            left.subtract(one)

    def _by_keys(self, mode: str, part: Part, one: set[int]) -> set[int]:
        """The causes of ``one`` counted from ``part``'s keys alone (:func:`by_keys`) or
        not scored on rows of ``mode`` (nothing to count): the rest need the group."""
        done = {v for v in one if v not in self._in_mode[mode]}
        contradicts = np.zeros(len(self.causes), dtype=np.int64)
        for v, (inside, off) in by_keys(part, mode, self.variants, sorted(one - done)).items():
            contradicts[v] = inside
            self.contradicts_in[mode][v] += inside
            self.contradicts_off[mode][v] += off
            done.add(v)
        self.tally.add_counts(0, contradicts)
        return done

    def _may_list(self, col: int, explains: npt.NDArray[np.int64], left: Counter[int]) -> bool:
        """Whether pair ``col`` may yet be listed (:meth:`next_pass`): its explained rows
        less those it surely contradicts (:meth:`_surely`, so far) beat nothing and each
        member whose count is complete (a score only falls as its count goes on)."""
        c = self.tally.contradicts
        done = [int(explains[m] - c[m]) for m in self.found.members[col] if not left[m]]
        return bool(explains[col] - self._surely(col) > max([0, *done]))

    def _surely(self, col: int) -> int:
        """The agreeing rows pair ``col`` is known to contradict so far: those the first
        pass counts (:meth:`_known`) and those of the keys swept for it."""
        return self._known(col) + int(self.pair_keyed[col])

    def _needs_rows(self, col: int) -> bool:
        """Whether a pair's contradicted rows include rows scored one by one."""
        order = bool(self.causes[col].order)
        return any(
            col in self.pair_at[m] and (self.by_row[m] or (order and self.unordered[m]))
            for m in MODES
        )

    def next_pass(self) -> bool:
        """Whether the counts need another pass over the file (:meth:`again`); call
        after each pass. A pair that cannot score more than both members alone and more
        than nothing (its explained rows less those it surely contradicts) is never
        listed (see :class:`Tally`), so its contradicted rows are not counted."""
        if self.stage == "first":
            self._score_deferred()
            self._done()
            self._count_keyed()
            explains = self.tally.explains()
            score = explains - self.tally.contradicts
            for col, (a, b) in self.found.members.items():
                bar = max(0, int(score[a]), int(score[b]))
                self.active[col] = explains[col] - self._surely(col) > bar
            if any(self._needs_rows(c) for c in np.flatnonzero(self.active).tolist()):
                self.stage = "pairs"
                self._pass_group = 0
                return True
            self._finish_pairs()
        elif self.stage == "pairs":
            self._finish_pairs()
        elif self.stage == "learner":
            self.stage = "done"
            return False
        else:
            return False
        self.cover = self.tally.cover_columns()
        self.unexplained = self._unexplained()
        self.stage = "done"
        if self.unexplained is not None and not self.unexplained:
            return False
        self._count_keyed_atoms()
        if self.unexplained is None or self.uncounted:
            self.stage = "learner"
            self._pass_group = 0
            return True
        return False

    def _finish_pairs(self) -> None:
        """The pairs' contradicted counts: exact for every pair that may be listed."""
        for col in self.found.members:
            # a pair left out of a sweep once it could not be listed keeps what it had
            # (too few, but enough to leave it out: see Tally)
            self.tally.contradicts[col] = self.pair_contradicts[col] + self._surely(col)

    def _unexplained(self) -> Shapes | None:
        """The disagreeing rows no cause of the cover explains, by atom set (``None``:
        known only after a further pass)."""
        if not self.lost_complete and self.tally.uncovered(self.cover):
            return None
        out: Shapes = Counter()
        for key, shapes in self.lost.items():
            bits = np.unpackbits(np.frombuffer(key, dtype=np.uint8))[: len(self.causes)]
            if not bits[self.cover].any():
                out.update(shapes)
        return out

    def _count_keyed_atoms(self) -> None:
        """The keyed agreeing rows for the pattern learner, by atom set (once per key,
        weighted by its count)."""
        for mode in sorted(self.keyed.modes()):
            for part in self.keyed.parts(mode, False):
                self.agreeing.update(part.atom_counts())

    def again(self, mode: str, res: Checked) -> None:
        """One checked group of a further pass (see :attr:`stage`)."""
        g, self._pass_group = self._pass_group, self._pass_group + 1
        dis = res.disagree
        if self.stage == "pairs":
            unkeyed = self._unkeyed(res, dis)
            cols = {c for c in np.flatnonzero(self.active).tolist() if c in self.pair_at[mode]}
            plain = {c for c in cols if not (self.causes[c].order and res.keys is not None)}
            ordered = cols - plain
            self._pair_counts(mode, res, unkeyed, plain, None, self.pair_contradicts)
            if ordered and res.keys is not None and res.keys.order == 1:
                self._pair_counts(mode, res, ~dis, ordered, None, self.pair_contradicts)
            elif ordered:
                self._pair_counts(mode, res, unkeyed, ordered, None, self.pair_contradicts)
        elif self.stage == "learner" and self.unexplained is None:
            # counted anew: every group's rows the cover leaves unexplained
            self.pass_unexplained.update(row_atoms(res, self._left(mode, res)))
        if g in self.uncounted:  # the learner's agreeing rows the first pass left
            self.uncounted.discard(g)
            rows = np.flatnonzero(self._unkeyed(res, dis))
            self.agreeing.update(row_atoms(res, rows, "atom_counts"))

    def patterns(self) -> list[Any]:
        """The learned patterns (:func:`~solver.kit.learn.explain_patterns`) of the
        disagreeing rows the cover leaves unexplained, against every agreeing row."""
        lost = self.unexplained
        if lost is None:
            lost = self.pass_unexplained
        return explain_patterns(lost, self.agreeing)

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


_MAX_LOST_PATTERNS = 64
"""Distinct sets of explaining causes in a group above which the first pass counts for
the learner only the rows no cause explains."""
_RECORD_EVERY = 1024
"""The first pass counts disagreeing rows for the learner from their records, one by
one, when the checker has no vectorised count (``record.lost_counts``), while they are
at most one in so many of the rows seen: a record costs 26 microseconds (Pok Deng) to
313 (Tau Ngau), a further pass over the file (which counts the rest when the cover leaves
a row unexplained) about 0.4 a row. Past that, only the rows no cause explains."""
