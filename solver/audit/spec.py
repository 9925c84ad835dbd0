"""A game's audit description, from the registry (``Game.audit_spec``).

:class:`AuditSpec` holds what the game-blind audit and deal generator use: the dealt
hand's size, the deck and its units (a card, or a tile type with its copies), the
audited categories with their exact probabilities, what counts as "a bull" for the
``bull_rate`` bias, the exact showdown outcome (who wins, and the distribution of the
player's net: by how much), and vectorised ``category``, ``strength``, ``settle`` (and
Pok Deng's ``finish``) functions.

>>> s = load_spec("niuniu", None, {}, None)
>>> s.labels[-1], s.bull_rate > Fraction(2, 3) - Fraction(1, 100)
('five_faces', True)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from solver import games

__all__ = ["OUTCOMES", "AuditSpec", "load_spec"]

OUTCOMES = ("player", "banker", "push")
"""The outcome of one showdown, by index: who wins (``banker`` is the dealer in Pok Deng)."""

Ids = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class AuditSpec:
    """One game's audit description under one rule set (see the module docstring)."""

    game: str
    rules: str
    kind: str
    hand_size: int
    sizes: tuple[int, ...]
    deck: npt.NDArray[np.uint8]
    unit: npt.NDArray[np.int64]
    unit_names: tuple[str, ...]
    copies: npt.NDArray[np.int64]
    labels: tuple[str, ...]
    expected: tuple[Fraction, ...]
    bull: tuple[bool, ...]
    outcome: tuple[Fraction, ...] | None
    banker_word: str
    parse: Callable[[Any], Any]
    category: Callable[[Ids], npt.NDArray[np.int64]]
    strength: Callable[[Ids], npt.NDArray[np.int64]]
    settle: Callable[[Ids, Ids], tuple[npt.NDArray[np.int8], npt.NDArray[np.float64]]]
    hooks: Mapping[str, Any]
    arrays: Mapping[str, npt.NDArray[Any]]
    net: tuple[tuple[Fraction, Fraction], ...] | None = None
    """The exact distribution of a showdown's net to the player: (amount, probability)
    by amount (``None``: not known, see ``outcome_note``)."""
    outcome_note: str = ""
    """What the outcome and net tests assume (a strategy, a shoe), or why they are not run."""
    decks: int = 1
    """How many decks the shoe holds (a card may come up to this many times a round)."""

    @property
    def bull_rate(self) -> Fraction:
        """The exact probability that a dealt hand is "a bull" (Pok Deng: a pok)."""
        return sum((p for p, b in zip(self.expected, self.bull, strict=True) if b), Fraction(0))

    @property
    def max_size(self) -> int:
        return max(self.sizes)

    def unit_probability(self) -> list[Fraction]:
        """Each unit's share of the dealt items (a card 1/52; a civil tile type 2/32)."""
        deck_units = self.unit[self.deck.astype(np.int64)]
        counts = np.bincount(deck_units, minlength=len(self.unit_names))
        return [Fraction(int(c), len(self.deck)) for c in counts]


def load_spec(
    game: str,
    rules: str | None,
    options: Mapping[str, Any],
    tables: str | None,
    arrays: Mapping[str, npt.NDArray[Any]] | None = None,
) -> AuditSpec:
    """The audit description of ``game`` from the registry (``arrays``: its lookup
    tables, when they were broadcast to a Spark executor)."""
    d = games.get(game).audit_spec(rules, options, tables, arrays)
    known = {
        "game", "rules", "kind", "hand_size", "sizes", "deck", "unit", "unit_names", "copies",
        "labels", "expected", "bull", "outcome", "banker_word", "parse", "category",
        "strength", "settle", "arrays", "net", "outcome_note", "decks",
    }  # fmt: skip
    return AuditSpec(
        game=d["game"],
        rules=d["rules"],
        kind=d["kind"],
        hand_size=int(d["hand_size"]),
        sizes=tuple(d["sizes"]),
        deck=np.asarray(d["deck"], dtype=np.uint8),
        unit=np.asarray(d["unit"], dtype=np.int64),
        unit_names=tuple(d["unit_names"]),
        copies=np.asarray(d["copies"], dtype=np.int64),
        labels=tuple(d["labels"]),
        expected=tuple(d["expected"]),
        bull=tuple(d["bull"]),
        outcome=None if d["outcome"] is None else tuple(d["outcome"]),
        banker_word=d["banker_word"],
        parse=d["parse"],
        category=d["category"],
        strength=d["strength"],
        settle=d["settle"],
        hooks={k: v for k, v in d.items() if k not in known},
        arrays=d["arrays"],
        net=None
        if d.get("net") is None
        else tuple((Fraction(a), Fraction(p)) for a, p in d["net"]),
        outcome_note=str(d.get("outcome_note", "")),
        decks=int(d.get("decks", 1)),
    )
