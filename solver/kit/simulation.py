"""A seeded Monte Carlo simulator of whole rounds: an independent check of the exact figures.

Each round shuffles one deck (or tile set), deals the banker/dealer and ``players``
players from it, lets everyone play the stated policy, and settles every player against
the banker. The simulator shares **no evaluation code** with the exact method: its small
per-hand evaluators are written from RULES.md and read only the rule-set data
(multipliers, specials, tie-break, deng, ...). No table, no game module's evaluator.

The estimate is the mean of the per-round average player net; the confidence interval
is the normal interval over rounds (players of one round are not independent, rounds
are).

Each game's simulator lives in its package (``solver.games.<game>.simulate``); this
module holds what they share: dealing, the interval and the result type.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.core.errors import BullError

__all__ = [
    "SimResult",
    "deal",
    "first_items",
]

Arr = npt.NDArray[Any]


@dataclass(frozen=True)
class SimResult:
    """A Monte Carlo estimate of the player's EV per stake, with its interval."""

    game: str
    rules: str
    policy: str
    rounds: int
    players: int
    seed: int
    mean: float
    stderr: float
    confidence: float
    ci_low: float
    ci_high: float

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies inside the confidence interval."""
        return self.ci_low <= float(value) <= self.ci_high

    def to_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def summarise(
    game: str, rules: str, policy: str, per_round: Arr, players: int, seed: int, confidence: float
) -> SimResult:
    n = len(per_round)
    mean = float(per_round.mean())
    se = float(per_round.std(ddof=1) / np.sqrt(n)) if n > 1 else float("inf")
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    return SimResult(
        game, rules, policy, n, players, seed, mean, se, confidence, mean - z * se, mean + z * se
    )


def deal(rng: np.random.Generator, rounds: int, deck: int, cards: int) -> Arr:
    """``rounds`` shuffled decks of ids 0..deck-1, the first ``cards`` of each.

    A shuffle is the order of ``deck`` random keys; only the ``cards`` smallest are
    dealt, so they are selected (a partition) and only they are sorted. The deal is
    the full sort's, item for item: a row where two of the ``cards + 1`` smallest keys
    tie (the selection could keep another item, or order them otherwise) is sorted
    whole.

    >>> a = deal(np.random.default_rng(5), 1000, 312, 25)
    >>> keys = np.random.default_rng(5).random((1000, 312))
    >>> bool((a == np.argsort(keys, axis=1)[:, :25]).all())
    True
    """
    if cards > deck:
        raise BullError(f"a round needs {cards} items but the deck has {deck}")
    keys = rng.random((rounds, deck))
    return first_items(keys, cards)


def first_items(keys: Arr, cards: int) -> Arr:
    """``np.argsort(keys, axis=1)[:, :cards]``, by a partition and a sort of the
    ``cards`` smallest keys of each row (the rows with a tie among the ``cards + 1``
    smallest: by the full sort).

    >>> keys = np.tile(np.linspace(0.9, 0.1, 24), (2, 1))
    >>> keys[1, [20, 21]] = 0.0  # a tie among the smallest: the row is sorted whole
    >>> first_items(keys, 3).tolist()
    [[23, 22, 21], [20, 21, 23]]
    """
    deck = keys.shape[1]
    if cards * 8 > deck:  # an eighth of the deck or more: the full sort is as cheap
        return np.argsort(keys, axis=1)[:, :cards]
    part = np.argpartition(keys, cards, axis=1)[:, : cards + 1]
    sub = np.take_along_axis(keys, part, axis=1)
    order = np.argsort(sub, axis=1)
    sub = np.take_along_axis(sub, order, axis=1)
    out = np.take_along_axis(part, order, axis=1)[:, :cards]
    tie = (sub[:, 1:] == sub[:, :-1]).any(axis=1)
    if tie.any():
        out[tie] = np.argsort(keys[tie], axis=1)[:, :cards]
    return out


def check_round(rounds: int, players: int) -> None:
    if rounds < 2:
        raise BullError(f"rounds must be at least 2, got {rounds}")
    if players < 1:
        raise BullError(f"players must be at least 1, got {players}")
