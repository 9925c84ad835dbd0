"""Exact matchup counts for hands dealt from a shoe of N decks (card removal by multiplicity).

A hand is a multiset of faces. Given the player's hand P, the number of ways to deal the
banker's hand B from the rest of the shoe is ``Π_c C(N - p_c, b_c)`` (p_c, b_c: how often
face c occurs in P and in B). Summing that over 3.8 million banker hands for each of 3.8
million player hands is out of reach; the identity (inclusion-exclusion over the p
copies a hand removes)::

    C(N - p, b) = Σ_{t=0}^{min(p, b)} (-1)^t C(p, t) C(N - t, b - t)

turns the product into a sum over the sub-multisets T common to P and B::

    ways(B | P) = Σ_{T ⊆ P, T ⊆ B} a_T(P) · v_T(B),
    a_T(P) = (-1)^|T| Π_c C(p_c, t_c),   v_T(B) = Π_c C(N - t_c, b_c - t_c).

So the weaker-hand count of P is ``Σ_{T ⊆ P} a_T(P) · Σ_{B ⊇ T, s(B) < s(P)} v_T(B)``. The
hands containing a k-multiset T are T plus any (h-k)-multiset: blocks of one known
size: ``T + R`` for every (h-k)-multiset R. A chunk of T's by every R is a matrix whose
rows are the blocks; sorting each row by the hands' positions in strength order puts
the block in strength order, and P sits in every block of its own sub-multisets; a
cumulative sum of ``v_T`` along each row gives every count at P's place (ties by runs
of equal strength). With one deck ``v_T(B)`` is 1 for a set and
0 for a repeat, ``a_T = (-1)^|T|``: :func:`solver.kit.exact.disjoint_counts` exactly.
The sort does not depend on N: one pass answers any number of shoe sizes.

>>> import numpy as np
>>> from solver.core.indexing import all_multisets
>>> hands = all_multisets(2, 2)                     # faces 0, 1: [0,0] [0,1] [1,1]
>>> c = shoe_counts(hands, np.arange(3), 2, [2])[0]  # two decks: 4 cards, 0 0 1 1
>>> c.weight.tolist(), c.below.tolist(), c.equal.tolist(), c.above.tolist(), c.total
([1, 4, 1], [0, 0, 1], [0, 1, 0], [1, 0, 0], 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from math import comb, prod

import numpy as np
import numpy.typing as npt

from solver.core.indexing import BINOM, all_multisets, multiset_rank_array

__all__ = ["ShoeCounts", "exact_dot", "shoe_counts"]

I64 = npt.NDArray[np.int64]


@dataclass(frozen=True)
class ShoeCounts:
    """Per hand P (rows of the hands array), for a shoe of ``decks`` decks: ``weight``,
    the ways to deal P from the full shoe; over the banker hands dealt from the rest,
    ``below``/``equal``/``above`` the ways to deal a weaker / equally strong / stronger
    one, and ``weight_above`` (n, m) the stronger ones' ways weighted by the banker
    hand's given weights. ``total`` = C(faces·N - h, h), the deals of a banker hand after
    any one hand (meaningful for hands with ``weight > 0``)."""

    decks: int
    weight: I64
    below: I64
    equal: I64
    above: I64
    weight_above: I64
    total: int


def _runs(rid: npt.NDArray[np.int64], block: int) -> tuple[I64, I64]:
    """Start and end (absolute) of the run of equal ``rid`` holding each position, runs
    also breaking at every multiple of ``block``."""
    n = len(rid)
    brk = np.empty(n, dtype=bool)
    if n:
        brk[0] = True
        np.not_equal(rid[1:], rid[:-1], out=brk[1:])
        brk[::block] = True
    rs = np.flatnonzero(brk)
    seg = np.cumsum(brk) - 1
    ends = np.append(rs[1:], n)
    return rs[seg].astype(np.int64, copy=False), ends[seg].astype(np.int64, copy=False)


def shoe_counts(
    hands: npt.NDArray[np.integer],
    strength: npt.ArrayLike,
    faces: int,
    decks: Sequence[int],
    weight: npt.ArrayLike | None = None,
    chunk: int = 1 << 21,
) -> list[ShoeCounts]:
    """Weighted counts of weaker/equal/stronger banker hands for every hand, one
    :class:`ShoeCounts` per shoe size in ``decks``.

    ``hands`` must be *every* sorted h-multiset of ``range(faces)`` in dense multiset
    order (:func:`solver.core.indexing.all_multisets`); ``strength`` orders them (ties
    allowed); ``weight`` (n,) or (n, m) integer weights of a banker hand (e.g. its
    multiplier per bet), summed over the stronger ones (``weight_above``: a constant
    column c is c x ``above``, without a pass of its own; the equally
    strong ones' sum is ``equal`` times the weight when equal strength means equal
    weight, as a multiplier of the category does). Exact 64-bit integers: a shoe of 8
    decks of 52 cards deals C(416, 5) ≈ 10^11 hands, so weights up to ~10^7 are safe.
    ``chunk`` bounds the temporaries: about that many (sub-multiset, hand) incidences
    are worked on at once (issue 28: a 6-deck Niu Niu shoe peaked at 5 GB unchunked).
    """
    hands = np.asarray(hands)
    n, h = hands.shape
    if n != comb(faces + h - 1, h):
        raise ValueError(f"need all C({faces + h - 1}, {h}) multisets, got {n}")
    if h > 1 and not np.array_equal(multiset_rank_array(hands, presorted=True), np.arange(n)):
        raise ValueError("hands must be every sorted multiset in dense multiset order")
    s = np.asarray(strength).astype(np.int64)
    if s.shape != (n,):
        raise ValueError("strength needs one value per hand")
    wcols = np.zeros((n, 0), dtype=np.int64) if weight is None else np.asarray(weight, np.int64)
    if wcols.ndim == 1:
        wcols = wcols[:, None]
    m = wcols.shape[1]
    # a constant weight c sums to c x above: only the other columns need the passes
    const = [
        int(wcols[0, j]) if n and (wcols[:, j] == wcols[0, j]).all() else None for j in range(m)
    ]
    vary = [j for j in range(m) if const[j] is None]
    order = np.argsort(s, kind="stable")
    pos_of = np.empty(n, dtype=np.int64)
    pos_of[order] = np.arange(n)
    new = np.ones(n, dtype=bool)
    new[1:] = s[order][1:] != s[order][:-1]
    run_id = np.cumsum(new) - 1  # dense strength rank per position
    # the passes work in strength order (position p = the p-th weakest hand): their
    # reads and scatter-adds then run along each sorted block, not all over memory
    hands_s = np.ascontiguousarray(hands[order])
    pattern = np.zeros(n, dtype=np.int64)  # bit j-1: position j repeats position j-1
    for j in range(1, h):
        pattern |= (hands_s[:, j] == hands_s[:, j - 1]).astype(np.int64) << (j - 1)
    # a hand's runs of equal faces are its pattern's: the most copies of one face and the
    # ways to deal it (Π C(decks, copies), as shoe_weights counts) looked up per pattern
    runs = [_run_lengths(pat, h) for pat in range(1 << (h - 1))]
    most = np.array([max(r) for r in runs], dtype=np.int64)[pattern]
    w_s = [np.ascontiguousarray(wcols[order, j]) for j in vary]
    sizes = list(decks)
    w_n = [np.array([prod(comb(d, c) for c in r) for r in runs], np.int64)[pattern][pos_of]
           for d in sizes]  # fmt: skip
    acc = [
        {
            "lt": np.zeros(n, np.int64),
            "le": np.zeros(n, np.int64),
            "wgt": np.zeros((len(vary), n), np.int64),
        }
        for _ in sizes
    ]
    # k = 0: T empty, a = 1, v = the hand's own weight; one block of every hand
    rs, re = _runs(run_id, n)
    for d, a in enumerate(acc):
        v = w_n[d][order]
        cv = np.concatenate(([0], np.cumsum(v)))
        a["lt"][:] = cv[rs]
        a["le"][:] = cv[re]
        for j, wj in enumerate(w_s):
            cvm = np.concatenate(([0], np.cumsum(v * wj)))
            a["wgt"][j] = cvm[-1] - cvm[re]
    for k in range(1, h):
        _block_pass(pos_of, h, k, faces, sizes, pattern, run_id, w_s, acc, chunk)
    # k = h: T = P itself, the only hand containing it: a = (-1)^h, v = 1 if P is
    # dealable; it ties with itself, so adds to `equal` only
    sign = -1 if h % 2 else 1
    for d, a in enumerate(acc):
        a["le"] += (most <= sizes[d]).astype(np.int64) * sign
    for d, a in enumerate(acc):  # back to the hands' order
        total = comb(faces * sizes[d] - h, h) if faces * sizes[d] >= h else 0
        a["lt"], a["le"] = a["lt"][pos_of], a["le"][pos_of]
        wgt = np.empty((n, m), np.int64)
        for j in range(m):
            c = const[j]
            wgt[:, j] = (total - a["le"]) * c if c is not None else a["wgt"][vary.index(j)][pos_of]
        a["wgt"] = wgt
    out = []
    for d, a in enumerate(acc):
        total = comb(faces * sizes[d] - h, h) if faces * sizes[d] >= h else 0
        above = total - a["le"]
        a["le"] -= a["lt"]  # equal, in place (one new array per size, not two)
        out.append(
            ShoeCounts(
                decks=sizes[d],
                weight=w_n[d],
                below=a["lt"],
                equal=a["le"],
                above=above,
                weight_above=a["wgt"],
                total=total,
            )
        )
    return out


def _run_lengths(pat: int, h: int) -> list[int]:
    """The lengths of the runs of equal faces of a sorted hand of ``h`` whose position j
    repeats position j - 1 when bit j - 1 of ``pat`` is set.

    >>> _run_lengths(0b0101, 5), _run_lengths(0, 3)
    ([2, 2, 1], [1, 1, 1])
    """
    runs = [1]
    for j in range(1, h):
        if pat >> (j - 1) & 1:
            runs[-1] += 1
        else:
            runs.append(1)
    return runs


def _pattern_tables(
    h: int, k: int, sizes: list[int]
) -> tuple[npt.NDArray[np.bool_], I64, list[I64]]:
    """Per run pattern of a sorted hand (bit j-1: position j repeats position j-1) and
    per k-combination of positions: whether the combination is the canonical choice of
    its sub-multiset T (of equal faces, the leftmost copies), ``a_T`` and ``v_T`` per
    shoe size. Both depend only on the copies of each face in the hand and in T."""
    combos = list(combinations(range(h), k))
    npat = 1 << (h - 1)
    valid = np.zeros((npat, len(combos)), dtype=bool)
    coef = np.zeros((npat, len(combos)), dtype=np.int64)
    vals = [np.zeros((npat, len(combos)), dtype=np.int64) for _ in sizes]
    for pat in range(npat):
        runs: list[list[int]] = []
        for j in range(h):
            if j and pat >> (j - 1) & 1:
                runs[-1].append(j)
            else:
                runs.append([j])
        for i, combo in enumerate(combos):
            chosen = set(combo)
            if any(q and pat >> (q - 1) & 1 and q - 1 not in chosen for q in combo):
                continue
            valid[pat, i] = True
            a = -1 if k % 2 else 1
            vs = [1] * len(sizes)
            for run in runs:
                size_t = sum(1 for q in run if q in chosen)
                a *= comb(len(run), size_t)
                for d, n_decks in enumerate(sizes):
                    left = n_decks - size_t
                    vs[d] *= comb(left, len(run) - size_t) if left >= 0 else 0
            coef[pat, i] = a
            for d in range(len(sizes)):
                vals[d][pat, i] = vs[d]
    return valid, coef, vals


def _block_pass(
    pos_of: I64,
    h: int,
    k: int,
    faces: int,
    sizes: list[int],
    pattern: I64,
    run_id: I64,
    w_s: list[I64],
    acc: list[dict[str, I64]],
    chunk: int = 1 << 21,
) -> None:
    """Add the terms of every k-sub-multiset T (0 < k < h) to the accumulators, a chunk
    of whole blocks (about ``chunk`` incidences) at a time. Everything is in strength
    order: position p is the p-th weakest hand, and so are ``pattern``, ``w_s`` and the
    accumulators; ``pos_of`` maps a hand's dense multiset rank to its position.

    T's block is ``T + R`` for every (h - k)-multiset R (a bijection onto the hands
    holding T), so a chunk of T's by every R is a matrix whose rows are the blocks: each
    entry's sorted hand needs no sort (T takes the leftmost copies of its faces, the
    positions of T's and R's faces are counts of smaller faces), and a sort of each row
    by position puts the block in strength order."""
    n = len(pos_of)
    combos = list(combinations(range(h), k))
    valid, coef, vals = _pattern_tables(h, k, sizes)
    valid_flat = valid.ravel()
    ncells = coef.size  # (pattern, combo) cells: what a_T and v_T depend on
    cbits = max(ncells - 1, 1).bit_length()
    bits = max(n - 1, 1).bit_length()
    kt = np.int32 if bits + cbits <= 31 else np.int64
    # an entry's key: its hand's position, then its cell (pattern, where T sits in it)
    combo_of = np.zeros(1 << h, dtype=kt)
    for i, combo in enumerate(combos):
        combo_of[sum(1 << q for q in combo)] = i
    pos_k = pos_of.astype(kt)
    pattern_k = (pattern * len(combos)).astype(kt)
    ts = all_multisets(faces, k).astype(np.int16)
    rest = all_multisets(faces, h - k).astype(np.int16)
    g = len(rest)  # hands containing a given k-multiset
    rcols = [rest[None, :, c] for c in range(h - k)]
    # C(face + p, p + 1), a face's term at sorted place p, at p * faces + face
    term = np.zeros(h * faces, dtype=np.int64)
    for p in range(h):
        term[p * faces : (p + 1) * faces] = BINOM[p : p + faces, p + 1]
    coef_flat = coef.ravel()
    vals_flat = [v.ravel() for v in vals]
    # whole blocks at a time bound the temporaries; each block's running sums in a row of
    # g + 1 (a leading 0): no per-block offsets
    nb_step = max(1, chunk // g)
    csum = np.zeros((nb_step, g + 1), dtype=np.int64)
    for t0 in range(0, len(ts), nb_step):
        tcols = [ts[t0 : t0 + nb_step, j, None] for j in range(k)]
        nb = len(tcols[0])
        # the dense rank of T + R: sum over its sorted places p of C(face + p, p + 1);
        # T's j-th face sits after j of T's and the R faces below it, R's c-th after c
        # of R's and T's faces not above it
        rank = np.zeros((nb, g), dtype=np.int64)
        mask = np.zeros((nb, g), dtype=kt)
        for j, tj in enumerate(tcols):
            at = np.full((nb, g), j, dtype=np.int16)
            for rc in rcols:
                at += rc < tj
            mask |= np.left_shift(1, at, dtype=kt)
            at *= faces
            at += tj
            rank += term.take(at)
        for c, rc in enumerate(rcols):
            at = np.full((nb, g), c, dtype=np.int16)
            for tj in tcols:
                at += tj <= rc
            at *= faces
            at += rc
            rank += term.take(at)
        del at
        pos = pos_k[rank]
        del rank
        key = np.left_shift(pos, cbits)
        key |= pattern_k[pos]
        key += combo_of[mask]
        del pos, mask
        key.sort(axis=1)
        kb = key.reshape(-1)
        cell = kb & ((1 << cbits) - 1)
        pos = kb >> cbits
        del kb, key
        rs, re = _runs(run_id[pos], g)
        blk = np.arange(len(pos), dtype=np.int64) // g  # a row of g + 1 per block
        rs += blk
        re += blk
        del blk
        if not valid_flat[cell].all():
            raise AssertionError("a sub-multiset is not in its leftmost copies")
        a_e = coef_flat[cell]
        wx = [w[pos] for w in w_s]
        cz = csum[:nb]
        flat = cz.reshape(-1)
        for d, acc_d in enumerate(acc):
            v = vals_flat[d][cell].reshape(nb, g)
            np.cumsum(v, axis=1, out=cz[:, 1:])
            _bin_add(acc_d["lt"], pos, a_e * flat[rs])
            _bin_add(acc_d["le"], pos, a_e * flat[re])
            for j, wj in enumerate(wx):
                np.cumsum(v * wj.reshape(nb, g), axis=1, out=cz[:, 1:])
                top = np.repeat(cz[:, g], g)
                top -= flat[re]
                top *= a_e
                _bin_add(acc_d["wgt"][j], pos, top)
                del top
            del v
        del pos, cell, rs, re, a_e, wx


def _bin_add(out: I64, x: I64, values: I64) -> None:
    """``out[x[e]] += values[e]`` exactly: an int64 scatter-add (wrapping 64-bit sums
    are exact whenever the final sum fits, as every count here does)."""
    np.add.at(out, x, values)


def exact_dot(w: npt.ArrayLike, x: npt.ArrayLike) -> int:
    """``Σ w·x`` as an exact Python int for non-negative int64 ``w`` and any int64 ``x``,
    without 64-bit overflow (x is split into pieces small enough for numpy sums).

    >>> exact_dot(np.array([2**40, 3]), np.array([2**40, -1]))
    1208925819614629174706173
    """
    wa = np.asarray(w, dtype=np.int64)
    xa = np.asarray(x, dtype=np.int64)
    if not len(wa):
        return 0
    if int(wa.min()) < 0:
        raise ValueError("exact_dot needs non-negative weights")
    wbits = max(int(wa.max()).bit_length(), 1)
    nbits = max(len(wa).bit_length(), 1)
    piece = max(62 - wbits - nbits, 1)
    total = 0
    sign = np.sign(xa)
    mag = np.abs(xa)
    shift = 0
    while True:
        part = (mag >> shift) & ((1 << piece) - 1)
        total += int(np.sum(wa * part * sign)) << shift
        shift += piece
        if shift >= 63 or not (mag >> shift).any():
            return total
