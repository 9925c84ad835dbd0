"""What exact odds and house edges share across games (``bull odds``, ``bull edge``).

Everything here is exact: counts are integers and every probability or expected value
is a :class:`fractions.Fraction`; floats are only for display.

**Niu Niu** (the heart of the module). The player's EV is an average over every ordered
pair of disjoint hands, 2,598,960 x 1,533,939 of them. For each player hand P we need
how many banker hands B disjoint from P are weaker, equal, or stronger (and the sum of
the stronger ones' multipliers). Sort every hand by strength. A hand disjoint from P is
counted by inclusion-exclusion over the cards the two could share::

    #{B : B ∩ P = ∅, s(B) < s(P)} = Σ_{S ⊆ P} (-1)^|S| · #{H ⊇ S : s(H) < s(P)}

For a k-subset S the hands containing S are exactly C(52-k, 5-k) hands, so sorting the
pairs (colex rank of S, position of H in strength order) puts each S's hands in one
contiguous block of known size, already in strength order: the count below P is P's
offset in its block (ties handled by runs of equal strength), and a cumulative sum gives
the multiplier sums. That is 2^5 subsets per hand, about 80 million sorted keys in all,
instead of 4 x 10^12 pairs. :func:`disjoint_counts` does this for any deck (cards or
tiles) and any hand size.

Each game's own odds and edge live in its package (``solver.games.<game>.odds``);
Tau Ngau's ``pagat`` probabilities also come from :func:`disjoint_counts`, over the 32
tiles.

>>> import numpy as np
>>> from solver.core.indexing import all_subsets
>>> hands = all_subsets(4, 2)                    # every 2-card hand of a 4-card deck
>>> c = disjoint_counts(hands, np.arange(6), deck=4)
>>> c.below.tolist(), c.above.tolist()           # hand i beats the disjoint hands j < i
([0, 0, 0, 1, 1, 1], [1, 1, 1, 0, 0, 0])
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from math import comb
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.core.indexing import BINOM
from solver.core.inputs import check_commission

_BINOM_COLS = [np.ascontiguousarray(BINOM[:, k]) for k in range(BINOM.shape[1])]

__all__ = [
    "DisjointCounts",
    "OddsResult",
    "TablesLike",
    "commission_fraction",
    "disjoint_counts",
    "exact_commission",
    "fraction_text",
    "group_sums",
    "odds_text",
    "percent",
]

TablesLike = str | os.PathLike[str] | None


def fraction_text(f: Fraction) -> str:
    """``"p/q"`` (always with a denominator).

    >>> fraction_text(Fraction(-3, 60)), fraction_text(Fraction(0))
    ('-1/20', '0/1')
    """
    return f"{f.numerator}/{f.denominator}"


def exact_commission(c: float | Fraction | None, default: float) -> Fraction:
    """A commission as an exact fraction: ``0.05`` is 1/20 (read from its decimal text)."""
    value = default if c is None else c
    checked = check_commission(value)  # a number in [0, 1): "0.05" and nan are not
    return checked if isinstance(checked, Fraction) else Fraction(repr(checked))


def commission_fraction(c: float | Fraction) -> str:
    """A commission's exact ``_fraction`` twin in JSON: ``0.05`` is ``"1/20"``.

    >>> commission_fraction(0.05), commission_fraction(0)
    ('1/20', '0/1')
    """
    return fraction_text(exact_commission(c, 0.0))


def group_sums(keys: npt.NDArray[np.integer], values: npt.NDArray[np.integer], n: int) -> list[int]:
    """Exact integer sums of ``values`` per key 0..n-1.

    >>> group_sums(np.array([0, 2, 0]), np.array([5, 7, 1]), 3)
    [6, 0, 7]
    """
    out = np.zeros(n, dtype=np.int64)
    np.add.at(out, np.asarray(keys, dtype=np.int64), np.asarray(values, dtype=np.int64))
    return [int(x) for x in out]


# ---------------------------------------------------------------- the counting core


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
) -> DisjointCounts:
    """Inclusion-exclusion counts of weaker/equal/stronger disjoint hands for every hand.

    ``hands`` must be *every* sorted h-subset of ``range(deck)`` in colex order (row i has
    colex rank i, as :func:`solver.core.indexing.all_subsets` gives); ``strength`` orders them
    (ties allowed). ``weight``: integer weights, shape (n,) or (n, m) for m weightings at
    once, summed over the stronger disjoint hands (``weight_above`` has the same shape;
    no weight: ``weight_above`` is ``above``). Exact integers throughout; 2-3 s for
    the 52-card 5-card hands. ``chunk`` bounds the temporary memory.
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
    # a constant weight column is a multiple of the counts; equal columns are done once
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
    m = len(distinct)
    order = np.argsort(s, kind="stable")
    s_sorted = s[order]
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(s_sorted[1:], s_sorted[:-1], out=new[1:])
    run_id = np.cumsum(new) - 1  # dense strength rank per position
    starts = np.flatnonzero(new)
    ends = np.append(starts[1:], n)
    n_runs = len(starts)
    ties = n_runs < n
    w_sorted = [np.ascontiguousarray(w2[order, j]) for j in distinct]
    # per position p in strength order: Σ_S (-1)^|S| of the counts below / at most, and
    # of the weight above, over the hands containing S (k = 0: every hand)
    lt = starts[run_id].astype(np.int64)
    le = ends[run_id].astype(np.int64)
    wab = []
    for j in range(m):
        cw = np.concatenate(([0], np.cumsum(w_sorted[j])))
        wab.append(cw[-1] - cw[le])
    cols = [np.ascontiguousarray(hands[order, j]).astype(np.intp) for j in range(h)]
    most = max((comb(h, k) for k in range(1, h)), default=0) * n
    if most and (most.bit_length() + 32 > 60 or comb(deck - 1, h - 1) >= 1 << 31):
        raise ValueError(f"C({deck}, {h}) hands are too many for 64-bit subset keys")
    # buffers reused for every k: the keys, and per incidence (slot p * C + i: hand p's
    # i-th k-subset) its packed counts and its weight above
    key_buf = np.empty(most, dtype=np.int64)
    val_buf = np.empty(most, dtype=np.int64)
    wv_buf = [np.empty(most, dtype=np.int64) for _ in range(m)]
    for k in range(1, h):
        sign = -1 if k % 2 else 1
        g = comb(deck - k, h - k)  # hands containing a given k-subset
        combos = list(combinations(range(h), k))
        nc = len(combos)
        size = n * nc
        sb = max(size - 1, 1).bit_length()
        rb = max(n_runs - 1, 1).bit_length() if ties else 0
        shift = sb + rb
        if comb(deck, k).bit_length() + shift > 63:
            raise ValueError(f"C({deck}, {h}) hands are too many for 64-bit subset keys")
        # key = subset rank, then run of equal strength, then slot: sorted, each subset's
        # hands form one block of g, in strength order, runs of ties contiguous
        keys = key_buf[:size]
        rsum = np.zeros(n, dtype=np.int64)  # Σ_i rank of hand p's i-th subset
        for b0 in range(0, n, chunk):  # a block of hands at a time: stays in cache
            b1 = min(n, b0 + chunk)
            base = np.arange(b0 * nc, b1 * nc, nc, dtype=np.int64)
            if ties:
                base += run_id[b0:b1] << sb
            rs = rsum[b0:b1]
            for i, c in enumerate(combos):
                r = _BINOM_COLS[1][cols[c[0]][b0:b1]]
                for e in range(1, k):
                    r += _BINOM_COLS[e + 1][cols[c[e]][b0:b1]]
                rs += r
                out = keys[i * n + b0 : i * n + b1]
                np.left_shift(r, shift, out=out)
                out += base
                out += i
        keys.sort()
        vals = val_buf[:size]
        wvs = [buf[:size] for buf in wv_buf]
        smask = (1 << sb) - 1
        step = max(g, (4 * chunk // g) * g)  # whole subset blocks at a time
        for a in range(0, size, step):
            blk = keys[a : a + step]
            nb = len(blk)
            slot = blk & smask
            # per incidence: where its run of equal strength starts (absolute) << 32,
            # plus the run's length; the block's start is subtracted per hand below
            if ties:
                run_key = blk >> sb
                brk = np.empty(nb, dtype=bool)
                brk[0] = True
                np.not_equal(run_key[1:], run_key[:-1], out=brk[1:])
                first = np.flatnonzero(brk)
                seg = np.cumsum(brk) - 1
                lo = first[seg]
                ln = np.diff(np.append(first, nb))[seg]
                v = (lo + a) << 32
                v += ln
                hi = lo + ln
            else:
                v = np.arange(a, a + nb, dtype=np.int64) << 32
                v += 1
                hi = np.arange(1, nb + 1)
            vals[slot] = v
            if m:
                p = slot // nc
                for j in range(m):  # the weight of the block's hands after the run
                    cwb = np.empty(nb + 1, dtype=np.int64)
                    cwb[0] = 0
                    np.cumsum(w_sorted[j][p], out=cwb[1:])
                    after = np.repeat(cwb[g::g], g)
                    after -= cwb[hi]
                    wvs[j][slot] = after
        tot = vals.reshape(n, nc).sum(axis=1)
        below = (tot >> 32) - g * rsum  # a block of subset rank r starts at r * g
        lt += sign * below
        le += sign * (below + (tot & 0xFFFFFFFF))
        for j in range(m):
            wab[j] += sign * wvs[j].reshape(n, nc).sum(axis=1)
    del key_buf, val_buf, wv_buf
    # k = h: the hand itself is the only hand containing it, and it ties with itself
    le += -1 if h % 2 else 1
    total = comb(deck - h, h)
    inv = np.empty(n, dtype=np.int64)
    inv[order] = np.arange(n)
    below = lt[inv]
    above = total - le[inv]
    if w2.shape[1]:
        wa = np.stack(
            [above * const[j] if which[j] < 0 else wab[which[j]][inv] for j in range(w2.shape[1])],
            axis=1,
        )
        weight_above = wa[:, 0] if flat else wa
    else:
        weight_above = above
    return DisjointCounts(
        below=below, equal=(le - lt)[inv], above=above, weight_above=weight_above, total=total
    )


# ---------------------------------------------------------------- Niu Niu


# ---------------------------------------------------------------- Tau Ngau


# ---------------------------------------------------------------- Pok Deng


# ---------------------------------------------------------------- odds


@dataclass(frozen=True)
class OddsResult:
    """Exact counts of every category/score/type: ``sections[name]`` lists
    ``(label, count)`` over ``totals[name]`` hands."""

    game: str
    rules: str
    sections: Mapping[str, tuple[tuple[str, int], ...]]
    totals: Mapping[str, int]
    unit: str = "hands"
    """What is counted: ``hands``, or ``deals`` from a shoe (a hand counted as often as
    the shoe deals it)."""

    def probability(self, section: str, label: str) -> Fraction:
        return Fraction(dict(self.sections[section])[label], self.totals[section])

    def to_json(self) -> dict[str, Any]:
        """The ``bull odds --json`` object."""
        return {
            "game": self.game,
            "rules": self.rules,
            "unit": self.unit,
            "totals": dict(self.totals),
            "sections": {
                name: [
                    {
                        "label": lb,
                        "count": n,
                        "probability": n / self.totals[name],
                        "probability_fraction": fraction_text(Fraction(n, self.totals[name])),
                    }
                    for lb, n in rows
                ]
                for name, rows in self.sections.items()
            },
        }


# ---------------------------------------------------------------- CLI


def percent(f: Fraction | float, digits: int = 4) -> str:
    """A probability as a percentage, four decimals unless told.

    >>> percent(Fraction(1, 8)), percent(Fraction(1, 40), 3)
    ('12.5000%', '2.500%')
    """
    return f"{100 * float(f):.{digits}f}%"


def odds_text(res: OddsResult) -> str:
    """Plain-text tables of an :class:`OddsResult`."""
    lines = [f"{res.game} odds [{res.rules}]"]
    for name, rows in res.sections.items():
        lines.append(f"\n{name.replace('_', ' ')} (of {res.totals[name]:,} {res.unit})")
        width = max(len(lb) for lb, _ in rows)
        nw = max(10, *(len(f"{n:,}") for _, n in rows))
        for lb, n in rows:
            lines.append(
                f"  {lb:<{width}}  {n:>{nw},}  {percent(Fraction(n, res.totals[name])):>10}"
            )
    return "\n".join(lines)
