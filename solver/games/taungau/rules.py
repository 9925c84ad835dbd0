"""The Tau Ngau rule model: the :class:`TauNgauRules` of a preset or a user's rule file
(0 counted as 10 or 0, settlement, payment without a bull, whether the banker reveals
first), the decline :class:`Decision`, and the presets shipped in ``presets/``.

Payment without a bull (settlement ``difference``) is ``no_bull_pays``: a number of
stakes, paid whatever the banker holds (the Macau book), or ``"banker_score"`` (the
"fixed Macau" house, RULES §9): the banker's score when the banker has a bull, and
:data:`NO_BULL_BANKER_NO_BULL` = 4 stakes when he has none. Declining a bull means
paying exactly as a hand without one.

>>> macau = load_rules("macau").to_data()
>>> fixed = TauNgauRules.from_data("fixed", macau | {"no_bull_pays": "banker_score"})
>>> [fixed.no_bull_payment(s) for s in (0, 1, 7, 10)], fixed.to_data()["no_bull_pays"]
([4, 1, 7, 10], 'banker_score')
>>> TauNgauRules.from_data("x", macau | {"no_bull_pays": "banker"})
Traceback (most recent call last):
...
solver.core.errors.RulesError: rule set x: field 'no_bull_pays' is 'banker'; expected an ...
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntEnum
from importlib import resources
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from solver.core.errors import RulesError
from solver.core.rules import Reader, load_rule_data

__all__ = [
    "BANKER_SCORE",
    "NO_BULL_BANKER_NO_BULL",
    "PRESETS",
    "PRESET_DIR",
    "Decision",
    "NoBullPays",
    "TauNgauRules",
    "load_rules",
]

PRESET_DIR = resources.files("solver.games.taungau") / "presets"
"""This game's shipped rule sets, one ``<name>.toml`` each."""
PRESETS: tuple[str, ...] = ("macau", "pagat")
"""The presets the table carries columns for."""
BANKER_SCORE: Literal["banker_score"] = "banker_score"
"""``no_bull_pays = "banker_score"``: a player without a bull pays the banker's score."""
NO_BULL_BANKER_NO_BULL = 4
"""What a player without a bull pays under ``"banker_score"`` when the banker has no bull
either (RULES §9: "4 stakes otherwise")."""
NO_BULL_PAYS_MAX = 100
"""The largest number ``no_bull_pays`` may be."""

NoBullPays = int | Literal["banker_score"]
"""A number of stakes, or ``"banker_score"``."""


class Decision(IntEnum):
    """What a player holding a hand does when the banker reveals last."""

    DECLARE = 0
    DECLINE = 1
    NO_BULL = 2

    @property
    def label(self) -> str:
        """``'declare'``, ``'decline'`` or ``'no_bull'``."""
        return self.name.lower()


@dataclass(frozen=True)
class TauNgauRules:
    """A Tau Ngau rule set (see ``solver/presets/taungau-*.toml`` for every field).

    >>> r = load_rules("pagat")
    >>> r.zero_counts_as, r.settlement, r.max_score
    (0, 'even_money', 9)
    >>> TauNgauRules.from_data("x", r.to_data() | {"zero_count_as": 0})
    Traceback (most recent call last):
    ...
    solver.core.errors.RulesError: rule set x: unknown field 'zero_count_as'
    """

    name: str
    zero_counts_as: int
    settlement: str
    no_bull_pays: NoBullPays
    decline_allowed: bool
    banker_reveals: str
    bank_passes: str = "unspecified"
    description: str = ""

    SETTLEMENTS = ("difference", "even_money")
    REVEALS = ("first", "last")

    @classmethod
    def from_data(cls, name: str, data: Mapping[str, Any]) -> TauNgauRules:
        """Validate a rule dict; unknown or ill-typed fields are errors naming the field.
        A dict with ``[[categories]]`` (the rule language,
        :mod:`~solver.games.taungau.language`) says its scores and payouts there."""
        if "categories" in data:
            from solver.games.taungau.language import SUGAR, read_categories

            for key in SUGAR:
                if key in data:
                    raise RulesError(
                        f"rule set {name}: field {key!r} is said by the categories in a "
                        "file with [[categories]]"
                    )
            keys = read_categories(data["categories"], name)
            data = {**{k: v for k, v in data.items() if k != "categories"}, **keys}
        r = Reader(data, name)
        zero = r.integer("zero_counts_as")
        if zero not in (0, 10):
            raise r.fail("zero_counts_as", f"is {zero}; expected 10 or 0")
        settlement = r.string("settlement", choices=cls.SETTLEMENTS)
        pays: NoBullPays
        if settlement == "difference":
            pays = _no_bull_pays(r)
            decline = r.boolean("decline_allowed")
        else:
            if r.has("no_bull_pays"):
                raise r.fail("no_bull_pays", 'applies only to settlement = "difference"')
            decline = r.boolean("decline_allowed", default=False)
            if decline:
                raise r.fail("decline_allowed", 'can be true only with settlement = "difference"')
            pays = 1
        reveals = r.string("banker_reveals", choices=cls.REVEALS, default="last")
        passes = r.string(
            "bank_passes", choices=("unspecified", "banker_bull"), default="unspecified"
        )
        description = r.string("description", default="")
        r.done()
        return cls(
            name=name,
            zero_counts_as=zero,
            settlement=settlement,
            no_bull_pays=pays,
            decline_allowed=decline,
            banker_reveals=reveals,
            bank_passes=passes,
            description=description,
        )

    def to_data(self) -> dict[str, Any]:
        """The full rule set as a JSON-able dict (``from_data`` reads it back)."""
        data: dict[str, Any] = {
            "game": "taungau",
            "name": self.name,
            "description": self.description,
            "zero_counts_as": self.zero_counts_as,
            "settlement": self.settlement,
        }
        if self.settlement == "difference":
            data["no_bull_pays"] = self.no_bull_pays
        data |= {
            "decline_allowed": self.decline_allowed,
            "banker_reveals": self.banker_reveals,
            "bank_passes": self.bank_passes,
        }
        return data

    def expand(self) -> dict[str, Any]:
        """The rule set in the rule language's full form (``bull rules --expand``): its
        categories with their order, scores and payouts; read back, it is this rule set.

        >>> r = load_rules("macau")
        >>> TauNgauRules.from_data(r.name, r.expand()) == r
        True
        """
        from solver.games.taungau.language import SUGAR, expand

        data = self.to_data()
        out = {k: v for k, v in data.items() if k not in SUGAR}
        out["categories"] = expand(data | {"no_bull_pays": self.no_bull_pays})
        return out

    @property
    def pays_banker_score(self) -> bool:
        """Whether a player without a bull pays the banker's score (``"banker_score"``)."""
        return self.no_bull_pays == BANKER_SCORE

    def no_bull_payment(self, banker_strength: int) -> int:
        """What a player without a bull (or declining one) pays, under ``difference``,
        against a banker of strength ``banker_strength`` (0: no bull).

        >>> macau = load_rules("macau")
        >>> macau.no_bull_payment(0), macau.no_bull_payment(10)
        (4, 4)
        """
        if isinstance(self.no_bull_pays, int):
            return self.no_bull_pays
        if banker_strength == 0:
            return NO_BULL_BANKER_NO_BULL
        return self.payoff_value(banker_strength)

    def no_bull_payments(self) -> npt.NDArray[np.int64]:
        """:meth:`no_bull_payment` for every banker strength 0..10 (an array of 11)."""
        return np.array([self.no_bull_payment(s) for s in range(11)], dtype=np.int64)

    def declines_first(self, player_strength: int, banker_strength: int) -> bool:
        """Banker reveals first: is declining the bull strictly better than keeping it?
        (Never without a decline analysis or a bull.)

        >>> macau = load_rules("macau")
        >>> macau.declines_first(1, 5), macau.declines_first(1, 6)
        (False, True)
        """
        if not (self.has_decline and player_strength > 0):
            return False
        keep = self.payoff_value(player_strength) - self.payoff_value(banker_strength)
        return keep < -self.no_bull_payment(banker_strength)

    def decline_at_least(self, player_strength: int) -> int | None:
        """Banker reveals first: the lowest banker score at which a bull of
        ``player_strength`` should be declined (``None``: never). Under a number it is
        p + no_bull_pays + 1; under ``"banker_score"`` never (keeping the bull always
        pays p more than declining).

        >>> load_rules("macau").decline_at_least(5), load_rules("macau").decline_at_least(6)
        (10, None)
        """
        for b in range(1, 11):
            if self.declines_first(player_strength, b):
                return self.payoff_value(b)
        return None

    @property
    def max_score(self) -> int:
        """The best score: 10 when a 0 counts as 10, else 9."""
        return 10 if self.zero_counts_as == 10 else 9

    @property
    def has_decline(self) -> bool:
        """Whether the decline-bull analysis applies."""
        return self.settlement == "difference" and self.decline_allowed

    def score(self, digit: int) -> int:
        """Score of a bull whose hand totals last digit ``digit``.

        >>> load_rules("macau").score(0), load_rules("pagat").score(0)
        (10, 0)
        """
        return self.zero_counts_as if digit == 0 else digit

    def strength_of_digits(self, digits: npt.NDArray[np.integer]) -> npt.NDArray[np.uint8]:
        """Strength 1..10 of bulls with these last digits (0 is kept for no bull)."""
        d = np.asarray(digits).astype(np.uint8)
        if self.zero_counts_as == 10:
            return np.where(d == 0, 10, d).astype(np.uint8)
        return (d + 1).astype(np.uint8)

    def score_of_strength(self, strength: int) -> int | None:
        """The score of a strength (``None`` for 0, no bull)."""
        if strength == 0:
            return None
        return strength if self.zero_counts_as == 10 else strength - 1

    def payoff_value(self, strength: int) -> int:
        """The number settled under ``difference``: the score, 0 for no bull."""
        s = self.score_of_strength(strength)
        return 0 if s is None else s


def _no_bull_pays(r: Reader) -> NoBullPays:
    """``no_bull_pays``: an integer 0..100, or ``"banker_score"``."""
    key = "no_bull_pays"
    value = r.data.get(key)
    if value == BANKER_SCORE:
        r.string(key)
        return BANKER_SCORE
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= NO_BULL_PAYS_MAX:
        return r.integer(key)
    if not r.has(key):
        r.integer(key)  # the Reader's "missing field" error
    allowed = f'an integer 0..{NO_BULL_PAYS_MAX} or "{BANKER_SCORE}"'
    raise r.fail(key, f"is {value!r}; expected {allowed}")


def load_rules(spec: str | os.PathLike[str] | Mapping[str, Any] | None = None) -> TauNgauRules:
    """A Tau Ngau rule set from a preset name, a TOML/JSON file or a dict (default
    ``macau``)."""
    name, data = load_rule_data("taungau", spec, PRESET_DIR, default="macau")
    return TauNgauRules.from_data(name, data)
