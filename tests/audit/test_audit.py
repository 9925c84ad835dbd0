"""``bull audit`` and ``bull deal``: fair logs pass, rigged ones are flagged, planted
settlement errors are found and diagnosed, bad input is one line and exit 2.

Expected values are worked out here from the rule text (RULES.md §3: a Niu Niu hand
has a bull when three of its cards sum to a multiple of 10, J/Q/K counting 10).
"""

from __future__ import annotations

import io
import itertools
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

from solver.audit.command import cli_audit
from solver.audit.deal import deal
from solver.audit.fairness import ks_uniform
from solver.cli import main

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


def bull_by_rule(hand: str) -> bool:
    vals = [min(RANKS.index(c[:-1]) + 1, 10) for c in hand.split()]
    return any(sum(t) % 10 == 0 for t in itertools.combinations(vals, 3))


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.slow
def test_counts_match_a_brute_force_of_the_rule_text(tmp_path: Path) -> None:
    path = str(tmp_path / "log.csv")
    deal("niuniu", 400, players=3, seed=11, out=path)
    rows = pacsv.read_csv(path).to_pylist()
    bulls = sum(bull_by_rule(r["hand"]) for r in rows if r["role"] == "player")
    res = cli_audit("niuniu", [path], out=str(tmp_path / "report"))
    test = next(t for t in res["fairness"] if t["name"] == "category:player")
    cats = pq.read_table(tmp_path / "report" / "categories.parquet").to_pylist()
    got = next(
        c for c in cats if (c["group"], c["role"], c["category"]) == ("all", "player", "no_bull")
    )
    assert res["rounds"] == 400 and res["rows"] == 1600
    assert test["n"] == 1200 and got["observed"] == 1200 - bulls
    assert got["expected"] == pytest.approx(1200 * 872128 / 2598960)  # RULES.md §6 count
    assert res["settlement_check"]["checked"] == 1200 and res["settlement_check"]["disagree"] == 0
    assert res["impossible"] == 0 and res["malformed"] == 0


def test_a_hand_worked_log(tmp_path: Path) -> None:
    # banker AS 2S 3S 4H 6D: A+3+6 = 10, 2+4 = 6: niu 6.
    # player 1 KH QH JH 9C 8C: K+Q+J = 30, 9+8 = 17: niu 7, wins 0.95 (5% commission).
    # player 2 2H 3H 4C 5C 7D: 2+3+5 = 10, 4+7 = 11: niu 1, loses 1; claimed +1: wrong.
    path = tmp_path / "hand.csv"
    path.write_text(
        "round,role,hand,result,net,seat_kind\n"
        "1,banker,AS 2S 3S 4H 6D,,,house\n"
        "1,player,KH QH JH 9C 8C,win,0.95,robot\n"
        "1,player,2H 3H 4C 5C 7D,win,1,human\n"
        "2,banker,AS 2S 3S 4H 6D,,,house\n"
        "2,player,AS QH JH 9C 8C,win,0.95,robot\n"
    )
    res = cli_audit("niuniu", [str(path)], by=["seat_kind"])
    s = res["settlement_check"]
    assert (s["checked"], s["disagree"]) == (2, 1)
    assert s["fields"]["net"] == {"agree": 1, "disagree": 1, "not_stated": 0}
    assert s["examples"][0]["round"] == "1"
    # round 2 deals AS twice: impossible, listed, not audited
    assert res["impossible"] == 1 and res["rounds"] == 1
    assert "AS dealt 2 times" in res["impossible_rounds"][0]["reason"]
    groups = {t["group"] for t in res["fairness"]}
    assert {"all", "seat_kind=robot", "seat_kind=human", "seat_kind=house"} <= groups


def test_tiles_beyond_the_set_are_impossible(tmp_path: Path) -> None:
    path = tmp_path / "tiles.csv"
    path.write_text(
        "round,role,hand\n"
        "1,banker,[6:6][6:6][1:1][2:1][3:1]\n"
        "1,player,[6:6][5:5][4:4][4:2][5:1]\n"
        "2,banker,[6:6][6:6][1:1][2:1][3:1]\n"
        "2,player,[6:5][5:5][4:4][4:2][5:1]\n"
    )
    res = cli_audit("taungau", [str(path)])
    assert res["impossible"] == 1 and res["rounds"] == 1
    assert "[6:6] dealt 3 times" in res["impossible_rounds"][0]["reason"]


@pytest.mark.slow
def test_fair_logs_give_uniform_p_values(tmp_path: Path) -> None:
    pvals: dict[str, list[float]] = {}
    for game, seeds in (("niuniu", 12), ("taungau", 6), ("pokdeng", 6)):
        for seed in range(seeds):
            path = str(tmp_path / f"{game}{seed}.parquet")
            deal(game, 1500, players=4, seed=100 + seed, out=path, hand_format="ids")
            res = cli_audit(game, [path])
            assert res["settlement_check"]["disagree"] == 0 and res["impossible"] == 0
            for t in res["fairness"]:
                pvals.setdefault(f"{t['name']}", []).append(t["p_value"])
    everything = [p for v in pvals.values() for p in v]
    assert ks_uniform(everything)[1] > 1e-3, pvals
    for name, v in pvals.items():
        assert ks_uniform(v)[1] > 1e-4, (name, v)


@pytest.mark.parametrize(
    ("game", "bias", "rounds", "flag"),
    [
        ("niuniu", {"bull_rate": 0.85}, 1500, "category:player"),
        ("niuniu", {"banker_edge": 0.2}, 3000, "outcome"),
        ("taungau", {"bull_rate": 0.85}, 1500, "category:player"),
        ("taungau", {"banker_edge": 0.2}, 3000, "outcome"),
        ("pokdeng", {"bull_rate": 0.4}, 1500, "category:player"),
        ("pokdeng", {"banker_edge": 0.3}, 3000, "category:dealer"),
    ],
)
def test_each_rigging_is_flagged(
    tmp_path: Path, game: str, bias: dict[str, float], rounds: int, flag: str
) -> None:
    path = str(tmp_path / "rigged.parquet")
    deal(game, rounds, players=4, seed=5, out=path, bias=bias)
    res = cli_audit(game, [path])
    assert f"{flag} [all]" in res["flagged"]
    assert res["settlement_check"]["disagree"] == 0  # rigged, but settled right


@pytest.mark.slow
def test_planted_errors_are_found_and_diagnosed(tmp_path: Path) -> None:
    path = str(tmp_path / "planted.jsonl")
    s = deal(
        "niuniu", 1500, players=4, seed=9, out=path, bias={"errors": 0.03},
        error_options={"commission": 0.0},
    )  # fmt: skip
    assert s.planted > 50
    res = cli_audit("niuniu", [path])
    st = res["settlement_check"]
    assert st["disagree"] == s.planted
    # every planted row matches commission 0%, but so would every other winning row:
    # scored on the agreeing rows too (as verify scores it), the cause contradicts the
    # winners settled right, so it does not "explain" the intermittent errors
    rows = [json.loads(line) for line in Path(path).read_text().splitlines()]
    winners = sum(1 for r in rows if r["role"] == "player" and r["net"] > 0)
    got = {d["id"]: (d["explains"], d["contradicts"]) for d in st["diagnosis"]}
    assert got["commission=0"] == (s.planted, winners - s.planted)
    assert "commission 0%" not in st["headline"]
    path2 = str(tmp_path / "flipped.csv")
    s2 = deal("taungau", 800, players=3, seed=9, out=path2, bias={"errors": 0.05})
    st2 = cli_audit("taungau", [path2])["settlement_check"]
    assert st2["disagree"] == s2.planted > 0 and st2["confirmed"] == s2.planted


def test_folders_globs_unsorted_rounds_and_report(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    deal("pokdeng", 300, players=3, seed=1, out=str(logs / "a.parquet"))
    deal("pokdeng", 200, players=3, seed=2, out=str(logs / "b.parquet"))
    by_dir = cli_audit("pokdeng", [str(logs)])
    by_glob = cli_audit("pokdeng", [str(logs / "*.parquet")])
    assert by_dir["rows"] == by_glob["rows"] == 2000 and by_dir["files"] == 2
    # same round ids in both files: a round is identified per file, so all 500 are whole
    assert by_dir["malformed"] + by_dir["impossible"] == 0 and by_dir["rounds"] == 500
    # identified by the id alone (--round-key round), b's rounds 1..200 merge with a's of
    # the same id: two dealers in a round, malformed (or impossible: a card comes twice)
    alone = cli_audit("pokdeng", [str(logs)], round_key=["round"])
    assert alone["malformed"] + alone["impossible"] == 200 and alone["rounds"] == 100
    one = str(tmp_path / "one.parquet")
    deal("pokdeng", 300, players=3, seed=1, out=one)
    t = pq.read_table(one)
    shuffled = str(tmp_path / "shuffled.parquet")
    pq.write_table(t.take(pa.array(list(reversed(range(t.num_rows))))), shuffled)
    a, b = cli_audit("pokdeng", [one]), cli_audit("pokdeng", [shuffled], out=str(tmp_path / "r"))
    assert a["fairness"] == b["fairness"] and a["settlement_check"] == b["settlement_check"]
    assert (tmp_path / "r" / "audit.md").exists() and (tmp_path / "r" / "tests.parquet").exists()


def test_cli_json_shape_and_exit_codes(tmp_path: Path) -> None:
    path = str(tmp_path / "log.parquet")
    code, out, _err = run("deal", "niuniu", "--rounds", "200", "--seed", "3", "--out", path)
    assert code == 0 and "200 rounds" in out
    code, out, _ = run("audit", "niuniu", path, "--json")
    res: dict[str, Any] = json.loads(out)
    assert code == 0
    assert {"rounds", "rows", "settlement_check", "impossible", "fairness"} <= set(res)
    assert {"disagree", "diagnosis"} <= set(res["settlement_check"])
    for t in res["fairness"]:
        assert {"name", "group", "statistic", "df", "p_value", "power_rounds"} <= set(t)


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["audit", "niuniu", "/no/such/log.parquet"], "log.parquet: No such file or directory"),
        (["audit", "niuniu", "{log}", "--by", "nosuch"], "--by 'nosuch'"),
        (["audit", "niuniu", "{bad}"], "lack the column"),
        (["audit", "niuniu", "{log}", "--column", "foo=bar"], "unknown field 'foo'"),
        (["deal", "niuniu", "--rounds", "5", "--bias", "x=1", "--out", "{out}"], "--bias"),
        (["deal", "niuniu", "--rounds", "5", "--bias", "bull_rate=2", "--out", "{out}"], "2"),
        (["deal", "taungau", "--rounds", "5", "--players", "9", "--out", "{out}"], "--players"),
        (
            ["deal", "niuniu", "--rounds", "5", "--error-rules", "casino", "--out", "{out}"],
            "without --bias errors=",
        ),
        (  # one-deck error rules cannot settle a shoe's repeated cards (was an IndexError)
            [
                *("deal", "niuniu", "--rounds", "5", "--rules", "shoe6", "--bias", "errors=0.5"),
                *("--error-rules", "classic", "--out", "{out}"),
            ],
            "settles hands dealt from 1 x 52 cards, the deal is from 6 x 52",
        ),
        (["audit", "niuniu", "{log}", "--banker-reveals", "first"], "does not apply"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, argv: list[str], needle: str) -> None:
    log = tmp_path / "log.csv"
    deal("niuniu", 5, players=2, seed=1, out=str(log))
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n")
    args = [a.format(log=log, bad=bad, out=tmp_path / "o.csv") for a in argv]
    code, out, err = run(*args)
    assert code == 2, (out, err)
    assert err.count("\n") == 1 and needle in err, err


@pytest.mark.parametrize("game", ["niuniu", "taungau", "pokdeng"])
def test_dealt_logs_settle_as_bull_verify_does(tmp_path: Path, game: str) -> None:
    """Every player row of a fair log, as a showdown row for ``bull verify``: no
    disagreement (the audit's fast settlement and the verify engine agree)."""
    from solver.verify import verify_file

    path = str(tmp_path / "log.parquet")
    deal(game, 1500, players=4, seed=4, out=path)
    t = pq.read_table(path).to_pylist()
    banker = {r["round"]: r["hand"] for r in t if r["role"] != "player"}
    rows = [
        {"player": r["hand"], "banker": banker[r["round"]], "winner": r["result"], "net": r["net"]}
        for r in t
        if r["role"] == "player"
    ]
    for r in rows:
        r["winner"] = {"win": "player", "loss": "banker", "push": "push"}[r["winner"]]
    sd = str(tmp_path / "showdowns.parquet")
    pq.write_table(pa.Table.from_pylist(rows), sd)
    rep = verify_file(game, sd)
    assert rep.checked == 6000 and rep.disagree == 0 and rep.malformed == 0
