"""Tau Ngau test helpers: an independent pure-Python reference and a tables directory.

The reference follows RULES.md §4 literally and shares no code with ``solver``: it
lists the tile set from the rules' own text, tries every bull (triple of positions,
lexicographic) under every 3/6 assignment of every [4:2]/[2:1] (3 before 6), and keeps
every valid (bull, values, score). It is slow but obviously right; hands are cached by
their multiset of types (and every hand's macau score, for counting banker hands, once
per process).
"""

from __future__ import annotations

from functools import cache
from itertools import combinations, product
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

# RULES §4, verbatim lists
CIVIL = [
    "[6:6]",
    "[1:1]",
    "[4:4]",
    "[3:1]",
    "[5:5]",
    "[3:3]",
    "[2:2]",
    "[6:5]",
    "[6:4]",
    "[6:1]",
    "[5:1]",
]
MILITARY = [
    "[6:3]",
    "[5:4]",
    "[6:2]",
    "[5:3]",
    "[5:2]",
    "[4:3]",
    "[4:2]",
    "[4:1]",
    "[3:2]",
    "[2:1]",
]
WILD = {(4, 2), (2, 1)}


def _pips(name: str) -> tuple[int, int]:
    a, b = name.strip("[]").split(":")
    return int(a), int(b)


# RULES §8: tiles print by (high, low) ascending; the brief's id encoding gives each
# civil type two consecutive ids, each military type one, in that order.
TYPES: list[tuple[int, int]] = sorted(_pips(n) for n in CIVIL + MILITARY)
COPIES = {t: (2 if f"[{t[0]}:{t[1]}]" in CIVIL else 1) for t in TYPES}
TILE_TYPE: list[tuple[int, int]] = [t for t in TYPES for _ in range(COPIES[t])]
NAMES: list[str] = [f"[{h}:{lo}]" for h, lo in TILE_TYPE]
assert len(TYPES) == 21 and len(TILE_TYPE) == 32


def options(tile: tuple[int, int]) -> list[int]:
    """Values a tile may take: its pips, or 3 then 6 for [4:2]/[2:1]."""
    return [3, 6] if tile in WILD else [tile[0] + tile[1]]


@cache
def plays(
    types: tuple[tuple[int, int], ...],
) -> tuple[tuple[tuple[int, ...], tuple[int, ...], int], ...]:
    """Every valid (bull positions, values of all five tiles, last digit), in canonical
    order: triples lexicographic, then values lexicographic with 3 before 6."""
    out = []
    assignments = list(product(*(options(t) for t in types)))  # the same for every triple
    for triple in combinations(range(5), 3):
        a, b, c = triple
        for values in assignments:
            if (values[a] + values[b] + values[c]) % 10 == 0:
                out.append((triple, values, sum(values) % 10))
    return tuple(out)


def macau_score(digit: int) -> int:
    return 10 if digit == 0 else digit


@cache
def evaluate(types: tuple[tuple[int, int], ...], preset: str) -> dict[str, Any]:
    """The best play of a sorted hand of types under ``macau`` or ``pagat``."""
    valid = plays(types)
    reach = sorted({d for _, _, d in valid})
    if not valid:
        return {"has_bull": False, "reachable": reach, "score": None, "bull": None, "values": None}
    key = macau_score if preset == "macau" else (lambda d: d)
    best = max(key(d) for _, _, d in valid)
    triple, values, _ = next(v for v in valid if key(v[2]) == best)
    wild = {t: v for t, v in zip(types, values, strict=True) if t in WILD}
    return {"has_bull": True, "reachable": reach, "score": best, "bull": triple, "values": wild}


def hand_types(ids: tuple[int, ...] | list[int]) -> tuple[tuple[int, int], ...]:
    return tuple(sorted(TILE_TYPE[i] for i in ids))


def macau_points(ids: tuple[int, ...] | list[int]) -> int:
    """Banker's (or player's) score under macau; 0 for no bull."""
    r = evaluate(hand_types(ids), "macau")
    return 0 if r["score"] is None else int(r["score"])


@cache
def every_hand() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Every hand of 5 of the 32 tiles: its tiles as a bit mask, and its macau score
    (:func:`macau_points`), once per process."""
    hands = list(combinations(range(32), 5))
    bits = np.array([sum(1 << t for t in h) for h in hands], dtype=np.int64)
    return bits, np.array([macau_points(h) for h in hands], dtype=np.int64)


def banker_counts(player: tuple[int, ...] | list[int]) -> list[int]:
    """Direct enumeration: the banker's macau score over every hand of the other 27
    (every hand sharing no tile with the player's)."""
    bits, points = every_hand()
    held = sum(1 << t for t in set(player))
    return [int(c) for c in np.bincount(points[(bits & held) == 0], minlength=11)]


# ---------------------------------------------------------------- settlement

FIXED_MACAU_NO_BULL_VS_NO_BULL = 4  # RULES §9: "4 stakes otherwise"


def difference_net(p: int, b: int, declines: bool, no_bull_pays: int | str) -> int:
    """The player's net under ``difference`` settlement from the rules' text: scores
    ``p`` and ``b`` on the macau scale (0 = no bull). A player without a bull, or one who
    declines his bull, pays ``no_bull_pays`` stakes; under ``"banker_score"`` (fixed
    Macau) the banker's score when the banker has a bull, 4 when he has none. Otherwise
    the player receives p - b."""
    if p == 0 or declines:
        if no_bull_pays == "banker_score":
            return -(b if b > 0 else FIXED_MACAU_NO_BULL_VS_NO_BULL)
        assert isinstance(no_bull_pays, int)
        return -no_bull_pays
    return p - b


def decline_evs(p: int, counts: list[int], no_bull_pays: int | str) -> dict[str, int]:
    """Exact EV numerators (over the banker hands counted) of a player scoring ``p``
    against ``counts[b]`` banker hands scoring b: declaring, declining (paying as no
    bull), declining exactly when it pays when the banker shows first, and the better
    of the two when he shows last."""
    declare = sum(c * difference_net(p, b, False, no_bull_pays) for b, c in enumerate(counts))
    decline = sum(c * difference_net(p, b, True, no_bull_pays) for b, c in enumerate(counts))
    first = sum(
        c * max(difference_net(p, b, False, no_bull_pays), difference_net(p, b, True, no_bull_pays))
        for b, c in enumerate(counts)
    )
    return {"declare": declare, "decline": decline, "first": first, "last": max(declare, decline)}


# ---------------------------------------------------------------- tables

_BUILT: dict[str, Path] = {}


def tables_dir(factory: Any) -> Path:
    """The taungau table: the committed one, else built once into a temporary directory."""
    from _tables import tables_for

    return tables_for("taungau", factory)
