"""Exact odds and edge: the counting core against brute force, per-hand counts against
direct enumeration, RULES.md counts, and the identities the exact figures must obey."""

from __future__ import annotations

import io
import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import analysis as an
from solver.cli import main
from solver.indexing import all_subsets, colex_rank_array
from solver.niuniu import load_rules
from solver.tables import open_table

# ------------------------------------------------------------------ fixtures


@pytest.fixture(scope="module")
def other_tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Tau Ngau and Pok Deng tables, built into a temporary directory."""
    from solver.build import build

    out = tmp_path_factory.mktemp("analysis_tables")
    build(["taungau", "pokdeng"], tables=out)
    return out


def brute_force(
    hands: np.ndarray, strength: np.ndarray, weight: np.ndarray, deck: int
) -> tuple[np.ndarray, ...]:
    """Every ordered pair of hands, directly: disjoint ones compared by strength."""
    member = np.zeros((len(hands), deck), dtype=np.int64)
    member[np.arange(len(hands))[:, None], hands] = 1
    disjoint = (member @ member.T) == 0
    lt = disjoint & (strength[None, :] < strength[:, None])
    eq = disjoint & (strength[None, :] == strength[:, None])
    gt = disjoint & (strength[None, :] > strength[:, None])
    return lt.sum(1), eq.sum(1), gt.sum(1), (gt * weight[None, :]).sum(1)


# ------------------------------------------------------------------ the counting core


@pytest.mark.parametrize(
    "deck,h,levels", [(10, 2, 7), (12, 3, 40), (13, 5, 9), (14, 5, 2000), (11, 4, 1)]
)
def test_disjoint_counts_equal_brute_force(deck: int, h: int, levels: int) -> None:
    rng = np.random.default_rng(deck * 100 + h)
    hands = all_subsets(deck, h)
    strength = rng.integers(0, levels, len(hands))  # few levels: many ties
    weight = rng.integers(0, 7, len(hands))
    got = an.disjoint_counts(hands, strength, deck, weight, chunk=64)
    lt, eq, gt, wgt = brute_force(hands, strength, weight, deck)
    assert got.total == len(all_subsets(deck - h, h))
    assert (got.below == lt).all() and (got.equal == eq).all() and (got.above == gt).all()
    assert (got.weight_above == wgt).all()


@settings(max_examples=25, deadline=None)
@given(
    deck=st.integers(6, 11),
    h=st.integers(1, 3),
    seed=st.integers(0, 2**32 - 1),
    m=st.integers(0, 2),
)
def test_disjoint_counts_property(deck: int, h: int, seed: int, m: int) -> None:
    rng = np.random.default_rng(seed)
    hands = all_subsets(deck, h)
    strength = rng.integers(-5, 5, len(hands))
    weight = rng.integers(0, 4, (len(hands), m))
    got = an.disjoint_counts(
        hands, strength, deck, weight if m else None, chunk=int(rng.integers(1, 50))
    )
    for j in range(m):
        lt, eq, gt, wgt = brute_force(hands, strength, weight[:, j], deck)
        assert (got.weight_above[:, j] == wgt).all()
    lt, eq, gt, _ = brute_force(hands, strength, np.ones(len(hands), dtype=np.int64), deck)
    assert (got.below == lt).all() and (got.equal == eq).all() and (got.above == gt).all()


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


# ------------------------------------------------------------------ Niu Niu, full deck


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
    mu = an.niuniu_matchups(rules, niuniu_tables)
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
        fair = an.niuniu_edge("classic", bet, 0, niuniu_tables)
        assert fair.ev == 0
        assert fair.p_win == fair.p_loss == Fraction(1, 2) and fair.p_push == 0
        assert fair.pairs == total
        assert sum(fair.winner_category.values()) == 1
    equal = an.niuniu_edge("classic", "equal", None, niuniu_tables)
    assert equal.commission == Fraction(1, 20)  # the preset's 5 %
    assert equal.ev == Fraction(-1, 40)  # -c · P(win), m = 1
    double5 = an.niuniu_edge("classic", "double", 0.05, niuniu_tables)
    double3 = an.niuniu_edge("classic", "double", 0.03, niuniu_tables)
    assert double5.ev / double3.ev == Fraction(5, 3)  # linear in c through 0
    assert -Fraction(1, 40) > double5.ev > -Fraction(5, 40)  # multipliers 1..5
    # the player's winning hands follow the category counts of RULES §6
    assert equal.hands_by_category["niu_niu"] == 191_808 - 792
    assert equal.hands_by_category["five_faces"] == 792
    assert equal.hands_by_category["no_bull"] == 872_128


@pytest.mark.slow
def test_casino_symmetries_and_rule_file_with_pushes(niuniu_tables: Path, tmp_path: Path) -> None:
    casino = an.niuniu_edge("casino", None, 0, niuniu_tables)
    assert casino.ev == 0 and casino.p_win == casino.p_loss and casino.p_push == 0
    # a rule file where equal categories push: ties between disjoint hands now happen
    data = load_rules("classic").to_data() | {"name": "pushy", "tie_break": "none"}
    path = tmp_path / "pushy.json"
    path.write_text(json.dumps(data))
    rules = load_rules(str(path))
    res = an.niuniu_edge(rules, "double", 0, niuniu_tables)
    assert res.ev == 0 and res.p_win == res.p_loss and res.p_push > 0
    assert res.p_win + res.p_loss + res.p_push == 1
    # per-hand counts of a tying rule set, against direct enumeration
    from solver.niuniu import evaluate_arrays

    ev = evaluate_arrays(all_subsets(52, 5), rules)
    strength = ev["strength"].astype(np.int64)
    weight = np.array(rules.multiplier_row("double"))[ev["category"]]
    mu = an.niuniu_matchups(rules, niuniu_tables)
    for hand in SAMPLE_HANDS[1:3]:
        row = int(colex_rank_array(np.array([hand], dtype=np.uint8))[0])
        lt, eq, gt, wgt = direct_counts(hand, strength, weight)
        assert (mu.below[row], mu.equal[row], mu.above[row]) == (lt, eq, gt)
        assert mu.mult_above[row, rules.bets.index("double")] == wgt


# ------------------------------------------------------------------ odds (RULES §6)


def test_niuniu_odds_match_rules_counts(niuniu_tables: Path) -> None:
    res = an.odds("niuniu", "classic", niuniu_tables)
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
    }
    assert sum(n for _, n in res.sections["category"]) == 2_598_960
    assert res.probability("points", "no_bull") == Fraction(872_128, 2_598_960)


def test_taungau_and_pokdeng_odds_match_rules_counts(other_tables: Path) -> None:
    pagat = dict(an.odds("taungau", "pagat", other_tables).sections["best_score"])
    assert pagat["no_bull"] == 55_510
    assert [pagat[str(s)] for s in range(10)] == [
        10_660,
        12_226,
        11_916,
        14_168,
        13_230,
        13_864,
        16_444,
        17_840,
        18_220,
        17_298,
    ]
    macau = dict(an.odds("taungau", "macau", other_tables).sections["best_score"])
    assert [macau[str(s)] for s in range(1, 11)] == [
        12_226,
        11_916,
        10_636,
        13_230,
        13_864,
        16_300,
        14_748,
        18_220,
        17_298,
        17_428,
    ]
    pd = an.odds("pokdeng", "standard", other_tables)
    two = dict(pd.sections["2_card_type_points"])
    assert two["pok_9"] == 128 and two["pok_8"] == 124
    assert dict(pd.sections["2_card_deng"])["2"] == 78 + 312  # pairs + one-suit
    assert dict(pd.sections["3_card_type"])["tong"] == 52


# ------------------------------------------------------------------ Tau Ngau


def test_taungau_pagat_is_symmetric_and_counts_equal_enumeration(other_tables: Path) -> None:
    res = an.taungau_edge("pagat", None, other_tables)
    assert res.ev_always_declare == res.ev_optimal == 0  # even money, exchangeable
    assert res.p_win == res.p_loss and res.p_win + res.p_push + res.p_loss == 1
    # inclusion-exclusion over tiles against direct enumeration for sample hands
    strength = open_table("taungau", other_tables).column("pagat_strength").astype(np.int64)
    hands = all_subsets(32, 5)
    c = an.disjoint_counts(hands, strength, 32)
    for row in (0, 777, 123_456, len(hands) - 1):
        rest = np.array([x for x in range(32) if x not in hands[row]], dtype=np.uint8)
        s = strength[colex_rank_array(rest[all_subsets(27, 5)], presorted=True)]
        mine = strength[row]
        assert (c.below[row], c.equal[row], c.above[row]) == (
            (s < mine).sum(),
            (s == mine).sum(),
            (s > mine).sum(),
        )


def test_taungau_macau_edge(other_tables: Path) -> None:
    res = an.taungau_edge("macau", "last", other_tables)
    # knowing more can only help: first >= last >= always declaring
    assert res.ev_optimal_first >= res.ev_optimal_last >= res.ev_always_declare
    assert res.ev_optimal == res.ev_optimal_last
    assert an.taungau_edge("macau", "first", other_tables).ev_optimal == res.ev_optimal_first
    # RULES §4: declining is right from banker score p + 5, so only for p <= 5
    assert res.decline_from == {p: (p + 5 if p <= 5 else None) for p in range(1, 11)}
    # the outcome probabilities by inclusion-exclusion agree with the banker distributions
    strength = open_table("taungau", other_tables).column("macau_strength").astype(np.int64)
    c = an.disjoint_counts(all_subsets(32, 5), strength, 32)
    has = strength > 0
    assert res.p_win == Fraction(int(c.below[has].sum()), res.pairs)
    assert res.p_push == Fraction(int(c.equal[has].sum()), res.pairs)
    # a no-bull player pays 4 whatever the banker holds
    assert res.ev_by_score["no_bull"] == -4
    # the Tau Ngau module's own per-hand EV columns (a separate implementation) agree
    t = open_table("taungau", other_tables)
    for column, ev in (
        ("macau_ev_declare_num", res.ev_always_declare),
        ("macau_ev_first_num", res.ev_optimal_first),
        ("macau_ev_last_num", res.ev_optimal_last),
    ):
        assert Fraction(int(t.column(column).astype(np.int64).sum()), res.pairs) == ev


def test_taungau_rule_file_without_table(tmp_path: Path, other_tables: Path) -> None:
    from solver.taungau import load_rules as tn_rules

    data = tn_rules("macau").to_data() | {"name": "macau3", "no_bull_pays": 3}
    path = tmp_path / "macau3.json"
    path.write_text(json.dumps(data))
    res = an.taungau_edge(str(path), "first", other_tables)
    assert res.rules == "macau3"
    # paying 3, declining is right when the bull would lose more than 3: from p + 4
    assert res.decline_from[4] == 8 and res.decline_from[6] == 10
    assert res.decline_from[7] is None
    assert res.ev_by_score["no_bull"] == -3


# ------------------------------------------------------------------ Pok Deng


def test_pokdeng_simple_policy_mirrors_the_dealer() -> None:
    """Heads-up with the dealer's own policy (draw on 4 or less) the game is symmetric:
    the simple player's EV is exactly 0; optimal drawing can only do better."""
    for preset in ("standard", "straights"):
        res = an.pokdeng_edge(preset, 4)
        assert res.ev_simple == 0
        assert res.ev_optimal > 0
    for k in (3, 5):
        res = an.pokdeng_edge("standard", k)
        assert res.ev_optimal >= res.ev_simple


def test_pokdeng_edge_agrees_with_the_strategy_table(other_tables: Path) -> None:
    meta = open_table("pokdeng_strategy", other_tables).meta["extra"]["overall_ev"]
    for preset in ("standard", "straights"):
        for k in (3, 4, 5):
            res = an.pokdeng_edge(preset, k)
            rec = meta[preset][str(k)]
            assert res.ev_optimal == Fraction(rec["ev_optimal_fraction"])
            assert res.ev_simple == Fraction(rec["ev_simple_fraction"])


# ------------------------------------------------------------------ CLI


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


def test_cli_edge_other_games_json(other_tables: Path) -> None:
    code, out, _ = run(
        "edge",
        "taungau",
        "--rules",
        "macau",
        "--banker-reveals",
        "first",
        "--json",
        "--tables",
        str(other_tables),
    )
    rec = json.loads(out)
    assert code == 0 and rec["rules"] == "macau" and rec["banker_reveals"] == "first"
    assert {"ev_always_declare", "ev_optimal", "ev_optimal_fraction"} <= set(rec)
    code, out, _ = run(
        "edge", "taungau", "--rules", "pagat", "--json", "--tables", str(other_tables)
    )
    rec = json.loads(out)
    assert {"p_win", "p_push", "p_loss", "ev_optimal", "ev_always_declare"} <= set(rec)
    code, out, _ = run("edge", "pokdeng", "--dealer-draws-at-most", "5", "--json")
    rec = json.loads(out)
    assert code == 0 and rec["dealer_draws_at_most"] == 5 and rec["rules"] == "standard"
    assert {"ev_optimal", "ev_simple", "ev_optimal_fraction", "ev_simple_fraction"} <= set(rec)


def test_cli_odds(other_tables: Path) -> None:
    code, out, _ = run("odds", "taungau", "--json", "--tables", str(other_tables))
    rec = json.loads(out)
    assert code == 0 and rec["rules"] == "macau"
    assert rec["sections"]["best_score"][0] == {
        "label": "no_bull",
        "count": 55_510,
        "probability": 55_510 / 201_376,
        "fraction": an.fraction_text(Fraction(55_510, 201_376)),
    }
    code, out, _ = run("odds", "pokdeng", "--tables", str(other_tables))
    assert code == 0 and "tong" in out


@pytest.mark.parametrize(
    "argv,named",
    [
        (("edge", "niuniu", "--bet", "standard"), "standard"),  # classic has no such bet
        (("edge", "niuniu", "--commission", "1.5"), "1.5"),
        (("edge", "niuniu", "--commission", "-0.01"), "-0.01"),
        (("edge", "niuniu", "--dealer-draws-at-most", "4"), "--dealer-draws-at-most"),
        (("edge", "niuniu", "--rules", "nonsense"), "nonsense"),
        (("edge", "pokdeng", "--dealer-draws-at-most", "12"), "12"),
        (("edge", "pokdeng", "--bet", "equal"), "--bet"),
        (("edge", "taungau", "--commission", "0.05"), "--commission"),
        (("odds", "taungau", "--rules", "classic"), "classic"),
    ],
)
def test_cli_bad_input_exits_2(argv: tuple[str, ...], named: str, tmp_path: Path) -> None:
    code, out, err = run(*argv, "--tables", str(tmp_path))
    assert code == 2 and out == ""
    assert err.startswith("bull: error:") and err.count("\n") == 1 and named in err


def test_fraction_text_and_commission() -> None:
    assert an.fraction_text(Fraction(6, -8)) == "-3/4"
    assert an._commission(0.05, 0.0) == Fraction(1, 20)
    assert an._commission(None, 0.03) == Fraction(3, 100)
