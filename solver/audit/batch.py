"""The per-batch work of an audit: one Arrow function, the same on every engine.

A log has one row per seat per round. :class:`Auditor` takes Arrow record batches whose
rows are in round order (each round's rows together; the engines see to it) with the
logical columns ``round``, ``role``, ``hand`` and optionally ``result``, ``net`` and the
``--by`` columns (named ``by:<column>``). It keeps the last block of a batch back until
the next batch shows whether its last round is complete (audited whole, or that round
with the next batch's first rows), and accumulates a
:class:`Partial`: exact integer counts (categories of the banker's and the players'
dealt hands, dealt cards or tiles, the first player's outcome, per group), the
settlement re-check of every player row against its banker (the game's ``settle``),
impossible deals (a card twice in a round, more copies of a tile than the set has)
and malformed rows. Partials of different batches or Spark partitions add up
(:mod:`solver.audit.partial`); the tests are computed from the sum, so every engine gives
identical results.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from solver.audit.columns import (
    RESULT_LABELS,
    ROLES,
    NotInRoundOrder,
    RoundKeys,
    changes,
    column,
    label,
    raw_values,
)
from solver.audit.partial import (
    MAX_AGREE_ROWS,
    MAX_EXAMPLES,
    MAX_GROUPS,
    MAX_SETTLE_ROWS,
    GroupCounts,
    Partial,
    Room,
    TooManyGroups,
    byte_counts,
    held_counts,
    net_counts,
)
from solver.audit.resettle import resettle
from solver.audit.spec import AuditSpec
from solver.audit.uniform import audit_uniform, layout

__all__ = [
    "MAX_EXAMPLES",
    "MAX_SETTLE_ROWS",
    "RESULT_LABELS",
    "ROLES",
    "Auditor",
    "GroupCounts",
    "NotInRoundOrder",
    "Partial",
    "byte_counts",
]

PAD = 255
BLOCK_ROWS = 1 << 18
"""The rows of a block of whole rounds audited at once (see :class:`Auditor`)."""


class Auditor:
    """Feeds record batches (in round order) into a :class:`Partial`.

    Every block of whole rounds gets a partial of its own, audited here or on one of
    ``workers`` threads (numpy and Arrow release the GIL); the blocks' partials are
    added up in the order of the rows (:meth:`Partial.extend`), so what is found and
    which examples are listed do not depend on the threads.
    """

    def __init__(
        self,
        spec: AuditSpec,
        by: Sequence[str],
        settle: bool = True,
        workers: int = 1,
        files: Sequence[str] | None = None,
        fast: bool = True,
        block_rows: int = BLOCK_ROWS,
    ) -> None:
        self.spec = spec
        self.block_rows = max(1, block_rows)
        """A batch's whole rounds are audited in blocks of about this many rows (cut
        where a round starts): a block's arrays stay in the cache, and a reader's large
        batches leave fewer rounds held back across batches (each one a block of its
        own when the next batch comes)."""
        self.files = files
        """Set: the ``scope`` column is the file (its place in ``files``, or its path),
        which the examples name by its base name."""
        self.workers = workers
        self._pool: Any = None
        self._pending: deque[Future[Partial]] = deque()
        self.by = list(by)
        self.do_settle = settle
        self.partial = Partial()
        self.carry: pa.Table | None = None
        """The last block fed, held back: its last round (from row ``carry_last``) may
        go on in the next batch."""
        self.carry_last = 0
        self.carry_change: npt.NDArray[np.bool_] = np.zeros(0, dtype=bool)
        self.real = np.zeros(256, dtype=bool)  # an item of the set
        self.real[spec.deck] = True
        self.in_deck = self.real.copy()
        self.in_deck[PAD] = True  # after a short hand
        self.bit = np.zeros(256, dtype=np.uint64)  # card id -> its bit (none past 63)
        self.bit[:64] = np.left_shift(np.uint64(1), np.arange(64, dtype=np.uint64))
        self.n_units = len(spec.unit_names)
        self.unit = np.zeros(256, dtype=np.int64)
        self.unit[: len(spec.unit)] = spec.unit
        deck = spec.deck.astype(np.int64)
        self.dense = bool((deck == np.arange(len(deck))).all())  # the set's ids: 0..len-1
        self.identity = bool((self.unit[deck] == deck).all())  # a unit is an item's id
        # one bit per item: a repeat makes the OR of the round's items fall short
        self.bitwise = bool(
            (spec.copies == 1).all()
            and deck.max(initial=0) < 64
            and len(np.unique(self.unit[deck])) == len(deck)
        )
        hooks = spec.hooks
        self.fast = bool(
            fast and self.bitwise and hooks.get("evaluate") and hooks.get("settle_values")
        )
        """A block of rounds all alike is audited as a grid (:mod:`solver.audit.uniform`)."""

    # -- feeding
    def feed(self, batch: pa.RecordBatch | pa.Table) -> None:
        t = batch if isinstance(batch, pa.Table) else pa.Table.from_batches([batch])
        if not t.num_rows:
            return
        rnd = column(t, "round")
        change = self._changes(t)
        start = 0
        if self.carry is not None:  # the held-back block, its last round maybe in this batch
            carry, held = self.carry, self.carry_last
            end = carry.num_rows - 1
            last, first = carry.column("round")[end], rnd[0]
            same = False
            if "scope" in t.column_names:  # scopes in order; another scope: another round
                a, b = carry.column("scope")[end], t.column("scope")[0]
                if a.is_valid and b.is_valid and pc.less(b, a).as_py():
                    raise NotInRoundOrder("round ids are not in order")
                if not (a.is_valid and b.is_valid and pc.equal(a, b).as_py()):
                    first = pa.scalar(None, rnd.type)
            if first.is_valid and last.is_valid:
                if pc.less(first, last).as_py():
                    raise NotInRoundOrder("round ids are not in order")
                same = bool(pc.equal(first, last).as_py())
            if not same:  # the block is whole: audited as it is (no block of one round)
                self._submit(carry, self.carry_change)
            else:
                if held:  # its whole rounds; the last one goes on in this batch
                    self._submit(carry.slice(0, held), self.carry_change[:held])
                later = np.flatnonzero(change[1:])
                start = int(later[0]) + 1 if len(later) else t.num_rows
                seam = carry.slice(held)
                if start:
                    seam = pa.concat_tables([seam, t.slice(0, start).select(seam.column_names)])
                if start == t.num_rows:
                    self.carry, self.carry_last = seam, 0
                    self.carry_change = self._changes(seam)
                    return
                self._submit(seam, self._changes(seam))
                t, change = t.slice(start), change[start:]
        starts = np.flatnonzero(change)
        last_start = int(starts[-1])
        # the whole rounds, in blocks of about block_rows rows; the last block is held
        # back (its last round may go on in the next batch)
        want = np.arange(self.block_rows, last_start, self.block_rows)
        cuts = [0, *np.unique(starts[np.searchsorted(starts, want)]).tolist()]
        for a, b in itertools.pairwise(cuts):
            if b > a:
                self._submit(t.slice(a, b - a), change[a:b])
        self.carry, self.carry_change = t.slice(cuts[-1]), change[cuts[-1] :]
        self.carry_last = last_start - cuts[-1]

    def _changes(self, t: pa.Table) -> npt.NDArray[np.bool_]:
        scope = column(t, "scope") if "scope" in t.column_names else None
        return changes(column(t, "round"), scope)

    def _room(self) -> Room:
        p = self.partial
        return {
            "malformed": MAX_EXAMPLES - len(p.malformed_rows),
            "impossible": MAX_EXAMPLES - len(p.impossible_rows),
            "disagree": MAX_SETTLE_ROWS - len(p.disagree_rows),
            "agree": MAX_AGREE_ROWS - p.agree_kept,
        }

    def _submit(self, t: pa.Table, change: npt.NDArray[np.bool_]) -> None:
        """Audit a block of whole rounds, here or on a worker thread; at most
        ``workers`` blocks are in flight (bounded memory)."""
        if self.workers <= 1:
            self.partial.extend(self._process(t, change, self._room()))
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="bull-audit")
        self._pending.append(self._pool.submit(self._process, t, change, self._room()))
        while self._pending and (self._pending[0].done() or len(self._pending) > self.workers):
            self.partial.extend(self._pending.popleft().result())  # errors surface here

    def finish(self) -> Partial:
        """The partial of every row fed (the last round is whole now)."""
        if self.carry is not None and self.carry.num_rows:
            self._submit(self.carry, self.carry_change)
        self.carry = None
        while self._pending:
            self.partial.extend(self._pending.popleft().result())
        self._close()
        return self.partial

    def _close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        self._pending.clear()

    def run(self, batches: Iterable[pa.RecordBatch | pa.Table]) -> Partial:
        try:
            for b in batches:
                self.feed(b)
            return self.finish()
        finally:
            self._close()

    # -- one block of whole rounds
    def _process(self, t: pa.Table, change: npt.NDArray[np.bool_], room: Room) -> Partial:
        spec, part = self.spec, Partial()
        n = t.num_rows
        part.rows = n
        rnd_arr = RoundKeys(t, self.files)
        bad = np.zeros(n, dtype=bool)
        msgs: dict[int, str] = {}
        if rnd_arr.null_count:
            null_round = np.asarray(rnd_arr.round.is_null())
            for i in np.flatnonzero(null_round)[:MAX_EXAMPLES].tolist():
                msgs[i] = "round: empty"
            bad |= null_round
        role = label(t, "role", ROLES, narrow=True)
        if role.messages or role.bad.any() or not role.stated.all():
            bad |= role.bad | ~role.stated
            for i, m in role.messages.items():
                msgs.setdefault(i, m)
            for i in np.flatnonzero(~role.stated & ~role.bad)[:MAX_EXAMPLES].tolist():
                msgs.setdefault(i, "role: empty")
        ids, hbad, hmsgs, dup, plain = self._hands(column(t, "hand"))
        bad |= hbad
        for i, m in hmsgs.items():
            msgs.setdefault(i, m)
        # the ids column by column, once: the impossible-deal check and the game's
        # evaluate read them so (an (n, k) view of it in Fortran order is what a table
        # lookup transposes to: no second copy)
        cols = np.ascontiguousarray(ids.T)
        if self.fast and plain and not self.by and not bad.any() and not dup.any():
            shape = layout(change, role.value)  # every round alike: a grid (uniform.py)
            if shape is not None:
                done = audit_uniform(self, t, rnd_arr, room, ids, cols, shape)
                if done is not None:
                    return done
        # rounds: one banker, at least one player, no item dealt twice
        first_row = np.flatnonzero(change)
        n_rounds = len(first_row)
        rid = np.cumsum(change) - 1  # round index of every row
        good: npt.NDArray[np.bool_] | None = None
        if bad.any():
            good = ~bad
            is_banker = role.stated & (role.value == 1) & good
            is_player = role.stated & (role.value == 0) & good
            bad_round = np.bincount(rid[bad], minlength=n_rounds) > 0
        else:
            is_banker, is_player = role.value == 1, role.value == 0
            bad_round = np.zeros(n_rounds, dtype=bool)
        bankers = np.add.reduceat(is_banker, first_row, dtype=np.int64)
        if good is None:  # every row is a banker's or a player's
            players = np.diff(first_row, append=n) - bankers
        else:
            players = np.add.reduceat(is_player, first_row, dtype=np.int64)
        impossible = self._impossible(cols.T, rid, first_row, good, plain)
        if dup.any():
            impossible |= np.bincount(rid[dup], minlength=n_rounds) > 0
        if impossible.any():
            part.most_copies = self._most_copies(ids, rid, impossible, good)
        ok_round = (bankers == 1) & (players >= 1) & ~bad_round & ~impossible
        where_imp = np.flatnonzero(impossible)
        for r in where_imp[: max(0, room["impossible"])].tolist():
            part.impossible_rows.append(
                (
                    rnd_arr(int(first_row[r])),
                    self._why_impossible(ids, first_row, r),
                )
            )
        part.impossible += len(where_imp)
        structure = ~ok_round & ~bad_round & ~impossible
        part.malformed += int(bad.sum())
        for i in np.flatnonzero(bad)[: max(0, room["malformed"])].tolist():
            part.malformed_rows.append((rnd_arr(i), msgs.get(i, "malformed")))
        left = max(0, room["malformed"] - len(part.malformed_rows))
        for r in np.flatnonzero(structure)[:left].tolist():
            what = f"{bankers[r]} banker rows, {players[r]} player rows"
            part.malformed_rows.append((rnd_arr(int(first_row[r])), what))
        part.malformed += int(structure.sum())
        part.rounds += int(ok_round.sum())
        sel: npt.NDArray[np.int64] | None = None  # the rows audited (None: all)
        if not ok_round.all():
            keep = ok_round[rid]
            is_banker, is_player, sel = is_banker & keep, is_player & keep, np.flatnonzero(keep)
        brows, prow = np.flatnonzero(is_banker), np.flatnonzero(is_player)
        if sel is None:
            brow = brows[rid[prow]]  # every round has its one banker
        else:
            banker_row = np.full(n_rounds, -1, dtype=np.int64)
            banker_row[rid[brows]] = brows
            brow = banker_row[rid[prow]]
        hs = spec.hand_size
        dealt = ids[:, :hs] if sel is None else ids[sel, :hs]
        winner = net = None
        cats = np.full(n, -1, dtype=np.int64)
        evaluate = spec.hooks.get("evaluate")
        if evaluate is not None and len(dealt):  # one table gather per row
            vals = evaluate(cols[:hs].T if sel is None else cols[:hs, sel].T)
            if sel is None:
                cats, pv, bv = vals["category"], prow, brow
            else:
                cats[sel] = vals["category"]
                pos = np.full(n, -1, dtype=np.int64)
                pos[sel] = np.arange(len(sel))
                pv, bv = pos[prow], pos[brow]
            if len(prow):
                keys = [k for k in vals if k != "category"]  # what settling reads
                pvals = {k: vals[k][pv] for k in keys}
                bvals = {k: vals[k][bv] for k in keys}
                winner, net = spec.hooks["settle_values"](pvals, bvals)
        else:
            if len(dealt):
                c = spec.category(np.ascontiguousarray(dealt))
                if sel is None:
                    cats = c
                else:
                    cats[sel] = c
            if len(prow):
                winner, net = spec.settle(ids[prow], ids[brow])
        held = net  # what each player row nets: the logged amount where stated
        if winner is not None and net is not None and self.do_settle:
            held = resettle(spec, part, room, t, rnd_arr, prow, brow, ids, winner, net)
        # fairness counts: everything, then per --by group
        first_p = np.ones(len(prow), dtype=bool)
        if len(prow):
            rp = rid[prow]
            first_p[1:] = rp[1:] != rp[:-1]  # the first player row of each round
        counts: list[tuple[str, npt.NDArray[np.int64] | None, list[str]]] = [("", None, [""])]
        if self.by:
            counts.append(("by", *self._group_codes(t)))
        for kind, code, keys in counts:
            self._count(part, kind, code, keys, sel, brows, prow, cats, dealt, rid, first_row,
                        first_p, winner, net, held)  # fmt: skip
        return part

    def _hands(
        self, arr: pa.Array
    ) -> tuple[
        npt.NDArray[np.uint8],
        npt.NDArray[np.bool_],
        dict[int, str],
        npt.NDArray[np.bool_],
        bool,
    ]:
        """Ids (n, max size; PAD after a short hand), malformed rows and messages, rows
        whose hand repeats an item (an impossible deal), and whether every row holds a
        full hand of items of the set."""
        spec = self.spec
        k, hs = spec.max_size, spec.hand_size
        n = len(arr)
        msgs: dict[int, str] = {}
        typ = arr.type
        if (pa.types.is_list(typ) or pa.types.is_large_list(typ)) and pa.types.is_integer(
            typ.value_type
        ):
            offsets = raw_values(arr.offsets)  # (np.asarray of Arrow imports pandas)
            lengths = np.diff(offsets)
            values = arr.values
            if pa.types.is_uint8(values.type) and not values.null_count:
                vals = raw_values(values)  # as is: every value is 0..255
            else:
                v = np.asarray(pc.fill_null(values, 254), dtype=np.int64)
                vals = np.where((v < 0) | (v > 255), 254, v).astype(np.uint8)
            bad: npt.NDArray[np.bool_]
            if not arr.null_count and (lengths == k).all():
                o = int(offsets[0])
                ids = vals[o : o + n * k].reshape(n, k)
                bad = np.zeros(n, dtype=bool)
            else:
                ok_len = np.isin(lengths, spec.sizes) & np.asarray(arr.is_valid())
                ids = np.full((n, k), PAD, dtype=np.uint8)
                starts = offsets[:-1]
                for j in range(k):
                    has = ok_len & (lengths > j)
                    ids[has, j] = vals[starts[has] + j]
                bad = ~ok_len
                for i in np.flatnonzero(bad)[:MAX_EXAMPLES].tolist():
                    want = " or ".join(map(str, spec.sizes))
                    got = "empty" if not arr[i].is_valid else f"{int(lengths[i])} items"
                    msgs[i] = f"hand: {got} (expected {want})"
        else:
            h = spec.parse(arr)
            ids = np.full((n, k), PAD, dtype=np.uint8)
            ids[:, : h.ids.shape[1]] = h.ids[:, :k]
            bad = h.bad | ~h.stated
            msgs = dict(h.messages)
            for i in np.flatnonzero(~h.stated)[:MAX_EXAMPLES].tolist():
                msgs.setdefault(i, "hand: empty")
        dup = np.zeros(n, dtype=bool)
        for i in list(msgs):
            if "duplicate" in msgs[i] or "too many copies" in msgs[i]:
                dup[i] = True
        # a readable hand that repeats an item: an impossible deal (its round's), not a
        # malformed row (a shoe's log audited with one deck's rules)
        maybe = np.flatnonzero(bad | dup)
        if len(maybe):  # (else no row is bad or repeats an item: nothing to sort out)
            whole = np.zeros(n, dtype=bool)  # every item of the set (where it counts)
            sub = ids[maybe]
            dealt_ok = self.real[sub[:, :hs]].all(axis=1)
            whole[maybe] = dealt_ok & self.in_deck[sub[:, hs:]].all(axis=1)
            cand = np.flatnonzero(bad & whole & ~dup)
            if len(cand):
                sub = ids[cand]
                real = sub != PAD
                r = np.broadcast_to(np.arange(len(cand))[:, None], sub.shape)[real]
                key = r * self.n_units + self.unit[sub[real]]
                per = np.bincount(key, minlength=len(cand) * self.n_units)
                over = (per.reshape(len(cand), self.n_units) > self.spec.copies).any(axis=1)
                dup[cand[over]] = True
            dup &= whole
            bad = bad & ~dup
        # no PAD, nothing off the deck
        plain = bool(ids.max(initial=0) < len(spec.deck) if self.dense else self.real[ids].all())
        if plain or (self.real[ids[:, :hs]].all() and self.in_deck[ids[:, hs:]].all()):
            return ids, bad, msgs, dup, plain
        off_deck = (~self.in_deck[ids]).any(axis=1) & ~bad
        off_deck |= (ids[:, :hs] == PAD).any(axis=1) & ~bad
        for i in np.flatnonzero(off_deck)[:MAX_EXAMPLES].tolist():
            msgs.setdefault(i, f"hand: an item outside the {spec.game} deck")
        return ids, bad | off_deck, msgs, dup, False

    def _impossible(
        self,
        ids: npt.NDArray[np.uint8],
        rid: npt.NDArray[np.int64],
        first_row: npt.NDArray[np.int64],
        good: npt.NDArray[np.bool_] | None,
        plain: bool,
    ) -> npt.NDArray[np.bool_]:
        """Rounds in which some unit is dealt more often than the set has it (among
        the rows that are not malformed: ``good``, None for all)."""
        n_rounds = len(first_row)
        if self.bitwise:  # the OR of a round's item bits has fewer bits than items
            cols = np.ascontiguousarray(ids.T)
            if plain:  # every id < 64: its bit by a shift (far cheaper than a gather)
                one = np.uint64(1)
                row_or = np.left_shift(one, cols[0], dtype=np.uint64)
                item = np.empty_like(row_or)
                for j in range(1, len(cols)):
                    row_or |= np.left_shift(one, cols[j], out=item, dtype=np.uint64)
            else:  # PAD (255) and ids past 63 have no bit
                row_or = self.bit[cols[0]]
                for j in range(1, len(cols)):
                    row_or |= self.bit[cols[j]]
            if good is not None:
                row_or[~good] = 0
            r_or = np.bitwise_or.reduceat(row_or, first_row)
            if plain and good is None:
                r_n = np.diff(first_row, append=len(ids)) * ids.shape[1]
            else:
                row_n = (ids != PAD).sum(axis=1)
                if good is not None:
                    row_n[~good] = 0
                r_n = np.add.reduceat(row_n, first_row)
            return np.asarray(np.bitwise_count(r_or) < r_n)
        real = ids != PAD
        if good is not None:
            real &= good[:, None]
        r = np.broadcast_to(rid[:, None], ids.shape)[real]
        u = self.unit[ids][real]
        counts = np.bincount(r * self.n_units + u, minlength=n_rounds * self.n_units)
        over = counts.reshape(n_rounds, self.n_units) > self.spec.copies[None, :]
        return np.asarray(over.any(axis=1))

    def _most_copies(
        self,
        ids: npt.NDArray[np.uint8],
        rid: npt.NDArray[np.int64],
        impossible: npt.NDArray[np.bool_],
        good: npt.NDArray[np.bool_] | None,
    ) -> int:
        """The most copies of one unit dealt in one of the ``impossible`` rounds."""
        rows = impossible[rid] if good is None else impossible[rid] & good
        sub = ids[rows]
        real = sub != PAD
        r = np.broadcast_to(np.unique(rid[rows], return_inverse=True)[1][:, None], sub.shape)
        key = r[real] * self.n_units + self.unit[sub[real]]
        return int(np.bincount(key).max(initial=0)) if len(key) else 0

    def _why_impossible(
        self, ids: npt.NDArray[np.uint8], first_row: npt.NDArray[np.int64], r: int
    ) -> str:
        end = int(first_row[r + 1]) if r + 1 < len(first_row) else len(ids)
        rows = ids[int(first_row[r]) : end]
        items = rows[rows != PAD].astype(np.int64)
        counts = np.bincount(self.unit[items], minlength=self.n_units)
        over = np.flatnonzero(counts > self.spec.copies)
        if not len(over):
            return "a hand repeats an item"
        u = int(over[0])
        name = self.spec.unit_names[u]
        have = int(self.spec.copies[u])
        return f"{name} dealt {int(counts[u])} times in one round (the set has {have})"

    def _group_codes(self, t: pa.Table) -> tuple[npt.NDArray[np.int64], list[str]]:
        parts = []
        for b in self.by:
            col = pc.cast(column(t, f"by:{b}"), pa.string())
            parts.append(pc.binary_join_element_wise(f"{b}=", pc.fill_null(col, ""), ""))
        key = parts[0] if len(parts) == 1 else pc.binary_join_element_wise(*parts, ",")
        enc = pc.dictionary_encode(key)
        return np.asarray(enc.indices, dtype=np.int64), [str(v) for v in enc.dictionary.to_pylist()]

    def _count(
        self,
        part: Partial,
        kind: str,
        code: npt.NDArray[np.int64] | None,
        keys: list[str],
        sel: npt.NDArray[np.int64] | None,
        brows: npt.NDArray[np.int64],
        prow: npt.NDArray[np.int64],
        cats: npt.NDArray[np.int64],
        dealt: npt.NDArray[np.uint8],
        rid: npt.NDArray[np.int64],
        first_row: npt.NDArray[np.int64],
        first_p: npt.NDArray[np.bool_],
        winner: npt.NDArray[np.int8] | None,
        net: npt.NDArray[np.float64] | None = None,
        held: npt.NDArray[np.float64] | None = None,
    ) -> None:
        """Add the counts of the audited rows (``sel``; None: all) per group (``code``
        per row; None: one group); ``net``: the re-settled net of every player row (the
        first player's per round is counted by amount); ``held``: the logged one (the
        hold check adds them up)."""
        spec = self.spec
        G, L, U = len(keys), len(spec.labels), self.n_units
        if G > MAX_GROUPS:
            raise TooManyGroups(f"more than {MAX_GROUPS:,} groups")
        n, n_rounds, hs = len(rid), len(first_row), spec.hand_size
        items = dealt.ravel() if self.identity else self.unit[dealt.ravel()]
        fp = prow[first_p]
        if code is None:
            banker = np.bincount(cats[brows], minlength=L)[None, :]
            player = np.bincount(cats[prow], minlength=L)[None, :]
            rows = np.array([len(dealt)])
            unit = byte_counts(items, U)[None, :]
            if sel is None:
                per = np.diff(first_row, append=n) * hs
            else:
                per = np.bincount(rid[sel], minlength=n_rounds) * hs
            oc = None if winner is None else winner[first_p].astype(np.int64)
        else:
            kc = code if sel is None else code[sel]
            banker = np.bincount(code[brows] * L + cats[brows], minlength=G * L).reshape(G, L)
            player = np.bincount(code[prow] * L + cats[prow], minlength=G * L).reshape(G, L)
            rows = np.bincount(kc, minlength=G)
            uc = np.repeat(kc, hs) * U + items
            unit = np.bincount(uc, minlength=G * U).reshape(G, U)
            oc = None if winner is None else code[fp] * 3 + winner[first_p].astype(np.int64)
        m_sum: npt.NDArray[np.int64] | list[int]
        m_sq: npt.NDArray[np.int64] | list[int]
        rounds: npt.NDArray[np.int64] | list[int]
        if code is None:
            m_sum, m_sq = [int(per.sum())], [int((per.astype(np.int64) ** 2).sum())]
            rounds = [int((per > 0).sum())]
        else:  # seats per (round, group): only the pairs that occur (a group per row is fine)
            pairs, seats = np.unique((rid if sel is None else rid[sel]) * G + kc,
                                     return_counts=True)  # fmt: skip
            gu, items_n = pairs % G, (seats * hs).astype(np.float64)
            m_sum = np.bincount(gu, weights=items_n, minlength=G).astype(np.int64)
            m_sq = np.bincount(gu, weights=items_n**2, minlength=G).astype(np.int64)
            rounds = np.bincount(gu, minlength=G).astype(np.int64)
        hold = held_counts(held, rid[prow], None if code is None else code[prow], G)
        outcome = np.zeros((G, 3), dtype=np.int64)
        if oc is not None and len(prow):
            outcome = np.bincount(oc, minlength=G * 3).reshape(G, 3)
        nets = net_counts(None if net is None else net[first_p], None if code is None else code[fp],
                          G)  # fmt: skip
        for g, key in enumerate(keys):
            name = key if kind == "by" else ""
            if kind == "by" and not rows[g]:
                continue
            gc = GroupCounts(L, U, int(rows[g]), int(rounds[g]), banker[g].astype(np.int64),
                             player[g].astype(np.int64), unit[g].astype(np.int64),
                             outcome[g].astype(np.int64), int(m_sum[g]), int(m_sq[g]),
                             nets[g], *hold[g])  # fmt: skip
            if name in part.groups:
                part.groups[name].add(gc)
            else:
                part.groups[name] = gc
