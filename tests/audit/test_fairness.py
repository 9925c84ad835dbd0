"""The statistics of ``bull audit``, against closed forms and a simulation."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from solver.audit.fairness import (
    chi2_isf,
    chi2_sf,
    goodness_of_fit,
    ks_uniform,
    ncx2_sf,
    rounds_needed,
)


def test_chi2_sf_matches_closed_forms() -> None:
    for x in (0.1, 1.0, 3.0, 10.0, 40.0, 120.0):
        assert math.isclose(chi2_sf(x, 1), math.erfc(math.sqrt(x / 2)), rel_tol=1e-9)
        assert math.isclose(chi2_sf(x, 2), math.exp(-x / 2), rel_tol=1e-9)
        assert math.isclose(chi2_sf(x, 4), math.exp(-x / 2) * (1 + x / 2), rel_tol=1e-9)
    assert math.isclose(chi2_isf(0.05, 1), 3.841458820694124, rel_tol=1e-8)


def test_noncentral_df1_matches_a_shifted_normal() -> None:
    # X = (Z + sqrt(lam))^2: P(X > x) = P(Z > sqrt(x) - s) + P(Z < -sqrt(x) - s)
    for lam, x in ((1.0, 2.0), (9.0, 23.9), (50.0, 30.0)):
        s, r = math.sqrt(lam), math.sqrt(x)
        want = 0.5 * math.erfc((r - s) / math.sqrt(2)) + 0.5 * math.erfc((r + s) / math.sqrt(2))
        assert math.isclose(ncx2_sf(x, 1, lam), want, rel_tol=1e-7)


def test_g_and_pearson_by_hand() -> None:
    t = goodness_of_fit("t", "all", [30, 10], [Fraction(1, 2), Fraction(1, 2)])
    g = 2 * (30 * math.log(30 / 20) + 10 * math.log(10 / 20))
    assert math.isclose(t.statistic, g) and t.df == 1
    assert math.isclose(t.chi2, (10**2 + 10**2) / 20)
    assert t.deviations[0]["observed"] in (30, 10)
    impossible = goodness_of_fit(
        "t", "all", [5, 5, 1], [Fraction(1, 2), Fraction(1, 2), Fraction(0)]
    )
    assert impossible.p_value == 0.0 and impossible.df == 1


def test_power_rounds_by_simulation() -> None:
    """A coin with p = 0.6 instead of 0.5: with the rounds the test says it needs, a
    simulated G-test reaches p < 1e-6 about 90 % of the time."""
    p, q = 0.5, 0.6
    kl = q * math.log(q / p) + (1 - q) * math.log((1 - q) / (1 - p))
    n = rounds_needed(1, 2 * kl)
    assert n is not None and 400 < n < 1000
    rng = np.random.default_rng(7)
    heads = rng.binomial(n, q, size=4000)
    tails = n - heads
    e = n / 2
    g = 2 * (heads * np.log(heads / e) + tails * np.log(tails / e))
    hit = np.mean(g > chi2_isf(1e-6, 1))
    assert 0.86 < hit < 0.94


def test_ks_uniform() -> None:
    rng = np.random.default_rng(3)
    assert ks_uniform(rng.random(500).tolist())[1] > 0.001
    assert ks_uniform((rng.random(500) ** 2).tolist())[1] < 1e-6


def test_the_power_searches_are_kept_on_disk_and_read_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The noncentralities an audit's power figures need are searched once and kept beside
    the rule-set tables: a new process (the in-process caches emptied) reads the very
    values of the search back without searching; other degrees of freedom are another
    key (searched). For df 1 the search agrees with the normal: the test's power is
    Phi(sqrt(lam) - z) + Phi(-sqrt(lam) - z), so lam ~ (z_{1-alpha/2} + z_power)^2."""
    from statistics import NormalDist

    from solver.audit import fairness

    dfs = [1, 7]
    monkeypatch.setattr(fairness, "_KNOWN", {})
    fairness.noncentrality_ahead(dfs, None)
    want = [fairness._search.__wrapped__(d, fairness.ALPHA, fairness.POWER) for d in dfs]
    monkeypatch.setattr(fairness, "_KNOWN", {})

    def no_search(*args: Any) -> float:
        raise AssertionError("searched again")

    monkeypatch.setattr(fairness, "_search", no_search)
    fairness.noncentrality_ahead(dfs, None)
    assert [fairness.noncentrality_needed(d) for d in dfs] == want
    z = NormalDist().inv_cdf(1 - fairness.ALPHA / 2) + NormalDist().inv_cdf(fairness.POWER)
    assert want[0] == pytest.approx(z * z, rel=1e-5)
    with pytest.raises(AssertionError, match="searched again"):
        fairness.noncentrality_ahead([1, 8], None)
