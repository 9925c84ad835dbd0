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

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from solver.audit.batch import GroupCounts, Partial
from solver.audit.fairness import ALPHA, FitTest, goodness_of_fit
from solver.audit.partial import round_order
from solver.audit.spec import AuditSpec

__all__ = [
    "DEFAULT_BULL_RATE",
    "EDGE_SHIFT",
    "MAX_LISTED_GROUPS",
    "GroupListing",
    "amount_label",
    "fairness_tests",
    "flagged",
    "list_groups",
    "not_run",
]

DEFAULT_BULL_RATE = 0.85
MAX_LISTED_GROUPS = 50
"""The most ``--by`` groups whose tests an audit lists (every group is tested; past
this, the most suspicious are listed and the rest summarised)."""
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
        why = spec.outcome_note or "no exact figures"
        out.append({"name": "hold", "reason": f"needs the exact net distribution: {why}"})
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


def _prepare(spec: AuditSpec, bull_rate: float) -> dict[str, Any]:
    """What every group's tests share: the probabilities as floats and the alternatives
    (computed once: thousands of ``--by`` groups)."""
    q, bias = _bull_alternative(spec, bull_rate)
    probs = [float(f) for f in spec.unit_probability()]
    pu = np.array(probs)
    top = int(np.argmax(pu))
    qu = pu.copy()
    qu[top] *= 1.1
    out: dict[str, Any] = {
        "expected": [float(f) for f in spec.expected], "q": q, "bias": bias,
        "labels": list(spec.labels), "units": probs, "qu": qu.tolist(), "top": top,
        "unit_names": list(spec.unit_names),
    }  # fmt: skip
    if spec.outcome is not None:
        po = [float(f) for f in spec.outcome]
        out["outcome"] = po
        out["qo"] = [max(po[0] - 0.05, 1e-9), po[1] + 0.05, po[2]]
    return out


def _tests_of(spec: AuditSpec, name: str, g: GroupCounts, prep: dict[str, Any]) -> list[FitTest]:
    out = []
    q, bias, labels, expected = prep["q"], prep["bias"], prep["labels"], prep["expected"]
    group = name != "all"  # a group with no such hands has no such test (--by seat)
    if g.rounds and not (group and not g.banker.any()):
        out.append(
            goodness_of_fit(
                "category:" + spec.banker_word, name, g.banker, expected,
                labels=labels, alternative=q, per_round=g.banker.sum() / g.rounds, bias=bias,
                rounds=g.rounds,
            )
        )  # fmt: skip
    if g.rounds and not (group and not g.player.any()):
        out.append(
            goodness_of_fit(
                "category:player", name, g.player, expected, labels=labels,
                alternative=q, per_round=g.player.sum() / g.rounds, bias=bias, rounds=g.rounds,
                note="seats of a round are dealt from one deck (weakly dependent)",
            )
        )  # fmt: skip
    if g.rounds:
        d = len(spec.deck)
        scale = (d * g.m_sum - g.m_sq) / ((d - 1) * g.m_sum) if g.m_sum else 1.0
        kind = "tile type" if spec.kind == "tile" else "card"
        out.append(
            goodness_of_fit(
                spec.kind, name, g.unit, prep["units"], labels=prep["unit_names"], scale=scale,
                alternative=prep["qu"], per_round=g.m_sum / g.rounds, rounds=g.rounds,
                bias=f"one {kind} ({spec.unit_names[prep['top']]}) dealt 10% more often",
                note=f"statistics divided by the design effect {scale:.4f} of dealing "
                "without replacement",
            )
        )  # fmt: skip
    if spec.outcome is not None and g.outcome.sum():
        names = ["player", spec.banker_word, "push"]
        out.append(
            goodness_of_fit(
                "outcome", name, g.outcome, prep["outcome"], labels=names,
                alternative=prep["qo"],
                per_round=1.0, bias=f"the {spec.banker_word} winning 5 points more often",
                rounds=int(g.outcome.sum()),
                note="each round's first player against the " + spec.banker_word
                + (f"; {spec.outcome_note}" if spec.outcome_note else ""),
            )
        )  # fmt: skip
    if spec.net is not None and g.net:
        obs, probs, net_labels = _net_bins(spec, g.net)
        out.append(
            goodness_of_fit(
                "net", name, obs, probs, labels=net_labels,
                alternative=_net_alternative(spec, probs),
                per_round=1.0, rounds=sum(g.net.values()),
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
    prep = _prepare(spec, bull_rate)
    for key in sorted(part.groups, key=round_order):
        tests += _tests_of(spec, key or "all", part.groups[key], prep)
    return tests


def flagged(tests: list[FitTest]) -> list[FitTest]:
    """The tests whose p-value is below :data:`~solver.audit.fairness.ALPHA`."""
    return [t for t in tests if t.p_value < ALPHA]


@dataclass(frozen=True)
class GroupListing:
    """Which ``--by`` groups an audit lists: all of them in name order, or past
    :data:`MAX_LISTED_GROUPS` the ones with the smallest p-values (flagged first), and a
    summary of the rest (``groups_not_listed`` in the JSON)."""

    listed: tuple[str, ...]
    summary: dict[str, Any] | None

    def keeps(self, group: str) -> bool:
        return group == "all" or group in self.listed


def list_groups(
    groups: Sequence[str],
    smallest_p: dict[str, float],
    flagged_groups: set[str],
    limit: int = MAX_LISTED_GROUPS,
) -> GroupListing:
    """The listing of ``groups`` (``smallest_p``: each group's smallest p-value over
    its tests and hold check; ``flagged_groups``: those with a flag).

    >>> g = list_groups(["a", "b", "c"], {"a": 0.5, "b": 1e-9, "c": 0.2}, {"b"}, limit=2)
    >>> g.listed, g.summary["not_listed"], g.summary["flagged_not_listed"]
    (('b', 'c'), 1, 0)
    """
    if len(groups) <= limit:
        return GroupListing(tuple(sorted(groups, key=round_order)), None)
    ranked = sorted(groups, key=lambda k: (k not in flagged_groups, smallest_p.get(k, 1.0),
                                           round_order(k)))  # fmt: skip
    listed, rest = ranked[:limit], ranked[limit:]
    summary = {
        "groups": len(groups),
        "listed": len(listed),
        "not_listed": len(rest),
        "flagged_not_listed": sum(1 for k in rest if k in flagged_groups),
        "smallest_p_not_listed": min((smallest_p.get(k, 1.0) for k in rest), default=1.0),
        "note": f"{len(groups):,} groups, every one tested; the {limit} with the smallest "
        "p-values are listed",
    }
    return GroupListing(tuple(sorted(listed, key=round_order)), summary)
