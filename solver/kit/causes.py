"""The causes a diagnosis scores: a catalogue's variants and their pairs, laid out as the
columns of a :class:`~solver.kit.diagnosis.Tally` (one column per cause id, whatever the
kinds of row it is scored on); :class:`solver.kit.scoring.Scorer` scores them.

>>> c = Causes.of([Variant("mistake=s", "S", mistake="s", stage="bull"),
...                Variant("mistake=t", "T", mistake="t", stage="points")], {})
>>> [v.key for v in c.all]
['mistake=s', 'mistake=t', 'mistake=s+mistake=t']
>>> c.cols, c.members, sorted(c.full)
({'hand': [2], 'showdown': [2]}, {2: (0, 1)}, [2])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from solver.kit.diagnosis import Variant, is_mistake_pair, pairs_of

__all__ = ["MODES", "Causes"]

MODES = ("hand", "showdown")
"""The kinds of row."""


@dataclass(frozen=True)
class Causes:
    """A catalogue and the pairs of causes scored with it: the variants, then one column
    per pair id (a pair scored on hand and on showdown rows is one cause, its counts
    summed)."""

    variants: list[Variant]
    pairs: dict[str, list[tuple[int, int, Variant]]]
    """Per kind of row, its pairs ``(a, b, combined)`` (:func:`pairs_of`), each id once."""
    cols: dict[str, list[int]]
    """Per kind of row, the column of each of its pairs."""
    members: dict[int, tuple[int, int]]
    """Every pair's column to its members' columns ``(a, b)``."""
    full: frozenset[int]
    """The columns of the pairs of two mistakes (scored on every row)."""
    all: list[Variant]
    """Every column's cause."""

    @classmethod
    def of(cls, variants: Sequence[Variant], base: Mapping[str, Any]) -> Causes:
        """The pairs of ``variants``; the checkers' special-ish hand rows are shapes of
        the hand whatever the rules (a structural scope), their showdown rows not."""
        causes = list(variants)
        col_of: dict[str, int] = {}
        pairs: dict[str, list[tuple[int, int, Variant]]] = {}
        cols: dict[str, list[int]] = {}
        members: dict[int, tuple[int, int]] = {}
        full: set[int] = set()
        for m in MODES:
            pairs[m], cols[m] = [], []
            for a, b, c in pairs_of(variants, m, base, structural=m == "hand"):
                col = col_of.get(c.key)
                if col in cols[m]:
                    continue  # a pair of scoped mistakes found twice
                if col is None:
                    col = col_of[c.key] = len(causes)
                    causes.append(c)
                    members[col] = (a, b)
                    if is_mistake_pair(c):
                        full.add(col)
                pairs[m].append((a, b, c))
                cols[m].append(col)
        return cls(list(variants), pairs, cols, members, frozenset(full), causes)
