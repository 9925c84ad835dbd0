"""The Niu Niu rule language: categories, their precedence, tie chains and multipliers
as data (issue 22).

A rule file may list its categories, highest precedence first::

    [[categories]]
    name = "bull_pair"                 # a name of its own, or one of today's labels
    when = "bull and bull_pair"        # a predicate (the vocabulary below)
    rank = 11                          # higher beats lower; equal ranks compare alike
    by_points = false                  # compare by points before the tie chain
    tie = ["rank_by_rank", "push"]     # named steps; a last "push"/"banker" settles
    multipliers = {standard = 5}       # per bet; a bet not named pays 1

A hand takes the **first** category whose predicate holds (its precedence); categories
then compare by ``rank``. Today's rule keys (``specials``, ``tie_break``,
``special_definitions``, ``[multipliers.BET]``...) are sugar: :func:`expand` writes any
rule set in this form, and the expanded form builds byte-identical table columns.

**Predicate vocabulary** (every one a function of the hand's ranks, values and
whether it is a flush):

=================  ====  ==========================================================
``bull``           bool  some three cards make a bull (under the file's bull rule)
``points``         int   0 (no bull), 1..9, 10 (niu niu)
``bull_pair``      bool  some bull leaves two cards of one rank
``faces``          int   how many J, Q, K
``tens``           int   how many 10s
``ten_valued``     int   how many 10, J, Q, K
``total``          int   the five card values summed (A = 1, 10/J/Q/K = 10)
``kind``           int   the most cards of one rank (4: four of a kind)
``pairs``          int   how many ranks appear two or more times
``cards``          int   how many cards (5)
``flush``          bool  every card one suit
``straight(A)``    bool  five consecutive ranks; A = ``low`` (A-2-3-4-5 up),
                         ``high`` (10-J-Q-K-A only with the ace), ``both``
``all_in("R")``    bool  every card's rank in the set R (``"A-4"``, ``"10 J Q K"``)
``count_in("R")``  int   how many cards have a rank in R
``true``/``false`` bool
=================  ====  ==========================================================

with integer literals, ``== != < <= > >=``, ``and``, ``or``, ``not`` and parentheses.

**Tie steps** (in order, until one differs): ``points``, ``highest_card`` (rank, then
suit in ``suit_order``), ``rank_by_rank`` (ranks high to low), ``suit_of_highest``,
``pair_rank_then_kicker`` (ranks by how often they appear, then high to low: a quad's or
pair's rank first, then the kickers), ``number_of_pairs``, ``pair_rank`` (the highest
repeated rank), and a last ``push`` or ``banker`` (what a tie that survives does; every
chain of one file ends the same way, the ``on_tie`` of the file).

>>> p = parse_predicate("bull and (bull_pair or faces >= 4)")
>>> show(p)
'bull and (bull_pair or faces >= 4)'
>>> show(parse_predicate('not all_in("A-4") or total<=10'))
"not all_in('A-4') or total <= 10"
>>> parse_predicate("faces >> 2")
Traceback (most recent call last):
...
solver.core.errors.RulesError: unexpected '>' at column 8
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.kit.predicate import RANKS, Expr, Vocabulary, combine, parse, parse_ranks, show

__all__ = [
    "BOOL_VARS",
    "ENDS",
    "INT_VARS",
    "RANKS",
    "STEPS",
    "VOCABULARY",
    "Expr",
    "evaluate",
    "features",
    "parse_predicate",
    "parse_ranks",
    "show",
]

BOOL_VARS = ("bull", "bull_pair", "flush", "true", "false")
INT_VARS = ("points", "faces", "tens", "ten_valued", "total", "kind", "pairs", "cards")
_CALLS = {"all_in": "bool", "count_in": "int", "straight": "bool"}
_ACES = ("low", "high", "both")

STEPS: Mapping[str, int] = {
    "points": 4,
    "highest_card": 6,
    "rank_by_rank": 20,
    "suit_of_highest": 2,
    "pair_rank_then_kicker": 20,
    "number_of_pairs": 2,
    "pair_rank": 4,
    "push": 0,
    "banker": 0,
}
"""Every tie step and the bits its key takes in a strength."""
ENDS = ("push", "banker")


VOCABULARY = Vocabulary(
    bools=BOOL_VARS, ints=INT_VARS, calls=_CALLS, word_calls={"straight": _ACES}
)
"""The Niu Niu words (the table above)."""


def parse_predicate(text: str) -> Expr:
    """Parse and type-check a Niu Niu predicate (a one-line :class:`RulesError` if
    malformed)."""
    return parse(text, VOCABULARY)


# ---------------------------------------------------------------- evaluation

Arrays = dict[str, npt.NDArray[Any]]


def features(cards: npt.NDArray[np.integer], trips_bull: bool = False) -> Arrays:
    """The vocabulary's numbers for sorted hands (n, 5), as arrays."""
    c = np.asarray(cards, dtype=np.int16)
    rank = c >> 2
    suit = c & 3
    value = np.minimum(rank + 1, 10)
    total = value.sum(axis=1)
    n = len(c)
    ok = np.zeros((n, 10), dtype=bool)
    rest_pair = np.zeros((n, 10), dtype=bool)
    reach = np.zeros((n, 10), dtype=np.int16)
    for t, tri in enumerate(combinations(range(5), 3)):
        a, b, d = tri
        x, y = (i for i in range(5) if i not in tri)
        s = value[:, a] + value[:, b] + value[:, d]
        good = s % 10 == 0
        if trips_bull:
            good |= (rank[:, a] == rank[:, b]) & (rank[:, b] == rank[:, d])
        ok[:, t] = good
        reach[:, t] = np.where(good, (value[:, x] + value[:, y] - 1) % 10 + 1, 0)
        rest_pair[:, t] = rank[:, x] == rank[:, y]
    points = reach.max(axis=1)
    best = ok & (reach == points[:, None]) & (points[:, None] > 0)
    counts = np.stack([(rank == r).sum(axis=1) for r in range(13)], axis=1).astype(np.int16)
    return {
        "rank": rank,
        "suit": suit,
        "counts": counts,
        "bull": points > 0,
        "points": points,
        "bull_pair": (best & rest_pair).any(axis=1),
        "faces": (rank >= 10).sum(axis=1),
        "tens": (rank == 9).sum(axis=1),
        "ten_valued": (rank >= 9).sum(axis=1),
        "total": total,
        "kind": counts.max(axis=1),
        "pairs": (counts >= 2).sum(axis=1),
        "cards": np.full(n, c.shape[1], dtype=np.int16),
        "flush": (suit == suit[:, :1]).all(axis=1),
        "true": np.ones(n, dtype=bool),
        "false": np.zeros(n, dtype=bool),
    }


def _straight(f: Arrays, ace: str) -> npt.NDArray[np.bool_]:
    rank = f["rank"]
    distinct = f["kind"] == 1
    low = distinct & (rank.max(axis=1) - rank.min(axis=1) == 4)
    if ace == "low":
        return np.asarray(low)
    high = distinct & (f["counts"][:, [0, 9, 10, 11, 12]] == 1).all(axis=1)
    return np.asarray(high if ace == "high" else low | high)


def evaluate(e: Expr, f: Arrays) -> npt.NDArray[Any]:
    """A predicate (or a number in it) over hands' :func:`features`."""
    head = e[0]
    n = len(f["rank"])
    if head == "lit":
        return np.full(n, e[1], dtype=bool if isinstance(e[1], bool) else np.int16)
    if head == "var":
        return f[e[1]]
    if head == "call":
        if e[1] == "straight":
            return _straight(f, e[2])
        inside = f["counts"][:, list(e[2])].sum(axis=1)
        return np.asarray(inside == 5 if e[1] == "all_in" else inside)
    return combine(e, f, evaluate)  # not, a comparison, and, or
