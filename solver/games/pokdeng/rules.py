"""The Pok Deng rule model: hand types, the two-card kinds, the deng table, the
:class:`PokDengRules` of a preset or a user's rule file (straights and the ace, deng
values, the Tong vs Sam Lueang payout, what equal hands pay, a house order of two-card
kinds, the dealer's policy), and the presets shipped in ``presets/``.

Equal type and points (``equal_points``): ``deng_difference`` (the higher deng wins the
difference; the presets), ``push``, or ``higher_deng`` (the higher deng is paid in
full). Equal deng push under all three.

A house order of two-card kinds (``two_card_order``, high to low, e.g. ``["suited",
"pair", "plain"]``; empty = no order, the presets) applies only when **both** hands
have two cards and the same type and points (two Pok or two two-card Normal hands) and
are of different kinds: the hand of the higher kind wins and is paid its own deng in
full. Hands of the same kind, and any hand of three cards, settle by ``equal_points``.

>>> house = {"equal_points": "push", "two_card_order": ["pair", "suited", "plain"]}
>>> r = PokDengRules.from_data("x", house)
>>> r.equal_points, r.two_card_order, r.kind_rank(Kind.PAIR), r.kind_rank(Kind.PLAIN)
('push', ('pair', 'suited', 'plain'), 3, 1)
>>> PokDengRules.from_data("x", {"two_card_order": ["suited", "pair"]})
Traceback (most recent call last):
...
solver.core.errors.RulesError: rule set x: field 'two_card_order' ...
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from enum import IntEnum
from importlib import resources
from typing import Any

from solver.core.errors import ParseError, RulesError
from solver.core.rules import Reader, load_rule_data
from solver.core.shoe import MAX_DECKS

__all__ = [
    "ACES",
    "EQUAL_POINTS",
    "PRESET_DIR",
    "TWO_CARD_KINDS",
    "Deng",
    "HandType",
    "Kind",
    "PokDengRules",
    "load_rules",
]

PRESET_DIR = resources.files("solver.games.pokdeng") / "presets"
"""This game's shipped rule sets, one ``<name>.toml`` each."""
ACES: tuple[str, ...] = ("low", "high", "both")
"""Where the ace may sit in a straight: A-2-3, Q-K-A, or either (never K-A-2)."""
EQUAL_POINTS: tuple[str, ...] = ("deng_difference", "push", "higher_deng")
"""What equal type and points pay (see the module text)."""
TWO_CARD_KINDS: tuple[str, ...] = ("suited", "pair", "plain")
"""The kinds a two-card hand is exactly one of (one deck: a pair is never suited)."""


class HandType(IntEnum):
    """Hand types, low to high (RULES §5); with straights off the two straight types never
    occur. The value is the type's rank, so comparing types compares hands first."""

    NORMAL = 0
    SAM_LUEANG = 1
    STRAIGHT = 2
    STRAIGHT_FLUSH = 3
    TONG = 4
    POK = 5

    @property
    def label(self) -> str:
        """Machine name: ``'pok'``, ``'tong'``, ``'straight_flush'``, ``'straight'``,
        ``'sam_lueang'``, ``'normal'``."""
        return self.name.lower()

    @property
    def title(self) -> str:
        """Human name, e.g. ``'Sam Lueang'``."""
        return self.name.replace("_", " ").title()

    @classmethod
    def from_label(cls, label: str) -> HandType:
        """The type called ``label`` (``'straight_flush'`` ...)."""
        try:
            return cls[label.upper()]
        except KeyError:
            names = ", ".join(t.label for t in cls)
            raise ParseError(f"unknown Pok Deng hand type {label!r} (expected: {names})") from None

    def __repr__(self) -> str:
        return f"HandType.{self.name}"


class Kind(IntEnum):
    """What kind of hand a hand is for ``two_card_order``: three cards (no kind), or two
    cards suited, a pair, or plain (neither)."""

    THREE_CARDS = 0
    PLAIN = 1
    PAIR = 2
    SUITED = 3

    @property
    def label(self) -> str:
        """``'plain'``, ``'pair'``, ``'suited'`` (``'three_cards'``)."""
        return self.name.lower()


@dataclass(frozen=True)
class Deng:
    """Deng (payout multiplier) of each kind of hand; a hand that is none of these is 1.

    ``three_card_pair``: exactly two of three cards share a rank (one deck: such a hand
    is never three of a suit, so it never meets ``three_suited``); a hand of a special
    type (Tong, Sam Lueang, a straight) is paid its type's deng instead, as J-J-Q is
    Sam Lueang's 3.
    """

    two_card_pair: int = 2
    two_card_suited: int = 2
    pok_pair: int = 2
    pok_suited: int = 2
    three_suited: int = 3
    three_card_pair: int = 1
    tong: int = 5
    sam_lueang: int = 3
    straight: int = 3
    straight_flush: int = 5


_DENG_FIELDS = tuple(Deng.__dataclass_fields__)


@dataclass(frozen=True)
class PokDengRules:
    """One Pok Deng rule set (a preset or a user's file).

    Fields (all optional in a rule file; the defaults are the ``standard`` preset):

    * ``straights`` — three consecutive ranks are a Straight (one suit: Straight Flush).
    * ``ace`` — ``low`` (A-2-3), ``high`` (Q-K-A) or ``both``; never K-A-2.
    * ``tong_vs_sam_lueang_pays`` — what Tong collects from Sam Lueang (2 = 5 - 3).
    * ``dealer_pok_first`` — a dealer Pok settles every hand at once.
    * ``dealer_draws_at_most`` — the dealer draws on this total or less.
    * ``equal_points`` — what equal type and points pay (:data:`EQUAL_POINTS`).
    * ``two_card_order`` — a house order of two-card kinds, high to low (empty: none).
    * ``deng`` — the payout multipliers (:class:`Deng`).
    * ``decks`` — how many 52-card decks the shoe holds (1..8; the presets ``standard``
      and ``straights`` are 1 deck, ``shoe8`` is 8). With more than one deck a hand may
      hold identical cards: two identical cards are a pair (two-card pair deng; their
      kind is ``pair``), three identical cards are Tong, and three cards of one suit are
      three-suited deng even when two of them are identical (one suit wins over the
      three-card pair). ``to_data`` states ``decks`` only when it is not 1, so one-deck
      rule content (and every one-deck table digest) is unchanged.
    * ``flush_with_identical`` — (a shoe only) whether three cards of one suit that hold
      two identical cards are paid three-suited deng (``true``, the default) or as a
      three-card pair (``false``). Stated by ``to_data`` only when ``false``.
    """

    name: str = "standard"
    description: str = ""
    straights: bool = False
    ace: str = "both"
    tong_vs_sam_lueang_pays: int = 2
    dealer_pok_first: bool = True
    dealer_draws_at_most: int = 4
    equal_points: str = "deng_difference"
    two_card_order: tuple[str, ...] = ()
    deng: Deng = field(default_factory=Deng)
    decks: int = 1
    flush_with_identical: bool = True
    types: tuple[Any, ...] = ()
    """A rule file's own types (the rule language,
    :mod:`~solver.games.pokdeng.language`), highest precedence first; empty for a rule
    set said in today's keys (:meth:`expand` writes those as types)."""

    @classmethod
    def from_data(cls, name: str, data: Mapping[str, Any]) -> PokDengRules:
        """Validate a rule dict (unknown fields are rejected, naming the field).

        >>> PokDengRules.from_data("x", {"straights": True, "ace": "low"}).ace
        'low'
        >>> PokDengRules.from_data("x", {"ace": "middle"})
        Traceback (most recent call last):
        ...
        solver.core.errors.RulesError: rule set x: field 'ace' is 'middle'; expected one of: ...
        """
        if "types" in data:
            return _from_types(name, data)
        r = Reader(data, name)
        d = cls()
        straights = r.boolean("straights", default=d.straights)
        ace = r.string("ace", choices=ACES, default=d.ace)
        pays = r.integer(
            "tong_vs_sam_lueang_pays", minimum=0, maximum=9, default=d.tong_vs_sam_lueang_pays
        )
        pok_first = r.boolean("dealer_pok_first", default=d.dealer_pok_first)
        k = r.integer("dealer_draws_at_most", minimum=0, maximum=9, default=d.dealer_draws_at_most)
        if r.has("equal_points") and not isinstance(data["equal_points"], str):
            raise r.fail(
                "equal_points",
                f"must be a string, got {data['equal_points']!r}; expected one of: "
                + ", ".join(EQUAL_POINTS),
            )
        equal = r.string("equal_points", choices=EQUAL_POINTS, default=d.equal_points)
        order = r.string_list("two_card_order", TWO_CARD_KINDS, unique=False, default=[])
        if order and sorted(order) != sorted(TWO_CARD_KINDS):
            raise r.fail(
                "two_card_order",
                f"is {order!r}; expected every two-card kind once, high to low "
                f"(e.g. {list(TWO_CARD_KINDS)!r}), or [] for no order",
            )
        description = r.string("description", default="")
        decks = r.integer("decks", minimum=1, maximum=MAX_DECKS, default=d.decks)
        flush_identical = r.boolean("flush_with_identical", default=d.flush_with_identical)
        deng = Deng()
        if r.has("deng"):
            dr = r.table("deng")
            deng = Deng(
                **{
                    f: dr.integer(f, minimum=1, maximum=9, default=getattr(deng, f))
                    for f in _DENG_FIELDS
                }
            )
            dr.done(ignore=())
        r.done()
        return cls(
            name=name,
            description=description,
            straights=straights,
            ace=ace,
            tong_vs_sam_lueang_pays=pays,
            dealer_pok_first=pok_first,
            dealer_draws_at_most=k,
            equal_points=equal,
            two_card_order=tuple(order),
            deng=deng,
            decks=decks,
            flush_with_identical=flush_identical,
        )

    def to_data(self) -> dict[str, Any]:
        """The full rule content as a JSON/TOML-able dict (round-trips through
        :meth:`from_data`).

        >>> r = load_rules("straights")
        >>> PokDengRules.from_data(r.name, r.to_data()) == r
        True
        """
        if self.types:
            return self.expand()
        out: dict[str, Any] = {"game": "pokdeng"}
        out.update(asdict(self))
        del out["types"]
        out["two_card_order"] = list(self.two_card_order)
        if self.decks == 1:
            del out["decks"]  # one deck: the content (and its digests) of before decks
        if self.flush_with_identical:
            del out["flush_with_identical"]  # the default; never met with one deck
        return out

    def expand(self) -> dict[str, Any]:
        """The rule set in the rule language's full form (``bull rules --expand``): every
        type with its predicate and deng; read back, it classifies every hand alike."""
        from solver.games.pokdeng.language import KIND_DENG, expand_keys

        types = self.types or expand_keys(self.straights, self.ace, self.deng)
        out: dict[str, Any] = {"game": "pokdeng", "name": self.name}
        out["description"] = self.description
        for key in ("tong_vs_sam_lueang_pays", "dealer_pok_first", "dealer_draws_at_most",
                    "equal_points"):  # fmt: skip
            out[key] = getattr(self, key)
        out["two_card_order"] = list(self.two_card_order)
        if self.decks != 1:
            out["decks"] = self.decks
        if not self.flush_with_identical:
            out["flush_with_identical"] = False
        out["deng"] = {k: getattr(self.deng, k) for k in KIND_DENG}
        out["types"] = [t.to_data() for t in types]
        return out

    def with_policy(self, k: int) -> PokDengRules:
        """The same rules with the dealer drawing on ``k`` or less."""
        return replace(self, dealer_draws_at_most=k)

    def content_key(self) -> tuple[Any, ...]:
        """What decides hand types and payouts (not the name, description or policy)."""
        return (
            self.straights,
            self.ace,
            self.tong_vs_sam_lueang_pays,
            self.equal_points,
            self.two_card_order,
            self.deng,
            self.types,
        )

    def kind_rank(self, kind: int) -> int:
        """Where a :class:`Kind` stands in ``two_card_order``: 3 (highest) .. 1; 0 for a
        three-card hand or when there is no order."""
        if kind == Kind.THREE_CARDS or not self.two_card_order:
            return 0
        return len(self.two_card_order) - self.two_card_order.index(Kind(kind).label)

    def kind_ranks(self) -> tuple[int, ...]:
        """:meth:`kind_rank` of every :class:`Kind` (index = kind code)."""
        return tuple(self.kind_rank(k) for k in Kind)


_SUGAR = ("straights", "ace")
"""Today's keys a file in the rule language says in its types instead."""


def _from_types(name: str, data: Mapping[str, Any]) -> PokDengRules:
    """A rule file with ``[[types]]`` (see :mod:`~solver.games.pokdeng.language`)."""
    from solver.games.pokdeng.language import KIND_DENG, TYPE_NAMES, read_types

    for key in _SUGAR:
        if key in data:
            raise RulesError(
                f"rule set {name}: field {key!r} is said per type in a file with [[types]]"
            )
    deng_data = data.get("deng", {})
    if isinstance(deng_data, Mapping):
        for key in deng_data:
            if key not in KIND_DENG:
                raise RulesError(
                    f"rule set {name}: field 'deng.{key}' is said per type in a file with "
                    f"[[types]] (the [deng] table holds: {', '.join(KIND_DENG)})"
                )
    types = read_types(data["types"], name)
    rest = {k: v for k, v in data.items() if k != "types"}
    base = PokDengRules.from_data(name, rest)
    # the type deng today's keys held, from the types that say one (what reasons and
    # reports quote); a type a file does not list keeps the default
    said = {t.name: t.deng for t in reversed(types) if t.deng is not None}
    fields = {"tong": "tong", "sam_lueang": "sam_lueang", "straight": "straight",
              "straight_flush": "straight_flush"}  # fmt: skip
    deng = replace(base.deng, **{f: said[t] for t, f in fields.items() if t in said})
    straights = any(t.name in ("straight", "straight_flush") for t in types)
    assert set(t.name for t in types) <= set(TYPE_NAMES)
    return replace(base, deng=deng, straights=straights, types=types)


def load_rules(spec: str | os.PathLike[str] | Mapping[str, Any] | None = None) -> PokDengRules:
    """A preset name (``standard``, ``straights``, ``shoe8``), a rule file, a dict, or ``None``
    for the default preset ``standard``.

    >>> load_rules().name, load_rules("straights").ace
    ('standard', 'both')
    """
    name, data = load_rule_data("pokdeng", spec, PRESET_DIR, default="standard")
    return PokDengRules.from_data(name, data)
