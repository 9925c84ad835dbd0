"""Tau Ngau's exact covariance of two players' nets (issue 25): the Möbius count of
:mod:`solver.games.taungau.covariance` against every (banker, player, player) deal of a
reduced tile set, each hand scored by the tests' own reference (RULES §4,
``tests/taungau/fixtures.py``) and settled from the rule text; and ``bull risk``
showing it as exact.
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from io import StringIO
from typing import Any

import numpy as np
import pytest

from tests.test_risk_worst import _tn_rules


def brute_covariance(deck: list[int], preset: str, reveals: str | None) -> tuple[Fraction, int]:
    """Cov(X1, X2) over every ordered deal (B, P1, P2) of disjoint hands from ``deck``:
    E[X1 X2] - E[X1]^2, with E[X1] over every (B, P1); and the number of deals."""
    hands = list(itertools.combinations(sorted(deck), 5))
    nets = _tn_rules(preset, reveals or "last")(hands)  # in 1/20 stakes
    bits = np.array([sum(1 << t for t in h) for h in hands], dtype=np.int64)
    s1 = n1 = s12 = n12 = 0
    for b in range(len(hands)):
        ok = np.flatnonzero((bits & bits[b]) == 0)
        f = np.asarray(nets(b, ok), dtype=np.int64)
        s1 += int(f.sum())
        n1 += len(ok)
        apart = (bits[ok][:, None] & bits[ok][None, :]) == 0
        # in floats, exactly: every partial sum is an integer below 2**53
        # (|f| <= 200, at most 462 x 462 pairs: |f @ apart @ f| < 10**10)
        fx = f.astype(np.float64)
        assert len(ok) ** 2 * int(np.abs(f).max(initial=0)) ** 2 < 2**53
        s12 += int(fx @ apart.astype(np.float64) @ fx)
        n12 += int(np.count_nonzero(apart))
    mean = Fraction(s1, 20 * n1)
    return Fraction(s12, 400 * n12) - mean * mean, n12


DECK16 = [0, 1, 2, 3, 5, 7, 9, 12, 14, 17, 19, 22, 24, 26, 29, 31]
"""16 of the 32 tile ids: both copies of two civil types, every hand type in play."""


@pytest.mark.parametrize(
    "preset, reveals, deck",
    [("macau", "first", DECK16), ("pagat", None, DECK16[1:]), ("macau", "first", DECK16[:-1])],
)
def test_exact_covariance_against_every_deal(
    preset: str, reveals: str | None, deck: list[int]
) -> None:
    from solver.games.taungau.covariance import exact_covariance

    want, deals = brute_covariance(deck, preset, reveals)
    got = exact_covariance(preset, reveals, None, deck=deck)
    assert got.pairs == deals
    assert got.covariance == want
    assert want != 0  # the two players' nets are correlated through the banker


def test_bull_risk_shows_the_exact_covariance(monkeypatch: Any) -> None:
    """``bull risk taungau`` at 3 players takes the covariance the count gives (a
    stand-in here: the count itself takes minutes on the full set, and is checked
    above), labels it exact with no interval, and the variance is N Var1 + N(N-1) Cov."""
    from solver import cli
    from solver.games.taungau import risk
    from solver.games.taungau.covariance import ExactCovariance
    from solver.kit import banker
    from solver.schemas import load, validate

    cov = Fraction(7, 1000)
    calls = []

    def stand_in(*args: Any, **kw: Any) -> ExactCovariance:
        calls.append(args)
        return ExactCovariance(Fraction(0), cov, cov, 1, 1, 0.0)

    monkeypatch.setattr(risk, "exact_covariance", stand_in)
    # not cached: the stand-in must not reach the cache of real figures
    monkeypatch.setattr(banker, "cached_fraction", lambda name, key, compute, tables: compute())
    out = StringIO()
    argv = ["risk", "taungau", "--players", "3", "--sim-tables", "2000", "--json"]
    assert cli.main(argv, out) == 0
    rec = json.loads(out.getvalue())
    assert validate(rec, load("risk")) == []
    assert rec["covariance_method"] == "exact"
    assert rec["covariance"] == rec["covariance_low"] == rec["covariance_high"] == float(cov)
    assert rec["variance"] == pytest.approx(3 * rec["player_variance"] + 6 * float(cov))
    text = StringIO()
    assert cli.main(argv[:-1], text) == 0  # the same figures, as text
    assert "covariance of two players' nets: 0.007000 (exact, every deal counted)" in (
        text.getvalue()
    )
    assert len(calls) == 2  # once per answer (the cache is bypassed here)
