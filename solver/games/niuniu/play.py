"""Niu Niu's Python API: evaluate, compare, settle and rank hands, one at a time or in
batches (numpy arrays of card ids), from the precomputed tables.

Results are the shared types of :mod:`solver.kit.results`: a :class:`NiuNiuHand`
(ordered by strength with ``<``/``>``), a :class:`~solver.kit.results.Showdown` from
:func:`compare`, a :class:`~solver.kit.results.Settlement` from :func:`settle`.

>>> h = evaluate("KS 9H 8C 3D 7S")
>>> h.points, h.category.label, h.names
(7, 'niu_7', ['3D', '7S', '8C', '9H', 'KS'])
>>> settle("JS QS KS 5H 5D", "4C 7C 8D JD KH", bet="double").net
2.85
>>> r = rank(["KS 9H 8C 3D 7S", "JS QS KD 5H 5D"])
>>> r.order, r.reasons
((1, 0), ('niu_niu beats niu_7',))
"""

from __future__ import annotations

from solver.games.niuniu.rules import Category
from solver.games.niuniu.runtime import (
    Comparison,
    HandLike,
    NiuNiuHand,
    RulesLike,
    Settlement,
    Showdown,
    compare,
    evaluate,
    evaluate_batch,
    parse_pair,
    settle,
    settle_batch,
)
from solver.games.niuniu.table import Ranking, Round, rank, settle_round

__all__ = [
    "Category",
    "Comparison",
    "HandLike",
    "NiuNiuHand",
    "Ranking",
    "Round",
    "RulesLike",
    "Settlement",
    "Showdown",
    "compare",
    "evaluate",
    "evaluate_batch",
    "parse_pair",
    "rank",
    "settle",
    "settle_batch",
    "settle_round",
]
