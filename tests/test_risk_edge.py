"""`bull edge`'s risk figures (issue 25): the whole distribution of the player's net.

Checked against brute force written here: every ordered pair of disjoint hands of the
Niu Niu sub-deck A..4, and every deal (start, dealer start, both draw cards) of the full
52-card deck for Pok Deng under the exact optimal strategy; the variance against a
direct sum over every pair or deal; the mean against today's exact edge for every game,
preset and bet.
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from io import StringIO

import numpy as np
import pytest

from solver.kit.risk import NetDistribution, z_two_sided
from tests.audit.test_net import classic_hand


def _check_moments(d: NetDistribution, nets: list[tuple[Fraction, int]]) -> None:
    """Mean and variance of ``d`` against a direct sum over (net, multiplicity) rows."""
    total = sum(n for _, n in nets)
    mean = sum(a * n for a, n in nets) / total
    var = sum((a - mean) ** 2 * n for a, n in nets) / total
    assert d.mean == mean and d.variance == var
    assert d.sd == pytest.approx(float(var) ** 0.5)


def test_distribution_type() -> None:
    d = NetDistribution.of(
        [(Fraction(2), Fraction(1, 4)), (Fraction(-1), Fraction(1, 2)), (2, Fraction(1, 4))]
    )
    assert d.points == ((-1, Fraction(1, 2)), (2, Fraction(1, 2)))
    assert d.mean == Fraction(1, 2) and d.variance == Fraction(9, 4)
    assert d.max_loss == 1 and d.max_win == 2
    assert d.volatility_index()["99"] == pytest.approx(2.5758293 * 1.5)
    assert d.negated().points == ((-2, Fraction(1, 2)), (1, Fraction(1, 2)))
    assert NetDistribution.from_json(d.to_json()) == d
    with pytest.raises(ValueError, match="sum to 1"):
        NetDistribution.of([(Fraction(1), Fraction(1, 3))])
    only_wins = NetDistribution.of([(Fraction(1), Fraction(1))])
    assert only_wins.max_loss == 0 and only_wins.variance == 0
    assert z_two_sided(90) == pytest.approx(1.6448536)


def test_niuniu_sub_deck_against_every_pair() -> None:
    """Sub-deck A..4 (16 cards), preset classic, double bet, 5 % commission: the edge's
    distribution against every ordered pair of disjoint hands settled from the rule
    text (a win pays the winner's multiplier less 5 %, a loss the banker's)."""
    from solver.games.niuniu.odds import matchups_of
    from solver.games.niuniu.risk import edge_with_net
    from solver.games.niuniu.rules import load_rules
    from solver.games.niuniu.source import rules_table

    deck, n = 16, 4368
    r = load_rules("classic")
    t = rules_table(r, None)
    hands = np.stack([np.asarray(t.column(f"c{i}"))[:n] for i in range(5)], axis=1)
    strength = np.asarray(t.column("classic_strength"))[:n].astype(np.int64)
    category = np.asarray(t.column("classic_category"))[:n].astype(np.uint8)
    mu = matchups_of(r, hands.astype(np.uint8), strength, category, deck)
    res = edge_with_net(r, mu, "double", Fraction(1, 20))
    assert res.net is not None
    info = [classic_hand(h) for h in itertools.combinations(range(deck), 5)]
    key = np.array([rk * 1000 + hi[0] * 10 + hi[1] for rk, _m, hi in info])
    mult = np.array([m for _r, m, _hi in info])
    bits = np.array([sum(1 << c for c in h) for h in itertools.combinations(range(deck), 5)])
    counts: dict[Fraction, int] = {}
    for i in range(len(info)):
        ok = (bits & bits[i]) == 0
        win = int((ok & (key[i] > key)).sum())
        paid = Fraction(19, 20) * int(mult[i])
        counts[paid] = counts.get(paid, 0) + win
        for m, k in zip(*np.unique(mult[ok & (key[i] < key)], return_counts=True), strict=True):
            counts[Fraction(-int(m))] = counts.get(Fraction(-int(m)), 0) + int(k)
    total = sum(counts.values())
    assert total == res.pairs
    assert res.net.points == tuple((a, Fraction(k, total)) for a, k in sorted(counts.items()) if k)
    _check_moments(res.net, list(counts.items()))
    assert res.net.mean == res.ev
    # no Niu Niu in A..4 (two cards cannot make ten): the top multiplier is niu 7-9's 2
    assert res.net.max_loss == 2 and res.net.max_win == Fraction(19, 10)


def _pokdeng_classes(impl: object) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every two-card hand and then every three-card one (colex order, as the strategy is
    indexed) as a class of the cause tests' rule-text implementation (type, points,
    deng, two-card kind; :mod:`pokdeng.causes_model`, no solver code): each hand's class,
    the player's net for every (player's class, dealer's class), and each two-card
    hand's points and whether it is Pok."""
    from pokdeng import causes_model as pm

    from solver.core.cards import CARD_NAMES  # the card ids' names (notation only)
    from solver.core.indexing import all_subsets

    hands = [tuple(CARD_NAMES[c] for c in h) for k in (2, 3) for h in all_subsets(52, k)]
    found = [pm.classify(impl, h) for h in hands]  # type: ignore[arg-type]
    first: dict[tuple[object, ...], int] = {}
    for i, c in enumerate(found):
        first.setdefault(c, i)
    number = {c: j for j, c in enumerate(first)}
    reps = [hands[i] for i in first.values()]
    nets = [[pm.settle(impl, p, q) for q in reps] for p in reps]  # type: ignore[arg-type]
    amounts = np.array(nets, dtype=np.int64)
    cls = np.array([number[c] for c in found], dtype=np.int64)
    two = found[:1326]
    points2 = np.array([c[1] for c in two], dtype=np.int64)
    pok2 = np.array([c[0] == "pok" for c in two])
    return cls, amounts, points2, pok2


def _pokdeng_brute_force(impl: object, draws: np.ndarray, k: int) -> dict[Fraction, int]:
    """Every deal of the full deck: the player's start P (one per suit orbit, weighted by
    the orbit's size: the rules and the strategy are suit-blind), the dealer's start D
    from the 50 left, the player's card x from the 48 left and the dealer's c from the 47
    left. A Pok on either side settles the two-card hands; otherwise the player draws x
    when his strategy says so and the dealer draws c on a total of k or less. Hands are
    classed and settled by the rule text (:func:`_pokdeng_classes`)."""
    from solver.core.indexing import all_subsets

    two = all_subsets(52, 2).astype(np.int64)  # colex order, as the strategy is indexed
    three = all_subsets(52, 3).astype(np.int64)
    cls, amounts, p2, pok2 = _pokdeng_classes(impl)
    n_cls = len(amounts)
    id2 = np.full((52, 52), -1, dtype=np.int64)
    id2[two[:, 0], two[:, 1]] = id2[two[:, 1], two[:, 0]] = np.arange(len(two))
    cls2, cls3 = cls[: len(two)], cls[len(two) :].astype(np.int32)
    c3 = np.full((52, 52, 52), -1, dtype=np.int32)  # a three-card hand's class, any order
    for perm in itertools.permutations(range(3)):
        c3[three[:, perm[0]], three[:, perm[1]], three[:, perm[2]]] = cls3
    # suit orbits of the starts (the strategy is checked to be suit-blind)
    canon = np.arange(len(two))
    for perm in itertools.permutations(range(4)):
        m = np.array([(c >> 2) * 4 + perm[c & 3] for c in range(52)])
        img = id2[m[two[:, 0]], m[two[:, 1]]]
        assert (draws[img] == draws).all()
        canon = np.minimum(canon, img)
    reps, weight = np.unique(canon, return_counts=True)
    pairs = np.zeros(n_cls * n_cls, dtype=np.int64)  # deals by (player's, dealer's) class
    others = np.array([[c for c in range(48) if c != j] for j in range(48)])  # (48, 47)
    at = np.array(list(itertools.combinations(range(50), 2)))  # 1225 dealer starts
    keep = np.ones((len(at), 50), dtype=bool)
    keep[np.arange(len(at))[:, None], at] = False
    for rep, w in zip(reps.tolist(), weight.tolist(), strict=True):
        a, b = two[rep]
        left = np.array([c for c in range(52) if c not in (a, b)])
        dl = left[at]
        di = id2[dl[:, 0], dl[:, 1]]
        rest = np.broadcast_to(left, keep.shape)[keep].reshape(len(at), 48)  # the 48 left
        any_pok = pok2[rep] | pok2[di]  # (1225,)
        p_draw = bool(draws[rep]) & ~any_pok
        d_draw = ~any_pok & (p2[di] <= k)
        pfin = np.where(p_draw[:, None], c3[a, b, rest], cls2[rep])  # (1225, 48): by x
        dfin = np.where(
            d_draw[:, None], c3[dl[:, 0, None], dl[:, 1, None], rest], cls2[di][:, None]
        ).astype(np.int32)  # (1225, 48): by the dealer's c
        # (1225, 48, 47): the dealer's final hand for each player's x and c of the 47 left
        code = pfin[:, :, None] * n_cls + dfin[:, others]
        pairs += w * np.bincount(code.ravel(), minlength=len(pairs))
    counts: dict[Fraction, int] = {}
    for at in np.flatnonzero(pairs).tolist():
        v = Fraction(amounts[at // n_cls, at % n_cls].item())
        counts[v] = counts.get(v, 0) + int(pairs[at])
    return counts


@pytest.mark.slow
def test_pokdeng_full_deck_against_every_deal() -> None:
    from solver.games.pokdeng.risk import edge as pokdeng_edge
    from solver.games.pokdeng.rules import load_rules
    from solver.games.pokdeng.strategy import Action, solve

    r = load_rules("standard")
    res = pokdeng_edge(r)
    assert res.net is not None
    draws = np.asarray(solve(r).action == Action.DRAW)
    from pokdeng import causes_model as pm

    counts = _pokdeng_brute_force(pm.STANDARD, draws, r.dealer_draws_at_most)
    total = sum(counts.values())
    assert total == 1326 * 1225 * 48 * 47
    assert res.net.points == tuple((a, Fraction(n, total)) for a, n in sorted(counts.items()))
    _check_moments(res.net, list(counts.items()))
    assert res.net.mean == res.ev_optimal
    assert res.p_push_optimal == dict(res.net.points)[Fraction(0)]


@pytest.mark.parametrize("rules, reveals", [("macau", "first"), ("macau", "last"), ("pagat", None)])
def test_taungau_mean_is_the_edge_and_amounts_follow_the_rules(
    rules: str, reveals: str | None
) -> None:
    from solver.games.taungau.risk import edge as taungau_edge
    from solver.games.taungau.rules import load_rules

    r = load_rules(rules)
    res = taungau_edge(r, reveals)
    assert res.net is not None
    assert res.net.mean == res.ev_optimal
    assert sum(p for _, p in res.net.points) == 1
    if r.settlement == "even_money":
        assert dict(res.net.points) == {1: res.p_win, 0: res.p_push, -1: res.p_loss}
    else:
        # RULES.md §4 macau: a 10 against a banker without a bull wins 10; the most a
        # player loses is 4 (no bull, or declining) when he sees the banker first,
        # and 9 at most (a kept 1 against a 10) when the banker shows last
        assert res.net.max_win == 10
        if reveals == "first":
            assert res.net.max_loss == 4
        else:
            assert 4 <= res.net.max_loss <= 9


def test_every_game_json_has_the_risk_fields() -> None:
    from solver.cli import main

    for game, extra in (("taungau", []), ("pokdeng", []), ("pokdeng", ["--rules", "straights"])):
        out = StringIO()
        assert main(["edge", game, *extra, "--json"], out=out) == 0
        rec = json.loads(out.getvalue())
        dist = rec["distribution"]
        nets = [row["net"] for row in dist]
        assert nets == sorted(nets) and len(set(nets)) == len(nets)
        assert sum(Fraction(row["probability_fraction"]) for row in dist) == 1
        ev_key = "ev_optimal_fraction"
        assert sum(
            Fraction(row["net_fraction"]) * Fraction(row["probability_fraction"]) for row in dist
        ) == (Fraction(rec[ev_key]))
        var = Fraction(rec["variance_fraction"])
        assert rec["sd"] == pytest.approx(float(var) ** 0.5)
        assert set(rec["volatility_index"]) == {"90", "95", "99"}
        assert rec["max_loss"] == -min(nets) and rec["max_win"] == max(nets)


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["classic", "casino", "no_faces"])
def test_niuniu_every_bet_mean_is_the_edge(rules: str) -> None:
    from solver.games.niuniu.risk import edge as niuniu_edge
    from solver.games.niuniu.rules import load_rules

    r = load_rules(rules)
    for bet in r.bets:
        res = niuniu_edge(r, bet)
        assert res.net is not None and res.net.mean == res.ev
        assert sum(p for a, p in res.net.points if a > 0) == res.p_win
        top = max(r.multiplier_row(bet))
        assert res.net.max_loss == top
        assert res.net.max_win == top * (1 - res.commission)


@pytest.mark.slow
def test_pokdeng_shoe_mean_is_the_edge() -> None:
    from solver.games.pokdeng.risk import edge as pokdeng_edge

    res = pokdeng_edge("shoe8")
    assert res.net is not None and res.net.mean == res.ev_optimal
    assert res.p_push_optimal == dict(res.net.points)[Fraction(0)]
