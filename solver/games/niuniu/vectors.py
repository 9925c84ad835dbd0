"""Conformance vectors for Niu Niu: hand-picked hands (every category, every special-hand
boundary, bulls that need the first card written) and showdowns (every tie-break and
suit situation), one of each category and of each situation from a seeded pool, every
bet, a vector that catches each variant of :func:`~solver.games.niuniu.diagnose.niuniu_catalogue`,
then the seeded random sample.

>>> recs, cov = niuniu_vectors("casino", seed=1, sample=0)
>>> cov["uncaught_variants"], recs[0]["id"]
([], 'niuniu-0001')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.kit.vectors import (
    POOL,
    POOL_SEED,
    Differs,
    deal,
    differs_from,
    find_catches,
    finish,
    mark_differs,
    names,
    parse,
    tag_in,
    tag_pool,
)

__all__ = ["niuniu_vectors"]

# hand-picked hands: (cards as written, tags)
_NN_HANDS: tuple[tuple[str, str], ...] = (
    ("7S 3H 10D 8C 6S", "worked_example niu_4_total_34"),
    ("JS QH KD 5C 5S", "worked_example niu_niu"),
    ("AS 2C 4D 7H 9S", "worked_example bull_a_2_7"),
    ("4C 7C 8D JD KH", "worked_example no_bull"),
    ("KS 9H 8C 3D 7S", "worked_example"),
    ("AS 2C 7D 4H 8S", "only_bull_uses_first_card"),
    ("8S AS 2C 7D 4H", "first_card_not_in_bull"),
    ("10S JH QD KC 5S", "several_bulls niu_5"),
    ("5S 5H 10D JC QS", "several_bulls niu_niu"),
    ("JS QH KD JC KS", "five_faces"),
    ("JS QH KD JC 10S", "four_faces_with_ten"),
    ("JS QH KD JC 9S", "four_faces_without_ten fifth_9"),
    ("JS QH KD JC AS", "four_faces_without_ten fifth_A"),
    ("JS JH JD JC 10S", "four_of_a_kind four_faces_with_ten"),
    ("JS JH JD JC QS", "four_of_a_kind five_faces"),
    ("7S 7H 7D 7C 3S", "four_of_a_kind niu_niu"),
    ("AS AH AD AC 2S", "four_of_a_kind five_small_bull total_6"),
    ("2S 2H 2D 2C AS", "four_of_a_kind five_small_bull total_9"),
    ("AS 2S 3S 4S 5S", "straight_flush ace_low"),
    ("9H 10H JH QH KH", "straight_flush king_high"),
    ("JS QS KS AS 2S", "no_wraparound_straight"),
    ("4D 5D 6D 7D 8D", "straight_flush"),
    ("4D 5D 6H 7D 8D", "straight_not_flush"),
    ("AS AH 2D 2C 3S", "five_small_bull total_9"),
    ("AS AH 2D 3C 3S", "five_small_bull total_10 boundary"),
    ("AS 2H 2D 3C 3S", "five_small_bull_fails total_11 boundary"),
    ("AS AH AD 2C 5S", "five_small_bull_fails card_5 total_10"),
    ("AS AH AD AC 5S", "five_small_bull_fails card_5 total_9"),
    ("AS AH 2D 2C 4S", "five_small_bull total_10 boundary card_4"),
    ("4S 4H AD AC 3S", "five_small_bull_fails total_13"),
    ("AS 2S 3S 4S 6S", "flush_not_straight"),
    ("3S 4H 5D 6C 7S", "straight"),
    ("AS 2H 3D 4C 5S", "straight ace_low"),
    ("9S 10H JD QC KS", "straight king_high"),
    ("10S JH QD KC AS", "no_ace_high_straight"),
    ("7S 7H 7D 9C 9S", "three_of_a_kind full_house no_sum_bull"),
    ("6S 6H 6D 2C 2S", "three_of_a_kind full_house"),
    ("5S 5H 5D 3C 7S", "three_of_a_kind trips_bull_only"),
    ("2S 2H 2D 8C 10S", "three_of_a_kind trips_bull_scores_more"),
    ("3S 3H 3D 3C 4S", "four_of_a_kind trips_bull_scores_more"),
    ("9S 9H 9D 4C 8S", "three_of_a_kind"),
    ("10S 10H JD QC KS", "all_ten_valued two_tens"),
    ("10S 10H 10D JC QS", "all_ten_valued three_tens"),
)

_NN_SHOWDOWNS: tuple[tuple[str, str, str], ...] = (
    ("KS 9H 8C 3D 7S", "KH 9S 8D 3C 7H", "worked_example tie_suit_S_vs_H"),
    ("JS QS KS 5H 5D", "4C 7C 8D JD KH", "worked_example niu_niu_vs_no_bull"),
    ("AS AH AD AC KS", "2S 2H 2D 2C 3S", "quads_rank_vs_highest_card"),
    ("KD KS 9D 8D 3D", "KH KC 9H 8H 3H", "pair_at_top_written_low_suit_first"),
    ("KS KD 9D 8D 3D", "KC KH 9H 8H 3H", "pair_at_top_written_high_suit_first"),
)


def _suit_pairs(top: str = "K") -> list[tuple[str, str, str]]:
    """Equal ranks and categories (K 9 8 7 3, or 10 9 8 7 3 without J/Q/K: Niu 7); the
    two top cards' suits decide."""
    suits = "SHDC"
    out = []
    for a in range(4):
        for b in range(a + 1, 4):
            x, y = (s for s in suits if s not in (suits[a], suits[b]))
            out.append(
                (
                    f"{top}{suits[a]} 9{x} 8{x} 7{x} 3{x}",
                    f"{top}{suits[b]} 9{y} 8{y} 7{y} 3{y}",
                    f"tie_all_ranks_equal_suit_{suits[a]}_vs_{suits[b]}",
                )
            )
            out.append(
                (
                    f"{top}{suits[b]} 9{x} 8{x} 7{x} 3{x}",
                    f"{top}{suits[a]} 9{y} 8{y} 7{y} 3{y}",
                    f"tie_all_ranks_equal_suit_{suits[b]}_vs_{suits[a]}",
                )
            )
    return out


def _nn_situations(
    rules: Any,
    p_cat: npt.NDArray[Any],
    b_cat: npt.NDArray[Any],
    pl: npt.NDArray[np.uint8],
    bk: npt.NDArray[np.uint8],
) -> dict[str, npt.NDArray[np.bool_]]:
    """Showdown situations worth a vector each (masks over the pool)."""
    pr = np.sort(pl >> 2, axis=1)[:, ::-1]
    br = np.sort(bk >> 2, axis=1)[:, ::-1]
    same = p_cat == b_cat
    top_p = pl.max(axis=1)
    top_b = bk.max(axis=1)
    out = {
        "categories_differ": ~same,
        "tie_top_rank_differs": same & (pr[:, 0] != br[:, 0]),
        "tie_top_rank_equal_second_differs": same & (pr[:, 0] == br[:, 0]) & (pr[:, 1] != br[:, 1]),
        "tie_all_ranks_equal": same & (pr == br).all(axis=1),
        "tie_no_bull_vs_no_bull": same & (p_cat == 0),
        "tie_niu_niu_vs_niu_niu": same & (p_cat == 10),
    }
    s_p = top_p & 3
    s_b = top_b & 3
    suits = "SHDC"
    for a in range(4):
        for b in range(a + 1, 4):
            out[f"tie_top_suit_{suits[a]}_vs_{suits[b]}"] = (
                same
                & ((top_p >> 2) == (top_b >> 2))
                & (((s_p == a) & (s_b == b)) | ((s_p == b) & (s_b == a)))
            )
    return out


def niuniu_vectors(
    rules: Any = None, seed: int = 20261129, sample: int = 200
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Niu Niu vectors under ``rules`` and their coverage summary."""
    from solver.games.niuniu.diagnose import niuniu_catalogue
    from solver.games.niuniu.hands import evaluate_arrays
    from solver.games.niuniu.rules import Category, load_rules
    from solver.games.niuniu.variant_answers import niuniu_hand_answers, niuniu_showdown_answers

    r = load_rules(rules)
    bet_names = list(r.bets)
    records: list[dict[str, Any]] = []

    flagged: list[tuple[list[int], str, Differs]] = []

    def settles(args: tuple[Any, ...], base: Mapping[str, Any]) -> Differs:
        return differs_from(niuniu_showdown_answers, args, base, ("winner",), ("net",))

    def hand_records(cards: npt.NDArray[np.uint8], tags: list[list[str]]) -> None:
        srt = np.sort(cards, axis=1)
        ev = evaluate_arrays(srt, r)
        at = list(range(len(records), len(records) + len(cards)))
        base = niuniu_hand_answers(cards, r)
        keys = ("has_bull", "points", "category")
        flagged.append((at, "hand", differs_from(niuniu_hand_answers, (cards, r), base, keys)))
        for i in range(len(cards)):
            mask = int(ev["bull_mask"][i])
            bull = [int(srt[i, p]) for p in range(5) if mask >> p & 1]
            records.append(
                {
                    "kind": "hand",
                    "hand": names(cards[i]),
                    "has_bull": bool(ev["has_bull"][i]),
                    "points": int(ev["points"][i]),
                    "category": Category(int(ev["category"][i])).label,
                    "bull": names(bull) if bull else None,
                    "n_bulls": int(ev["n_bulls"][i]),
                    "tags": tags[i],
                }
            )

    def showdown_records(
        pl: npt.NDArray[np.uint8],
        bk: npt.NDArray[np.uint8],
        bet: npt.NDArray[np.int64],
        tags: list[list[str]],
    ) -> None:
        comm = np.full(len(pl), r.commission)
        a = niuniu_showdown_answers(pl, bk, bet, comm, r)
        at = list(range(len(records), len(records) + len(pl)))
        flagged.append((at, "showdown", settles((pl, bk, bet, comm, r), a)))
        for i in range(len(pl)):
            records.append(
                {
                    "kind": "showdown",
                    "player": names(pl[i]),
                    "banker": names(bk[i]),
                    "bet": bet_names[int(bet[i])],
                    "commission": r.commission,
                    "winner": ("player", "banker", "push")[int(a["winner"][i])],
                    "net": float(a["net"][i]),
                    "player_category": Category(int(a["player_category"][i])).label,
                    "banker_category": Category(int(a["banker_category"][i])).label,
                    "tags": tags[i],
                }
            )

    deck = r.deck_size  # the no_faces deck is the ids 0..39: hand-picked J/Q/K hands drop out
    in_deck = [(h, t) for h, t in _NN_HANDS if max(parse(h)) < deck]
    # -- hands: hand-picked, then one of every category from the pool
    picked = np.array([parse(h) for h, _ in in_deck], dtype=np.uint8)
    tags = [t.split() for _, t in in_deck]
    rng = np.random.default_rng(POOL_SEED)
    pool = deal(rng, POOL, 5, deck)
    base_pool = niuniu_hand_answers(pool, r)
    base_picked = niuniu_hand_answers(picked, r)
    have = {int(c) for c in base_picked["category"]}
    extra: dict[int, list[str]] = {}
    for c in Category:
        if int(c) in have:
            continue
        hit = np.flatnonzero(base_pool["category"] == c)
        if len(hit):
            extra.setdefault(int(hit[0]), []).append(f"category_{c.label}")
            have.add(int(c))
    # -- a vector that catches each hand variant
    variants = niuniu_catalogue(r, "all", bet=r.default_bet)
    catches: dict[str, str] = {}
    keys = ("has_bull", "points", "category")
    find_catches(
        variants,
        "hand",
        catches,
        [
            (differs_from(niuniu_hand_answers, (picked, r), base_picked, keys), tag_in(tags)),
            (differs_from(niuniu_hand_answers, (pool, r), base_pool, keys), tag_pool(extra)),
        ],
    )
    hand_records(picked, tags)
    if extra:
        hand_records(pool[list(extra)], list(extra.values()))
    for rec in records:
        rec["tags"] = (
            [f"category_{rec['category']}", *rec["tags"]]
            if not any(t.startswith("category_") for t in rec["tags"])
            else rec["tags"]
        )
    # -- showdowns: hand-picked, situations, every bet, catches
    shows = [
        (p, b, t)
        for p, b, t in [*_NN_SHOWDOWNS, *_suit_pairs("K" if deck == 52 else "10")]
        if max(parse(p) + parse(b)) < deck
    ]
    sp = np.array([parse(p) for p, _, _ in shows], dtype=np.uint8)
    sb = np.array([parse(b) for _, b, _ in shows], dtype=np.uint8)
    s_tags = [t.split() for _, _, t in shows]
    s_bet = np.full(len(sp), bet_names.index(r.default_bet), dtype=np.int64)
    ten = deal(rng, POOL, 10, deck)
    pp, pb = ten[:, :5], ten[:, 5:]
    d_bet = rng.integers(0, len(bet_names), POOL)
    comm = np.full(POOL, r.commission)
    base_deals = niuniu_showdown_answers(pp, pb, d_bet, comm, r)
    rows: list[int] = []
    row_tags: list[list[str]] = []
    situations = _nn_situations(
        r, base_deals["player_category"], base_deals["banker_category"], pp, pb
    )
    situations["tie_after_tie_break"] = (
        base_deals["player_strength"] == base_deals["banker_strength"]
    )
    for name, mask in situations.items():
        hit = np.flatnonzero(mask)
        if len(hit):
            rows.append(int(hit[0]))
            row_tags.append([name])
    for w, label in ((0, "player_wins"), (1, "banker_wins")):
        for cat in sorted(
            set(base_deals["player_category" if w == 0 else "banker_category"].tolist())
        ):
            hit = np.flatnonzero(
                (base_deals["winner"] == w)
                & (base_deals["player_category" if w == 0 else "banker_category"] == cat)
            )
            if len(hit):
                rows.append(int(hit[0]))
                row_tags.append([f"{label}_with_{Category(int(cat)).label}"])
    s_comm = np.full(len(sp), r.commission)
    base_sp = niuniu_showdown_answers(sp, sb, s_bet, s_comm, r)

    def add_row(j: int, tag: str) -> None:  # a deal may stand for several situations
        if j in rows:
            row_tags[rows.index(j)].append(tag)
        else:
            rows.append(j)
            row_tags.append([tag])

    find_catches(
        variants,
        "showdown",
        catches,
        [
            (settles((sp, sb, s_bet, s_comm, r), base_sp), tag_in(s_tags)),
            (settles((pp, pb, d_bet, comm, r), base_deals), add_row),
        ],
    )
    showdown_records(sp, sb, s_bet, s_tags)
    showdown_records(pp[rows], pb[rows], d_bet[rows], row_tags)
    # every bet, with a winning hand of each multiplier the bet pays
    for b, bet in enumerate(bet_names):
        if bet == r.default_bet:
            continue
        sel = [int(np.flatnonzero(base_deals["winner"] == w)[0]) for w in (0, 1)]
        showdown_records(
            pp[sel],
            pb[sel],
            np.full(len(sel), b, dtype=np.int64),
            [[f"bet_{bet}", "player_wins"], [f"bet_{bet}", "banker_wins"]],
        )
    # -- the seeded random sample
    srng = np.random.default_rng(seed)
    hand_records(deal(srng, sample, 5, deck), [["random"] for _ in range(sample)])
    ten = deal(srng, sample, 10, deck)
    showdown_records(
        ten[:, :5],
        ten[:, 5:],
        srng.integers(0, len(bet_names), sample),
        [["random"] for _ in range(sample)],
    )
    for at, mode, diff in flagged:  # the house rules that change each vector: its flags
        mark_differs(records, at, variants, mode, diff)
    return finish(records, "niuniu", r.name, seed, sample, variants, catches)
