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

from solver.audit.command import cli_audit
from solver.audit.deal import deal
from solver.cli import main
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
    st = res["settlement"]
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
        assert both["settlement"][k] == one["settlement"][k] + two["settlement"][k]
    sums = {k: v + _fair_counts(two)[k] for k, v in _fair_counts(one).items()}
    assert _fair_counts(both) == sums
    assert both["settlement"]["disagree"] > 0
    assert all(ex["round"].startswith("b.parquet:") for ex in both["settlement"]["examples"])
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
