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

**Significance** (issue 22). A gain is not enough: on a file of thousands of rows a
variant that "explains" one row may be an accident of that row. A change is adopted
only if its evidence is worth more than naming it, by description length: coding the
file as "the rule set, plus a list of exception rows" costs

    L(d) = log2 C(N, d) + d        bits (which d of the N rows, and one bit each for its value),

so adopting a variant that leaves D' = D - explains + contradicts of the D disagreements
saves L(D) - L(D') bits, and costs log2(m) bits to say which of the m candidate
variants it is. The change is adopted when the saving is at least
:data:`THRESHOLD_BITS` (20 bits: odds of about a million to one that the rows are not
a coincidence) and it explains more rows than it contradicts; every other positive-gain
candidate is reported as *rejected*, with its support and its bits. With N = 5,000 and
50 disagreements, one row is worth 7.6 bits, so a one-row gain is never adopted; a real
house rule on a few hundred rows is worth thousands.

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
from dataclasses import dataclass, replace
from typing import Any

__all__ = [
    "INFERRED_NAME",
    "MAX_STEPS",
    "THRESHOLD_BITS",
    "Inference",
    "Rejected",
    "Step",
    "evidence_bits",
    "infer_rules",
    "rule_data_of",
    "with_lesson",
    "with_pairs",
]

INFERRED_NAME = "inferred"
"""The name of an inferred rule set."""
MAX_STEPS = 8
"""The most rule changes the search adopts."""
THRESHOLD_BITS = 20.0
"""The description-length saving a change needs to be adopted (module docstring)."""
MAX_REJECTED = 8
"""How many rejected candidates a report lists (the best first)."""


def _code_length(n: int, d: int) -> float:
    """Bits to list ``d`` exception rows of ``n`` and one bit for each one's value."""
    from math import lgamma, log

    return (lgamma(n + 1) - lgamma(d + 1) - lgamma(n - d + 1)) / log(2) + d


def evidence_bits(checked: int, disagree: int, explains: int, contradicts: int, m: int) -> float:
    """The description-length saving of a change (module docstring), in bits.

    >>> round(evidence_bits(5000, 50, 1, 0, 1), 1)   # one row of 5,000: never enough
    7.6
    >>> evidence_bits(5000, 50, 30, 0, 100) > THRESHOLD_BITS
    True
    """
    from math import log2

    after = max(0, min(checked, disagree - explains + contradicts))
    saving = _code_length(checked, disagree) - _code_length(checked, after)
    return saving - log2(max(1, m))


@dataclass(frozen=True)
class Rejected:
    """A candidate change that gained rows but not enough to be significant."""

    key: str
    description: str
    explains: int
    contradicts: int
    bits: float

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.key,
            "description": self.description,
            "support": self.explains,
            "contradicts": self.contradicts,
            "bits": round(self.bits, 2),
            "threshold_bits": THRESHOLD_BITS,
        }


@dataclass(frozen=True)
class Step:
    """One adopted rule change: the variant's id and description, and the rows agreeing
    after it."""

    key: str
    description: str
    gain: int
    agree: int
    support: int = 0
    """Rows the change explains (its evidence)."""
    bits: float = 0.0
    """Its description-length saving (:func:`evidence_bits`)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.key,
            "description": self.description,
            "gain": self.gain,
            "agree": self.agree,
            "support": self.support,
            "bits": round(self.bits, 2),
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
    rejected: tuple[Rejected, ...] = ()
    """Changes that gained rows without significant support (not adopted)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "start": self.start,
            "rules": dict(self.rules),
            "steps": [s.to_json() for s in self.steps],
            "adopted": [s.to_json() for s in self.steps],
            "rejected": [r.to_json() for r in self.rejected],
            "threshold_bits": THRESHOLD_BITS,
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
        lines = [
            f"{head}\nagrees with {self.agree_after:,} of {self.checked:,} rows "
            f"(was {self.agree_before:,}); {self.checked - self.agree_after:,} left that no "
            "catalogued rule set explains"
        ]
        for s in self.steps:
            lines.append(f"adopted: {s.key} (support {s.support:,} rows, {s.bits:,.1f} bits)")
        for r in self.rejected:
            lines.append(
                f"rejected: {r.key} (support {r.explains:,} rows, contradicts "
                f"{r.contradicts:,}: {r.bits:,.1f} bits < {THRESHOLD_BITS:g}; not significant)"
            )
        return "\n".join(lines)


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
    rejected: list[Rejected] = []
    while len(steps) < max_steps and report.disagree:
        by_key = {v.key: v for v in variants}
        best = None
        rejected = []
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
            bits = evidence_bits(
                int(report.checked), int(report.disagree), int(e.explains),
                int(e.contradicts), len(variants),
            )  # fmt: skip
            if bits < THRESHOLD_BITS:
                if len(rejected) < MAX_REJECTED:
                    rejected.append(
                        Rejected(e.key, e.description, int(e.explains), int(e.contradicts), bits)
                    )
                continue
            best = (e, gain, data, bits)
            break
        if best is None:
            break
        e, gain, data, bits = best
        seen.add(_digest(data))
        # the rule set is run as the rule file will state it (the same content: a rule
        # file's table, built on first use, is the one built here)
        said = [*(_said(s.description, s.support) for s in steps), _said(e.description, e.explains)]
        data["description"] = _description(start, said)
        report, variants = run(data)
        current = data
        steps.append(Step(e.key, e.description, gain, int(report.agree), int(e.explains), bits))
        rejected = []
    description = _description(start, [_said(s.description, s.support) for s in steps])
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
        tuple(rejected),
    )
    return inference, report


def with_lesson(
    inference: Inference,
    items: Sequence[Any],
    data: Mapping[str, Any] | None,
    run: Callable[[Mapping[str, Any]], Any],
    to_rule_file: Callable[[Mapping[str, Any]], str],
) -> tuple[Inference, Any]:
    """The inference after a game's language stage: its ``items`` (each with ``key``,
    ``description``, ``explains``, ``contradicts``, ``bits`` and ``adopted``) reported
    as adopted or rejected; ``data`` (the rule set with every adopted item, or
    ``None``) re-verified with ``run``. Returns the inference and the report under it
    (``None`` if nothing was adopted)."""
    rejected = [
        Rejected(i.key, i.description, int(i.explains), int(i.contradicts), float(i.bits))
        for i in items
        if not i.adopted
    ]
    rejected.sort(key=lambda r: -r.explains)
    all_rejected = (*inference.rejected, *rejected[:MAX_REJECTED])
    if data is None:
        return replace(inference, rejected=all_rejected), None
    adopted = [i for i in items if i.adopted]
    said = [_said(s.description, s.support) for s in inference.steps]
    said += [_said(i.description, int(i.explains)) for i in adopted]
    current = {**data, "name": INFERRED_NAME, "description": _description(inference.start, said)}
    report = run(current)
    steps = (
        *inference.steps,
        *(
            Step(
                i.key,
                i.description,
                int(i.explains),
                int(report.agree),
                int(i.explains),
                float(i.bits),
            )
            for i in adopted
        ),
    )
    out = replace(
        inference,
        rules=current,
        steps=steps,
        agree_after=int(report.agree),
        checked=int(report.checked),
        rule_file=to_rule_file(current),
        rejected=all_rejected,
    )
    return out, report


def _said(description: str, support: int) -> str:
    return f"{description} (support {support:,} rows)"


def _description(start: str, changes: Sequence[str]) -> str:
    return (
        f"Inferred by bull verify --infer from {start!r}"
        + (": " + "; ".join(changes) if changes else " (unchanged)")
        + "."
    )


def _digest(data: Mapping[str, Any]) -> str:
    import json

    return json.dumps({k: v for k, v in data.items() if k != "description"}, sort_keys=True)
