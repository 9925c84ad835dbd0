"""Pok Deng's outcome test under a stated player strategy (issue 16): who wins and by
how much, against the exact distribution, opt-in with ``--player-strategy``.

The exact distribution is checked against a brute force written here over every
ordered deal (player's two cards, dealer's two, the player's third, the dealer's third)
of a 12-card deck, the drawing worked out from the rule text (RULES.md §5: a card
counts its face, A = 1, 10 and faces 0; two cards totalling 8 or 9 are a Pok and
nobody draws against the dealer's; the dealer draws on a total of 4 or less); each
final pair of hands is classed and settled by the cause tests' implementation written
from the same rule text (:mod:`pokdeng.causes_model`), not by the solver.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from solver.audit.command import audit_text, cli_audit
from solver.audit.deal import deal
from solver.audit.spec import load_spec
from solver.core.indexing import colex_rank_array
from solver.kit.parse import parse_card_hands

DECK = [r * 4 + s for r in (0, 3, 4, 7) for s in (0, 1, 2)]  # A, 4, 5, 8 in three suits
PAD = 255


def value(card: int) -> int:
    rank = card // 4  # 0 = A .. 12 = K
    return rank + 1 if rank < 9 else 0


def points(cards: tuple[int, ...]) -> int:
    return sum(value(c) for c in cards) % 10


def settled(
    rows_p: list[tuple[int, ...]], rows_d: list[tuple[int, ...]], impl: object
) -> Counter[int]:
    """The player's net of every deal (card ids, ``PAD`` where nobody drew), by the rule
    text's implementation."""
    from pokdeng import causes_model as pm

    from solver.core.cards import CARD_NAMES  # the card ids' names (notation only)

    def hand(row: tuple[int, ...]) -> tuple[str, ...]:
        return tuple(CARD_NAMES[c] for c in row if c != PAD)

    out: Counter[int] = Counter()
    for (a, b), n in Counter(zip(rows_p, rows_d, strict=True)).items():  # each pair once
        out[pm.settle(impl, hand(a), hand(b))] += n  # type: ignore[arg-type]
    return out


def colex_starts(n: int) -> list[tuple[int, int]]:
    return sorted(itertools.combinations(range(n), 2), key=lambda t: (t[1], t[0]))


def brute_force(draws: list[bool], dealer_k: int) -> dict[Fraction, Fraction]:
    starts = colex_starts(len(DECK))
    rows_p: list[tuple[int, ...]] = []
    rows_d: list[tuple[int, ...]] = []
    for i, (a, b) in enumerate(starts):
        p = (DECK[a], DECK[b])
        for da, db in starts:
            if {da, db} & {a, b}:
                continue
            d = (DECK[da], DECK[db])
            rest = [c for c in DECK if c not in p + d]
            p_pok, d_pok = points(p) >= 8, points(d) >= 8
            player_draws = draws[i] and not p_pok and not d_pok
            dealer_draws = not d_pok and points(d) <= dealer_k
            for x, c in itertools.permutations(rest, 2):  # every x, then c != x
                rows_p.append((*p, x if player_draws else PAD))
                rows_d.append((*d, c if dealer_draws else PAD))
    from pokdeng import causes_model as pm

    counts = settled(rows_p, rows_d, pm.STANDARD)
    total = sum(counts.values())
    assert total == 66 * 45 * 8 * 7
    return {Fraction(a): Fraction(n, total) for a, n in counts.items()}


@pytest.mark.parametrize("strategy", ["mirror", "random"])
def test_exact_net_matches_a_brute_force_of_a_small_deck(strategy: str) -> None:
    from solver.games.pokdeng.audit import net_distribution
    from solver.games.pokdeng.rules import load_rules

    starts = colex_starts(len(DECK))
    pok = [points((DECK[a], DECK[b])) >= 8 for a, b in starts]
    if strategy == "mirror":
        draws = [
            not k and points((DECK[a], DECK[b])) <= 4 for k, (a, b) in zip(pok, starts, strict=True)
        ]
        dealer_k = 4
    else:  # not suit-symmetric: every start on its own
        rng = np.random.default_rng(7)
        draws = [bool(rng.random() < 0.5) and not k for k in pok]
        dealer_k = 3
    got = net_distribution(load_rules("standard"), np.array(draws), dealer_k, DECK)
    assert dict(got) == brute_force(draws, dealer_k)


FACES = [r * 4 + s for r in (0, 3, 7) for s in (0, 1)]  # A, 4, 8 in two suits


def test_shoe_net_matches_a_brute_force_of_physical_cards() -> None:
    """Two decks of six faces: twelve physical cards, every ordered deal of them."""
    from solver.games.pokdeng.audit import shoe_net_distribution
    from solver.games.pokdeng.rules import load_rules

    r = replace(load_rules("shoe8"), decks=2, name="shoe2")
    cards = [f for f in FACES for _ in range(2)]  # physical card i has face cards[i]
    n = len(FACES)
    starts = sorted(
        itertools.combinations_with_replacement(range(n), 2), key=lambda t: (t[1], t[0])
    )
    rank = {s: i for i, s in enumerate(starts)}  # dense multiset order
    draws = [points((FACES[a], FACES[b])) <= 4 for a, b in starts]  # mirror (no Pok <= 4)
    rows_p: list[tuple[int, ...]] = []
    rows_d: list[tuple[int, ...]] = []
    idx = range(len(cards))
    for p in itertools.combinations(idx, 2):
        pf = tuple(sorted(FACES.index(cards[i]) for i in p))
        for d in itertools.combinations([i for i in idx if i not in p], 2):
            rest = [i for i in idx if i not in p + d]
            pc, dc = tuple(cards[i] for i in p), tuple(cards[i] for i in d)
            p_pok, d_pok = points(pc) >= 8, points(dc) >= 8
            player_draws = draws[rank[pf]] and not p_pok and not d_pok
            dealer_draws = not d_pok and points(dc) <= 4
            for x, c in itertools.permutations(rest, 2):  # every x, then c != x
                rows_p.append((*pc, cards[x] if player_draws else PAD))
                rows_d.append((*dc, cards[c] if dealer_draws else PAD))
    from pokdeng import causes_model as pm

    counts = settled(rows_p, rows_d, pm.SHOE8)  # identical cards: a shoe's rules
    total = sum(counts.values())
    assert total == 66 * 45 * 8 * 7
    want = {Fraction(a): Fraction(k, total) for a, k in counts.items()}
    got = shoe_net_distribution(r, np.array(draws), 4, FACES)
    assert dict(got) == want


@pytest.mark.slow
def test_shoe_distribution_agrees_with_the_exact_shoe_edge() -> None:
    from solver.games.pokdeng.odds import pokdeng_edge

    edge = pokdeng_edge("shoe8")
    for strategy, ev, push in (
        ("mirror", edge.ev_simple, edge.p_push_simple),
        ("optimal", edge.ev_optimal, edge.p_push_optimal),
    ):
        spec = load_spec("pokdeng", "shoe8", {"player_strategy": strategy}, None)
        assert spec.net is not None and spec.outcome is not None
        assert sum(a * p for a, p in spec.net) == ev and spec.outcome[2] == push


@pytest.mark.slow
def test_full_deck_distribution_agrees_with_the_exact_edge() -> None:
    from solver.games.pokdeng.odds import pokdeng_edge

    edge = pokdeng_edge("standard")
    for strategy, ev, push in (
        ("mirror", edge.ev_simple, edge.p_push_simple),
        ("optimal", edge.ev_optimal, edge.p_push_optimal),
    ):
        spec = load_spec("pokdeng", None, {"player_strategy": strategy}, None)
        assert spec.net is not None and spec.outcome is not None
        assert sum(p for _, p in spec.net) == 1
        assert sum(a * p for a, p in spec.net) == ev
        assert spec.outcome[2] == push
        assert strategy in spec.outcome_note


def test_without_a_strategy_the_outcome_is_not_run_and_says_why(tmp_path: Path) -> None:
    path = str(tmp_path / "log.parquet")
    deal("pokdeng", 300, seed=2, out=path)
    res = cli_audit("pokdeng", [path])
    assert {t["name"] for t in res["fairness"]}.isdisjoint({"outcome", "net"})
    reasons = {nr["name"]: nr["reason"] for nr in res["not_run"]}
    assert set(reasons) == {"outcome", "net", "hold"} and "--player-strategy" in reasons["outcome"]
    assert "--player-strategy" in reasons["hold"] and not res["hold"]
    assert "not run: outcome" in audit_text(res)


@pytest.mark.slow
def test_fair_logs_pass_and_a_dealer_edge_is_flagged(tmp_path: Path) -> None:
    from solver.games.pokdeng.audit import strategy_draws
    from solver.games.pokdeng.rules import load_rules

    opts = {"player_strategy": "optimal"}
    fair, rigged = str(tmp_path / "fair.parquet"), str(tmp_path / "rigged.parquet")
    deal("pokdeng", 20_000, seed=4, out=fair, options=opts)
    deal("pokdeng", 20_000, seed=5, out=rigged, options=opts, bias={"banker_edge": 0.1})
    res = cli_audit("pokdeng", [fair], options=opts, by=["table"])
    for name in ("outcome", "net"):
        for t in res["fairness"]:
            if t["name"] == name:
                assert t["p_value"] > 1e-6, t
    net = next(t for t in res["fairness"] if t["name"] == "net" and t["group"] == "all")
    assert net["n"] == 20_000 and net["df"] == 8 and net["power_rounds"]
    assert not res["not_run"]
    res = cli_audit("pokdeng", [rigged], options=opts)
    assert any(t["name"] == "net" for t in res["fairness"] if t["p_value"] < 1e-6)
    # the players of the optimal log draw as the optimal strategy says
    r = load_rules("standard")
    optimal = strategy_draws(r, "optimal", 4, None)
    mirror = strategy_draws(r, "mirror", 4, None)
    assert (optimal != mirror).any()
    rows = pq.read_table(fair, columns=["round", "role", "hand"]).to_pylist()[:5000]
    dealer_pok = {}
    for row in rows:
        if row["role"] == "dealer":
            h = row["hand"].split()
            dealer_pok[row["round"]] = points(tuple(_card(c) for c in h[:2])) >= 8
    checked = 0
    for row in rows:
        if row["role"] != "player" or dealer_pok[row["round"]]:
            continue
        ids = parse_card_hands(pa.array([row["hand"]]), (2, 3)).ids[:, :2]
        rank = int(colex_rank_array(np.sort(ids, axis=1), presorted=True)[0])
        if optimal[rank] != mirror[rank]:
            assert (len(row["hand"].split()) == 3) == bool(optimal[rank])
            checked += 1
    assert checked > 10


def _card(text: str) -> int:
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    return ranks.index(text[:-1]) * 4 + "SHDC".index(text[-1])


@pytest.mark.parametrize(
    "argv", [["audit", "niuniu", "{log}"], ["deal", "taungau", "--rounds", "5", "--out", "{out}"]]
)
def test_a_player_strategy_for_another_game_is_one_line_and_exit_2(
    tmp_path: Path, argv: list[str]
) -> None:
    import io

    from solver.cli import main

    log = tmp_path / "log.csv"
    log.write_text("round,role,hand\n1,banker,AS 2S 3S 4H 6D\n1,player,KH QH JH 9C 8C\n")
    args = [a.format(log=log, out=tmp_path / "o.csv") for a in argv] + [
        "--player-strategy",
        "mirror",
    ]
    out, err = io.StringIO(), io.StringIO()
    assert main(args, out=out, err=err) == 2
    assert err.getvalue().count("\n") == 1 and "--player-strategy" in err.getvalue()
