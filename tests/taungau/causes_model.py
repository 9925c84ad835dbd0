"""The Tau Ngau implementations of the cause tests (:mod:`taungau.test_causes`), written
from RULES.md §4 with a switch per catalogued rule option and mistake: the hands, the
vectorised play of a hand and what a banker hand of the other 27 tiles scores.

It shares no code with ``solver`` and imports only numpy and the reference's tile list
(:mod:`taungau.fixtures`): the ``bull probe`` peers (``tests/_model_peer.py``) run it in
a child process each, and start without pytest, pyarrow or the solver.

The counts of banker hands by strength (:func:`subset_counts`, the same in every
process) are kept in the suite's cache folder (``$BULL_SUITE_CACHE``, made by
``tests/conftest.py`` for a run and inherited by its peers), keyed by this module's and
the reference's source: the first process of a run counts them, the others read the
file. Without that variable each process counts them itself.
"""

from __future__ import annotations

import hashlib
import os
import random
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache
from itertools import chain, combinations
from math import comb
from pathlib import Path

import numpy as np
import numpy.typing as npt

from taungau import fixtures as ref

TRIPLES = list(combinations(range(5), 3))
RESTS = [[p for p in range(5) if p not in t] for t in TRIPLES]
WILD = [ref.TILE_TYPE.index((2, 1)), ref.TILE_TYPE.index((4, 2))]
TYPE_IDX = np.array([ref.TYPES.index(t) for t in ref.TILE_TYPE], dtype=np.int64)
PIPS = np.array([a + b for a, b in ref.TILE_TYPE], dtype=np.int64)
WILD_TYPES = {int(TYPE_IDX[w]) for w in WILD}
BANKER_HANDS = 80_730
rng_order = TRIPLES[:]
random.Random(1313).shuffle(rng_order)
OWN_ORDER = [TRIPLES.index(t) for t in rng_order]  # a wrong-bull player's search order


@dataclass(frozen=True)
class Impl:
    """One implementation: the rules it follows and the mistakes it makes."""

    zero: int = 10
    bull: str = ""  # "", "first", "first_written", "wild_in_bull", "claimed"
    # (first: of the hand sorted; first_written: as written, the hands then written shuffled)
    values: str = ""  # "", "fixed3", "fixed6", "rest3"
    settlement: str = "difference"
    no_bull_pays: int | str = 4
    decline: bool = True
    reveals: str = "last"


MACAU = Impl()
PAGAT = Impl(zero=0, settlement="even_money", decline=False)


# ---------------------------------------------------------------- hands


@cache
def physical_hands() -> npt.NDArray[np.int64]:
    """All C(32, 5) = 201,376 hands of tile indices (``ref.TILE_TYPE`` order)."""
    flat = np.fromiter(
        chain.from_iterable(combinations(range(32), 5)), dtype=np.int64, count=201_376 * 5
    )
    return flat.reshape(-1, 5)


@cache
def distinct_hands() -> npt.NDArray[np.int64]:
    """One physical hand per multiset of tile types: the 33,934 distinct hands."""
    h = physical_hands()
    _, first = np.unique(TYPE_IDX[h], axis=0, return_index=True)
    out = h[np.sort(first)]
    assert len(out) == 33_934  # RULES §6
    return out


def tile_values(hands: npt.NDArray[np.int64], choice: int) -> npt.NDArray[np.int64]:
    """(n, 5) values under a 3/6 choice: bit 0 [2:1] is 6, bit 1 [4:2] is 6."""
    v = PIPS[hands].copy()
    v[hands == WILD[0]] = 6 if choice & 1 else 3
    v[hands == WILD[1]] = 6 if choice & 2 else 3
    return v


def strength(impl: Impl, digit: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """1..10 worst to best bull of a last digit."""
    return np.where(digit == 0, 10, digit) if impl.zero == 10 else digit + 1


def evaluate(
    impl: Impl, hands: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(strength 0..10, the triple index the player claims; -1: no bull)."""
    n = len(hands)
    choices = {"fixed3": [0], "fixed6": [3]}.get(impl.values, [0, 1, 2, 3])
    vals = {c: tile_values(hands, c) for c in range(4)}
    # best[t]: the best strength the triple t gives as a bull (0: no bull)
    best = np.zeros((10, n), dtype=np.int64)
    for t, tri in enumerate(TRIPLES):
        for c in choices:
            ok = vals[c][:, tri].sum(axis=1) % 10 == 0
            rest = vals[0 if impl.values == "rest3" else c][:, RESTS[t]]
            s = strength(impl, rest.sum(axis=1) % 10)
            best[t] = np.maximum(best[t], np.where(ok, s, 0))
    is_bull = best > 0
    if impl.bull in ("first", "first_written", "claimed"):  # the hand's order as given
        order = list(range(10)) if impl.bull != "claimed" else OWN_ORDER
        pick = np.full(n, -1, dtype=np.int64)
        for t in reversed(order):
            pick = np.where(is_bull[t], t, pick)
        got = np.where(pick >= 0, best[np.maximum(pick, 0), np.arange(n)], 0)
        return got, pick
    if impl.bull == "wild_in_bull":
        has_wild = np.stack([np.isin(hands[:, tri], WILD).any(axis=1) for tri in TRIPLES])
        wild_bull = np.asarray((is_bull & has_wild).any(axis=0), dtype=bool)
        best = np.where(wild_bull[None] & ~has_wild, 0, best)
    got = best.max(axis=0)
    pick = np.where(got > 0, np.argmax(best == got[None], axis=0), -1)
    return got, pick


def points_of(impl: Impl, s: npt.NDArray[np.int64]) -> list[int | None]:
    if impl.zero == 10:
        return [int(x) for x in s.tolist()]  # no bull scores 0
    return [None if x == 0 else x - 1 for x in s.tolist()]


# ---------------------------------------------------------------- settlement


def payoff(impl: Impl, s: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The number settled under ``difference``: the score (0 for no bull)."""
    return s if impl.zero == 10 else np.maximum(s - 1, 0)


def no_bull(impl: Impl, bs: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    if impl.no_bull_pays == "banker_score":
        return np.where(bs > 0, payoff(impl, bs), 4)
    return np.full(len(bs), int(impl.no_bull_pays), dtype=np.int64)


# ---------------------------------------------------------------- banker hands

SUBSET_AT = [sum(comb(32, k) for k in range(r)) for r in range(7)]
"""Where the sets of r tiles start in :func:`subset_counts` (r = 0..5, and the end)."""
CHOOSE = np.array([[comb(t, k) for k in range(6)] for t in range(32)], dtype=np.int64)


def subset_index(tiles: npt.NDArray[np.int64], positions: tuple[int, ...]) -> npt.NDArray[np.int64]:
    """Per row of ``tiles`` (ascending), the row of :func:`subset_counts` of the set of
    its tiles at ``positions`` (ascending): the sets of r tiles in colex order, after
    the smaller sets."""
    at = np.full(len(tiles), SUBSET_AT[len(positions)], dtype=np.int64)
    for k, j in enumerate(positions):
        at += CHOOSE[tiles[:, j], k + 1]
    return at


@cache
def all_strengths(zero: int) -> npt.NDArray[np.int64]:
    """The strength (best play) of every physical hand."""
    return evaluate(replace(MACAU, zero=zero), physical_hands())[0]


def _count_subsets(zero: int) -> npt.NDArray[np.int32]:
    h = physical_hands()  # ascending rows
    strengths = all_strengths(zero)
    keys = [
        subset_index(h, c) * 11 + strengths for r in range(6) for c in combinations(range(5), r)
    ]
    counts = np.bincount(np.concatenate(keys), minlength=SUBSET_AT[6] * 11)
    return counts.astype(np.int32).reshape(-1, 11)


def _source_key() -> str:
    here = Path(__file__)
    text = here.read_bytes() + Path(ref.__file__).read_bytes()
    return hashlib.sha256(text).hexdigest()[:16]


def suite_cached(name: str, compute: Callable[[], npt.NDArray[np.int32]]) -> npt.NDArray[np.int32]:
    """``compute()``, kept as ``name``-(source key).npy in ``$BULL_SUITE_CACHE`` when it
    is set: read if there, else computed and written atomically (a temporary file in the
    same folder, then renamed), so that processes running at once never read half a file.
    """
    folder = os.environ.get("BULL_SUITE_CACHE")
    if not folder:
        return compute()
    path = Path(folder) / f"{name}-{_source_key()}.npy"
    try:
        return np.asarray(np.load(path, allow_pickle=False))
    except (OSError, ValueError):
        pass
    got = compute()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as f:
            np.save(f, got, allow_pickle=False)
        os.replace(tmp, path)
    except OSError:
        pass
    return got


@cache
def subset_counts(zero: int) -> npt.NDArray[np.int32]:
    """For every set S of at most 5 tiles (row :func:`subset_index`) and every strength
    s (column): how many hands hold S and have strength s (inclusion-exclusion over S
    then counts the hands disjoint from a player's)."""
    return suite_cached(f"taungau-subset-counts-zero{zero}", lambda: _count_subsets(zero))


def banker_counts(zero: int, player: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """(n, 11): per player hand, the banker hands of the other 27 tiles by strength."""
    counts = subset_counts(zero)
    tiles = np.sort(player, axis=1)
    out = np.zeros((len(player), 11), dtype=np.int64)
    for r in range(6):
        for c in combinations(range(5), r):
            got = counts[subset_index(tiles, c)]
            out += got if r % 2 == 0 else -got
    assert (out.sum(axis=1) == BANKER_HANDS).all()
    return out
