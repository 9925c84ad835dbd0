"""Pok Deng from a shoe of N decks (issue 12): odds, strategy and edge against
independent enumerations written here from the rule text (RULES §5), the one-deck
identity, and the input checks for repeated cards."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction
from functools import cache
from math import comb
from pathlib import Path

import numpy as np
import pytest

from solver.core.cards import parse_hand
from solver.core.errors import BullError, ParseError
from solver.games.pokdeng import play
from solver.games.pokdeng.hands import all_hands
from solver.games.pokdeng.odds import odds, pokdeng_edge
from solver.games.pokdeng.rules import PokDengRules, load_rules
from solver.games.pokdeng.shoe import solve_shoe
from solver.games.pokdeng.strategy import DRAW_DEN, solve

# ---------------------------------------------------------------- the rule text, again


def _value(card: int) -> int:
    rank = card // 4  # A = 0 .. K = 12
    return rank + 1 if rank < 9 else 0


@cache
def _klass(cards: tuple[int, ...]) -> tuple[int, int, int]:
    """(type, points, deng) from RULES §5, standard rules (no straights): type codes
    normal 0, sam lueang 1, tong 4, pok 5 (the solver's, so results compare)."""
    pts = sum(_value(c) for c in cards) % 10
    ranks = [c // 4 for c in cards]
    suits = [c % 4 for c in cards]
    if len(cards) == 2:
        deng = 2 if ranks[0] == ranks[1] or suits[0] == suits[1] else 1
        return (5 if pts >= 8 else 0), pts, deng
    if len(set(ranks)) == 1:
        return 4, pts, 5
    if all(r >= 10 for r in ranks):
        return 1, pts, 3
    return 0, pts, (3 if len(set(suits)) == 1 else 1)


def _net(p: tuple[int, int, int], d: tuple[int, int, int]) -> int:
    """Player's net: type, then points; winner paid its deng; equal: deng difference;
    Tong vs Sam Lueang pays 2."""
    if {p[0], d[0]} == {4, 1}:
        return 2 if p[0] == 4 else -2
    if (p[0], p[1]) > (d[0], d[1]):
        return p[2]
    if (p[0], p[1]) < (d[0], d[1]):
        return -d[2]
    return p[2] - d[2]


# ---------------------------------------------------------------- odds


def _label(t: int) -> str:
    return {0: "normal", 1: "sam_lueang", 4: "tong", 5: "pok"}[t]


def test_odds_two_decks_physical_enumeration() -> None:
    """Every 2- and 3-card deal of the 104 physical cards of a 2-deck shoe."""
    rules = PokDengRules.from_data("two", {"decks": 2})
    got = odds(rules, None)
    physical = [c for c in range(52) for _ in range(2)]
    for k in (2, 3):
        types: Counter[str] = Counter()
        deng: Counter[str] = Counter()
        for idx in itertools.combinations(range(104), k):
            t, _, d = _klass(tuple(physical[i] for i in idx))
            types[_label(t)] += 1
            deng[str(d)] += 1
        assert dict(got.sections[f"{k}_card_type"]) == dict(types)
        assert dict(got.sections[f"{k}_card_deng"]) == dict(deng)
        assert got.totals[f"{k}_card_type"] == comb(104, k)


def test_odds_eight_decks_weighted_multisets() -> None:
    """Every face multiset with its explicit weight Π C(8, m) (ways from 416 cards)."""
    got = odds("shoe8", None)
    for k in (2, 3):
        tp: Counter[str] = Counter()
        for hand in itertools.combinations_with_replacement(range(52), k):
            w = 1
            for m in Counter(hand).values():
                w *= comb(8, m)
            t, p, _ = _klass(hand)
            tp[f"{_label(t)}_{p}"] += w
        assert dict(got.sections[f"{k}_card_type_points"]) == dict(tp)
        assert sum(tp.values()) == comb(416, k) == got.totals[f"{k}_card_type_points"]
    # a hand of three identical cards is Tong; a suited hand with two identical is 3 deng
    assert play.evaluate("5S 5S 5S", rules="shoe8").type.label == "tong"
    assert play.evaluate("5S 5S 7S", rules="shoe8").deng == 3
    assert play.evaluate("5S 5S", rules="shoe8").deng == 2
    house = {"base": "shoe8", "name": "h", "flush_with_identical": False}
    assert play.evaluate("5S 5S 7S", rules=house).deng == 1  # paid as a three-card pair
    assert play.evaluate("5S 6S 7S", rules=house).deng == 3


# ---------------------------------------------------------------- strategy by enumeration


def _brute_start(start: tuple[int, int], decks: int, k: int = 4) -> tuple[Fraction, Fraction]:
    """EV(stand), EV(draw) of a start by explicit multiplicity counting: every ordered
    physical selection (dealer D0, D1, [player x], dealer c) of the shoe minus the
    start, its number of ways computed from the copies left of each face."""
    left = np.full(52, decks, dtype=np.int64)
    for c in start:
        left[c] -= 1
    d0, d1, c = (a.reshape(-1) for a in np.indices((52, 52, 52)))

    def dealer_ways(n: np.ndarray) -> np.ndarray:
        ways: np.ndarray = n[d0] * (n[d1] - (d1 == d0)) * (n[c] - (c == d0) - (c == d1))
        return ways

    cls_of, classes = _dealer_finals(k)

    def ev(hand: tuple[int, ...], n: np.ndarray) -> Fraction:
        per = np.zeros(len(classes), dtype=np.int64)
        np.add.at(per, cls_of, dealer_ways(n))
        pk = _klass(hand)
        nets = np.array([_net(pk, d) for d in classes], dtype=np.int64)
        return Fraction(int((per * nets).sum()), int(per.sum()))

    stand = ev(start, left)
    if _klass(start)[0] == 5:
        return stand, stand
    draw = Fraction(0)
    for x in range(52):
        if left[x] == 0:
            continue
        n = left.copy()
        n[x] -= 1
        draw += Fraction(int(left[x]), int(left.sum())) * ev((*start, x), n)
    return stand, draw


@cache
def _dealer_finals(k: int) -> tuple[np.ndarray, list[tuple[int, int, int]]]:
    """The dealer's final hand and its class, per ordered face triple (D0, D1, c) in
    ``np.indices`` order: an index into the list of classes (once per k, whatever the
    shoe and the start)."""
    d0, d1, c = (a.reshape(-1) for a in np.indices((52, 52, 52)))
    seen: dict[tuple[int, int, int], int] = {}
    idx = []
    for a, b, e in zip(d0.tolist(), d1.tolist(), c.tolist(), strict=True):
        two = _klass((a, b))
        cls = two if two[0] == 5 or two[1] > k else _klass((a, b, e))
        idx.append(seen.setdefault(cls, len(seen)))
    cls_of = np.array(idx)
    cls_of.setflags(write=False)
    return cls_of, list(seen)


@pytest.mark.parametrize(
    ("decks", "start", "k"),
    [(8, "AS AS", 4), (8, "7H 5D", 4), (2, "KH KH", 4), (3, "3C 4C", 4), (8, "KH KH", 5)],
)
def test_strategy_against_multiplicity_enumeration(decks: int, start: str, k: int) -> None:
    rules = PokDengRules.from_data(f"d{decks}", {"decks": decks})
    sol = solve_shoe(rules, k)
    cards = parse_hand(start, copies=decks)
    stand, draw = _brute_start((cards[0], cards[1]), decks, k)
    assert sol.ev_stand(cards) == stand
    assert sol.ev_draw(cards) == draw
    adv = play.advise(start, k, rules=rules)
    assert (adv.ev_stand, adv.ev_draw) == (stand, draw)


# ---------------------------------------------------------------- one deck = today


@pytest.mark.parametrize("preset", ["standard", "straights"])
def test_one_deck_identity(preset: str) -> None:
    """The shoe solver at one deck gives every one-deck EV exactly."""
    rules = load_rules(preset)
    one = solve(rules)
    shoe = solve_shoe(rules)
    rows = np.array([shoe.rank_of(h) for h in all_hands(2).tolist()])
    assert (shoe.weight[rows] == 1).all() and shoe.weight.sum() == comb(52, 2)
    for a, b, num in (
        (one.ev_stand_num, shoe.ev_stand_num[rows], "stand"),
        (one.ev_draw_num, shoe.ev_draw_num[rows], "draw"),
    ):
        # cross-multiplied: a / DRAW_DEN == b / shoe.den for every start
        assert (a.astype(object) * shoe.den == b.astype(object) * DRAW_DEN).all(), num
    base = pokdeng_edge(preset, 4)
    same = pokdeng_edge({**rules.to_data(), "name": "x", "decks": 1}, 4)
    assert (same.ev_optimal, same.ev_simple) == (base.ev_optimal, base.ev_simple)
    over = shoe.overall()
    assert Fraction(over["ev_optimal_fraction"]) == base.ev_optimal
    assert over["draws_optimal"] == base.draws_optimal


def test_one_deck_rule_content_unchanged() -> None:
    assert "decks" not in load_rules().to_data()
    assert load_rules("shoe8").to_data()["decks"] == 8
    r = load_rules("shoe8")
    assert PokDengRules.from_data(r.name, r.to_data()) == r
    with pytest.raises(BullError, match="decks"):
        PokDengRules.from_data("x", {"decks": 9})


def test_shoe8_edge_figures() -> None:
    e = pokdeng_edge("shoe8")
    assert e.decks == 8 and e.ev_simple == 0  # the same policy on both sides
    assert e.ev_optimal > 0 and e.p_push_optimal is not None
    assert 0 < e.p_push_optimal < e.p_push_simple  # type: ignore[operator]
    assert "8-deck shoe" in e.text()


# ---------------------------------------------------------------- input


def test_copies_are_checked() -> None:
    with pytest.raises(ParseError, match="duplicate card AS"):
        play.evaluate("AS AS")
    with pytest.raises(ParseError, match=r"AS appears 3 times.*2-deck shoe"):
        play.evaluate("AS AS AS", rules={"decks": 2})
    with pytest.raises(ParseError, match="AS appears 3 times in the two hands"):
        play.compare("AS AS", "AS 2C", rules={"decks": 2})
    with pytest.raises(ParseError, match="AS appears 3 times in row 0"):
        play.settle_batch([[0, 0]], [[0, 4]], rules={"decks": 2})
    with pytest.raises(ParseError, match="AS appears 3 times in row 0"):
        play.evaluate_batch([[0, 0, 0]], rules={"decks": 2})
    assert play.settle("AS AS", "AS AS 2S", rules="shoe8").net == -3  # 2 deng pair vs 3 suited
    assert play.evaluate_batch([[0, 0, 0]], rules="shoe8")["type"].tolist() == [4]


# ---------------------------------------------------------------- report


def test_report_shoe_section(tmp_path: Path) -> None:
    from solver.games.pokdeng.report import _shoe_section, shoe_rows
    from solver.kit.markdown import ReportContext

    rows = shoe_rows(decks=(1, 8))
    assert rows[0].ev_optimal == pokdeng_edge("standard").ev_optimal and rows[0].changed == 0
    assert rows[1].ev_optimal == pokdeng_edge("shoe8").ev_optimal
    ctx = ReportContext(folder=tmp_path, tables=None, plots=False, simulate_rounds=0)
    _shoe_section(ctx)
    text = "\n".join(ctx.md)
    assert "### From one deck to an 8-deck shoe" in text
    assert f"`{rows[1].ev_optimal.numerator}/{rows[1].ev_optimal.denominator}`" in text
    assert text.count("\n| ") >= 2 + 8  # header, rule, one row per shoe size


def test_simulator_deals_from_the_shoe() -> None:
    from solver.games.pokdeng.simulate import simulate_pokdeng

    res = simulate_pokdeng("shoe8", "simple", rounds=20_000, seed=11)
    assert res.contains(0.0)  # the same policy on both sides: EV exactly 0
    # the simulator's own classifier agrees with the rule text on repeated cards
    from solver.games.pokdeng.simulate import pokdeng_classes

    hands = np.array(list(itertools.combinations_with_replacement(range(52), 3)))
    _, pts, deng, _ = pokdeng_classes(hands, load_rules("shoe8"))
    want = [_klass(tuple(h)) for h in hands.tolist()]
    assert pts.tolist() == [w[1] for w in want] and deng.tolist() == [w[2] for w in want]


def test_verify_accepts_shoe_hands(tmp_path: Path) -> None:
    import io

    from solver.cli import main

    f = tmp_path / "s.csv"
    f.write_text('player,dealer,net\n"AS AS","AS AS 2S",-3\n"AS AS","2S 3S",-2\n')
    buf, err = io.StringIO(), io.StringIO()
    assert main(["verify", "pokdeng", str(f), "--rules", "shoe8"], out=buf, err=err) == 0
    three = tmp_path / "three.toml"
    three.write_text('game = "pokdeng"\nbase = "standard"\ndecks = 3\n')
    buf = io.StringIO()
    assert main(["verify", "pokdeng", str(f), "--rules", str(three)], out=buf, err=err) == 1
    assert "card AS appears 4 times in the two hands; a 3-deck shoe holds 3" in buf.getvalue()
