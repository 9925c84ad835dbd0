"""The counting core of exact odds: for every hand, how many hands disjoint from it are
weaker, equally strong and stronger (and the stronger ones' summed weights), by
inclusion-exclusion over the cards two hands can share (:mod:`solver.kit.exact`
explains the identity)::

    #{B : B ∩ P = ∅, s(B) < s(P)} = Σ_{S ⊆ P} (-1)^|S| · #{H ⊇ S : s(H) < s(P)}

Every hand is put in strength order once; equal strengths form *runs*. For each size k
the k-subsets S of every hand (C(h, k) per hand) need ``#{H ⊇ S : run(H) < run(P)}``,
the count of S's hands in lower runs, and the tie count of P's own run. Two ways,
chosen per k by which is smaller:

* **dense** (few runs against the C(deck - k, h - k) hands holding a k-subset): one
  histogram of (run, subset) cells by ``bincount``, run-major so that hands near in
  strength touch nearby cells; prefix sums over the runs give every cell's count
  below and the weight above; each hand gathers its C(h, k) cells.
* **sparse** (many runs): every subset's hands are one row of a matrix (a row per
  k-subset, a column per (h - k)-subset of the other cards, both by colex rank, so no
  sort groups them); each row is sorted by run, a few block-sized passes find each
  entry's run start and length in its row, and the results go back to their hands.

Exact integers throughout (a float histogram only where its sums stay below 2**53).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from math import comb

import numpy as np
import numpy.typing as npt

from solver.core.indexing import BINOM

__all__ = ["DisjointCounts", "disjoint_counts"]

I64 = npt.NDArray[np.int64]
_COLS = [np.ascontiguousarray(BINOM[:, k]) for k in range(BINOM.shape[1])]
_FLOAT_EXACT = 1 << 53
_SHIFTED = [
    [np.concatenate([np.zeros(b, np.int64), c[: len(c) - b]]) for c in _COLS] for b in range(8)
]
"""``_SHIFTED[b][e][x] = C(x - b, e)``: a card's term renumbered past ``b`` lower cards."""


@dataclass(frozen=True)
class DisjointCounts:
    """Per hand H (rows of the hands array): over the hands disjoint from H,

    ``below``/``equal``/``above``: how many are weaker / equally strong / stronger;
    ``weight_above``: the sum of the stronger ones' weights. ``total`` is the number
    of hands disjoint from any one hand, C(deck - h, h).
    """

    below: npt.NDArray[np.int64]
    equal: npt.NDArray[np.int64]
    above: npt.NDArray[np.int64]
    weight_above: npt.NDArray[np.int64]
    total: int


def disjoint_counts(
    hands: npt.NDArray[np.integer],
    strength: npt.ArrayLike,
    deck: int,
    weight: npt.ArrayLike | None = None,
    chunk: int = 1 << 16,
    dense: bool | None = None,
) -> DisjointCounts:
    """Inclusion-exclusion counts of weaker/equal/stronger disjoint hands for every hand.

    ``hands`` must be *every* sorted h-subset of ``range(deck)`` in colex order (row i has
    colex rank i, as :func:`solver.core.indexing.all_subsets` gives); ``strength`` orders them
    (ties allowed). ``weight``: integer weights, shape (n,) or (n, m) for m weightings at
    once, summed over the stronger disjoint hands (``weight_above`` has the same shape;
    no weight: ``weight_above`` is ``above``). Exact integers throughout. ``chunk``
    bounds the temporary memory (hands per block; a sparse block holds 16 times as many
    entries); ``dense`` forces one way for every subset size (tests), ``None`` picks
    the cheaper per size.

    >>> from solver.core.indexing import all_subsets
    >>> c = disjoint_counts(all_subsets(4, 2), [0, 0, 1, 1, 2, 2], deck=4)  # {1,2} ties {0,3}
    >>> c.below.tolist(), c.equal.tolist(), c.above.tolist(), c.total
    ([0, 0, 0, 0, 1, 1], [0, 0, 1, 1, 0, 0], [1, 1, 0, 0, 0, 0], 1)
    """
    hands = np.asarray(hands)
    n, h = hands.shape
    if n != comb(deck, h):
        raise ValueError(f"need all C({deck}, {h}) = {comb(deck, h)} hands, got {n}")
    s = np.asarray(strength).astype(np.int64)
    if s.shape != (n,):
        raise ValueError("strength needs one value per hand")
    w2 = np.zeros((n, 0), dtype=np.int64) if weight is None else np.asarray(weight).astype(np.int64)
    flat = w2.ndim == 1
    if flat:
        w2 = w2[:, None]
    if w2.ndim != 2 or w2.shape[0] != n:
        raise ValueError("weight needs one value (or one row) per hand")
    if n == 0:
        z = np.zeros(0, dtype=np.int64)
        return DisjointCounts(z, z, z, w2[:, 0] if flat else w2, comb(deck - h, h))
    if n * comb(h, h // 2) >= 1 << 31 or deck >= BINOM.shape[0]:
        raise ValueError(f"C({deck}, {h}) hands are too many for 32-bit entry keys")
    distinct, which, const = _distinct_columns(w2)
    st = _Sorted(hands, s, deck, [w2[:, j] for j in distinct], max(int(chunk), 1))
    for k in range(1, h):
        sign = -1 if k % 2 else 1
        use_dense = st.dense_is_cheaper(k) if dense is None else dense
        lt_k, tie_k, w_k = (_dense if use_dense else _sparse)(st, k)
        st.lt += sign * lt_k
        st.le += sign * (lt_k + tie_k)
        for j, wk in enumerate(w_k):
            st.wab[j] += sign * wk
    # k = h: the hand itself is the only hand holding all its cards, and ties with itself
    st.le += -1 if h % 2 else 1
    total = comb(deck - h, h)
    below = st.back(st.lt)
    le = st.back(st.le)
    above = total - le
    wabs = [st.back(st.wab[j]) + st.shift[j] * above for j in range(len(distinct))]
    if w2.shape[1]:
        wa = np.stack(
            [wabs[which[j]] if c is None else above * c for j, c in enumerate(const)], axis=1
        )
        weight_above = wa[:, 0] if flat else wa
    else:
        weight_above = above
    return DisjointCounts(
        below=below, equal=le - below, above=above, weight_above=weight_above, total=total
    )


def _distinct_columns(w2: I64) -> tuple[list[int], list[int], list[int | None]]:
    """The weight columns to count: a constant column is a multiple of the counts
    (``const``), equal columns are counted once (``which``: the distinct column each
    uses, -1 for a constant)."""
    n = w2.shape[0]
    const = [
        int(w2[0, j]) if n and (w2[:, j] == w2[0, j]).all() else None for j in range(w2.shape[1])
    ]
    distinct: list[int] = []
    which: list[int] = []
    for j in range(w2.shape[1]):
        if const[j] is not None:
            which.append(-1)
            continue
        same = next(
            (d for d, col in enumerate(distinct) if np.array_equal(w2[:, col], w2[:, j])), None
        )
        if same is None:
            distinct.append(j)
            same = len(distinct) - 1
        which.append(same)
    return distinct, which, const


class _Sorted:
    """The hands in strength order, and the sums being built by position: ``lt``/``le``
    the hands below / at most, ``wab`` per weighting the weight above (weights shifted
    by ``shift`` to be >= 0)."""

    def __init__(
        self,
        hands: npt.NDArray[np.integer],
        s: I64,
        deck: int,
        weights: list[I64],
        chunk: int,
    ) -> None:
        n, h = hands.shape
        self.n, self.h, self.deck, self.chunk = n, h, deck, chunk
        self.order = order = _strength_order(s)
        ss = s[order]
        new = np.empty(n, dtype=bool)
        new[0] = True
        np.not_equal(ss[1:], ss[:-1], out=new[1:])
        del ss
        self.run = np.cumsum(new, dtype=np.int32) - 1  # run of equal strength per position
        self.runs = int(self.run[-1]) + 1
        self.starts = np.flatnonzero(new)
        del new
        ends = np.append(self.starts[1:], n)
        self.lt = self.starts[self.run]  # k = 0: every hand
        self.le = ends[self.run]
        sorted_hands = np.asarray(hands, dtype=np.uint8)[order]
        self.cols = [np.ascontiguousarray(sorted_hands[:, j]) for j in range(h)]
        del sorted_hands
        self.shift: list[int] = []
        self.weights: list[I64] = []
        self.run_weight: list[I64 | None] = []
        self.wab: list[I64] = []
        for w in weights:
            ws = w[order]
            low = min(int(ws.min()), 0)
            ws -= low
            if int(ws.max()) * comb(h, h // 2) * n >= 1 << 62:
                raise ValueError("weights too large for exact 64-bit sums")
            first = ws[self.starts]
            self.shift.append(low)
            self.weights.append(ws)
            self.run_weight.append(first if (ws == first[self.run]).all() else None)
            cw = np.cumsum(ws)
            self.wab.append(cw[-1] - cw[self.le - 1])

    def back(self, by_position: I64) -> I64:
        """Values by strength position, in the hands' own order."""
        out = np.empty_like(by_position)
        out[self.order] = by_position
        return out

    def blocks(self) -> list[tuple[int, int]]:
        """Ranges of positions of about ``chunk`` hands, each ending where a run ends."""
        out = []
        a = 0
        while a < self.n:
            b = a + self.chunk
            if b >= self.n:
                b = self.n
            else:
                b = int(self.starts[self.run[b]])  # back to the start of b's run
                if b <= a:  # a run longer than a block: the whole run
                    r = int(self.run[a]) + 1
                    b = int(self.starts[r]) if r < self.runs else self.n
            out.append((a, b))
            a = b
        return out

    def dense_is_cheaper(self, k: int) -> bool:
        """The (run, k-subset) cells are no more than twice the entries (hands times
        their k-subsets)."""
        return bool(comb(self.deck, k) * self.runs <= 2 * self.n * comb(self.h, k))

    def bounds(self, k: int) -> list[int]:
        """Per field summed over a hand's k-subsets (below, tie, then each weighting's
        weight above or at most): the largest the sum can be."""
        nc, g = comb(self.h, k), comb(self.deck - k, self.h - k)
        return [nc * g, nc * g] + [nc * g * max(int(w.max()), 1) for w in self.weights]

    def ranks(
        self, combos: list[tuple[int, ...]], a: int, b: int, g: int = 0
    ) -> npt.NDArray[np.int64]:
        """(len(combos), b - a): for the hands at positions a..b-1, the colex rank of
        each subset of positions in ``combos``; with ``g``, times ``g`` plus the colex
        rank of the hand's other cards renumbered among the cards not in the subset
        (the hand's column in the subset's row, :func:`_sparse`)."""
        cards = [c[a:b].astype(np.intp) for c in self.cols]
        out = np.empty((len(combos), b - a), dtype=np.int64)
        t = np.empty(b - a, dtype=np.int64)
        for i, c in enumerate(combos):
            o = out[i]
            np.take(_COLS[1], cards[c[0]], out=o, mode="clip")
            for e in range(1, len(c)):
                o += np.take(_COLS[e + 1], cards[c[e]], out=t, mode="clip")
            if not g:
                continue
            o *= g
            rest = [q for q in range(self.h) if q not in c]
            for e, q in enumerate(rest):  # the other cards, renumbered without the subset's
                below = sum(1 for x in c if x < q)
                o += np.take(_SHIFTED[below][e + 1], cards[q], out=t, mode="clip")
        return out


def _strength_order(s: I64) -> npt.NDArray[np.intp]:
    """The positions of ``s`` in increasing order, ties in position order (a stable
    argsort: one sort of value << bits | position when that fits in 63 bits)."""
    n = len(s)
    lo, hi = int(s.min()), int(s.max())
    bits = max(n - 1, 1).bit_length()
    if (hi - lo).bit_length() + bits > 62:
        return np.argsort(s, kind="stable")
    key = s - lo
    key <<= bits
    key += np.arange(n, dtype=np.int64)
    key.sort()
    key &= (1 << bits) - 1
    return key


def _plan(bounds: list[int]) -> list[list[tuple[int, int, int]]]:
    """Pack fields into int64 words: per word, (field, bit offset, bits), at most 63 bits.

    >>> _plan([1000, 1000, 2**40])
    [[(0, 0, 10), (1, 10, 10), (2, 20, 41)]]
    >>> [len(w) for w in _plan([2**30, 2**30, 2**30])]
    [2, 1]
    """
    words: list[list[tuple[int, int, int]]] = []
    used = 64
    for f, b in enumerate(bounds):
        bits = max(b, 1).bit_length()
        if used + bits > 63:
            words.append([])
            used = 0
        words[-1].append((f, used, bits))
        used += bits
    return words


def _pack(fields: list[I64], word: list[tuple[int, int, int]]) -> I64:
    f, off, _ = word[0]
    out = fields[f] << off
    for f, off, _ in word[1:]:
        out += fields[f] << off
    return out


def _unpack(acc: list[I64], words: list[list[tuple[int, int, int]]], nf: int) -> list[I64]:
    out: list[I64] = [np.zeros(0, dtype=np.int64)] * nf
    for a, word in zip(acc, words, strict=True):
        for f, off, bits in word:
            out[f] = (a >> off) & ((1 << bits) - 1)
    return out


def _combos(st: _Sorted, k: int) -> list[tuple[int, ...]]:
    return list(combinations(range(st.h), k))


def _dense(st: _Sorted, k: int) -> tuple[I64, I64, list[I64]]:
    """Per position: Σ over the hand's k-subsets S of the hands holding S in lower runs,
    in its own run, and (per weighting) their weight in higher runs.

    One sweep over blocks of whole runs in strength order: a block's (run, S) cells are
    counted with ``bincount`` (run-major), their prefix sums over the runs plus what
    the blocks before counted give each cell's count below and weight at most, and each
    hand gathers its C(h, k) cells. The weight above is S's total less the weight at
    most, the totals known once the sweep ends."""
    n = st.n
    cells = comb(st.deck, k)
    combos = _combos(st, k)
    nc = len(combos)
    nw = len(st.weights)
    words = _plan(st.bounds(k))
    acc = [np.zeros(n, dtype=np.int64) for _ in words]
    carry = np.zeros(cells, dtype=np.int64)
    carry_w = [np.zeros(cells, dtype=np.int64) for _ in range(nw)]
    t = np.empty(min(st.chunk, n), dtype=np.int64)
    # one word, one weight per run: the fields summed at once in their packed form
    packed = len(words) == 1 and all(rw is not None for rw in st.run_weight)
    if packed:
        offs = [off for _, off, _ in words[0]]
        tie_step = (1 << offs[1]) - (1 << offs[0])  # a cell's own hands: out of below, in tie
    for a, b in st.blocks():
        r0 = int(st.run[a])
        nr = int(st.run[b - 1]) + 1 - r0
        keys = st.ranks(combos, a, b)
        keys += (st.run[a:b] - r0).astype(np.int64) * cells
        flat = keys.reshape(-1)
        cnt = np.bincount(flat, minlength=nr * cells).reshape(nr, cells)
        m = b - a
        tb = t[:m] if m <= len(t) else np.empty(m, dtype=np.int64)
        if packed:
            per_run = np.full(nr, 1 << offs[0], dtype=np.int64)
            for rw, off in zip(st.run_weight, offs[2:], strict=True):
                assert rw is not None
                per_run += rw[r0 : r0 + nr] << off
            table = np.cumsum(cnt * per_run[:, None], axis=0)
            table += carry  # the packed sums of the runs swept before
            carry = table[-1].copy()
            table += cnt * tie_step
            flat_table = table.reshape(-1)
            dst = acc[0][a:b]
            for i in range(nc):
                dst += np.take(flat_table, keys[i], out=tb, mode="clip")
            continue
        below = np.cumsum(cnt, axis=0)
        below -= cnt
        below += carry
        carry = below[-1] + cnt[-1]  # per subset: its hands in the runs swept so far
        fields = [below, cnt]
        for j in range(nw):
            rw = st.run_weight[j]
            if rw is not None:  # one weight per run: a cell's weight is its count times it
                ws = cnt * rw[r0 : r0 + nr, None]
            else:
                ws = np.zeros(nr * cells, dtype=np.int64)
                np.add.at(ws, flat, np.tile(st.weights[j][a:b], nc))
                ws = ws.reshape(nr, cells)
            atmost = np.cumsum(ws, axis=0)
            atmost += carry_w[j]
            carry_w[j] += ws.sum(axis=0)
            fields.append(atmost)
        for acc_w, word in zip(acc, words, strict=True):
            table = _pack(fields, word).reshape(-1)
            dst = acc_w[a:b]
            for i in range(nc):
                dst += np.take(table, keys[i], out=tb, mode="clip")
    got = _unpack(acc, words, 2 + nw)
    if packed:  # each subset's total weight, from the packed sums of every run
        carry_w = _unpack([carry], words, 2 + nw)[2:]
    above: list[I64] = []
    for j in range(nw):  # Σ_S total(S) over the hand's subsets, less the weight at most
        tot = np.zeros(n, dtype=np.int64)
        for a, b in st.blocks():
            for r in st.ranks(combos, a, b):
                tot[a:b] += carry_w[j][r]
        tot -= got[2 + j]
        above.append(tot)
    return got[0], got[1], above


def _sparse(st: _Sorted, k: int) -> tuple[I64, I64, list[I64]]:
    """The same sums as :func:`_dense`, by sorting each k-subset's hands by run.

    Row r of a (C(deck, k), C(deck - k, h - k)) matrix holds the hands containing the
    k-subset of colex rank r, each in the column of the colex rank of its other cards
    renumbered among the cards not in the subset: every entry's place is computed
    (:meth:`_Sorted.ranks`), no sort groups them. An entry is its hand's run << column
    bits | its column; each row is sorted, and each entry's results (packed in the
    same array, in the entry's place) are gathered back by its hand."""
    n = st.n
    combos = _combos(st, k)
    nc = len(combos)
    g = comb(st.deck - k, st.h - k)
    rows = comb(st.deck, k)
    cb = max(g - 1, 1).bit_length()
    place = np.empty((nc, n), dtype=np.int32)
    for a, b in st.blocks():
        place[:, a:b] = st.ranks(combos, a, b, g)
    entries = np.empty(rows * g, dtype=np.int64)  # runs << column bits, then the results
    run = st.run.astype(np.int64) << cb
    for i in range(nc):
        entries[place[i]] = run
    del run
    # a weighting that differs within a run: each entry's weight, by place
    w_at: list[I64 | None] = [None] * len(st.weights)
    for j, (w, rw) in enumerate(zip(st.weights, st.run_weight, strict=True)):
        if rw is None:
            w_at[j] = wa = np.empty(rows * g, dtype=np.int64)
            for i in range(nc):
                wa[place[i]] = w
    words = _plan(st.bounds(k))
    more = [np.empty(rows * g, dtype=np.int64) for _ in words[1:]]  # fields past one word
    per = max(1, st.chunk // g)  # rows per block
    size = min(per, rows) * g
    col = np.tile(np.arange(g, dtype=np.int64), min(per, rows))
    row_start = np.repeat(np.arange(0, size, g, dtype=np.int64), g)
    idx = np.arange(size + 1, dtype=np.int64)
    mask = (1 << cb) - 1
    narrow = np.int32 if (st.runs - 1).bit_length() + cb <= 31 else np.int64  # sorts faster
    b_buf = np.empty(size, dtype=bool)
    for r0 in range(0, rows, per):
        a0 = r0 * g
        key = entries[a0 : a0 + size]  # a view: the block's results go back in it
        e = len(key)
        key |= col[:e]
        srt = np.sort(key.astype(narrow).reshape(-1, g), axis=1).reshape(-1)
        run_s = srt >> cb
        brk = b_buf[:e]
        brk[0] = True
        np.not_equal(run_s[1:], run_s[:-1], out=brk[1:])
        brk[::g] = True  # each row starts a run
        start = np.maximum.accumulate(np.where(brk, idx[:e], 0))
        brk[:-1] = brk[1:]
        brk[-1] = True  # now: each entry ends a run
        end = np.minimum.accumulate(np.where(brk, idx[1 : e + 1], e)[::-1])[::-1]
        fields = [start - row_start[:e], end - start]
        back = row_start[:e] + (srt & mask)  # the entry's place in the block
        for rw, at in zip(st.run_weight, w_at, strict=True):
            if rw is not None:
                we = rw[run_s]
            else:
                assert at is not None
                we = at[a0 : a0 + e][back]
            cw = np.cumsum(we).reshape(-1, g)
            after = cw[:, -1:] - cw.reshape(-1)[end - 1].reshape(-1, g)
            fields.append(after.reshape(-1))  # the row's weight after the run
        key[back] = _pack(fields, words[0])
        for v, word in zip(more, words[1:], strict=True):
            v[a0 + back] = _pack(fields, word)
    outs = [entries, *more]
    acc = [np.zeros(n, dtype=np.int64) for _ in words]
    t = np.empty(min(st.chunk, n), dtype=np.int64)
    for a, b in st.blocks():
        tb = t[: b - a] if b - a <= len(t) else np.empty(b - a, dtype=np.int64)
        for i in range(nc):
            at = place[i, a:b].astype(np.intp)
            for a_, v in zip(acc, outs, strict=True):
                a_[a:b] += np.take(v, at, out=tb, mode="clip")
    got = _unpack(acc, words, 2 + len(st.weights))
    return got[0], got[1], got[2:]
