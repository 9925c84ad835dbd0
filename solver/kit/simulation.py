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
    """``rounds`` shuffled decks of ids 0..deck-1, the first ``cards`` of each."""
    if cards > deck:
        raise BullError(f"a round needs {cards} items but the deck has {deck}")
    keys = rng.random((rounds, deck))
    return np.argsort(keys, axis=1)[:, :cards]


def check_round(rounds: int, players: int) -> None:
    if rounds < 2:
        raise BullError(f"rounds must be at least 2, got {rounds}")
    if players < 1:
        raise BullError(f"players must be at least 1, got {players}")
