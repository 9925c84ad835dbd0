"""The banker's worst round at a full table, exactly: a branch-and-bound packing, game-blind.

For a banker hand B each player's net against B depends on the player's own hand only,
so the worst round for B is a *packing*: N disjoint hands from what B leaves, of the
largest total net. The search runs on two levels.

* **Kinds.** A game maps its items to *kinds* (Niu Niu: ranks, the faces merged when no
  category tells them apart; Tau Ngau: the 21 tile types; Pok Deng: ranks) and its hands
  to *types*: a count of each kind (and whatever else the game keeps apart, e.g. one
  suit). A type's *weight* against a banker type is the largest net any hand of the type
  can take against any banker hand of that type: an upper bound, exact where the kinds
  say everything. :class:`Packer` finds the multisets of N types that fit in the kinds
  left and could beat the best round found so far.
* **Items.** Each such multiset is *realized*: concrete, disjoint hands of those types
  and a concrete banker hand, with their exact nets (:meth:`Realizer.best`). Its value
  is exact, and no realization is worth more than its weights, so the whole search is
  an exact branch and bound.

:func:`worst_round` runs it for every banker type, the groups of banker types with the
largest bound first, and stops when no banker type can beat the best round found: the
result is the exact worst round, with the deal that reaches it.

The concrete hands, and the packed counts both levels use, are in
:mod:`solver.kit.realize`.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from solver.kit.realize import FIELD, NODES, UNUSABLE, Deal, Kinds, SearchTooLong

__all__ = [
    "Leaf",
    "PackResult",
    "Packer",
    "WorstDeal",
    "WorstSearch",
    "encode_rows",
    "pack",
    "worst_round",
]

PATIENCE = 3
"""How many hard multisets (past :data:`LEAF_NODES`) a banker type's first search meets
before it waits for the others: a banker type whose multisets rarely come true (the
suits do not allow them) is searched last, when the best round found bounds it best."""

LEAF_NODES = 2_000
"""The nodes a multiset of types first gets to be realized; one that needs more waits
until the rest of the search is done, and is taken up again only if it can still beat
the best round found (usually another multiset reaches its bound first)."""

SMALL_CLASS = 400
"""A class of types this small has its exact capacity searched (:meth:`Packer.capacity`):
the scarce hands (five faces, straight flushes, Tongs) come in small classes."""


class _Later(Exception):
    """A banker type whose search meets many hard multisets: searched after the rest."""


Leaf = Callable[[tuple[int, ...], int], "tuple[int, object] | None"]
"""Realize a multiset of types (their indices): the exact value and the deal, if the
value is above the floor (the second argument), else ``None``."""


@dataclass
class PackResult:
    """What a search found: the best exact value above its floor (or ``None``) and the
    deal; how many nodes and leaves it visited (summed over runs that share it)."""

    value: int | None = None
    deal: object = None
    nodes: int = 0
    leaves: int = 0
    budget: int = NODES


def _covers(counts: npt.NDArray[np.int64]) -> list[tuple[list[int], int]]:
    """Sets of kinds S with the least number a of them that every type of a class holds
    (sum over S of its counts): no more than (the kinds of S left) // a hands of the
    class fit. Each kind every type needs, and a few kinds that together meet every
    type (chosen greedily, the scarcest first)."""
    if not len(counts):
        return []
    out = [([r], int(m)) for r, m in enumerate(counts.min(axis=0).tolist()) if m]
    open_ = np.ones(len(counts), dtype=bool)
    chosen: list[int] = []
    while open_.any():
        hit = (counts[open_] > 0).sum(axis=0)
        r = int(np.argmax(hit))
        if hit[r] == 0:
            break
        chosen.append(r)
        open_ &= counts[:, r] == 0
    if chosen and not open_.any() and len(chosen) > 1:
        out.append((sorted(chosen), int(counts[:, chosen].sum(axis=1).min())))
    return out


class Packer:
    """The kind-level search for one weight of each type, set up once and run for many
    supplies (the banker types of one group).

    Types of one weight form a *class*. The search decides, class by class from the
    highest weight, how many hands the class gives (most first), then which types (in a
    fixed order, so each multiset is met once). The bound on what the classes from c on
    add to k hands: each class in turn gives as many as it can on its own — each type as
    often as it fits, no more than the kinds every type of the class needs allow, no
    more than fit together at the start (:meth:`capacity`) — and the k best count."""

    def __init__(
        self,
        weights: npt.NDArray[np.int64],
        counts: npt.NDArray[np.int64],
        kinds: Kinds,
        encoded: Sequence[int],
    ) -> None:
        w = np.asarray(weights, dtype=np.int64)
        order = np.argsort(-w, kind="stable")
        order = order[w[order] > UNUSABLE // 2]  # hands no deal holds are not offered
        ws = w[order]
        cnt = np.asarray(counts, dtype=np.int64)[order]
        n = len(ws)
        self.kinds = kinds
        self.needs = [encoded[j] for j in order.tolist()]
        self.back = order.tolist()
        cut = (np.nonzero(ws[1:] != ws[:-1])[0] + 1).tolist() if n else []
        self.starts = [0, *cut, n] if n else [0]
        ncls = len(self.starts) - 1
        self.value_of = [int(ws[self.starts[c]]) for c in range(ncls)]
        self.covers = [_covers(cnt[self.starts[c] : self.starts[c + 1]]) for c in range(ncls)]
        self.shift = [FIELD * r for r in range(kinds.n)]
        self._root, self._most = 0, 0
        self._limit = [1 << 30] * ncls
        self._capacity: dict[tuple[int, int, int], int] = {}
        full = [((1 << FIELD) - 1) << (FIELD * r) for r in range(kinds.n)]
        self.uses = [
            sum(full[r] for r in np.nonzero(cnt[a:b].max(axis=0))[0].tolist()) if b > a else 0
            for a, b in zip(self.starts[:-1], self.starts[1:], strict=True)
        ]

    def cap(self, c: int, i: int, left: int, most: int) -> int:
        """How many hands, at most ``most``, class c can give from its types i on
        (each type as often as it fits on its own; within :meth:`limit`)."""
        return self.count(c, i, left, min(most, self.limit(c)))

    def count(self, c: int, i: int, left: int, most: int) -> int:
        """:meth:`cap` without :meth:`limit`."""
        low = (1 << (FIELD - 1)) - 1
        shift = self.shift
        for kinds_in, m in self.covers[c]:
            most = min(most, sum((left >> shift[r]) & low for r in kinds_in) // m)
        got = 0
        j = i
        end = self.starts[c + 1]
        needs, copies = self.needs, self.kinds.copies
        while got < most and j < end:
            got += copies(left, needs[j], most - got)
            j += 1
        return got

    def limit(self, c: int) -> int:
        """How many hands of class c fit together in the supply the search started
        from (:meth:`capacity`, found on first use): a bound for every supply inside."""
        got = self._limit[c]
        if got < 0:
            self._limit[c] = 1 << 30
            got = self._limit[c] = self.capacity(c, self._root, self._most)
        return got

    def start(self, left: int, most: int) -> None:
        """Start from ``left`` (a supply), for at most ``most`` hands."""
        self._root, self._most = left, most
        self._limit = [-1] * len(self.value_of)

    def capacity(self, c: int, left: int, most: int, budget: int = 4_000) -> int:
        """How many hands of class c fit in ``left`` together, at most ``most``: exact
        (a search) for a class of at most :data:`SMALL_CLASS` types, else (or when that
        search passes ``budget`` steps) :meth:`cap`'s count."""
        first = self.count(c, self.starts[c], left, most)
        if first <= 1 or self.starts[c + 1] - self.starts[c] > SMALL_CLASS:
            return first
        memo = (c, left & self.uses[c], first)  # only the kinds the class uses count
        got = self._capacity.get(memo)
        if got is None:
            got = self._capacity[memo] = self._search_capacity(c, left, first, budget)
        return got

    def _search_capacity(self, c: int, left: int, first: int, budget: int) -> int:
        """:meth:`capacity` by search: at most ``first``."""
        needs, fits, count = self.needs, self.kinds.fits, self.count
        end = self.starts[c + 1]
        got, rest = 0, left
        for j in range(self.starts[c], end):  # greedily first: usually enough
            while got < first and fits(rest, needs[j]):
                rest -= needs[j]
                got += 1
        if got >= first:
            return first
        steps = [0]
        best = [got]

        def dfs(i: int, m: int, left: int) -> bool:
            best[0] = max(best[0], m)
            if best[0] >= first:
                return True
            if m + count(c, i, left, first - m) <= best[0]:
                return False  # the types from i on cannot seat more
            for j in range(i, end):
                steps[0] += 1
                if steps[0] > budget:
                    raise SearchTooLong
                if fits(left, needs[j]) and dfs(j, m + 1, left - needs[j]):
                    return True
            return False

        try:
            dfs(self.starts[c], 0, left)
        except SearchTooLong:
            return first
        return best[0]

    def bound(self, left: int, k: int, c: int = 0) -> int | None:
        """What the classes from c on can add to k hands at most; ``None`` when k hands
        do not fit at all."""
        total = 0
        ncls = len(self.value_of)
        while k and c < ncls:
            m = self.cap(c, self.starts[c], left, k)
            total += m * self.value_of[c]
            k -= m
            c += 1
        return None if k else total

    def root_bound(self, left: int, k: int) -> int | None:
        """:meth:`bound` when the search starts from ``left``: each class within what
        fits of it together (finer; the start set by :meth:`start` is kept)."""
        saved = (self._root, self._most, self._limit)
        self.start(left, k)
        try:
            return self.bound(left, k)
        finally:
            self._root, self._most, self._limit = saved

    def run(
        self,
        left: int,
        players: int,
        floor: int,
        leaf: Leaf,
        result: PackResult | None = None,
    ) -> PackResult:
        """The best multiset of ``players`` types that fits in ``left`` (a supply) and
        whose realization (``leaf``, given the types' original indices) is worth more
        than ``floor``. Every multiset whose weights could beat the best found is
        realized. Raises :class:`SearchTooLong` past the result's budget of nodes."""
        res = result if result is not None else PackResult()
        saved = (self._root, self._most, self._limit)
        self.start(left, players)
        try:
            self._run(left, players, floor, leaf, res)
        finally:
            self._root, self._most, self._limit = saved
        return res

    def _run(self, left: int, players: int, floor: int, leaf: Leaf, res: PackResult) -> None:
        """:meth:`run`'s search."""
        best = [floor]
        chosen: list[int] = []
        fits = self.kinds.fits
        needs, starts, value_of, back = self.needs, self.starts, self.value_of, self.back
        cap, bound = self.cap, self.bound
        ncls = len(value_of)
        ceiling = bound(left, players)
        if ceiling is None or ceiling <= floor:
            return

        class Done(Exception):
            """The best found reaches the bound at the start: nothing can beat it."""

        def after(c: int) -> int:
            """The most one hand of a class after c can add."""
            return value_of[c + 1] if c + 1 < ncls else 0

        def pick(c: int, i: int, m: int, k: int, left: int, value: int) -> None:
            """Choose m more hands of class c from its types i on, then go on with the
            classes after c for the k hands left after them."""
            if m == 0:
                classes(c + 1, k, left, value)
                return
            v = value_of[c]
            if value + m * v + k * after(c) <= best[0]:
                return  # whichever types: no better than the best found
            for j in range(i, starts[c + 1]):
                need = needs[j]
                if not fits(left, need):
                    continue
                rest = left - need
                b = bound(rest, k, c + 1)
                if b is None or value + m * v + b <= best[0]:
                    continue
                if m > 1 and cap(c, j, rest, m - 1) < m - 1:
                    continue
                chosen.append(j)
                pick(c, j, m - 1, k, rest, value + v)
                chosen.pop()
                if value + m * v + k * after(c) <= best[0]:
                    return

        def classes(c: int, k: int, left: int, value: int) -> None:
            res.nodes += 1
            if res.nodes > res.budget:
                raise SearchTooLong(f"more than {res.budget:,} nodes")
            if k == 0:
                res.leaves += 1
                got = leaf(tuple(back[j] for j in chosen), best[0])
                if got is not None and got[0] > best[0]:
                    best[0] = got[0]
                    res.value, res.deal = got
                    if best[0] >= ceiling:
                        raise Done
                return
            if c >= ncls:
                return
            v = value_of[c]
            for m in range(cap(c, starts[c], left, k), -1, -1):
                if value + m * v + (k - m) * after(c) <= best[0]:
                    break  # the bound only falls with m
                b = bound(left, k - m, c + 1)
                if b is None:
                    break  # fewer hands of class c leave more than the rest can seat
                if value + m * v + b <= best[0]:
                    break
                pick(c, starts[c], m, k - m, left, value)

        with contextlib.suppress(Done):
            classes(0, players, left, 0)


def pack(
    weights: Sequence[int],
    counts: Sequence[Sequence[int]] | npt.NDArray[np.int64],
    left: Sequence[int],
    players: int,
    floor: int,
    leaf: Leaf,
) -> PackResult:
    """:meth:`Packer.run` once: the best multiset of ``players`` types (``weights``,
    ``counts`` their kind counts) from ``left`` (a count of each kind) whose realization
    (``leaf``) beats ``floor``.

    >>> w, c = [3, 2, 1], [[2, 0], [1, 1], [0, 1]]
    >>> r = pack(w, c, [2, 2], 2, -1, lambda types, lo: (sum(w[t] for t in types), types))
    >>> r.value, r.deal  # 3 + 1 (types 0 and 2) or 2 + 2 (type 1 twice)
    (4, (0, 2))
    """
    kinds = Kinds(len(left))
    arr = np.asarray(counts, dtype=np.int64)
    enc = encode_rows(kinds, arr)
    p = Packer(np.asarray(weights, dtype=np.int64), arr, kinds, enc)
    return p.run(kinds.supply(left), players, floor, leaf)


def encode_rows(kinds: Kinds, counts: npt.ArrayLike) -> list[int]:
    """``[kinds.encode(row) for row in counts]``, a whole column of kinds at a time:
    the fields of a few kinds fit in one 64-bit integer, and only the blocks are joined
    per row (the worst round encodes every player type and, per banker type, what it
    leaves: a Python loop per count cost seconds).

    >>> k = Kinds(9)
    >>> rows = [[1, 2, 3, 4, 5, 6, 7, 8, 127], [0] * 9]
    >>> encode_rows(k, rows) == [k.encode(r) for r in rows]
    True
    >>> encode_rows(k, [[0] * 8 + [128]])
    Traceback (most recent call last):
    ...
    ValueError: a kind count of 128 does not fit in 7 bits
    """
    arr = np.asarray(counts, dtype=np.int64)
    if arr.ndim != 2:
        arr = arr.reshape(len(arr), -1)
    if not arr.shape[0]:
        return []
    wrong = (arr < 0) | (arr >= 1 << (FIELD - 1))
    if wrong.any():
        raise ValueError(f"a kind count of {int(arr[wrong][0])} does not fit in {FIELD - 1} bits")
    per = 63 // FIELD  # kinds per 64-bit block (the sign bit left alone)
    out: list[int] | None = None
    for j in range(0, arr.shape[1], per):
        block = arr[:, j : j + per]
        shifts = np.arange(block.shape[1], dtype=np.int64) * FIELD
        part = (block << shifts).sum(axis=1).tolist()  # the fields do not overlap
        if out is None:
            out = part
        else:
            at = FIELD * j
            out = [a | (b << at) for a, b in zip(out, part, strict=True)]
    return out if out is not None else [0] * arr.shape[0]


@dataclass(frozen=True)
class WorstDeal:
    """The worst round: ``amount`` (the banker's loss, in 1/step stakes), the banker's
    hand and each player's (indices into the game's hand array), each player's net; and
    how much searching it took."""

    amount: int
    banker: int
    players: tuple[int, ...]
    nets: tuple[int, ...]
    bankers: int = 0
    nodes: int = 0
    leaves: int = 0
    seconds: float = 0.0


@dataclass
class WorstSearch:
    """A game's worst-round problem (see the module docstring).

    ``supply`` (K,): copies of each kind in the deck; ``player_kinds`` (T, K) and
    ``banker_kinds`` (B, K): each player and banker type's kind counts; ``groups``: the
    banker types in groups, ``group_weights(g)`` each player type's weight against every
    banker type of group g (an upper bound of the net of any of its hands, or
    :data:`UNUSABLE`); ``weights(b)``: banker type b's own, finer weights (``None``: the
    group's); ``realize(b, types, floor, target, budget)``: the best exact deal of banker
    type b and one hand of each player type above ``floor`` (:meth:`Realizer.best`)."""

    supply: npt.NDArray[np.int64]
    player_kinds: npt.NDArray[np.int64]
    banker_kinds: npt.NDArray[np.int64]
    groups: Sequence[npt.NDArray[np.int64]]
    group_weights: Callable[[int], npt.NDArray[np.int64]]
    weights: Callable[[int], npt.NDArray[np.int64] | None]
    realize: Callable[[int, tuple[int, ...], int, int, list[int]], Deal | None]
    cache: (
        tuple[
            Kinds, list[int], list[int], dict[int, Packer], dict[int, tuple[list[int], list[int]]]
        ]
        | None
    ) = None
    """What :func:`worst_round` keeps between table sizes (its encodings and searches;
    per group of banker types, those the deck holds and what each leaves)."""


def worst_round(
    search: WorstSearch,
    players: int,
    budget: int = NODES,
    progress: Callable[[int, int], object] | None = None,
) -> WorstDeal:
    """The exact worst round for the banker at ``players`` players (see the module
    docstring): every banker type whose bound can beat the best found is searched.
    Raises :class:`SearchTooLong` past ``budget`` nodes, ``ValueError`` when no deal
    seats that many players."""
    t0 = time.perf_counter()
    if search.cache is None:
        kinds = Kinds(len(search.supply))
        penc = encode_rows(kinds, search.player_kinds)
        tops = [int(np.max(search.group_weights(g))) for g in range(len(search.groups))]
        search.cache = (kinds, penc, tops, {}, {})
    kinds, penc, tops, made, rests = search.cache
    full = kinds.supply(search.supply)
    best: Deal | None = None
    floor = -(1 << 62)
    res = PackResult(budget=budget)
    spend = [budget]
    deferred: list[tuple[int, int, tuple[int, ...]]] = []
    searched = 0
    total = sum(len(g) for g in search.groups)
    done = 0
    later: list[tuple[int, int, int, int]] = []

    def run(
        g: int, b: int, left: int, p: Packer, floor: int, best: Deal | None, patience: int | None
    ) -> tuple[int, Deal | None]:
        """Search banker type b (group g) from ``left``: the floor and best deal after.
        With a ``patience``, give up (:class:`_Later`) after that many hard leaves."""
        own = search.weights(b)
        q = p if own is None else Packer(own, search.player_kinds, kinds, penc)
        w = np.asarray(search.group_weights(g) if own is None else own, dtype=np.int64)
        mine: list[tuple[int, int, tuple[int, ...]]] = []

        def leaf(chosen: tuple[int, ...], lo: int) -> tuple[int, object] | None:
            target = int(sum(int(w[t]) for t in chosen))
            quick = [LEAF_NODES]
            try:
                got = search.realize(b, chosen, lo, target, quick)
            except SearchTooLong:  # a hard one: later, if it can still matter
                mine.append((target, b, chosen))
                if patience is not None and len(mine) > patience:
                    raise _Later from None
                got = None
            spend[0] -= LEAF_NODES - quick[0]
            if got is not None and got[0] > target:
                raise AssertionError("a deal is worth more than its types' weights")
            return None if got is None else (got[0], got)

        found = PackResult(budget=res.budget - res.nodes)
        try:
            q.run(left, players, floor, leaf, found)
        finally:
            res.nodes += found.nodes
            res.leaves += found.leaves
        deferred.extend(mine)
        if found.value is not None and found.value > floor:
            return found.value, found.deal  # type: ignore[return-value]
        return floor, best

    for g in sorted(range(len(search.groups)), key=lambda g: -tops[g]):
        if players * tops[g] <= floor:
            break
        p = made.get(g)
        if p is None:
            p = made[g] = Packer(search.group_weights(g), search.player_kinds, kinds, penc)
        p.start(full, players)  # each class's room in the whole deck bounds every banker's
        top = p.bound(full, players)
        if top is None or top <= floor:
            continue
        if g not in rests:  # each banker type the deck holds, and what it leaves
            bs = np.asarray(search.groups[g], dtype=np.int64)
            rest = search.supply[None, :] - search.banker_kinds[bs]
            held = ~(rest < 0).any(axis=1)
            guard = kinds.guard
            rests[g] = (bs[held].tolist(), [e | guard for e in encode_rows(kinds, rest[held])])
        members = []
        for b, left in zip(*rests[g], strict=True):
            mb = p.bound(left, players)
            if mb is not None and mb > floor:
                members.append((mb, b, left))
        members.sort(key=lambda x: -x[0])
        for mb, b, left in members:
            done += 1
            if progress is not None and done % 1000 == 0:
                progress(done, total)
            if mb <= floor:
                break
            fine = p.root_bound(left, players)
            if fine is None or fine <= floor:
                continue
            searched += 1
            try:
                floor, best = run(g, b, left, p, floor, best, PATIENCE)
            except _Later:  # many hard leaves: after the bankers that go smoothly
                later.append((fine, g, b, left))
    later.sort(key=lambda x: -x[0])
    for fine, g, b, left in later:
        if fine <= floor:
            break
        floor, best = run(g, b, left, made[g], floor, best, None)
    deferred.sort(key=lambda x: -x[0])
    for target, b, chosen in deferred:  # the leaves that ran past LEAF_NODES
        if target <= floor:
            break
        if spend[0] < 0:
            raise SearchTooLong(f"more than {budget:,} nodes")
        got = search.realize(b, chosen, floor, target, spend)
        if got is not None and got[0] > floor:
            floor, best = got[0], got
    if best is None:
        raise ValueError(f"no deal seats {players} players and a banker")
    amount, banker, hands, nets = best
    return WorstDeal(
        amount=int(amount),
        banker=int(banker),
        players=tuple(int(h) for h in hands),
        nets=tuple(int(x) for x in nets),
        bankers=searched,
        nodes=res.nodes,
        leaves=res.leaves,
        seconds=time.perf_counter() - t0,
    )
