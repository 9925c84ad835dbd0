"""``bull audit`` must not mislead an auditor (issue 28): the settlement diagnosis is
scored on the agreeing rows too, by verify's own scorer; rounds are identified per file
(or by ``--round-key``); a test without the power to see its bias says so; ``--by``
groups are bounded; impossible deals from a shoe say so.
"""

from __future__ import annotations

import io
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from solver.audit.command import audit_text, cli_audit
from solver.audit.deal import deal
from solver.cli import main
from solver.core.errors import BullError
from solver.verify import verify_file


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def _showdowns(log: str, path: str) -> None:
    """The log's player rows as verify's showdown rows (player, banker, winner, net),
    built here from the log's own columns: each player against its round's banker."""
    rows = pq.read_table(log).to_pylist()
    banker = {r["round"]: r["hand"] for r in rows if r["role"] == "banker"}
    who = {"win": "player", "loss": "banker", "push": "push"}
    out = [
        {"player": r["hand"], "banker": banker[r["round"]], "winner": who[r["result"]],
         "net": r["net"]}
        for r in rows
        if r["role"] == "player"
    ]  # fmt: skip
    pq.write_table(pa.Table.from_pylist(out), path)


@pytest.mark.slow
def test_the_issues_example_is_scored_on_the_agreeing_rows_as_verify_scores_it(
    tmp_path: Path,
) -> None:
    """`bull deal niuniu --rounds 20000 --bias errors=0.01 --commission 0`, audited with
    `--commission 0`: the planted errors are random, so no cause explains them without
    contradicting agreeing rows; the audit's diagnosis is verify's on the same rows (every
    cause's explained and contradicted counts), and the bull search mistake, which
    contradicts thousands of agreeing rows, explains nothing in the headline."""
    log = str(tmp_path / "log.parquet")
    s = deal("niuniu", 20000, bias={"errors": 0.01}, out=log, options={"commission": 0})
    assert s.planted > 0
    res = cli_audit("niuniu", [log], options={"commission": 0})
    st = res["settlement_check"]
    assert st["disagree"] == s.planted and st["agree"] == 80000 - s.planted
    assert st["agreeing_scored"] == st["agree"]  # every agreeing row scored
    sd = str(tmp_path / "showdowns.parquet")
    _showdowns(log, sd)
    rep = verify_file("niuniu", sd, options={"commission": 0})
    assert rep.disagree == s.planted
    want = {d.to_json()["id"]: (d.explains, d.contradicts) for d in rep.diagnosis}
    got = {d["id"]: (d["explains"], d["contradicts"]) for d in st["diagnosis"]}
    assert got == want
    skip = got["mistake=bull_skips_first"]
    assert skip[1] > 10_000 > skip[0]  # contradicts far more than it explains
    assert "skips the first card" not in st["headline"]
    assert st["headline"] == rep.headline
    code, text, _ = run("audit", "niuniu", log, "--commission", "0")
    assert code == 1 and "skips the first card" not in text.splitlines()[2]


def _fair_counts(res: dict) -> dict:
    """What the fairness tests count, per test: observations and G."""
    return {(t["name"], t["group"]): t["n"] for t in res["fairness"]}


def test_logs_that_each_number_rounds_from_1_audit_together(tmp_path: Path) -> None:
    """Two `bull deal` logs both number their rounds from 1: a round is identified per
    file, so together they audit as the sum of each alone; `--round-key table,round`
    identifies rounds across files (the same table and id in both files: one round, two
    bankers, impossible or malformed), and the examples name the file."""
    a, b = str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet")
    deal("niuniu", 300, players=3, seed=1, out=a)
    deal("niuniu", 200, players=3, seed=2, out=b, bias={"errors": 0.05})
    one, two = cli_audit("niuniu", [a]), cli_audit("niuniu", [b])
    both = cli_audit("niuniu", [b, a])  # in any order
    assert both["rounds"] == 500 and both["malformed"] == both["impossible"] == 0
    assert both["round_key"] == ["file", "round"]
    for k in ("checked", "agree", "disagree"):
        assert (
            both["settlement_check"][k] == one["settlement_check"][k] + two["settlement_check"][k]
        )
    sums = {k: v + _fair_counts(two)[k] for k, v in _fair_counts(one).items()}
    assert _fair_counts(both) == sums
    assert both["settlement_check"]["disagree"] > 0
    assert all(ex["round"].startswith("b.parquet:") for ex in both["settlement_check"]["examples"])
    keyed = cli_audit("niuniu", [a, b], round_key=["table,round"])
    assert keyed["round_key"] == ["table", "round"]
    t_a, t_b = (pq.read_table(p).to_pylist() for p in (a, b))
    key_a = {(r["table"], r["round"]) for r in t_a}
    shared = len(key_a & {(r["table"], r["round"]) for r in t_b})
    assert shared > 0 and keyed["rounds"] == 500 - 2 * shared
    assert keyed["impossible"] + keyed["malformed"] >= shared
    code, _, err = run("audit", "niuniu", a, "--round-key", "table,nope")
    assert code == 2 and "'nope'" in err and err.count("\n") == 1
    code, _, err = run("audit", "niuniu", a, "--round-key", "nope,round")
    assert code == 2 and "--round-key 'nope': no such column" in err and err.count("\n") == 1
    code, _, err = run("audit", "niuniu", a, "--round-key", "table,,round")
    assert code == 2 and "--round-key" in err and err.count("\n") == 1


# ---------------------------------------------------------------- issue 28: no misleading "ok"


def test_a_test_without_the_rounds_to_see_its_bias_says_so(tmp_path: Path) -> None:
    """300 rounds: the banker's category test needs 325 to see its bias, the card test
    10,459: they say "not enough rounds (needs N)", not "ok", and so does the result."""
    path = str(tmp_path / "small.csv")
    deal("niuniu", 300, players=4, seed=1, out=path)
    res = cli_audit("niuniu", [path])
    status = {t["name"]: t["status"] for t in res["fairness"]}
    assert status["category:banker"] == status["card"] == "not enough rounds"
    assert status["category:player"] == "ok"  # needs 82 rounds
    for t in res["fairness"]:
        assert (t["status"] == "not enough rounds") == (t["rounds"] < (t["power_rounds"] or 0))
    text = audit_text(res)
    assert "low  card" in text and "not enough rounds (needs 10,459)" in text
    last = text.splitlines()[-1]
    assert last.startswith("result: clean; not enough rounds to test: category:banker [all]")
    assert {x["name"] for x in res["not_enough_rounds"]} >= {"category:banker", "card", "hold"}


def test_by_seat_lists_no_test_of_a_seat_that_holds_no_such_hand(tmp_path: Path) -> None:
    """``--by seat``: seat 0 is the banker's (no player-category, outcome or net test
    there), seats 1-4 the players' (no banker-category test); the first player's seat has
    the outcome and net tests. Nothing with no observations is printed as "ok"."""
    path = str(tmp_path / "log.csv")
    deal("niuniu", 300, players=4, seed=1, out=path)
    res = cli_audit("niuniu", [path], by=["seat"])
    names: dict[str, set[str]] = {}
    for t in res["fairness"]:
        assert t["n"] > 0, t
        names.setdefault(t["group"], set()).add(t["name"])
    assert names["seat=0"] == {"category:banker", "card"}
    assert names["seat=1"] == {"category:player", "card", "outcome", "net"}
    assert names["seat=4"] == {"category:player", "card"}
    holds = {h["group"] for h in res["hold"]}
    assert "seat=0" not in holds and {"all", "seat=1", "seat=4"} <= holds


def test_a_shoe_log_audited_with_one_deck_rules_says_so(tmp_path: Path) -> None:
    """A 6-deck log under the one-deck rules: the repeated cards make impossible deals
    (not malformed rows), and the audit says the logs hold more copies of a card than the
    rules' deck and suggests the shoe preset — also when no round is left to audit."""
    one = str(tmp_path / "one.csv")
    deal("niuniu", 300, players=1, seed=1, out=one, rules="shoe6")
    res = cli_audit("niuniu", [one])
    assert res["malformed"] == 0 and res["impossible"] > 0
    hint = res["deck_hint"]
    assert "--rules shoe6" in hint and "copies of a card in one round" in hint
    assert "hint: " in audit_text(res)
    full = str(tmp_path / "full.csv")
    deal("niuniu", 100, players=9, seed=1, out=full, rules="shoe6")
    with pytest.raises(BullError, match=r"no complete round .* audit with --rules shoe6"):
        cli_audit("niuniu", [full])


def test_pvalues_plot_is_minus_log10_p_with_the_flag_line(tmp_path: Path) -> None:
    """p-values from 1 down to 0 (an impossible amount): the axis is -log10 p from 0 to
    a little above the largest (p = 0 drawn at 300), the flag line at 6, one legend
    entry per test."""
    plt = pytest.importorskip("matplotlib.pyplot")
    from solver.audit.report import plot_pvalues

    tests = [{"name": n, "group": g, "p_value": p}
             for n, g, p in (("card", "all", 0.5), ("card", "t1", 1e-9), ("net", "all", 0.0),
                             ("net", "t1", 1.0))]  # fmt: skip
    res = {"fairness": tests, "alpha": 1e-6, "game": "niuniu", "rules": "classic"}
    drawn = plot_pvalues(str(tmp_path / "p.png"), res, plt)
    assert drawn["labels"] == ["card", "net"] and drawn["flag"] == pytest.approx(6)
    assert drawn["ylim"][0] == 0 and 300 < drawn["ylim"][1] < 330
    small = plot_pvalues(str(tmp_path / "q.png"), res | {"fairness": tests[:1]}, plt)
    assert 6 < small["ylim"][1] < 8  # the flag line in view, not 10^14
