"""The arithmetic of a banker's risk at a full table (``bull risk``), game-blind.

Given the exact heads-up distribution of one player's net (:class:`NetDistribution`)
and the covariance of two players' nets against one banker hand, the banker's one-round
net at a table of N players has

* mean ``-N · EV`` (exact),
* variance ``N · Var₁ + N (N - 1) · Cov`` (Var of a sum of N exchangeable nets).

The rest is here too: the bands of the banker's total after T rounds (normal
approximation: a sum of T independent rounds), the probability of ruin from a reserve
by dynamic programming on an exact one-round distribution, an empirical quantile with
its distribution-free interval, and the Wilson interval of a simulated probability.

>>> d = NetDistribution.of([(Fraction(-1), Fraction(1, 2)), (Fraction(1), Fraction(1, 2))])
>>> round(ruin_probability(d.negated(), Fraction(0), 1), 3)  # a banker with nothing
0.5
>>> table_variance(Fraction(1), Fraction(1, 4), 3)
Fraction(9, 2)
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import reduce
from statistics import NormalDist

import numpy as np
import numpy.typing as npt

from solver.kit.risk import NetDistribution, z_two_sided

__all__ = [
    "EXACT_RUIN_WORK",
    "band",
    "quantile_interval",
    "ruin_probability",
    "table_variance",
    "wilson",
]

EXACT_RUIN_WORK = 3 * 10**9
"""The most (states x rounds x amounts) the exact ruin DP takes on (about 10 s)."""


def table_variance(var1: Fraction, cov: Fraction, players: int) -> Fraction:
    """The variance of the sum of ``players`` exchangeable nets."""
    return players * var1 + players * (players - 1) * cov


def band(mean: float, sd: float, rounds: int, level: float) -> tuple[float, float]:
    """The central ``level`` % band of a total over ``rounds`` independent rounds of
    one-round ``mean`` and ``sd`` (normal approximation).

    >>> [round(x, 2) for x in band(0.0, 1.0, 100, 95)]
    [-19.6, 19.6]
    """
    z = z_two_sided(level)
    half = z * sd * math.sqrt(rounds)
    return rounds * mean - half, rounds * mean + half


def wilson(k: int, n: int, level: float = 99) -> tuple[float, float]:
    """The Wilson interval of a probability seen ``k`` times in ``n`` trials.

    >>> [round(x, 4) for x in wilson(0, 100)]
    [0.0, 0.0622]
    """
    if n <= 0:
        return 0.0, 1.0
    z = z_two_sided(level)
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, mid - half), min(1.0, mid + half)


def quantile_interval(
    sorted_values: npt.NDArray[np.float64], q: float, level: float = 99
) -> tuple[float, float, float]:
    """The empirical ``q``-quantile of a sorted sample and a distribution-free
    ``level`` % interval for the true quantile (order statistics at the binomial
    normal bounds; the sample's ends when they fall outside)."""
    n = len(sorted_values)
    if n == 0:
        raise ValueError("no values")
    z = NormalDist().inv_cdf(0.5 + level / 200)
    idx = min(n - 1, max(0, math.ceil(q * n) - 1))
    half = z * math.sqrt(n * q * (1 - q))
    lo = min(n - 1, max(0, math.floor(q * n - half) - 1))
    hi = min(n - 1, max(0, math.ceil(q * n + half)))
    return float(sorted_values[idx]), float(sorted_values[lo]), float(sorted_values[hi])


def _lcm(a: int, b: int) -> int:
    return a * b // math.gcd(a, b)


def ruin_work(banker: NetDistribution, reserve: Fraction, rounds: int) -> int:
    """How many (state x round x amount) steps :func:`ruin_probability` takes."""
    step = reduce(_lcm, (a.denominator for a, _ in banker.points), reserve.denominator)
    top = reserve + rounds * max(Fraction(0), banker.points[-1][0])
    return int(top * step + 1) * rounds * len(banker.points)


def ruin_probability(banker: NetDistribution, reserve: Fraction, rounds: int) -> float:
    """The probability that a banker starting with ``reserve`` whose one-round net has the
    distribution ``banker`` (independent rounds) cannot pay within ``rounds`` rounds:
    his bankroll falls below 0 after some round. Dynamic programming over every
    bankroll on the lattice of the amounts (exact arithmetic of the states, float
    probabilities)."""
    if reserve < 0:
        raise ValueError("the reserve must be at least 0")
    step = reduce(_lcm, (a.denominator for a, _ in banker.points), reserve.denominator)
    moves = [(int(a * step), float(p)) for a, p in banker.points]
    start = int(reserve * step)
    top = start + rounds * max(0, max(m for m, _ in moves))
    alive = np.zeros(top + 1, dtype=np.float64)
    alive[start] = 1.0
    ruined = 0.0
    for _ in range(rounds):
        nxt = np.zeros_like(alive)
        for m, p in moves:
            if m >= 0:
                nxt[m:] += p * alive[: top + 1 - m]
            else:
                nxt[: top + 1 + m] += p * alive[-m:]
                ruined += p * float(alive[:-m].sum())
        alive = nxt
    return min(1.0, max(0.0, ruined))
