"""The Niu Niu rule model: hand categories, the :class:`NiuNiuRules` of a preset or a
user's rule file (specials and their order, tie-break, bets, multipliers, commission),
and the presets shipped in ``presets/``."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntEnum
from importlib import resources
from typing import Any

from solver.core.cards import SUIT_NAMES
from solver.core.errors import RulesError
from solver.core.rules import Reader, load_rule_data

__all__ = [
    "BETS",
    "N_CATEGORIES",
    "PRESETS",
    "PRESET_DIR",
    "SPECIALS",
    "TIE_BREAKS",
    "Category",
    "NiuNiuRules",
    "load_rules",
]

PRESET_DIR = resources.files("solver.games.niuniu") / "presets"
"""This game's shipped rule sets, one ``<name>.toml`` each."""


class Category(IntEnum):
    """Hand categories. Values follow points then specials; a preset ranks specials
    by its own order (see :attr:`NiuNiuRules.category_rank`)."""

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


SPECIALS: tuple[str, ...] = (
    "five_faces",
    "four_faces",
    "four_of_a_kind",
    "straight_flush",
    "five_small_bull",
)
TIE_BREAKS: tuple[str, ...] = ("highest_card", "rank_by_rank", "none")
BETS: tuple[str, ...] = ("equal", "double", "standard")
N_CATEGORIES = len(Category)


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
    description: str = ""

    @classmethod
    def from_data(cls, name: str, data: Mapping[str, Any]) -> NiuNiuRules:
        r = Reader(data, name)
        specials = tuple(r.string_list("specials", SPECIALS))
        tie_break = r.string("tie_break", TIE_BREAKS)
        suits = r.string_list("suit_order", SUIT_NAMES)
        if len(suits) != 4:
            raise r.fail("suit_order", "must list all four suits S H D C, high to low")
        quads_first = r.boolean("quads_first", default=False)
        bets = tuple(r.string_list("bets", BETS))
        if not bets:
            raise r.fail("bets", "must list at least one bet")
        default_bet = r.string("default_bet", bets)
        commission = r.number("commission", minimum=0, maximum=1)
        sd = r.table("special_definitions", default={})
        fsb_total = sd.string(
            "five_small_bull_total", ("at_most_10", "below_10"), default="at_most_10"
        )
        fsb_rank = sd.string("five_small_bull_max_rank", ("4", "any"), default="4")
        ff_fifth = sd.string("four_faces_fifth", ("ten", "any"), default="ten")
        sd.done()
        mt = r.table("multipliers")
        multipliers = []
        for bet in bets:
            if not mt.has(bet):
                raise mt.fail(bet, "is missing: every listed bet needs a multiplier table")
            bt = mt.table(bet)
            default = bt.integer("default", minimum=0, default=1)
            row = [default] * N_CATEGORIES
            for key in bt:
                if key == "default":
                    continue
                try:
                    cat = Category[key.upper()]
                except KeyError:
                    raise bt.fail(key, "is not a Niu Niu category") from None
                row[cat] = bt.integer(key, minimum=0)
            bt.done(ignore=())
            multipliers.append((bet, tuple(row)))
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
            multipliers=tuple(multipliers),
            description=description,
        )

    def to_data(self) -> dict[str, Any]:
        """The rule set as a plain dict (round-trips through :meth:`from_data`)."""
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
            "specials": list(self.specials),
            "tie_break": self.tie_break,
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


def load_rules(spec: str | os.PathLike[str] | Mapping[str, Any] | None = None) -> NiuNiuRules:
    """A preset by name (default ``classic``), a rule file path, or a dict."""
    if isinstance(spec, NiuNiuRules):
        return spec
    name, data = load_rule_data("niuniu", spec, PRESET_DIR, default="classic")
    return NiuNiuRules.from_data(name, data)


PRESETS: tuple[str, ...] = ("classic", "casino")
