"""Concrete hands for the worst-round search (:mod:`solver.kit.packing`): packed counts,
and the disjoint hands that realize a multiset of types.

Kind counts are packed into Python integers, one field of :data:`FIELD` bits per kind
with a guard bit on top, so "does this hand fit in what is left" is one subtraction and
one mask (a field's guard is borrowed exactly when the field would go negative).

>>> enc = Kinds(2)
>>> left = enc.supply([3, 1])
>>> enc.fits(left, enc.encode([2, 1])), enc.fits(left, enc.encode([0, 2]))
(True, False)
>>> enc.copies(left, enc.encode([1, 0]), 5)
3
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np
import numpy.typing as npt

__all__ = [
    "FIELD",
    "NODES",
    "UNUSABLE",
    "Deal",
    "Kinds",
    "Realizer",
    "SearchTooLong",
    "assign",
]

FIELD = 8
"""Bits per kind in a packed count (7 for the count, 1 guard): counts up to 127."""

UNUSABLE = -(1 << 40)
"""A net that marks a hand the deal cannot hold (e.g. a draw the strategy never makes)."""

NODES = 3_000_000
"""The most nodes :func:`worst_round` visits (kinds and items together) before it gives up."""


class SearchTooLong(RuntimeError):
    """The search went past its budget of nodes: no exact answer."""


class Kinds:
    """Packed kind counts (see the module docstring)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.guard = sum(1 << (FIELD * i + FIELD - 1) for i in range(n))

    def encode(self, counts: Iterable[int] | npt.NDArray[np.integer]) -> int:
        """A count of each kind as one integer (no guard bits)."""
        out = 0
        for i, c in enumerate(counts):
            c = int(c)
            if not 0 <= c < 1 << (FIELD - 1):
                raise ValueError(f"a kind count of {c} does not fit in {FIELD - 1} bits")
            out |= c << (FIELD * i)
        return out

    def supply(self, counts: Iterable[int] | npt.NDArray[np.integer]) -> int:
        """What is left: the counts with every guard bit set."""
        return self.encode(counts) | self.guard

    def fits(self, left: int, need: int) -> bool:
        """Whether ``need`` (encoded) fits in ``left`` (a supply)."""
        return ((left - need) & self.guard) == self.guard

    def copies(self, left: int, need: int, most: int) -> int:
        """How many times ``need`` fits in ``left``, at most ``most``."""
        m = 0
        g = self.guard
        while m < most and ((left - (m + 1) * need) & g) == g:
            m += 1
        return m

    def decode(self, packed: int) -> list[int]:
        """The counts of an encoded (or supply) integer, guards dropped."""
        mask = (1 << (FIELD - 1)) - 1
        return [(packed >> (FIELD * i)) & mask for i in range(self.n)]


def assign(
    groups: Sequence[tuple[Sequence[int], Sequence[int], int]],
    left: int,
    kinds: Kinds,
    floor: int,
    target: int,
    budget: list[int] | None = None,
) -> tuple[int, tuple[tuple[int, ...], ...]] | None:
    """Concrete hands for a multiset of types: group g offers hands (their encoded item
    counts ``groups[g][0]`` and nets ``groups[g][1]``, nets descending) and needs
    ``groups[g][2]`` of them. The disjoint choice (all fitting in ``left``) with the
    largest total above ``floor`` — stopping at ``target``, which no choice beats — as
    (total, the indices chosen in each group), or ``None``.

    A depth-first search that keeps, for each group, the hands that still fit (a group
    takes its hands in index order, so permutations are met once), fills the group with
    the fewest first, and drops a branch where a group runs dry or the best nets left
    cannot beat the best found. ``budget``: a one-item list of nodes left, spent here;
    :class:`SearchTooLong` when it runs out.

    >>> k = Kinds(3)  # items A, B, C, one of each
    >>> groups = [([k.encode([1, 1, 0]), k.encode([1, 0, 1])], [5, 4], 1),  # AB, AC
    ...           ([k.encode([0, 1, 1]), k.encode([0, 0, 1])], [3, 1], 1)]  # BC, C
    >>> assign(groups, k.supply([1, 1, 1]), k, -1, 8)  # AB + BC would share B
    (6, ((0,), (1,)))
    """
    fits = kinds.fits
    spend = budget if budget is not None else [NODES]
    n = len(groups)
    best = [floor]
    found: list[tuple[tuple[int, ...], ...] | None] = [None]
    chosen: list[list[int]] = [[] for _ in range(n)]
    whole = (1 << FIELD) - 1
    uses = []  # the fields a group's hands use: nothing else matters to it
    for grp in groups:
        union = 0
        for e in grp[0]:
            union |= e
        uses.append(sum(whole << (FIELD * i) for i, c in enumerate(kinds.decode(union)) if c))
    most: dict[tuple[int, tuple[int, ...], tuple[int, ...]], int] = {}

    def dfs(domains: list[list[int]], need: list[int], left: int, value: int) -> bool:
        """Fill the groups' needs from their ``domains``; True: ``target`` reached."""
        spend[0] -= 1
        if spend[0] < 0:
            raise SearchTooLong("the realization search ran out of nodes")
        top = value
        pick_g, size = -1, 1 << 60
        mask = 0
        for g in range(n):
            if need[g]:
                d = domains[g]
                if not d:
                    return False
                top += need[g] * groups[g][1][d[0]]
                mask |= uses[g]
                if len(d) < size:
                    pick_g, size = g, len(d)
        if pick_g < 0:
            if value > best[0]:
                best[0] = value
                found[0] = tuple(tuple(c) for c in chosen)
            return value >= target
        if top <= best[0]:
            return False
        # what the rest can add depends only on what is left of the cards the groups
        # still to fill use, what they need and where they resume: a state met before
        # (e.g. after choices that differ only in cards no one else wants) is known
        key = (
            left & mask,
            tuple(need),
            tuple(chosen[g][-1] if need[g] and chosen[g] else -1 for g in range(n)),
        )
        known = most.get(key)
        if known is not None and value + known <= best[0]:
            return False
        g = pick_g
        needs, nets = groups[g][0], groups[g][1]
        head = nets[domains[g][0]]
        for pos, j in enumerate(domains[g]):
            if top - head + nets[j] <= best[0]:
                break  # nets descending: nothing further on does better
            rest = left - needs[j]
            nd = [
                [x for x in domains[h] if fits(rest, groups[h][0][x])] if need[h] else []
                for h in range(n)
            ]
            nd[g] = [x for x in domains[g][pos:] if fits(rest, needs[x])]
            need[g] -= 1
            chosen[g].append(j)
            done = dfs(nd, need, rest, value + nets[j])
            chosen[g].pop()
            need[g] += 1
            if done:
                return True
        gain = best[0] - value  # every way on from here is worth no more
        most[key] = gain if known is None else min(known, gain)
        return False

    start = [[j for j, e in enumerate(grp[0]) if fits(left, e)] for grp in groups]
    dfs(start, [grp[2] for grp in groups], left, 0)
    got = found[0]
    return None if got is None else (best[0], got)


Deal = tuple[int, int, tuple[int, ...], tuple[int, ...]]
"""A realized deal: (total, banker hand, player hands, their nets) — hands as indices
into the game's hand array."""


class Realizer:
    """Concrete hands grouped by type, to realize the multisets :class:`Packer` reaches.

    ``hands`` (H, S): every hand's item ids (``pad`` where a hand is shorter);
    ``type_of`` (H,): its type; ``copies``: how many of each item the deck holds."""

    def __init__(
        self,
        hands: npt.NDArray[np.integer],
        type_of: npt.NDArray[np.integer],
        types: int,
        copies: Sequence[int] | npt.NDArray[np.integer],
        pad: int = 255,
    ) -> None:
        self.hands = np.asarray(hands)
        tid = np.asarray(type_of, dtype=np.int64)
        self.order = np.argsort(tid, kind="stable")
        self.starts = np.searchsorted(tid[self.order], np.arange(types + 1))
        self.kinds = Kinds(len(copies))
        self.copies = np.asarray(copies, dtype=np.int64)
        self.full = self.kinds.supply(copies)
        self.single = int(np.max(copies, initial=0)) <= 1
        self.pad = pad
        # how many times each hand holds each of its cards, for the test "fits"
        self._ids = np.where(self.hands == pad, len(copies), self.hands).astype(np.int64)
        self._times = np.stack(
            [
                (self.hands == self.hands[:, j : j + 1]).sum(axis=1)
                for j in range(self.hands.shape[1])
            ],
            axis=1,
        )
        self._item = [1 << (FIELD * i) for i in range(len(copies))]
        self._enc: dict[int, int] = {}

    def members(self, t: int) -> npt.NDArray[np.int64]:
        """The hands (indices) of type t."""
        return self.order[self.starts[t] : self.starts[t + 1]]

    def encode(self, h: int) -> int:
        """Hand h's item counts, encoded."""
        e = self._enc.get(h)
        if e is None:
            item, pad = self._item, self.pad
            e = self._enc[h] = sum(item[c] for c in self.hands[h].tolist() if c != pad)
        return e

    def items(self, h: int) -> tuple[int, ...]:
        """Hand h's item ids."""
        return tuple(int(c) for c in self.hands[h].tolist() if c != self.pad)

    def fitting(
        self, pm: npt.NDArray[np.int64], left: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.bool_]:
        """Which hands ``pm`` fit in ``left`` (a count of each item)."""
        room = np.append(left, 1 << 20)[self._ids[pm]]  # a pad always fits
        return np.asarray((self._times[pm] <= room).all(axis=1))

    def best(
        self,
        bankers: Iterable[int],
        types: tuple[int, ...],
        nets: Callable[[int, npt.NDArray[np.int64]], npt.NDArray[np.int64]],
        floor: int,
        target: int,
        budget: list[int],
    ) -> Deal | None:
        """The best deal above ``floor``: a banker hand from ``bankers`` (tried in that
        order) and one hand of each of ``types``, all disjoint, with ``nets(banker,
        hands)`` their exact nets (:data:`UNUSABLE`: a hand the deal cannot hold).
        Stops at ``target``, which no deal beats."""
        fits = self.kinds.fits
        wanted = sorted(set(types))
        need = [types.count(t) for t in wanted]
        tries: list[tuple[int, int, int]] = []
        for bh in bankers:  # what each banker hand leaves the types, at most
            left = self.copies.copy()
            np.subtract.at(left, [c for c in self.hands[bh].tolist() if c != self.pad], 1)
            if (left < 0).any():
                continue
            top = 0
            for t, m in zip(wanted, need, strict=True):
                pm = self.members(t)
                v = np.asarray(nets(bh, pm), dtype=np.int64)
                v = v[(v > UNUSABLE // 2) & self.fitting(pm, left)]
                if len(v) < (m if self.single else 1):
                    top = UNUSABLE  # too few hands of the type are left
                    break
                # one deck: m different hands; a shoe may deal one hand again
                top += int(np.sort(v)[-m:].sum()) if self.single else m * int(v.max())
            tries.append((top, len(tries), bh))
        tries.sort(key=lambda x: (-x[0], x[1]))  # the banker hands that could do most first
        best: Deal | None = None
        for top, _, bh in tries:
            if top <= floor:
                break
            left_enc = self.full - self.encode(bh)
            offer: list[tuple[list[int], list[int], list[int]]] = []
            for t in wanted:
                pm = self.members(t)
                v = np.asarray(nets(bh, pm), dtype=np.int64)
                keep = v > UNUSABLE // 2
                pm, v = pm[keep], v[keep]
                o = np.argsort(-v, kind="stable")
                hs, vs = pm[o].tolist(), v[o].tolist()
                enc = [self.encode(h) for h in hs]
                ok = [i for i, e in enumerate(enc) if fits(left_enc, e)]
                offer.append(([enc[i] for i in ok], [vs[i] for i in ok], [hs[i] for i in ok]))
            groups = [(e, v, m) for (e, v, _), m in zip(offer, need, strict=True)]
            got = assign(groups, left_enc, self.kinds, floor, target, budget)
            if got is None:
                continue
            total, picks = got
            floor = total
            chosen = tuple(offer[g][2][j] for g, js in enumerate(picks) for j in js)
            values = tuple(offer[g][1][j] for g, js in enumerate(picks) for j in js)
            best = (total, bh, chosen, values)
            if total >= target:
                break
        return best
