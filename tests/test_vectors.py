"""`bull vectors`: stable, covering conformance vectors that `bull verify` passes, and
that catch an implementation with a planted mistake (planted independently here)."""

from __future__ import annotations

import io
import json
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from test_verify import fail_writes_after

from solver.cli import main

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def rank(card: str) -> int:
    return RANKS.index(card[:-1]) + 1


def value(card: str) -> int:
    return min(rank(card), 10)


def nn_category(cards: list[str], specials: list[str], fsb_below_10: bool = False) -> str:
    """Independent Niu Niu category (RULES §3), optionally with the total < 10 mistake."""
    ranks = sorted(rank(c) for c in cards)
    total = sum(value(c) for c in cards)
    q = {
        "five_faces": min(ranks) > 10,
        "four_of_a_kind": any(ranks.count(r) == 4 for r in ranks),
        "straight_flush": len({c[-1] for c in cards}) == 1
        and ranks == list(range(ranks[0], ranks[0] + 5)),
        "five_small_bull": max(ranks) <= 4 and (total < 10 if fsb_below_10 else total <= 10),
    }
    best = None
    for s in specials:
        if q[s]:
            best = s
    if best:
        return best
    if not any(sum(value(cards[i]) for i in t) % 10 == 0 for t in combinations(range(5), 3)):
        return "no_bull"
    p = total % 10
    return "niu_niu" if p == 0 else f"niu_{p}"


CASINO = ["five_faces", "four_of_a_kind", "straight_flush", "five_small_bull"]


def vectors(
    tmp_path: Path, game: str, *args: str
) -> tuple[Path, list[dict[str, Any]], dict[str, Any]]:
    path = tmp_path / f"{game}.jsonl"
    code, out, err = run("vectors", game, "--out", str(path), "--json", *args)
    assert code == 0, err
    return path, [json.loads(line) for line in path.read_text().splitlines()], json.loads(out)


@pytest.mark.parametrize("rules", ["classic", "casino"])
def test_niuniu_round_trip(tmp_path: Path, niuniu_tables: Path, rules: str) -> None:
    path, recs, cov = vectors(tmp_path, "niuniu", "--rules", rules)
    assert cov["vectors"] == len(recs) and cov["uncaught_variants"] == []
    code, out, _err = run(
        "verify", "niuniu", str(path), "--rules", rules, "--tables", str(niuniu_tables), "--json"
    )
    s = json.loads(out)
    assert code == 0, s["examples"][:3]
    assert s["checked"] == len(recs) and s["disagree"] == 0


def test_niuniu_coverage(tmp_path: Path) -> None:
    _, recs, cov = vectors(tmp_path, "niuniu", "--rules", "casino")
    cats = {r["category"] for r in recs if r["kind"] == "hand"}
    assert cats == {"no_bull", *(f"niu_{k}" for k in range(1, 10)), "niu_niu", *CASINO}
    tags = cov["tags"]
    for t in (
        "total_10",
        "total_11",
        "card_5",
        "four_faces_with_ten",
        "four_faces_without_ten",
        "ace_low",
        "no_wraparound_straight",
        "tie_all_ranks_equal_suit_D_vs_C",
        "tie_top_rank_equal_second_differs",
        "quads_rank_vs_highest_card",
        "random",
    ):
        assert t in tags, t
    # every hand vector's category agrees with an independent evaluator
    for r in recs:
        if r["kind"] == "hand":
            assert r["category"] == nn_category(r["hand"], CASINO), r


def test_stable_and_seeded(tmp_path: Path) -> None:
    jl = ("--format", "jsonl")
    a = run("vectors", "niuniu", *jl)[1]
    b = run("vectors", "niuniu", *jl)[1]
    c = run("vectors", "niuniu", "--seed", "7", *jl)[1]
    assert a == b
    fixed_a = [line for line in a.splitlines() if '"random"' not in line]
    fixed_c = [line for line in c.splitlines() if '"random"' not in line]
    assert fixed_a == fixed_c and a != c
    assert len(run("vectors", "niuniu", "--sample", "0", *jl)[1].splitlines()) == len(fixed_a)


def test_stdout_stays_pure_jsonl(capsys: pytest.CaptureFixture[str]) -> None:
    out = io.StringIO()
    assert main(["vectors", "niuniu", "--sample", "3", "--format", "jsonl"], out=out) == 0
    lines = out.getvalue().splitlines()
    assert all(json.loads(line)["id"].startswith("niuniu-") for line in lines)
    assert "vectors under classic" in capsys.readouterr().err


def test_vectors_catch_a_planted_mistake(tmp_path: Path, niuniu_tables: Path) -> None:
    """An implementation using total < 10 for Five Small Bull answers the vectors; the
    verifier catches it on the boundary vectors and names the rule."""
    _, recs, _ = vectors(tmp_path, "niuniu", "--rules", "casino")
    answered = []
    for r in recs:
        if r["kind"] == "hand":
            answered.append(
                {"hand": r["hand"], "category": nn_category(r["hand"], CASINO, fsb_below_10=True)}
            )
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps(a) + "\n" for a in answered))
    code, out, _ = run(
        "verify", "niuniu", str(path), "--rules", "casino", "--tables", str(niuniu_tables), "--json"
    )
    s = json.loads(out)
    assert code == 1 and s["disagree"] >= 1
    assert s["diagnosis"][0]["key"] == "five_small_bull_total=below_10"
    assert "total < 10" in s["headline"]


def test_text_summary_with_out(tmp_path: Path) -> None:
    code, out, _ = run("vectors", "niuniu", "--out", str(tmp_path / "v.jsonl"))
    assert code == 0 and "niuniu vectors under classic" in out and "covers:" in out


@pytest.mark.parametrize("rules", ["macau", "pagat"])
def test_taungau_round_trip(tmp_path: Path, taungau_tables: Path, rules: str) -> None:
    path, recs, cov = vectors(
        tmp_path, "taungau", "--rules", rules, "--tables", str(taungau_tables)
    )
    assert cov["uncaught_variants"] == []
    best = {t for t in cov["tags"] if t.startswith("best_")}
    assert len(best) == 10 and "no_bull" in cov["tags"]
    for t in (
        "wild_4_2_as_6_in_rest",
        "both_wild_tiles",
        "wild_in_rest_scores_more",
        "player_no_bull",
        "equal_scores",
    ):
        assert t in cov["tags"], t
    code, out, _ = run(
        "verify", "taungau", str(path), "--rules", rules, "--tables", str(taungau_tables), "--json"
    )
    s = json.loads(out)
    assert code == 0, s["examples"][:3]
    assert s["checked"] == len(recs)
    # the RULES §4 example: 0 = 10 under macau, 7 under pagat
    ex = next(r for r in recs if "wild_4_2_as_6_in_rest" in r["tags"])
    assert ex["points"] == (10 if rules == "macau" else 7)


@pytest.mark.parametrize("rules", ["standard", "straights"])
def test_pokdeng_round_trip(tmp_path: Path, pokdeng_tables: Path, rules: str) -> None:
    path, recs, cov = vectors(
        tmp_path, "pokdeng", "--rules", rules, "--tables", str(pokdeng_tables)
    )
    assert cov["uncaught_variants"] == []
    types = {r["type"] for r in recs if r["kind"] == "hand"}
    assert {"pok", "tong", "sam_lueang", "normal"} <= types
    assert ({"straight", "straight_flush"} <= types) == (rules == "straights")
    code, out, _ = run(
        "verify", "pokdeng", str(path), "--rules", rules, "--tables", str(pokdeng_tables), "--json"
    )
    s = json.loads(out)
    assert code == 0 and s["checked"] == len(recs)
    # RULES §5 worked examples, straights off
    if rules == "standard":
        nets = [r["net"] for r in recs if r["kind"] == "showdown" and "worked_example" in r["tags"]]
        assert nets == [2, 1, 3, 2, 1]


def pd_deng(cards: list[str], pok_pair: int) -> int:
    """Independent Pok Deng deng, base rules (straights off), paired Pok as given."""
    ranks = [c[:-1] for c in cards]
    suits = {c[-1] for c in cards}
    pts = sum(rank(c) if rank(c) < 10 else 0 for c in cards) % 10
    if len(cards) == 2:
        pair = ranks[0] == ranks[1]
        if pts >= 8 and pair:
            return pok_pair
        return 2 if pair or len(suits) == 1 else 1
    if len(set(ranks)) == 1:
        return 5
    if all(rank(c) > 10 for c in cards):
        return 3
    return 3 if len(suits) == 1 else 1


def test_pokdeng_vectors_catch_paired_pok(tmp_path: Path, pokdeng_tables: Path) -> None:
    _, recs, _ = vectors(tmp_path, "pokdeng", "--tables", str(pokdeng_tables))
    answered = [
        {"hand": r["hand"], "deng": pd_deng(r["hand"], pok_pair=1)}
        for r in recs
        if r["kind"] == "hand"
    ]
    assert all(
        a["deng"] == r["deng"]
        for a, r in zip(answered, (r for r in recs if r["kind"] == "hand"), strict=True)
        if len(a["hand"]) == 3 or a["hand"][0][:-1] != a["hand"][1][:-1]
    )
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps(a) + "\n" for a in answered))
    code, out, _ = run("verify", "pokdeng", str(path), "--tables", str(pokdeng_tables), "--json")
    s = json.loads(out)
    assert code == 1 and s["diagnosis"][0]["key"] == "deng.pok_pair=1"
    assert s["diagnosis"][0]["explains"] == s["disagree"]


def test_taungau_banker_reveals_first(tmp_path: Path, taungau_tables: Path) -> None:
    """`--banker-reveals first` reaches the vectors: their showdowns settle as if the
    player saw the banker's hand, which `bull verify` accepts with the same flag only."""
    tables = ("--tables", str(taungau_tables))
    path, recs, cov = vectors(tmp_path, "taungau", "--banker-reveals", "first", *tables)
    shows = [r for r in recs if r["kind"] == "showdown"]
    assert shows and {r["banker_reveals"] for r in shows} == {"first"}
    assert "catches:banker_reveals=last" in cov["tags"]
    code, out, _ = run(
        "verify", "taungau", str(path), "--banker-reveals", "first", *tables, "--json"
    )
    assert code == 0 and json.loads(out)["checked"] == len(recs)
    code, out, _ = run("verify", "taungau", str(path), *tables, "--json")
    s = json.loads(out)
    assert code == 1 and s["diagnosis"][0]["key"] == "banker_reveals=first"


def test_coverage_note_goes_to_the_cli_err_stream(capsys: pytest.CaptureFixture[str]) -> None:
    out, err = io.StringIO(), io.StringIO()
    argv = ["vectors", "niuniu", "--sample", "3", "--format", "jsonl"]
    assert main(argv, out=out, err=err) == 0
    assert all(json.loads(line)["id"].startswith("niuniu-") for line in out.getvalue().splitlines())
    assert "vectors under classic" in err.getvalue()
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("exc", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_out_never_half_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exc: BaseException
) -> None:
    """Vectors that fail or are interrupted half-way through writing leave the old file
    as it was and no temporary file; a finished run leaves exactly the whole file."""
    outdir = tmp_path / "out"
    outdir.mkdir()
    target = outdir / "v.jsonl"
    target.write_text("old\n")
    fail_writes_after(monkeypatch, 5_000, exc)
    try:
        code, _, err = run("vectors", "niuniu", "--out", str(target))
    except KeyboardInterrupt:  # the CLI may also turn it into exit code 130
        code, err = 130, "interrupted"
    if isinstance(exc, KeyboardInterrupt):
        assert code == 130 and "interrupted" in err
    else:
        assert code == 2 and "cannot write" in err and "No space left" in err
    assert target.read_text() == "old\n"
    assert [p.name for p in outdir.iterdir()] == ["v.jsonl"]
    monkeypatch.undo()
    code, _, _ = run("vectors", "niuniu", "--out", str(target))
    assert code == 0 and [p.name for p in outdir.iterdir()] == ["v.jsonl"]
    assert target.read_text() == run("vectors", "niuniu", "--format", "jsonl")[1]


def test_a_vectors_file_names_its_rule_set_and_verify_uses_it(tmp_path: Path) -> None:
    """Every vector says the rule set its answers hold for; verify of the file without
    --rules checks against that preset (and says so), not the default."""
    import io

    from solver.cli import main

    path = tmp_path / "casino.jsonl"
    err = io.StringIO()
    assert main(["vectors", "niuniu", "--rules", "casino", "--out", str(path)], err=err) == 0
    first = json.loads(path.read_text().splitlines()[0])
    assert list(first)[:3] == ["id", "kind", "rules"] and first["rules"] == "casino"
    out, err = io.StringIO(), io.StringIO()
    assert main(["verify", "niuniu", str(path)], out=out, err=err) == 0, out.getvalue()
    assert "rule set 'casino'" in err.getvalue()
    other = tmp_path / "house.csv"
    other.write_text("hand,points,rules\nKS 9H 8C 3D 7S,7,house\n")
    out, err = io.StringIO(), io.StringIO()
    assert main(["verify", "niuniu", str(other)], out=out, err=err) == 0
    assert "'house', which is no preset" in err.getvalue()
