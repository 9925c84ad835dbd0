"""Two mistakes at once (issue 13): implementations written in the test
(tests/niuniu/causes_model.py, an independent numpy Niu Niu from the rule text) that
make two catalogued mistakes together. The diagnosis must head with the pair, contradict
nothing, and neither member alone may explain every disagreement: pairs of mistakes are
separated from their members."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from niuniu import causes_model as cm

from solver.kit.diagnosis import Variant, combine, mistake_pairs, mistakes_of


def verify(path: Path, tables: Path, rules: str) -> Any:
    from solver.verify import verify_file

    return verify_file("niuniu", str(path), rules=rules, tables=str(tables))


def check_pair(report: Any, key: str, members: tuple[str, str]) -> None:
    top = report.diagnosis[0]
    assert report.disagree > 0
    assert (top.key, top.kind, top.explains, top.contradicts) == (
        key,
        "mistake",
        report.disagree,
        0,
    ), [(e.key, e.explains, e.contradicts) for e in report.diagnosis[:5]]
    assert report.headline.startswith(f"all {report.disagree} disagreements are explained by:")
    by_key = {e.key: e for e in report.diagnosis}
    for m in members:  # each member alone explains some rows, never all
        assert 0 < by_key[m].explains < report.disagree, m


@pytest.mark.slow
def test_two_hand_mistakes(tmp_path: Path, niuniu_tables: Path) -> None:
    """A bull search that skips the first card, and Niu Niu reported as 0."""
    hands = cm.every_hand()[::40]  # 64,974 hands, each in its own written order
    m = cm.CLASSIC.but(skip_first=True, niu_zero=True)
    path = tmp_path / "h.parquet"
    pq.write_table(cm.hand_table(hands, m), path)
    r = verify(path, niuniu_tables, "classic")
    check_pair(
        r,
        "mistake=bull_skips_first+mistake=niu_niu_as_zero",
        ("mistake=bull_skips_first", "mistake=niu_niu_as_zero"),
    )


@pytest.mark.slow
def test_two_showdown_mistakes_and_the_order(tmp_path: Path, niuniu_tables: Path) -> None:
    """A bull search that skips the first card, and the tie-break suit taken from the
    last-written card of the highest rank: both depend on the written order."""
    player, banker = cm.deals(40_000, seed=7)
    m = cm.CLASSIC.but(skip_first=True, suit_from="last")
    path = tmp_path / "s.parquet"
    pq.write_table(cm.showdown_table(player, banker, m), path)
    r = verify(path, niuniu_tables, "classic")
    check_pair(
        r,
        "mistake=bull_skips_first+mistake=suit_from_last_written",
        ("mistake=bull_skips_first", "mistake=suit_from_last_written"),
    )
    top = r.diagnosis[0]
    assert "first-written card left out" in top.order and "last-written card" in top.order
    assert "depend on the order the cards were written" in r.headline


@pytest.mark.slow
def test_two_settlement_mistakes(tmp_path: Path, niuniu_tables: Path) -> None:
    """Casino: the loser pays its own hand's multiplier, and the commission is taken on
    the stake."""
    player, banker = cm.deals(40_000, seed=8)
    m = cm.CASINO.but(loser_multiplier=True, commission_on_stake=True)
    path = tmp_path / "s.parquet"
    pq.write_table(cm.showdown_table(player, banker, m), path)
    r = verify(path, niuniu_tables, "casino")
    check_pair(
        r,
        "mistake=loser_multiplier+mistake=commission_on_stake",
        ("mistake=loser_multiplier", "mistake=commission_on_stake"),
    )


def test_one_mistake_is_not_shadowed_by_its_pairs(tmp_path: Path, niuniu_tables: Path) -> None:
    """Only the skip: no pair containing it is listed (none scores more than it)."""
    hands = cm.every_hand()[::97]
    path = tmp_path / "h.parquet"
    pq.write_table(cm.hand_table(hands, cm.CLASSIC.but(skip_first=True)), path)
    r = verify(path, niuniu_tables, "classic")
    assert (r.diagnosis[0].key, r.diagnosis[0].contradicts) == ("mistake=bull_skips_first", 0)
    assert r.diagnosis[0].explains == r.disagree
    assert not any("+" in e.key for e in r.diagnosis)


def test_stages_decide_what_composes() -> None:
    skip = Variant("mistake=a", "A", mistake="a", stage="bull")
    same = Variant("mistake=b", "B", mistake="b", stage="bull")
    other = Variant("mistake=c", "C", mistake="c", stage="settle")
    loose = Variant("mistake=d", "D", mistake="d")
    assert combine(skip, same, {}) is None and combine(skip, loose, {}) is None
    c = combine(skip, other, {})
    assert c is not None and mistakes_of(c) == {"a", "c"} and c.stage == "bull+settle"
    pairs = mistake_pairs([skip, same, other, loose], "hand")
    assert [(a, b) for a, b, _ in pairs] == [(0, 2), (1, 2)]


@pytest.mark.parametrize("mode", ["hand", "showdown"])
def test_every_niuniu_mistake_has_a_stage(mode: str) -> None:
    from solver.games.niuniu.diagnose import niuniu_catalogue
    from solver.games.niuniu.rules import load_rules

    for v in niuniu_catalogue(load_rules("casino"), mode):
        if v.mistake:
            assert v.stage, v.key


def test_a_pair_is_one_cause_whatever_the_rows() -> None:
    """A pair scored on hand and on showdown rows is one column (its counts summed); two
    scoped mistakes, found both as a scoped pair and as a pair of mistakes, are one
    entry per kind of row."""
    from solver.kit.scoring import Causes

    both = ("hand", "showdown")
    base = {"k": 0}
    scoped = Variant("k=1", "K", {"k": 1}, scope=both)
    option = Variant("bet=x", "X", options={"bet": "x"})
    s = Variant("mistake=s", "S", mistake="s", scope=both, stage="bull")
    t = Variant("mistake=t", "T", mistake="t", scope=both, stage="points")
    c = Causes.of([scoped, option, s, t], base)
    keys = [v.key for v in c.all]
    assert len(keys) == len(set(keys)), keys
    for m in both:
        assert len(c.cols[m]) == len(set(c.cols[m])) == len(c.pairs[m])
    col = keys.index("k=1+bet=x")
    assert col in c.cols["hand"] and col in c.cols["showdown"] and c.members[col] == (0, 1)
    st = keys.index("mistake=s+mistake=t")
    assert c.members[st] == (2, 3) and st in c.full and col not in c.full
