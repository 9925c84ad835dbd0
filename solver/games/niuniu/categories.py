"""Compiled Niu Niu categories (issue 22): a rule file's ``[[categories]]`` read and
checked, today's rule keys expanded into categories, and the categories compiled into
every hand's category code and strength.

The predicate and tie-step vocabulary is :mod:`~solver.games.niuniu.language`'s. Every
predicate and every suit-blind tie step is a function of a hand's *class* (its rank
multiset and whether it is a flush: a few thousand per deck), so they are evaluated
once per class (:func:`representatives`) and looked up per hand; only the suit steps
(``highest_card``, ``suit_of_highest``) look at each hand.

>>> labels = ["no_bull", *(f"niu_{k}" for k in range(1, 10)), "niu_niu", "five_faces"]
>>> cats = expand_keys(["five_faces"], {"five_small_bull_total": "at_most_10",
...     "five_small_bull_max_rank": "4", "four_faces_fifth": "ten"}, "highest_card",
...     False, "push", ["equal"], {"equal": [1] * 12}, labels)
>>> [(c.name, c.when, c.rank) for c in cats[:3]]
[('five_faces', 'faces == 5', 11), ('niu_niu', 'points == 10', 10), ('niu_9', 'points == 9', 9)]
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.core.errors import RulesError
from solver.games.niuniu.language import (
    ENDS,
    STEPS,
    Arrays,
    Expr,
    evaluate,
    features,
    parse_predicate,
    show,
)

__all__ = [
    "CategoryDef",
    "category_codes",
    "check_reach",
    "class_hands",
    "classify",
    "compile_hands",
    "expand_keys",
    "hand_classes",
    "read_categories",
    "representatives",
    "step_values",
]

# ---------------------------------------------------------------- categories


@dataclass(frozen=True)
class CategoryDef:
    """One category of a rule file: its predicate, rank, comparison and payouts."""

    name: str
    when: str
    rank: int
    by_points: bool = False
    tie: tuple[str, ...] = ()
    multipliers: tuple[tuple[str, int], ...] = ()
    support: int | None = None
    """How many rows of the file it was learned from supported it (inferred files)."""

    def to_data(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "when": self.when, "rank": self.rank}
        if self.by_points:
            out["by_points"] = True
        out["tie"] = list(self.tie)
        out["multipliers"] = dict(self.multipliers)
        if self.support is not None:
            out["support"] = self.support
        return out

    @property
    def predicate(self) -> Expr:
        return _parsed(self.when)

    def key_bits(self) -> int:
        return (4 if self.by_points else 0) + sum(STEPS[s] for s in self.tie)


_PARSED: dict[str, Expr] = {}


def _parsed(text: str) -> Expr:
    e = _PARSED.get(text)
    if e is None:
        e = _PARSED[text] = parse_predicate(text)
    return e


def category_codes(cats: Sequence[CategoryDef], known: Sequence[str]) -> tuple[int, ...]:
    """Each category's code in a table: today's label's code if it has one, else the
    next free code from ``len(known)`` on, in file order."""
    out, nxt = [], len(known)
    for c in cats:
        if c.name in known:
            out.append(known.index(c.name))
        else:
            out.append(nxt)
            nxt += 1
    return tuple(out)


def classify(
    f: Arrays, cats: Sequence[CategoryDef], codes: Sequence[int]
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.bool_]]:
    """Each hand's category code (the first category whose predicate holds) and
    whether any category matched it."""
    n = len(f["rank"])
    out = np.zeros(n, dtype=np.uint8)
    left = np.ones(n, dtype=bool)
    for c, code in zip(cats, codes, strict=True):
        hit = left & evaluate(c.predicate, f)
        out[hit] = code
        left &= ~hit
    return out, ~left


def shift(cats: Sequence[CategoryDef]) -> int:
    """Where the rank sits in a strength: bit 24, or above the longest tie key."""
    return max([24, *(c.key_bits() for c in cats)])


def _step(step: str, f: Arrays, suit_strength: npt.NDArray[np.int32]) -> npt.NDArray[np.int32]:
    rank = f["rank"].astype(np.int32)
    if step == "points":
        return f["points"].astype(np.int32)
    if step in ("highest_card", "suit_of_highest"):
        cols = [np.ascontiguousarray(rank[:, i]) for i in range(rank.shape[1])]
        top = cols[0].copy()
        for col in cols[1:]:  # column by column: a max along rows of 5 is slow in numpy
            np.maximum(top, col, out=top)
        best = np.full(len(rank), -1, dtype=np.int32)
        for i, col in enumerate(cols):
            ss = np.where(col == top, suit_strength[f["suit"][:, i]], -1)
            np.maximum(best, ss, out=best)
        return top * 4 + best if step == "highest_card" else best
    if step == "rank_by_rank":
        order = -np.sort(-rank, axis=1)
    elif step == "pair_rank_then_kicker":
        counts = f["counts"].astype(np.int32)
        per = np.take_along_axis(counts, rank, axis=1)
        key = -(per * 16 + rank)
        order = np.take_along_axis(rank, np.argsort(key, axis=1, kind="stable"), axis=1)
    elif step == "number_of_pairs":
        return np.minimum(f["pairs"], 3).astype(np.int32)
    elif step == "pair_rank":
        rep = f["counts"] >= 2
        top = 12 - np.argmax(rep[:, ::-1], axis=1)
        return np.where(rep.any(axis=1), top + 1, 0).astype(np.int32)
    else:
        return np.zeros(len(rank), dtype=np.int32)
    key = np.zeros(len(rank), dtype=np.int32)
    for i in range(order.shape[1]):
        key = key * 16 + order[:, i]
    return key


def representatives(deck_size: int, decks: int) -> npt.NDArray[np.uint8]:
    """One sorted hand per class the vocabulary can tell apart (rank multiset and
    flush or not) that the deck can deal: checking a predicate on these is checking
    it on every hand. (Computed once per deck; read-only.)"""
    got = _REPS.get((deck_size, decks))
    if got is None:
        got = _REPS[(deck_size, decks)] = _representatives(deck_size, decks)
        got.flags.writeable = False
    return got


_REPS: dict[tuple[int, int], npt.NDArray[np.uint8]] = {}


def _representatives(deck_size: int, decks: int) -> npt.NDArray[np.uint8]:
    ranks = deck_size // 4
    copies = min(4 * decks, 5)
    rows: list[list[int]] = []

    def walk(start: int, left: int, acc: list[int]) -> None:
        if left == 0:
            rows.append(acc.copy())
            return
        for r in range(start, ranks):
            if acc.count(r) < copies:
                acc.append(r)
                walk(r, left - 1, acc)
                acc.pop()

    walk(0, 5, [])
    out = []
    for rs in rows:
        seen: dict[int, int] = {}
        hand = []
        for r in rs:
            k = seen.get(r, 0)
            seen[r] = k + 1
            hand.append(r * 4 + (k % 4))
        if all(v == 1 for v in seen.values()):
            hand[0] = rs[0] * 4 + 1  # not a flush
            out.append(sorted(hand))
        else:
            out.append(sorted(hand))
        if max(seen.values()) <= decks:  # the flush of these ranks
            out.append(sorted(r * 4 for r in rs))
    return np.array(out, dtype=np.uint8)


# ---------------------------------------------------------------- today's keys as sugar

_SPECIAL_WHEN = {
    "five_faces": "faces == 5",
    "four_of_a_kind": "kind >= 4",
    "straight_flush": "straight(low) and flush",
    "three_of_a_kind": "kind >= 3",
    "straight": "straight(low)",
}
_FOUR_FACES_WHEN = {
    "ten": "faces == 4 and tens == 1",
    "any": "faces == 4",
    "all_ten_valued": "ten_valued == 5 and faces < 5",
}


def expand_keys(
    specials: Sequence[str],
    definitions: Mapping[str, str],
    tie_break: str,
    quads_first: bool,
    on_tie: str,
    bets: Sequence[str],
    rows: Mapping[str, Sequence[int]],
    labels: Sequence[str],
) -> tuple[CategoryDef, ...]:
    """Today's rule keys as categories, highest precedence first: the specials (the
    last listed highest, ranked 11 up), niu niu (10) ... niu 1 (1), no bull (0)."""
    small = "total <= 10" if definitions["five_small_bull_total"] == "at_most_10" else "total < 10"
    if definitions["five_small_bull_max_rank"] == "4":
        small = f'all_in("A-4") and {small}'
    when = dict(_SPECIAL_WHEN, five_small_bull=small)
    when["four_faces"] = _FOUR_FACES_WHEN[definitions["four_faces_fifth"]]
    chain = {
        "highest_card": ("highest_card",),
        "rank_by_rank": ("rank_by_rank", "suit_of_highest"),
        "none": (),
    }[tie_break]

    def make(name: str, pred: str, rank: int) -> CategoryDef:
        tie = chain
        if name == "four_of_a_kind" and quads_first and tie_break == "rank_by_rank":
            tie = ("pair_rank_then_kicker", "suit_of_highest")
        code = labels.index(name)
        mult = tuple((b, int(rows[b][code])) for b in bets)
        pred = show(_parsed(pred))
        return CategoryDef(name, pred, rank, tie=(*tie, on_tie), multipliers=mult)

    out = [make(s, when[s], 11 + i) for i, s in reversed(list(enumerate(specials)))]
    out.append(make("niu_niu", "points == 10", 10))
    out += [make(f"niu_{k}", f"points == {k}", k) for k in range(9, 0, -1)]
    out.append(make("no_bull", "true", 0))
    return tuple(out)


# ---------------------------------------------------------------- reading a rule file

_NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
MAX_RANK = 127


def read_categories(
    entries: Any, source: str, bets: Sequence[str], max_multiplier: int
) -> tuple[tuple[CategoryDef, ...], str | None]:
    """The ``[[categories]]`` of a rule file, checked one by one (a one-line
    :class:`RulesError` naming the category), and the ``push``/``banker`` their tie
    chains end with (``None``: none says)."""
    from solver.core.rules import Reader

    if not isinstance(entries, list) or not entries:
        raise RulesError(f"rule set {source}: field 'categories' must be a list of tables")
    cats: list[CategoryDef] = []
    ends: dict[str, str] = {}
    for i, entry in enumerate(entries, 1):
        if not isinstance(entry, Mapping):
            raise RulesError(f"rule set {source}: category {i} must be a table")
        r = Reader(entry, source, f"categories[{i}].")
        name = r.string("name")
        where = f"rule set {source}: category {name!r}"
        if not _NAME.match(name):
            raise RulesError(f"{where}: a name is 1-40 lowercase letters, digits or '_'")
        if any(c.name == name for c in cats):
            raise RulesError(f"{where} is defined twice (ambiguous)")
        try:
            pred = show(parse_predicate(r.string("when")))
        except RulesError as exc:
            raise RulesError(f"{where}: malformed predicate 'when': {exc}") from None
        rank = r.integer("rank", minimum=0, maximum=MAX_RANK)
        by_points = r.boolean("by_points", default=False)
        tie = r.string_list("tie", STEPS, unique=True, default=[])
        for s in tie[:-1]:
            if s in ENDS:
                raise RulesError(f"{where}: tie step {s!r} settles the tie: it must come last")
        if tie and tie[-1] in ENDS:
            ends[name] = tie[-1]
        mt = r.table("multipliers", default={})
        mult = []
        for bet in bets:
            mult.append((bet, mt.integer(bet, minimum=0, maximum=max_multiplier, default=1)))
        for key in mt:
            if key not in bets:
                raise RulesError(f"{where}: multipliers name bet {key!r}, not a bet of the file")
        support = r.integer("support", minimum=0, default=None) if r.has("support") else None
        r.done(ignore=())
        cats.append(CategoryDef(name, pred, rank, by_points, tuple(tie), tuple(mult), support))
    if len(set(ends.values())) > 1:
        a = next(n for n, e in ends.items() if e == "push")
        b = next(n for n, e in ends.items() if e == "banker")
        raise RulesError(
            f"rule set {source}: category {a!r} ends its tie chain with push but {b!r} with "
            "banker (ambiguous: every tie chain of one file ends the same way)"
        )
    by_rank: dict[int, CategoryDef] = {}
    for c in cats:
        other = by_rank.setdefault(c.rank, c)
        if other is not c and (other.by_points, _steps(other)) != (c.by_points, _steps(c)):
            raise RulesError(
                f"rule set {source}: category {c.name!r} shares rank {c.rank} with "
                f"{other.name!r} but compares differently (ambiguous)"
            )
    bits = shift(cats)
    top = max(c.rank for c in cats)
    if top >= 1 << (31 - bits):
        raise RulesError(
            f"rule set {source}: category ranks up to {top} do not fit beside tie keys of "
            f"{bits} bits (at most rank {(1 << (31 - bits)) - 1})"
        )
    return tuple(cats), (next(iter(ends.values())) if ends else None)


def _steps(c: CategoryDef) -> tuple[str, ...]:
    return tuple(s for s in c.tie if s not in ENDS)


def check_reach(
    cats: Sequence[CategoryDef], source: str, deck_size: int, decks: int, trips_bull: bool
) -> None:
    """Refuse a category no hand of the deck can reach (it matches none, or every hand it
    matches falls in a category above), and a deck with hands no category takes."""
    from solver.core.cards import CARD_NAMES

    reps = representatives(deck_size, decks)
    f = features(reps, trips_bull)
    codes = tuple(range(len(cats)))
    got, matched = classify(f, cats, codes)
    if not matched.all():
        hand = " ".join(CARD_NAMES[c] for c in reps[int(np.flatnonzero(~matched)[0])])
        raise RulesError(
            f"rule set {source}: no category takes the hand {hand}; "
            'end the list with a catch-all (when = "true")'
        )
    hit = np.bincount(got, minlength=len(cats))
    for i, c in enumerate(cats):
        if hit[i] == 0:
            alone = bool(evaluate(c.predicate, f).any())
            why = (
                "every hand it matches is taken by a category above it"
                if alone
                else ("no hand matches its predicate")
            )
            raise RulesError(f"rule set {source}: category {c.name!r} is unreachable: {why}")


# ---------------------------------------------------------------- compiled per class

_SUITED = ("highest_card", "suit_of_highest")
"""The only steps that look at suits; every other number is a function of the hand's
class (its rank multiset and whether it is a flush)."""
_BASE = 13**5


def _class_key(cards: npt.NDArray[np.integer]) -> npt.NDArray[np.int64]:
    c = np.asarray(cards)
    cols = [np.ascontiguousarray(c[:, i]) for i in range(c.shape[1])]  # column by column
    key = np.zeros(len(c), dtype=np.int64)
    flush = np.ones(len(c), dtype=bool)
    for col in cols:
        key *= 13
        key += col >> 2
        flush &= (col & 3) == (cols[0] & 3)
    key[flush] += _BASE
    return key


@dataclass(frozen=True)
class _Classes:
    reps: npt.NDArray[np.uint8]
    index: npt.NDArray[np.int32]
    f: Arrays


_CLASSES: dict[tuple[int, int, bool], _Classes] = {}


def _classes(deck_size: int, decks: int, trips_bull: bool) -> _Classes:
    key = (deck_size, decks, trips_bull)
    got = _CLASSES.get(key)
    if got is None:
        # every rank multiset and its flush, even those the deck cannot deal: the shoe
        # paths class every multiset of cards before weighting the impossible ones by 0
        reps = representatives(deck_size, max(decks, 5))
        index = np.full(2 * _BASE, -1, dtype=np.int32)
        index[_class_key(reps)] = np.arange(len(reps), dtype=np.int32)
        got = _CLASSES[key] = _Classes(reps, index, features(reps, trips_bull))
    return got


def hand_classes(
    cards: npt.NDArray[np.integer], deck_size: int, decks: int, trips_bull: bool
) -> tuple[npt.NDArray[np.int32], Arrays]:
    """Each sorted hand's class (an index into the features returned): what every
    predicate and every suit-blind tie step sees of it."""
    k = _classes(deck_size, decks, trips_bull)
    cls = k.index[_class_key(cards)]
    if len(cls) and cls.min() < 0:
        raise ValueError("a hand outside the deck's classes")
    return cls, k.f


def class_hands(deck_size: int, decks: int, trips_bull: bool) -> npt.NDArray[np.uint8]:
    """One sorted hand per class of :func:`hand_classes` (row i: class i), read-only: a
    hand's rank at each position and whether it is a flush are its class's."""
    return _classes(deck_size, decks, trips_bull).reps


def step_values(step: str, f: Arrays, suit_strength: Sequence[int]) -> npt.NDArray[np.int32]:
    """A tie step's key for hands' :func:`features` (a suit step needs hands, not
    classes; ``push``/``banker``: 0)."""
    return _step(step, f, np.asarray(suit_strength, dtype=np.int32))


def compile_hands(
    cards: npt.NDArray[np.integer],
    cats: Sequence[CategoryDef],
    codes: Sequence[int],
    suit_strength: Sequence[int],
    deck_size: int,
    decks: int,
    trips_bull: bool,
    classes: npt.NDArray[np.int32] | None = None,
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int32]]:
    """Category codes and strengths of sorted hands (n, 5): every predicate and every
    suit-blind tie step is evaluated once per class (:func:`representatives`, a few
    thousand), then looked up per hand; only the suit steps look at each hand.
    ``classes``: the hands' :func:`hand_classes`, when known."""
    k = _classes(deck_size, decks, trips_bull)
    if classes is None:
        classes = hand_classes(cards, deck_size, decks, trips_bull)[0]
    cls = classes
    cat_of, _ = classify(k.f, cats, codes)
    cat = cat_of[cls]
    ss = np.asarray(suit_strength, dtype=np.int32)
    s = shift(cats)
    # per class: the rank and the suit-blind part of each category's key
    out = np.zeros(len(cls), dtype=np.int32)
    per_class: dict[str, npt.NDArray[np.int32]] = {}
    per_hand: dict[str, npt.NDArray[np.int32]] = {}
    hand_f: Arrays | None = None
    for c, code in zip(cats, codes, strict=True):
        chain = [x for x in (("points",) if c.by_points else ()) + c.tie if STEPS[x]]
        cm = cat_of == code
        if not cm.any():
            continue
        if not any(x in _SUITED for x in chain):
            key_c = np.zeros(len(cat_of), dtype=np.int32)
            for x in chain:
                if x not in per_class:
                    per_class[x] = _step(x, k.f, ss)
                key_c = (key_c << STEPS[x]) | per_class[x]
            table = np.where(cm, (np.int32(c.rank) << s) | key_c, 0).astype(np.int32)
            m = cat == code
            out[m] = table[cls[m]]
            continue
        m = cat == code
        key = np.zeros(int(m.sum()), dtype=np.int32)
        for x in chain:
            if x in _SUITED:
                if hand_f is None:
                    c16 = np.asarray(cards, dtype=np.int16)
                    hand_f = {"rank": c16 >> 2, "suit": c16 & 3}
                if x not in per_hand:
                    per_hand[x] = _step(x, hand_f, ss)
                v = per_hand[x][m]
            else:
                if x not in per_class:
                    per_class[x] = _step(x, k.f, ss)
                v = per_class[x][cls[m]]
            key = (key << STEPS[x]) | v
        out[m] = (np.int32(c.rank) << s) | key
    return cat, out
