"""What exact odds and house edges share across games (``bull odds``, ``bull edge``).

Everything here is exact: counts are integers and every probability or expected value
is a :class:`fractions.Fraction`; floats are only for display.

**Niu Niu** (the heart of the module). The player's EV is an average over every ordered
pair of disjoint hands, 2,598,960 x 1,533,939 of them. For each player hand P we need
how many banker hands B disjoint from P are weaker, equal, or stronger (and the sum of
the stronger ones' multipliers). Sort every hand by strength. A hand disjoint from P is
counted by inclusion-exclusion over the cards the two could share::

    #{B : B ∩ P = ∅, s(B) < s(P)} = Σ_{S ⊆ P} (-1)^|S| · #{H ⊇ S : s(H) < s(P)}

For a k-subset S the hands containing S are exactly C(52-k, 5-k) hands. With every
hand in strength order once (equal strengths form runs), the count for S is a prefix
count over the runs among S's hands: a histogram of (run, subset) cells and its prefix
sums when the runs are few, else each subset's hands sorted by run in one row of a
matrix whose places are computed, not sorted (:mod:`solver.kit.disjoint`). That is 2^5
subsets per hand, about 80 million incidences in all, instead of 4 x 10^12 pairs.
:func:`disjoint_counts` does this for any deck (cards or tiles) and any hand size.

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
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.core.inputs import check_commission
from solver.kit.disjoint import DisjointCounts, disjoint_counts

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
# (solver.kit.disjoint: DisjointCounts and disjoint_counts, re-exported here)


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
