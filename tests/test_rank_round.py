"""``bull rank`` / ``rank()`` and ``bull round`` / ``settle_round()`` for every game,
against brute force written here from the rule text (RULES.md §3-5), on seeded deals
from one deck or tile set; the streamed ``--input`` path against the same brute force;
and the errors (a card used twice, a bad line named by its number)."""

from __future__ import annotations

import io
import itertools
import json
import random
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from solver.cli import main

# ---------------------------------------------------------------- cards, from §2

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUITS = ["S", "H", "D", "C"]
DECK = [r + s for r in RANKS for s in SUITS]


def rank_of(card: str) -> int:
    return RANKS.index(card[:-1])


def suit_of(card: str) -> str:
    return card[-1]


def deal(rng: random.Random, sizes: Sequence[int], deck: Sequence[str] = DECK) -> list[str]:
    cards = list(deck)
    rng.shuffle(cards)
    out, at = [], 0
    for k in sizes:
        out.append(" ".join(cards[at : at + k]))
        at += k
    return out


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


# ---------------------------------------------------------------- Niu Niu classic, §3

NN_CATEGORIES = ["no_bull"] + [f"niu_{i}" for i in range(1, 10)] + ["niu_niu", "five_faces"]


def nn_value(card: str) -> int:
    return min(rank_of(card) + 1, 10)


def nn_category(hand: str) -> int:
    """0 no bull, 1..9 niu N, 10 niu niu, 11 five faces (classic)."""
    cards = hand.split()
    if all(rank_of(c) >= 10 for c in cards):
        return 11
    vals = [nn_value(c) for c in cards]
    if not any(sum(t) % 10 == 0 for t in itertools.combinations(vals, 3)):
        return 0
    pts = sum(vals) % 10
    return 10 if pts == 0 else pts


CLASSIC_SUITS = {"S": 4, "H": 3, "C": 2, "D": 1}  # ♠ > ♥ > ♣ > ♦


def nn_key(hand: str) -> tuple[int, int, int]:
    high = max(hand.split(), key=lambda c: (rank_of(c), CLASSIC_SUITS[suit_of(c)]))
    return nn_category(hand), rank_of(high), CLASSIC_SUITS[suit_of(high)]


def nn_double(cat: int) -> int:
    return 5 if cat == 11 else 3 if cat == 10 else 2 if 7 <= cat <= 9 else 1


def nn_settle(banker: str, players: Sequence[str], bet: str) -> tuple[list[float], float]:
    mult = nn_double if bet == "double" else (lambda c: 1)
    bk = nn_key(banker)
    nets, banker_net = [], 0.0
    for p in players:
        pk = nn_key(p)
        if pk > bk:
            nets.append(mult(pk[0]) * 0.95)
            banker_net -= mult(pk[0])
        else:
            nets.append(-float(mult(bk[0])))
            banker_net += mult(bk[0])
    return nets, banker_net


def test_niuniu_rank_matches_brute_force() -> None:
    from solver.games.niuniu.table import rank

    rng = random.Random(1401)
    for _ in range(60):
        hands = deal(rng, [5] * rng.randint(2, 10))
        want = sorted(range(len(hands)), key=lambda i: nn_key(hands[i]), reverse=True)
        got = rank(hands)
        assert list(got.order) == want
        assert [NN_CATEGORIES.index(h.category.label) for h in got.hands] == [
            nn_category(hands[i]) for i in want
        ]


def test_niuniu_rank_reasons_and_json() -> None:
    code, out, _ = run(
        "rank", "niuniu", "KS 9H 8C 3D 7S", "JS QS KD 5H 5D", "KH 9S 8D 3C 7H", "--json"
    )
    assert code == 0
    rec = json.loads(out)
    assert rec["order"] == [1, 0, 2]
    assert rec["hands"][0]["reason"] == "niu_niu beats niu_7"
    assert rec["hands"][1]["reason"] == "both niu_7; highest card KS beats KH"  # RULES §3
    assert rec["hands"][2]["reason"] is None
    code, out, _ = run("rank", "niuniu", "KS 9H 8C 3D 7S", "JS QS KD 5H 5D")
    assert code == 0 and out.startswith("1. 5H 5D JS QS KD: niu niu (hand 2)")


@pytest.mark.parametrize("bet", ["equal", "double"])
def test_niuniu_round_matches_brute_force(bet: str) -> None:
    from solver.games.niuniu.table import round_records, settle_round

    rng = random.Random(1402)
    rounds = [deal(rng, [5] * rng.randint(2, 10)) for _ in range(80)]
    streamed = round_records(rounds, None, {"bet": bet}, None)
    for hands, rec in zip(rounds, streamed, strict=True):
        nets, banker_net = nn_settle(hands[0], hands[1:], bet)
        s = settle_round(hands[0], hands[1:], bet=bet)
        assert [p.net for p in s.players] == pytest.approx(nets)
        assert s.banker_net == pytest.approx(banker_net)
        assert [p["net"] for p in rec["player_results"]] == pytest.approx(nets)
        assert rec["banker_net"] == pytest.approx(banker_net)
        # the house keeps 5% of what the players won
        won = sum(n for n in nets if n > 0) / 0.95
        assert s.house == pytest.approx(0.05 * won)


def test_round_cli_worked_example() -> None:
    # RULES §3: a Niu Niu beats a no bull, double bet: paid 3 less 5% = 2.85
    code, out, _ = run(
        "round", "niuniu", "--banker", "4C 7C 8D JD KH", "--player", "JS QS KS 5H 5D",
        "--player", "AS 2S 3S 4S 6D", "--bet", "double", "--json",
    )  # fmt: skip
    assert code == 0
    rec = json.loads(out)
    assert [p["net"] for p in rec["player_results"]] == [2.85, 0.95]
    assert rec["banker_net"] == -4.0


def test_a_card_used_twice_is_named() -> None:
    code, _, err = run("rank", "niuniu", "KS 9H 8C 3D 7S", "JS QS KS 5H 5D")
    assert code == 2 and "KS" in err and "hand 1 and hand 2" in err and err[-1] == "\n"
    code, _, err = run("round", "pokdeng", "--banker", "9S 9D", "--player", "9S 2C")
    assert code == 2 and "9S" in err
    code, _, err = run("rank", "taungau", "[4:2][1:1][2:2][3:3][5:5]", "[4:2][6:6][6:5][5:4][6:1]")
    assert code == 2 and "[4:2]" in err
    code, _, err = run("rank", "niuniu", "KS 9H 8C 3D 7S")
    assert code == 2 and "at least 2" in err


# ---------------------------------------------------------------- streamed from a file


def test_streamed_rounds_json_and_bad_lines(tmp_path: Path) -> None:
    rng = random.Random(1403)
    rounds = [deal(rng, [5] * rng.randint(2, 10)) for _ in range(300)]
    lines = [" | ".join(r) for r in rounds]
    lines[7] = lines[7].replace(lines[7].split()[0], "ZZ", 1)  # a bad card on line 8
    path = tmp_path / "rounds.txt"
    path.write_text("# banker | players\n" + "\n".join(lines) + "\n", encoding="utf-8")
    code, out, err = run("round", "niuniu", "--input", str(path), "--json", "--bet", "double")
    assert code == 1
    assert "line 9" in err and "ZZ" in err  # physical line (the comment is line 1)
    recs = [json.loads(x) for x in out.splitlines()]
    good = rounds[:7] + rounds[8:]
    assert len(recs) == len(good)
    for hands, rec in zip(good, recs, strict=True):
        nets, banker_net = nn_settle(hands[0], hands[1:], "double")
        assert [p["net"] for p in rec["player_results"]] == pytest.approx(nets)
        assert rec["banker_net"] == pytest.approx(banker_net)
    code, text, _ = run("round", "niuniu", "--input", str(path))
    assert text.count("banker net") == len(good)


def test_streamed_lines_are_the_records() -> None:
    """The fast JSON lines parse to exactly the records of the dict path, and the fast
    text is the records' text."""
    from solver import games

    rng = random.Random(1404)
    for name in ("niuniu", "taungau", "pokdeng"):
        if name == "taungau":
            rounds = [tn_deal(rng, rng.randint(2, 6)) for _ in range(200)]
        elif name == "niuniu":
            rounds = [deal(rng, [5] * rng.randint(2, 10)) for _ in range(200)]
        else:
            sizes = [[rng.choice((2, 3)) for _ in range(rng.randint(2, 17))] for _ in range(200)]
            rounds = [pd_fix(deal(rng, s)) for s in sizes]
        g = games.get(name)
        recs = g.round_records(rounds, None, {}, None)
        lines = g.round_lines(rounds, None, {}, None)
        assert [json.loads(x) for x in lines] == recs
        assert g.round_lines(rounds, None, {}, None, text=True) == [g.round_text(r) for r in recs]


# ---------------------------------------------------------------- Tau Ngau, §4

CIVIL = ["66", "11", "44", "31", "55", "33", "22", "65", "64", "61", "51"]
MILITARY = ["63", "54", "62", "53", "52", "43", "42", "41", "32", "21"]
TILES = CIVIL + CIVIL + MILITARY  # 32 physical tiles


def tn_deal(rng: random.Random, n: int) -> list[str]:
    tiles = list(TILES)
    rng.shuffle(tiles)
    return ["".join(f"[{t[0]}:{t[1]}]" for t in tiles[5 * i : 5 * i + 5]) for i in range(n)]


def tn_types(hand: str) -> list[str]:
    return [hand[i + 1] + hand[i + 3] for i in range(0, len(hand), 5)]


def tn_best(types: Sequence[str], zero_is_ten: bool) -> int:
    """The best score: 0 no bull; macau 1..10 (a 0 is 10); pagat 1..10 for 0..9."""
    choices = [(3, 6) if t in ("42", "21") else (int(t[0]) + int(t[1]),) for t in types]
    best = 0
    for vals in itertools.product(*choices):
        if any(sum(t) % 10 == 0 for t in itertools.combinations(vals, 3)):
            d = sum(vals) % 10
            best = max(best, (10 if d == 0 else d) if zero_is_ten else d + 1)
    return best


def tn_macau(p: int, b: int, declines_first: bool) -> int:
    """Player's net: no bull pays 4; else p - b (b = 0 without a bull); the player
    declines (pays 4) when the banker shows first and b - p > 4."""
    if p == 0 or (declines_first and b - p > 4):
        return -4
    return p - b


def test_taungau_rank_matches_brute_force() -> None:
    from solver.games.taungau.table import rank

    rng = random.Random(1405)
    for rules, ten in (("macau", True), ("pagat", False)):
        for _ in range(40):
            hands = tn_deal(rng, rng.randint(2, 6))
            scores = [tn_best(tn_types(h), ten) for h in hands]
            got = rank(hands, rules)
            assert [scores[i] for i in got.order] == sorted(scores, reverse=True)
            assert list(got.order) == sorted(range(len(hands)), key=lambda i: -scores[i])


def test_taungau_round_banker_first_and_pagat() -> None:
    from solver.games.taungau.table import round_records, settle_round

    rng = random.Random(1406)
    rounds = [tn_deal(rng, rng.randint(2, 6)) for _ in range(60)]
    first = round_records(rounds, "macau", {"banker_reveals": "first"}, None)
    pagat = round_records(rounds, "pagat", {}, None)
    for hands, rf, rp in zip(rounds, first, pagat, strict=True):
        m = [tn_best(tn_types(h), True) for h in hands]
        want = [tn_macau(p, m[0], True) for p in m[1:]]
        s = settle_round(hands[0], hands[1:], "macau", banker_reveals="first")
        assert [p.net for p in s.players] == want == [p["net"] for p in rf["player_results"]]
        assert s.banker_net == -sum(want) == rf["banker_net"]
        g = [tn_best(tn_types(h), False) for h in hands]
        even = [0 if p == g[0] else 1 if p > g[0] else -1 for p in g[1:]]  # even money
        assert [p["net"] for p in rp["player_results"]] == even
        assert rp["banker_net"] == -sum(even)


@pytest.mark.slow
def test_taungau_round_banker_last_declines_on_expectation() -> None:
    """Banker reveals last: a player declines when his EV with the bull, over every
    banker hand from the 27 other tiles, is below the -4 of declining (checked for
    players holding a low bull, where the choice is close)."""
    from solver.games.taungau.table import settle_round

    rng = random.Random(1407)
    checked = 0
    while checked < 3:
        hands = tn_deal(rng, 2)
        p = tn_best(tn_types(hands[1]), True)
        if not 1 <= p <= 3:
            continue
        rest = list(TILES)
        for t in tn_types(hands[1]):
            rest.remove(t)
        evs = [tn_macau(p, tn_best(b, True), False) for b in itertools.combinations(rest, 5)]
        declines = sum(evs) / len(evs) < -4
        s = settle_round(hands[0], hands[1:], "macau", banker_reveals="last")
        b = tn_best(tn_types(hands[0]), True)
        assert s.players[0].player_declines == declines
        assert s.players[0].net == (-4 if declines else p - b)
        checked += 1


# ---------------------------------------------------------------- Pok Deng standard, §5


def pd_class(hand: str) -> tuple[int, int, int]:
    """(type, points, deng): type 3 Pok, 2 Tong, 1 Sam Lueang, 0 Normal."""
    cards = hand.split()
    pts = sum(min(rank_of(c) + 1, 10) % 10 for c in cards) % 10
    ranks = [rank_of(c) for c in cards]
    suits = [suit_of(c) for c in cards]
    if len(cards) == 2:
        deng = 2 if suits[0] == suits[1] or ranks[0] == ranks[1] else 1
        return (3 if pts >= 8 else 0), pts, deng
    if len(set(ranks)) == 1:
        return 2, pts, 5
    if all(r >= 10 for r in ranks):
        return 1, pts, 3
    return 0, pts, 3 if len(set(suits)) == 1 else 1


def pd_net(player: str, dealer: str) -> int:
    p, d = pd_class(player), pd_class(dealer)
    if {p[0], d[0]} == {2, 1}:  # Tong against Sam Lueang pays 2
        return 2 if p[0] == 2 else -2
    if (p[0], p[1]) != (d[0], d[1]):
        return p[2] if (p[0], p[1]) > (d[0], d[1]) else -d[2]
    return p[2] - d[2]  # the higher deng wins the difference


def pd_fix(hands: list[str]) -> list[str]:
    """A dealer's two-card Pok settles before anyone draws: players keep two cards."""
    d = hands[0].split()
    if len(d) == 2 and pd_class(hands[0])[0] == 3:
        return [hands[0]] + [" ".join(h.split()[:2]) for h in hands[1:]]
    return hands


def test_pokdeng_rank_matches_brute_force() -> None:
    from solver.games.pokdeng.table import rank

    rng = random.Random(1408)
    for _ in range(60):
        hands = deal(rng, [rng.choice((2, 3)) for _ in range(rng.randint(2, 17))])
        got = rank(hands)
        ordered = [hands[i] for i in got.order]
        for a, b in itertools.pairwise(ordered):
            assert pd_net(a, b) >= 0  # each collects from (or ties) the next
        assert sorted(got.order) == list(range(len(hands)))


def test_pokdeng_round_matches_brute_force() -> None:
    from solver.games.pokdeng.table import round_records, settle_round

    rng = random.Random(1409)
    rounds = [
        pd_fix(deal(rng, [rng.choice((2, 3)) for _ in range(rng.randint(2, 17))]))
        for _ in range(120)
    ]
    recs = round_records(rounds, None, {}, None)
    for hands, rec in zip(rounds, recs, strict=True):
        want = [pd_net(p, hands[0]) for p in hands[1:]]
        s = settle_round(hands[0], hands[1:])
        assert [p.net for p in s.players] == want == [p["net"] for p in rec["player_results"]]
        assert s.banker_net == -sum(want) == rec["dealer_net"]
    assert any(r["dealer_pok"] for r in recs)


def test_pokdeng_dealer_pok_settles_before_anyone_draws() -> None:
    code, out, _ = run(
        "round", "pokdeng", "--banker", "9H KH", "--player", "4C 6C", "--player", "5S 4D",
        "--json",
    )  # fmt: skip
    rec = json.loads(out)
    assert code == 0 and rec["dealer_pok"] is True
    # Normal 0 pays the dealer's 2 deng; Pok 9 (1 deng) vs Pok 9 (2 deng) pays the difference
    assert [p["net"] for p in rec["player_results"]] == [-2, -1]
    code, _, err = run("round", "pokdeng", "--banker", "9H KH", "--player", "4C 6C 5C")
    assert code == 2 and "three cards" in err


def test_worked_example_round_pokdeng() -> None:
    # RULES §5: 6C 4C 5C beats K♥2♠3♣ by the deng difference 2, 9S 9D Pok beats them
    code, out, _ = run(
        "round", "pokdeng", "--banker", "KH 2S 3C", "--player", "6C 4C 5C", "--player",
        "9S 9D", "--json",
    )  # fmt: skip
    rec = json.loads(out)
    assert code == 0
    assert [p["net"] for p in rec["player_results"]] == [2, 2] and rec["dealer_net"] == -4
    assert np.sign(rec["dealer_net"]) == -1
