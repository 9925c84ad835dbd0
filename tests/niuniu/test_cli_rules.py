"""Every command takes a Niu Niu rule file with every house-rule option: eval, compare,
odds, edge, verify and vectors (the rule file's table is built on first use, saying so
on stderr, then reused)."""

from __future__ import annotations

import io
import json
from fractions import Fraction
from math import comb
from pathlib import Path

import pytest

from niuniu import reference as ref
from solver.cli import main

FORTY = """
game = "niuniu"
name = "forty_hk"
deck = "no_faces"
specials = ["straight", "three_of_a_kind", "four_of_a_kind"]
bull_from_three_of_a_kind = true
tie_break = "none"
on_tie = "banker"
suit_order = ["S", "H", "C", "D"]
commission = 0.05

[multipliers.equal]
default = 1

[multipliers.multi]
niu_7 = 7
niu_8 = 8
niu_9 = 9
niu_niu = 10
three_of_a_kind = 12
"""

EVERY = """
game = "niuniu"
base = "classic"
name = "every"
specials = ["straight", "three_of_a_kind", "four_faces", "five_faces", "four_of_a_kind",
            "straight_flush", "five_small_bull"]
bull_from_three_of_a_kind = true
tie_break = "rank_by_rank"
quads_first = true
on_tie = "banker"
bets = ["equal", "double", "multi"]

[special_definitions]
four_faces_fifth = "all_ten_valued"
five_small_bull_total = "below_10"

[multipliers.multi]
niu_2 = 2
niu_3 = 3
niu_niu = 10
"""


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def forty(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rules") / "forty_hk.toml"
    path.write_text(FORTY, encoding="utf-8")
    return path


def test_eval_builds_once_then_answers(forty: Path, rule_tables: Path) -> None:
    args = ("--rules", str(forty), "--tables", str(rule_tables), "--json")
    code, out, first = run("eval", "niuniu", "5S 5H 5D 3C 7S", "2S 3H 4D 5C 6S", *args)
    assert code == 0  # the notice goes to the CLI's error stream
    assert "building the niuniu_no_faces_trips_bull table for rule set 'forty_hk'" in first
    recs = [json.loads(line) for line in out.splitlines()]
    assert [r["category"] for r in recs] == ["three_of_a_kind", "straight"]
    assert recs[0]["bull"] == ["5S", "5H", "5D"] and recs[0]["points"] == 10
    assert recs[0]["multiplier"] == 1  # the default bet: the first table, equal
    code, out, err = run("eval", "niuniu", "9S 9H 9D 9C 2S", *args, "--bet", "multi")
    assert code == 0 and json.loads(out)["category"] == "four_of_a_kind"
    assert err == ""  # reused, silently


def test_a_face_card_is_one_line_naming_it(forty: Path, rule_tables: Path) -> None:
    code, out, err = run(
        "eval", "niuniu", "QH 9H 8C 3D 7S", "--rules", str(forty), "--tables", str(rule_tables)
    )
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "card QH is not in the no_faces deck" in err


def test_compare_ties_go_to_the_banker(forty: Path, rule_tables: Path) -> None:
    code, out, _ = run(
        "compare",
        "niuniu",
        "10S 9H 8C 3D 7S",
        "10H 9S 8D 3C 7H",
        "--rules",
        str(forty),
        "--tables",
        str(rule_tables),
        "--bet",
        "multi",
        "--json",
    )
    rec = json.loads(out)
    assert code == 0 and rec["winner"] == "banker" and rec["net"] == -7  # both niu 7
    assert "ties go to the banker" in rec["reason"]


def test_odds_and_edge(forty: Path, rule_tables: Path) -> None:
    args = ("--rules", str(forty), "--tables", str(rule_tables), "--json")
    code, out, _ = run("odds", "niuniu", *args)
    res = json.loads(out)
    assert code == 0 and res["totals"]["category"] == comb(40, 5)
    cats = {r["label"]: r["count"] for r in res["sections"]["category"]}
    assert cats["four_of_a_kind"] == 10 * 36 and list(cats)[-3:] == [
        "straight",
        "three_of_a_kind",
        "four_of_a_kind",
    ]
    code, out, _ = run("edge", "niuniu", *args, "--bet", "equal", "--commission", "0")
    e = json.loads(out)
    # no tie-break, ties to the banker, equal bet, no commission: EV = -P(tie)
    assert code == 0 and e["pairs"] == comb(40, 5) * comb(35, 5) and e["p_push"] == 0
    p_tie = Fraction(e["p_loss_fraction"]) - Fraction(e["p_win_fraction"])
    assert Fraction(e["ev_fraction"]) == -p_tie and p_tie > 0


def test_vectors_and_verify_round_trip(forty: Path, rule_tables: Path, tmp_path: Path) -> None:
    out_file = tmp_path / "v.jsonl"
    args = ("--rules", str(forty), "--tables", str(rule_tables))
    code, out, _ = run("vectors", "niuniu", *args, "--out", str(out_file), "--json")
    cov = json.loads(out)
    assert code == 0
    recs = [json.loads(line) for line in out_file.read_text().splitlines()]
    hands = [r["hand"] for r in recs if r["kind"] == "hand"]
    assert all(c[:-1] not in ("J", "Q", "K") for h in hands for c in h)
    data = {
        "specials": ["straight", "three_of_a_kind", "four_of_a_kind"],
        "bull_from_three_of_a_kind": True,
    }
    for r in recs:  # every hand vector's category agrees with the reference
        if r["kind"] == "hand":
            h = [ref.card(c) for c in r["hand"]]
            assert r["category"] == ref.category_of(h, data), r
    assert "tie_after_tie_break" in cov["tags"] and "trips_bull_only" in cov["tags"]
    code, out, _ = run("verify", "niuniu", str(out_file), *args, "--json")
    s = json.loads(out)
    assert code == 0 and s["checked"] == len(recs) and s["disagree"] == 0


@pytest.mark.slow
def test_every_option_on_52_cards_round_trips(rule_tables: Path, tmp_path: Path) -> None:
    rules = tmp_path / "every.toml"
    rules.write_text(EVERY, encoding="utf-8")
    out_file = tmp_path / "v.jsonl"
    args = ("--rules", str(rules), "--tables", str(rule_tables))
    code, out, _ = run("vectors", "niuniu", *args, "--out", str(out_file), "--json")
    assert code == 0 and json.loads(out)["uncaught_variants"] == []
    code, out, _ = run("verify", "niuniu", str(out_file), *args, "--json")
    s = json.loads(out)
    assert code == 0 and s["disagree"] == 0
    # a claimed Hong Kong bull is a bull; the sum bull of the same hand reaches less
    claims = tmp_path / "claims.jsonl"
    claims.write_text(
        json.dumps({"hand": "2S 2H 2D 8C KS", "points": 8, "bull": "2S 2H 2D"})
        + "\n"
        + json.dumps({"hand": "2S 2H 2D 8C KS", "points": 8, "bull": "2S 8C KS"})
        + "\n"
    )
    code, out, _ = run("verify", "niuniu", str(claims), *args, "--json")
    s = json.loads(out)
    assert code == 1 and s["disagree"] == 1
    code, out, _ = run("verify", "niuniu", str(claims), *args, "--out", str(tmp_path / "w.jsonl"))
    wrong = json.loads((tmp_path / "w.jsonl").read_text().splitlines()[0])
    assert wrong["claimed"]["bull"] == ["2S", "8C", "KS"]
    assert "three of a kind" in wrong["reason"]
