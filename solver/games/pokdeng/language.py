"""The Pok Deng rule language (issue 22): hand types, their precedence, their deng and
whether they compare by type or by points, as data.

A rule file may list its types, highest precedence first::

    [[types]]
    name = "sam_lueang"                 # the type a matching hand is, one of today's six
    when = "cards == 3 and faces == 3"  # a predicate (the vocabulary below)
    deng = 3                            # its deng; "kind": the [deng] table's pair/suited

A hand takes the **first** type whose predicate holds. A hand then ranks and compares as
the type it took: by the type (Pok > Tong > Straight Flush > Straight > Sam Lueang >
Normal), then by points — so a type named ``normal`` is compared by points, as a Normal
hand, whatever its deng ("runs paid their deng but compared as normal hands"). Today's
keys (``straights``, ``ace``, the type deng of ``[deng]``) are sugar: :func:`expand`
writes any rule set in this form, and the expanded form classifies every hand alike.

**Vocabulary** (a hand of two or three cards):

====================  ====  ======================================================
``cards``             int   2 or 3
``points``            int   the last digit of the card values (A = 1, 10/J/Q/K = 0)
``faces``             int   how many J, Q, K
``kind``              int   the most cards of one rank (3: Tong)
``pair``              bool  two cards of one rank (of three: exactly two)
``suited``            bool  every card one suit
``straight(A)``       bool  three consecutive ranks; A = ``low`` (A-2-3), ``high``
                            (Q-K-A, not A-2-3) or ``both``; never K-A-2
``all_in("R")``       bool  every card's rank in the set R (``"J-K"``)
====================  ====  ======================================================

>>> show(parse_type_predicate("cards == 3 and straight(both) and not suited"))
'cards == 3 and straight(both) and not suited'
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.core.errors import RulesError
from solver.kit.predicate import Expr, Vocabulary, combine, parse, show

__all__ = [
    "KIND_DENG",
    "TYPE_NAMES",
    "VOCABULARY",
    "TypeDef",
    "evaluate",
    "features",
    "parse_type_predicate",
    "read_types",
    "show",
    "straight_variants",
]

VOCABULARY = Vocabulary(
    bools=("pair", "suited", "true", "false"),
    ints=("cards", "points", "faces", "kind"),
    calls={"straight": "bool", "all_in": "bool"},
    word_calls={"straight": ("low", "high", "both")},
)
TYPE_NAMES = ("normal", "sam_lueang", "straight", "straight_flush", "tong", "pok")
"""Today's types, low to high (the rank a type compares at)."""
KIND_DENG = ("two_card_pair", "two_card_suited", "pok_pair", "pok_suited", "three_suited",
             "three_card_pair")  # fmt: skip
"""The ``[deng]`` fields a ``deng = "kind"`` type is paid from (the rest say a type's deng,
which a file in the language says per type)."""


def parse_type_predicate(text: str) -> Expr:
    """Parse and type-check a Pok Deng type predicate (one-line error if malformed)."""
    return parse(text, VOCABULARY)


@dataclass(frozen=True)
class TypeDef:
    """One type of a rule file: the type a hand is, when, and its deng (``None``: by
    kind, the ``[deng]`` table's pair and suited values)."""

    name: str
    when: str
    deng: int | None = None
    support: int | None = field(default=None, compare=False)
    """How many rows of the file it was learned from supported it (inferred files;
    it changes no hand)."""

    def to_data(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "when": self.when,
            "deng": "kind" if self.deng is None else self.deng,
        }
        if self.support is not None:
            out["support"] = self.support
        return out


def read_types(entries: Any, source: str) -> tuple[TypeDef, ...]:
    """The ``[[types]]`` of a rule file, each checked (a one-line error naming it)."""
    from solver.core.rules import Reader

    if not isinstance(entries, list) or not entries:
        raise RulesError(f"rule set {source}: field 'types' must be a list of tables")
    out = []
    for i, entry in enumerate(entries, 1):
        if not isinstance(entry, Mapping):
            raise RulesError(f"rule set {source}: type {i} must be a table")
        r = Reader(entry, source, f"types[{i}].")
        name = r.string("name", TYPE_NAMES)
        where = f"rule set {source}: type {i} ({name!r})"
        try:
            when = show(parse_type_predicate(r.string("when")))
        except RulesError as exc:
            raise RulesError(f"{where}: malformed predicate 'when': {exc}") from None
        raw = entry.get("deng", "kind")
        if raw == "kind":
            deng = None
        elif isinstance(raw, int) and not isinstance(raw, bool) and 1 <= raw <= 9:
            deng = raw
        else:
            raise RulesError(f'{where}: deng {raw!r}: expected 1..9 or "kind"')
        support = r.integer("support", minimum=0, default=None) if r.has("support") else None
        for key in entry:
            if key not in ("name", "when", "deng", "support"):
                raise RulesError(
                    f"{where}: unknown field {key!r} (expected name, when, deng, support)"
                )
        out.append(TypeDef(name, when, deng, support))
    return tuple(out)


Arrays = dict[str, npt.NDArray[Any]]


def features(cards: npt.NDArray[np.integer]) -> Arrays:
    """The vocabulary's numbers for hands (n, 2) or (n, 3) of card ids."""
    arr = np.asarray(cards, dtype=np.int64)
    rank = np.sort(arr >> 2, axis=1)
    suit = arr & 3
    value = np.where(rank < 9, rank + 1, 0)
    n, size = arr.shape
    counts = (rank[:, :, None] == rank[:, None, :]).sum(axis=2)
    kind = counts.max(axis=1)
    suited = (suit == suit[:, :1]).all(axis=1)
    pair = kind == 2  # two cards of one rank; of three, exactly two
    return {
        "rank": rank,
        "cards": np.full(n, size, dtype=np.int64),
        "points": value.sum(axis=1) % 10,
        "faces": (rank >= 10).sum(axis=1),
        "kind": kind,
        "pair": pair,
        "suited": suited,
        "true": np.ones(n, dtype=bool),
        "false": np.zeros(n, dtype=bool),
    }


def _straight(f: Arrays, ace: str) -> npt.NDArray[np.bool_]:
    r = f["rank"]
    if r.shape[1] != 3:
        return np.zeros(len(r), dtype=bool)
    run = (r[:, 1] == r[:, 0] + 1) & (r[:, 2] == r[:, 1] + 1)
    if ace == "high":
        run &= r[:, 0] != 0
    if ace in ("high", "both"):
        run = run | ((r[:, 0] == 0) & (r[:, 1] == 11) & (r[:, 2] == 12))
    return np.asarray(run, dtype=bool)


def evaluate(e: Expr, f: Arrays) -> npt.NDArray[Any]:
    """A predicate (or a number in it) over hands' :func:`features`."""
    head = e[0]
    n = len(f["rank"])
    if head == "lit":
        return np.full(n, e[1], dtype=bool if isinstance(e[1], bool) else np.int64)
    if head == "var":
        return f[e[1]]
    if head == "call":
        if e[1] == "straight":
            return _straight(f, e[2])
        return np.asarray(np.isin(f["rank"], list(e[2])).all(axis=1), dtype=bool)
    return combine(e, f, evaluate)  # not, a comparison, and, or


def expand_keys(straights: bool, ace: str, deng: Any) -> tuple[TypeDef, ...]:
    """Today's keys as types, highest precedence first: Pok (two cards, 8 or 9), Tong,
    with straights the Straight Flush and the Straight, Sam Lueang, Normal."""
    out = [
        TypeDef("pok", "cards == 2 and points >= 8"),
        TypeDef("tong", "cards == 3 and kind == 3", deng.tong),
    ]
    if straights:
        out.append(
            TypeDef(
                "straight_flush", f"cards == 3 and straight({ace}) and suited", deng.straight_flush
            )
        )
        out.append(TypeDef("straight", f"cards == 3 and straight({ace})", deng.straight))
    out.append(TypeDef("sam_lueang", "cards == 3 and faces == 3", deng.sam_lueang))
    out.append(TypeDef("normal", "true"))
    return tuple(TypeDef(t.name, show(parse_type_predicate(t.when)), t.deng) for t in out)


_STRAIGHT_CALL = re.compile(r"straight\((low|high|both)\)")
_ACE_NOTE = {"low": " (A-2-3 only)", "high": " (Q-K-A only)", "both": ""}


def straight_variants(
    types: Sequence[TypeDef], deng: Any
) -> list[tuple[str, str, tuple[TypeDef, ...]]]:
    """The catalogue's straights and ace variants of a file's types, as types (key,
    description, the types): with straight types, none of them (``straights=false``)
    and every predicate's ``straight(A)`` with the other aces (``ace=A``); without,
    today's two straight types (deng from ``deng``) before the first Sam Lueang, or
    before the last type (``straights=true,ace=A``). The keys are those of a file said
    in today's keys, so a preset and its expanded form get the same catalogue.

    >>> std = expand_keys(False, "both", _Deng())
    >>> [k for k, _, _ in straight_variants(std, _Deng())]
    ['straights=true,ace=both', 'straights=true,ace=low', 'straights=true,ace=high']
    >>> [t.name for t in straight_variants(std, _Deng())[0][2]][2:4]
    ['straight_flush', 'straight']
    """
    out: list[tuple[str, str, tuple[TypeDef, ...]]] = []
    named = [t for t in types if t.name in ("straight", "straight_flush")]
    aces = {m for t in types for m in _STRAIGHT_CALL.findall(t.when)}
    if named:
        rest = tuple(t for t in types if t.name not in ("straight", "straight_flush"))
        out.append(("straights=false", "no straights (Riang not counted)", rest))
    if aces:
        for ace in ("low", "high", "both"):
            if {ace} == aces:
                continue
            moved = tuple(
                replace(t, when=_STRAIGHT_CALL.sub(f"straight({ace})", t.when)) for t in types
            )
            out.append((f"ace={ace}", f"straights with the ace {ace}{_ACE_NOTE[ace]}", moved))
    if not named:
        at = next((i for i, t in enumerate(types) if t.name == "sam_lueang"), len(types) - 1)
        for ace in ("both", "low", "high"):
            new = (
                TypeDef("straight_flush", f"cards == 3 and straight({ace}) and suited",
                        deng.straight_flush),
                TypeDef("straight", f"cards == 3 and straight({ace})", deng.straight),
            )  # fmt: skip
            both = (*types[:at], *new, *types[at:])
            out.append((f"straights=true,ace={ace}", f"straights counted (ace {ace})", both))
    return out


def classify_types(
    cards: npt.NDArray[np.integer],
    types: Sequence[TypeDef],
    deng: Any,
    flush_with_identical: bool,
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8], npt.NDArray[np.int8]]:
    """Type code, points and deng of hands under ``types`` (the first that holds; a hand
    none takes is Normal, paid by kind)."""
    f = features(cards)
    n, size = np.asarray(cards).shape
    code = np.zeros(n, dtype=np.int8)
    fixed = np.full(n, -1, dtype=np.int8)
    left = np.ones(n, dtype=bool)
    for t in types:
        hit = left & np.asarray(evaluate(_parsed(t.when), f), dtype=bool)
        code[hit] = TYPE_NAMES.index(t.name)
        if t.deng is not None:
            fixed[hit] = t.deng
        left &= ~hit
    by_kind = np.ones(n, dtype=np.int8)
    pair, suited = f["pair"], f["suited"]
    if size == 2:
        pok = code == TYPE_NAMES.index("pok")
        by_kind[suited] = deng.two_card_suited
        by_kind[pair] = deng.two_card_pair
        by_kind[pok & suited] = deng.pok_suited
        by_kind[pok & pair] = deng.pok_pair
    else:
        by_kind[suited] = deng.three_suited
        by_kind[pair & ~suited if flush_with_identical else pair] = deng.three_card_pair
    out_deng = np.where(fixed >= 0, fixed, by_kind).astype(np.int8)
    return code, f["points"].astype(np.int8), out_deng


@dataclass(frozen=True)
class _Deng:  # the standard straight deng, for the doctests
    straight: int = 3
    straight_flush: int = 5
    tong: int = 5
    sam_lueang: int = 3


_PARSED: dict[str, Expr] = {}


def _parsed(text: str) -> Expr:
    e = _PARSED.get(text)
    if e is None:
        e = _PARSED[text] = parse_type_predicate(text)
    return e
