"""`bull eval|compare|advise|strategy pokdeng` and the runtime API, on freshly built tables."""

from __future__ import annotations

import io
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pokdeng.fixtures import Reference, built_tables, direct_numpy, ids, ref_class, ref_settle
from solver.cli import main
from solver.core.errors import ParseError
from solver.games.pokdeng import play as play
from solver.games.pokdeng.play import Advice, evaluate  # noqa: F401  (eval of reprs)
from solver.games.pokdeng.rules import HandType


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(built_tables(tmp_path_factory))


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def run_json(*argv: str) -> list[dict[str, Any]]:
    code, out, err = run(*argv, "--json")
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()]


# ---------------------------------------------------------------- eval


def test_eval_fields(tables: str) -> None:
    recs = run_json(
        "eval", "pokdeng", "9s 9d", "A♣ 4♣ 4D", "JS QH KD", "3S,3H,3D", "--tables", tables
    )
    assert [r["hand"] for r in recs] == [
        ["9S", "9D"],
        ["AC", "4D", "4C"],
        ["JS", "QH", "KD"],
        ["3S", "3H", "3D"],
    ]
    assert [(r["type"], r["points"], r["deng"]) for r in recs] == [
        ("pok", 8, 2),
        ("normal", 9, 1),
        ("sam_lueang", 0, 3),
        ("tong", 9, 5),
    ]
    assert [r["strength"] for r in recs] == [58, 9, 10, 49]
    assert all(r["rules"] == "standard" for r in recs)
    assert set(recs[0]) == {"hand", "type", "points", "deng", "strength", "rules"}


def test_eval_text_and_straights(tables: str) -> None:
    code, out, _ = run("eval", "pokdeng", "4C 5C 6C", "--tables", tables)
    assert code == 0 and out.strip() == "4C 5C 6C: Normal 5, 3 deng"
    rec = run_json("eval", "pokdeng", "4C 5C 6C", "--rules", "straights", "--tables", tables)[0]
    assert (rec["type"], rec["deng"], rec["rules"]) == ("straight_flush", 5, "straights")


def test_eval_input_file(tables: str, tmp_path: Path) -> None:
    f = tmp_path / "hands.txt"
    f.write_text("# two hands\n9S 9D\n\nKH 2S AC\n", encoding="utf-8")
    recs = run_json("eval", "pokdeng", "--input", str(f), "--tables", tables)
    assert [r["type"] for r in recs] == ["pok", "normal"]


def test_rule_file_needs_no_preset_tables(tmp_path: Path) -> None:
    """A rule file needs no preset tables: its hands are classified directly and its
    strategy table is built on first use (here in the user cache: ``--tables`` names no
    directory). Ace low only, so Q-K-A is not a straight."""
    f = tmp_path / "low.toml"
    f.write_text('game = "pokdeng"\nstraights = true\nace = "low"\n', encoding="utf-8")
    missing = str(tmp_path / "no-tables-here")
    recs = run_json(
        "eval", "pokdeng", "AS 2H 3D", "QS KH AD", "--rules", str(f), "--tables", missing
    )
    assert [r["type"] for r in recs] == ["straight", "normal"]
    assert recs[0]["rules"] == "low"
    rec = run_json(
        "advise",
        "pokdeng",
        "7H 5D",
        "--rules",
        str(f),
        "--dealer-draws-at-most",
        "6",
        "--tables",
        missing,
    )[0]
    assert rec["dealer_draws_at_most"] == 6 and rec["action"] == "draw"


# ---------------------------------------------------------------- compare


@pytest.mark.parametrize(
    ("winner", "loser", "pays"),
    [
        ("9S 9D", "AC 4C 4D", 2),
        ("5S 4C", "9S 9D", 1),
        ("6C 4C 5C", "KH 2S AC", 3),
        ("6C 4C 5C", "KH 2S 3C", 2),
        ("6C 4C 5C", "2S 3S", 1),
    ],
)
def test_compare_worked_examples(tables: str, winner: str, loser: str, pays: int) -> None:
    rec = run_json("compare", "pokdeng", winner, loser, "--tables", tables)[0]
    assert (rec["winner"], rec["net"]) == ("player", pays)
    rec = run_json("compare", "pokdeng", loser, winner, "--tables", tables)[0]
    assert (rec["winner"], rec["net"]) == ("dealer", -pays)
    assert rec["reason"]


def test_compare_straights_and_text(tables: str) -> None:
    rec = run_json(
        "compare", "pokdeng", "6C 4C 5C", "2S 3S", "--rules", "straights", "--tables", tables
    )[0]
    assert (rec["winner"], rec["net"], rec["player"]["type"]) == ("player", 5, "straight_flush")
    code, out, _ = run("compare", "pokdeng", "JS JH JD", "QS QH QD", "--tables", tables)
    assert code == 0 and "push" in out
    rec = run_json("compare", "pokdeng", "JS QH KD", "2S 2H 2D", "--tables", tables)[0]
    assert (rec["winner"], rec["net"]) == ("dealer", -2)
    assert "Tong vs Sam Lueang" in rec["reason"]


# ---------------------------------------------------------------- advise


def test_advise_against_direct_enumeration(tables: str) -> None:
    ref = Reference(False, "both")
    for k in (3, 4, 5):
        rec = run_json(
            "advise", "pokdeng", "7H 5D", "--dealer-draws-at-most", str(k), "--tables", tables
        )[0]
        stand, draw = direct_numpy(ref, ids("5D 7H"), k)
        assert Fraction(rec["ev_stand_fraction"]) == Fraction(stand, 2_763_600)
        assert Fraction(rec["ev_draw_fraction"]) == Fraction(draw, 2_763_600)
        assert rec["ev_stand"] == pytest.approx(stand / 2_763_600)
        assert rec["action"] == ("draw" if draw > stand else "stand")
        assert Fraction(rec["margin_fraction"]) == abs(Fraction(draw - stand, 2_763_600))
        assert rec["dealer_draws_at_most"] == k and rec["hand"] == ["5D", "7H"]


def test_advise_default_policy_and_pok(tables: str) -> None:
    rec = run_json("advise", "pokdeng", "7H 5D", "--tables", tables)[0]
    assert rec["dealer_draws_at_most"] == 4 and rec["rules"] == "standard"
    rec = run_json("advise", "pokdeng", "9S 9D", "--tables", tables)[0]
    assert rec["action"] == "pok" and rec["ev_stand"] == rec["ev_draw"] and rec["margin"] == 0
    code, out, _ = run("advise", "pokdeng", "7H 5D", "--tables", tables)
    assert code == 0 and "DRAW" in out and "stand" in out


def test_advise_table_and_direct_agree(tables: str) -> None:
    for hand in ("7S 10H", "5S 9S", "JS QS", "AH 4D"):
        for rules in ("standard", "straights"):
            t = play.advise(hand, 4, rules, tables)
            d = play.advise(hand, 4, play.load_rules(rules), tables)
            assert (t.action, t.ev_stand, t.ev_draw) == (d.action, d.ev_stand, d.ev_draw)


# ---------------------------------------------------------------- strategy


def test_strategy_text_and_json(tables: str) -> None:
    code, out, err = run("strategy", "pokdeng", "--tables", tables)
    assert code == 0, err
    lines = out.splitlines()
    assert "dealer draws on 4 or less" in lines[0]
    grid = [ln for ln in lines if ln[:3].strip() in ("A", "2", "10", "K")]
    assert len(grid) == 4 and all(len(ln.split()) >= 13 for ln in grid)
    assert any(ln.startswith("total 0: draw") for ln in lines)
    rec = run_json("strategy", "pokdeng", "--tables", tables, "--dealer-draws-at-most", "3")[0]
    assert rec["dealer_draws_at_most"] == 3 and len(rec["cells"]) == 169
    pok_cells = [c for c in rec["cells"] if c["action"] == "pok"]
    assert all(c["ev_stand"] == c["ev_draw"] for c in pok_cells)
    assert {c["kind"] for c in rec["cells"]} == {"pair", "suited", "offsuit"}
    assert Fraction(rec["ev_optimal_fraction"]) > Fraction(rec["ev_simple_fraction"])


def test_strategy_png(tables: str, tmp_path: Path) -> None:
    png = tmp_path / "chart.png"
    code, out, err = run(
        "strategy", "pokdeng", "--rules", "straights", "--png", str(png), "--tables", tables
    )
    assert code == 0, err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000
    assert str(png) in out


def test_overall_ev_from_tables_matches_direct(tables: str) -> None:
    for rules in ("standard", "straights"):
        for k in (3, 4, 5):
            assert play.overall(rules, k, tables) == play.overall(play.load_rules(rules), k)
    assert play.overall("standard", 4, tables)["ev_simple_fraction"] == "0/1"


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["eval", "pokdeng", "7X 2S"], "unknown card '7X'"),
        (["eval", "pokdeng", "7H 7H"], "duplicate card 7H"),
        (["eval", "pokdeng", "7H"], "has 1 cards; expected 2 or 3"),
        (["eval", "pokdeng", "7H 8H 9H 10H"], "has 4 cards"),
        (["eval", "pokdeng", "7H 8H", "--rules", "nope"], "unknown rule set 'nope'"),
        (["eval", "pokdeng", "7H 8H", "--bet", "double"], "--bet does not apply"),
        (["compare", "pokdeng", "7H 8H", "7H 2C"], "card 7H is in both hands"),
        (["compare", "pokdeng", "7H 8H", "2C"], "has 1 cards"),
        (["advise", "pokdeng", "7H 5D 2C"], "advise takes a two-card start"),
        (["advise", "pokdeng", "7H 5D", "--dealer-draws-at-most", "-1"], "'-1' must be 0 to 9"),
        (["advise", "pokdeng", "7H 5D", "--dealer-draws-at-most", "x"], "not a whole number"),
        (["strategy", "pokdeng", "--rules", "classic"], "unknown rule set 'classic'"),
    ],
)
def test_bad_input_exit_2_one_line(tables: str, argv: list[str], needle: str) -> None:
    code, out, err = run(*argv, "--tables", tables)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert needle in err, err


def test_bad_rule_files(tmp_path: Path, tables: str) -> None:
    cases = {
        "typo.toml": ('game = "pokdeng"\nstraight = true\n', "unknown field 'straight'"),
        "ace.toml": ('game = "pokdeng"\nace = "middle"\n', "field 'ace'"),
        "game.toml": ('game = "niuniu"\n', "not 'pokdeng'"),
        "broken.toml": ('game = "pokdeng"\nstraights = \n', "not valid TOML"),
    }
    for name, (text, needle) in cases.items():
        f = tmp_path / name
        f.write_text(text, encoding="utf-8")
        code, _, err = run("eval", "pokdeng", "7H 8H", "--rules", str(f), "--tables", tables)
        assert code == 2 and needle in err and err.count("\n") == 1, err


def test_missing_tables_is_a_clean_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = run("advise", "pokdeng", "7H 5D", "--tables", str(empty))
    assert code == 2 and "bull build" in err and err.count("\n") == 1


# ---------------------------------------------------------------- API


def test_repr_pastes_back(tables: str) -> None:
    e = play.evaluate("9D 9S", tables=tables)
    assert eval(repr(e)) == e
    assert str(e) == "9S 9D: Pok 8, 2 deng"
    a = play.advise("5D 7H", tables=tables)
    assert eval(repr(a)) == a
    s = play.settle("5S 4C", "9S 9D", tables=tables)
    assert (s.winner, s.net, s.banker_net) == ("player", 1, -1)
    assert str(s).startswith("player wins: Pok 9 beats Pok 8") and str(s).endswith("net +1")
    assert play.compare("5S 4C", "9S 9D", tables=tables) == s.showdown


def test_batch_api_matches_single_and_reference(tables: str) -> None:
    rng = np.random.default_rng(7)
    deals = np.array([rng.permutation(52)[:6] for _ in range(3000)])
    for rules in ("standard", "straights"):
        straights = rules == "straights"
        for size in (2, 3):
            cards = deals[:, :size]
            out = play.evaluate_batch(cards, rules, tables)
            direct = play.evaluate_batch(cards, play.load_rules(rules))
            for key in ("type", "points", "deng", "strength"):
                assert (out[key] == direct[key]).all()
            want = [ref_class(h, straights, "both") for h in cards[:200].tolist()]
            got = [
                (HandType(int(t)).label, int(p), int(d))
                for t, p, d in zip(
                    out["type"][:200], out["points"][:200], out["deng"][:200], strict=True
                )
            ]
            assert got == want
        net = play.settle_batch(deals[:, :3], deals[:, 3:5], rules, tables)
        want_net = [
            ref_settle(ref_class(p, straights, "both"), ref_class(d, straights, "both"))
            for p, d in zip(deals[:, :3].tolist(), deals[:, 3:5].tolist(), strict=True)
        ]
        assert net.tolist() == want_net
    adv = play.advise_batch(deals[:50, :2], 4, "standard", tables)
    for row in range(0, 50, 10):
        one = play.advise(deals[row, :2].tolist(), 4, "standard", tables)
        assert Fraction(int(adv["ev_draw_num"][row]), int(adv["den"][row])) == one.ev_draw


def test_batch_api_rejects_bad_rows(tables: str) -> None:
    with pytest.raises(ParseError, match="row 1: duplicate"):
        play.evaluate_batch([[0, 1], [5, 5]], tables=tables)
    with pytest.raises(ParseError, match="row 0, column 1: 52 is out of range"):
        play.evaluate_batch([[0, 52]], tables=tables)
    with pytest.raises(ParseError, match="row 0: a card is in both hands"):
        play.settle_batch([[0, 1]], [[1, 2]], tables=tables)
    with pytest.raises(ParseError, match="two-card starts"):
        play.advise_batch([[0, 1, 2]], tables=tables)


def test_a_dealer_policy_outside_the_tables_is_built_on_the_fly(
    tables: str, tmp_path: Path
) -> None:
    """advise/strategy accept any K that edge accepts: a preset's policy the committed
    tables do not hold gets its own strategy table on first use."""
    import shutil

    from solver.games.pokdeng.rules import load_rules
    from solver.games.pokdeng.strategy import DRAW_DEN, solve

    copy = tmp_path / "t"
    shutil.copytree(tables, copy, symlinks=True)
    a = play.advise("7H 5D", 7, "standard", copy)
    sol = solve(load_rules("standard"), 7)
    from solver.core.cards import parse_hand
    from solver.core.indexing import colex_rank

    r = colex_rank(parse_hand("7H 5D"))
    assert a.ev_stand == Fraction(int(sol.ev_stand_num[r]), DRAW_DEN)
    assert a.ev_draw == Fraction(int(sol.ev_draw_num[r]), DRAW_DEN)
    code, out, err = run(
        "strategy", "pokdeng", "--dealer-draws-at-most", "2", "--tables", str(copy)
    )
    assert code == 0 and "building the pokdeng_strategy table" in err and "draws on 2" in out


def test_eval_of_many_hands_equals_one_at_a_time(tables: str) -> None:
    """The batched ``bull eval`` records are the per-hand ones, in input order, for a
    mix of two- and three-card hands under a preset and a rule file."""
    import random

    from solver.core.cards import CARD_NAMES
    from solver.games.pokdeng.commands import _eval_record, cli_eval

    rng = random.Random(5)
    hands = [" ".join(rng.sample(CARD_NAMES, rng.choice((2, 3)))) for _ in range(400)]
    for rules in (None, "straights", {"name": "x", "straights": True, "ace": "low"}):
        one = [_eval_record(play.evaluate(h, rules, tables)) for h in hands]
        assert cli_eval(hands, rules, {}, tables) == one  # type: ignore[arg-type]
