"""Exact odds and house edge for every game (``bull odds``, ``bull edge``).

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

**Tau Ngau**: the ``macau`` EVs come from the table's per-hand banker distributions;
the ``pagat`` probabilities from :func:`disjoint_counts` over the 32 tiles.
**Pok Deng**: the EVs come from the exact drawing strategy (``solver.pokdeng_play``).

>>> import numpy as np
>>> from solver.indexing import all_subsets
>>> hands = all_subsets(4, 2)                    # every 2-card hand of a 4-card deck
>>> c = disjoint_counts(hands, np.arange(6), deck=4)
>>> c.below.tolist(), c.above.tolist()           # hand i beats the disjoint hands j < i
([0, 0, 0, 1, 1, 1], [1, 1, 1, 0, 0, 0])
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations
from math import comb
from typing import Any

import numpy as np
import numpy.typing as npt

from .errors import BullError, TableError
from .indexing import BINOM, all_subsets

__all__ = [
    "DisjointCounts",
    "EdgeResult",
    "OddsResult",
    "PokDengEdge",
    "TauNgauEdge",
    "cli_edge",
    "cli_odds",
    "disjoint_counts",
    "edge",
    "fraction_text",
    "niuniu_edge",
    "niuniu_matchups",
    "odds",
    "pokdeng_edge",
    "taungau_edge",
]

TablesLike = str | os.PathLike[str] | None


def fraction_text(f: Fraction) -> str:
    """``"p/q"`` (always with a denominator).

    >>> fraction_text(Fraction(-3, 60)), fraction_text(Fraction(0))
    ('-1/20', '0/1')
    """
    return f"{f.numerator}/{f.denominator}"


def _commission(c: float | Fraction | None, default: float) -> Fraction:
    """A commission as an exact fraction: ``0.05`` is 1/20 (read from its decimal text)."""
    value = default if c is None else c
    if isinstance(value, Fraction):
        frac = value
    else:
        try:
            frac = Fraction(repr(float(value)))
        except (ValueError, OverflowError):
            raise BullError(f"commission {value!r} is not a number") from None
    if not 0 <= frac < 1:
        raise BullError(f"commission {value!r} must be a fraction in [0, 1), e.g. 0.05")
    return frac


def _group_sums(
    keys: npt.NDArray[np.integer], values: npt.NDArray[np.integer], n: int
) -> list[int]:
    """Exact integer sums of ``values`` per key 0..n-1.

    >>> _group_sums(np.array([0, 2, 0]), np.array([5, 7, 1]), 3)
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
    chunk: int = 1 << 18,
) -> DisjointCounts:
    """Inclusion-exclusion counts of weaker/equal/stronger disjoint hands for every hand.

    ``hands`` must be *every* sorted h-subset of ``range(deck)`` in colex order (row i has
    colex rank i, as :func:`solver.indexing.all_subsets` gives); ``strength`` orders them
    (ties allowed). ``weight``: integer weights, shape (n,) or (n, m) for m weightings at
    once, summed over the stronger disjoint hands (``weight_above`` has the same shape;
    no weight: ``weight_above`` is ``above``). Exact integers throughout; 5-10 s for
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
    w_sorted = [np.ascontiguousarray(w2[order, j]) for j in distinct]
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(s_sorted[1:], s_sorted[:-1], out=new[1:])
    run_id = np.cumsum(new) - 1  # dense strength rank per position
    starts = np.flatnonzero(new)
    ends = np.append(starts[1:], n)
    ties = len(starts) < n
    # per position in strength order: Σ_S (-1)^|S| of the counts below / at most, and of
    # the weight at most / in all, over the hands containing S (k = 0: every hand)
    lt = starts[run_id].astype(np.int64)
    le = ends[run_id].astype(np.int64)
    wle, wtot = [], []
    for j in range(m):
        cw = np.concatenate(([0], np.cumsum(w_sorted[j])))
        wle.append(cw[le])
        wtot.append(np.full(n, cw[-1], dtype=np.int64))
    cols = [np.ascontiguousarray(hands[order, j]).astype(np.intp) for j in range(h)]
    bits = max(int(n).bit_length(), 1)
    widest = max(
        (
            comb(deck, k).bit_length() + bits + max(comb(h, k) - 1, 1).bit_length()
            for k in range(1, h)
        ),
        default=0,
    )
    if widest > 63 or comb(deck - 1, h - 1) >= 1 << 31:
        raise ValueError(f"C({deck}, {h}) hands are too many for 64-bit subset keys")
    most = max(comb(h, k) for k in range(1, h)) * n if h > 1 else 0
    # buffers reused for every k, touched once in order (random first touches are slow)
    key_buf = np.zeros(most, dtype=np.int64)
    pack_buf = np.zeros(most, dtype=np.int64)
    w_buf = [np.zeros(most, dtype=np.int64) for _ in range(m)]
    for k in range(1, h):
        sign = -1 if k % 2 else 1
        g = comb(deck - k, h - k)  # hands containing a given k-subset
        combos = list(combinations(range(h), k))
        cbits = max(len(combos) - 1, 1).bit_length()
        size = n * len(combos)
        keys = key_buf[:size]
        tail = np.arange(n, dtype=np.int64) << cbits
        ranks = []
        for i, c in enumerate(combos):
            r = BINOM[:, 1][cols[c[0]]]
            for e in range(1, k):
                r = r + BINOM[:, e + 1][cols[c[e]]]
            ranks.append(r)
            out = keys[i * n : (i + 1) * n]
            np.left_shift(r, bits + cbits, out=out)
            out |= tail
            out |= i
        keys.sort()  # by subset, then strength order
        # per incidence (combo i, hand at position p), at slot i * n + p: the count of
        # weaker hands containing the subset << 32 | the count of equal ones
        packed = pack_buf[:size]
        out_w = [b[:size] for b in w_buf]
        wsub = [np.empty(comb(deck, k), dtype=np.int64) for _ in range(m)]
        step = max(g, (chunk // g) * g)  # blocks hold whole subsets
        for a in range(0, len(keys), step):
            blk = keys[a : a + step]
            nb = len(blk)
            pos = (blk >> cbits) & ((1 << bits) - 1)
            slot = (blk & ((1 << cbits) - 1)) * n + pos
            first = np.arange(0, nb, g)  # where each subset's hands begin
            gstart = np.repeat(first, g)
            if ties:
                rid = run_id[pos]
                brk = np.empty(nb, dtype=bool)
                brk[0] = True
                np.not_equal(rid[1:], rid[:-1], out=brk[1:])
                brk[first] = True
                rs = np.flatnonzero(brk)
                seg = np.cumsum(brk) - 1
                run_start = rs[seg]
                run_end = np.append(rs[1:], nb)[seg]
                del rid, brk, rs, seg
            else:
                run_start = np.arange(nb, dtype=np.int64)
                run_end = run_start + 1
            packed[slot] = ((run_start - gstart) << 32) | (run_end - run_start)
            for j in range(m):
                cwb = np.concatenate(([0], np.cumsum(w_sorted[j][pos])))
                out_w[j][slot] = cwb[run_end] - cwb[gstart]
                wsub[j][a // g : (a + nb) // g] = cwb[first + g] - cwb[first]
            del blk, pos, slot, gstart, run_start, run_end
        for i in range(len(combos)):
            part = packed[i * n : (i + 1) * n]
            below_k = part >> 32
            lt += sign * below_k
            le += sign * (below_k + (part & 0xFFFFFFFF))
            for j in range(m):
                wle[j] += sign * out_w[j][i * n : (i + 1) * n]
                wtot[j] += sign * wsub[j][ranks[i]]
    del key_buf, pack_buf, w_buf
    # k = h: the hand itself is the only hand containing it, and it ties with itself
    sign = -1 if h % 2 else 1
    le += sign
    for j in range(m):
        wle[j] += sign * w_sorted[j]
        wtot[j] += sign * w_sorted[j]
    total = comb(deck - h, h)
    inv = np.empty(n, dtype=np.int64)
    inv[order] = np.arange(n)
    below = lt[inv]
    above = total - le[inv]
    if w2.shape[1]:
        wa = np.stack(
            [
                above * const[j] if which[j] < 0 else (wtot[which[j]] - wle[which[j]])[inv]
                for j in range(w2.shape[1])
            ],
            axis=1,
        )
        weight_above = wa[:, 0] if flat else wa
    else:
        weight_above = above
    return DisjointCounts(
        below=below, equal=(le - lt)[inv], above=above, weight_above=weight_above, total=total
    )


# ---------------------------------------------------------------- Niu Niu


def _niuniu_rules(rules: Any) -> Any:
    from .niuniu import NiuNiuRules, load_rules

    return rules if isinstance(rules, NiuNiuRules) else load_rules(rules)


def _niuniu_columns(
    rules: Any, tables: TablesLike
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64], npt.NDArray[np.uint8]]:
    """(hands, strength, category) of all 2,598,960 hands in colex order under ``rules``:
    from the table for a preset, by direct evaluation for a rule file."""
    from .niuniu import PRESETS, evaluate_arrays, load_rules
    from .tables import open_table

    if rules.name in PRESETS and rules == load_rules(rules.name):
        t = open_table("niuniu", tables)
        if t.rules.get(rules.name) != rules.to_data():
            raise TableError(
                f"table niuniu was built with other {rules.name!r} rules than "
                "this solver's; rebuild with `bull build`"
            )
        hands = np.stack([t.column(f"c{i}") for i in range(5)], axis=1).astype(np.uint8)
        return (
            hands,
            t.column(f"{rules.name}_strength").astype(np.int64),
            t.column(f"{rules.name}_category").astype(np.uint8),
        )
    hands = all_subsets(52, 5)
    ev = evaluate_arrays(hands, rules)
    return hands, ev["strength"].astype(np.int64), ev["category"].astype(np.uint8)


@dataclass(frozen=True)
class NiuNiuMatchups:
    """Per player hand (colex order): the disjoint banker hands it beats (``below``),
    ties (``equal``) and loses to (``above``); ``mult_above[:, j]``: the sum of the
    stronger banker hands' multipliers for ``bets[j]``; ``category``: the player hand's
    own."""

    rules: str
    bets: tuple[str, ...]
    category: npt.NDArray[np.uint8]
    below: npt.NDArray[np.int32]
    equal: npt.NDArray[np.int32]
    above: npt.NDArray[np.int32]
    mult_above: npt.NDArray[np.int32]
    banker_hands: int
    seconds: float


_MATCHUPS: dict[tuple[str, str], NiuNiuMatchups] = {}


def niuniu_matchups(rules: Any = None, tables: TablesLike = None) -> NiuNiuMatchups:
    """The exact per-hand matchup counts under ``rules`` for every bet of the rule set
    (computed once per rule set and tables directory, then cached)."""
    import time

    r = _niuniu_rules(rules)
    key = (json.dumps(r.to_data(), sort_keys=True), os.fspath(tables) if tables else "")
    hit = _MATCHUPS.get(key)
    if hit is not None:
        return hit
    t0 = time.perf_counter()
    hands, strength, category = _niuniu_columns(r, tables)
    weights = np.stack(
        [np.asarray(r.multiplier_row(b), dtype=np.int64)[category] for b in r.bets], axis=1
    )
    c = disjoint_counts(hands, strength, 52, weights)
    # every count is below 2^31 (at most 1,533,939 hands times a small multiplier)
    out = NiuNiuMatchups(
        rules=r.name,
        bets=tuple(r.bets),
        category=category,
        below=c.below.astype(np.int32),
        equal=c.equal.astype(np.int32),
        above=c.above.astype(np.int32),
        mult_above=np.asarray(c.weight_above).astype(np.int32),
        banker_hands=c.total,
        seconds=time.perf_counter() - t0,
    )
    while len(_MATCHUPS) >= 4:  # keep four rule sets' arrays (about 60 MB each)
        del _MATCHUPS[next(iter(_MATCHUPS))]
    _MATCHUPS[key] = out
    return out


@dataclass(frozen=True)
class EdgeResult:
    """The player's exact expectation in Niu Niu over every pair of disjoint hands.

    ``ev`` is the player's net per unit staked; ``p_*`` are probabilities of the
    showdown; ``winner_category[label]``: the probability that the showdown is won (by
    either side) with a hand of that category; ``player_win_category``: the same, the
    player's wins only (the banker's are equal, the two hands being exchangeable);
    ``ev_by_category[label]``: the player's EV holding a hand of that category;
    ``seconds``: the computing time of the figure (the matchup counts, even if cached).
    """

    rules: str
    bet: str
    commission: Fraction
    pairs: int
    ev: Fraction
    p_win: Fraction
    p_loss: Fraction
    p_push: Fraction
    winner_category: Mapping[str, Fraction]
    player_win_category: Mapping[str, Fraction]
    ev_by_category: Mapping[str, Fraction]
    hands_by_category: Mapping[str, int]
    seconds: float = field(default=0.0, compare=False)

    def to_json(self) -> dict[str, Any]:
        """The ``bull edge niuniu --json`` object."""
        return {
            "game": "niuniu",
            "rules": self.rules,
            "bet": self.bet,
            "commission": float(self.commission),
            "commission_fraction": fraction_text(self.commission),
            "pairs": self.pairs,
            "ev": float(self.ev),
            "ev_fraction": fraction_text(self.ev),
            "house_edge": float(-self.ev),
            "p_win": float(self.p_win),
            "p_loss": float(self.p_loss),
            "p_push": float(self.p_push),
            "p_win_fraction": fraction_text(self.p_win),
            "p_loss_fraction": fraction_text(self.p_loss),
            "p_push_fraction": fraction_text(self.p_push),
            "winner_category": {k: float(v) for k, v in self.winner_category.items()},
            "winner_category_fraction": {
                k: fraction_text(v) for k, v in self.winner_category.items()
            },
            "ev_by_category": {k: float(v) for k, v in self.ev_by_category.items()},
            "seconds": round(self.seconds, 3),
        }


def niuniu_edge(
    rules: Any = None,
    bet: str | None = None,
    commission: float | Fraction | None = None,
    tables: TablesLike = None,
) -> EdgeResult:
    """The player's exact EV for ``bet`` (default: the rule set's default bet) with the
    house keeping ``commission`` of the player's winnings (default: the rule set's).

    The player wins ``m(P) (1 - c)`` when his hand P is stronger (m: the multiplier of
    the winning hand for the bet) and pays ``m(B)`` when the banker's B is stronger.
    """
    import time

    from .niuniu import Category

    t0 = time.perf_counter()
    r = _niuniu_rules(rules)
    bet_name = r.bet(bet)
    c = _commission(commission, r.commission)
    t1 = time.perf_counter()
    mu = niuniu_matchups(r, tables)
    lookup = time.perf_counter() - t1  # ~0 when the counts were cached
    j = mu.bets.index(bet_name)
    mult = np.asarray(r.multiplier_row(bet_name), dtype=np.int64)
    n = len(mu.category)
    pairs = n * mu.banker_hands
    ncat = len(Category)
    cat = mu.category.astype(np.int64)
    hands_k = np.bincount(cat, minlength=ncat)
    wins = _group_sums(cat, mu.below, ncat)
    paid = _group_sums(cat, mu.mult_above[:, j], ncat)
    rank = r.category_rank
    labels = [Category(i).label for i in sorted(range(ncat), key=lambda i: rank[i]) if rank[i] >= 0]
    ev_num = sum((1 - c) * int(mult[k]) * wins[k] - paid[k] for k in range(ncat))
    ev_by: dict[str, Fraction] = {}
    for label in labels:
        k = Category[label.upper()]
        if hands_k[k]:
            ev_by[label] = ((1 - c) * int(mult[k]) * wins[k] - paid[k]) / (
                int(hands_k[k]) * mu.banker_hands
            )
    win_total = sum(wins)
    push_total = int(mu.equal.sum(dtype=np.int64))
    loss_total = int(mu.above.sum(dtype=np.int64))
    if win_total + push_total + loss_total != pairs:
        raise AssertionError("matchup counts do not add up to every pair")
    player_k = {lb: Fraction(wins[Category[lb.upper()]], pairs) for lb in labels}
    return EdgeResult(
        rules=r.name,
        bet=bet_name,
        commission=c,
        pairs=pairs,
        ev=Fraction(ev_num) / pairs,
        p_win=Fraction(win_total, pairs),
        p_loss=Fraction(loss_total, pairs),
        p_push=Fraction(push_total, pairs),
        winner_category={lb: 2 * v for lb, v in player_k.items()},
        player_win_category=player_k,
        ev_by_category=ev_by,
        hands_by_category={lb: int(hands_k[Category[lb.upper()]]) for lb in labels},
        seconds=time.perf_counter() - t0 - lookup + mu.seconds,
    )


# ---------------------------------------------------------------- Tau Ngau


@dataclass(frozen=True)
class TauNgauEdge:
    """The player's exact EV in Tau Ngau over every (player, banker) pair of disjoint
    5-tile hands (201,376 x 80,730).

    ``ev_always_declare``: always setting a bull aside when there is one;
    ``ev_optimal_first`` / ``ev_optimal_last``: declining optimally when the banker
    shows first / last; ``ev_optimal``: the one for ``banker_reveals``. Under even-money
    settlement (no decline) all three are equal. ``p_win``/``p_push``/``p_loss``: the
    showdown's outcome when always declaring. ``decline_last``: how many hands decline
    when the banker reveals last; ``decline_from``: per player score, the lowest banker
    score at which declining is right when the banker reveals first (``None``: never);
    ``ev_by_score``: the player's EV of declaring, per best score (and ``"no_bull"``).
    """

    rules: str
    settlement: str
    banker_reveals: str
    pairs: int
    ev_always_declare: Fraction
    ev_optimal: Fraction
    ev_optimal_first: Fraction
    ev_optimal_last: Fraction
    p_win: Fraction
    p_push: Fraction
    p_loss: Fraction
    decline_last: int
    decline_from: Mapping[int, int | None]
    ev_by_score: Mapping[str, Fraction]
    hands_by_score: Mapping[str, int]

    def to_json(self) -> dict[str, Any]:
        """The ``bull edge taungau --json`` object."""
        out: dict[str, Any] = {
            "game": "taungau",
            "rules": self.rules,
            "settlement": self.settlement,
            "banker_reveals": self.banker_reveals,
            "pairs": self.pairs,
        }
        for name in (
            "ev_always_declare",
            "ev_optimal",
            "ev_optimal_first",
            "ev_optimal_last",
            "p_win",
            "p_push",
            "p_loss",
        ):
            value: Fraction = getattr(self, name)
            out[name] = float(value)
            out[name + "_fraction"] = fraction_text(value)
        out["decline_last_hands"] = self.decline_last
        out["decline_from"] = {str(k): v for k, v in self.decline_from.items()}
        out["ev_by_score"] = {k: float(v) for k, v in self.ev_by_score.items()}
        return out


def _taungau_rules(rules: Any) -> Any:
    from .taungau import TauNgauRules, load_rules

    return rules if isinstance(rules, TauNgauRules) else load_rules(rules)


def _taungau_strength(r: Any, tables: TablesLike) -> tuple[npt.NDArray[np.int64], Any]:
    """(strength of every hand in colex order, the table or None for a rule file)."""
    from .tables import open_table
    from .taungau import PRESETS, analyse, best_plays, load_rules

    if r.name in PRESETS and r == load_rules(r.name):
        t = open_table("taungau", tables)
        if t.rules.get(r.name) != r.to_data():
            raise TableError(
                f"table taungau was built with other {r.name!r} rules than "
                "this solver's; rebuild with `bull build`"
            )
        return t.column(f"{r.name}_strength").astype(np.int64), t
    return best_plays(analyse(all_subsets(32, 5)), r).strength.astype(np.int64), None


def taungau_edge(
    rules: Any = None, banker_reveals: str | None = None, tables: TablesLike = None
) -> TauNgauEdge:
    """Exact Tau Ngau EVs (see :class:`TauNgauEdge`). ``macau`` uses the table's
    per-hand banker distributions; even-money rule sets count weaker/equal/stronger
    disjoint banker hands by inclusion-exclusion over the tiles."""
    from .taungau import BANKER_HANDS, HAND_COUNT, banker_distribution

    r = _taungau_rules(rules)
    reveals = banker_reveals or r.banker_reveals
    if reveals not in ("first", "last"):
        raise BullError(f"banker_reveals {reveals!r}: expected first or last")
    strength, table = _taungau_strength(r, tables)
    pairs = HAND_COUNT * BANKER_HANDS
    hands_s = np.bincount(strength, minlength=11)

    def score_label(s: int) -> str:
        sc = r.score_of_strength(s)
        return "no_bull" if sc is None else str(sc)

    labels = {s: score_label(s) for s in range(11) if hands_s[s]}
    if r.settlement == "even_money":
        c = disjoint_counts(all_subsets(32, 5), strength, 32)
        win, push, loss = (int(c.below.sum()), int(c.equal.sum()), int(c.above.sum()))
        ev = Fraction(win - loss, pairs)
        per = _group_sums(strength, c.below - c.above, 11)
        ev_by = {labels[s]: Fraction(per[s], int(hands_s[s]) * BANKER_HANDS) for s in labels}
        return TauNgauEdge(
            rules=r.name,
            settlement=r.settlement,
            banker_reveals=reveals,
            pairs=pairs,
            ev_always_declare=ev,
            ev_optimal=ev,
            ev_optimal_first=ev,
            ev_optimal_last=ev,
            p_win=Fraction(win, pairs),
            p_push=Fraction(push, pairs),
            p_loss=Fraction(loss, pairs),
            decline_last=0,
            decline_from={r.score_of_strength(s): None for s in range(1, 11)},
            ev_by_score=ev_by,
            hands_by_score={labels[s]: int(hands_s[s]) for s in labels},
        )
    # difference settlement: the player's net is payoff(p) - payoff(b), or -pays
    if table is not None and f"{r.name}_banker_0" in table.column_names:
        dist = np.stack([table.column(f"{r.name}_banker_{k}") for k in range(11)], axis=1).astype(
            np.int64
        )
    else:
        dist = banker_distribution(strength).astype(np.int64)
    pays = r.no_bull_pays
    payoff = np.array([r.payoff_value(s) for s in range(11)], dtype=np.int64)
    gain = payoff[strength][:, None] - payoff[None, :]  # (n, 11)
    has = strength > 0
    declare = np.where(has, (dist * gain).sum(axis=1), -pays * BANKER_HANDS)
    if r.decline_allowed:
        first = np.where(has, (dist * np.maximum(gain, -pays)).sum(axis=1), -pays * BANKER_HANDS)
        last = np.maximum(declare, -pays * BANKER_HANDS)
        n_decline = int((has & (declare < -pays * BANKER_HANDS)).sum())
        decline_from = {
            int(payoff[s]): (
                int(payoff[s]) + pays + 1 if payoff[s] + pays + 1 <= r.max_score else None
            )
            for s in range(1, 11)
        }
    else:
        first = last = declare
        n_decline = 0
        decline_from = {int(payoff[s]): None for s in range(1, 11)}
    win = int((dist * (gain > 0) * has[:, None]).sum())
    push = int((dist * (gain == 0) * has[:, None]).sum())
    per = _group_sums(strength, declare, 11)
    ev_by = {labels[s]: Fraction(per[s], int(hands_s[s]) * BANKER_HANDS) for s in labels}
    ev_first = Fraction(int(first.sum()), pairs)
    ev_last = Fraction(int(last.sum()), pairs)
    return TauNgauEdge(
        rules=r.name,
        settlement=r.settlement,
        banker_reveals=reveals,
        pairs=pairs,
        ev_always_declare=Fraction(int(declare.sum()), pairs),
        ev_optimal=ev_first if reveals == "first" else ev_last,
        ev_optimal_first=ev_first,
        ev_optimal_last=ev_last,
        p_win=Fraction(win, pairs),
        p_push=Fraction(push, pairs),
        p_loss=Fraction(pairs - win - push, pairs),
        decline_last=n_decline,
        decline_from=decline_from,
        ev_by_score=ev_by,
        hands_by_score={labels[s]: int(hands_s[s]) for s in labels},
    )


# ---------------------------------------------------------------- Pok Deng


@dataclass(frozen=True)
class PokDengEdge:
    """The player's exact EV in Pok Deng, heads-up with card removal (RULES §5), over all
    1,326 two-card starts: ``ev_optimal`` drawing optimally, ``ev_simple`` drawing on 4 or
    less; ``draws_optimal``: how many starts draw under the optimal strategy."""

    rules: str
    dealer_draws_at_most: int
    ev_optimal: Fraction
    ev_simple: Fraction
    draws_optimal: int
    ev_by_points: Mapping[str, Fraction]

    def to_json(self) -> dict[str, Any]:
        """The ``bull edge pokdeng --json`` object."""
        return {
            "game": "pokdeng",
            "rules": self.rules,
            "dealer_draws_at_most": self.dealer_draws_at_most,
            "ev_optimal": float(self.ev_optimal),
            "ev_optimal_fraction": fraction_text(self.ev_optimal),
            "ev_simple": float(self.ev_simple),
            "ev_simple_fraction": fraction_text(self.ev_simple),
            "draws_optimal": self.draws_optimal,
            "ev_by_points": {k: float(v) for k, v in self.ev_by_points.items()},
        }


def pokdeng_edge(rules: Any = None, dealer_draws_at_most: int | None = None) -> PokDengEdge:
    """Exact overall EVs from the exact drawing strategy (``solver.pokdeng_strategy``)."""
    from .pokdeng import HandType, PokDengRules, load_rules
    from .pokdeng_strategy import DRAW_DEN, solve

    r = rules if isinstance(rules, PokDengRules) else load_rules(rules)
    k = r.dealer_draws_at_most if dealer_draws_at_most is None else dealer_draws_at_most
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= 9:
        raise BullError(
            f"dealer policy {k!r}: the dealer draws at a total of K or less, K an integer 0..9"
        )
    sol = solve(r, k)
    stand = sol.ev_stand_num.astype(np.int64)
    draw = sol.ev_draw_num.astype(np.int64)
    pok = sol.type == HandType.POK
    best = np.where(pok, stand, np.maximum(stand, draw))
    simple = np.where(~pok & (sol.points <= 4), draw, stand)
    den = len(stand) * DRAW_DEN
    by: dict[str, Fraction] = {}
    for p in range(10):
        for is_pok in (False, True):
            m = (sol.points == p) & (pok == is_pok)
            if m.any():
                label = f"pok_{p}" if is_pok else str(p)
                by[label] = Fraction(int(best[m].sum()), int(m.sum()) * DRAW_DEN)
    return PokDengEdge(
        rules=r.name,
        dealer_draws_at_most=k,
        ev_optimal=Fraction(int(best.sum()), den),
        ev_simple=Fraction(int(simple.sum()), den),
        draws_optimal=int((~pok & (draw > stand)).sum()),
        ev_by_points=by,
    )


def edge(
    game: str, rules: Any = None, tables: TablesLike = None, **options: Any
) -> EdgeResult | TauNgauEdge | PokDengEdge:
    """Dispatch: :func:`niuniu_edge` (``bet``, ``commission``), :func:`taungau_edge`
    (``banker_reveals``) or :func:`pokdeng_edge` (``dealer_draws_at_most``)."""
    allowed = {
        "niuniu": ("bet", "commission"),
        "taungau": ("banker_reveals",),
        "pokdeng": ("dealer_draws_at_most",),
    }
    if game not in allowed:
        raise BullError(f"unknown game {game!r} (expected one of: {', '.join(allowed)})")
    flags = {
        "bet": "--bet",
        "commission": "--commission",
        "banker_reveals": "--banker-reveals",
        "dealer_draws_at_most": "--dealer-draws-at-most",
    }
    for key, value in options.items():
        if value is not None and key not in allowed[game]:
            raise BullError(f"option {flags.get(key, key)} does not apply to {game}")
    if game == "niuniu":
        return niuniu_edge(rules, options.get("bet"), options.get("commission"), tables)
    if game == "taungau":
        return taungau_edge(rules, options.get("banker_reveals"), tables)
    return pokdeng_edge(rules, options.get("dealer_draws_at_most"))


# ---------------------------------------------------------------- odds


@dataclass(frozen=True)
class OddsResult:
    """Exact counts of every category/score/type: ``sections[name]`` lists
    ``(label, count)`` over ``totals[name]`` hands."""

    game: str
    rules: str
    sections: Mapping[str, tuple[tuple[str, int], ...]]
    totals: Mapping[str, int]

    def probability(self, section: str, label: str) -> Fraction:
        return Fraction(dict(self.sections[section])[label], self.totals[section])

    def to_json(self) -> dict[str, Any]:
        """The ``bull odds --json`` object."""
        return {
            "game": self.game,
            "rules": self.rules,
            "totals": dict(self.totals),
            "sections": {
                name: [
                    {
                        "label": lb,
                        "count": n,
                        "probability": n / self.totals[name],
                        "fraction": fraction_text(Fraction(n, self.totals[name])),
                    }
                    for lb, n in rows
                ]
                for name, rows in self.sections.items()
            },
        }


def _niuniu_odds(rules: Any, tables: TablesLike) -> OddsResult:
    from .niuniu import PRESETS, SPECIALS, Category, evaluate_arrays, load_rules
    from .tables import open_table

    r = _niuniu_rules(rules)
    _, _, category = _niuniu_columns(r, tables)
    if r.name in PRESETS and r == load_rules(r.name):
        t = open_table("niuniu", tables)
        points = t.column("points").astype(np.int64)
        flags = {sp: t.column(sp) for sp in SPECIALS}
    else:  # a rule file may define the specials differently
        ev = evaluate_arrays(all_subsets(52, 5), r)
        points = ev["points"].astype(np.int64)
        flags = {sp: ev[sp] for sp in SPECIALS}
    total = len(points)
    rank = r.category_rank
    cats = np.bincount(category.astype(np.int64), minlength=len(Category))
    order = sorted((i for i in range(len(Category)) if rank[i] >= 0), key=lambda i: rank[i])
    base = np.bincount(points, minlength=11)
    return OddsResult(
        game="niuniu",
        rules=r.name,
        sections={
            "category": tuple((Category(i).label, int(cats[i])) for i in order),
            "points": tuple(
                ("no_bull" if p == 0 else "niu_niu" if p == 10 else f"niu_{p}", int(base[p]))
                for p in range(11)
            ),
            "specials_before_precedence": tuple(
                (s, int(np.count_nonzero(flags[s]))) for s in SPECIALS
            ),
        },
        totals={"category": total, "points": total, "specials_before_precedence": total},
    )


def _taungau_odds(rules: Any, tables: TablesLike) -> OddsResult:
    r = _taungau_rules(rules)
    strength, _ = _taungau_strength(r, tables)
    counts = np.bincount(strength, minlength=11)
    rows = [("no_bull", int(counts[0]))]
    for s in range(1, 11):  # bull strengths, worst to best
        rows.append((str(r.score_of_strength(s)), int(counts[s])))
    return OddsResult(
        game="taungau",
        rules=r.name,
        sections={"best_score": tuple(rows)},
        totals={"best_score": len(strength)},
    )


def _pokdeng_odds(rules: Any, tables: TablesLike) -> OddsResult:
    from .pokdeng import HandType, PokDengRules, classify_all, load_rules
    from .pokdeng_strategy import CONFIGS
    from .tables import open_table

    r = rules if isinstance(rules, PokDengRules) else load_rules(rules)
    if r.name in CONFIGS and r == load_rules(r.name):
        t = open_table("pokdeng", tables)
        if t.rules.get(r.name) != r.to_data():
            raise TableError(
                f"table pokdeng was built with other {r.name!r} rules than "
                "this solver's; rebuild with `bull build`"
            )
        size = t.column("size")
        typ, pts, dg = (t.column(f"{r.name}_type"), t.column("points"), t.column(f"{r.name}_deng"))
        cls: dict[int, tuple[Any, ...]] = {
            n: (typ[size == n], pts[size == n], dg[size == n]) for n in (2, 3)
        }
    else:
        cls = dict(classify_all(r))
    sections: dict[str, tuple[tuple[str, int], ...]] = {}
    totals: dict[str, int] = {}
    for n in (2, 3):
        typ, pts, dg = (np.asarray(a).astype(np.int64) for a in cls[n])
        rows_t = [
            (HandType(v).label, int((typ == v).sum()))
            for v in sorted(set(typ.tolist()), reverse=True)
        ]
        rows_p = []
        for v in sorted(set(typ.tolist()), reverse=True):
            for p in range(10):
                cnt = int(((typ == v) & (pts == p)).sum())
                if cnt:
                    rows_p.append((f"{HandType(v).label}_{p}", cnt))
        rows_d = [(str(d), int((dg == d).sum())) for d in sorted(set(dg.tolist()))]
        sections[f"{n}_card_type"] = tuple(rows_t)
        sections[f"{n}_card_type_points"] = tuple(rows_p)
        sections[f"{n}_card_deng"] = tuple(rows_d)
        totals |= {
            f"{n}_card_type": len(typ),
            f"{n}_card_type_points": len(typ),
            f"{n}_card_deng": len(typ),
        }
    return OddsResult(game="pokdeng", rules=r.name, sections=sections, totals=totals)


def odds(game: str, rules: Any = None, tables: TablesLike = None) -> OddsResult:
    """Exact count and probability of every category (Niu Niu), best score (Tau Ngau) or
    type/points/deng (Pok Deng) under ``rules``."""
    if game == "niuniu":
        return _niuniu_odds(rules, tables)
    if game == "taungau":
        return _taungau_odds(rules, tables)
    if game == "pokdeng":
        return _pokdeng_odds(rules, tables)
    raise BullError(f"unknown game {game!r} (expected one of: niuniu, taungau, pokdeng)")


# ---------------------------------------------------------------- CLI


def _pct(f: Fraction | float) -> str:
    return f"{100 * float(f):.4f}%"


def odds_text(res: OddsResult) -> str:
    """Plain-text tables of an :class:`OddsResult`."""
    lines = [f"{res.game} odds [{res.rules}]"]
    for name, rows in res.sections.items():
        lines.append(f"\n{name.replace('_', ' ')} (of {res.totals[name]:,} hands)")
        width = max(len(lb) for lb, _ in rows)
        for lb, n in rows:
            lines.append(f"  {lb:<{width}}  {n:>10,}  {_pct(Fraction(n, res.totals[name])):>10}")
    return "\n".join(lines)


def edge_text(res: EdgeResult | TauNgauEdge | PokDengEdge) -> str:
    """Plain-text summary of an edge result."""
    if isinstance(res, EdgeResult):
        lines = [
            f"niuniu edge [{res.rules}], bet {res.bet}, commission "
            f"{float(res.commission):g}, over {res.pairs:,} pairs of disjoint hands",
            f"  player EV per stake: {float(res.ev):+.6f} (exact {fraction_text(res.ev)});"
            f" house edge {_pct(-res.ev)}",
            f"  P(win) {_pct(res.p_win)}  P(loss) {_pct(res.p_loss)}  P(push) {_pct(res.p_push)}",
            "  winning hand's category (either side):",
        ]
        for lb, v in res.winner_category.items():
            lines.append(f"    {lb:<16} {_pct(v):>10}")
        lines.append(f"  computed in {res.seconds:.1f} s")
        return "\n".join(lines)
    if isinstance(res, TauNgauEdge):
        lines = [
            f"taungau edge [{res.rules}], settlement {res.settlement}, over "
            f"{res.pairs:,} pairs of disjoint hands",
            f"  always declaring: {float(res.ev_always_declare):+.6f} "
            f"(exact {fraction_text(res.ev_always_declare)})",
            f"  declining optimally, banker reveals first: "
            f"{float(res.ev_optimal_first):+.6f} ({fraction_text(res.ev_optimal_first)})",
            f"  declining optimally, banker reveals last:  "
            f"{float(res.ev_optimal_last):+.6f} ({fraction_text(res.ev_optimal_last)})",
            f"  optimal for banker_reveals={res.banker_reveals}: {float(res.ev_optimal):+.6f}",
            f"  always declaring: P(win) {_pct(res.p_win)}  P(push) {_pct(res.p_push)}  "
            f"P(loss) {_pct(res.p_loss)}",
        ]
        return "\n".join(lines)
    return "\n".join(
        [
            f"pokdeng edge [{res.rules}], dealer draws on {res.dealer_draws_at_most} or less",
            f"  optimal drawing:     {float(res.ev_optimal):+.6f} "
            f"(exact {fraction_text(res.ev_optimal)}); {res.draws_optimal} of 1,326 starts draw",
            f"  draw on 4 or less:   {float(res.ev_simple):+.6f} "
            f"(exact {fraction_text(res.ev_simple)})",
        ]
    )


def cli_odds(args: Any, out: Any) -> int:
    """``bull odds GAME [--rules] [--json]``."""
    res = odds(args.game, args.rules, args.tables)
    if args.json:
        out.write(json.dumps(res.to_json(), ensure_ascii=False) + "\n")
    else:
        out.write(odds_text(res) + "\n")
    return 0


def cli_edge(args: Any, out: Any) -> int:
    """``bull edge GAME [--rules] [options] [--json]``."""
    options = {
        k: getattr(args, k, None)
        for k in ("bet", "commission", "banker_reveals", "dealer_draws_at_most")
    }
    res = edge(args.game, args.rules, args.tables, **options)
    if args.json:
        out.write(json.dumps(res.to_json(), ensure_ascii=False) + "\n")
    else:
        out.write(edge_text(res) + "\n")
    return 0
