"""Niu Niu exact odds and edge: per-hand counts against direct enumeration on a
reduced deck and on sampled hands, RULES.md counts, and the identities the exact
figures must obey."""

from __future__ import annotations

import io
import json
from fractions import Fraction
from math import comb
from pathlib import Path

import numpy as np
import pytest
from _brute import brute_force

from solver.cli import main
from solver.core.indexing import all_subsets, colex_rank_array
from solver.games.niuniu import odds as nn_odds
from solver.games.niuniu.rules import load_rules
from solver.kit import exact as an
from solver.store.tables import open_table


def test_reduced_deck_of_real_niuniu_hands(niuniu_tables: Path) -> None:
    """14 real cards, real classic/casino strengths and double-bet multipliers: the
    inclusion-exclusion counts equal every pair compared directly."""
    cards = np.array([0, 5, 10, 15, 17, 22, 27, 30, 36, 41, 44, 46, 49, 51])
    t = open_table("niuniu", niuniu_tables)
    local = all_subsets(len(cards), 5)
    rows = colex_rank_array(cards[local], presorted=True)
    for preset, bet in (("classic", "double"), ("casino", "standard")):
        strength = t.column(f"{preset}_strength")[rows].astype(np.int64)
        mult = np.array(load_rules(preset).multiplier_row(bet))
        weight = mult[t.column(f"{preset}_category")[rows]]
        got = an.disjoint_counts(local, strength, len(cards), weight)
        lt, eq, gt, wgt = brute_force(local, strength, weight, len(cards))
        assert (got.below == lt).all() and (got.equal == eq).all()
        assert (got.above == gt).all() and (got.weight_above == wgt).all()


def direct_counts(
    player: tuple[int, ...], strength: np.ndarray, weight: np.ndarray
) -> tuple[int, int, int, int]:
    """Enumerate the 1,533,939 banker hands from the 47 other cards."""
    rest = np.array([c for c in range(52) if c not in player], dtype=np.uint8)
    banker = rest[all_subsets(47, 5)]
    rows = colex_rank_array(banker, presorted=True)
    s = strength[rows]
    mine = strength[colex_rank_array(np.array([player], dtype=np.uint8))[0]]
    return (
        int((s < mine).sum()),
        int((s == mine).sum()),
        int((s > mine).sum()),
        int(weight[rows][s > mine].sum()),
    )


SAMPLE_HANDS = [
    (0, 1, 2, 3, 4),  # AS AH AD AC 2S: four of a kind / five small bull
    (40, 44, 45, 48, 49),  # J Q Q K K: five faces
    (12, 25, 30, 41, 51),  # 4 7 8 J K: no bull (RULES example)
    (47, 48, 49, 50, 51),  # the top of the colex order
]


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["classic", "casino"])
def test_per_hand_counts_equal_direct_enumeration(preset: str, niuniu_tables: Path) -> None:
    rules = load_rules(preset)
    mu = nn_odds.niuniu_matchups(rules, niuniu_tables)
    t = open_table("niuniu", niuniu_tables)
    strength = t.column(f"{preset}_strength").astype(np.int64)
    rng = np.random.default_rng(5)
    hands = SAMPLE_HANDS + [
        tuple(sorted(rng.choice(52, 5, replace=False).tolist())) for _ in range(3)
    ]
    for j, bet in enumerate(rules.bets):
        weight = np.array(rules.multiplier_row(bet))[t.column(f"{preset}_category")]
        for hand in hands:
            row = int(colex_rank_array(np.array([hand], dtype=np.uint8))[0])
            lt, eq, gt, wgt = direct_counts(hand, strength, weight)
            assert (mu.below[row], mu.equal[row], mu.above[row]) == (lt, eq, gt), hand
            assert mu.mult_above[row, j] == wgt, (hand, bet)


@pytest.mark.slow
def test_classic_exact_symmetries(niuniu_tables: Path) -> None:
    """Both hands come from one deck and are exchangeable, and no two disjoint hands tie
    (RULES §3): P(win) = P(loss) = 1/2, and without commission every bet is exactly fair.
    With commission c the player loses c of his winnings: EV = -c · E[winnings]."""
    total = 2598960 * 1533939
    for bet in ("equal", "double"):
        fair = nn_odds.niuniu_edge("classic", bet, 0, niuniu_tables)
        assert fair.ev == 0
        assert fair.p_win == fair.p_loss == Fraction(1, 2) and fair.p_push == 0
        assert fair.pairs == total
        assert sum(fair.winner_category.values()) == 1
    equal = nn_odds.niuniu_edge("classic", "equal", None, niuniu_tables)
    assert equal.commission == Fraction(1, 20)  # the preset's 5 %
    assert equal.ev == Fraction(-1, 40)  # -c · P(win), m = 1
    double5 = nn_odds.niuniu_edge("classic", "double", 0.05, niuniu_tables)
    double3 = nn_odds.niuniu_edge("classic", "double", 0.03, niuniu_tables)
    assert double5.ev / double3.ev == Fraction(5, 3)  # linear in c through 0
    assert -Fraction(1, 40) > double5.ev > -Fraction(5, 40)  # multipliers 1..5
    # the player's winning hands follow the category counts of RULES §6
    assert equal.hands_by_category["niu_niu"] == 191_808 - 792
    assert equal.hands_by_category["five_faces"] == 792
    assert equal.hands_by_category["no_bull"] == 872_128


@pytest.mark.slow
def test_casino_symmetries_and_rule_file_with_pushes(
    niuniu_tables: Path, rule_tables: Path, tmp_path: Path
) -> None:
    casino = nn_odds.niuniu_edge("casino", None, 0, niuniu_tables)
    assert casino.ev == 0 and casino.p_win == casino.p_loss and casino.p_push == 0
    # a rule file where equal categories push: ties between disjoint hands now happen
    data = load_rules("classic").to_data() | {"name": "pushy", "tie_break": "none"}
    path = tmp_path / "pushy.json"
    path.write_text(json.dumps(data))
    rules = load_rules(str(path))
    res = nn_odds.niuniu_edge(rules, "double", 0, rule_tables)
    assert res.ev == 0 and res.p_win == res.p_loss and res.p_push > 0
    assert res.p_win + res.p_loss + res.p_push == 1
    # per-hand counts of a tying rule set, against direct enumeration
    from solver.games.niuniu.hands import evaluate_arrays

    ev = evaluate_arrays(all_subsets(52, 5), rules)
    strength = ev["strength"].astype(np.int64)
    weight = np.array(rules.multiplier_row("double"))[ev["category"]]
    mu = nn_odds.niuniu_matchups(rules, rule_tables)
    for hand in SAMPLE_HANDS[1:3]:
        row = int(colex_rank_array(np.array([hand], dtype=np.uint8))[0])
        lt, eq, gt, wgt = direct_counts(hand, strength, weight)
        assert (mu.below[row], mu.equal[row], mu.above[row]) == (lt, eq, gt)
        assert mu.mult_above[row, rules.bets.index("double")] == wgt


def test_niuniu_odds_match_rules_counts(niuniu_tables: Path) -> None:
    res = nn_odds.odds("classic", niuniu_tables)
    pts = dict(res.sections["points"])
    assert pts["no_bull"] == 872_128 and pts["niu_niu"] == 191_808 and pts["niu_5"] == 177_424
    assert all(pts[f"niu_{p}"] == 171_304 for p in (1, 3, 7, 9))
    assert all(pts[f"niu_{p}"] == 168_096 for p in (2, 4, 6, 8))
    assert dict(res.sections["specials_before_precedence"]) == {
        "five_faces": 792,
        "four_faces": 1980,
        "four_of_a_kind": 624,
        "five_small_bull": 776,
        "straight_flush": 36,
        # exactly three of one rank (13 ranks, 4 ways, 2 of the 48 others) or four
        "three_of_a_kind": 13 * 4 * comb(48, 2) + 13 * 48,
        "straight": 9 * 4**5,  # A-5 up to 9-K, any suits
    }
    assert sum(n for _, n in res.sections["category"]) == 2_598_960
    assert res.probability("points", "no_bull") == Fraction(872_128, 2_598_960)


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.slow
def test_cli_edge_niuniu_json(niuniu_tables: Path) -> None:
    code, out, _ = run(
        "edge", "niuniu", "--bet", "double", "--json", "--tables", str(niuniu_tables)
    )
    assert code == 0
    rec = json.loads(out)
    for key in (
        "ev",
        "ev_fraction",
        "p_win",
        "p_loss",
        "p_push",
        "winner_category",
        "rules",
        "bet",
        "commission",
    ):
        assert key in rec
    assert rec["rules"] == "classic" and rec["bet"] == "double" and rec["commission"] == 0.05
    assert Fraction(rec["ev_fraction"]) == Fraction(rec["ev_fraction"]).limit_denominator(
        2598960 * 1533939 * 20
    )
    assert abs(float(Fraction(rec["ev_fraction"])) - rec["ev"]) < 1e-15
    code, out, _ = run("edge", "niuniu", "--tables", str(niuniu_tables))
    assert code == 0 and "-1/40" in out
