"""Pok Deng house rules as data (RULES.md §9; issue 11): the deng of a three-card pair,
what equal type and points pay (``equal_points``) and a house order of two-card kinds
(``two_card_order``) — each against the independent reference of ``fixtures.py`` over
every hand, every pair of hand classes, sampled starts of the exact strategy (every
deal enumerated), the command line, the diagnosis and the simulator.
"""

from __future__ import annotations

import io
import json
import random
from fractions import Fraction
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pokdeng.fixtures import (
    NAME,
    Reference,
    direct_numpy,
    ids,
    ref_class,
    ref_kind,
    ref_settle,
)
from solver.cli import main
from solver.core.errors import RulesError
from solver.core.indexing import colex_rank
from solver.games.pokdeng import odds as pd_odds
from solver.games.pokdeng import play as pd
from solver.games.pokdeng import simulate as pd_sim
from solver.games.pokdeng.hands import all_hands, classify_all, settle, two_card_kind
from solver.games.pokdeng.rulefile import rule_solution
from solver.games.pokdeng.rules import HandType, PokDengRules, load_rules
from solver.games.pokdeng.strategy import DRAW_DEN, overall_ev, solve

KIND_CODE = {"": 0, "plain": 1, "pair": 2, "suited": 3}
ORDER = ["suited", "pair", "plain"]
HOUSES: dict[str, dict[str, Any]] = {
    "pair2_push_order": {
        "deng": {"three_card_pair": 2},
        "equal_points": "push",
        "two_card_order": ORDER,
    },
    "straights_low_higher_pairfirst": {
        "straights": True,
        "ace": "low",
        "equal_points": "higher_deng",
        "two_card_order": ["pair", "suited", "plain"],
    },
    "higher_deng": {"equal_points": "higher_deng"},
    "order_only": {"two_card_order": ["plain", "suited", "pair"], "dealer_draws_at_most": 5},
}


def house(name: str) -> PokDengRules:
    return PokDengRules.from_data(name, {"name": name, **HOUSES[name]})


def reference(r: PokDengRules) -> Reference:
    return Reference(
        r.straights,
        r.ace,
        r.tong_vs_sam_lueang_pays,
        r.deng.three_card_pair,
        r.equal_points,
        r.two_card_order,
    )


@pytest.fixture(scope="module")
def refs() -> dict[str, Reference]:
    return {name: reference(house(name)) for name in HOUSES}


# ------------------------------------------------------------------ the options


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        ({"equal_points": "tie"}, "'equal_points' is 'tie'; expected one of: deng_difference"),
        ({"equal_points": 1}, "'equal_points' must be a string, got 1; expected one of: d"),
        ({"two_card_order": ["suited", "pair"]}, "'two_card_order' is ['suited', 'pair']"),
        ({"two_card_order": ["pair", "pair", "plain"]}, "is ['pair', 'pair', 'plain']; exp"),
        ({"two_card_order": ["flush", "pair", "plain"]}, "unknown entry 'flush'; expected"),
        ({"two_card_order": "suited"}, "'two_card_order' must be a list of strings"),
        ({"deng": {"three_card_pair": 0}}, "'deng.three_card_pair' is 0; must be at least 1"),
        ({"deng": {"three_card_pair": "2"}}, "'deng.three_card_pair' must be an integer"),
        ({"deng": {"three_card_pairs": 2}}, "unknown field 'deng.three_card_pairs'"),
    ],
)
def test_bad_values_are_one_line_errors_naming_the_key(data: dict[str, Any], needle: str) -> None:
    with pytest.raises(RulesError) as exc:
        PokDengRules.from_data("bad", data)
    assert "\n" not in str(exc.value) and needle in str(exc.value), str(exc.value)


@pytest.mark.parametrize("order", [["pair"], ["pair", "pair", "plain"], ["suited"] * 4])
def test_two_card_order_error_lists_the_allowed_values(order: list[str]) -> None:
    with pytest.raises(RulesError) as exc:
        PokDengRules.from_data("bad", {"two_card_order": order})
    text = str(exc.value)
    assert "'suited', 'pair', 'plain'" in text and "[]" in text


def test_defaults_and_round_trip() -> None:
    for preset in ("standard", "straights"):
        data = load_rules(preset).to_data()
        assert data["equal_points"] == "deng_difference"
        assert data["two_card_order"] == [] and data["deng"]["three_card_pair"] == 1
    for name in HOUSES:
        r = house(name)
        assert PokDengRules.from_data(name, r.to_data()) == r
        assert json.loads(json.dumps(r.to_data())) == r.to_data()  # plain data, lists
    assert house("pair2_push_order").two_card_order == tuple(ORDER)


# ------------------------------------------------------------------ every hand


@pytest.mark.parametrize(("straights", "ace"), [(False, "both"), (True, "both"), (True, "low")])
def test_every_hand_three_card_pair_deng(straights: bool, ace: str) -> None:
    """All 1,326 + 22,100 hands with a three-card pair paid 2 (and 4)."""
    for pair in (2, 4):
        rules = PokDengRules.from_data(
            "p", {"straights": straights, "ace": ace, "deng": {"three_card_pair": pair}}
        )
        got = classify_all(rules)
        for size in (2, 3):
            t, p, d = got[size]
            for row, hand in enumerate(all_hands(size).tolist()):
                want = ref_class(hand, straights, ace, pair)
                assert (HandType(int(t[row])).label, int(p[row]), int(d[row])) == want, hand
    # one deck: a three-card pair is never suited, and J-J-Q stays Sam Lueang's 3
    three = all_hands(3)
    ranks, suits = three >> 2, three & 3
    paired = (ranks[:, 0] == ranks[:, 1]) | (ranks[:, 1] == ranks[:, 2])
    one_suit = (suits[:, 0] == suits[:, 1]) & (suits[:, 1] == suits[:, 2])
    assert not (paired & one_suit).any()
    r = PokDengRules.from_data("p", {"deng": {"three_card_pair": 2}})
    assert str(pd.evaluate("JS JH QD", r)) == "JS JH QD: Sam Lueang, 3 deng"
    assert pd.evaluate("AC 4C 4D", r).deng == 2 and pd.evaluate("4S 4H 4D", r).deng == 5


def test_two_card_kinds_of_every_start() -> None:
    kinds = two_card_kind(all_hands(2))
    for row, hand in enumerate(all_hands(2).tolist()):
        assert int(kinds[row]) == KIND_CODE[ref_kind(hand)]
    assert (two_card_kind(all_hands(3)) == 0).all()


@pytest.mark.parametrize("name", list(HOUSES))
def test_every_pair_of_hand_classes(name: str, refs: dict[str, Reference]) -> None:
    """Every (type, points, deng, kind) a hand can have, against every other."""
    ref, r = refs[name], house(name)
    cls = ref.classes
    t = np.array([int(HandType.from_label(c[0])) for c in cls])
    p = np.array([c[1] for c in cls])
    d = np.array([c[2] for c in cls])
    k = np.array([KIND_CODE[c[3]] for c in cls])
    got = settle(t[:, None], p[:, None], d[:, None], t[None], p[None], d[None], r, k[:, None], k)
    assert np.array_equal(got, ref.settle), name
    assert np.array_equal(got, -got.T)  # what one side wins the other pays


def test_order_needs_kinds() -> None:
    with pytest.raises(ValueError, match="two_card_order needs the kind"):
        settle([0], [5], [2], [0], [5], [1], house("pair2_push_order"))


@pytest.mark.parametrize("name", ["pair2_push_order", "straights_low_higher_pairfirst"])
def test_showdowns_end_to_end(name: str) -> None:
    """Random showdowns of real cards through ``settle_batch`` and ``compare``."""
    r = house(name)
    rng = random.Random(name)
    players, dealers, want = [], [], []
    while len(players) < 3000:
        cards = rng.sample(range(52), 6)
        pl, dl = cards[: rng.choice((2, 3))], cards[3 : 3 + rng.choice((2, 3))]
        players.append(pl)
        dealers.append(dl)
        a = ref_class(pl, r.straights, r.ace, r.deng.three_card_pair)
        b = ref_class(dl, r.straights, r.ace, r.deng.three_card_pair)
        kinds = (ref_kind(pl), ref_kind(dl))
        want.append(ref_settle(a, b, 2, r.equal_points, r.two_card_order, kinds))
    for sizes in ((2, 2), (2, 3), (3, 2), (3, 3)):  # a batch holds one size per side
        rows = [i for i in range(len(players)) if (len(players[i]), len(dealers[i])) == sizes]
        got = pd.settle_batch([players[i] for i in rows], [dealers[i] for i in rows], r)
        assert got.tolist() == [want[i] for i in rows]
    for i in range(200):
        s = pd.settle(players[i], dealers[i], r)
        assert s.net == want[i], (players[i], dealers[i], s.reason)


def test_reasons_name_the_rule() -> None:
    r = house("pair2_push_order")
    s = pd.settle("2S 6S", "4H 4D", r)  # Pok 8 suited against Pok 8 pair
    assert (s.net, s.winner) == (2, "player")
    assert "suited beats pair (two_card_order)" in s.reason
    s = pd.settle("6C 4C 5C", "KH 2S 3C", r)
    assert (s.net, s.reason) == (0, "both Normal 5: push (equal_points = push)")
    s = pd.settle("6C 4C 5C", "KH 2S 3C", house("higher_deng"))
    assert s.net == 3 and "player's 3 deng in full (equal_points = higher_deng)" in s.reason


# ------------------------------------------------------------------ the strategy


def _rank(text: str) -> int:
    return colex_rank(sorted(ids(text)))


STARTS = ["5D 7H", "AS 3S", "4C 10D", "JS JH", "2S 3H", "QS KS", "6H 6D", "9S 9D"]


@pytest.mark.slow
@pytest.mark.parametrize("name", list(HOUSES))
def test_strategy_against_direct_enumeration(name: str, refs: dict[str, Reference]) -> None:
    """Sampled starts: every dealer hand, player draw and dealer draw (2,763,600 deals)
    settled by the reference; the solver's stand and draw EVs equal them exactly."""
    r = house(name)
    sol = solve(r)
    for text in STARTS[:: 2 if name == "order_only" else 1]:
        stand, draw = direct_numpy(refs[name], ids(text), r.dealer_draws_at_most)
        row = _rank(text)
        got = (Fraction(int(sol.ev_stand_num[row]), DRAW_DEN), sol.ev_draw(ids(text)))
        assert got == (Fraction(stand, DRAW_DEN), Fraction(draw, DRAW_DEN)), (name, text)


def test_the_options_change_the_strategy() -> None:
    base = solve(load_rules())
    for name in HOUSES:
        sol = solve(house(name))
        assert not np.array_equal(sol.ev_stand_num, base.ev_stand_num), name
        # the dealer's own policy is still exactly fair: the settlement is antisymmetric
        if house(name).dealer_draws_at_most == 4:
            assert overall_ev(sol)["ev_simple_fraction"] == "0/1"


def test_rule_file_strategy_table_is_built_once_and_exact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    r = house("pair2_push_order")
    first = rule_solution(r, 4, tmp_path)
    assert "building the pokdeng_strategy table" in capsys.readouterr().err
    direct = solve(r, 4)
    assert np.array_equal(first.ev_stand_num, direct.ev_stand_num)
    assert np.array_equal(first.ev_draw_num, direct.ev_draw_num)
    assert np.array_equal(first.action, direct.action)
    again = rule_solution(r, 5, tmp_path)  # another policy: another table
    assert "building" in capsys.readouterr().err
    assert np.array_equal(again.ev_draw_num, solve(r, 5).ev_draw_num)
    files = sorted(p.name for p in (tmp_path / "rules").iterdir())
    assert len(files) == 2 and all(f.startswith("pokdeng_strategy-") for f in files)
    edge = pd_odds.pokdeng_edge(r, 4, tmp_path)
    assert edge.ev_optimal == Fraction(overall_ev(direct)["ev_optimal_fraction"])
    assert capsys.readouterr().err == ""  # reused


# ------------------------------------------------------------------ the command line

WORKED = """game = "pokdeng"
name = "house"
description = "A three-card pair pays 2; equal hands push; two cards: suited > pair > plain"
equal_points = "push"
two_card_order = ["suited", "pair", "plain"]

[deng]
three_card_pair = 2
"""


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_worked_rule_file_through_the_cli(tmp_path: Path) -> None:
    path = tmp_path / "house.toml"
    path.write_text(WORKED, encoding="utf-8")
    tables = tmp_path / "tables"
    tables.mkdir()
    common = ("--rules", str(path), "--tables", str(tables))
    r = load_rules(str(path))
    code, out, err = run("compare", "pokdeng", "2S 6S", "4H 4D", *common, "--json")
    assert code == 0, err
    rec = json.loads(out)
    assert (rec["winner"], rec["net"], rec["player"]["deng"]) == ("player", 2, 2)
    code, out, _ = run("compare", "pokdeng", "AC 4C 4D", "9H KD 10S", *common, "--json")
    assert json.loads(out)["net"] == 0 and json.loads(out)["player"]["deng"] == 2  # push
    code, out, _ = run("edge", "pokdeng", *common, "--json")
    rec = json.loads(out)
    assert Fraction(rec["ev_optimal_fraction"]) == Fraction(
        overall_ev(solve(r))["ev_optimal_fraction"]
    )
    assert rec["ev_simple_fraction"] == "0/1"
    code, out, _ = run("advise", "pokdeng", "JS QS", *common, "--json")
    rec = json.loads(out)
    sol = solve(r)
    assert Fraction(rec["ev_draw_fraction"]) == sol.ev_draw(ids("JS QS"))
    assert Fraction(rec["ev_stand_fraction"]) == sol.ev_stand(ids("JS QS"))
    code, out, _ = run("strategy", "pokdeng", *common, "--json", "--dealer-draws-at-most", "3")
    rec = json.loads(out)
    assert rec["ev_optimal_fraction"] == overall_ev(solve(r, 3))["ev_optimal_fraction"]


# ------------------------------------------------------------------ diagnosis


def _verify(tmp_path: Path, rows: list[dict[str, Any]], tables: Path) -> dict[str, Any]:
    path = tmp_path / "claims.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code, out, err = run("verify", "pokdeng", str(path), "--tables", str(tables), "--json")
    assert code == 1, err
    result: dict[str, Any] = json.loads(out)
    return result


def _names(cards: list[int]) -> str:
    return " ".join(NAME[c] for c in cards)


@pytest.mark.parametrize(
    ("variant", "key"),
    [
        ({"equal_points": "higher_deng"}, "equal_points=higher_deng"),
        ({"equal_points": "push"}, "equal_points=push"),
        ({"two_card_order": ORDER}, "two_card_order=suited>pair>plain"),
    ],
)
def test_planted_showdowns_are_diagnosed(
    tmp_path: Path, pokdeng_tables: Path, variant: dict[str, Any], key: str
) -> None:
    """Showdowns settled by a house rule, checked against ``standard``: the house rule
    explains every disagreement (``equal_points=higher_deng`` was the mistake
    ``equal_pays_winner_deng`` before it became a rule)."""
    rng = random.Random(key)
    equal = variant.get("equal_points", "deng_difference")
    order = variant.get("two_card_order", ())
    rows, wrong = [], set()
    for i in range(3000):
        cards = rng.sample(range(52), 6)
        pl, dl = cards[: rng.choice((2, 3))], cards[3 : 3 + rng.choice((2, 3))]
        a, b = ref_class(pl), ref_class(dl)
        net = ref_settle(a, b, 2, equal, order, (ref_kind(pl), ref_kind(dl)))
        if net != ref_settle(a, b):
            wrong.add(i + 1)
        rows.append({"player": _names(pl), "dealer": _names(dl), "net": net})
    s = _verify(tmp_path, rows, pokdeng_tables)
    assert s["disagree"] == len(wrong) > 0
    assert s["diagnosis"][0]["key"] == key, s["diagnosis"][:3]
    assert s["diagnosis"][0]["explains"] == len(wrong)


def test_planted_three_card_pairs_are_diagnosed(tmp_path: Path, pokdeng_tables: Path) -> None:
    rows, wrong = [], set()
    for i, hand in enumerate(combinations(range(0, 52, 3), 3)):
        t, p, d = ref_class(hand, three_card_pair=2)
        rows.append({"hand": _names(list(hand)), "type": t, "points": p, "deng": d})
        if d != ref_class(hand)[2]:
            wrong.add(i + 1)
    s = _verify(tmp_path, rows, pokdeng_tables)
    assert s["disagree"] == len(wrong) > 0
    assert s["diagnosis"][0]["key"] == "deng.three_card_pair=2", s["diagnosis"][:3]


@pytest.mark.parametrize("name", ["pair2_push_order", "higher_deng"])
def test_vectors_catch_every_variant_of_a_house(name: str) -> None:
    from solver.games.pokdeng.vectors import pokdeng_vectors

    _, cov = pokdeng_vectors(house(name).to_data(), seed=1, sample=0)
    assert cov["uncaught_variants"] == []
    assert "equal_points=deng_difference" in cov["variants_caught"]


# ------------------------------------------------------------------ the simulator


def test_simulator_follows_the_house_rules(refs: dict[str, Reference], tmp_path: Path) -> None:
    """The simulator's own classifier and settlement: every hand's deng and every
    class pair agree with the reference; the exact edge lies inside its interval."""
    r = house("pair2_push_order")
    ref = refs["pair2_push_order"]
    for size, table in ((2, ref.two), (3, ref.three)):
        hands = all_hands(size)
        _, pts, dg, _ = pd_sim.pokdeng_classes(hands, r)
        want = [table[tuple(h)] for h in hands.tolist()]
        assert dg.tolist() == [w[2] for w in want] and pts.tolist() == [w[1] for w in want]
    starts = all_hands(2).astype(np.int64)
    players = pd_sim.pokdeng_classes(starts, r)
    dealer = pd_sim.pokdeng_classes(starts[::-1], r)
    net = pd_sim._pd_settle(players, dealer, r)
    for i in range(0, 1326, 7):
        a, b = ref.two[tuple(starts[i].tolist())], ref.two[tuple(starts[1325 - i].tolist())]
        assert int(net[i]) == ref.net(a, b)
    exact = pd_odds.pokdeng_edge(r, 4, tmp_path)
    action = solve(r).action

    def optimal(hand: np.ndarray) -> np.ndarray:
        from solver.core.indexing import colex_rank_array

        return np.asarray(action[colex_rank_array(hand)] == 1)

    best = pd_sim.simulate_pokdeng(r, optimal, 4, rounds=120_000, players=3, seed=5)
    assert best.contains(exact.ev_optimal), (float(exact.ev_optimal), best)
