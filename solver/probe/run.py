"""The probe's phases: cover, discriminate, substantiate, infer, confirm — each answer kept as a row
of a claims file that ``bull verify`` reads (the request's hand or hands, then the
answer's fields), so the report, the diagnosis and the inference are verify's own
(:func:`solver.verify.verify_file`, :func:`solver.verify.infer_file`).

1. *Cover*: the game's conformance vectors (a question catching each catalogued cause)
   and one hand per class (:func:`solver.probe.plan.classes`), with a seeded sample of
   showdowns.
2. *Discriminate*: while several causes explain every disagreement without
   contradicting an agreement, ask the unasked hands of a seeded pool on which those
   candidates split most evenly (which of them answer as our rules do), a round at a
   time, and verify again.
3. *Substantiate*: when fewer than :data:`THIN` answers disagree (a cause seen on one
   rare cover question), the questions one item away from them
   (:meth:`Prober.substantiate`), so an inferred rule rests on more than one row.
4. *Infer*: verify's rule inference over the answers so far.
5. *Confirm*: every hand (or ``budget`` seeded ones) and a seeded sample of showdowns,
   checked under the inferred rule set.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import json
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.core.errors import BullError
from solver.kit.findings import VerifyReport
from solver.probe import plan
from solver.probe.faults import Answer, Faults, Question
from solver.probe.faults import questions as many_questions
from solver.probe.peer import Peer
from solver.probe.wire import Blocks, Encoder, hand_rows, uniform

__all__ = ["Phase", "ProbeReport", "Prober", "ShowdownPlan"]

ROUNDS = 12
"""The most discriminate rounds."""
PER_ROUND = 64
"""Questions asked per discriminate round."""
POOL = 3_000
"""Random hands and showdowns of the discriminate pool (with our answers)."""
SHOWDOWN_COVER = 400
"""Random showdowns in the cover."""
SHOWDOWN_CONFIRM = 5_000
"""Random showdowns in the confirm phase."""
BLOCK = 65_536
"""Hands of a sampled confirm built at once."""
THIN = 8
"""Fewer disagreements than this after the cover are substantiated (:meth:`Prober.substantiate`)."""
NEIGHBOURS = 4_000
"""The most questions one item away from the disagreeing ones."""


@dataclass
class Phase:
    """One phase's questions and seconds."""

    name: str
    questions: int = 0
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"questions": self.questions, "seconds": round(self.seconds, 3)}


@dataclass(frozen=True)
class ShowdownPlan:
    """Whether showdowns are asked (``--protocol lines`` asks hands only unless its
    fields are showdown fields)."""

    hands: bool = True
    showdowns: bool = True


@dataclass
class ProbeReport:
    """A probe's report: verify's report over every answer (under ``--rules``) plus
    what the probe adds."""

    verify: VerifyReport | None
    target: str
    queries: int
    answered: int
    phases: list[Phase]
    faults: Faults
    inferred: Any = None
    confirm: dict[str, Any] = field(default_factory=dict)
    coverage: dict[str, Any] = field(default_factory=dict)
    candidates: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        if self.verify is None:
            return 1
        bad = bool(self.faults.crashes or self.faults.timeouts or self.faults.fatal)
        bad = bad or self.faults.interrupted or bool(self.faults.garbage)
        return 1 if bad else self.verify.exit_code

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = self.verify.to_json() if self.verify is not None else {}
        out["file"] = self.target
        out.update(
            {
                "queries": self.queries,
                "answered": self.answered,
                "phases": {p.name: p.to_json() for p in self.phases},
                "crashes": len(self.faults.crashes),
                "timeouts": len(self.faults.timeouts),
                "faults": self.faults.to_json(),
                "inferred": self.inferred.to_json() if self.inferred is not None else None,
                "confirm": self.confirm,
                "coverage": self.coverage,
                "candidates": self.candidates,
                "exit": self.exit_code,
            }
        )
        return out

    def text(self) -> str:
        lines = []
        if self.verify is not None:
            lines.append(self.verify.text().replace(self.verify.file, self.target, 1))
        else:
            lines.append(f"probe {self.target}: no answers to check")
        phases = ", ".join(f"{p.name} {p.questions:,} ({p.seconds:.1f} s)" for p in self.phases)
        asked = f"questions {self.queries:,} (answered {self.answered:,})"
        lines.append(asked + (f": {phases}" if phases else ""))
        if self.coverage:
            lines.append(f"confirm coverage: {self.coverage.get('text', '')}")
        if self.confirm:
            lines.append(
                f"confirm under {self.confirm.get('rules')!r}: "
                f"{self.confirm.get('disagree', 0):,} disagreement(s) of "
                f"{self.confirm.get('checked', 0):,} rows"
            )
        if self.inferred is not None:
            lines.append(self.inferred.text())
        lines.extend(self.faults.lines())
        return "\n".join(lines)


class Prober:
    """One probe run: asks ``peer`` about ``game`` under ``rules`` (see the module
    docstring); :meth:`run` returns the report."""

    def __init__(
        self,
        game: str,
        peer: Peer,
        *,
        target: str,
        rules: Any = None,
        options: Mapping[str, Any] | None = None,
        tables: str | None = None,
        columns: Mapping[str, str] | None = None,
        budget: int | None = None,
        seed: int = 0,
        out: str | None = None,
        shows: ShowdownPlan = ShowdownPlan(),
        progress: Callable[[str], Any] | None = None,
        workdir: str | None = None,
    ) -> None:
        self.game = game
        self.peer = peer
        self.target = target
        self.rules = rules
        self.options = dict(options or {})
        self.tables = tables
        self.columns = dict(columns or {})
        self.budget = budget
        self.seed = seed
        self.out = out
        self.shows = shows
        self.progress = progress
        self.space = plan.space(game, rules)
        self.quoted = [json.dumps(n) for n in self.space.names]
        self.key = {k: self.columns.get(k, k) for k in ("hand", "player", "banker")}
        self.next_id = 1
        self.asked: set[tuple[str, ...]] = set()
        """The showdowns asked (their hands as written)."""
        self.asked_hands: set[str] = set()
        """The hands asked, as written (``KS 9H 8C 3D 7S``)."""
        self.queries = 0
        self.answered = 0
        self.phases: list[Phase] = []
        self._tmp = tempfile.TemporaryDirectory(prefix="bull-probe-", dir=workdir)
        self.claims = os.path.join(self._tmp.name, "answers.jsonl")
        self._file = open(self.claims, "wb")  # noqa: SIM115 - kept open
        self._own_keys = (self.key["hand"], self.key["player"], self.key["banker"], "dealer")
        self._own = re.compile(b"|".join(re.escape(f'"{k}"'.encode()) for k in self._own_keys))
        self._fields: Sequence[str] = ()

    # -- questions
    def _names(self, hand: Sequence[int]) -> str:
        q = self.quoted
        return "[" + ",".join([q[u] for u in hand]) + "]"

    def hand_question(self, hand: Sequence[int] | Sequence[str]) -> Question | None:
        """A hand as a question (None when asked already)."""
        names = [h if isinstance(h, str) else self.space.names[h] for h in hand]
        shown = " ".join(names)
        if shown in self.asked_hands:
            return None
        self.asked_hands.add(shown)
        qid, self.next_id = self.next_id, self.next_id + 1
        text = "[" + ",".join(json.dumps(n) for n in names) + "]"
        return Question(qid, f'"{self.key["hand"]}":{text}', shown, shown)

    def showdown_question(
        self, player: Sequence[int] | Sequence[str], banker: Sequence[int] | Sequence[str]
    ) -> Question | None:
        pn = [h if isinstance(h, str) else self.space.names[h] for h in player]
        bn = [h if isinstance(h, str) else self.space.names[h] for h in banker]
        key = ("s", *pn, "|", *bn)
        if key in self.asked:
            return None
        self.asked.add(key)
        qid, self.next_id = self.next_id, self.next_id + 1
        p = "[" + ",".join(json.dumps(n) for n in pn) + "]"
        b = "[" + ",".join(json.dumps(n) for n in bn) + "]"
        line = " ".join(pn) + " | " + " ".join(bn)
        return Question(qid, f'"{self.key["player"]}":{p},"{self.key["banker"]}":{b}', line, line)

    def _hand_blocks(
        self, blocks: Iterable[npt.NDArray[np.int64] | list[list[int]]]
    ) -> Iterator[list[Question]]:
        """Hand questions for hands never asked, a block at a time (the confirm's every
        hand): built in numpy (:class:`~solver.probe.wire.Encoder`) unless some unit's
        name needs escaping, then one at a time."""
        enc, asked = Encoder(self.space.names, self.key["hand"]), self.asked_hands
        for block in blocks:
            if not enc.ok:
                qs = [self.hand_question(h) for h in hand_rows(block)]
                yield [q for q in qs if q is not None]
                continue
            for hands in uniform(block):
                shown = enc.shown(hands)
                keep = [s not in asked for s in shown]
                if not all(keep):
                    hands = hands[np.array(keep, dtype=bool)]
                    shown = [s for s, k in zip(shown, keep, strict=True) if k]
                ids = np.arange(self.next_id, self.next_id + len(hands), dtype=np.int64)
                self.next_id += len(hands)
                wires = enc.requests(ids, hands)
                fields = enc.fields(hands)
                yield many_questions(ids.tolist(), fields, shown, wires)

    # -- asking
    def ask(self, name: str, questions: Iterable[Question | None]) -> int:
        """Ask ``questions`` as phase ``name`` (a :class:`Blocks` is asked as it is);
        their answers are written to the claims file. Returns how many were asked."""
        phase = Phase(name)
        self.phases.append(phase)
        start = time.monotonic()
        if isinstance(questions, Blocks):
            flat: Iterable[Question] = questions
        else:
            hands, shows = self.shows.hands, self.shows.showdowns
            flat = [q for q in questions if q is not None and (shows if " | " in q.line else hands)]
        sent = self.peer.sent
        try:
            with _collector_paused():
                self._stream(name, flat)
        except KeyboardInterrupt:
            self.peer.faults.interrupted = True
        self._file.flush()
        phase.seconds = time.monotonic() - start
        phase.questions = self.peer.sent - sent
        self.queries += phase.questions
        return phase.questions

    def _stream(self, name: str, flat: Iterable[Question]) -> None:
        """Ask ``flat``; each answer's claims row written as it comes."""
        write = self._file.write
        step = 1 << 16
        for answers in self.peer.ask(flat):
            rows = self._rows(answers)
            write(rows)
            before = self.answered
            self.answered += rows.count(b"\n")
            if self.progress is not None and before // step != self.answered // step:
                self.progress(f"probing {self.target}: {name}: {self.answered:,} answers")

    def _rows(self, answers: list[Answer]) -> bytes:
        """The claims rows of ``answers`` (:meth:`_row`), for a batch of JSON answers
        that echo no hand at once."""
        texts = [a.text for a in answers]
        if not all(texts):
            return b"".join([r for r in map(self._row, answers) if r is not None])
        joined = b"\n".join(texts)
        if self._own.search(joined) or not joined.startswith(b"{"):
            return b"".join([r for r in map(self._row, answers) if r is not None])
        heads = [a.question.fields.encode() for a in answers]
        return b"".join(
            [b"{" + h + b"," + t.strip()[1:] + b"\n" for h, t in zip(heads, texts, strict=True)]
        )

    def _row(self, ans: Answer) -> bytes | None:
        """The claims row of an answer: the question's hands, then the answer's fields."""
        q = ans.question
        if not ans.text:
            fields = self._fields
            if len(ans.values) != len(fields):
                self.peer.faults.bad_line(
                    ",".join(ans.values)[:120]
                    + f" ({len(ans.values)} values, expected {len(fields)}: {','.join(fields)})"
                )
                return None
            values = json.dumps(dict(zip(fields, ans.values, strict=True)))
            return ("{" + q.fields + "," + values[1:] + "\n").encode()
        text = ans.text.strip()
        if self._own.search(text):  # the peer echoed a hand: ours is kept
            try:
                obj = json.loads(text)
            except ValueError:
                obj = None
            if isinstance(obj, dict):
                for k in self._own_keys:
                    obj.pop(k, None)
                text = json.dumps(obj).encode()
        rest = text[1:].lstrip()
        return b"{" + q.fields.encode() + (b"," + rest if rest != b"}" else b"}") + b"\n"

    # -- verify
    def verify(self, rules: Any = None, out: str | None = None) -> VerifyReport:
        from solver.verify import verify_file

        self._file.flush()
        spec = self.rules if rules is None else rules
        return verify_file(
            self.game,
            self.claims,
            rules=spec,
            fmt="jsonl",
            columns=self.columns,
            options=self.options,
            tables=self.tables,
            out=out,
        )

    def infer(self, first: VerifyReport) -> Any:
        from solver.verify import infer_file

        self._file.flush()
        inference, _ = infer_file(
            self.game,
            self.claims,
            rules=self.rules,
            fmt="jsonl",
            columns=self.columns,
            options=self.options,
            tables=self.tables,
            first=first,
        )
        return inference

    def close(self) -> None:
        self._file.close()
        self.peer.close()
        self._tmp.cleanup()

    # -- the phases
    def cover(self) -> None:
        sp = self.space
        vectors = plan.vector_rows(self.game, self.rules, self.options, self.tables)
        qs: list[Question | None] = []
        for r in vectors:
            if r.get("kind") == "showdown":
                qs.append(self.showdown_question(r["player"], r["banker"]))
            else:
                qs.append(self.hand_question(r["hand"]))
        qs += [self.hand_question(h) for h in plan.classes(sp, self.seed)]
        qs += [
            self.showdown_question(p, b) for p, b in plan.deals(sp, SHOWDOWN_COVER, self.seed + 2)
        ]
        self.ask("cover", qs)

    def candidates(self, report: VerifyReport) -> list[str]:
        """The causes that explain every disagreement and contradict no agreement."""
        if not report.disagree:
            return []
        return [
            d.key
            for d in report.diagnosis
            if getattr(d, "kind", "") != "pattern"
            and d.contradicts == 0
            and d.explains == report.disagree
        ]

    def discriminate(self, report: VerifyReport) -> tuple[VerifyReport, list[str]]:
        """Rounds of questions splitting the candidates (module docstring)."""
        from solver.probe.split import Splitter

        cands = self.candidates(report)
        phase_q = 0
        if len(cands) < 2:
            self.phases.append(Phase("discriminate"))
            return report, cands
        splitter = Splitter(self.game, self.rules, self.options, self.tables, POOL, self.seed)
        for _ in range(ROUNDS):
            picks = splitter.pick(cands, PER_ROUND)
            qs: list[Question | None] = []
            for r in picks:
                if r.get("kind") == "showdown":
                    qs.append(self.showdown_question(r["player"], r["banker"]))
                else:
                    qs.append(self.hand_question(r["hand"]))
            qs = [q for q in qs if q is not None]
            if not qs:
                break
            phase_q += self.ask("discriminate", qs)
            report = self.verify()
            new = self.candidates(report)
            cands = new
            if len(cands) < 2 or self.peer.faults.fatal:
                break
        _merge_phases(self.phases, "discriminate")
        return report, cands

    def substantiate(self, report: VerifyReport) -> VerifyReport:
        """Thin evidence made thick: with fewer than :data:`THIN` disagreements (a cause
        that shows on a rare situation — four of a kind against four of a kind — is caught
        by one cover question, too little for a rule to pass the inference's gate or for
        a diagnosis to rest on), ask up to :data:`NEIGHBOURS` questions one item away
        from the disagreeing ones (:func:`solver.probe.plan.neighbours`), spread evenly
        over them: the phase ``substantiate``."""
        if not 0 < report.disagree < THIN or _stop(self.peer.faults):
            self.phases.append(Phase("substantiate"))
            return report
        # every disagreeing row is among the report's examples (THIN < MAX_LISTED)
        lines = {int(e["line"]) for e in report.examples}
        keys = (self.key["hand"], self.key["player"], self.key["banker"])
        index = {n: u for u, n in enumerate(self.space.names)}
        seeds: list[list[list[int]]] = []
        with open(self.claims, "rb") as f:
            for n, raw in enumerate(f, 1):
                if n in lines:
                    row = json.loads(raw)
                    seeds.append([[index[c] for c in row[k]] for k in keys if k in row])
        rng = np.random.default_rng(self.seed + 5)
        near = [plan.neighbours(self.space, hands, rng) for hands in seeds if hands]
        qs: list[Question | None] = []
        each = NEIGHBOURS // max(1, len(near))
        for rows in near:
            for hands in rows[:each]:
                if len(hands) == 1:
                    qs.append(self.hand_question(hands[0]))
                else:
                    qs.append(self.showdown_question(hands[0], hands[1]))
        if not self.ask("substantiate", qs):
            return report
        return self.verify()

    def confirm_questions(self) -> tuple[Blocks, dict[str, Any]]:
        sp = self.space
        total = plan.every_count(sp)
        hands: Iterable[npt.NDArray[np.int64] | list[list[int]]]
        if self.budget is None or self.budget >= total:
            hands = plan.every_blocks(sp, self.seed + 3)
            cov: dict[str, Any] = {"hands": total, "of": total, "exhaustive": True}
        else:
            picked = plan.sample(sp, self.budget, self.seed + 3)
            hands = (picked[i : i + BLOCK] for i in range(0, len(picked), BLOCK))
            cov = {"hands": self.budget, "of": total, "exhaustive": False, "seed": self.seed}
        n_show = SHOWDOWN_CONFIRM if self.budget is None else min(self.budget, SHOWDOWN_CONFIRM)
        cov["showdowns"] = n_show if self.shows.showdowns else 0
        kind = "exhaustive" if cov["exhaustive"] else f"a seeded sample (seed {self.seed})"
        cov["text"] = f"{cov['hands']:,} of {total:,} hands ({kind})" + (
            f", {n_show:,} seeded random showdowns" if self.shows.showdowns else ""
        )

        def gen() -> Iterator[list[Question]]:
            if self.shows.hands:
                yield from self._hand_blocks(hands)
            if self.shows.showdowns:
                deals = plan.deals(sp, n_show, self.seed + 4)
                qs = [self.showdown_question(p, b) for p, b in deals]
                yield [q for q in qs if q is not None]

        return Blocks(gen()), cov

    def run(self) -> ProbeReport:
        """Every phase; a partial report when the peer fails or the run is interrupted."""
        faults = self.peer.faults
        report: VerifyReport | None = None
        inferred = None
        confirm: dict[str, Any] = {}
        cands: list[str] = []
        coverage: dict[str, Any] = {}
        try:
            self.cover()
            report = self._safe_verify()
            if report is not None and not _stop(faults):
                report, cands = self.discriminate(report)
                report = self.substantiate(report)
                cands = self.candidates(report)
            if report is not None and report.disagree and not _stop(faults):
                start = time.monotonic()
                inferred = self.infer(report)
                self.phases.append(Phase("infer", 0, time.monotonic() - start))
            if not _stop(faults):
                questions, coverage = self.confirm_questions()
                self.ask("confirm", questions)
            report = self._safe_verify(out=self.out)
            if report is not None and inferred is not None and inferred.steps:
                under = self.verify(rules=dict(inferred.rules))
                confirm = {
                    "rules": under.rules,
                    "checked": under.checked,
                    "agree": under.agree,
                    "disagree": under.disagree,
                    "headline": under.headline,
                }
            elif report is not None:
                confirm = {
                    "rules": report.rules,
                    "checked": report.checked,
                    "agree": report.agree,
                    "disagree": report.disagree,
                    "headline": report.headline,
                }
        except KeyboardInterrupt:
            faults.interrupted = True
            report = report if report is not None else self._safe_verify()
        finally:
            self.peer.close()
        if report is not None:
            report = dataclasses.replace(report, file=self.target)
        return ProbeReport(
            report,
            self.target,
            self.queries,
            self.answered,
            self.phases,
            faults,
            inferred,
            confirm,
            coverage,
            cands,
        )

    def _safe_verify(self, out: str | None = None) -> VerifyReport | None:
        """Verify's report over the answers so far (None when there are none)."""
        if not self.answered:
            return None
        try:
            return self.verify(out=out)
        except BullError as e:
            if self.peer.faults.fatal is None:
                self.peer.faults.fatal = str(e).replace(self.claims, "the answers")
            return None


def _stop(faults: Faults) -> bool:
    return faults.fatal is not None or faults.interrupted


def _merge_phases(phases: list[Phase], name: str) -> None:
    """One entry for the phase ``name`` (asked in rounds)."""
    mine = [p for p in phases if p.name == name]
    if len(mine) <= 1:
        if not mine:
            phases.append(Phase(name))
        return
    total = Phase(name, sum(p.questions for p in mine), sum(p.seconds for p in mine))
    at = phases.index(mine[0])
    phases[:] = [p for p in phases if p.name != name]
    phases.insert(at, total)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector paused while answers stream: the confirm makes
    millions of short-lived tuples and no cycles, and the collector's passes over them
    cost twice what building them does (measured: scripts/bench_probe.py)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
