"""Niu Niu per-hand odds columns (issue 14) against direct enumeration of every
opponent hand from the other 47 cards, written here from RULES.md §3 (classic ranking,
double bet, 5% commission), with the exact fractions; and the ``bull eval`` fields."""

from __future__ import annotations

import io
import itertools
import json
from fractions import Fraction

import numpy as np
import pytest

from solver.cli import main

SUIT_STRENGTH = np.array([3, 2, 0, 1])  # ids S H D C; classic order ♠ > ♥ > ♣ > ♦


def classic_keys(hands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(key, double-bet multiplier) of each hand: the key orders category, then the
    highest card (rank, then suit)."""
    ranks = hands // 4
    vals = np.minimum(ranks + 1, 10)
    bull = np.zeros(len(hands), dtype=bool)
    for a, b, c in itertools.combinations(range(5), 3):
        bull |= (vals[:, a] + vals[:, b] + vals[:, c]) % 10 == 0
    pts = vals.sum(axis=1) % 10
    cat = np.where(bull, np.where(pts == 0, 10, pts), 0)
    cat = np.where((ranks >= 10).all(axis=1), 11, cat)
    high = (ranks * 4 + SUIT_STRENGTH[hands % 4]).max(axis=1)
    mult = np.where(cat == 11, 5, np.where(cat == 10, 3, np.where(cat >= 7, 2, 1)))
    return cat * 100 + high, mult


@pytest.fixture(scope="module")
def double_rules_odds() -> tuple[object, dict[str, np.ndarray], dict[str, object]]:
    from solver.core.indexing import all_subsets
    from solver.games.niuniu.hand_odds import odds_columns
    from solver.games.niuniu.hands import evaluate_arrays
    from solver.games.niuniu.rules import load_rules

    rules = load_rules({**load_rules("classic").to_data(), "name": "dbl", "default_bet": "double"})
    cards = all_subsets(52, 5)
    ev = evaluate_arrays(cards, rules)
    cols, note = odds_columns(rules, cards, ev["strength"], ev["category"])
    return cards, cols, note


@pytest.mark.slow
def test_odds_columns_against_every_opponent(double_rules_odds) -> None:  # type: ignore[no-untyped-def]
    cards, cols, note = double_rules_odds
    combos = np.fromiter(
        itertools.chain.from_iterable(itertools.combinations(range(47), 5)), np.int64
    ).reshape(-1, 5)
    assert note["opponent_hands"] == len(combos) == 1_533_939
    rng = np.random.default_rng(14)
    rows = [*rng.choice(len(cards), 3, replace=False).tolist(), 2_598_959]  # incl. J Q K K K
    for row in rows:
        hand = cards[row].astype(np.int64)
        rest = np.setdiff1d(np.arange(52), hand)
        opp = rest[combos]
        okey, omult = classic_keys(opp)
        hkey, hmult = classic_keys(hand[None, :])
        win, lose = okey < hkey[0], okey > hkey[0]
        n = len(opp)
        m = int(hmult[0])
        p_win = Fraction(int(win.sum()), n)
        ev_player = (Fraction(19, 20) * m * int(win.sum()) - int(omult[lose].sum())) / n
        ev_banker = Fraction(m * int(win.sum()) - int(omult[lose].sum()), n)
        assert Fraction(int(cols["dbl_p_win"][row]), note["p_win_denominator"]) == p_win
        assert Fraction(int(cols["dbl_ev_player"][row]), note["ev_player_denominator"]) == ev_player
        assert Fraction(int(cols["dbl_ev_banker"][row]), note["ev_banker_denominator"]) == ev_banker


def test_eval_prints_the_odds(tmp_path_factory: pytest.TempPathFactory) -> None:
    """``bull eval`` reads the preset table's columns: the classic equal bet
    (multiplier 1), so EV as banker = P(win) - P(loss) and as player 0.95 P(win) - P(loss)."""
    from tests._tables import tables_for

    tmp_path = tables_for("niuniu", tmp_path_factory)
    out, err = io.StringIO(), io.StringIO()
    assert (
        main(["eval", "niuniu", "JS QS KD 5H 5D", "--json", "--tables", str(tmp_path)], out, err)
        == 0
    )
    rec = json.loads(out.getvalue())
    p = Fraction(rec["p_win_fraction"])
    assert rec["p_win"] == pytest.approx(float(p))
    assert Fraction(rec["ev_banker_fraction"]) == 2 * p - 1  # no ties from one deck
    assert Fraction(rec["ev_player_fraction"]) == Fraction(19, 20) * p - (1 - p)
    out = io.StringIO()
    main(["eval", "niuniu", "JS QS KD 5H 5D", "--tables", str(tmp_path)], out, err)
    assert "P(win) " in out.getvalue() and "EV as player" in out.getvalue()
