"""Auditing play dealt from a shoe (issue 16): rule sets with ``decks > 1``.

Expected frequencies are those of a hand dealt from the full shoe; a card may come up
to ``decks`` times in a round, more is an impossible deal. The two-card start counts
are worked out here from the rule text (RULES.md §5: a card counts its face, A = 1,
10 and faces 0; 8 or 9 in two cards is a Pok): from an 8-deck shoe, two distinct
cards are dealt in 8 · 8 ways, two copies of one card in C(8, 2).
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from math import comb
from pathlib import Path

import pyarrow.csv as pacsv
import pytest

from solver.audit.command import cli_audit
from solver.audit.deal import deal
from solver.audit.spec import load_spec

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


def value(card: int) -> int:
    rank = card // 4
    return rank + 1 if rank < 9 else 0


def test_shoe_start_frequencies_by_the_rule_text() -> None:
    decks = 8
    counts: Counter[str] = Counter()
    for a in range(52):
        for b in range(a, 52):
            ways = comb(decks, 2) if a == b else decks * decks
            pts = (value(a) + value(b)) % 10
            counts[f"pok_{pts}" if pts >= 8 else f"normal_{pts}"] += ways
    total = comb(52 * decks, 2)
    assert sum(counts.values()) == total
    spec = load_spec("pokdeng", "shoe8", {}, None)
    assert dict(zip(spec.labels, spec.expected, strict=True)) == {
        k: Fraction(v, total) for k, v in counts.items()
    }
    assert spec.decks == 8 and len(spec.deck) == 416
    assert set(spec.unit_probability()) == {Fraction(1, 52)}


def _rounds(path: Path, rows: list[tuple[int, str, str]]) -> str:
    path.write_text("round,role,hand\n" + "".join(f"{r},{ro},{h}\n" for r, ro, h in rows))
    return str(path)


def test_copies_beyond_the_shoe_are_impossible(tmp_path: Path) -> None:
    # round 1: AS 3 times (fine from a shoe, not from one deck); round 2: AS 9 times
    rows = [(1, "dealer", "AS AS"), (1, "player", "AS 2H")]
    rows += [(2, "dealer", "AS AS")] + [(2, "player", "AS AS 2H")] * 2 + [(2, "player", "AS 3H")]
    rows += [(2, "player", "AS 4H"), (2, "player", "AS 5H")]
    rows += [(3, "dealer", "KS QS"), (3, "player", "2D 3D")]
    log = _rounds(tmp_path / "shoe.csv", rows)
    res = cli_audit("pokdeng", [log], rules="shoe8")
    assert res["impossible"] == 1 and res["rounds"] == 2 and res["malformed"] == 0
    assert res["impossible_rounds"][0] == {
        "round": "2",
        "reason": "AS dealt 9 times in one round (the set has 8)",
    }
    one = cli_audit("pokdeng", [log])  # one deck: rounds 1 and 2 repeat AS
    assert one["impossible"] == 2 and one["rounds"] == 1


def test_a_deal_from_a_shoe_passes_and_a_one_deck_log_passes_the_start_tests(
    tmp_path: Path,
) -> None:
    shoe, one = str(tmp_path / "shoe.csv"), str(tmp_path / "one.csv")
    deal("pokdeng", 3000, seed=8, out=shoe, rules="shoe8")
    hands = [h.split() for h in pacsv.read_csv(shoe).column("hand").to_pylist()]
    rounds = pacsv.read_csv(shoe).column("round").to_pylist()
    per_round: dict[int, list[str]] = {}
    for r, h in zip(rounds, hands, strict=True):
        per_round.setdefault(r, []).extend(h)
    assert any(len(set(cards)) < len(cards) for cards in per_round.values())  # repeats
    res = cli_audit("pokdeng", [shoe], rules="shoe8", by=["table"])
    assert res["decks"] == 8 and res["impossible"] == 0 and not res["flagged"]
    assert res["settlement_check"]["disagree"] == 0
    assert {nr["name"] for nr in res["not_run"]} == {"outcome", "net", "hold"}
    # a one-deck log is a possible shoe log; its starts differ from a shoe's by far
    # less than 3,000 rounds can show
    deal("pokdeng", 3000, seed=9, out=one)
    res = cli_audit("pokdeng", [one], rules="shoe8")
    assert res["impossible"] == 0 and not res["flagged"]


@pytest.mark.slow
def test_niuniu_from_a_six_deck_shoe(tmp_path: Path) -> None:
    shoe, one = str(tmp_path / "shoe.parquet"), str(tmp_path / "one.parquet")
    deal("niuniu", 20_000, seed=2, out=shoe, rules="shoe6")
    res = cli_audit("niuniu", [shoe], rules="shoe6", by=["table"])
    assert res["impossible"] == 0 and not res["flagged"] and res["decks"] == 6
    assert {t["name"] for t in res["fairness"]} >= {"outcome", "net", "card"}
    assert not res["not_run"]
    # from one deck two hands are never equal; from the shoe 0.7 % of showdowns push
    deal("niuniu", 20_000, seed=3, out=one)
    res = cli_audit("niuniu", [one], rules="shoe6")
    outcome = next(t for t in res["fairness"] if t["name"] == "outcome")
    assert outcome["p_value"] < 1e-6 and outcome["deviations"][0]["label"] == "push"
    assert outcome["deviations"][0]["observed"] == 0
    assert res["impossible"] == 0
