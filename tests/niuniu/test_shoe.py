"""Niu Niu from a shoe of N decks (``decks = N``): the table, input with repeated cards,
exact odds against a brute force over rank multisets written here, the exact edge
against pair-by-pair enumeration on a reduced shoe, and the identity that one deck gives
today's figures."""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from dataclasses import replace
from fractions import Fraction
from itertools import combinations_with_replacement, product
from math import comb, prod
from pathlib import Path

import numpy as np
import pytest

from solver.cli import main
from solver.core.cards import CARD_NAMES
from solver.core.errors import BullError, ParseError
from solver.core.indexing import all_multisets, multiset_rank
from solver.games.niuniu.hands import evaluate_arrays
from solver.games.niuniu.odds import edge_of, niuniu_edge, odds, shoe_matchups
from solver.games.niuniu.play import compare, evaluate, evaluate_batch, settle, settle_batch
from solver.games.niuniu.rules import load_rules
from solver.games.niuniu.source import rules_table
from tests.niuniu import reference as ref

REPO = Path(__file__).resolve().parents[2]
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def as_ref(ids: list[int]) -> list[tuple[int, str]]:
    return [ref.card(CARD_NAMES[c]) for c in ids]


# ---------------------------------------------------------------- rules and table


def test_shoe6_preset_and_rule_file(tmp_path: Path) -> None:
    r = load_rules("shoe6")
    assert (r.decks, r.on_tie, r.specials, r.tie_break) == (
        6,
        "push",
        ("five_faces",),
        "highest_card",
    )
    assert r.to_data()["decks"] == 6 and "decks" not in load_rules("classic").to_data()
    f = tmp_path / "three.toml"
    f.write_text('game = "niuniu"\nbase = "classic"\ndecks = 3\n')
    assert load_rules(str(f)).decks == 3
    f.write_text('game = "niuniu"\nbase = "classic"\ndecks = 9\n')
    code, _, err = run("eval", "niuniu", "AS 2S 3S 4S 5S", "--rules", str(f))
    assert code == 2 and "decks" in err and "9" in err and "\n" not in err.strip()


def test_table_rows_and_weights() -> None:
    t = rules_table(load_rules("shoe6"))
    assert t.num_rows == comb(56, 5) == 3_819_816
    w = t.column("weight").astype(np.int64)
    assert int(w.sum()) == comb(312, 5)
    # row i is the multiset of dense rank i; its weight is Π C(6, copies)
    rng = np.random.default_rng(7)
    for i in rng.integers(0, t.num_rows, 200).tolist():
        hand = tuple(int(t.column(f"c{j}")[i]) for j in range(5))
        assert multiset_rank(hand) == i
        assert w[i] == prod(comb(6, m) for m in Counter(hand).values())


def test_table_categories_against_the_reference() -> None:
    """Sampled rows, repeats over-represented, against the plain evaluator."""
    rules = load_rules("shoe6")
    data = rules.to_data()
    t = rules_table(rules)
    hands = np.stack([t.column(f"c{j}") for j in range(5)], axis=1)
    rep = np.flatnonzero((np.diff(hands.astype(int), axis=1) == 0).any(axis=1))
    rng = np.random.default_rng(11)
    rows = np.concatenate([rng.choice(rep, 1500), rng.integers(0, len(hands), 500)])
    cat = t.column("shoe6_category")
    from solver.games.niuniu.rules import Category

    for i in rows.tolist():
        assert Category(int(cat[i])).label == ref.category_of(as_ref(hands[i].tolist()), data)


# ---------------------------------------------------------------- input


def test_repeated_cards_accepted_up_to_the_shoe() -> None:
    h = evaluate("KS KS QH JD 10C", rules="shoe6")
    assert h.category.label == "niu_niu" and h.rest is not None and len(h.rest) == 2
    five = evaluate("5S 5S 5S 5S 5S", rules="shoe6")
    assert five.category.label == "no_bull"  # 15 in any three: no bull, and not a special
    with pytest.raises(ParseError, match="duplicate card KS"):
        evaluate("KS KS QH JD 10C")  # one deck
    three = {"game": "niuniu", "base": "classic", "decks": 3}
    with pytest.raises(ParseError, match=r"card KS appears 4 times.*3-deck shoe holds 3"):
        evaluate("KS KS KS KS 10C", rules=three)
    with pytest.raises(ParseError, match="card KS appears 7 times in the two hands"):
        compare("KS KS KS KS 3D", "KS KS KS 8C 7S", rules="shoe6")
    with pytest.raises(BullError, match="card AS appears 7 times"):
        settle_batch(np.zeros((1, 5), int), np.array([[0, 0, 2, 3, 4]]), rules="shoe6")


def test_identical_hands_tie() -> None:
    assert compare("KS 9H 8C 3D 7S", "KS 9H 8C 3D 7S", rules="shoe6").winner == "push"
    banker = {"game": "niuniu", "base": "shoe6", "on_tie": "banker"}
    s = settle("KS 9H 8C 3D 7S", "9H KS 3D 8C 7S", rules=banker, bet="double")
    assert s.winner == "banker" and s.net == -2  # niu 7 doubles
    code, out, _ = run(
        "compare", "niuniu", "KS KS 9H 8C 7S", "KS KS 9H 8C 7S", "--rules", "shoe6", "--json"
    )
    assert code == 0 and json.loads(out)["winner"] == "push"


def test_batch_matches_single_hands() -> None:
    rng = np.random.default_rng(5)
    hands = rng.integers(0, 52, (300, 5))
    hands[:100, 1] = hands[:100, 0]  # repeats
    b = evaluate_batch(hands, rules="shoe6")
    for i in range(0, 300, 7):
        h = evaluate([int(x) for x in hands[i]], rules="shoe6")
        assert (h.points, int(h.category), h.strength) == (
            int(b["points"][i]),
            int(b["category"][i]),
            int(b["strength"][i]),
        )


# ---------------------------------------------------------------- odds


def test_odds_against_rank_multisets() -> None:
    """Points, five faces, four of a kind and straight flushes over every multiset of
    ranks, each weighted by the ways to draw it from the shoe: Π_r C(4N, m_r)."""
    n = 6
    got = odds("shoe6", None)
    points: Counter[str] = Counter()
    five_faces = quads = 0
    for ranks in combinations_with_replacement(range(1, 14), 5):
        w = prod(comb(4 * n, m) for m in Counter(ranks).values())
        has, pts, _, _ = ref.bulls(list(ranks))
        points["no_bull" if not has else "niu_niu" if pts == 10 else f"niu_{pts}"] += w
        five_faces += w * all(r >= 11 for r in ranks)
        quads += w * (max(Counter(ranks).values()) >= 4)
    assert dict(got.sections["points"]) == dict(points)
    assert sum(points.values()) == got.totals["points"] == comb(52 * n, 5)
    specials = dict(got.sections["specials_before_precedence"])
    assert specials["five_faces"] == five_faces == dict(got.sections["category"])["five_faces"]
    assert specials["four_of_a_kind"] == quads
    assert specials["straight_flush"] == 36 * n**5  # five distinct cards, one suit


def test_one_deck_odds_unchanged() -> None:
    one = odds({"game": "niuniu", "base": "classic", "decks": 1}, None)
    assert dict(one.sections["points"])["niu_niu"] == 191_808
    assert one.totals["points"] == comb(52, 5)


# ---------------------------------------------------------------- edge

FACES = [8, 25, 38, 48, 19, 33, 44, 2]
"""A reduced shoe: eight cards (3S 7H 10D KS 5C 9H JS AD) standing for faces 0..7."""


def reduced(rules: object) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    multis = all_multisets(len(FACES), 5)
    cards = np.sort(np.array(FACES)[multis], axis=1)
    ev = evaluate_arrays(cards, rules)  # type: ignore[arg-type]
    return multis, cards, ev["strength"].astype(np.int64), ev["category"]


@pytest.mark.parametrize(
    ("spec", "bet"),
    [
        ("shoe6", "double"),
        ({"game": "niuniu", "base": "casino", "decks": 2}, "standard"),
        ({"game": "niuniu", "base": "classic", "decks": 3, "on_tie": "banker"}, "double"),
    ],
)
def test_edge_on_a_reduced_shoe_pair_by_pair(spec: object, bet: str) -> None:
    rules = load_rules(spec)  # type: ignore[arg-type]
    data = rules.to_data()
    multis, cards, strength, category = reduced(rules)
    c = Fraction(1, 20)
    hands = [as_ref(h) for h in cards.tolist()]
    keys = [ref.sort_key(h, data) for h in hands]
    # the keys' places in their sorted order compare as the keys do (equal: a tie)
    place = {k: p for p, k in enumerate(sorted(set(keys)))}
    key = np.array([place[k] for k in keys], np.int64)
    table = data["multipliers"][bet]
    mult = np.array(
        [int(table.get(ref.category_of(h, data), table.get("default", 1))) for h in hands],
        np.int64,
    )
    counts = np.zeros((len(multis), len(FACES)), np.int64)  # copies of each face in a hand
    for i, h in enumerate(multis.tolist()):
        for face in h:
            counts[i, face] += 1
    on_tie_banker = data["on_tie"] == "banker"
    for mu in shoe_matchups(
        rules, multis, strength, category, len(FACES), sorted({2, rules.decks})
    ):
        got = edge_of(replace(rules, decks=mu.decks), mu, bet, c)
        n = mu.decks
        choose = np.array([[comb(k, m) for m in range(6)] for k in range(n + 1)], np.int64)
        won = lost = pairs = pushes = 0  # won, lost: stakes times ways
        for i, cp in enumerate(counts.tolist()):
            wp = prod(comb(n, m) for m in cp)
            if not wp:
                continue
            # the banker's ways, each face drawn from the n - cp copies the player left
            ways = np.full(len(counts), wp, np.int64)
            for face, m in enumerate(cp):
                ways *= choose[n - m][counts[:, face]]
            pairs += int(ways.sum())
            won += int(ways[key[i] > key].sum()) * int(mult[i])
            # the banker collects its multiplier when higher, or on a tie if the rules say
            lost += int((ways * mult)[(key[i] <= key) if on_tie_banker else (key[i] < key)].sum())
            if not on_tie_banker:
                pushes += int(ways[key[i] == key].sum())
        num = won * (1 - c) - lost
        assert got.pairs == pairs == comb(8 * n, 5) * comb(8 * n - 5, 5)
        assert got.ev == num / pairs, (spec, n)
        assert got.p_push == Fraction(pushes, pairs)


@pytest.mark.slow
def test_one_deck_through_the_shoe_path_is_todays_edge() -> None:
    """Every multiset of the 40-card deck with one deck's weights (repeats weigh 0)
    gives exactly the one-deck edge of preset no_faces, every bet."""
    rules = load_rules("no_faces")
    multis = all_multisets(40, 5)
    ev = evaluate_arrays(multis, rules)
    mu = shoe_matchups(rules, multis, ev["strength"].astype(np.int64), ev["category"], 40, [1])[0]
    for bet in rules.bets:
        today = niuniu_edge("no_faces", bet)
        got = edge_of(rules, mu, bet, today.commission)
        assert (got.ev, got.p_win, got.p_push, got.pairs) == (
            today.ev,
            today.p_win,
            today.p_push,
            today.pairs,
        )
        assert got.winner_category == today.winner_category


# ---------------------------------------------------------------- the README's 6-deck edge

README_EDGE = re.compile(
    r"^bull edge niuniu --rules shoe6 --bet double +# house edge ([\d.]+)%, P\(push\) ([\d.]+)%$",
    re.M,
)
"""The README's line claiming the 6-deck double-bet figures."""


def _suit_split(n: int) -> dict[tuple[int, int], tuple[int, int, int]]:
    """For ``c`` player and ``d`` banker cards of one rank, dealt from its 4 suits x ``n``
    copies: the ways the player's highest suit (♠ > ♥ > ♣ > ♦) is above, equal to or below
    the banker's, as (win, tie, loss)."""
    suit_counts = {k: [a for a in product(range(6), repeat=4) if sum(a) == k] for k in range(6)}
    out = {}
    for c, d in product(range(1, 6), repeat=2):
        acc = [0, 0, 0]
        for a in suit_counts[c]:
            for b in suit_counts[d]:
                ways = prod(comb(n, x) * comb(n - x, y) for x, y in zip(a, b, strict=True))
                top_a = next(s for s in range(4) if a[s])  # 0 = spades, the highest
                top_b = next(s for s in range(4) if b[s])
                acc[0 if top_a < top_b else 1 if top_a == top_b else 2] += ways
        assert sum(acc) == comb(4 * n, c) * comb(4 * n - c, d)
        out[c, d] = (acc[0], acc[1], acc[2])
    return out


def test_readme_shoe6_double_edge_by_rank_multisets() -> None:
    """The README's ``bull edge niuniu --rules shoe6 --bet double`` figures, recounted
    from RULES.md over the 6,188 multisets of 5 ranks (the solver walks 3.8 M multisets
    of cards): a hand's category and highest rank depend on its ranks only; the 24
    copies of a rank are 4 suits x 6, so the banker's hand is dealt from what the player
    left in Π_r C(24 - c_r, d_r) ways; when both hands have the same category and the
    same highest rank, the suits of that rank decide (♠ > ♥ > ♣ > ♦), an identical
    highest card pushes. Double bet, the winner's multiplier, 5% commission."""
    n, copies = 6, 24
    multis = list(combinations_with_replacement(range(13), 5))  # ranks 0 = A .. 12 = K
    counts = np.zeros((len(multis), 13), np.int64)
    key = np.zeros(len(multis), np.int64)
    mult = np.zeros(len(multis), np.int64)
    for i, m in enumerate(multis):
        for r in m:
            counts[i, r] += 1
        if all(r >= 10 for r in m):  # J, Q, K
            level = 11
        else:
            has, pts, _, _ = ref.bulls([r + 1 for r in m])
            level = pts if has else 0  # niu_niu = 10
        mult[i] = {11: 5, 10: 3, 9: 2, 8: 2, 7: 2}.get(level, 1)
        key[i] = level * 13 + max(m)
    c24 = np.array([comb(copies, k) for k in range(6)], np.int64)
    left = np.array([[comb(copies - c, d) for d in range(6)] for c in range(6)], np.int64)
    base = np.prod(c24[counts], axis=1)  # banker ways from a full shoe
    split = _suit_split(n)
    total = num = ties = 0
    for i, m in enumerate(multis):
        ways = base.copy()
        for r in set(m):  # the ranks the player took: Π_r C(24 - c_r, d_r)
            ways = ways // c24[counts[:, r]] * left[counts[i, r]][counts[:, r]]
        player = int(base[i])
        top = max(m)
        c, d = int(counts[i, top]), counts[:, top]
        wins = int(ways[key < key[i]].sum())
        losses = int((ways * mult)[key > key[i]].sum())
        total += player * int(ways.sum())
        num += player * (19 * int(mult[i]) * wins - 20 * losses)
        same = key == key[i]
        for dd in range(1, 6):
            part = int((ways[same & (d == dd)] // left[c][dd]).sum())
            w, t, lo = split[c, dd]
            num += player // comb(copies, c) * part * int(mult[i]) * (19 * w - 20 * lo)
            ties += player // comb(copies, c) * part * t
    assert total == comb(52 * n, 5) * comb(52 * n - 5, 5)
    edge, push = Fraction(-num, 20 * total), Fraction(ties, total)
    claimed = README_EDGE.search((REPO / "README.md").read_text())
    assert claimed, "README: the shoe6 edge line is gone"
    assert claimed.groups() == (f"{float(100 * edge):.4f}", f"{float(100 * push):.4f}")
