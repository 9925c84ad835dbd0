"""The deal-fairness tests of an audit, from the summed counts.

Per group (``all``, then each ``--by`` value): the banker's dealt-hand category
(one hand per round: independent rounds), the players' dealt-hand categories, every
dealt card or tile, and — where the game has an exact showdown distribution — the
outcome of each round's first player against the banker (who wins; one showdown per
round, since the players of a round share the banker) and that player's net (by how
much: the re-settled amount, binned into the amounts the rule set can produce, against
their exact distribution; an amount the rules cannot produce makes the p-value 0).
The card test divides its statistics by the finite-population design effect
``(D - m) / (D - 1)`` of dealing ``m`` items from a ``D``-item deck (a shoe: every
copy counts) without replacement (averaged over rounds), so a fair deal's p-values are
uniform.

Power alternatives: categories — the bull rate (Pok Deng: the pok rate) raised to
``bull_rate`` (default 85 %) with the other categories in proportion; cards — one
card (tile type) dealt 10 % more often; outcome — the banker winning 5 points more
often, at the player's expense; net — the same shift, taken from the player's winning
amounts and given to the losing ones, each in proportion.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from solver.audit.batch import GroupCounts, Partial
from solver.audit.fairness import ALPHA, FitTest, goodness_of_fit
from solver.audit.spec import AuditSpec

__all__ = [
    "DEFAULT_BULL_RATE",
    "EDGE_SHIFT",
    "amount_label",
    "fairness_tests",
    "flagged",
    "not_run",
]

DEFAULT_BULL_RATE = 0.85
EDGE_SHIFT = 0.05
"""The power alternative of the outcome and net tests: the banker wins this much more often."""


def amount_label(a: Fraction) -> str:
    """A net amount as a bin label.

    >>> amount_label(Fraction(19, 10)), amount_label(Fraction(-2)), amount_label(Fraction(0))
    ('+1.9', '-2', '0')
    """
    return "0" if a == 0 else f"{float(a):+.6g}"


def _net_bins(
    spec: AuditSpec, net: dict[float, int]
) -> tuple[list[int], list[Fraction], list[str]]:
    """Observed counts per exact amount (plus ``other``: amounts the rules cannot pay)."""
    assert spec.net is not None
    amounts = np.array([float(a) for a, _ in spec.net])
    obs = [0] * len(amounts)
    other = 0
    for v, c in net.items():
        j = int(np.argmin(np.abs(amounts - v)))
        if abs(amounts[j] - v) <= 1e-6 * max(1.0, abs(v)):
            obs[j] += c
        else:
            other += c
    probs = [p for _, p in spec.net]
    labels = [amount_label(a) for a, _ in spec.net]
    if other:
        obs, probs, labels = [*obs, other], [*probs, Fraction(0)], [*labels, "other"]
    return obs, probs, labels


def _net_alternative(spec: AuditSpec, probs: list[Fraction]) -> list[float]:
    assert spec.net is not None
    p = np.array([float(x) for x in probs])
    sign = np.array(
        [float(np.sign(float(a))) for a, _ in spec.net] + [0.0] * (len(p) - len(spec.net))
    )
    win, loss = float(p[sign > 0].sum()), float(p[sign < 0].sum())
    shift = min(EDGE_SHIFT, win / 2)
    q = p.copy()
    if win > 0 and loss > 0:
        q[sign > 0] *= 1 - shift / win
        q[sign < 0] *= 1 + shift / loss
    return [float(x) for x in q]


def not_run(spec: AuditSpec) -> list[dict[str, str]]:
    """The tests an audit of ``spec`` does not run, each with the reason."""
    out = []
    if spec.outcome is None:
        out.append({"name": "outcome", "reason": spec.outcome_note or "no exact figures"})
    if spec.net is None:
        out.append({"name": "net", "reason": spec.outcome_note or "no exact figures"})
    return out


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
                note="each round's first player against the " + spec.banker_word
                + (f"; {spec.outcome_note}" if spec.outcome_note else ""),
            )
        )  # fmt: skip
    if spec.net is not None and g.net:
        obs, probs, labels = _net_bins(spec, g.net)
        out.append(
            goodness_of_fit(
                "net", name, obs, probs, labels=labels, alternative=_net_alternative(spec, probs),
                per_round=1.0,
                bias=f"the {spec.banker_word} winning {EDGE_SHIFT:.0%} more often "
                "(banker_edge-like)",
                note=f"the first player's net per round, {len(spec.net)} amounts the rules pay"
                + (f"; {spec.outcome_note}" if spec.outcome_note else ""),
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
