"""Niu Niu (5 cards): vectorised evaluation of every hand under a rule set, and the tables.

A hand is five card ids (:mod:`solver.core.cards`). A **bull** is three cards whose
values sum to a multiple of 10 — or, with ``bull_from_three_of_a_kind``, three cards of
one rank; the points are the last digit of the other two (0 → Niu Niu, 10), the best
bull counting. The **canonical bull** is the first triple of positions, in
lexicographic order of the canonically sorted hand, that reaches the hand's points.

A table holds every hand of one deck (rows in colex order), the bull facts of one bull
rule, and per rule set its ``<name>_category`` and ``<name>_strength``: the presets'
tables come from :func:`build_tables`, a rule file's from :func:`build_table`.

>>> rules = load_rules("classic")
>>> from solver.core.cards import parse_hand
>>> ev = evaluate_arrays(np.array([parse_hand("7S 3H 10D 8C 6S")]), rules)
>>> int(ev["points"][0]), Category(int(ev["category"][0])).label
(4, 'niu_4')
>>> hk = load_rules({**rules.to_data(), "bull_from_three_of_a_kind": True})
>>> ev = evaluate_arrays(np.array([parse_hand("2S 2H 2D 8C KS")]), hk)
>>> int(ev["points"][0])   # 2+8+K = 20 leaves 2+2 (4); the three 2s leave 8+K: 8
8
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.games.niuniu.rules import (
    PRESETS,
    SPECIALS,
    Category,
    NiuNiuRules,
    load_rules,
)

__all__ = [
    "TABLE_FLAGS",
    "TRIPLES",
    "RuleColumns",
    "build_table",
    "build_tables",
    "categories",
    "compiled_arrays",
    "evaluate_arrays",
    "hand_columns",
    "hand_shape",
    "own_table",
    "rule_columns",
    "special_flags",
    "strength_arrays",
    "table_name",
    "tie_keys",
]


TRIPLES: tuple[tuple[int, int, int], ...] = tuple(combinations(range(5), 3))
"""The ten bull triples of positions, in the lexicographic order that picks the canonical bull."""
_MASKS = np.array([(1 << a) | (1 << b) | (1 << d) for a, b, d in TRIPLES], dtype=np.uint8)
TABLE_FLAGS: tuple[str, ...] = SPECIALS[:5]
"""The special-hand flag columns of every table (RULES.md §3 definitions, before
precedence); a rule set's own definitions show in its category column."""

Arrays = dict[str, npt.NDArray[Any]]


# ---------------------------------------------------------------- vectorised evaluation


def hand_shape(cards: npt.NDArray[np.integer]) -> Arrays:
    """What the specials are defined on, for sorted hands (n, 5): ranks, suits, values,
    the total, how many J/Q/K and how many 10s."""
    c = np.asarray(cards, dtype=np.uint8)
    rank = c >> 2
    value = np.minimum(rank + 1, 10).astype(np.uint8)
    return {
        "rank": rank,
        "suit": c & 3,
        "value": value,
        "total": value.sum(axis=1, dtype=np.int16),
        "faces": (rank >= 10).sum(axis=1),
        "tens": (rank == 9).sum(axis=1),
    }


def _base_arrays(cards: npt.NDArray[np.integer], rules: NiuNiuRules | None = None) -> Arrays:
    """:func:`hand_shape` and the bull facts of sorted hands (n, 5) under ``rules``'
    ``bull_from_three_of_a_kind``: bull, points, the canonical bull and the bull count."""
    shape = hand_shape(cards)
    rank, value, total = shape["rank"], shape["value"], shape["total"]
    sums = np.stack([value[:, a] + value[:, b] + value[:, d] for a, b, d in TRIPLES], axis=1)
    ok = sums % 10 == 0
    if rules is not None and rules.bull_from_three_of_a_kind:
        ok |= np.stack(
            [(rank[:, a] == rank[:, b]) & (rank[:, b] == rank[:, d]) for a, b, d in TRIPLES],
            axis=1,
        )
        # each bull scores the last digit of the other two cards, 0 as 10; the best counts
        reach = np.where(ok, (total[:, None] - sums - 1) % 10 + 1, 0).astype(np.uint8)
        points = reach.max(axis=1)
        best = ok & (reach == points[:, None])
    else:
        best = ok  # every bull leaves the same last digit: the total's
        points = np.where(ok.any(axis=1), (total - 1) % 10 + 1, 0).astype(np.uint8)
    has_bull = points > 0
    first = np.argmax(best, axis=1)
    return {
        **shape,
        "has_bull": has_bull,
        "n_bulls": ok.sum(axis=1).astype(np.uint8),
        "bull_mask": np.where(has_bull, _MASKS[first], 0).astype(np.uint8),
        "points": points,
    }


def special_flags(
    base: Mapping[str, npt.NDArray[Any]], rules: NiuNiuRules | None = None
) -> dict[str, npt.NDArray[np.bool_]]:
    """Which specials each hand qualifies for, under ``rules``' definitions
    (``None``: the standard definitions of RULES §3); ``base``: :func:`hand_shape`."""
    rank, suit = base["rank"], base["suit"]
    fsb_total = rules.five_small_bull_total if rules else "at_most_10"
    fsb_rank = rules.five_small_bull_max_rank if rules else "4"
    ff_fifth = rules.four_faces_fifth if rules else "ten"
    faces, total = base["faces"], base["total"]
    small = total <= 10 if fsb_total == "at_most_10" else total < 10
    if fsb_rank == "4":
        small = small & (rank[:, 4] <= 3)
    if ff_fifth == "ten":
        four_faces = (faces == 4) & (base["tens"] == 1)
    elif ff_fifth == "any":
        four_faces = faces == 4
    else:  # all_ten_valued: every card 10/J/Q/K, but not five faces
        four_faces = (rank[:, 0] >= 9) & (faces < 5)
    # ranks of sorted cards are sorted: equal ranks sit next to each other
    # column by column: a reduction along rows of five is many times slower
    straight = rank[:, 1] == rank[:, 0] + 1  # five consecutive ranks, ace low, no wrap
    flush = suit[:, 1] == suit[:, 0]
    for j in range(2, 5):
        straight &= rank[:, j] == rank[:, j - 1] + 1
        flush &= suit[:, j] == suit[:, 0]
    return {
        "five_faces": faces == 5,
        "four_faces": four_faces,
        "four_of_a_kind": (rank[:, 0] == rank[:, 3]) | (rank[:, 1] == rank[:, 4]),
        "straight_flush": straight & flush,
        "five_small_bull": small,
        "three_of_a_kind": (rank[:, 0] == rank[:, 2])
        | (rank[:, 1] == rank[:, 3])
        | (rank[:, 2] == rank[:, 4]),
        "straight": straight,
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


def tie_keys(cards: npt.NDArray[np.integer], rules: NiuNiuRules) -> npt.NDArray[np.int32]:
    """The tie-break part of :func:`strength_arrays` of sorted hands (n, 5), before a
    four of a kind is moved first (it depends on the cards and the rules' tie-break and
    suit order alone: every variant of a hand's category shares it)."""
    c = np.asarray(cards, dtype=np.int32)
    if rules.tie_break == "none":
        return np.zeros(len(c), dtype=np.int32)
    rank = c >> 2
    suit_strength = np.array(rules.suit_strength, dtype=np.int32)
    # the highest card under the suit order: among the cards of the top rank (sorted
    # ids: the last card's); a column at a time (a reduction along rows of five is many
    # times slower)
    top_rank = c[:, -1] >> 2
    best = np.full(len(c), -1, dtype=np.int32)
    for i in range(c.shape[1]):
        ss = np.where(rank[:, i] == top_rank, suit_strength[c[:, i] & 3], -1)
        np.maximum(best, ss, out=best)
    if rules.tie_break == "highest_card":
        return top_rank * 4 + best
    key = rank[:, 4].copy()  # rank_by_rank: the ranks high to low, four bits each
    for i in (3, 2, 1, 0):
        key = key * 16 + rank[:, i]
    return key * 4 + best


def strength_arrays(
    cards: npt.NDArray[np.integer],
    category: npt.NDArray[np.integer],
    rules: NiuNiuRules,
    keys: npt.NDArray[np.int32] | None = None,
    cat_rank: npt.NDArray[np.int32] | None = None,
) -> npt.NDArray[np.int32]:
    """One integer (int32) per hand: comparing two hands under ``rules`` (tie-break included) is
    comparing their strengths. Equal strengths are a tie (``rules.on_tie`` settles it).
    ``keys``: the hands' :func:`tie_keys` under ``rules``, when known; ``cat_rank``:
    ``rules.category_rank`` as an int32 array, when the caller keeps one.

    Layout: the category's rank << 24, then the tie-break key (rank_by_rank: five ranks
    of 4 bits, high to low, then 2 bits of the highest card's suit; highest_card: the
    highest card's rank * 4 + suit strength; none: 0)."""
    key = tie_keys(cards, rules) if keys is None else keys
    cat = np.asarray(category)
    if cat_rank is None:
        cat_rank = np.array(rules.category_rank, dtype=np.int32)
    cat_rank = cat_rank[cat]
    if rules.tie_break == "rank_by_rank" and rules.quads_first:
        # a low four of a kind (its odd card on top) compares its four first
        rank = np.asarray(cards, dtype=np.int32) >> 2
        low = np.flatnonzero((cat == Category.FOUR_OF_A_KIND) & (rank[:, 0] == rank[:, 3]))
        if len(low):
            q, odd = rank[low, 0], rank[low, 4]
            key = key.copy()
            key[low] = ((((q * 16 + q) * 16 + q) * 16 + q) * 16 + odd) * 4 + (key[low] & 3)
    strength: npt.NDArray[np.int32] = ((cat_rank << 24) | key).astype(np.int32, copy=False)
    return strength


def compiled_arrays(
    cards: npt.NDArray[np.integer],
    rules: NiuNiuRules,
    classes: npt.NDArray[np.int32] | None = None,
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int32]]:
    """Each sorted hand's category code and strength from the rule set's categories in
    the rule language (:attr:`NiuNiuRules.compiled`: a file's own, or today's keys
    expanded): the one evaluator every table is built with. :func:`categories` and
    :func:`strength_arrays` say today's keys directly (the diagnosis's fast variants);
    the tests hold the two equal on every hand of every preset. ``classes``: the
    hands' :func:`~solver.games.niuniu.categories.hand_classes`, when known."""
    from solver.games.niuniu.categories import compile_hands

    r = rules
    return compile_hands(
        cards, r.compiled, r.codes, r.suit_strength, r.deck_size, r.decks,
        r.bull_from_three_of_a_kind, classes,
    )  # fmt: skip


def evaluate_arrays(cards: npt.NDArray[np.integer], rules: NiuNiuRules) -> Arrays:
    """Evaluate sorted hands (n, 5) under ``rules``: points, bull, category, strength."""
    base = _base_arrays(cards, rules)
    flags = special_flags(base, rules)
    cat, strength = compiled_arrays(cards, rules)
    return {
        "has_bull": base["has_bull"],
        "points": base["points"],
        "bull_mask": base["bull_mask"],
        "n_bulls": base["n_bulls"],
        "category": cat,
        "strength": strength,
        **flags,
    }


# ---------------------------------------------------------------- the tables


def table_name(rules: NiuNiuRules) -> str:
    """The table a rule set's answers live in: one per deck, bull rule and shoe size
    (``niuniu`` for one standard deck and the standard bull, else e.g.
    ``niuniu_no_faces`` or ``niuniu_shoe6``)."""
    parts = ["niuniu"]
    if rules.deck != "standard":
        parts.append(rules.deck)
    if rules.bull_from_three_of_a_kind:
        parts.append("trips_bull")
    if rules.decks > 1:
        parts.append(f"shoe{rules.decks}")
    return "_".join(parts)


def build_table(
    rule_sets: Sequence[NiuNiuRules],
    odds: bool = False,
    counts: dict[str, dict[str, Any]] | None = None,
    given: Mapping[str, Future[RuleColumns]] | None = None,
) -> Any:
    """The table of every 5-card hand of the rule sets' deck, in colex order: the
    cards, the bull facts, the standard special flags, and per rule set its category
    and strength. The rule sets must share the deck, bull rule and shoe (one
    :func:`table_name`).

    From a shoe of N > 1 decks the rows are every *multiset* of 5 faces in dense
    multiset order, with a ``weight`` column: the ways to deal the hand from the full
    shoe, Π C(N, copies) (0 for a hand needing more copies than the shoe holds). The
    definitions carry over unchanged: five of a kind is four of a kind (four cards of
    one rank are in it), a straight flush has five distinct ranks so never repeats a
    card, and two hands may be exactly equal (``on_tie``).

    With ``odds`` (one deck), ``counts`` (if given) receives per rule set the
    :func:`~solver.games.niuniu.hand_odds.bet_counts` behind its odds columns.
    ``given``: rule sets whose columns are being computed elsewhere
    (:func:`rule_columns`, e.g. on the build's second thread), waited for last."""
    from solver.core.indexing import all_multisets, all_subsets
    from solver.core.shoe import shoe_weights
    from solver.games.niuniu.categories import class_hands, hand_classes
    from solver.store.tables import make_table

    if not rule_sets:
        raise ValueError("a table needs at least one rule set")
    name = table_name(rule_sets[0])
    if any(table_name(r) != name for r in rule_sets):
        raise ValueError("rule sets of one table must share the deck and the bull rule")
    first = rule_sets[0]
    shoe = first.decks > 1
    cards = all_multisets(first.deck_size, 5) if shoe else all_subsets(first.deck_size, 5)
    cls = hand_classes(cards, first.deck_size, first.decks, first.bull_from_three_of_a_kind)[0]
    # the bull facts and the flags are the same for every hand of a class (its ranks by
    # position, flush or not): computed on one hand per class, looked up per hand
    reps = class_hands(first.deck_size, first.decks, first.bull_from_three_of_a_kind)
    base = _base_arrays(reps, first)
    flags = special_flags(base)
    where = np.zeros((len(reps), 3), dtype=np.intp)  # positions of each class's bull
    for mask, tri in zip(_MASKS.tolist(), TRIPLES, strict=True):
        where[base["bull_mask"] == mask] = tri
    bull_cards = np.take_along_axis(cards, where[cls], axis=1)
    bull_cards[~base["has_bull"][cls]] = 255
    cols: dict[str, npt.NDArray[Any]] = {f"c{i}": cards[:, i] for i in range(5)}
    for key in ("has_bull", "points", "bull_mask"):
        cols[key] = base[key][cls]
    cols |= {f"bull{i}": np.ascontiguousarray(bull_cards[:, i]) for i in range(3)}
    cols["n_bulls"] = base["n_bulls"][cls]
    cols |= {k: flags[k][cls] for k in TABLE_FLAGS}
    if shoe:
        cols["weight"] = shoe_weights(cards, first.decks).astype(np.int32)
    del base, flags, bull_cards, where
    with_odds = odds and not shoe  # the presets' per-hand odds (issue 14): exact numerators
    order = [f"{r.name}_{c}" for r in rule_sets for c in ("category", "strength")]
    if with_odds:
        from solver.games.niuniu.hand_odds import ODDS_SUFFIXES

        order += [f"{r.name}_{c}" for r in rule_sets for c in ODDS_SUFFIXES]
    got: dict[str, npt.NDArray[Any]] = {}
    extra: dict[str, Any] = {}
    later = given or {}
    for rules in rule_sets:
        if rules.name not in later:
            mine = rule_columns(rules, cards, with_odds, cls)
            got |= mine.columns
            extra |= mine.extra
            if counts is not None and mine.counts is not None:
                counts[rules.name] = mine.counts
    for rules in rule_sets:
        if rules.name in later:
            theirs = later[rules.name].result()
            got |= theirs.columns
            extra |= theirs.extra
            if counts is not None and theirs.counts is not None:
                counts[rules.name] = theirs.counts
    cols |= {k: got[k] for k in order}
    rule_data = {rules.name: rules.to_data() for rules in rule_sets}
    bull = "some three cards sum to a multiple of 10"
    if first.bull_from_three_of_a_kind:
        bull += " or are of one rank (the best bull counts)"
    notes: dict[str, Any] = {
        "encoding": "card id = rank*4 + suit; rank 0..12 = A,2..10,J,Q,K; suit 0..3 = S,H,D,C",
        "order": "row i is the hand whose sorted card ids have colex rank i",
        "bull": "canonical bull = first valid triple of positions (lexicographic) of the "
        "sorted hand; bull_mask bit i = position i; bull0..2 = its cards, 255 = none",
        "category": {c.label: int(c) for c in Category},
    }
    if shoe:
        notes["order"] = (
            "row i is the hand (a multiset: a card may repeat) whose sorted card ids "
            "c0 <= ... <= c4 have dense multiset rank i = colex rank of (c0, c1+1, ..., c4+4)"
        )
        notes["weight"] = (
            f"ways to deal the hand from a full shoe of {first.decks} decks: "
            f"product over its cards of C({first.decks}, copies); they sum to "
            f"C({first.deck_size * first.decks}, 5)"
        )
    if name != "niuniu":
        notes["deck"] = f"{first.deck}: card ids 0..{first.deck_size - 1}"
        notes["has_bull"] = bull
        notes["bull"] += "; the first triple reaching the hand's points"
    return make_table(name, cols, rule_data, notes | extra)


def hand_columns(rules: NiuNiuRules) -> list[str]:
    """The columns of :func:`build_table` that every rule set of its deck shares (the
    hands and their facts), in its order."""
    shoe = ["weight"] if rules.decks > 1 else []
    return [*(f"c{i}" for i in range(5)), "has_bull", "points", "bull_mask",
            *(f"bull{i}" for i in range(3)), "n_bulls", *TABLE_FLAGS, *shoe]  # fmt: skip


def own_table(rules: NiuNiuRules) -> Any:
    """A rule file's own columns (category and strength) in the rows of
    :func:`build_table`, and nothing else: its table when the preset table of its deck
    holds the :func:`hand_columns` (:class:`~solver.store.custom.OnBase` reads them)."""
    from solver.store.tables import make_table

    name = table_name(rules)
    notes = {
        "on_base": name,
        "from_base": hand_columns(rules),
        "category": {c.label: int(c) for c in Category},
    }
    return make_table(name, rule_columns(rules).columns, {rules.name: rules.to_data()}, notes)


@dataclass(frozen=True)
class RuleColumns:
    """One rule set's columns of its table (category, strength and, with odds, the
    per-hand odds), their note, and the per-bet counts behind the odds."""

    columns: dict[str, npt.NDArray[Any]]
    extra: dict[str, Any]
    counts: dict[str, Any] | None


def rule_columns(
    rules: NiuNiuRules,
    cards: npt.NDArray[np.uint8] | None = None,
    odds: bool = False,
    classes: npt.NDArray[np.int32] | None = None,
) -> RuleColumns:
    """``rules``' columns of its table over ``cards`` (default: every hand of its deck,
    colex order; one deck when ``odds``): its category and strength, and with ``odds``
    its per-hand odds columns (:mod:`~solver.games.niuniu.hand_odds`). ``classes``: the
    hands' classes, when known."""
    if cards is None:
        from solver.core.indexing import all_multisets, all_subsets

        every = all_multisets if rules.decks > 1 else all_subsets
        cards = every(rules.deck_size, 5)
    cat, strength = compiled_arrays(cards, rules, classes)
    cols: dict[str, npt.NDArray[Any]] = {
        f"{rules.name}_category": cat,
        f"{rules.name}_strength": strength,
    }
    if not odds:
        return RuleColumns(cols, {}, None)
    from solver.games.niuniu.hand_odds import bet_counts, odds_columns

    args = (rules, cards, strength, cat)
    per_bet = bet_counts(*args)  # every bet in one pass: the grab reuses one
    got, note = odds_columns(*args, per_bet[rules.bet(None)])
    return RuleColumns(cols | got, {f"{rules.name}_odds": note}, per_bet)


def build_tables() -> dict[str, Any]:
    """The presets' tables: one per deck and bull rule, each with its presets' columns.

    With the build's second thread (:func:`solver.store.build.background`) the later
    rule sets of a table (their strengths and odds) and the shoe tables are computed
    there, beside the rest; the tables needing them are assembled last."""
    from solver.games.niuniu.grab import TABLE, build_grab_table, grab_bet  # issue 14
    from solver.store.build import background
    from solver.store.tables import to_numpy

    groups: dict[str, list[NiuNiuRules]] = {}
    for preset in PRESETS:
        rules = load_rules(preset)
        groups.setdefault(table_name(rules), []).append(rules)
    given = {
        r.name: background(rule_columns, r, None, True)
        for rs in groups.values()
        if rs[0].decks == 1
        for r in rs[1:]
    }
    shoes = {n: background(build_table, rs, True) for n, rs in groups.items() if rs[0].decks > 1}
    counts: dict[str, dict[str, Any]] = {}
    out: dict[str, Any] = {}
    for name in sorted(groups, key=lambda n: any(r.name in given for r in groups[n])):
        if name not in shoes:
            out[name] = build_table(groups[name], odds=True, counts=counts, given=given)
    base = out["niuniu"]
    strength, category = base.column("classic_strength"), base.column("classic_category")
    bet = grab_bet(load_rules("classic"))  # the classic bet that pays as the grab does
    known = counts["classic"][bet] if bet else None
    out[TABLE] = build_grab_table(to_numpy(strength), to_numpy(category), known)
    return {name: out.get(name, shoes.get(name)) for name in [*groups, TABLE]}
