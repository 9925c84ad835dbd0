"""The whole distribution of one bet's net, not just its mean (``bull edge``'s risk figures).

A :class:`NetDistribution` holds every amount the player can net in one heads-up round
with its exact probability (fractions). From it come the exact variance, the standard
deviation, the largest loss and win, and the casino-mathematics *volatility index*
``VI = z · SD`` (z the two-sided normal quantile: 1.645, 1.960 and 2.576 at 90, 95 and
99 %): the half-width of the band the player's average net per round falls in after n
rounds is about VI / sqrt(n).

Each game computes its distribution from the same counts as its exact edge (Niu Niu
from the matchup counts, Tau Ngau from the per-hand banker distributions with the
decline decisions, Pok Deng from every deal of the four hands' cards under the optimal
strategy), so its mean is the exact edge, checked whenever one is built.

>>> d = NetDistribution.of([(Fraction(-1), Fraction(1, 2)), (Fraction(1), Fraction(1, 2))])
>>> d.mean, d.variance, d.sd, d.max_loss, d.max_win
(Fraction(0, 1), Fraction(1, 1), 1.0, Fraction(1, 1), Fraction(1, 1))
>>> round(d.volatility_index()["95"], 3)
1.96
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist
from typing import Any

from solver.kit.exact import fraction_text

__all__ = ["VI_LEVELS", "NetDistribution", "distribution_text", "z_two_sided"]

VI_LEVELS = (90, 95, 99)
"""The confidence levels (%) of the volatility index."""


def z_two_sided(level: float) -> float:
    """The two-sided standard normal quantile for a confidence ``level`` in percent.

    >>> round(z_two_sided(95), 4), round(z_two_sided(99), 4)
    (1.96, 2.5758)
    """
    return NormalDist().inv_cdf(0.5 + level / 200)


@dataclass(frozen=True)
class NetDistribution:
    """Every net amount of one round with its exact probability, ascending by amount
    (amounts appear once; probabilities are positive and sum to 1)."""

    points: tuple[tuple[Fraction, Fraction], ...]

    @classmethod
    def of(cls, pairs: Iterable[tuple[Fraction, Fraction]]) -> NetDistribution:
        """From (amount, probability) pairs in any order; equal amounts are merged,
        zero probabilities dropped; the probabilities must sum to exactly 1."""
        merged: dict[Fraction, Fraction] = {}
        for a, p in pairs:
            a, p = Fraction(a), Fraction(p)
            if p < 0:
                raise ValueError(f"negative probability {p} for the amount {a}")
            merged[a] = merged.get(a, Fraction(0)) + p
        if sum(merged.values()) != 1:
            raise ValueError("the probabilities do not sum to 1")
        return cls(tuple((a, p) for a, p in sorted(merged.items()) if p))

    @property
    def mean(self) -> Fraction:
        return sum((a * p for a, p in self.points), Fraction(0))

    @property
    def second_moment(self) -> Fraction:
        return sum((a * a * p for a, p in self.points), Fraction(0))

    @property
    def variance(self) -> Fraction:
        """E[(X - E X)^2], exactly."""
        m = self.mean
        return sum(((a - m) ** 2 * p for a, p in self.points), Fraction(0))

    @property
    def sd(self) -> float:
        return math.sqrt(self.variance)

    @property
    def max_loss(self) -> Fraction:
        """The largest amount the player can lose in one round (0 if he cannot lose)."""
        return max(Fraction(0), -self.points[0][0])

    @property
    def max_win(self) -> Fraction:
        """The largest amount the player can win in one round (0 if he cannot win)."""
        return max(Fraction(0), self.points[-1][0])

    def volatility_index(self) -> dict[str, float]:
        """``{"90": z·SD, "95": ..., "99": ...}`` (two-sided normal quantiles)."""
        sd = self.sd
        return {str(level): z_two_sided(level) * sd for level in VI_LEVELS}

    def negated(self) -> NetDistribution:
        """The other side's net (the banker's, heads-up)."""
        return NetDistribution(tuple((-a, p) for a, p in reversed(self.points)))

    def to_json(self) -> dict[str, Any]:
        """The risk fields of ``bull edge --json``: ``distribution`` (``{net, probability}``
        ascending by net, each with its ``_fraction`` twin), ``variance`` (and
        ``variance_fraction``), ``sd``, ``max_loss``/``max_win`` (with ``_fraction``
        twins) and ``volatility_index`` at 90/95/99 %."""
        return {
            "distribution": [
                {
                    "net": float(a),
                    "net_fraction": fraction_text(a),
                    "probability": float(p),
                    "probability_fraction": fraction_text(p),
                }
                for a, p in self.points
            ],
            "variance": float(self.variance),
            "variance_fraction": fraction_text(self.variance),
            "sd": self.sd,
            "max_loss": float(self.max_loss),
            "max_loss_fraction": fraction_text(self.max_loss),
            "max_win": float(self.max_win),
            "max_win_fraction": fraction_text(self.max_win),
            "volatility_index": self.volatility_index(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> NetDistribution:
        """Back from :meth:`to_json` (the exact ``_fraction`` texts)."""
        return cls.of(
            (Fraction(row["net_fraction"]), Fraction(row["probability_fraction"]))
            for row in data["distribution"]
        )


def distribution_text(d: NetDistribution, what: str = "player's net per round") -> list[str]:
    """A few indented lines for a command's text output."""
    vi = d.volatility_index()
    lines = [
        f"  {what}: SD {d.sd:.6f} (variance {fraction_text(d.variance)}); "
        f"largest loss {float(d.max_loss):g}, largest win {float(d.max_win):g}",
        "  volatility index (z x SD): " + ", ".join(f"{k}% {v:.4f}" for k, v in vi.items()),
        "  distribution: "
        + ", ".join(f"{float(a):+g}: {100 * float(p):.4f}%" for a, p in d.points),
    ]
    return lines
