"""Tau Ngau through the command line: `bull eval taungau` and `bull compare taungau`."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from solver.cli import main
from taungau import fixtures as ref


@pytest.fixture(scope="session")
def tg_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ref.tables_dir(tmp_path_factory)


def run(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def records(args: list[str]) -> list[dict[str, Any]]:
    code, out, err = run(args)
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()]


DISAGREE = "[6:6][6:5][4:3][4:2][2:2]"


def test_eval_macau_json(tg_dir: Path) -> None:
    (rec,) = records(["eval", "taungau", "22 42 43 65 66", "--json", "--tables", str(tg_dir)])
    assert rec["hand"] == ["[2:2]", "[4:2]", "[4:3]", "[6:5]", "[6:6]"]
    assert rec["has_bull"] is True
    assert rec["points"] == 10
    assert rec["values"] == {"[4:2]": 6}
    assert rec["reachable"] == [7, 10]
    assert rec["rules"] == "macau"
    assert len(rec["bull"]) == 3 and len(rec["rest"]) == 2
    assert sorted(rec["bull"] + rec["rest"]) == sorted(rec["hand"])
    assert rec["ev_decline"] == -4
    assert rec["decision_banker_last"] == "declare"
    assert rec["decline_if_banker_at_least"] is None  # 10 > 5
    assert sum(rec["banker_distribution"]) == 80730
    scores = rec["banker_distribution_scores"]  # what each count is: the banker's best score
    assert scores == ["no_bull", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"]
    expected = sum(c * (10 - b) for b, c in enumerate(rec["banker_distribution"])) / 80730
    assert rec["ev_declare"] == pytest.approx(expected)


def test_eval_pagat_and_no_bull(tg_dir: Path) -> None:
    recs = records(
        [
            "eval",
            "taungau",
            DISAGREE,
            "[1:1][2:2][3:3][5:1][6:1]",
            "--rules",
            "pagat",
            "--json",
            "--tables",
            str(tg_dir),
        ]
    )
    assert (recs[0]["points"], recs[0]["values"], recs[0]["reachable"]) == (7, {"[4:2]": 3}, [0, 7])
    assert "ev_declare" not in recs[0]
    nb = recs[1]
    assert (nb["has_bull"], nb["points"], nb["bull"], nb["rest"], nb["reachable"]) == (
        False,
        None,
        None,
        None,
        [],
    )
    (m,) = records(
        ["eval", "taungau", "[1:1][2:2][3:3][5:1][6:1]", "--json", "--tables", str(tg_dir)]
    )
    assert (
        m["points"],
        m["decision_banker_last"],
        m["ev_declare"],
        m["decline_if_banker_at_least"],
    ) == (0, "no_bull", None, None)


def test_eval_low_hand_threshold(tg_dir: Path) -> None:
    (rec,) = records(
        [
            "eval",
            "taungau",
            "[5:4][1:1][6:4][6:4][5:5]",
            "--json",
            "--banker-reveals",
            "first",
            "--tables",
            str(tg_dir),
        ]
    )
    assert rec["points"] == 1
    assert rec["decline_if_banker_at_least"] == 6
    assert rec["banker_reveals"] == "first"
    dist = rec["banker_distribution"]
    first = sum(c * max(1 - b, -4) for b, c in enumerate(dist)) / 80730
    assert rec["ev"] == pytest.approx(first)


def test_eval_text_and_input_file(tg_dir: Path, tmp_path: Path) -> None:
    f = tmp_path / "hands.txt"
    f.write_text(f"# two hands\n{DISAGREE}\n\n65 41 64 64 55\n", encoding="utf-8")
    code, out, err = run(["eval", "taungau", "--input", str(f), "--tables", str(tg_dir)])
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("[2:2][4:2][4:3][6:5][6:6] 10: bull")
    assert "[macau]" in lines[1]


def test_compare_json(tg_dir: Path) -> None:
    (rec,) = records(
        [
            "compare",
            "taungau",
            "[6:5][4:1][6:4][6:4][5:5]",
            "[5:4][2:2][3:2][5:3][6:1]",
            "--json",
            "--tables",
            str(tg_dir),
        ]
    )
    assert rec["player"]["points"] == 6 and rec["banker"]["points"] == 3
    assert (rec["winner"], rec["net"], rec["banker_net"]) == ("player", 3, -3)
    assert rec["player"]["declines"] is False
    assert rec["banker_reveals"] == "last"


def test_compare_decline_first(tg_dir: Path) -> None:
    args = [
        "compare",
        "taungau",
        "[5:4][1:1][6:4][6:4][5:5]",
        "[6:6][4:4][3:2][5:3][6:1]",
        "--json",
        "--tables",
        str(tg_dir),
    ]
    (first,) = records([*args, "--banker-reveals", "first"])
    (last,) = records([*args, "--banker-reveals", "last"])
    assert (first["player"]["declines"], first["net"], first["winner"]) == (True, -4, "banker")
    assert (last["player"]["declines"], last["net"]) == (False, -9)
    code, out, _ = run([*(a for a in args if a != "--json"), "--banker-reveals", "first"])
    assert code == 0 and "declines the bull" in out and "player net -4" in out


def test_compare_pagat(tg_dir: Path) -> None:
    (rec,) = records(
        [
            "compare",
            "taungau",
            DISAGREE,
            "[1:1][2:2][3:3][5:1][6:1]",
            "--rules",
            "pagat",
            "--json",
            "--tables",
            str(tg_dir),
        ]
    )
    assert (rec["player"]["points"], rec["banker"]["points"]) == (7, None)
    assert (rec["winner"], rec["net"]) == ("player", 1)


def test_rule_file(tg_dir: Path, tmp_path: Path) -> None:
    f = tmp_path / "house.toml"
    f.write_text(
        'game = "taungau"\nzero_counts_as = 10\nsettlement = "difference"\n'
        "no_bull_pays = 4\ndecline_allowed = true\n",
        encoding="utf-8",
    )
    (a,) = records(
        ["eval", "taungau", DISAGREE, "--rules", str(f), "--json", "--tables", str(tg_dir)]
    )
    (b,) = records(["eval", "taungau", DISAGREE, "--json", "--tables", str(tg_dir)])
    assert a["rules"] == "house"
    assert {k: v for k, v in a.items() if k != "rules"} == {
        k: v for k, v in b.items() if k != "rules"
    }


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["eval", "taungau", "[7:1] 11 22 33 44"], "unknown tile '[7:1]'"),
        (["eval", "taungau", "66 66 66 11 22"], "too many copies of [6:6]"),
        (["eval", "taungau", "11 22 33 44"], "has 4 tiles; expected 5"),
        (["eval", "taungau", "11 22 33 44 55", "--rules", "vegas"], "unknown rule set 'vegas'"),
        (["eval", "taungau", "11 22 33 44 55", "--bet", "double"], "--bet does not apply"),
        (
            ["compare", "taungau", "66 66 11 22 33", "66 44 55 51 61"],
            "[6:6] is held 3 times in the two hands",
        ),
        (
            ["compare", "taungau", "42 11 22 33 44", "24 55 66 51 61"],
            "[4:2] is held 2 times in the two hands",
        ),
        (["compare", "taungau", "11 22 33 44 55", "11 22 33 44"], "has 4 tiles"),
    ],
)
def test_bad_input_exit_2(tg_dir: Path, args: list[str], needle: str) -> None:
    code, out, err = run([*args, "--tables", str(tg_dir)])
    assert code == 2
    assert out == ""
    assert needle in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_bad_rule_file_exit_2(tg_dir: Path, tmp_path: Path) -> None:
    f = tmp_path / "typo.toml"
    f.write_text('game = "taungau"\nzero_count_as = 10\n', encoding="utf-8")
    code, _, err = run(["eval", "taungau", DISAGREE, "--rules", str(f), "--tables", str(tg_dir)])
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err


def test_missing_tables_exit_2(tmp_path: Path) -> None:
    empty = tmp_path / "none"
    empty.mkdir()
    code, _, err = run(["eval", "taungau", DISAGREE, "--tables", str(empty)])
    assert code == 2 and "taungau" in err and err.count("\n") == 1
