"""Niu Niu (5 cards): rules, vectorised evaluation of every hand, and the table build.

A hand is five card ids (:mod:`solver.core.cards`). The **canonical bull** is the first
valid triple of positions, in lexicographic order, of the canonically sorted hand.

>>> rules = load_rules("classic")
>>> from solver.core.cards import parse_hand
>>> ev = evaluate_arrays(np.array([parse_hand("7S 3H 10D 8C 6S")]), rules)
>>> int(ev["points"][0]), Category(int(ev["category"][0])).label
(4, 'niu_4')
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.games.niuniu.rules import PRESETS, SPECIALS, Category, NiuNiuRules, load_rules

__all__ = [
    "TRIPLES",
    "build_tables",
    "evaluate_arrays",
    "strength_arrays",
]


TRIPLES: tuple[tuple[int, int, int], ...] = tuple(combinations(range(5), 3))
"""The ten bull triples of positions, in the lexicographic order that picks the canonical bull."""


# ---------------------------------------------------------------- vectorised evaluation


def _base_arrays(cards: npt.NDArray[np.integer]) -> dict[str, npt.NDArray[Any]]:
    """Rule-independent facts of sorted hands (shape (n, 5))."""
    c = np.asarray(cards, dtype=np.uint8)
    rank = c >> 2
    suit = c & 3
    value = np.minimum(rank + 1, 10).astype(np.int16)
    total = value.sum(axis=1)
    ok = np.stack(
        [(value[:, a] + value[:, b] + value[:, d]) % 10 == 0 for a, b, d in TRIPLES], axis=1
    )
    has_bull = ok.any(axis=1)
    first = np.argmax(ok, axis=1)
    masks = np.array([(1 << a) | (1 << b) | (1 << d) for a, b, d in TRIPLES], dtype=np.uint8)
    bull_mask = np.where(has_bull, masks[first], 0).astype(np.uint8)
    points = np.where(has_bull, (total - 1) % 10 + 1, 0).astype(np.uint8)
    faces = (rank >= 10).sum(axis=1)
    return {
        "rank": rank,
        "suit": suit,
        "value": value,
        "total": total,
        "has_bull": has_bull,
        "n_bulls": ok.sum(axis=1).astype(np.uint8),
        "bull_mask": bull_mask,
        "points": points,
        "faces": faces,
        "tens": (rank == 9).sum(axis=1),
    }


def special_flags(
    base: Mapping[str, npt.NDArray[Any]], rules: NiuNiuRules | None = None
) -> dict[str, npt.NDArray[np.bool_]]:
    """Which specials each hand qualifies for, under ``rules``' definitions
    (``None``: the standard definitions of RULES §3)."""
    rank, suit = base["rank"], base["suit"]
    fsb_total = rules.five_small_bull_total if rules else "at_most_10"
    fsb_rank = rules.five_small_bull_max_rank if rules else "4"
    ff_fifth = rules.four_faces_fifth if rules else "ten"
    faces, total = base["faces"], base["total"]
    small = total <= 10 if fsb_total == "at_most_10" else total < 10
    if fsb_rank == "4":
        small = small & (rank.max(axis=1) <= 3)
    four_faces = (faces == 4) & (base["tens"] == 1) if ff_fifth == "ten" else faces == 4
    return {
        "five_faces": faces == 5,
        "four_faces": four_faces,
        # ranks of sorted cards are sorted: four equal ranks sit at 0..3 or 1..4
        "four_of_a_kind": (rank[:, 0] == rank[:, 3]) | (rank[:, 1] == rank[:, 4]),
        "straight_flush": (suit == suit[:, :1]).all(axis=1) & (rank[:, 4] - rank[:, 0] == 4),
        "five_small_bull": small,
    }


def categories(
    base: Mapping[str, npt.NDArray[Any]],
    flags: Mapping[str, npt.NDArray[np.bool_]],
    rules: NiuNiuRules,
) -> npt.NDArray[np.uint8]:
    """Each hand's category: the highest-ranked special the rules count, else its points."""
    cat = base["points"].astype(np.uint8).copy()
    for special in rules.specials:  # listed low to high: later ones override
        cat[flags[special]] = Category[special.upper()]
    return cat


def strength_arrays(
    cards: npt.NDArray[np.integer], category: npt.NDArray[np.integer], rules: NiuNiuRules
) -> npt.NDArray[np.int32]:
    """One integer (int32) per hand: comparing two hands under ``rules`` (tie-break included) is
    comparing their strengths."""
    c = np.asarray(cards, dtype=np.int64)
    rank = c >> 2
    suit_strength = np.array(rules.suit_strength, dtype=np.int64)[c & 3]
    card_key = rank * 4 + suit_strength
    cat_rank = np.array(rules.category_rank, dtype=np.int64)[np.asarray(category)]
    if rules.tie_break == "highest_card":
        key = card_key.max(axis=1)
    elif rules.tie_break == "rank_by_rank":
        order = rank[:, ::-1].copy()  # ranks high to low (cards are sorted)
        if rules.quads_first:
            quads = np.asarray(category) == Category.FOUR_OF_A_KIND
            low_quad = quads & (rank[:, 0] == rank[:, 3])
            order[low_quad] = np.stack([rank[low_quad, 0]] * 4 + [rank[low_quad, 4]], axis=1)
        key = np.zeros(len(c), dtype=np.int64)
        for i in range(5):
            key = key * 16 + order[:, i]
        key = key * 4 + (card_key.max(axis=1) & 3)
    else:
        key = np.zeros(len(c), dtype=np.int64)
    strength: npt.NDArray[np.int32] = ((cat_rank << 24) | key).astype(np.int32)
    return strength


def evaluate_arrays(
    cards: npt.NDArray[np.integer], rules: NiuNiuRules
) -> dict[str, npt.NDArray[Any]]:
    """Evaluate sorted hands (n, 5) under ``rules``: points, bull, category, strength."""
    base = _base_arrays(cards)
    flags = special_flags(base, rules)
    cat = categories(base, flags, rules)
    return {
        "has_bull": base["has_bull"],
        "points": base["points"],
        "bull_mask": base["bull_mask"],
        "n_bulls": base["n_bulls"],
        "category": cat,
        "strength": strength_arrays(cards, cat, rules),
        **flags,
    }


# ---------------------------------------------------------------- the table


def build_tables() -> dict[str, Any]:
    """Every 5-card hand in colex order with per-preset categories and strengths."""
    from solver.core.indexing import all_subsets
    from solver.store.tables import make_table

    cards = all_subsets(52, 5)
    base = _base_arrays(cards)
    flags = special_flags(base)
    bull_cards = np.full((len(cards), 3), 255, dtype=np.uint8)
    has = base["has_bull"]
    for a, b, d in TRIPLES:
        m = has & (base["bull_mask"] == ((1 << a) | (1 << b) | (1 << d)))
        bull_cards[m] = cards[m][:, [a, b, d]]
    cols: dict[str, npt.NDArray[Any]] = {f"c{i}": cards[:, i] for i in range(5)}
    cols.update(
        {
            "has_bull": has,
            "points": base["points"],
            "bull_mask": base["bull_mask"],
            "bull0": bull_cards[:, 0],
            "bull1": bull_cards[:, 1],
            "bull2": bull_cards[:, 2],
            "n_bulls": base["n_bulls"],
        }
    )
    cols.update({k: flags[k] for k in SPECIALS})
    rule_data = {}
    for preset in PRESETS:
        rules = load_rules(preset)
        cat = categories(base, special_flags(base, rules), rules)
        cols[f"{preset}_category"] = cat
        cols[f"{preset}_strength"] = strength_arrays(cards, cat, rules)
        rule_data[preset] = rules.to_data()
    notes = {
        "encoding": "card id = rank*4 + suit; rank 0..12 = A,2..10,J,Q,K; suit 0..3 = S,H,D,C",
        "order": "row i is the hand whose sorted card ids have colex rank i",
        "bull": "canonical bull = first valid triple of positions (lexicographic) of the "
        "sorted hand; bull_mask bit i = position i; bull0..2 = its cards, 255 = none",
        "category": {c.label: int(c) for c in Category},
    }
    return {"niuniu": make_table("niuniu", cols, rule_data, notes)}
