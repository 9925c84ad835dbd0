"""``bull probe``'s discriminate phase with several candidates left: a peer (a tests'
independent implementation, :mod:`_model_peer`, run as a child process) playing one
catalogued cause, probed with a narrow cover on which two or more causes fit every
answer. (With the full cover no single catalogued cause of the default rule sets leaves
two causes that some hand tells apart: the conformance vectors separate them, so the
cover is narrowed here.) The discriminate phase must ask only hands on which the
candidates answer differently — checked with the candidates' own implementations, not
with the solver — and end with the peer's cause first, contradicting nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import _model_peer as mp
import pytest

from solver.probe.faults import Question
from solver.probe.peer import ChildPeer
from solver.probe.run import Prober, ProbeReport, ShowdownPlan

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


class NarrowCover(Prober):
    """A prober whose cover is the given hands; it records what each phase asked and
    the candidates left after the cover."""

    def __init__(self, cover_hands: Sequence[Sequence[str]], *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.cover_hands = cover_hands
        self.asked_in: dict[str, list[list[str]]] = {}
        self.first_candidates: list[str] = []

    def ask(self, name: str, questions: Iterable[Question | None]) -> int:
        qs = [q for q in questions if q is not None and " | " not in q.line]  # hands only
        self.asked_in.setdefault(name, []).extend(q.shown.split() for q in qs)
        return super().ask(name, qs)

    def cover(self) -> None:
        self.ask("cover", [self.hand_question(h) for h in self.cover_hands])

    def discriminate(self, report: Any) -> Any:
        self.first_candidates = self.candidates(report)
        return super().discriminate(report)


def run_narrow(game: str, impl: Any, cover: Sequence[Sequence[str]]) -> tuple[ProbeReport, Any]:
    cmd = [sys.executable, str(Path(mp.__file__)), game, mp.config(impl)]
    peer = ChildPeer(cmd, "jsonl", 4096, 5000, 2)
    prober = NarrowCover(
        cover, game, peer, target="peer", budget=100, shows=ShowdownPlan(True, False)
    )
    try:
        return prober.run(), prober
    finally:
        prober.close()


def niuniu_cases() -> tuple[Any, Any, list[list[str]]]:
    from niuniu import causes_model as cm
    from niuniu import test_causes as nc

    # every card A..4 and a total below 10: a Five Small Bull under any of its definitions
    small = [["AS", "AH", "2S", "2H", "3D"], ["AD", "2C", "2D", "3S", "AC"]]
    small += [["AS", "2H", "2C", "3C", "AH"], ["4S", "AH", "AD", "AC", "2S"]]
    plain = [["KS", "9H", "8C", "3D", "7S"], ["7H", "3C", "10D", "8S", "6H"]]
    plain += [["JH", "QD", "KC", "5S", "5H"], ["4D", "7C", "8H", "JS", "KD"]]

    def model(key: str) -> Any:
        from solver.games.niuniu.diagnose import niuniu_catalogue
        from solver.games.niuniu.rules import load_rules

        v = next(v for v in niuniu_catalogue(load_rules("classic"), "all") if v.key == key)
        return nc.cause_model("classic", v)

    def answers(key: str, hand: list[str]) -> tuple[Any, ...]:
        ids = {n: i for i, n in enumerate(cm.NAMES)}
        import numpy as np

        a = cm.hand_answers(np.array([[ids[c] for c in hand]], dtype=np.uint8), model(key), False)
        return tuple(int(a[f][0]) for f in ("has_bull", "points", "category"))

    return model("five_small_bull_total=below_10"), answers, small + plain


def pokdeng_cases() -> tuple[Any, Any, list[list[str]]]:
    from dataclasses import replace

    from pokdeng import causes_model as pm
    from pokdeng import test_causes as pc

    impls = {k: impl for _, k, impl, _ in pc.causes("standard")}

    def answers(key: str, hand: list[str]) -> tuple[Any, ...]:
        return pm.classify(impls.get(key, pm.STANDARD), tuple(hand))[:3]

    # A-2-3 and 4-5-6 runs: a straight with the ace low or both ways
    cover = [["AS", "2H", "3D"], ["3C", "AH", "2D"], ["4S", "5H", "6C"], ["6D", "4C", "5S"]]
    cover += [["KS", "9H"], ["7C", "7D", "2S"], ["JS", "QH", "KD"]]
    return replace(pm.STANDARD, straights=True, ace="low"), answers, cover


@pytest.mark.parametrize(
    ("game", "cases", "key"),
    [
        ("niuniu", niuniu_cases, "five_small_bull_total=below_10"),
        ("pokdeng", pokdeng_cases, "straights=true,ace=low"),
    ],
)
def test_discriminate_asks_where_the_candidates_differ(game: str, cases: Any, key: str) -> None:
    impl, answers, cover = cases()
    report, prober = run_narrow(game, impl, cover)
    first = prober.first_candidates
    assert key in first and len(first) >= 2, first
    asked = prober.asked_in.get("discriminate", [])
    assert asked and report.to_json()["phases"]["discriminate"]["questions"] == len(asked)
    singles = [k for k in first if "+" not in k]
    assert len(singles) >= 2, first
    for hand in asked:  # each hand splits the candidates (their own implementations)
        assert len({answers(k, hand) for k in singles}) >= 2, (hand, singles)
    top = report.verify.diagnosis[0] if report.verify is not None else None
    assert top is not None and (top.key, top.contradicts) == (key, 0), report.verify
    assert top.explains == report.verify.disagree > 0
    assert report.candidates == [key]
