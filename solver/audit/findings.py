"""The deal-fairness tests of an audit, from the summed counts.

Per group (``all``, then each ``--by`` value): the banker's dealt-hand category
(one hand per round: independent rounds), the players' dealt-hand categories, every
dealt card or tile, and — where the game has an exact showdown distribution — the
outcome of each round's first player against the banker (who wins; one showdown per
round, since the players of a round share the banker). The card test divides its
statistics by the finite-population design effect ``(D - m) / (D - 1)`` of dealing
``m`` items from a ``D``-item deck without replacement (averaged over rounds), so a
fair deal's p-values are uniform.

Power alternatives: categories — the bull rate (Pok Deng: the pok rate) raised to
``bull_rate`` (default 85 %) with the other categories in proportion; cards — one
card (tile type) dealt 10 % more often; outcome — the banker winning 5 points more
often, at the player's expense.
"""

from __future__ import annotations

import numpy as np

from solver.audit.batch import GroupCounts, Partial
from solver.audit.fairness import ALPHA, FitTest, goodness_of_fit
from solver.audit.spec import AuditSpec

__all__ = ["DEFAULT_BULL_RATE", "fairness_tests", "flagged"]

DEFAULT_BULL_RATE = 0.85


def _bull_alternative(spec: AuditSpec, rate: float) -> tuple[list[float], str]:
    p = np.array([float(f) for f in spec.expected])
    bull = np.array(spec.bull, dtype=bool)
    fair = float(p[bull].sum())
    if abs(rate - fair) < 1e-3:
        rate = fair / 2
    q = np.where(bull, p * rate / fair, p * (1 - rate) / (1 - fair))
    word = "pok" if spec.game == "pokdeng" else "bull"
    return q.tolist(), f"{word} rate {rate:.2%} instead of {fair:.2%}"


def _tests_of(spec: AuditSpec, name: str, g: GroupCounts, bull_rate: float) -> list[FitTest]:
    out = []
    q, bias = _bull_alternative(spec, bull_rate)
    labels = list(spec.labels)
    if g.rounds:
        out.append(
            goodness_of_fit(
                "category:" + spec.banker_word, name, g.banker, list(spec.expected),
                labels=labels, alternative=q, per_round=g.banker.sum() / g.rounds, bias=bias,
            )
        )  # fmt: skip
        out.append(
            goodness_of_fit(
                "category:player", name, g.player, list(spec.expected), labels=labels,
                alternative=q, per_round=g.player.sum() / g.rounds, bias=bias,
                note="seats of a round are dealt from one deck (weakly dependent)",
            )
        )  # fmt: skip
        d = len(spec.deck)
        probs = spec.unit_probability()
        scale = (d * g.m_sum - g.m_sq) / ((d - 1) * g.m_sum) if g.m_sum else 1.0
        pu = np.array([float(f) for f in probs])
        top = int(np.argmax(pu))
        qu = pu.copy()
        qu[top] *= 1.1
        kind = "tile type" if spec.kind == "tile" else "card"
        out.append(
            goodness_of_fit(
                spec.kind, name, g.unit, probs, labels=list(spec.unit_names), scale=scale,
                alternative=qu.tolist(), per_round=g.m_sum / g.rounds,
                bias=f"one {kind} ({spec.unit_names[top]}) dealt 10% more often",
                note=f"statistics divided by the design effect {scale:.4f} of dealing "
                "without replacement",
            )
        )  # fmt: skip
    if spec.outcome is not None and g.outcome.sum():
        po = [float(f) for f in spec.outcome]
        qo = [max(po[0] - 0.05, 1e-9), po[1] + 0.05, po[2]]
        names = ["player", spec.banker_word, "push"]
        out.append(
            goodness_of_fit(
                "outcome", name, g.outcome, list(spec.outcome), labels=names, alternative=qo,
                per_round=1.0, bias=f"the {spec.banker_word} winning 5 points more often",
                note="each round's first player against the " + spec.banker_word,
            )
        )  # fmt: skip
    return out


def fairness_tests(
    part: Partial, spec: AuditSpec, bull_rate: float = DEFAULT_BULL_RATE
) -> list[FitTest]:
    """Every test, overall (group ``all``) and per ``--by`` group (sorted by name)."""
    tests: list[FitTest] = []
    for key in sorted(part.groups):
        tests += _tests_of(spec, key or "all", part.groups[key], bull_rate)
    return tests


def flagged(tests: list[FitTest]) -> list[FitTest]:
    """The tests whose p-value is below :data:`~solver.audit.fairness.ALPHA`."""
    return [t for t in tests if t.p_value < ALPHA]
