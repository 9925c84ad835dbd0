"""The diagnosis's showdown answers per group (:class:`ShowdownGroup`) against the
answers made anew for each variant and each set of rows (``niuniu_showdown_answers``
on the rows taken out), on seeded deals written in a random order, a third of them of
equal ranks (the tie-break decides): every catalogue variant and every pair of causes
of several rule sets, on every row, on a subset, on a subset asked for again in a new
array, on a single row; a small group (every row evaluated once) and a large one (the
rows asked for). And the tie keys read per suit order from the top rank's suits against
the tie keys computed from the cards (``hands.tie_keys``), for every suit order and
tie-break; the tie keys themselves are held to the rules by the hand tests.
"""

from __future__ import annotations

from itertools import permutations
from typing import Any

import numpy as np
import pytest

from solver.games.niuniu import showdown_group as sg
from solver.games.niuniu.diagnose import niuniu_catalogue
from solver.games.niuniu.hands import tie_keys
from solver.games.niuniu.rules import load_rules
from solver.games.niuniu.showdown_group import ShowdownGroup
from solver.games.niuniu.variant_answers import niuniu_showdown_answers, sort_rows
from solver.kit.causes import Causes

FIELDS = ("winner", "net", "player_category", "banker_category")


def deals(n: int, decks: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` deals (player, banker; cards in a random written order): a third with the
    banker's ranks the player's (each suit moved one on: equal categories, the tie-break
    decides)."""
    rng = np.random.default_rng(seed)
    shoe = np.repeat(np.arange(52), decks)
    player, banker = [], []
    while len(player) < n:
        d = rng.permutation(shoe)[:10]
        p, b = d[:5], d[5:]
        if len(player) % 3 == 0:
            b = rng.permutation((p & ~3) | ((p + 1) & 3))
            if decks == 1 and np.intersect1d(p, b).size:
                continue
        player.append(p)
        banker.append(b)
    return np.array(player, dtype=np.uint8), np.array(banker, dtype=np.uint8)


def rule_sets() -> list[Any]:
    lang = load_rules({**load_rules("classic").expand(), "name": "lang"})
    return [load_rules("classic"), load_rules("casino"), load_rules("shoe6"), lang]


def variants_of(rules: Any) -> list[Any]:
    """The catalogue's showdown variants and the pairs of causes scored on showdowns."""
    catalogue = niuniu_catalogue(rules, "all", bet=rules.default_bet)
    found = Causes.of(catalogue, rules.to_data())
    pairs = [c for _, _, c in found.pairs["showdown"]]
    return [None, *(v for v in catalogue if "showdown" in v.modes), *pairs]


def same(got: Any, want: Any, what: Any) -> None:
    for f in FIELDS:
        assert np.array_equal(np.asarray(got[f]), np.asarray(want[f])), (f, what)
    for f in ("player_strength", "banker_strength"):  # the order they make, as compared
        g, w = np.asarray(got[f]), np.asarray(want[f])
        assert np.array_equal(np.sign(g[:, None] - g[None, :]), np.sign(w[:, None] - w[None, :]))


CASES = [(r, False) for r in rule_sets()] + [(r, True) for r in rule_sets() if r.decks == 1]


@pytest.mark.parametrize(
    ("rules", "large"),
    CASES,
    ids=[f"{r.name}-{'large' if large else 'small'} group" for r, large in CASES],
)
def test_a_group_answers_as_each_variant_alone(
    rules: Any, large: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(A showdown's answers are its own row's: the variant's answers on every row,
    taken at ``sel``, are its answers on the rows ``sel``.)"""
    if large:  # every set of rows evaluated on its own
        monkeypatch.setattr(sg, "_SHARE_ROWS", 10)
    n = 240
    pl, bk = deals(n, rules.decks, seed=len(rules.name))
    rng = np.random.default_rng(5)
    bet = rng.integers(0, len(rules.bets), n)  # a bet per row, and one row's own commission
    comm = np.full(n, rules.commission)
    comm[7] = 0.25
    some = np.sort(rng.choice(n, 90, replace=False))
    sets = [np.arange(n), some, np.array(some), some[::3], np.array([11])]
    group = ShowdownGroup(pl, bk, bet, comm, rules)
    one_bet, one_comm = np.zeros(n, np.int64), np.full(n, 0.05)
    uniform = ShowdownGroup(pl, bk, one_bet, one_comm, rules)
    for v in variants_of(rules):
        every = niuniu_showdown_answers(pl, bk, bet, comm, rules, v)
        for sel in sets:
            want = {f: np.asarray(a)[sel] for f, a in every.items()}
            same(group(v, sel), want, (v and v.key, len(sel)))
        want = niuniu_showdown_answers(pl, bk, one_bet, one_comm, rules, v)
        same(uniform(v), want, (v and v.key, "one bet and commission"))


def test_tie_keys_read_per_suit_order_are_the_cards_own() -> None:
    pl, bk = deals(600, 6, seed=3)  # a shoe: a rank may repeat a suit
    side = sg._Side(np.concatenate([pl, bk]))
    srt = sort_rows(side.cards)
    base = load_rules("classic").to_data()
    names = "SHDC"
    for tie_break in ("highest_card", "rank_by_rank", "none"):
        for order in permutations(names):
            rules = load_rules({**base, "tie_break": tie_break, "suit_order": list(order)})
            want = tie_keys(srt, rules)
            got = side.ties(rules.tie_break, rules.suit_strength)
            assert got.dtype == want.dtype and np.array_equal(got, want), (tie_break, order)
