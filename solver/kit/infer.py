"""Rule inference for ``bull verify --infer``: the rule set another implementation
follows, found from its claims.

Exact scoring makes the search simple: under the current rule set, a rule variant's
``explains - contradicts`` is exactly how many more rows would agree were it the rule
set (every disagreement it explains starts agreeing, every agreeing row it contradicts
stops). So the search is a greedy ascent over the catalogue's rule variants (never its
mistakes): verify under the current rule set, adopt the rule variant of the largest
positive gain, verify again under it (with the catalogue of variants around the new
rule set), and stop when no rule variant gains. Each step is one exact pass over the
file; the result is written as a rule file (TOML) that ``bull verify --rules FILE``
takes, leaving only what no catalogued rule set explains.

This module is game-blind: the face passes ``run(rule_data)``, which verifies the file
under a rule set and returns the report and the catalogue it was scored against.

>>> class V:  # a stand-in variant: a data variant and a settlement option
...     def __init__(self, key, rules=None, **options):
...         self.key, self.rules, self.options, self.mistake = key, rules, options, None
>>> base = {"name": "house", "commission": 0.05, "default_bet": "equal", "zero": 10}
>>> rule_data_of(V("zero=0", {**base, "zero": 0}), base)["zero"]
0
>>> rule_data_of(V("bet=double", bet="double"), base)["default_bet"]
'double'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "INFERRED_NAME",
    "MAX_STEPS",
    "Inference",
    "Step",
    "infer_rules",
    "rule_data_of",
    "with_pairs",
]

INFERRED_NAME = "inferred"
"""The name of an inferred rule set."""
MAX_STEPS = 8
"""The most rule changes the search adopts."""


@dataclass(frozen=True)
class Step:
    """One adopted rule change: the variant's id and description, and the rows agreeing
    after it."""

    key: str
    description: str
    gain: int
    agree: int

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.key,
            "description": self.description,
            "gain": self.gain,
            "agree": self.agree,
        }


@dataclass(frozen=True)
class Inference:
    """The inferred rule set (``rules``: its data), the changes that led to it from the
    starting rule set, and the rows agreeing before and after (of ``checked``)."""

    game: str
    start: str
    rules: Mapping[str, Any]
    steps: tuple[Step, ...]
    agree_before: int
    agree_after: int
    checked: int
    rule_file: str

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "start": self.start,
            "rules": dict(self.rules),
            "steps": [s.to_json() for s in self.steps],
            "agree_before": self.agree_before,
            "agree_after": self.agree_after,
            "checked": self.checked,
            "disagree_after": self.checked - self.agree_after,
            "rule_file": self.rule_file,
        }

    def text(self) -> str:
        """A summary line per step, then the totals."""
        if not self.steps:
            head = f"inferred rule set: {self.start!r} itself (no catalogued rule change gains)"
        else:
            changes = "; ".join(f"{s.description} [{s.key}] (+{s.gain:,})" for s in self.steps)
            head = f"inferred rule set: {self.start!r} with {changes}"
        return (
            f"{head}\nagrees with {self.agree_after:,} of {self.checked:,} rows "
            f"(was {self.agree_before:,}); {self.checked - self.agree_after:,} left that no "
            "catalogued rule set explains"
        )


def rule_data_of(variant: Any, base: Mapping[str, Any]) -> dict[str, Any] | None:
    """The full rule data a rule variant stands for (``None`` for a mistake, or an option
    the rule data cannot state): a data variant's rules, or ``base`` with a settlement
    option set (``bet`` is the rule set's ``default_bet``)."""
    if getattr(variant, "mistake", None) is not None:
        return None
    if variant.rules is not None:
        return dict(variant.rules)
    if not variant.options:
        return None
    out = dict(base)
    for k, v in variant.options.items():
        key = "default_bet" if k == "bet" else k
        if key not in base:
            return None
        out[key] = v
    return out


def with_pairs(variants: Sequence[Any], base: Mapping[str, Any]) -> list[Any]:
    """A catalogue and the pairs of causes a verify run scores with it
    (:class:`solver.kit.scoring.Causes`, one per id): a pair of rule options is a rule
    set the search can adopt at once (no tie-break *and* ties won by the banker, say)."""
    from solver.kit.scoring import Causes

    return Causes.of(variants, base).all


def infer_rules(
    game: str,
    start: str,
    base: Mapping[str, Any],
    first: tuple[Any, Sequence[Any]],
    run: Callable[[Mapping[str, Any]], tuple[Any, Sequence[Any]]],
    to_rule_file: Callable[[Mapping[str, Any]], str],
    max_steps: int = MAX_STEPS,
) -> tuple[Inference, Any]:
    """The greedy ascent of the module docstring from ``base`` (the data of the rule set
    named ``start``), whose verify report and variants are ``first``; ``run(data)``
    verifies the file under ``data`` and returns its report (``agree``, ``checked``,
    ``disagree``, ``diagnosis`` ranked) and the variants it scored. Returns the inference
    and the report under the inferred rule set."""
    current = dict(base)
    report, variants = first
    before = int(report.agree)
    steps: list[Step] = []
    seen = {_digest(current)}
    while len(steps) < max_steps and report.disagree:
        by_key = {v.key: v for v in variants}
        best = None
        for e in report.diagnosis:
            gain = int(e.explains) - int(e.contradicts)
            if gain <= 0:
                break  # ranked by gain: nothing further gains
            v = by_key.get(e.key)
            data = rule_data_of(v, current) if v is not None else None
            if data is None:
                continue
            data = {**data, "name": INFERRED_NAME}
            if _digest(data) in seen:
                continue
            best = (e, gain, data)
            break
        if best is None:
            break
        e, gain, data = best
        seen.add(_digest(data))
        # the rule set is run as the rule file will state it (the same content: a rule
        # file's table, built on first use, is the one built here)
        data["description"] = _description(start, [*(s.description for s in steps), e.description])
        report, variants = run(data)
        current = data
        steps.append(Step(e.key, e.description, gain, int(report.agree)))
    description = _description(start, [s.description for s in steps])
    current = {**current, "name": INFERRED_NAME, "description": description}
    inference = Inference(
        game,
        start,
        current,
        tuple(steps),
        before,
        int(report.agree),
        int(report.checked),
        to_rule_file(current),
    )
    return inference, report


def _description(start: str, changes: Sequence[str]) -> str:
    return (
        f"Inferred by bull verify --infer from {start!r}"
        + (": " + "; ".join(changes) if changes else " (unchanged)")
        + "."
    )


def _digest(data: Mapping[str, Any]) -> str:
    import json

    return json.dumps({k: v for k, v in data.items() if k != "description"}, sort_keys=True)
