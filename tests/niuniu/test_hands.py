"""Niu Niu: the table against an independent evaluator, RULES.md counts and examples."""

from __future__ import annotations

from collections import Counter
from itertools import chain, combinations
from pathlib import Path

import numpy as np
import pytest

import solver.games.niuniu.play as nn
from niuniu import reference as ref
from solver.core.cards import parse_hand
from solver.core.errors import BullError, RulesError
from solver.core.indexing import colex_rank_array
from solver.games.niuniu.rules import Category, load_rules
from solver.store.tables import open_table

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUITS = "SHDC"


def ref_hand(ids: tuple[int, ...] | list[int]) -> list[tuple[int, str]]:
    """Our card ids → the reference's (rank, suit); the id encoding is documented."""
    return [(c // 4 + 1, SUITS[c % 4]) for c in ids]


@pytest.fixture(scope="module")
def table(niuniu_tables: Path):  # type: ignore[no-untyped-def]
    return open_table("niuniu", niuniu_tables)


# ------------------------------------------------------------------ exhaustive checks


@pytest.mark.slow
def test_every_hand_against_the_reference(table) -> None:  # type: ignore[no-untyped-def]
    """All 2,598,960 hands: cards in colex order, bull, points, triple count, specials."""
    lex = np.fromiter(chain.from_iterable(combinations(range(52), 5)), np.uint8, 5 * 2_598_960)
    lex = lex.reshape(-1, 5)
    rows = colex_rank_array(lex, presorted=True)
    cols = {
        n: table.column(n)[rows]
        for n in (
            "c0",
            "c1",
            "c2",
            "c3",
            "c4",
            "has_bull",
            "points",
            "n_bulls",
            "five_faces",
            "four_faces",
            "four_of_a_kind",
            "five_small_bull",
            "straight_flush",
            "bull0",
            "bull1",
            "bull2",
            "classic_category",
            "casino_category",
        )
    }
    assert np.array_equal(np.stack([cols[f"c{i}"] for i in range(5)], axis=1), lex)
    # bull facts depend on the ranks alone: the reference answers each rank multiset
    # once, and every hand is compared with the answer for its ranks
    ranks = (lex // 4).astype(np.int64)
    keys, which = np.unique(ranks @ 13 ** np.arange(4, -1, -1), return_inverse=True)
    want = np.zeros((len(keys), 6), dtype=np.int64)  # has, points, n, first triple (or -1)
    for k, key in enumerate(keys.tolist()):
        rs = [key // 13**e % 13 + 1 for e in range(4, -1, -1)]  # sorted, 1..13
        has, pts, n = ref.bull_info(rs)
        first = next(
            (t for t in combinations(range(5), 3) if sum(min(rs[i], 10) for i in t) % 10 == 0),
            (-1, -1, -1),
        )
        want[k] = (has, pts, n, *first)
    want = want[which.ravel()]
    assert np.array_equal(cols["has_bull"].astype(np.int64), want[:, 0])
    assert np.array_equal(cols["points"].astype(np.int64), want[:, 1])
    assert np.array_equal(cols["n_bulls"].astype(np.int64), want[:, 2])
    for j in range(3):  # the first bull triple's cards, 255 for no bull
        pos = want[:, 3 + j]
        cards = np.where(pos >= 0, lex[np.arange(len(lex)), np.maximum(pos, 0)], 255)
        assert np.array_equal(cols[f"bull{j}"].astype(np.int64), cards)
    names = [c.label for c in Category]
    sf_or_quads = 0
    # specials and categories: only hands that can be special need the slow path
    for i in np.flatnonzero(
        cols["five_faces"]
        | cols["four_faces"]
        | cols["four_of_a_kind"]
        | cols["five_small_bull"]
        | cols["straight_flush"]
        | (cols["classic_category"] > 10)
        | (cols["casino_category"] > 10)
    ):
        h = ref_hand(lex[i].tolist())
        found = ref.specials(h)
        for s in (
            "five_faces",
            "four_faces",
            "four_of_a_kind",
            "five_small_bull",
            "straight_flush",
        ):
            assert bool(cols[s][i]) == (s in found), (lex[i], s)
        assert names[cols["classic_category"][i]] == ref.category(h, ref.CLASSIC_ORDER)
        assert names[cols["casino_category"][i]] == ref.category(h, ref.CASINO_ORDER)
        sf_or_quads += 1
    # a hand flagged by nothing must not be a special under either preset
    plain = ~(
        cols["five_faces"]
        | cols["four_of_a_kind"]
        | cols["five_small_bull"]
        | cols["straight_flush"]
    )
    assert (cols["classic_category"][plain] <= 10).all()
    assert (cols["casino_category"][plain] <= 10).all()
    assert sf_or_quads > 0


def test_rules_section_6_counts(table) -> None:  # type: ignore[no-untyped-def]
    assert table.num_rows == 2_598_960
    counts = np.bincount(table.column("points"), minlength=11).tolist()
    assert counts == [
        872_128,
        171_304,
        168_096,
        171_304,
        168_096,
        177_424,
        168_096,
        171_304,
        168_096,
        171_304,
        191_808,
    ]
    assert int(table.column("five_faces").sum()) == 792
    assert int(table.column("four_faces").sum()) == 1_980
    assert int(table.column("four_of_a_kind").sum()) == 624
    assert int(table.column("five_small_bull").sum()) == 776
    assert int(table.column("straight_flush").sum()) == 36


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["classic", "casino"])
def test_strength_agrees_with_the_rules_on_random_showdowns(table, preset) -> None:  # type: ignore[no-untyped-def]
    """Strength comparison = a direct implementation of each preset's tie-break."""
    beats = ref.classic_beats if preset == "classic" else ref.casino_beats
    strength = table.column(f"{preset}_strength")
    rng = np.random.default_rng(7)
    deals = np.array([rng.permutation(52)[:10] for _ in range(40_000)])
    # bias toward equal categories, where the tie-break decides: same-points pairs
    pa_, ba = np.sort(deals[:, :5], axis=1), np.sort(deals[:, 5:], axis=1)
    sp = strength[colex_rank_array(pa_, presorted=True)]
    sb = strength[colex_rank_array(ba, presorted=True)]
    ties = 0
    for a, b, x, y in zip(pa_.tolist(), ba.tolist(), sp.tolist(), sb.tolist(), strict=True):
        ha, hb = ref_hand(a), ref_hand(b)
        assert x != y, "one deck: no showdown is a push under the presets"
        assert (x > y) == beats(ha, hb), (a, b)
        order = ref.CLASSIC_ORDER if preset == "classic" else ref.CASINO_ORDER
        ties += ref.category(ha, order) == ref.category(hb, order)
    assert ties > 2000


@pytest.mark.slow
def test_casino_tie_breaks_within_specials(table) -> None:  # type: ignore[no-untyped-def]
    """Every pair of disjoint four-of-a-kind and five-small-bull hands: direct rule vs strength."""
    strength = table.column("casino_strength")
    cat = table.column("casino_category")
    for c in (Category.FOUR_OF_A_KIND, Category.FIVE_SMALL_BULL, Category.STRAIGHT_FLUSH):
        idx = np.flatnonzero(cat == c)[:300]
        hands = [tuple(int(table.column(f"c{i}")[j]) for i in range(5)) for j in idx]
        for (i, a), (j, b) in combinations(list(zip(idx.tolist(), hands, strict=True)), 2):
            if set(a) & set(b):
                continue
            assert (strength[i] > strength[j]) == ref.casino_beats(ref_hand(a), ref_hand(b))


# ------------------------------------------------------------------ worked examples (RULES §3)


@pytest.mark.parametrize(
    ("hand", "points", "label"),
    [
        ("7S 3H 10D 8C 6S", 4, "niu_4"),
        ("7D 3D 10C 8S 6H", 4, "niu_4"),
        ("JS QH KD 5C 5S", 10, "niu_niu"),
        ("AS 2H 4C 7D 9S", 3, "niu_3"),
        ("4S 7H 8D JC KS", 0, "no_bull"),
    ],
)
def test_worked_examples(niuniu_tables: Path, hand: str, points: int, label: str) -> None:
    h = nn.evaluate(hand, tables=niuniu_tables)
    assert (h.points, h.category.label) == (points, label)
    assert h.has_bull == (points > 0)


def test_example_bulls(niuniu_tables: Path) -> None:
    h = nn.evaluate("AS 2H 4C 7D 9S", tables=niuniu_tables)
    assert h.bull_names == ["AS", "2H", "7D"]
    assert h.rest == parse_hand("4C 9S")
    h = nn.evaluate("7S 3H 10D 8C 6S", tables=niuniu_tables)
    assert sorted(h.bull_names or []) == sorted(["3H", "7S", "10D"])


def test_example_tie_break_spade_beats_heart(niuniu_tables: Path) -> None:
    c = nn.compare("KS 9H 8C 3D 7S", "KH 9S 8D 3C 7H", "classic", tables=niuniu_tables)
    assert c.player.category == c.banker.category == Category.NIU_7
    assert c.winner == "player"
    assert "KS" in c.reason and "KH" in c.reason


def test_example_settlements(niuniu_tables: Path) -> None:
    niu_niu, no_bull = "JS QS KS 5H 5D", "4C 7C 8D JD KH"
    assert nn.evaluate(no_bull, tables=niuniu_tables).category == Category.NO_BULL
    double = nn.settle(niu_niu, no_bull, bet="double", tables=niuniu_tables)
    assert round(100 * double.net, 9) == 285
    equal = nn.settle(niu_niu, no_bull, bet="equal", tables=niuniu_tables)
    assert round(100 * equal.net, 9) == 95
    niu_8 = "10S 3H 7D 4C 4S"
    assert nn.evaluate(niu_8, tables=niuniu_tables).category == Category.NIU_8
    lost = nn.settle(niu_8, "JH QH KH 5S 5C", bet="double", tables=niuniu_tables)
    assert lost.winner == "banker" and lost.net == -3


def test_casino_preset(niuniu_tables: Path) -> None:
    sf = nn.evaluate("AS 2S 3S 4S 5S", "casino", tables=niuniu_tables)
    # A-2-3-4-5 totals 15 (> 10): a straight flush, not a five small bull
    assert sf.category == Category.STRAIGHT_FLUSH and sf.multiplier == 5
    small = nn.evaluate("AS AH 2S 2H 4D", "casino", tables=niuniu_tables)
    assert small.category == Category.FIVE_SMALL_BULL and small.multiplier == 6
    # classic does not count Five Small Bull, and no three of A A 2 2 4 make 10
    assert (
        nn.evaluate("AS AH 2S 2H 4D", "classic", tables=niuniu_tables).category == Category.NO_BULL
    )
    quads = nn.evaluate("9S 9H 9D 9C 3S", "casino", tables=niuniu_tables)
    assert quads.category == Category.FOUR_OF_A_KIND and quads.multiplier == 4
    # lower quads with a higher kicker lose: the quad rank is compared first
    assert (
        nn.compare("9S 9H 9D 9C 3S", "8S 8H 8D 8C KS", "casino", tables=niuniu_tables).winner
        == "player"
    )
    faces = nn.evaluate("JS QH KD JC QS", "casino", tables=niuniu_tables)
    assert faces.category == Category.FIVE_FACES and faces.multiplier == 3


def test_specials_outrank_under_casino_but_not_classic(niuniu_tables: Path) -> None:
    # four 7s and a 3: no three make a multiple of 10, so classic sees no bull
    assert (
        nn.evaluate("7S 7H 7D 7C 3S", "classic", tables=niuniu_tables).category.label == "no_bull"
    )
    assert (
        nn.compare("7S 7H 7D 7C 3S", "JH QH KH 5S 5C", "casino", tables=niuniu_tables).winner
        == "player"
    )
    assert (
        nn.compare("7S 7H 7D 7C 3S", "JH QH KH 5S 5C", "classic", tables=niuniu_tables).winner
        == "banker"
    )


# ------------------------------------------------------------------ properties


def test_input_order_and_suit_relabelling_do_not_change_points(niuniu_tables: Path) -> None:
    rng = np.random.default_rng(3)
    for _ in range(300):
        hand = rng.permutation(52)[:5].tolist()
        base = nn.evaluate(hand, tables=niuniu_tables)
        shuffled = nn.evaluate(rng.permutation(hand).tolist(), tables=niuniu_tables)
        assert shuffled == base
        perm = rng.permutation(4)
        relabelled = [c // 4 * 4 + int(perm[c % 4]) for c in hand]
        other = nn.evaluate(relabelled, tables=niuniu_tables)
        assert (other.points, other.n_bulls, other.has_bull) == (
            base.points,
            base.n_bulls,
            base.has_bull,
        )


def test_strength_is_a_total_order_consistent_with_compare(niuniu_tables: Path) -> None:
    rng = np.random.default_rng(5)
    for preset in ("classic", "casino"):
        for _ in range(300):
            deal = rng.permutation(52)[:10].tolist()
            p, b = deal[:5], deal[5:]
            c = nn.compare(p, b, preset, tables=niuniu_tables)
            sp = nn.evaluate(p, preset, tables=niuniu_tables).strength
            sb = nn.evaluate(b, preset, tables=niuniu_tables).strength
            assert c.winner == ("player" if sp > sb else "banker")
            rev = nn.compare(b, p, preset, tables=niuniu_tables)
            assert {c.winner, rev.winner} == {"player", "banker"}


def test_batch_matches_single(niuniu_tables: Path) -> None:
    rng = np.random.default_rng(11)
    hands = np.array([rng.permutation(52)[:5] for _ in range(500)])
    for preset in ("classic", "casino"):
        batch = nn.evaluate_batch(hands, preset, tables=niuniu_tables)
        for i, h in enumerate(hands.tolist()):
            one = nn.evaluate(h, preset, tables=niuniu_tables)
            assert int(batch["points"][i]) == one.points
            assert int(batch["strength"][i]) == one.strength
            assert int(batch["category"][i]) == one.category
            # the fast constructor builds the very object the dataclass would
            fields = {f: getattr(one, f) for f in nn.NiuNiuHand.__slots__}
            assert one == nn.NiuNiuHand(**fields)
            assert hash(one) == hash(nn.NiuNiuHand(**fields))


def test_settle_batch_matches_settle(niuniu_tables: Path) -> None:
    rng = np.random.default_rng(12)
    deals = np.array([rng.permutation(52)[:10] for _ in range(300)])
    for preset, bet in (("classic", "equal"), ("classic", "double"), ("casino", "standard")):
        nets = nn.settle_batch(deals[:, :5], deals[:, 5:], preset, bet=bet, tables=niuniu_tables)
        for row, net in zip(deals.tolist(), nets.tolist(), strict=True):
            s = nn.settle(row[:5], row[5:], preset, bet=bet, tables=niuniu_tables)
            assert s.net == pytest.approx(net)


def test_user_rule_file_matches_preset_and_changes_answers(
    tmp_path: Path, niuniu_tables: Path, rule_tables: Path
) -> None:
    data = load_rules("casino").to_data()
    data["name"] = "mycasino"
    import json

    f = tmp_path / "mycasino.json"
    f.write_text(json.dumps(data))
    rng = np.random.default_rng(2)
    hands = np.array([rng.permutation(52)[:5] for _ in range(200)])
    a = nn.evaluate_batch(hands, "casino", tables=niuniu_tables)
    b = nn.evaluate_batch(hands, str(f), tables=rule_tables)
    assert np.array_equal(a["strength"], b["strength"])
    # the "< 10" variant of Five Small Bull: A A 2 2 4 totals exactly 10
    data["special_definitions"]["five_small_bull_total"] = "below_10"
    f.write_text(json.dumps(data))
    assert nn.evaluate("AS AH 2S 2H 4D", str(f), tables=rule_tables).category == Category.NO_BULL
    assert (
        nn.evaluate("AS AH 2S 2H 3D", str(f), tables=rule_tables).category
        == Category.FIVE_SMALL_BULL
    )


def test_rules_round_trip_and_validation(tmp_path: Path) -> None:
    for preset in ("classic", "casino"):
        r = load_rules(preset)
        assert load_rules(r.to_data()) == r.__class__(**{**r.__dict__, "name": r.name})
    with pytest.raises(RulesError, match="unknown rule set 'clasic'"):
        load_rules("clasic")
    bad = load_rules("classic").to_data()
    bad["specials"] = ["five_faces", "six_faces"]
    with pytest.raises(RulesError, match="six_faces"):
        load_rules(bad)
    bad = load_rules("classic").to_data()
    bad["tie_brake"] = "x"
    with pytest.raises(RulesError, match="unknown field 'tie_brake'"):
        load_rules(bad)
    bad = load_rules("classic").to_data()
    bad["multipliers"]["double"]["niu_11"] = 2
    with pytest.raises(RulesError, match="niu_11"):
        load_rules(bad)
    f = tmp_path / "broken.toml"
    f.write_text("specials = [")
    with pytest.raises(RulesError, match="not valid TOML"):
        load_rules(str(f))


def test_bad_input_is_rejected(niuniu_tables: Path) -> None:
    with pytest.raises(BullError, match="duplicate card AS"):
        nn.evaluate("AS AS 2C 3C 4C", tables=niuniu_tables)
    with pytest.raises(BullError, match="expected 5"):
        nn.evaluate("AS 2C 3C 4C", tables=niuniu_tables)
    with pytest.raises(BullError, match="in both hands"):
        nn.compare("AS 2C 3C 4C 5C", "AS 2D 3D 4D 5D", tables=niuniu_tables)
    with pytest.raises(BullError, match="no bet 'double'"):
        nn.settle("AS 2C 3C 4C 5C", "AH 2D 3D 4D 5D", "casino", bet="double", tables=niuniu_tables)


def test_category_counts_per_preset(table) -> None:  # type: ignore[no-untyped-def]
    """Precedence: a hand takes the highest special its preset lists (RULES §6 counts
    before precedence, so these are derived by hand from them)."""
    classic = Counter(table.column("classic_category").tolist())
    assert classic[Category.FIVE_FACES] == 792
    assert sum(classic.values()) == 2_598_960
    casino = Counter(table.column("casino_category").tolist())
    assert casino[Category.STRAIGHT_FLUSH] == 36
    assert casino[Category.FIVE_SMALL_BULL] == 776
    # no five-faces hand is four of a kind? K K K K Q is both: four of a kind ranks higher
    assert casino[Category.FOUR_OF_A_KIND] == 624 - 16
    assert casino[Category.FIVE_FACES] == 792 - 24


def test_batch_rejects_bad_rows(niuniu_tables: Path) -> None:
    good = np.array([[0, 1, 2, 3, 4], [51, 50, 49, 48, 47]])
    assert nn.evaluate_batch(good, tables=niuniu_tables)["rank"].tolist() == [0, 2_598_959]
    with pytest.raises(BullError, match="row 1 repeats a card"):
        nn.evaluate_batch(np.array([[0, 1, 2, 3, 4], [5, 6, 5, 8, 9]]), tables=niuniu_tables)
    with pytest.raises(BullError, match="row 0, column 4: 52 is out of range"):
        nn.evaluate_batch(np.array([[0, 1, 2, 3, 52]]), tables=niuniu_tables)
    with pytest.raises(BullError, match="out of range"):
        nn.evaluate_batch(np.array([[-1, 1, 2, 3, 4]]), tables=niuniu_tables)
    with pytest.raises(BullError, match="shape"):
        nn.evaluate_batch(np.array([[0, 1, 2, 3]]), tables=niuniu_tables)
