"""Pok Deng hands and settlement against RULES.md §5 and §6 and an independent reference."""

from __future__ import annotations

from itertools import combinations, product

import numpy as np
import pytest

from pokdeng.fixtures import CONFIG_ARGS, NAME, ids, ref_class, ref_settle
from solver.core.cards import CARD_NAMES
from solver.core.errors import RulesError
from solver.games.pokdeng.hands import (
    HandClass,
    all_hands,
    classify,
    classify_all,
    classify_hand,
    settle,
    settle_classes,
    settle_hands,
)
from solver.games.pokdeng.rules import HandType, Kind, PokDengRules, load_rules
from solver.games.pokdeng.strategy import config_rules


def test_card_layout_matches_reference() -> None:
    # the reference reads names with its own table; it must agree with the solver's ids
    assert list(CARD_NAMES) == NAME


@pytest.mark.parametrize("config", list(CONFIG_ARGS))
def test_every_hand_against_brute_force(config: str) -> None:
    """All 1,326 two-card and 22,100 three-card hands, classified independently."""
    straights, ace = CONFIG_ARGS[config]
    rules = config_rules(config)
    assert (rules.straights, rules.ace) == (straights, ace)
    got = classify_all(rules)
    for size in (2, 3):
        hands = all_hands(size)
        assert len(hands) == {2: 1326, 3: 22100}[size]
        assert [tuple(h) for h in hands.tolist()] == sorted(
            combinations(range(52), size), key=lambda h: tuple(reversed(h))
        )  # colex order
        t, p, d = got[size]
        for row, hand in enumerate(hands.tolist()):
            want = ref_class(hand, straights, ace)
            assert (HandType(int(t[row])).label, int(p[row]), int(d[row])) == want, hand


def test_rules_section6_counts() -> None:
    t, p, d = classify_all(load_rules())[2]
    two = all_hands(2)
    assert ((t == HandType.POK) & (p == 9)).sum() == 128
    assert ((t == HandType.POK) & (p == 8)).sum() == 124
    pairs = (two[:, 0] >> 2) == (two[:, 1] >> 2)
    suited = (two[:, 0] & 3) == (two[:, 1] & 3)
    assert pairs.sum() == 78 and suited.sum() == 312
    assert ((d == 2) == (pairs | suited)).all()  # two of a rank or suit: 2 deng
    t3, _, _ = classify_all(load_rules())[3]
    assert (t3 == HandType.TONG).sum() == 52


def _net(player: str, dealer: str, rules: PokDengRules) -> int:
    return settle_hands(parse(player), parse(dealer), rules).net


def parse(text: str) -> tuple[int, ...]:
    return tuple(sorted(ids(text)))


WORKED = [  # RULES §5, base rules: (winner, loser, pays)
    ("9S 9D", "AC 4C 4D", 2),
    ("5S 4C", "9S 9D", 1),
    ("6C 4C 5C", "KH 2S AC", 3),
    ("6C 4C 5C", "KH 2S 3C", 2),
    ("6C 4C 5C", "2S 3S", 1),
]


@pytest.mark.parametrize(("winner", "loser", "pays"), WORKED)
def test_worked_examples(winner: str, loser: str, pays: int) -> None:
    rules = load_rules("standard")
    assert _net(winner, loser, rules) == pays  # as the player
    assert _net(loser, winner, rules) == -pays  # as the dealer
    s = settle_hands(parse(winner), parse(loser), rules)
    assert s.winner == "player"
    assert ref_settle(ref_class(parse(winner)), ref_class(parse(loser))) == pays


def test_worked_example_classes() -> None:
    r = load_rules()
    pair, plain, suited, three = Kind.PAIR, Kind.PLAIN, Kind.SUITED, Kind.THREE_CARDS
    assert classify_hand(parse("9S 9D"), r) == HandClass(HandType.POK, 8, 2, pair)
    assert classify_hand(parse("AC 4C 4D"), r) == HandClass(HandType.NORMAL, 9, 1, three)
    assert classify_hand(parse("5S 4C"), r) == HandClass(HandType.POK, 9, 1, plain)
    assert classify_hand(parse("6C 4C 5C"), r) == HandClass(HandType.NORMAL, 5, 3, three)
    assert classify_hand(parse("KH 2S AC"), r) == HandClass(HandType.NORMAL, 3, 1, three)
    assert classify_hand(parse("KH 2S 3C"), r) == HandClass(HandType.NORMAL, 5, 1, three)
    assert classify_hand(parse("2S 3S"), r) == HandClass(HandType.NORMAL, 5, 2, suited)


@pytest.mark.parametrize("config", ["straights", "straights_low", "straights_high"])
def test_straight_flush_example_changes_with_straights(config: str) -> None:
    r = config_rules(config)
    assert classify_hand(parse("6C 4C 5C"), r) == HandClass(HandType.STRAIGHT_FLUSH, 5, 5)
    # it now pays its own 5 deng against each of the three losers of the base examples
    assert _net("6C 4C 5C", "KH 2S AC", r) == 5
    assert _net("6C 4C 5C", "KH 2S 3C", r) == 5
    assert _net("6C 4C 5C", "2S 3S", r) == 5
    assert [_net("6C 4C 5C", h, load_rules()) for h in ("KH 2S AC", "KH 2S 3C", "2S 3S")] == [
        3,
        2,
        1,
    ]


def test_section5_statements() -> None:
    r = load_rules()
    assert _net("3S 3H 3D", "KS KH KD", r) == 5  # 3-3-3 (9) beats K-K-K (0)
    assert _net("JS JH JD", "QS QH QD", r) == 0  # J-J-J vs Q-Q-Q: push
    assert classify_hand(parse("4S 4H KD"), r).type == HandType.NORMAL  # 3-card 8
    assert classify_hand(parse("AS 8H KD"), r) == HandClass(HandType.NORMAL, 9, 1)
    assert _net("2S 2H 2D", "JS QH KD", r) == 2  # Tong vs Sam Lueang pays 2
    assert _net("JS QH KD", "2S 2H 2D", r) == -2
    assert _net("4S 4H", "8S 9H AC", r) == 2  # paired Pok: 2 deng
    s = load_rules("straights")
    assert _net("2S 2H 2D", "4S 5H 6D", s) == 5  # Tong beats a Straight: 5
    assert _net("9S 10S JS", "JH QD KC", s) == 5  # Straight Flush beats Sam Lueang
    assert classify_hand(parse("JH QD KC"), s).type == HandType.STRAIGHT  # J-Q-K runs
    assert _net("4S 5H 6D", "JH QD KS", s) == 3  # two Straights: 5 beats 0
    assert classify_hand(parse("4S 5H 6D"), s) == HandClass(HandType.STRAIGHT, 5, 3)


def test_ace_positions() -> None:
    low, high, both = (config_rules(c) for c in ("straights_low", "straights_high", "straights"))
    a23, qka, ka2 = parse("AS 2H 3D"), parse("QS KH AD"), parse("KS AH 2D")
    assert classify_hand(a23, low).type == HandType.STRAIGHT
    assert classify_hand(a23, high).type == HandType.NORMAL
    assert classify_hand(a23, both).type == HandType.STRAIGHT
    assert classify_hand(qka, low).type == HandType.NORMAL
    assert classify_hand(qka, high).type == HandType.STRAIGHT
    assert classify_hand(qka, both).type == HandType.STRAIGHT
    for r in (low, high, both):
        assert classify_hand(ka2, r).type == HandType.NORMAL  # never K-A-2


def _all_classes() -> list[tuple[str, int, int]]:
    out: set[tuple[str, int, int]] = set()
    for straights, ace in CONFIG_ARGS.values():
        for size in (2, 3):
            for h in all_hands(size).tolist():
                out.add(ref_class(h, straights, ace))
    return sorted(out)


@pytest.mark.parametrize("pays", [2, 5])
def test_settlement_against_reference(pays: int) -> None:
    """Every pair of hand classes that occurs, both sides, vectorised vs the reference."""
    classes = _all_classes()
    rules = PokDengRules.from_data("t", {"tong_vs_sam_lueang_pays": pays})
    pairs = list(product(classes, classes))
    code = {t.label: int(t) for t in HandType}
    pt = [code[a[0]] for a, _ in pairs]
    dt = [code[b[0]] for _, b in pairs]
    net = settle(
        pt,
        [a[1] for a, _ in pairs],
        [a[2] for a, _ in pairs],
        dt,
        [b[1] for _, b in pairs],
        [b[2] for _, b in pairs],
        rules,
    )
    want = [ref_settle(a, b, pays) for a, b in pairs]
    assert net.tolist() == want
    # zero-sum: swapping the seats negates the net
    rev = {(a, b): n for (a, b), n in zip(pairs, net.tolist(), strict=True)}
    assert all(rev[(a, b)] == -rev[(b, a)] for a, b in pairs)


def test_settle_classes_reasons() -> None:
    r = load_rules()
    pok9 = HandClass(HandType.POK, 9, 1)
    pok8 = HandClass(HandType.POK, 8, 2)
    s = settle_classes(pok9, pok8, r)
    assert (s.winner, s.net) == ("player", 1) and "Pok 9 beats Pok 8" in s.reason
    s = settle_classes(HandClass(HandType.NORMAL, 5, 1), HandClass(HandType.NORMAL, 5, 3), r)
    assert (s.winner, s.net) == ("dealer", -2) and "difference 2" in s.reason
    s = settle_classes(pok8, pok8, r)
    assert (s.winner, s.net) == ("push", 0)


def test_random_showdowns_vectorised_vs_reference() -> None:
    rng = np.random.default_rng(4)
    rules = load_rules("straights")
    for size_p, size_d in ((2, 2), (2, 3), (3, 2), (3, 3)):
        deals = np.array([rng.permutation(52)[: size_p + size_d] for _ in range(2000)])
        p, d = deals[:, :size_p], deals[:, size_p:]
        tp, pp, dp = classify(p, rules)
        td, pd_, dd = classify(d, rules)
        net = settle(tp, pp, dp, td, pd_, dd, rules)
        want = [
            ref_settle(ref_class(a, True, "both"), ref_class(b, True, "both"))
            for a, b in zip(p.tolist(), d.tolist(), strict=True)
        ]
        assert net.tolist() == want


def test_rules_are_data() -> None:
    std = load_rules()
    assert std == load_rules("standard")
    assert (
        std.straights,
        std.tong_vs_sam_lueang_pays,
        std.dealer_draws_at_most,
        std.dealer_pok_first,
    ) == (False, 2, 4, True)
    st = load_rules("straights")
    assert (st.straights, st.ace) == (True, "both")
    for r in (std, st):
        assert PokDengRules.from_data(r.name, r.to_data()) == r
    with pytest.raises(RulesError, match="unknown field 'straight'"):
        PokDengRules.from_data("x", {"straight": True})
    with pytest.raises(RulesError, match=r"unknown field 'deng\.tongg'"):
        PokDengRules.from_data("x", {"deng": {"tongg": 5}})
    with pytest.raises(RulesError, match="tong_vs_sam_lueang_pays"):
        PokDengRules.from_data("x", {"tong_vs_sam_lueang_pays": "2"})
    with pytest.raises(RulesError, match="unknown rule set"):
        load_rules("nope")
    with pytest.raises(RulesError, match="not 'pokdeng'"):
        load_rules({"game": "niuniu"})


def test_common_mistake_variants_are_expressible() -> None:
    """RULES §7: Tong vs Sam Lueang paid 5; a paired Pok given 1 deng."""
    five = PokDengRules.from_data("m", {"tong_vs_sam_lueang_pays": 5})
    assert _net("2S 2H 2D", "JS QH KD", five) == 5
    pair1 = PokDengRules.from_data("m", {"deng": {"pok_pair": 1}})
    assert classify_hand(parse("4S 4H"), pair1).deng == 1
    assert classify_hand(parse("4S 5S"), pair1).deng == 2  # suited Pok unchanged


def test_hand_type_labels() -> None:
    assert [t.label for t in sorted(HandType, reverse=True)] == [
        "pok",
        "tong",
        "straight_flush",
        "straight",
        "sam_lueang",
        "normal",
    ]
    assert HandType.from_label("sam_lueang") is HandType.SAM_LUEANG
    assert repr(HandType.POK) == "HandType.POK"
    assert str(HandClass(HandType.SAM_LUEANG, 0, 3)) == "Sam Lueang, 3 deng"
