"""The exact equilibrium of heads-up Pok Deng (issue 15): the certificate, an LP built
here from brute-force payoffs on a reduced deck, and the several-players argument by
exact enumeration of a two-player game."""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from itertools import combinations, permutations
from pathlib import Path

import numpy as np
import pytest

from pokdeng.fixtures import ids
from pokdeng.test_dealer import brute_entries, is_pok, reference
from solver.games.pokdeng.dealer import (
    RationalVector,
    best_response,
    dealer_game,
    mirror_strategy,
    player_ev,
)
from solver.games.pokdeng.equilibrium import simplex_max, solve_equilibrium
from solver.games.pokdeng.rules import load_rules
from solver.games.pokdeng.strategy import overall_ev, solve

MIXED = tuple(r * 4 + s for r in (3, 4, 7, 8, 11) for s in range(4))  # 4 5 8 9 Q: 20 cards
TEN = tuple(r * 4 + s for r in (0, 3, 4, 7, 12) for s in (0, 1))  # A 4 5 8 K, two suits


def test_simplex_small() -> None:
    # max 3x + 2y, x + y <= 4, x + 3y <= 6, x <= 3  ->  x = 3, y = 1, value 11
    a = np.array([[1.0, 1.0], [1.0, 3.0], [1.0, 0.0]])
    z = simplex_max(a, np.array([4.0, 6.0, 3.0]), np.array([3.0, 2.0]))
    assert np.allclose(z, [3.0, 1.0])


@pytest.mark.slow
@pytest.mark.parametrize("k", [-1, 3])
def test_certificate_full_deck(k: int) -> None:
    eq = solve_equilibrium(load_rules(), k)
    assert eq.exact
    assert abs(float(eq.player_best_response_ev - eq.dealer_best_response_ev)) < 1e-12
    assert eq.value == eq.player_best_response_ev == eq.dealer_best_response_ev
    # the value lies between the dealer's best response to the optimum and the fixed K=4
    game = eq.game
    fixed = Fraction(overall_ev(solve(load_rules(), 4))["ev_optimal_fraction"])
    assert eq.value <= fixed
    assert eq.value == player_ev(game, eq.sigma, eq.tau2, eq.tau3)


@pytest.mark.slow
def test_value_ordering_and_no_choice() -> None:
    rules = load_rules()
    free, three, four = (solve_equilibrium(rules, k).value for k in (-1, 3, 4))
    assert free <= three <= four
    # a dealer forced to draw on every total has no choice: the player's optimum against
    # "draws on 7 or less" (strategy.solve) is the value
    seven = solve_equilibrium(rules, 7)
    assert seven.exact
    assert seven.value == Fraction(overall_ev(solve(rules, 7))["ev_optimal_fraction"])


@pytest.mark.slow
def test_player_values_against_the_equilibrium_dealer_brute_force() -> None:
    """Each start's EVs against the dealer's equilibrium strategy, deal by deal."""
    from solver.games.pokdeng.dealer import player_values

    ref = reference()
    eq = solve_equilibrium(load_rules(), -1)
    game = eq.game
    assert eq.tau2.is_pure and eq.tau3.is_pure
    stand, draw = player_values(game, eq.tau2, eq.tau3)
    deck = tuple(range(52))
    for text in ("7H 5D", "4S KS", "AC 2D"):
        p = tuple(sorted(ids(text)))
        i = game.index(p)
        tot_s = tot_d = 0
        for d in combinations([c for c in deck if c not in p], 2):
            j = game.index(d)
            a00, a01, a10, a11 = brute_entries(ref, deck, p, d)
            dpok = is_pok(ref, d)
            t2 = 0 if dpok else int(eq.tau2.num[j] // eq.tau2.den)
            t3 = 0 if dpok else int(eq.tau3.num[j] // eq.tau3.den)
            tot_s += a01 if t2 else a00  # each over L = 48 * 47 per dealer start
            tot_d += a11 if t3 else a10
        assert stand[i] == Fraction(tot_s, 1225 * 2256)
        assert draw[i] == Fraction(tot_d, 1225 * 2256)


def bland_simplex(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> float:
    """max c @ z s.t. a @ z <= b, z >= 0 (b >= 0): a plain tableau simplex with Bland's
    rule (never cycles), written here independently of the solver's."""
    m, n = a.shape
    tab = np.hstack([a, np.eye(m), b[:, None]])
    obj = np.r_[-c, np.zeros(m), 0.0]
    basis = list(range(n, n + m))
    while True:
        enter = next((j for j in range(n + m) if obj[j] < -1e-12), None)
        if enter is None:
            return float(obj[-1])
        col = tab[:, enter]
        rows = [i for i in range(m) if col[i] > 1e-12]
        best = min(tab[i, -1] / col[i] for i in rows)
        leave = min(
            (i for i in rows if tab[i, -1] / col[i] <= best + 1e-12), key=lambda i: basis[i]
        )
        tab[leave] /= tab[leave, enter]
        for i in range(m):
            if i != leave and tab[i, enter] != 0:
                tab[i] -= tab[i, enter] * tab[leave]
        obj -= obj[enter] * tab[leave]
        basis[leave] = enter


@lru_cache(maxsize=1)
def brute_payoffs(cards: tuple[int, ...]) -> np.ndarray:
    """(a00, a01, a10, a11) of every start against every dealer start of ``cards``, by
    brute force (once per deck: every dealer policy's LP reads the same payoffs)."""
    ref = reference()
    starts = list(combinations(cards, 2))
    n_s = len(starts)
    idx = {s: i for i, s in enumerate(starts)}
    a = np.zeros((4, n_s, n_s))
    for p in starts:
        for d in combinations([c for c in cards if c not in p], 2):
            a[:, idx[p], idx[d]] = brute_entries(ref, cards, p, d)
    a.setflags(write=False)
    return a


def brute_lp_value(cards: tuple[int, ...], k: int) -> float:
    """The dealer's LP over *all* starts (no suit symmetry), payoffs from brute force:
    min sum_P u_P with u_P >= EV(stand | tau) and (non-Pok P) u_P >= EV(draw | tau),
    tau in [0, 1] on the free dealer starts (1 where the house forces a draw, 0 on a
    Pok). With u_P = M - w_P (M bounds every EV) it is a max over w >= 0 with b >= 0."""
    ref = reference()
    starts = list(combinations(cards, 2))
    n_s = len(starts)
    m = len(cards) - 4
    a = brute_payoffs(cards) / (len(list(combinations(range(len(cards) - 2), 2))) * m * (m - 1))
    pok = np.array([is_pok(ref, s) for s in starts])
    pts = np.array([ref.hand(s)[1] for s in starts])
    forced = ~pok & (pts <= k)
    free = np.flatnonzero(~pok & ~forced)
    nf = len(free)
    big = 6.0  # |EV| <= 5 stakes
    rows, rhs = [], []
    for i in range(n_s):
        for view in (0, 1) if not pok[i] else (0,):
            base, drawn = a[2 * view, i], a[2 * view + 1, i]
            row = np.zeros(2 * nf + n_s)
            row[view * nf : (view + 1) * nf] = (drawn - base)[free]
            row[2 * nf + i] = 1.0
            rows.append(row)
            rhs.append(big - base.sum() - (drawn - base)[forced].sum())
    for j in range(2 * nf):
        row = np.zeros(2 * nf + n_s)
        row[j] = 1.0
        rows.append(row)
        rhs.append(1.0)
    c = np.r_[np.zeros(2 * nf), np.ones(n_s)]
    best = bland_simplex(np.array(rows), np.array(rhs), c)
    return (n_s * big - best) / n_s


@pytest.mark.slow
@pytest.mark.parametrize("k", [-1, 2])
def test_reduced_deck_against_brute_force_lp(k: int) -> None:
    eq = solve_equilibrium(load_rules(), k, MIXED)
    assert eq.exact and eq.player_best_response_ev == eq.dealer_best_response_ev
    mixed = eq.mixed_starts()
    assert mixed["player"] > 0 and mixed["dealer_sees_2"] + mixed["dealer_sees_3"] > 0
    assert abs(brute_lp_value(MIXED, k) - float(eq.value)) < 1e-9


def two_player_evs(
    cards: tuple[int, ...], sigma: RationalVector, tau2: RationalVector, tau3: RationalVector
) -> tuple[Fraction, Fraction]:
    """Exact enumeration of a two-player round with selective checking: players 1 and 2
    and the dealer get two cards each; then (a uniformly random order of the rest) player
    1's draw, player 2's draw, the dealer's one card. The dealer decides per player
    (tau2/tau3 by that player's card count): against a player he stands on, that player
    is settled on the dealer's two cards first; he draws if he draws against anyone.
    Pure strategies only (one action per start)."""
    ref = reference()
    game = dealer_game(load_rules(), cards)
    draws = {tuple(game.two[i].tolist()): bool(sigma.num[i]) for i in range(game.n_starts)}
    t2 = {tuple(game.two[i].tolist()): bool(tau2.num[i]) for i in range(game.n_starts)}
    t3 = {tuple(game.two[i].tolist()): bool(tau3.num[i]) for i in range(game.n_starts)}
    settle = ref.settle.tolist()
    two = ref.code2.tolist()  # two[a][b]: the class of the hand a b
    three = ref.code3.tolist()  # three[a][b][c]: of the hand a b c, in any order
    tot = [0, 0]
    n = 0
    for p1 in combinations(cards, 2):
        r1 = [c for c in cards if c not in p1]
        for p2 in combinations(r1, 2):
            r2 = [c for c in r1 if c not in p2]
            for d in combinations(r2, 2):
                rest = [c for c in r2 if c not in d]
                dpok = ref.two[d][0] == "pok"
                d2, d3 = two[d[0]][d[1]], three[d[0]][d[1]]
                # per player: the class of his two cards; if he draws, of his three by
                # his card x (three[a][b][x]); whether the dealer draws against him
                plan = []
                for p in (p1, p2):
                    ppok = ref.two[p][0] == "pok"
                    drawing = not ppok and draws[p]
                    vs = not dpok and (t3[d] if drawing else not ppok and t2[d])
                    plan.append((two[p[0]][p[1]], three[p[0]][p[1]] if drawing else None, vs))
                dealer_draws = any(vs for _, _, vs in plan)
                for order in permutations(rest, 3):
                    it = iter(order)
                    finals = [h2 if h3 is None else h3[next(it)] for h2, h3, _ in plan]
                    c = next(it) if dealer_draws else None
                    for i in range(2):
                        dh = d3[c] if plan[i][2] and c is not None else d2
                        tot[i] += settle[finals[i]][dh]
                    n += 1
    return Fraction(tot[0], n), Fraction(tot[1], n)


@pytest.mark.slow
def test_two_players_reduce_to_heads_up() -> None:
    rules = load_rules()
    game = dealer_game(rules, TEN)
    for k, sigma in (
        (-1, mirror_strategy(game)),
        (2, RationalVector.pure(~game.pok & (game.points <= 5))),
    ):
        br = best_response(game, sigma, k)
        heads_up = player_ev(game, sigma, br.tau2, br.tau3)
        assert heads_up == br.player_ev
        assert two_player_evs(TEN, sigma, br.tau2, br.tau3) == (heads_up, heads_up)


@pytest.mark.slow
def test_cli_equilibrium_json_text_png(tmp_path: Path) -> None:
    from pokdeng.test_dealer import run, run_json

    rec = run_json("strategy", "pokdeng", "--dealer", "equilibrium", "--must-draw-at-most", "3")
    eq = solve_equilibrium(load_rules(), 3)
    assert Fraction(rec["value_fraction"]) == eq.value and rec["value"] == float(eq.value)
    assert rec["value_fraction"] == "-756103/70471800"  # the README's figure
    assert rec["ev_player_best_response"] == rec["ev_dealer_best_response"] == float(eq.value)
    assert rec["exact"] is True and rec["certificate_gap"] == 0.0
    assert len(rec["player_starts"]) == len(rec["dealer_starts"]) == 1326
    low = [
        s for s in rec["dealer_starts"] if s["points"] <= 3 and s["sees"]["2"]["action"] != "pok"
    ]
    assert low and all(s["forced"] and s["sees"]["2"]["action"] == "draw" for s in low)
    png = tmp_path / "eq.png"
    code, text, err = run("strategy", "pokdeng", "--dealer", "equilibrium", "--png", str(png))
    assert code == 0, err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "game value per stake" in text and "equal exactly" in text and str(png) in text
    rec = run_json("advise", "pokdeng", "5S 2H", "--dealer-sees", "3")
    assert rec["dealer_mode"] == "equilibrium" and rec["action"] in ("stand", "draw")
    i = eq.game.index(ids("5S 2H"))
    free = solve_equilibrium(load_rules(), -1)
    assert Fraction(rec["draw_probability_fraction"]) == free.tau3.fraction(i)


@pytest.mark.slow
def test_report_rows() -> None:
    from solver.games.pokdeng.dealer_commands import dealer_report_rows

    rows = dealer_report_rows("standard")
    evs = [r.player_ev for r in rows]
    assert evs[0] == Fraction(2826, 1817725)  # the README's fixed-dealer headline
    assert rows[3].player_ev == solve_equilibrium(load_rules(), -1).value
    # the dealer's best response beats the equilibrium player less than the optimum player
    assert evs[1] <= evs[3] <= evs[4] <= evs[5] <= evs[0]
    assert all(
        set(r.to_json()) == {"case", "must_draw_at_most", "ev_player", "ev_player_fraction"}
        for r in rows
    )
