"""Exact odds and edge across games: the counting core against brute force, the RULES.md
counts of the tile and card games, and the ``bull odds``/``bull edge`` commands (each
game's own figures are tested in ``tests/<game>/test_odds.py``)."""

from __future__ import annotations

import io
import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from _brute import brute_force
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.cli import main
from solver.core.indexing import all_subsets
from solver.games.pokdeng import odds as pd_odds
from solver.games.taungau import odds as tn_odds
from solver.kit import exact as an

# ------------------------------------------------------------------ fixtures


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


@pytest.mark.parametrize("dense", [True, False])
@pytest.mark.parametrize("seed", range(12))
def test_both_ways_of_counting_equal_brute_force(dense: bool, seed: int) -> None:
    """The histogram way and the row-sort way (each forced for every subset size), with
    weights one per run of equal strength (how multipliers follow a category) or not,
    negative strengths and weights, and blocks from one hand up."""
    rng = np.random.default_rng(seed)
    h = int(rng.integers(1, 6))
    deck = int(rng.integers(h, min(2 * h + 5, 13) + 1))
    hands = all_subsets(deck, h)
    n = len(hands)
    levels = int(rng.choice([1, 3, 40, 1000]))
    strength = rng.integers(-levels, levels + 1, n)
    if seed % 2:
        weight = np.stack([(strength * 3) % 5 - 1, strength % 2], axis=1)  # by run
    else:
        weight = rng.integers(-3, 9, (n, 2))
    chunk = int(rng.choice([1, 5, 64, 1 << 16]))
    got = an.disjoint_counts(hands, strength, deck, weight, chunk=chunk, dense=dense)
    lt, eq, gt, _ = brute_force(hands, strength, np.ones(n, dtype=np.int64), deck)
    assert (got.below == lt).all() and (got.equal == eq).all() and (got.above == gt).all()
    for j in range(2):
        assert (got.weight_above[:, j] == brute_force(hands, strength, weight[:, j], deck)[3]).all()


# ------------------------------------------------------------------ Niu Niu, full deck


# ------------------------------------------------------------------ odds (RULES §6)


def test_taungau_and_pokdeng_odds_match_rules_counts(other_tables: Path) -> None:
    pagat = dict(tn_odds.odds("pagat", other_tables).sections["best_score"])
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
    macau = dict(tn_odds.odds("macau", other_tables).sections["best_score"])
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
    pd = pd_odds.odds("standard", other_tables)
    two = dict(pd.sections["2_card_type_points"])
    assert two["pok_9"] == 128 and two["pok_8"] == 124
    assert dict(pd.sections["2_card_deng"])["2"] == 78 + 312  # pairs + one-suit
    assert dict(pd.sections["3_card_type"])["tong"] == 52


# ------------------------------------------------------------------ Tau Ngau


# ------------------------------------------------------------------ Pok Deng


# ------------------------------------------------------------------ CLI


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


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
        "probability_fraction": an.fraction_text(Fraction(55_510, 201_376)),
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
    assert an.exact_commission(0.05, 0.0) == Fraction(1, 20)
    assert an.exact_commission(None, 0.03) == Fraction(3, 100)
