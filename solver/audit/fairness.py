"""Goodness-of-fit tests for dealt hands: G-test, Pearson's χ², p-values and power.

Everything is implemented here with :mod:`math` and numpy (no scipy): the chi-square
survival function is the regularized upper incomplete gamma function ``Q(df/2, x/2)``
(a series below ``a + 1``, a continued fraction above), the noncentral chi-square
survival function a Poisson mixture of central ones, and the Kolmogorov distribution
for the KS check of p-values.

**Power.** Under an alternative ``q`` the G statistic of ``N`` observations is
approximately noncentral chi-square with noncentrality ``λ = 2 N KL(q ‖ p)`` (Pearson's:
``N Σ (q - p)² / p``). The rounds a test needs are the smallest ``N`` for which the
statistic exceeds the ``p < 1e-6`` critical value with probability 90 %.

>>> round(chi2_sf(3.841458820694124, 1), 6)
0.05
>>> round(chi2_sf(20.0, 10), 6)
0.029253
>>> round(chi2_isf(1e-6, 1), 3)
23.928
>>> t = goodness_of_fit("demo", "all", [60, 40], [Fraction(1, 2), Fraction(1, 2)])
>>> t.df, round(t.statistic, 4), round(t.chi2, 4)
(1, 4.0271, 4.0)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "ALPHA",
    "POWER",
    "FitTest",
    "chi2_isf",
    "chi2_sf",
    "gamma_q",
    "goodness_of_fit",
    "ks_uniform",
    "ncx2_sf",
    "noncentrality_ahead",
    "noncentrality_needed",
    "rounds_needed",
    "verdict",
]

ALPHA = 1e-6
"""The significance a bias must reach to count as detected."""
POWER = 0.9
"""The probability of detecting it that ``power_rounds`` asks for."""


def gamma_q(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function ``Q(a, x)``.

    >>> round(gamma_q(1.0, 2.0), 12) == round(math.exp(-2.0), 12)
    True
    """
    if x <= 0:
        return 1.0
    log_pre = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:  # series for P(a, x)
        term = total = 1.0 / a
        ap = a
        for _ in range(100_000):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-16:
                break
        return max(0.0, 1.0 - math.exp(log_pre) * total)
    tiny = 1e-300  # Lentz's continued fraction for Q(a, x)
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 100_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-16:
            break
    return math.exp(log_pre) * h


def chi2_sf(x: float, df: float) -> float:
    """``P(X > x)`` for ``X`` chi-square with ``df`` degrees of freedom."""
    if df <= 0:
        return 1.0
    return gamma_q(df / 2, x / 2)


def chi2_isf(p: float, df: float) -> float:
    """The ``x`` with ``chi2_sf(x, df) = p`` (bisection)."""
    lo, hi = 0.0, max(1.0, df)
    while chi2_sf(hi, df) > p:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if chi2_sf(mid, df) > p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-10 * hi:
            break
    return (lo + hi) / 2


def ncx2_sf(x: float, df: float, lam: float) -> float:
    """``P(X > x)`` for ``X`` noncentral chi-square (``df``, noncentrality ``lam``).

    >>> round(ncx2_sf(3.0, 2, 0.0), 10) == round(chi2_sf(3.0, 2), 10)
    True
    """
    if lam <= 0:
        return chi2_sf(x, df)
    half = lam / 2
    mid = int(half)
    spread = int(12 * math.sqrt(half) + 20)
    j0 = max(0, mid - spread)
    a, y = df / 2 + j0, x / 2
    q = chi2_sf(x, df + 2 * j0)  # Q(a, y); then Q(a + 1, y) = Q(a, y) + y^a e^-y / a!
    total = 0.0
    for j in range(j0, mid + spread + 1):
        w = math.exp(-half + j * math.log(half) - math.lgamma(j + 1))
        total += w * q
        if y > 0:
            q = min(1.0, q + math.exp(a * math.log(y) - y - math.lgamma(a + 1)))
        a += 1
    return min(1.0, total)


def rounds_needed(
    df: int, lam_per_round: float, alpha: float = ALPHA, power: float = POWER
) -> int | None:
    """The fewest rounds whose noncentrality ``rounds * lam_per_round`` gives the test
    ``power`` at significance ``alpha`` (``None``: the bias is invisible to it).

    >>> rounds_needed(1, 0.0) is None
    True
    >>> 30 < rounds_needed(1, 1.0) < 60
    True
    """
    if lam_per_round <= 0 or df <= 0:
        return None
    return max(1, math.ceil(noncentrality_needed(df, alpha, power) / lam_per_round))


_KNOWN: dict[tuple[int, float, float], float] = {}
"""Noncentralities read back from disk (:func:`noncentrality_ahead`), by their key."""


def noncentrality_needed(df: int, alpha: float = ALPHA, power: float = POWER) -> float:
    """The noncentrality at which the ``df`` test at ``alpha`` has ``power`` (the same
    for every group and bias: cached, so thousands of ``--by`` groups cost one search;
    read back from disk where :func:`noncentrality_ahead` found it kept).

    >>> 38 < noncentrality_needed(1) < 39
    True
    """
    known = _KNOWN.get((df, alpha, power))
    return known if known is not None else _search(df, alpha, power)


def noncentrality_ahead(dfs: Sequence[int], tables: str | None) -> None:
    """The noncentralities of the ``dfs`` tests (at :data:`ALPHA`, :data:`POWER`) kept on
    disk beside the rule-set tables (``rules/audit-power-<digest>-<code>.json``): read
    back when there, else searched (~0.03 s of CPU each, while an audit's workers
    read the logs) and written. The values are the search's own, so every result is
    the same either way."""
    from solver.store.custom import cached_figures, store_figures

    want = sorted({int(d) for d in dfs if d > 0})
    key = {"noncentrality": "audit power 1", "dfs": want, "alpha": ALPHA, "power": POWER}
    path, got = cached_figures("audit-power", key, tables, 1 << 16)
    values = None if got is None else got.get("noncentrality")
    if (
        isinstance(values, list)
        and len(values) == len(want)
        and all(isinstance(v, float) and math.isfinite(v) and v > 0 for v in values)
    ):
        for d, v in zip(want, values, strict=True):
            _KNOWN[(d, ALPHA, POWER)] = v
        return
    store_figures(path, key, {"noncentrality": [_search(d, ALPHA, POWER) for d in want]})


@functools.lru_cache(maxsize=256)
def _search(df: int, alpha: float, power: float) -> float:
    """The search behind :func:`noncentrality_needed`."""
    crit = chi2_isf(alpha, df)
    lo, hi = 0.0, max(1.0, crit)
    while ncx2_sf(crit, df, hi) < power:
        hi *= 2
    for _ in range(100):
        mid = (lo + hi) / 2
        if ncx2_sf(crit, df, mid) < power:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-6 * hi:
            break
    return hi


@dataclass(frozen=True)
class FitTest:
    """One goodness-of-fit test: the G statistic (``statistic``) with its p-value,
    Pearson's χ² for reference, the largest deviations and the power."""

    name: str
    group: str
    n: int
    statistic: float
    df: int
    p_value: float
    chi2: float
    chi2_p_value: float
    deviations: tuple[dict[str, Any], ...]
    power_rounds: int | None
    bias: str
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    rounds: int = 0
    """The rounds of the group tested (against ``power_rounds``)."""

    @property
    def status(self) -> str:
        """``flagged`` (p below :data:`ALPHA`), ``not enough rounds`` (fewer rounds
        than the test needs to see its bias: a clean p-value says little), or ``ok``.

        >>> t = goodness_of_fit("d", "all", [60, 40], [Fraction(1, 2)] * 2, rounds=100,
        ...                     alternative=[0.6, 0.4])
        >>> t.status, t.power_rounds
        ('not enough rounds', 947)
        """
        return verdict(self.p_value < ALPHA, self.rounds, self.power_rounds)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "group": self.group,
            "n": self.n,
            "statistic": self.statistic,
            "df": self.df,
            "p_value": self.p_value,
            "chi2": self.chi2,
            "chi2_p_value": self.chi2_p_value,
            "deviations": list(self.deviations),
            "power_rounds": self.power_rounds,
            "bias": self.bias,
            "note": self.note,
            "rounds": self.rounds,
            "status": self.status,
        }


def goodness_of_fit(
    name: str,
    group: str,
    observed: Sequence[int] | npt.NDArray[np.int64],
    expected: Sequence[Fraction] | Sequence[float],
    *,
    labels: Sequence[str] | None = None,
    scale: float = 1.0,
    alternative: Sequence[float] | None = None,
    per_round: float = 1.0,
    bias: str = "",
    note: str = "",
    top: int = 5,
    rounds: int = 0,
) -> FitTest:
    """The G-test (and χ²) of ``observed`` counts against ``expected`` probabilities.

    ``scale`` divides both statistics (a design effect: counts of cards dealt without
    replacement vary less than multinomial ones); categories of probability 0 leave
    the test (an observation in one makes the p-value 0). ``alternative``: the biased
    probabilities for the power, ``per_round`` observations per round; ``rounds``: the
    rounds tested (the status compares them with the power).
    """
    obs = np.asarray(observed, dtype=np.float64)
    p = np.array([float(f) for f in expected], dtype=np.float64)
    n = float(obs.sum())
    names = list(labels) if labels is not None else [str(i) for i in range(len(p))]
    live = p > 0
    impossible = float(obs[~live].sum())
    df = int(live.sum()) - 1
    exp = n * p
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(obs[live] > 0, obs[live] * np.log(obs[live] / exp[live]), 0.0)
        g = 2.0 * float(terms.sum()) / scale if n else 0.0
        x2 = float(((obs[live] - exp[live]) ** 2 / exp[live]).sum()) / scale if n else 0.0
        resid = np.where(exp > 0, (obs - exp) / np.sqrt(np.where(exp > 0, exp, 1.0)), np.inf)
    g, x2 = max(g, 0.0), max(x2, 0.0)
    p_g = 0.0 if impossible else chi2_sf(g, df)
    p_x = 0.0 if impossible else chi2_sf(x2, df)
    order = np.argsort(-np.abs(np.where(obs + exp > 0, resid, 0.0)), kind="stable")[:top]
    devs = tuple(
        {
            "label": names[i],
            "observed": int(obs[i]),
            "expected": float(exp[i]),
            "ratio": float(obs[i] / exp[i]) if exp[i] > 0 else None,
        }
        for i in order.tolist()
        if n
    )
    power = None
    if alternative is not None:
        q = np.asarray(alternative, dtype=np.float64)[live]
        q = q / q.sum()
        with np.errstate(divide="ignore", invalid="ignore"):
            kl = float(np.where(q > 0, q * np.log(q / p[live]), 0.0).sum())
        power = rounds_needed(df, 2.0 * kl * per_round / scale)
    return FitTest(name, group, int(n), g, df, p_g, x2, p_x, devs, power, bias, note, rounds=rounds)


def ks_uniform(values: Sequence[float]) -> tuple[float, float]:
    """Kolmogorov-Smirnov distance of ``values`` from the uniform distribution on
    [0, 1], and its asymptotic p-value.

    >>> d, p = ks_uniform([(i + 0.5) / 100 for i in range(100)])
    >>> round(d, 3), p > 0.99
    (0.005, True)
    """
    x = np.sort(np.asarray(values, dtype=np.float64))
    n = len(x)
    if not n:
        return 0.0, 1.0
    i = np.arange(1, n + 1)
    d = float(max((i / n - x).max(), (x - (i - 1) / n).max()))
    t = (math.sqrt(n) + 0.12 + 0.11 / math.sqrt(n)) * d
    p = 2 * sum((-1) ** (k - 1) * math.exp(-2 * k * k * t * t) for k in range(1, 101))
    return d, min(1.0, max(0.0, p))


def verdict(flagged: bool, rounds: int, power_rounds: int | None) -> str:
    """A test's status: ``flagged``, else ``not enough rounds`` when it had fewer rounds
    than it needs to see its bias, else ``ok`` (the fit tests and the hold check).

    >>> verdict(False, 100, 947), verdict(True, 100, 947), verdict(False, 100, None)
    ('not enough rounds', 'flagged', 'ok')
    """
    if flagged:
        return "flagged"
    if power_rounds is not None and rounds < power_rounds:
        return "not enough rounds"
    return "ok"
