"""The dealer's side of heads-up Pok Deng (issue 15): the payoff tables and the dealer's
best response, against brute force written here from the rule text (the reference
classifier of ``fixtures``: every deal of the cards enumerated, no class counting)."""

from __future__ import annotations

import io
import json
from fractions import Fraction
from functools import cache, lru_cache
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pokdeng.fixtures import Reference, ids
from solver.cli import main
from solver.core.errors import ParseError
from solver.games.pokdeng.dealer import (
    best_response,
    dealer_game,
    load_player_file,
    mirror_strategy,
    optimal_strategy,
)
from solver.games.pokdeng.rules import load_rules
from solver.games.pokdeng.strategy import solve

SMALL = tuple(r * 4 + s for r in (0, 3, 4, 8) for s in range(4))  # A, 4, 5, 9: 16 cards


@lru_cache(maxsize=2)
def reference(straights: bool = False) -> Reference:
    return Reference(straights, "both")


def is_pok(ref: Reference, cards: tuple[int, ...]) -> bool:
    return ref.hand(cards)[0] == "pok"


def brute_entries(
    ref: Reference, deck: tuple[int, ...], p: tuple[int, ...], d: tuple[int, ...]
) -> tuple[int, int, int, int]:
    """(a00, a01, a10, a11) for one player start p and dealer start d, over L = m(m-1)
    (m cards left): each of stand/stand, stand/draw, draw/stand, draw/draw summed over
    every ordered (x, c) of the cards left. A Pok on either side settles with two cards."""
    rest = np.array([c for c in deck if c not in p and c not in d])
    xi, ci = ordered_pairs(len(rest))
    x, c = rest[xi], rest[ci]
    p2 = ref.code2[p[0], p[1]]
    d2 = ref.code2[d[0], d[1]]
    ppok, dpok = is_pok(ref, p), is_pok(ref, d)
    p3 = np.full(len(x), p2) if ppok else ref.code3[p[0], p[1], x]
    d3 = np.full(len(c), d2) if dpok else ref.code3[d[0], d[1], c]
    d3_stood = d3 if not ppok else np.full(len(c), d2)  # a player Pok settles at once
    a00 = int(ref.settle[p2, d2]) * len(x)
    a01 = int(ref.settle[p2, d3_stood].sum())
    a10 = int(ref.settle[p3, d2].sum())
    a11 = int(ref.settle[p3, d3].sum())
    return a00, a01, a10, a11


@cache
def ordered_pairs(m: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions (i, j), i != j, of every ordered pair of m cards."""
    xi, ci = np.array([(i, j) for i in range(m) for j in range(m) if i != j]).T
    xi.setflags(write=False)
    ci.setflags(write=False)
    return xi, ci


def test_tables_small_deck_every_pair() -> None:
    """Every (start, dealer start) of a 16-card deck against brute force."""
    ref = reference()
    game = dealer_game(load_rules(), SMALL)
    assert game.big_l == 12 * 11 and game.n_starts == 120
    tabs = (game.a00, game.a01, game.a10, game.a11)
    for p in combinations(SMALL, 2):
        i = game.index(p)
        for d in combinations([c for c in SMALL if c not in p], 2):
            j = game.index(d)
            want = brute_entries(ref, SMALL, p, d)
            dpok, ppok = is_pok(ref, d), is_pok(ref, p)
            # entries a Pok side never reaches are not compared (its tau/sigma is 0)
            keys = (
                [0]
                + ([] if dpok else [1])
                + ([] if ppok else [2])
                + ([3] if not (ppok or dpok) else [])
            )
            for k in keys:
                assert tabs[k][i, j] == want[k], (p, d, k)
        others = [j for j in range(120) if set(game.two[j].tolist()) & set(p)]
        assert all(t[i, others].max() == t[i, others].min() == 0 for t in tabs)


@pytest.mark.parametrize("preset", ["standard", "straights"])
def test_tables_full_deck_sampled(preset: str) -> None:
    ref = reference(preset == "straights")
    game = dealer_game(load_rules(preset))
    deck = tuple(range(52))
    rng = np.random.default_rng(15)
    for _ in range(12):
        cards = rng.choice(52, 4, replace=False)
        p, d = tuple(sorted(cards[:2].tolist())), tuple(sorted(cards[2:].tolist()))
        want = brute_entries(ref, deck, p, d)
        got = tuple(
            int(t[game.index(p), game.index(d)]) for t in (game.a00, game.a01, game.a10, game.a11)
        )
        keep = [0] + ([] if is_pok(ref, d) else [1]) + ([] if is_pok(ref, p) else [2, 3])
        if is_pok(ref, d):
            keep = [k for k in keep if k != 3]
        assert [got[k] for k in keep] == [want[k] for k in keep], (p, d)


def test_fixed_dealer_matches_the_player_strategy_solver() -> None:
    """With the dealer fixed on 'draw on K or less' the tables give strategy.solve's EVs."""
    rules = load_rules()
    game = dealer_game(rules)
    for k in (3, 4, 5):
        tau = (~game.pok & (game.points <= k)).astype(np.int64)
        stand = (game.a00 + tau[None] * (game.a01 - game.a00)).sum(axis=1)
        draw = (game.a10 + tau[None] * (game.a11 - game.a10)).sum(axis=1)
        sol = solve(rules, k)
        assert (stand == sol.ev_stand_num).all()
        assert (draw[~game.pok] == sol.ev_draw_num[~game.pok]).all()


def brute_dealer_view(
    ref: Reference, d: tuple[int, ...], draws: np.ndarray, sees: int
) -> tuple[Fraction, Fraction]:
    """The dealer's EV per stake of standing and of drawing holding d, when the player
    shows ``sees`` cards: every player start (non-Pok; drawing iff ``draws``) of the 50
    unseen cards, his draw x and the dealer's c, each ordered deal equally likely."""
    unseen = [c for c in range(52) if c not in d]
    tot_s = tot_d = n = 0
    d2 = ref.code2[d[0], d[1]]
    for p in combinations(unseen, 2):
        if is_pok(ref, p) or bool(draws[p]) != (sees == 3):
            continue
        rest = np.array([c for c in unseen if c not in p])
        if sees == 2:
            p2 = ref.code2[p[0], p[1]]
            tot_s += int(ref.settle[p2, d2]) * 48
            tot_d += int(ref.settle[p2, ref.code3[d[0], d[1], rest]].sum())
            n += 48
        else:
            p3 = ref.code3[p[0], p[1], rest]  # (48,)
            d3 = ref.code3[d[0], d[1], rest]
            tot_s += int(ref.settle[p3, d2].sum()) * 47
            pair = ref.settle[p3[:, None], d3[None, :]]
            tot_d += int(pair.sum() - np.trace(pair))
            n += 48 * 47
    assert n > 0
    return Fraction(-tot_s, n), Fraction(-tot_d, n)


def test_best_response_against_brute_force() -> None:
    rules = load_rules()
    ref = reference()
    game = dealer_game(rules)
    sigma = mirror_strategy(game)
    draws = np.zeros((52, 52), dtype=bool)
    for i, (a, b) in enumerate(game.two.tolist()):
        draws[a, b] = draws[b, a] = bool(sigma.num[i])
    br = best_response(game, sigma, must_draw_at_most=-1)
    for text in ("5S 2H", "4C KD", "AS 5H", "3S 2S", "6D KC"):
        d = tuple(sorted(ids(text)))
        i = game.index(d)
        for sees in (2, 3):
            stand, draw = brute_dealer_view(ref, d, draws, sees)
            got_s = br.ev_stand2[i] if sees == 2 else br.ev_stand3[i]
            got_d = br.ev_draw2[i] if sees == 2 else br.ev_draw3[i]
            assert (got_s, got_d) == (stand, draw), (text, sees)
            assert br.action_of(d, sees) == ("draw" if draw > stand else "stand")


def test_best_response_value_and_house_constraint() -> None:
    rules = load_rules()
    game = dealer_game(rules)
    sigma = optimal_strategy(rules)
    free = best_response(game, sigma, -1)
    house = best_response(game, sigma, 3)
    fixed = Fraction(
        int(np.maximum(solve(rules, 4).ev_stand_num, solve(rules, 4).ev_draw_num).sum()),
        1326 * 2763600,
    )
    # more freedom for the dealer can only lower the player's EV; fixed K=4 is one choice
    assert free.player_ev <= house.player_ev <= fixed
    assert free.player_ev < fixed
    lo = [i for i in range(1326) if not game.pok[i] and game.points[i] <= 3]
    assert all(house.action2[i] == house.action3[i] == "draw" for i in lo)
    assert all(house.forced[i] for i in lo)
    pok = [i for i in range(1326) if game.pok[i]]
    assert all(free.action2[i] == "pok" for i in pok)


def test_player_file(tmp_path: Path) -> None:
    game = dealer_game(load_rules())
    f = tmp_path / "p.csv"
    f.write_text("hand,action\n# a comment\n7H 5D, stand\nKS 4S,draw\n9S 9D,pok\n\n")
    sigma = load_player_file(str(f), game)
    mirror = mirror_strategy(game)
    diff = np.flatnonzero(sigma.num != mirror.num)
    assert diff.tolist() == [game.index(ids("7H 5D"))]  # the one start unlike mirror
    assert sigma.num[game.index(ids("7H 5D"))] == 0
    assert sigma.num[game.index(ids("KS 4S"))] == 1
    for body, needle in [
        ("7H 5D,draw\n7H 5D,stand\n", "line 2: start 7H 5D already given on line 1"),
        ("7H 5D,hit\n", "line 1: action must be stand, draw or pok"),
        ("7H\n", "line 1: expected HAND,ACTION"),
        ("7H 7H,draw\n", "line 1: bad hand"),
        ("9S 9D,draw\n", "line 1: 9S 9D is a Pok"),
        ("7H 5D,pok\n", "line 1: 7H 5D is not a Pok"),
    ]:
        f.write_text(body)
        with pytest.raises(ParseError, match=needle.replace("(", r"\(")):
            load_player_file(str(f), game)


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def run_json(*argv: str) -> dict[str, Any]:
    code, out, err = run(*argv, "--json")
    assert code == 0, err
    (rec,) = [json.loads(line) for line in out.splitlines()]
    return dict(rec)


def test_cli_best_response(tmp_path: Path) -> None:
    rec = run_json("strategy", "pokdeng", "--dealer", "best-response", "--player", "mirror")
    game = dealer_game(load_rules())
    br = best_response(game, mirror_strategy(game), -1)
    assert Fraction(rec["ev_player_fraction"]) == br.player_ev
    assert rec["ev_player"] == float(br.player_ev)
    assert len(rec["player_starts"]) == len(rec["dealer_starts"]) == 1326
    one = next(s for s in rec["dealer_starts"] if s["hand"] == ["2H", "5S"])
    assert one["sees"]["3"]["action"] == br.action_of(ids("5S 2H"), 3)
    code, text, _ = run(
        "strategy", "pokdeng", "--dealer", "best-response", "--must-draw-at-most", "3"
    )
    assert code == 0 and "must draw on 3 or less" in text and "player EV per stake" in text
    code, text, _ = run(
        "advise",
        "pokdeng",
        "5S 2H",
        "--dealer-sees",
        "3",
        "--dealer",
        "best-response",
        "--player",
        "mirror",
    )
    assert code == 0 and "dealer 2H 5S (total 7), player shows 3 cards" in text


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["strategy", "pokdeng", "--player", "mirror"], "--player needs --dealer"),
        (
            ["strategy", "pokdeng", "--dealer", "equilibrium", "--player", "mirror"],
            "--player applies to",
        ),
        (
            ["strategy", "pokdeng", "--dealer", "best-response", "--player", "/no/such.csv"],
            "cannot read player strategy",
        ),
        (
            ["strategy", "pokdeng", "--dealer", "best-response", "--must-draw-at-most", "8"],
            "must be -1 to 7",
        ),
        (["advise", "pokdeng", "5S 2H", "--dealer-sees", "4"], "must be 2 to 3"),
        (["advise", "pokdeng", "5S 5S", "--dealer-sees", "2"], "duplicate card"),
        (["advise", "pokdeng", "5S 2H", "--dealer", "best-response"], "needs --dealer-sees"),
    ],
)
def test_cli_errors_one_line(argv: list[str], needle: str) -> None:
    code, _, err = run(*argv)
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1, err
