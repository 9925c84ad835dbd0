"""`bull risk` (issue 25): the banker at a full table.

The covariance of two players' nets against one banker hand and the banker's round net
at two players are checked against brute force written here: every (banker, player,
player) deal of a reduced deck, settled from the rule text (Niu Niu) or pair by pair
(Tau Ngau, Pok Deng: the pair settlement is checked against the rule text elsewhere;
what is new here is how a table's nets combine). The simulation that ``bull risk`` runs
on the full deck is checked on the same reduced decks (within its stated intervals), the
identity Var = N·Var₁ + N(N-1)·Cov against the brute-force variance, the full-deck
heads-up frequencies against the exact distribution, the ruin DP against a direct
simulation and the simulated ruin against the DP on a brute-force distribution.
"""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction
from functools import cache
from io import StringIO
from typing import Any

import numpy as np
import pytest

from solver.kit.banker import _resampled_ruin, quantile_loss
from solver.kit.risk import NetDistribution
from solver.kit.table_risk import ruin_probability, wilson
from solver.kit.table_sim import simulate_tables, spec_dealer

SUIT_RANK = {0: 3, 1: 2, 3: 1, 2: 0}
"""Card id c: rank c // 4 (A..K), suit c % 4 in the order S H D C; ♠ > ♥ > ♣ > ♦."""


def _classic(cards: tuple[int, ...]) -> tuple[tuple[int, int, int], int]:
    """RULES.md §3, preset classic: (comparison key, double-bet multiplier). A bull:
    three cards summing to a multiple of 10 (A = 1, 2..9, 10/J/Q/K = 10); points the
    last digit of the total (0: Niu Niu); Five Faces: five J/Q/K; the highest card
    breaks ties, rank then suit."""
    ranks = [c // 4 for c in cards]
    vals = [min(r + 1, 10) for r in ranks]
    if all(r >= 10 for r in ranks):
        cat = 11
    elif any(sum(t) % 10 == 0 for t in itertools.combinations(vals, 3)):
        cat = sum(vals) % 10 or 10
    else:
        cat = 0
    mult = 5 if cat == 11 else 3 if cat == 10 else 2 if cat >= 7 else 1
    high = max((c // 4, SUIT_RANK[c % 4]) for c in cards)
    return (cat, *high), mult


def _pair_matrix(deck: list[int], size: int, nets: Any) -> tuple[list[tuple[int, ...]], Any]:
    """Every hand of ``size`` from ``deck`` and the player's net for every ordered pair
    (banker i, player j) of disjoint hands (NaN where they share a card):
    ``nets(hands, banker_index, player_index)`` settles a batch of pairs."""
    hands = list(itertools.combinations(deck, size))
    arr = np.array(hands, dtype=np.uint8)
    bits = np.array([sum(1 << c for c in h) for h in hands], dtype=np.int64)
    bi, pj = np.nonzero((bits[:, None] & bits[None, :]) == 0)
    f = np.full((len(hands), len(hands)), np.nan)
    f[bi, pj] = nets(arr, bi, pj)
    return hands, f


def _classic_nets(arr: Any, bi: Any, pj: Any) -> Any:
    """The classic double bet with 5 % commission, settled from :func:`_classic`."""
    info = [_classic(tuple(h)) for h in arr.tolist()]
    key = np.array([(c * 100 + r * 4 + su) for (c, r, su), _m in info])
    mult = np.array([m for _k, m in info], dtype=np.float64)
    return np.where(key[pj] > key[bi], mult[pj] * 0.95, -mult[bi])


class _Deals:
    """Sums over deals of one banker hand and two players' disjoint hands: how many, the
    first player's net X1 summed, squared and times X2, and the banker's net -(X1 + X2)
    counted by amount (``rounded``: to 9 decimals)."""

    def __init__(self, rounded: bool) -> None:
        self.rounded = rounded
        self.count = 0
        self.s1 = self.s2 = self.s12 = 0.0
        self.banker: dict[float, int] = {}

    def add(self, x: Any, bits: Any) -> None:
        """Against one banker hand: ``x[a]`` the net of the player hand whose cards are
        the bits ``bits[a]``; every ordered pair (a, b) of hands sharing no card is a
        deal. The pairs are counted by the pair of their nets' amounts (a few)."""
        amounts, code = np.unique(x, return_inverse=True)
        assert len(x) ** 2 < 2**24  # every count below float32's exact integers
        apart = ((bits[:, None] & bits[None, :]) == 0).astype(np.float32)
        one = np.zeros((len(x), len(amounts)), dtype=np.float32)
        one[np.arange(len(x)), code] = 1
        # pairs[u, v]: deals with X1 = amounts[u], X2 = amounts[v] (counts exact in float32)
        pairs = np.rint(one.T @ (apart @ one)).astype(np.int64)
        by_x1 = pairs.sum(axis=1)
        self.count += int(by_x1.sum())
        self.s1 += float(by_x1 @ amounts)
        self.s2 += float(by_x1 @ (amounts * amounts))
        self.s12 += float(amounts @ pairs @ amounts)
        net = -(amounts[:, None] + amounts[None, :])
        net = np.round(net, 9) if self.rounded else net
        u, v = np.nonzero(pairs)
        for a, c in zip(net[u, v].tolist(), pairs[u, v].tolist(), strict=True):
            self.banker[a] = self.banker.get(a, 0) + c

    def moments(self) -> dict[str, Any]:
        ev = self.s1 / self.count
        return {
            "deals": self.count,
            "ev": ev,
            "var1": self.s2 / self.count - ev * ev,
            "cov": self.s12 / self.count - ev * ev,
            "banker": {v: c / self.count for v, c in self.banker.items()},
        }


def _triples(hands: list[tuple[int, ...]], f: Any) -> dict[str, Any]:
    """Every (banker, player 1, player 2) deal of mutually disjoint hands, directly:
    the moments of one player's net, E[X1 X2], and the banker's net -(X1 + X2)."""
    bits = np.array([sum(1 << c for c in h) for h in hands], dtype=np.int64)
    deals = _Deals(rounded=True)
    for i in range(len(hands)):
        ok = np.flatnonzero((bits & bits[i]) == 0)
        deals.add(f[i, ok], bits[ok])
    return deals.moments()


@cache
def _niuniu16() -> tuple[list[int], dict[str, Any]]:
    """16 cards (3, 7, 10, K in four suits), classic, double bet, 5 % commission: the
    deck and :func:`_triples` of it, once per module (two tests read it)."""
    deck = [r * 4 + s for r in (2, 6, 9, 12) for s in range(4)]
    hands, f = _pair_matrix(deck, 5, _classic_nets)
    return deck, _triples(hands, f)


def _check_sim(spec: dict[str, Any], exact: dict[str, Any], step: int, tables: int) -> None:
    """The table simulation on the same deck against the brute force: the covariance
    inside its 99 % interval, the variance identity, every banker-net frequency within
    4.5 standard errors (each; a few dozen amounts)."""
    s = simulate_tables(spec_dealer(spec, 2), 2, tables, step, seed=7)
    m, half = s.pair_moment(99)
    cov = m - exact["ev"] ** 2
    assert abs(cov - exact["cov"]) <= half
    # Var(X1 + X2) directly from the brute force = 2 Var1 + 2 Cov
    direct = sum(v * v * p for v, p in exact["banker"].items()) - 4 * exact["ev"] ** 2
    assert direct == pytest.approx(2 * exact["var1"] + 2 * exact["cov"], abs=1e-9)
    hist = s.banker[1]
    seen = {round(v / step, 9): c for v, c in hist.items()}
    for v, p in exact["banker"].items():
        got = seen.get(round(v, 9), 0) / s.tables
        assert abs(got - p) <= 4.5 * math.sqrt(p * (1 - p) / s.tables) + 1e-12, v
    assert all(any(abs(v - w) < 1e-9 for w in exact["banker"]) for v in seen)


@pytest.mark.slow
def test_niuniu_covariance_against_every_triple() -> None:
    """16 cards (3, 7, 10, K in four suits: Niu Niu and Niu 7-9 occur), classic, double
    bet, 5 % commission: every (banker, player, player) deal settled from the rule text."""
    from solver.games.niuniu.audit import audit_spec

    deck, exact = _niuniu16()
    assert exact["deals"] == math.comb(16, 5) * math.comb(11, 5) * math.comb(6, 5)
    spec = dict(audit_spec("classic", {"bet": "double", "commission": 0.05}, None))
    spec["deck"] = np.array(deck, dtype=np.uint8)
    _check_sim(spec, exact, 20, 200_000)


def test_taungau_covariance_against_every_triple() -> None:
    """15 tiles (three hands of five: every deal uses the whole set), macau with the
    banker revealing first, pair by pair through the audit settlement."""
    from solver.games.taungau.audit import audit_spec

    spec = dict(audit_spec("macau", {"banker_reveals": "first"}, None))
    deck = list(range(0, 30, 2))  # one copy of 11 civil types and 4 military tiles

    hands, f = _pair_matrix(deck, 5, lambda arr, b, p: spec["settle"](arr[p], arr[b])[1])
    exact = _triples(hands, f)
    assert exact["deals"] == math.comb(15, 5) * math.comb(10, 5)
    spec["deck"] = np.array(deck, dtype=np.uint8)
    _check_sim(spec, exact, 1, 100_000)


def _pokdeng_triples(deck: list[int], spec: dict[str, Any]) -> dict[str, Any]:
    """Every deal of 13 cards: the dealer's start and draw card, then two players'
    starts and draw cards (drawn as the audit description says: the players optimally,
    the dealer on 4 or less), all distinct; settled pair by pair."""
    pad = 255
    dealer_rows, player_rows = [], []
    for d in itertools.combinations(deck, 2):
        for c in deck:
            if c not in d:
                dealer_rows.append((*d, c))
    dr = np.array(dealer_rows, dtype=np.uint8)
    dpok = np.asarray(spec["pok"](dr[:, :2]), dtype=bool)
    dfin = np.asarray(spec["finish_dealer"](dr[:, :2].copy(), dr[:, 2].copy()))
    dfin[dpok, 2] = pad
    player_rows = dealer_rows  # the same (start, extra) items
    pr = dr
    deals = _Deals(rounded=False)
    bits = np.array([sum(1 << int(x) for x in row) for row in pr], dtype=np.int64)
    for i in range(len(dr)):
        ok = np.flatnonzero((bits & bits[i]) == 0)
        pfin = np.asarray(
            spec["finish"](pr[ok, :2].copy(), pr[ok, 2].copy(), np.repeat(dpok[i], len(ok)))
        )
        x = spec["settle"](pfin, np.repeat(dfin[i : i + 1], len(ok), axis=0))[1]
        deals.add(np.asarray(x), bits[ok])
    del player_rows
    return deals.moments()


def test_pokdeng_covariance_against_every_deal() -> None:
    """13 cards (A, 4, 8 in four suits and the K of spades): every dealer start and draw
    card with two players' starts and draw cards, all distinct."""
    from solver.games.pokdeng.audit import audit_spec

    spec = dict(audit_spec("standard", {"player_strategy": "optimal"}, None))
    deck = [r * 4 + s for r in (0, 3, 7) for s in range(4)] + [48]
    exact = _pokdeng_triples(deck, spec)
    per = math.comb(13, 2) * 11
    assert exact["deals"] == per * (math.comb(10, 2) * 8) * (math.comb(7, 2) * 5)
    spec["deck"] = np.array(deck, dtype=np.uint8)
    _check_sim(spec, exact, 1, 100_000)


def test_full_deck_heads_up_frequencies_match_the_exact_distribution() -> None:
    """A seeded simulation of full Niu Niu tables: the first seat's frequencies within
    4 standard errors of the exact heads-up distribution (``bull edge``'s)."""
    from solver.games.niuniu.audit import audit_spec

    spec = audit_spec("classic", {"bet": "double", "commission": 0.05}, None)
    exact = NetDistribution.of(spec["net"])  # the exact edge's (tests/test_risk_edge.py)
    s = simulate_tables(spec_dealer(spec, 9), 9, 100_000, 20, seed=3)
    hist = s.banker[0]
    for a, p in exact.points:
        got = hist.get(int(-a * 20), 0) / s.tables
        assert abs(got - float(p)) <= 4 * math.sqrt(float(p) * (1 - float(p)) / s.tables)
    assert sum(hist.values()) == s.tables and len(s.banker) == 9


def test_ruin_dp_against_direct_simulation() -> None:
    """The exact ruin DP heads-up against paths of rounds drawn directly."""
    d = NetDistribution.of(
        [
            (Fraction(-3), Fraction(1, 10)),
            (Fraction(-1), Fraction(3, 10)),
            (Fraction(1), Fraction(1, 2)),
            (Fraction(2), Fraction(1, 10)),
        ]
    )
    p = ruin_probability(d, Fraction(4), 30)
    rng = np.random.default_rng(5)
    amounts = np.array([float(a) for a, _ in d.points])
    probs = np.array([float(q) for _, q in d.points])
    paths = 40_000
    walk = 4 + np.cumsum(rng.choice(amounts, size=(paths, 30), p=probs), axis=1)
    k = int((walk < 0).any(axis=1).sum())
    lo, hi = wilson(k, paths, 99.9)
    assert lo <= p <= hi
    assert ruin_probability(d, Fraction(0), 1) == pytest.approx(0.4)  # -3 or -1 at once


def test_simulated_ruin_against_the_dp_on_a_brute_force_table() -> None:
    """Two players on the 16-card Niu Niu deck: the simulated ruin (paths of rounds drawn
    from simulated tables, as bull risk does) within its interval of the DP on the
    brute-force distribution of the banker's net."""
    from solver.games.niuniu.audit import audit_spec

    deck, exact = _niuniu16()
    banker = NetDistribution(
        tuple(
            (Fraction(v).limit_denominator(20), Fraction(p))
            for v, p in sorted(exact["banker"].items())
        )
    )
    dp = ruin_probability(banker, Fraction(3), 20)
    spec = dict(audit_spec("classic", {"bet": "double", "commission": 0.05}, None))
    spec["deck"] = np.array(deck, dtype=np.uint8)
    s = simulate_tables(spec_dealer(spec, 2), 2, 200_000, 20, seed=4)
    p, (lo, hi), paths = _resampled_ruin(s.banker[1], Fraction(3), 20, 20, 11)
    assert paths == 10_000 and lo <= dp <= hi, (p, dp)


def test_quantile_loss_from_the_definition() -> None:
    """The reserve covering q: the smallest R with P(loss <= R) >= q."""
    F = Fraction
    d = NetDistribution.of([(F(-5), F(1, 1000)), (F(-2), F(9, 1000)), (F(1), F(99, 100))])
    assert quantile_loss(d, F(99, 100)) == 0
    assert quantile_loss(d, F(999, 1000)) == 2
    assert quantile_loss(d, F(9999, 10000)) == 5


@pytest.mark.slow
def test_cli_risk_answers_every_game(tmp_path: Any, monkeypatch: Any) -> None:
    """``bull risk`` end to end with small simulations: one JSON shape for every game,
    the exact mean and heads-up figures, the labels of what is simulated."""
    from solver import cli
    from solver.games.niuniu import risk as niuniu_risk
    from solver.games.pokdeng import risk as pokdeng_risk
    from solver.games.taungau import risk as taungau_risk
    from solver.games.taungau.covariance import ExactCovariance
    from solver.kit import banker
    from solver.schemas import load, validate

    # Tau Ngau's covariance is counted exactly (minutes on the full set, checked in
    # tests/test_risk_covariance.py): a stand-in here, kept out of the cache
    stand_in = ExactCovariance(Fraction(0), Fraction(1, 3), Fraction(1, 3), 1, 1, 0.0)
    monkeypatch.setattr(taungau_risk, "exact_covariance", lambda *a, **k: stand_in)
    monkeypatch.setattr(banker, "cached_fraction", lambda name, key, compute, tables: compute())
    # the one-player runs below take each game's default sample size (no --sim-tables),
    # shrunk to this test's 2,000 tables: their figures are exact, the sample is the one
    # the table run drew (the default sizes cost a minute of CPU and change nothing here)
    for room in (niuniu_risk, taungau_risk, pokdeng_risk):
        monkeypatch.setattr(room, "SIM_TABLES", 2_000)
    shapes = set()
    for game, n in (("niuniu", 9), ("taungau", 5), ("pokdeng", 16)):
        out, err = StringIO(), StringIO()
        code = cli.main(["risk", game, "--players", str(n), "--reserve", "50", "--rounds",
                         "10", "--sim-tables", "2000", "--json"], out, err)  # fmt: skip
        assert code == 0, err.getvalue()
        rec = json.loads(out.getvalue())
        assert validate(rec, load("risk")) == []  # solver/schemas/risk.json
        shapes.add(tuple(sorted(rec)))
        assert Fraction(rec["mean_fraction"]) == -n * Fraction(rec["ev_player_fraction"])
        assert rec["distribution_method"] == "simulated"
        assert rec["covariance_method"] == ("exact" if game == "taungau" else "simulated")
        assert [r["probability"] for r in rec["reserve"]] == [0.99, 0.999, 1.0]
        worst = rec["reserve"][-1]  # searched exactly (tests/test_risk_worst.py), with its deal
        deal = worst["worst_round"]
        assert worst["method"] == "exact" and len(deal["player_results"]) == n
        nets = [Fraction(p["net_fraction"]) for p in deal["player_results"]]
        assert sum(nets) == Fraction(worst["amount_fraction"]) > 0
        assert ("dealer" if game == "pokdeng" else "banker") in deal
        assert rec["ruin"]["method"] == "simulated" and rec["simulated_tables"] == 2_000
        var = n * rec["player_variance"] + n * (n - 1) * rec["covariance"]
        assert rec["variance"] == pytest.approx(var)
        out = StringIO()
        assert cli.main(["risk", game, "--players", "1", "--reserve", "5", "--json"], out) == 0
        one = json.loads(out.getvalue())
        assert validate(one, load("risk")) == []
        assert one["distribution_method"] == "exact" and one["ruin"]["method"] == "exact"
        assert one["reserve"][-1]["method"] == "exact"
        assert sum(Fraction(p["probability_fraction"]) for p in one["distribution"]) == 1
    own = ("bet", "commission", "commission_fraction", "banker_reveals",
           "dealer_draws_at_most", "player_strategy")  # fmt: skip
    assert len({tuple(k for k in s if k not in own) for s in shapes}) == 1


@pytest.mark.parametrize(
    "argv, message",
    [
        (["risk", "niuniu", "--players", "10"], "--players 10: niuniu seats 1 to 9"),
        (["risk", "niuniu", "--players", "2", "--sim-tables", "10"], "--sim-tables"),
        (["report", "--sim-tables", "x"], "--sim-tables"),
        (["risk", "taungau", "--players", "6"], "--players 6: taungau seats 1 to 5"),
        (["risk", "niuniu", "--players", "2", "--reserve", "-1"], "--reserve"),
        (["risk", "niuniu", "--players", "2", "--reserve", "nan"], "--reserve"),
        (["risk", "taungau", "--players", "2", "--bet", "double"], "--bet does not apply"),
        (["risk", "niuniu"], "--players"),
    ],
)
def test_cli_risk_bad_input(argv: list[str], message: str) -> None:
    from solver import cli

    out, err = StringIO(), StringIO()
    assert cli.main(argv, out, err) == 2
    assert message in err.getvalue() and len(err.getvalue().strip().splitlines()) == 1
    assert out.getvalue() == ""


def test_report_risk_section_draws_three_labelled_charts(tmp_path: Any, monkeypatch: Any) -> None:
    """The report's risk part: a row per table size and three PNGs whose titles name the
    rule set and whose axes are labelled with units."""
    from solver.kit import risk_report
    from solver.kit.banker import Worst, banker_risk
    from solver.kit.markdown import ReportContext, figure

    F = Fraction
    player = NetDistribution.of([(F(-1), F(1, 2)), (F(19, 20), F(1, 2))])

    def coin(rng: Any, n: int) -> Any:
        return rng.choice([-1.0, 0.95], size=(n, 3))

    sample = simulate_tables(coin, 3, 5_000, 20, seed=2)

    def risk(n: int) -> Any:
        worst = Worst(n * F(19, 20), n == 1)
        return banker_risk("toy", "demo", {}, player, sample, n, 100, worst)

    drawn: list[Any] = []

    def spy(w: float, h: float) -> Any:
        drawn.append(figure(w, h))
        return drawn[-1]

    monkeypatch.setattr(risk_report, "figure", spy)
    ctx = ReportContext(tmp_path, None, True, 1000)
    risk_report.risk_section(ctx, "toy", "Toy", "demo", "double bet", risk, 3)
    assert [p.name for p in ctx.images] == [
        "toy_demo_risk_distribution.png", "toy_demo_risk_funnel.png", "toy_demo_risk_reserve.png"
    ]  # fmt: skip
    assert all(p.stat().st_size > 1000 for p in ctx.images)
    for fig in drawn:
        ax = fig.axes[0]
        assert "Toy `demo`, double bet" in ax.get_title()
        assert "stakes" in ax.get_xlabel() + ax.get_ylabel() and ax.get_xlabel()
    text = "\n".join(ctx.md)
    assert text.count("\n| ") >= 4 and ".. 2.85 (seen .. bound)" in text  # three sizes, one bound


def test_sim_tables_help_names_each_games_default() -> None:
    """``--sim-tables``' help states the defaults the games really use."""
    from solver.games.niuniu import risk as nr
    from solver.games.pokdeng import risk as pr
    from solver.games.taungau import risk as tr
    from solver.risk_command import SIM_TABLES_HELP

    for name, mod in (("niuniu", nr), ("taungau", tr), ("pokdeng", pr)):
        assert f"{name} {mod.SIM_TABLES:,}" in SIM_TABLES_HELP
