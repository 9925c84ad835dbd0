"""The grab-the-banker table (issue 14): against averaging the per-hand odds over the
48 fifth cards (the per-hand EV of a classic double bet, commission off the winner's
winnings), and one four-card hand by full enumeration written here from RULES.md §3."""

from __future__ import annotations

import io
import itertools
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from solver.cli import main

SUIT_STRENGTH = np.array([3, 2, 0, 1])  # ids S H D C; classic order ♠ > ♥ > ♣ > ♦


def classic(hands: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(category 0..11, order key, multiplier: niu 7-9 x2, niu niu x3, five faces x5)."""
    ranks = hands // 4
    vals = np.minimum(ranks + 1, 10)
    bull = np.zeros(len(hands), dtype=bool)
    for t in itertools.combinations(range(5), 3):
        bull |= vals[:, list(t)].sum(axis=1) % 10 == 0
    pts = vals.sum(axis=1) % 10
    cat = np.where(bull, np.where(pts == 0, 10, pts), 0)
    cat = np.where((ranks >= 10).all(axis=1), 11, cat)
    high = (ranks * 4 + SUIT_STRENGTH[hands % 4]).max(axis=1)
    mult = np.where(cat == 11, 5, np.where(cat == 10, 3, np.where(cat >= 7, 2, 1)))
    return cat, cat * 100 + high, mult


@pytest.fixture(scope="module")
def grab(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The grab table users get (the committed one: a slow test proves a fresh build
    reproduces it) and the per-hand odds of the double bet, computed here."""
    import pyarrow.parquet as pq

    from solver.core.indexing import all_subsets
    from solver.games.niuniu.hand_odds import odds_columns
    from solver.games.niuniu.hands import evaluate_arrays
    from solver.games.niuniu.rules import load_rules
    from tests._tables import tables_for

    classic_rules = load_rules("classic")
    five = all_subsets(52, 5)
    ev = evaluate_arrays(five, classic_rules)
    table = pq.read_table(tables_for("niuniu", tmp_path_factory) / "niuniu_grab.parquet")
    dbl = load_rules({**classic_rules.to_data(), "name": "dbl", "default_bet": "double"})
    cols, note = odds_columns(dbl, five, ev["strength"], ev["category"])
    return {"table": table, "cols": cols, "note": note}


def _row(table: Any, cards: list[int]) -> dict[str, int]:
    from math import comb

    s = sorted(cards)
    r = sum(comb(c, i + 1) for i, c in enumerate(s))  # colex rank
    return {n: table.column(n)[r].as_py() for n in table.column_names}


@pytest.mark.slow
def test_grab_is_the_average_of_the_per_hand_table(grab: dict[str, Any]) -> None:
    from math import comb

    table, cols, note = grab["table"], grab["cols"], grab["note"]
    rng = np.random.default_rng(4)
    assert table.num_rows == comb(52, 4) == 270_725
    for _ in range(12):
        four = sorted(rng.choice(52, 4, replace=False).tolist())
        row = _row(table, four)
        evs, wins, cats = [], [], np.zeros(12, dtype=int)
        for x in sorted(set(range(52)) - set(four)):
            hand = sorted([*four, x])
            r5 = sum(comb(c, i + 1) for i, c in enumerate(hand))
            evs.append(Fraction(int(cols["dbl_ev_player"][r5]), note["ev_player_denominator"]))
            wins.append(Fraction(int(cols["dbl_p_win"][r5]), note["p_win_denominator"]))
            cats[classic(np.array([hand]))[0][0]] += 1
        ev = sum(evs, Fraction(0)) / 48
        assert Fraction(row["ev"], 20 * 48 * 1_533_939) == ev
        assert Fraction(row["win"], 48 * 1_533_939) == sum(wins, Fraction(0)) / 48
        labels = ["no_bull"] + [f"niu_{i}" for i in range(1, 10)] + ["niu_niu", "five_faces"]
        assert [row[f"cat_{k}"] for k in labels] == cats.tolist()
        assert row["bid"] == (4 if ev > 0 else 0)


@pytest.mark.slow
def test_one_four_card_hand_by_full_enumeration(grab: dict[str, Any]) -> None:
    """AS 10H 3C 7D: every fifth card, then every opponent hand from the 47 left; the
    loser pays the winner's multiplier, 5% off whoever wins."""
    table = grab["table"]
    four = [0, 37, 11, 26]  # AS 10H 3C 7D (id = rank * 4 + suit, S H D C)
    rest = np.array(sorted(set(range(52)) - set(four)))
    opp = rest[np.array(list(itertools.combinations(range(48), 5)))]
    _, okey, omult = classic(opp)
    total, wins = Fraction(0), 0
    for x in rest.tolist():
        keep = (opp != x).all(axis=1)
        _, hkey, hmult = classic(np.array([[*four, x]]))
        k, m = okey[keep], omult[keep]
        assert int(keep.sum()) == 1_533_939
        win, lose = k < hkey[0], k > hkey[0]
        wins += int(win.sum())
        total += Fraction(19, 20) * int(hmult[0]) * int(win.sum())
        total -= int(m[lose].sum())
    row = _row(table, four)
    assert Fraction(row["ev"], 20 * 48 * 1_533_939) == total / (48 * 1_533_939)
    assert Fraction(row["win"], 48 * 1_533_939) == Fraction(wins, 48 * 1_533_939)


def test_grab_command_errors() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert main(["grab", "taungau", "[6:6][1:1][2:2][3:3]"], out, err) == 2
    assert "niuniu only" in err.getvalue()
    err = io.StringIO()
    assert main(["grab", "niuniu", "AS 10H 3C"], out, err) == 2
    assert "4" in err.getvalue()


@pytest.mark.slow
def test_grab_command(tmp_path: Path, grab: dict[str, Any]) -> None:
    from solver.store.build import build_set

    build_set({"niuniu": lambda: {"niuniu_grab": grab["table"]}}, tmp_path)
    out, err = io.StringIO(), io.StringIO()
    code = main(["grab", "niuniu", "AS 10H 3C 7D", "--json", "--tables", str(tmp_path)], out, err)
    assert code == 0, err.getvalue()
    rec = json.loads(out.getvalue())
    assert sum(rec["category_counts"].values()) == 48 and rec["category_counts"]["no_bull"] == 0
    assert rec["category_counts"]["niu_niu"] == 4  # a 9 makes 1 + 3 + 7 + 10 + 9 = 30
    assert Fraction(rec["ev_banker_fraction"]) == Fraction(rec["ev_player_fraction"])
    assert rec["bid"] == (4 if Fraction(rec["ev_banker_fraction"]) > 0 else 0)


@pytest.mark.slow
def test_report_groups_cover_every_hand(tmp_path: Path, grab: dict[str, Any]) -> None:
    from solver.games.niuniu.grab import ev_by_visible, report_section
    from solver.kit.markdown import ReportContext
    from solver.store.build import build_set

    build_set({"niuniu": lambda: {"niuniu_grab": grab["table"]}}, tmp_path / "t")
    rows = ev_by_visible(tmp_path / "t")
    assert sum(r["hands"] for r in rows) == 270_725
    table = grab["table"]
    total = int(np.asarray(table.column("ev").to_numpy(), dtype=object).sum())
    mean = sum(Fraction(r["ev_fraction"]) * r["hands"] for r in rows) / 270_725
    assert mean == Fraction(total, 20 * 48 * 1_533_939 * 270_725)
    ctx = ReportContext(tmp_path, tmp_path / "t", plots=True, simulate_rounds=0)
    report_section(ctx)
    assert any("Grab the banker" in line for line in ctx.md) and ctx.images[0].exists()
