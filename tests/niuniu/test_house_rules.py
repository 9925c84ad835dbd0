"""Niu Niu house rules against the independent reference (tests/niuniu/reference.py).

**Exhaustive by (rank multiset, flush).** Every rule of RULES §3/§9 and of the issue is
stated in card ranks and values, and one suit fact: whether all five cards share a suit
(straight flush). So a hand's bull, points, bull count, canonical bull (positions of the
sorted hand, whose rank sequence *is* the sorted multiset) and category are functions of
its rank multiset and flush flag. The tests evaluate the reference once per (multiset,
flush) that exists — 6,175 multisets and 1,287 flushes for 52 cards, 1,992 and 252 for
40 — and compare it with the solver's table on *every* hand of the deck (the key of each
hand is computed here from the documented card encoding).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from itertools import combinations_with_replacement, pairwise
from math import comb, prod
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import solver.games.niuniu.play as nn
from niuniu import reference as ref
from solver.core.errors import BullError
from solver.games.niuniu.odds import odds
from solver.games.niuniu.rules import Category, load_rules
from solver.games.niuniu.source import rules_table
from solver.store import custom

SUITS = "SHDC"
LABELS = [c.label for c in Category]


def classic(**changes: Any) -> dict[str, Any]:
    return {**load_rules("classic").to_data(), **changes}


RULE_SETS: dict[str, dict[str, Any]] = {
    # every special, Hong Kong bulls, the loosest definitions; rank by rank, quads first
    "all_hk": classic(
        name="all_hk",
        specials=[
            "straight",
            "three_of_a_kind",
            "four_faces",
            "five_faces",
            "straight_flush",
            "four_of_a_kind",
            "five_small_bull",
        ],
        bull_from_three_of_a_kind=True,
        tie_break="rank_by_rank",
        quads_first=True,
        suit_order=["S", "H", "D", "C"],
        special_definitions={
            "five_small_bull_total": "below_10",
            "five_small_bull_max_rank": "any",
            "four_faces_fifth": "all_ten_valued",
        },
    ),
    # every special in another order, plain bulls, four faces with any fifth card
    "all_plain": classic(
        name="all_plain",
        specials=[
            "three_of_a_kind",
            "five_small_bull",
            "four_faces",
            "straight",
            "four_of_a_kind",
            "five_faces",
            "straight_flush",
        ],
        special_definitions={"four_faces_fifth": "any"},
    ),
    # no tie-break, ties to the banker, a Multi bet
    "hk_ties": classic(
        name="hk_ties",
        specials=["four_faces", "straight", "three_of_a_kind"],
        bull_from_three_of_a_kind=True,
        tie_break="none",
        on_tie="banker",
        bets=["equal", "multi"],
        default_bet="multi",
        multipliers={
            "equal": {"default": 1},
            "multi": {"default": 1, **{f"niu_{k}": k for k in range(2, 10)}, "niu_niu": 10},
        },
    ),
}
NO_FACES_SETS: dict[str, dict[str, Any]] = {
    "no_faces": load_rules("no_faces").to_data(),
    "no_faces_hk": {
        **load_rules("no_faces").to_data(),
        "name": "no_faces_hk",
        "specials": [
            "straight",
            "five_small_bull",
            "three_of_a_kind",
            "straight_flush",
            "four_of_a_kind",
        ],
        "bull_from_three_of_a_kind": True,
        "tie_break": "rank_by_rank",
        "special_definitions": {
            "five_small_bull_total": "below_10",
            "five_small_bull_max_rank": "any",
            "four_faces_fifth": "ten",
        },
    },
}


# ------------------------------------------------------------------ the reference, per key


def multisets(top: int) -> Iterator[tuple[tuple[int, ...], bool]]:
    """Every (sorted rank multiset of 5 from ranks 1..top, at most 4 of a rank, flush)."""
    for ms in combinations_with_replacement(range(1, top + 1), 5):
        if max(Counter(ms).values()) > 4:
            continue
        yield ms, False
        if len(set(ms)) == 5:
            yield ms, True


def representative(ms: tuple[int, ...], flush: bool) -> list[tuple[int, str]]:
    """A hand with these ranks: a flush in spades, or copies of a rank in S, H, D, C."""
    if flush:
        return [(r, "S") for r in ms]
    seen: Counter[int] = Counter()
    hand = []
    for r in ms:
        hand.append((r, SUITS[seen[r]]))
        seen[r] += 1
    if len({s for _, s in hand}) == 1:
        hand[-1] = (hand[-1][0], "H")
    return hand


def key_of(ms: tuple[int, ...], flush: bool) -> int:
    return sum((r - 1) << (4 * i) for i, r in enumerate(ms)) * 2 + flush


def multiplicity(ms: tuple[int, ...], flush: bool) -> int:
    """How many hands of the deck have these ranks and this flush flag."""
    if len(set(ms)) == 5:
        return 4 if flush else 4**5 - 4
    return prod(comb(4, n) for n in Counter(ms).values())


def reference_answers(data: dict[str, Any], top: int) -> dict[int, tuple[Any, ...]]:
    """Per key: (has_bull, points, n_bulls, bull_mask, category label, multiplicity)."""
    out = {}
    trips = data["bull_from_three_of_a_kind"]
    for ms, flush in multisets(top):
        has, pts, n, first = ref.bulls(list(ms), trips)
        mask = sum(1 << p for p in first) if first else 0
        cat = ref.category_of(representative(ms, flush), data)
        out[key_of(ms, flush)] = (has, pts, n, mask, cat, multiplicity(ms, flush))
    return out


def hand_keys(cols: dict[str, np.ndarray]) -> np.ndarray:
    """The (multiset, flush) key of every row, from the card ids (rank * 4 + suit)."""
    cards = np.stack([cols[f"c{i}"] for i in range(5)], axis=1).astype(np.int64)
    ranks, suits = cards >> 2, cards & 3
    key = sum(ranks[:, i] << (4 * i) for i in range(5))
    return key * 2 + (suits == suits[:, :1]).all(axis=1)


def write_rules(folder: Path, data: dict[str, Any]) -> str:
    path = folder / f"{data['name']}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def solver_columns(data: dict[str, Any], tables: Path) -> dict[str, np.ndarray]:
    rules = load_rules(data)
    t = rules_table(rules, tables, notice=lambda s: None)
    names = ["c0", "c1", "c2", "c3", "c4", "has_bull", "points", "n_bulls", "bull_mask"]
    cols = {n: t.column(n) for n in names}
    cols["category"] = t.column(f"{rules.name}_category")
    cols["strength"] = t.column(f"{rules.name}_strength")
    return cols


def check_every_hand(data: dict[str, Any], tables: Path, top: int) -> dict[int, tuple[Any, ...]]:
    answers = reference_answers(data, top)
    cols = solver_columns(data, tables)
    n = comb(4 * top, 5)
    assert len(cols["c0"]) == n
    keys = np.array(sorted(answers))
    hk = hand_keys(cols)
    at = np.searchsorted(keys, hk)
    assert (keys[np.minimum(at, len(keys) - 1)] == hk).all()  # every hand has its key
    table = [answers[int(k)] for k in keys]
    for j, name in enumerate(("has_bull", "points", "n_bulls", "bull_mask")):
        want = np.array([a[j] for a in table], dtype=np.int64)[at]
        bad = np.flatnonzero(cols[name].astype(np.int64) != want)
        assert not len(bad), (name, [int(cols[f"c{i}"][bad[0]]) for i in range(5)])
    want_cat = np.array([LABELS.index(a[4]) for a in table], dtype=np.int64)[at]
    bad = np.flatnonzero(cols["category"].astype(np.int64) != want_cat)
    assert not len(bad), [int(cols[f"c{i}"][bad[0]]) for i in range(5)]
    # every (multiset, flush) occurs exactly as often as the combinatorics say
    assert (np.bincount(at, minlength=len(keys)) == [a[5] for a in table]).all()
    return answers


def category_counts(answers: dict[int, tuple[Any, ...]]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for a in answers.values():
        counts[a[4]] += a[5]
    return counts


# ------------------------------------------------------------------ every hand


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_every_hand_of_52_cards_against_the_reference(name: str, rule_tables: Path) -> None:
    data = RULE_SETS[name]
    answers = check_every_hand(data, rule_tables, 13)
    res = odds(load_rules(data), rule_tables)
    assert dict(res.sections["category"]) == {
        k: v for k, v in category_counts(answers).items() if v
    } | {k: v for k, v in dict(res.sections["category"]).items() if v == 0}


@pytest.mark.parametrize("name", sorted(NO_FACES_SETS))
def test_every_hand_of_40_cards_against_the_reference(
    name: str, rule_tables: Path, niuniu_tables: Path
) -> None:
    """The no_faces preset (its committed table) and a Hong Kong rule file on 40 cards."""
    check_every_hand(NO_FACES_SETS[name], niuniu_tables if name == "no_faces" else rule_tables, 10)


def test_no_faces_category_counts_by_rank_multisets(niuniu_tables: Path) -> None:
    """The preset's odds over all C(40, 5) hands = the reference's category of every rank
    multiset weighted by how many hands have it (the ranking needs no suit)."""
    counts: Counter[str] = Counter()
    data = NO_FACES_SETS["no_faces"]
    for ms, flush in multisets(10):
        counts[ref.category_of(representative(ms, flush), data)] += multiplicity(ms, flush)
    assert sum(counts.values()) == comb(40, 5) == 658_008
    res = odds("no_faces", niuniu_tables)
    assert dict(res.sections["category"]) == dict(counts)
    assert [lb for lb, _ in res.sections["category"]][-3:] == [
        "niu_niu",
        "three_of_a_kind",
        "four_of_a_kind",
    ]
    assert counts["four_of_a_kind"] == 10 * 36  # a rank's four cards and one of 36 others
    assert res.totals["category"] == 658_008
    faces = dict(res.sections["specials_before_precedence"])
    assert faces["five_faces"] == faces["four_faces"] == 0


def test_the_no_faces_table_is_every_40_card_hand_in_colex_order(niuniu_tables: Path) -> None:
    from solver.store.tables import open_table

    t = open_table("niuniu_no_faces", niuniu_tables)
    cards = np.stack([t.column(f"c{i}") for i in range(5)], axis=1).astype(np.int64)
    assert t.num_rows == 658_008 and cards.max() == 39
    binom = np.array([[comb(n, k) for k in range(6)] for n in range(52)], dtype=np.int64)
    rank = sum(binom[cards[:, i], i + 1] for i in range(5))
    assert (rank == np.arange(658_008)).all() and (np.diff(cards, axis=1) > 0).all()


# ------------------------------------------------------------------ showdowns


def _deals(rng: np.random.Generator, n: int, deck: int) -> np.ndarray:
    return np.argsort(rng.random((n, deck)), axis=1)[:, :10]


@pytest.mark.parametrize("name", ["all_hk", "all_plain", "hk_ties", "no_faces", "no_faces_hk"])
def test_strength_orders_showdowns_as_the_reference(
    name: str, rule_tables: Path, niuniu_tables: Path
) -> None:
    data = (RULE_SETS | NO_FACES_SETS)[name]
    deck = 40 if data["deck"] == "no_faces" else 52
    cols = solver_columns(data, niuniu_tables if name == "no_faces" else rule_tables)
    rng = np.random.default_rng(17)
    deals = _deals(rng, 6000, deck)
    binom = np.array([[comb(n, k) for k in range(6)] for n in range(52)], dtype=np.int64)

    def rows(h: np.ndarray) -> np.ndarray:
        s = np.sort(h, axis=1)
        return sum(binom[s[:, i], i + 1] for i in range(5))

    sp = cols["strength"][rows(deals[:, :5])].astype(np.int64)
    sb = cols["strength"][rows(deals[:, 5:])].astype(np.int64)
    ties = 0
    for d, x, y in zip(deals.tolist(), sp.tolist(), sb.tolist(), strict=True):
        a = [(c // 4 + 1, SUITS[c % 4]) for c in d[:5]]
        b = [(c // 4 + 1, SUITS[c % 4]) for c in d[5:]]
        ka, kb = ref.sort_key(a, data), ref.sort_key(b, data)
        assert (x > y, x == y) == (ka > kb, ka == kb), (d, data["name"])
        ties += ka == kb
    assert (ties > 0) == (data["tie_break"] == "none")


def test_settlement_follows_the_reference(rule_tables: Path, tmp_path: Path) -> None:
    """Random showdowns settled under ties-to-the-banker and a Multi bet."""
    data = RULE_SETS["hk_ties"]
    path = write_rules(tmp_path, data)
    rng = np.random.default_rng(23)
    deals = _deals(rng, 800, 52)
    for bet in ("multi", "equal"):
        nets = nn.settle_batch(deals[:, :5], deals[:, 5:], path, bet=bet, tables=rule_tables)
        for d, batch_net in zip(deals.tolist(), nets.tolist(), strict=True):
            a = [(c // 4 + 1, SUITS[c % 4]) for c in d[:5]]
            b = [(c // 4 + 1, SUITS[c % 4]) for c in d[5:]]
            want = ref.net(a, b, data, bet, 0.05)
            got = nn.settle(d[:5], d[5:], path, bet=bet, tables=rule_tables)
            assert got.net == pytest.approx(want) and batch_net == pytest.approx(want)


def test_on_tie_decides_equal_hands(rule_tables: Path, tmp_path: Path) -> None:
    banker_ties = write_rules(tmp_path, RULE_SETS["hk_ties"])
    pushes = write_rules(tmp_path, {**RULE_SETS["hk_ties"], "name": "push", "on_tie": "push"})
    p, b = "KS 9H 8C 3D 7S", "KH 9S 8D 3C 7H"  # both niu 7, no tie-break
    s = nn.settle(p, b, banker_ties, bet="multi", tables=rule_tables)
    assert s.winner == "banker" and s.net == -7 and "ties go to the banker" in s.comparison.reason
    s = nn.settle(p, b, pushes, bet="multi", tables=rule_tables)
    assert s.winner == "push" and s.net == 0
    # with one deck and a card tie-break, on_tie never matters
    strict = write_rules(tmp_path, classic(name="strict", on_tie="banker"))
    assert nn.compare(p, b, strict, tables=rule_tables).winner == "player"


# ------------------------------------------------------------------ Hong Kong bulls


@pytest.mark.parametrize(
    ("hand", "plain", "hk"),
    [
        ("5S 5H 5D 3C 7S", "no_bull", "niu_niu"),  # 5+5+5 = 15; 3+7 = 10
        ("2S 2H 2D 8C KS", "niu_4", "niu_8"),  # 2+8+K = 20 leaves 4; the 2s leave 18
        ("3S 3H 3D 3C 4S", "niu_6", "niu_7"),  # 3+3+4 = 10 leaves 6; three 3s leave 7
        ("KS KH KD 4C 5S", "niu_9", "niu_9"),  # three 10-valued cards: the same bull
        ("7S 7H 7D 9C 9S", "no_bull", "niu_8"),
    ],
)
def test_bull_from_three_of_a_kind(hand: str, plain: str, hk: str, rule_tables: Path) -> None:
    base = classic(name="plain_bulls", specials=[])
    assert nn.evaluate(hand, base, tables=rule_tables).category.label == plain
    h = nn.evaluate(
        hand, {**base, "name": "hk", "bull_from_three_of_a_kind": True}, tables=rule_tables
    )
    assert h.category.label == hk and h.has_bull
    assert len({c >> 2 for c in h.bull or ()}) == 1 or plain == hk


# ------------------------------------------------------------------ the deck


def test_cards_outside_the_no_faces_deck_are_refused(niuniu_tables: Path) -> None:
    with pytest.raises(BullError, match="card KS is not in the no_faces deck"):
        nn.evaluate("KS 9H 8C 3D 7S", "no_faces", tables=niuniu_tables)
    with pytest.raises(BullError, match="card JD is not in the no_faces deck"):
        nn.compare("AS 2S 3S 4S 6S", "JD 9H 8C 3D 7S", "no_faces", tables=niuniu_tables)
    hands = np.array([[0, 1, 2, 3, 4], [5, 6, 7, 8, 47]])
    with pytest.raises(BullError, match="row 1: card QC is not in the no_faces deck"):
        nn.evaluate_batch(hands, "no_faces", tables=niuniu_tables)
    ok = nn.evaluate_batch(hands[:1], "no_faces", tables=niuniu_tables)
    assert ok["category"].tolist() == [Category.FOUR_OF_A_KIND]  # A A A A 2


def test_no_faces_preset_ranking(niuniu_tables: Path) -> None:
    def cat(h: str) -> str:
        return nn.evaluate(h, "no_faces", tables=niuniu_tables).category.label

    assert cat("10S 10H 10D 10C 9S") == "four_of_a_kind"
    assert cat("10S 10H 10D 9C 9S") == "three_of_a_kind"  # a full house
    assert cat("5S 5H 5D 3C 7S") == "three_of_a_kind"
    assert cat("10S 9H AD 3H 7C") == "niu_niu"
    # niu 3 < niu niu < three of a kind < four of a kind (consecutive hands are disjoint)
    order = ["AS 2H 4C 7D 9S", "10S 9H AD 3H 7C", "5S 5H 5D 3C 7S", "2S 2H 2D 2C 3S"]
    for low, high in pairwise(order):
        assert nn.compare(high, low, "no_faces", tables=niuniu_tables).winner == "player"
        assert nn.compare(low, high, "no_faces", tables=niuniu_tables).winner == "banker"


# ------------------------------------------------------------------ the rule file's own table


def test_a_rule_file_table_is_built_once_cached_and_reused(tmp_path: Path) -> None:
    rules = load_rules(NO_FACES_SETS["no_faces_hk"])
    said: list[str] = []
    custom._OPEN.clear()
    t = rules_table(rules, tmp_path, notice=said.append)
    assert len(said) == 1 and "building the niuniu_no_faces_trips_bull table" in said[0]
    assert t.path.parent == tmp_path / "rules" and t.num_rows == 658_008
    assert t.rules == {"no_faces_hk": rules.to_data()}
    custom._OPEN.clear()  # a new process: the cached file is believed, not rebuilt
    again = rules_table(rules, tmp_path, notice=said.append)
    assert len(said) == 1 and again.path == t.path
    assert (again.column("no_faces_hk_strength") == t.column("no_faces_hk_strength")).all()
    # the same content under another name is another rule set, another file
    other = load_rules({**rules.to_data(), "name": "renamed"})
    assert rules_table(other, tmp_path, notice=said.append).path != t.path and len(said) == 2


def test_a_rule_file_equal_to_a_preset_answers_like_it(
    rule_tables: Path, niuniu_tables: Path, tmp_path: Path
) -> None:
    path = write_rules(tmp_path, {**load_rules("casino").to_data(), "name": "mycasino"})
    rng = np.random.default_rng(2)
    hands = np.array([rng.permutation(52)[:5] for _ in range(300)])
    a = nn.evaluate_batch(hands, "casino", tables=niuniu_tables)
    b = nn.evaluate_batch(hands, path, tables=rule_tables)
    for k in ("strength", "category", "points", "bull_mask", "n_bulls", "rank"):
        assert (a[k] == b[k]).all(), k
