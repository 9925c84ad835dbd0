"""The Niu Niu rule model: hand categories, the :class:`NiuNiuRules` of a preset or a
user's rule file, and the presets shipped in ``presets/``.

Every house rule is a rule-file field (RULES.md §3, §8, §9): the deck (``standard`` 52
cards or ``no_faces``, 40 cards without J/Q/K) and how many of them the shoe holds
(``decks``, 1..8: with several, a hand may hold identical cards), which specials count
and their order,
each special's definition, whether three of a kind makes a bull, the tie-break and what
a tie that survives it does (``on_tie``), the bets (any name with a
``[multipliers.NAME]`` table) and the commission.

>>> r = load_rules("no_faces")
>>> r.deck, r.deck_size, r.specials
('no_faces', 40, ('three_of_a_kind', 'four_of_a_kind'))
>>> s = load_rules("shoe6")
>>> s.decks, s.on_tie, s.hands
(6, 'push', 3819816)
>>> load_rules({**load_rules("classic").to_data(), "name": "x", "on_tie": "coin"})
Traceback (most recent call last):
...
solver.core.errors.RulesError: rule set x: field 'on_tie' is 'coin'; expected one of: push, banker
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import IntEnum
from importlib import resources
from math import comb
from typing import Any

from solver.core.cards import CARD_NAMES, SUIT_NAMES
from solver.core.errors import BullError, RulesError
from solver.core.rules import Reader, load_rule_data
from solver.core.shoe import MAX_DECKS
from solver.games.niuniu.categories import (
    CategoryDef,
    category_codes,
    check_reach,
    expand_keys,
    read_categories,
)

__all__ = [
    "BETS",
    "DECKS",
    "DECK_SIZE",
    "FOUR_FACES_FIFTH",
    "N_CATEGORIES",
    "ON_TIES",
    "PRESETS",
    "PRESET_DIR",
    "SPECIALS",
    "TIE_BREAKS",
    "Category",
    "NamedCategory",
    "NiuNiuRules",
    "load_rules",
]

PRESET_DIR = resources.files("solver.games.niuniu") / "presets"

MAX_MULTIPLIER = 1000
"""The largest multiplier a bet may pay: exact sums over every pair of hands stay well
inside 64-bit integers (rooms pay at most a few dozen)."""
"""This game's shipped rule sets, one ``<name>.toml`` each."""


class Category(IntEnum):
    """Hand categories. Values follow points then specials (new specials are appended,
    so the codes stored in tables never move); a rule set ranks specials by its own
    order (see :attr:`NiuNiuRules.category_rank`)."""

    NO_BULL = 0
    NIU_1 = 1
    NIU_2 = 2
    NIU_3 = 3
    NIU_4 = 4
    NIU_5 = 5
    NIU_6 = 6
    NIU_7 = 7
    NIU_8 = 8
    NIU_9 = 9
    NIU_NIU = 10
    FIVE_FACES = 11
    FOUR_FACES = 12
    FOUR_OF_A_KIND = 13
    STRAIGHT_FLUSH = 14
    FIVE_SMALL_BULL = 15
    THREE_OF_A_KIND = 16
    STRAIGHT = 17

    @property
    def label(self) -> str:
        """The snake_case name used in output: ``niu_7``, ``five_faces``..."""
        return self.name.lower()

    @classmethod
    def from_label(cls, label: str) -> Category:
        try:
            return cls[label.upper()]
        except KeyError:
            raise RulesError(f"unknown Niu Niu category {label!r}") from None


class NamedCategory(int):
    """A category a rule file names itself (a code past :class:`Category`'s): an int
    with a ``label``, like a :class:`Category`."""

    label: str

    def __new__(cls, code: int, label: str) -> NamedCategory:
        obj = int.__new__(cls, code)
        obj.label = label
        return obj

    @property
    def name(self) -> str:
        return self.label.upper()

    def __repr__(self) -> str:
        return f"NamedCategory({int(self)}, {self.label!r})"


LABELS: tuple[str, ...] = tuple(c.label for c in Category)
"""Today's category labels, by code."""

SPECIALS: tuple[str, ...] = (
    "five_faces",
    "four_faces",
    "four_of_a_kind",
    "straight_flush",
    "five_small_bull",
    "three_of_a_kind",
    "straight",
)
"""Every special hand a rule file may list (``specials``, low to high)."""
TIE_BREAKS: tuple[str, ...] = ("highest_card", "rank_by_rank", "none")
ON_TIES: tuple[str, ...] = ("push", "banker")
"""What a showdown still equal after the tie-break does: the stake is returned, or the
banker wins."""
DECKS: tuple[str, ...] = ("standard", "no_faces")
DECK_SIZE: Mapping[str, int] = {"standard": 52, "no_faces": 40}
"""Cards per deck. Card ids stay ``rank * 4 + suit``: the ``no_faces`` deck (J, Q, K
removed) is exactly the ids 0..39."""
FOUR_FACES_FIFTH: tuple[str, ...] = ("ten", "any", "all_ten_valued")
"""Four Faces: four J/Q/K and a 10; four J/Q/K and any card; every card 10/J/Q/K but
not five faces."""
BETS: tuple[str, ...] = ("equal", "double", "standard")
"""The presets' bet names (a rule file may name its own)."""
N_CATEGORIES = len(Category)
_FACE_SPECIALS = ("five_faces", "four_faces")
"""Specials that need J/Q/K (impossible with the ``no_faces`` deck)."""
_BET_NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")


@dataclass(frozen=True)
class NiuNiuRules:
    """One Niu Niu rule set (a preset or a user's file)."""

    name: str
    specials: tuple[str, ...]
    tie_break: str
    suit_order: tuple[int, ...]
    quads_first: bool
    bets: tuple[str, ...]
    default_bet: str
    commission: float
    five_small_bull_total: str
    five_small_bull_max_rank: str
    four_faces_fifth: str
    multipliers: tuple[tuple[str, tuple[int, ...]], ...]
    on_tie: str = "push"
    deck: str = "standard"
    bull_from_three_of_a_kind: bool = False
    description: str = ""
    decks: int = 1
    """How many decks the shoe holds (1..8): up to that many copies of each card."""
    categories: tuple[CategoryDef, ...] = ()
    """A rule file's own categories (the rule language), highest precedence first;
    empty for a rule set said in today's keys (:meth:`compiled` expands those)."""

    @classmethod
    def from_data(cls, name: str, data: Mapping[str, Any]) -> NiuNiuRules:
        if "categories" in data:
            return _from_language(name, data)
        r = Reader(data, name)
        deck = r.string("deck", DECKS, default="standard")
        decks = r.integer("decks", minimum=1, maximum=MAX_DECKS, default=1)
        specials = tuple(r.string_list("specials", SPECIALS))
        if deck == "no_faces":
            for s in specials:
                if s in _FACE_SPECIALS:
                    raise r.fail(
                        "specials",
                        f"lists {s!r}, which the no_faces deck (no J, Q, K) cannot make; "
                        f"expected: {', '.join(x for x in SPECIALS if x not in _FACE_SPECIALS)}",
                    )
        bull_trips = r.boolean("bull_from_three_of_a_kind", default=False)
        tie_break = r.string("tie_break", TIE_BREAKS)
        on_tie = r.string("on_tie", ON_TIES, default="push")
        suits = r.string_list("suit_order", SUIT_NAMES)
        if len(suits) != 4:
            raise r.fail("suit_order", "must list all four suits S H D C, high to low")
        quads_first = r.boolean("quads_first", default=False)
        mt = r.table("multipliers")
        bets = tuple(_bet_names(r, mt))
        default_bet = r.string("default_bet", bets, default=bets[0])
        commission = r.number("commission", minimum=0, maximum=1)
        sd = r.table("special_definitions", default={})
        fsb_total = sd.string(
            "five_small_bull_total", ("at_most_10", "below_10"), default="at_most_10"
        )
        fsb_rank = sd.string("five_small_bull_max_rank", ("4", "any"), default="4")
        ff_fifth = sd.string("four_faces_fifth", FOUR_FACES_FIFTH, default="ten")
        sd.done()
        multipliers = tuple((bet, _multiplier_row(mt, bet)) for bet in bets)
        mt.done(ignore=())
        description = str(data.get("description", ""))
        r.done()
        return cls(
            name=name,
            specials=specials,
            tie_break=tie_break,
            suit_order=tuple(SUIT_NAMES.index(s) for s in suits),
            quads_first=quads_first,
            bets=bets,
            default_bet=default_bet,
            commission=float(commission),
            five_small_bull_total=fsb_total,
            five_small_bull_max_rank=fsb_rank,
            four_faces_fifth=ff_fifth,
            multipliers=multipliers,
            on_tie=on_tie,
            deck=deck,
            bull_from_three_of_a_kind=bull_trips,
            description=description,
            decks=decks,
        )

    def to_data(self) -> dict[str, Any]:
        """The rule set as a plain dict (round-trips through :meth:`from_data`). ``decks``
        is stated only for a shoe: a one-deck rule set's data (and so its digest and the
        tables built for it) is what it was before shoes existed."""
        if self.categories:
            return self.expand()
        mult: dict[str, dict[str, int]] = {}
        for bet, row in self.multipliers:
            base = max(set(row), key=row.count)
            entry = {"default": base}
            entry.update({Category(i).label: v for i, v in enumerate(row) if v != base})
            mult[bet] = entry
        return {
            "game": "niuniu",
            "name": self.name,
            "description": self.description,
            "deck": self.deck,
            **({"decks": self.decks} if self.decks > 1 else {}),
            "specials": list(self.specials),
            "bull_from_three_of_a_kind": self.bull_from_three_of_a_kind,
            "tie_break": self.tie_break,
            "on_tie": self.on_tie,
            "suit_order": [SUIT_NAMES[s] for s in self.suit_order],
            "quads_first": self.quads_first,
            "bets": list(self.bets),
            "default_bet": self.default_bet,
            "commission": self.commission,
            "special_definitions": {
                "five_small_bull_total": self.five_small_bull_total,
                "five_small_bull_max_rank": self.five_small_bull_max_rank,
                "four_faces_fifth": self.four_faces_fifth,
            },
            "multipliers": mult,
        }

    def expand(self) -> dict[str, Any]:
        """The rule set in the full form of the rule language (``bull rules --expand``):
        every category with its predicate, rank, tie chain and multipliers. Read back, it
        builds the same table columns as this rule set."""
        return {
            "game": "niuniu",
            "name": self.name,
            "description": self.description,
            "deck": self.deck,
            **({"decks": self.decks} if self.decks > 1 else {}),
            "bull_from_three_of_a_kind": self.bull_from_three_of_a_kind,
            "suit_order": [SUIT_NAMES[s] for s in self.suit_order],
            "bets": list(self.bets),
            "default_bet": self.default_bet,
            "commission": self.commission,
            "categories": [c.to_data() for c in self.compiled],
        }

    @functools.cached_property
    def compiled(self) -> tuple[CategoryDef, ...]:
        """The categories, highest precedence first: the file's own, or today's keys
        expanded (:func:`_expand`)."""
        return self.categories or _expand(self)

    @functools.cached_property
    def codes(self) -> tuple[int, ...]:
        """Each of :attr:`compiled`'s categories' code in a table's category column."""
        return category_codes(self.compiled, LABELS)

    def category(self, code: int) -> Category | NamedCategory:
        """The category of a table code (a :class:`Category`, or a file's own)."""
        if code < N_CATEGORIES:
            return Category(code)
        if code < self.n_codes and self.labels[code]:
            return NamedCategory(code, self.labels[code])
        raise RulesError(f"rule set {self.name} has no category code {code}")

    @functools.cached_property
    def n_codes(self) -> int:
        """Length of per-code arrays (:attr:`category_rank`, multiplier rows)."""
        return max([N_CATEGORIES, *(k + 1 for k in self.codes)])

    @functools.cached_property
    def labels(self) -> tuple[str, ...]:
        """Each table code's category label (a file's own names past today's)."""
        out = [*LABELS, *[""] * (self.n_codes - N_CATEGORIES)]
        for c, k in zip(self.compiled, self.codes, strict=True):
            out[k] = c.name
        return tuple(out)

    def bet(self, bet: str | None) -> str:
        """Validate a bet name (``None`` → the default bet)."""
        if bet is None:
            return self.default_bet
        if bet not in self.bets:
            raise RulesError(
                f"rule set {self.name} has no bet {bet!r} (bets: {', '.join(self.bets)})"
            )
        return bet

    def multiplier_row(self, bet: str | None = None) -> tuple[int, ...]:
        """Multiplier of the winning hand, per :class:`Category`, for ``bet``."""
        return dict(self.multipliers)[self.bet(bet)]

    @property
    def category_rank(self) -> tuple[int, ...]:
        """Rank (0 = lowest) of each :class:`Category` under this rule set; categories
        the rule set does not count rank -1."""
        if self.categories:
            out = [-1] * self.n_codes
            for cat, k in zip(self.categories, self.codes, strict=True):
                out[k] = cat.rank
            return tuple(out)
        rank = [-1] * N_CATEGORIES
        for c in range(Category.NIU_NIU + 1):
            rank[c] = c
        for i, s in enumerate(self.specials):
            rank[Category[s.upper()]] = Category.NIU_NIU + 1 + i
        return tuple(rank)

    @property
    def suit_strength(self) -> tuple[int, ...]:
        """Per suit id 0..3, its strength 0..3 (3 = highest) in :attr:`suit_order`."""
        out = [0] * 4
        for pos, s in enumerate(self.suit_order):
            out[s] = 3 - pos
        return tuple(out)

    @property
    def deck_size(self) -> int:
        """Cards in the deck: 52, or 40 for ``no_faces`` (the ids 0..39)."""
        return DECK_SIZE[self.deck]

    @property
    def hands(self) -> int:
        """How many distinct 5-card hands the shoe has (the rows of its table): C(52, 5) or
        C(40, 5) with one deck; with several, every multiset of 5 faces, C(52 + 4, 5) or
        C(40 + 4, 5) (hands a 2-4 deck shoe cannot deal are rows of weight 0)."""
        faces = self.deck_size
        return comb(faces, 5) if self.decks == 1 else comb(faces + 4, 5)

    @property
    def shoe(self) -> bool:
        """Whether hands come from a shoe of several decks (may repeat a card)."""
        return self.decks > 1

    def check_cards(self, cards: Iterable[int], what: str = "hand") -> None:
        """Refuse a card the deck does not hold (a J/Q/K under ``no_faces``), naming it.

        >>> load_rules("no_faces").check_cards([0, 4, 8, 12, 44])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        solver.core.errors.BullError: card QS is not in the no_faces deck (40 cards: ...)
        """
        for c in cards:
            if c >= self.deck_size:
                raise BullError(f"card {CARD_NAMES[c]} {self.deck_note()}")

    def deck_note(self) -> str:
        """``'is not in the no_faces deck (...)'``: why a card is refused."""
        return f"is not in the {self.deck} deck (40 cards: J, Q, K removed)"


def _bet_names(r: Reader, mt: Reader) -> list[str]:
    """The bets: ``bets`` if given (every one needs a multiplier table), else every
    ``[multipliers.NAME]`` table, in the file's order."""
    bets = r.string_list("bets", default=None) if r.has("bets") else list(mt.keys())
    if not bets:
        raise r.fail("bets", "must list at least one bet (each with a [multipliers.NAME] table)")
    for bet in bets:
        if not _BET_NAME.match(bet):
            raise r.fail(
                "bets", f"has bet name {bet!r}; a bet name is 1-40 letters, digits, '_' or '-'"
            )
        if not mt.has(bet):
            raise mt.fail(bet, "is missing: every listed bet needs a multiplier table")
    return bets


def _multiplier_row(mt: Reader, bet: str) -> tuple[int, ...]:
    """A bet's multiplier per :class:`Category`: its ``default`` and overrides."""
    bt = mt.table(bet)
    default = bt.integer("default", minimum=0, maximum=MAX_MULTIPLIER, default=1)
    row = [default] * N_CATEGORIES
    for key in bt:
        if key == "default":
            continue
        try:
            cat = Category[key.upper()]
        except KeyError:
            raise bt.fail(
                key,
                "is not a Niu Niu category; expected default or one of: "
                + ", ".join(c.label for c in Category),
            ) from None
        row[cat] = bt.integer(key, minimum=0, maximum=MAX_MULTIPLIER)
    bt.done(ignore=())
    return tuple(row)


def _expand(rules: NiuNiuRules) -> tuple[CategoryDef, ...]:
    return _EXPANDED.get(rules) or _EXPANDED.setdefault(
        rules,
        expand_keys(
            rules.specials,
            {
                "five_small_bull_total": rules.five_small_bull_total,
                "five_small_bull_max_rank": rules.five_small_bull_max_rank,
                "four_faces_fifth": rules.four_faces_fifth,
            },
            rules.tie_break,
            rules.quads_first,
            rules.on_tie,
            rules.bets,
            dict(rules.multipliers),
            LABELS,
        ),
    )


_EXPANDED: dict[NiuNiuRules, tuple[CategoryDef, ...]] = {}

_SUGAR = (
    "specials",
    "tie_break",
    "quads_first",
    "special_definitions",
    "on_tie",
    "multipliers",
)
"""Today's keys a file in the rule language says in its categories instead."""


def _from_language(name: str, data: Mapping[str, Any]) -> NiuNiuRules:
    """A rule file with ``[[categories]]`` (see :mod:`~solver.games.niuniu.language`)."""
    r = Reader(data, name)
    for key in _SUGAR:
        if r.has(key):
            raise r.fail(key, "is said per category in a file with [[categories]]")
    deck = r.string("deck", DECKS, default="standard")
    decks = r.integer("decks", minimum=1, maximum=MAX_DECKS, default=1)
    bull_trips = r.boolean("bull_from_three_of_a_kind", default=False)
    suits = r.string_list("suit_order", SUIT_NAMES, default=["S", "H", "C", "D"])
    if len(suits) != 4:
        raise r.fail("suit_order", "must list all four suits S H D C, high to low")
    bets = r.string_list("bets")
    if not bets:
        raise r.fail("bets", "must list at least one bet")
    for bet in bets:
        if not _BET_NAME.match(bet):
            raise r.fail(
                "bets", f"has bet name {bet!r}; a bet name is 1-40 letters, digits, '_' or '-'"
            )
    default_bet = r.string("default_bet", bets, default=bets[0])
    commission = r.number("commission", minimum=0, maximum=1, default=0)
    cats, end = read_categories(r._get("categories", None), name, bets, MAX_MULTIPLIER)
    description = str(data.get("description", ""))
    r.done()
    size = DECK_SIZE[deck]
    check_reach(cats, name, size, decks, bull_trips)
    codes = category_codes(cats, LABELS)
    width = max([N_CATEGORIES, *(k + 1 for k in codes)])
    rows = []
    for bet in bets:
        row = [0] * width
        for c, k in zip(cats, codes, strict=True):
            row[k] = dict(c.multipliers)[bet]
        rows.append((bet, tuple(row)))
    return NiuNiuRules(
        name=name,
        specials=(),
        tie_break="chain",
        suit_order=tuple(SUIT_NAMES.index(s) for s in suits),
        quads_first=False,
        bets=tuple(bets),
        default_bet=default_bet,
        commission=float(commission),
        five_small_bull_total="at_most_10",
        five_small_bull_max_rank="4",
        four_faces_fifth="ten",
        multipliers=tuple(rows),
        on_tie=end or "push",
        deck=deck,
        bull_from_three_of_a_kind=bull_trips,
        description=description,
        decks=decks,
        categories=cats,
    )


def load_rules(spec: str | os.PathLike[str] | Mapping[str, Any] | None = None) -> NiuNiuRules:
    """A preset by name (default ``classic``), a rule file path, or a dict."""
    if isinstance(spec, NiuNiuRules):
        return spec
    name, data = load_rule_data("niuniu", spec, PRESET_DIR, default="classic")
    return NiuNiuRules.from_data(name, data)


PRESETS: tuple[str, ...] = ("classic", "casino", "no_faces", "shoe6")
