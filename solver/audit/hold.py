"""The hold check of an audit: did the players net what the game says they should?

What regulators ask of a table (its win against the theoretical win and its band), per
group (``all``, then each ``--by`` value): the **observed** total of the players' nets
(the logged ``net`` of every player row of a complete round; the re-settled amount
where a row states none), against the **expected** total ``rows · EV`` and its standard
deviation for that many rounds, from the exact one-round figures of the rule set (the
spec's net distribution: ``EV`` and ``Var`` of one player's net, as ``bull edge``
gives them):

    Var(total) = rows · Var + pairs · Cov

``pairs`` counts the ordered pairs of player rows of one round (they share the banker's
hand, so their nets are correlated) and ``Cov`` is the covariance of two players' nets
against one banker. ``Cov`` is taken exact from the game when it has it (the spec hook
``net_covariance``); otherwise it is **estimated by simulation** (a seeded deal of
:data:`COV_ROUNDS` rounds with the game's own settlement, its standard error from the
rounds) and the band uses its upper 99.9 % bound, so the band is never narrower than
the exact one would be at that confidence — the output says which.

``z = (observed - expected) / sd``, its two-sided normal p-value, and a group is
**flagged** outside the 99.9 % band after a **Bonferroni correction** for the number of
checks ``K`` (overall and every group): each is flagged at ``p < 0.001 / K``, so an
honest audit is flagged with probability at most 0.1 % (normal approximation).
The power: the rounds a group needs for a skim of 1 % of every player win to leave the
band with probability 90 % (fewer: ``not enough rounds``).

>>> round(z_critical(1), 4), round(z_critical(4), 3)
(3.2905, 3.662)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np

from solver.audit.fairness import verdict
from solver.audit.partial import GroupCounts, Partial
from solver.audit.spec import AuditSpec

__all__ = [
    "COV_ROUNDS",
    "HOLD_LEVEL",
    "SKIM",
    "Covariance",
    "HoldCheck",
    "covariance",
    "hold_ahead",
    "hold_checks",
    "z_critical",
]

HOLD_LEVEL = 0.999
"""The band's confidence, before the correction for the number of checks."""
SKIM = 0.01
"""The power alternative: this fraction of every player win kept back."""
POWER = 0.9
COV_ROUNDS = 60_000
"""Simulated rounds (each with several players) for an estimated covariance."""
COV_SEED = 20_251_202
_CACHE: dict[tuple[Any, ...], Covariance] = {}


def z_critical(checks: int, level: float = HOLD_LEVEL) -> float:
    """The two-sided normal quantile of ``level`` after a Bonferroni correction for
    ``checks`` checks."""
    return NormalDist().inv_cdf(1 - (1 - level) / (2 * max(1, checks)))


@dataclass(frozen=True)
class Covariance:
    """The covariance of two players' nets against one banker hand: the value the band
    uses (``value``), with how it was found."""

    value: float
    exact: bool
    estimate: float
    se: float = 0.0
    rounds: int = 0
    pairs: int = 0

    def text(self) -> str:
        if self.exact:
            return f"exact covariance {self.value:.6g}"
        return (
            f"covariance {self.estimate:.4g} ± {self.se:.2g} (SE) simulated over "
            f"{self.rounds:,} seeded rounds ({self.pairs:,} pairs of players); the band "
            f"uses its upper 99.9 % bound {self.value:.4g}"
        )


@dataclass(frozen=True)
class HoldCheck:
    """One group's hold check (see the module docstring)."""

    group: str
    rounds: int
    players: int
    observed: float
    expected: float
    sd: float
    z: float
    p_value: float
    flagged: bool
    band: tuple[float, float]
    power_rounds: int | None

    @property
    def status(self) -> str:
        return verdict(self.flagged, self.rounds, self.power_rounds)

    def to_json(self) -> dict[str, Any]:
        return {
            "group": self.group,
            "rounds": self.rounds,
            "player_rows": self.players,
            "observed": self.observed,
            "expected": self.expected,
            "sd": self.sd,
            "z": self.z,
            "p_value": self.p_value,
            "flagged": self.flagged,
            "band": list(self.band),
            "power_rounds": self.power_rounds,
            "status": self.status,
        }


def _moments(spec: AuditSpec) -> tuple[Fraction, Fraction, Fraction]:
    """The exact mean, variance and mean positive part (the wins) of one player's net."""
    assert spec.net is not None
    mean = sum((a * p for a, p in spec.net), Fraction(0))
    var = sum(((a - mean) ** 2 * p for a, p in spec.net), Fraction(0))
    wins = sum((a * p for a, p in spec.net if a > 0), Fraction(0))
    return mean, var, wins


def covariance(spec: AuditSpec, rounds: int = COV_ROUNDS, seed: int = COV_SEED) -> Covariance:
    """The covariance of two players' nets against one banker (exact from the spec's
    ``net_covariance`` hook, else simulated and cached; see the module docstring)."""
    exact = spec.hooks.get("net_covariance")
    if exact is not None:
        return Covariance(float(exact), True, float(exact))
    assert spec.net is not None
    key = (spec.game, spec.rules, spec.net, spec.decks, spec.outcome_note, rounds, seed)
    if key in _CACHE:
        return _CACHE[key]
    stored = _stored(spec, rounds, seed)
    if stored is not None:
        path, disk_key, got = stored
        if got is not None:
            _CACHE[key] = got
            return got
    from solver.audit.deal import seat_hands

    mean = float(_moments(spec)[0])
    per_seat = spec.hand_size + (1 if spec.hooks.get("finish") is not None else 0)
    players = max(2, min(4, len(spec.deck) // per_seat - 1))
    rng = np.random.default_rng(seed)
    stats = []
    chunk = max(1, min(rounds, 5_000_000 // len(spec.deck)))
    for start in range(0, rounds, chunk):
        hands = seat_hands(spec, rng, min(chunk, rounds - start), players)
        x = np.stack([spec.settle(h, hands[0])[1] for h in hands[1:]], axis=1) - mean
        s = x.sum(axis=1)
        stats.append((s * s - (x * x).sum(axis=1)) / (players * (players - 1)))
    r = np.concatenate(stats)
    est, se = float(r.mean()), float(r.std(ddof=1) / math.sqrt(len(r)))
    upper = est + NormalDist().inv_cdf(HOLD_LEVEL) * se
    out = Covariance(upper, False, est, se, len(r), len(r) * players * (players - 1) // 2)
    _CACHE[key] = out
    if stored is not None:
        from solver.store.custom import store_figures

        store_figures(path, disk_key, {"covariance": _fields(out)})
    return out


def _fields(c: Covariance) -> list[Any]:
    return [c.value, c.exact, c.estimate, c.se, c.rounds, c.pairs]


def _stored(
    spec: AuditSpec, rounds: int, seed: int
) -> tuple[Path, dict[str, Any], Covariance | None] | None:
    """Where the simulated covariance of ``spec`` is kept on disk beside the rule-set
    tables (for a game that names its rule set and options: the spec hook
    ``cache_key``; None otherwise), its key, and the covariance kept there, if any (it
    is seeded: the same figures, without the ~0.15 s of dealing and settling)."""
    name = spec.hooks.get("cache_key")
    if name is None:
        return None
    from solver.store.custom import cached_figures

    key = {
        "covariance": "audit hold 1", "spec": name, "rounds": rounds, "seed": seed,
        "deck": spec.deck.tolist(), "hand_size": spec.hand_size,
        "net": [[str(a), str(p)] for a, p in spec.net or ()],
    }  # fmt: skip
    path, got = cached_figures("audit-covariance", key, spec.hooks.get("tables"), 1 << 16)
    fields = None if got is None else got.get("covariance")
    try:
        value, exact, est, se, n, pairs = fields  # type: ignore[misc]
        cov = Covariance(float(value), bool(exact), float(est), float(se), int(n), int(pairs))
    except (TypeError, ValueError):
        cov = None
    if cov is not None and (cov.exact or cov.rounds != rounds or not math.isfinite(cov.value)):
        cov = None
    return path, key, cov


def hold_ahead(spec: AuditSpec) -> None:
    """What :func:`hold_checks` needs of ``spec`` alone, worked out ahead (the simulated
    covariance, kept for this process): the DuckDB engine's idle parent process does it
    while its workers read the logs."""
    if spec.net is not None:
        covariance(spec)


def _check(
    name: str, g: GroupCounts, mean: Fraction, var: float, cov: float, skim: float, zc: float
) -> HoldCheck:
    observed = g.held_micro / 1e6
    expected = float(g.held_rows * mean)
    sd = math.sqrt(max(0.0, g.held_rows * var + g.held_pairs * cov))
    z = (observed - expected) / sd if sd > 0 else (0.0 if observed == expected else math.inf)
    p = math.erfc(abs(z) / math.sqrt(2)) if math.isfinite(z) else 0.0
    flagged = abs(z) > zc
    power = None
    if g.rounds and skim > 0:  # per round: n players, shift n * skim, sd of the round total
        n = g.held_rows / g.rounds
        sd_round = math.sqrt(max(0.0, n * var + (g.held_pairs / g.rounds) * cov))
        need = (zc + NormalDist().inv_cdf(POWER)) * sd_round / (n * skim)
        power = max(1, math.ceil(need * need))
    band = (expected - zc * sd, expected + zc * sd)
    return HoldCheck(name, g.rounds, g.held_rows, observed, expected, sd, z, p, flagged, band,
                     power)  # fmt: skip


def hold_checks(
    part: Partial, spec: AuditSpec, groups: Sequence[str] | None = None
) -> tuple[list[HoldCheck], dict[str, Any]]:
    """The hold check overall and per ``--by`` group (``groups``: the keys to check, in
    order; default all), and a description of the method (``hold_method`` in the JSON:
    level, correction, covariance, what was observed). No checks without the exact
    distribution of the player's net (see ``not_run``)."""
    if spec.net is None:
        return [], {}
    keys = [k for k in (sorted(part.groups) if groups is None else groups)
            if part.groups[k].held_rows]  # fmt: skip
    if not keys:
        return [], {}
    mean, var, wins = _moments(spec)
    cov = covariance(spec)
    zc = z_critical(len(keys))
    skim = SKIM * float(wins)
    checks = [
        _check(k or "all", part.groups[k], mean, float(var), cov.value, skim, zc) for k in keys
    ]
    logged = "net" in part.fields
    method = {
        "band_percent": HOLD_LEVEL * 100,
        "checks": len(keys),
        "correction": f"Bonferroni over {len(keys)} check(s): each flagged at p < "
        f"{(1 - HOLD_LEVEL) / len(keys):.3g} (|z| > {zc:.3f})",
        "ev": float(mean),
        "ev_fraction": f"{mean.numerator}/{mean.denominator}",
        "variance": float(var),
        "variance_fraction": f"{var.numerator}/{var.denominator}",
        "covariance": cov.value,
        "covariance_exact": cov.exact,
        "covariance_note": cov.text(),
        "observed": "the logged net of every player row (re-settled where a row states none)"
        if logged
        else "the re-settled nets (the logs state no net)",
        "power_bias": f"{SKIM:.0%} of every player win kept back",
    }
    return checks, method
