"""The arguments of the Python API, checked at the edge: one validator per kind.

A caller of ``evaluate``, ``settle`` or a batch function gets a one-line
:class:`~solver.core.errors.BullError` naming the bad argument — never a ``TypeError``
from deep inside (``evaluate(None)``, ``rules=123``, ``commission="0.05"``). The kinds:
a hand (:func:`check_hand`), a rule set's spelling (:func:`check_rules_spec`), a
commission (:func:`check_commission`), a tables folder (:func:`check_tables`), two
batches answered row by row (:func:`check_paired`). A batch of ids is checked by
:func:`solver.core.indexing.item_ids`.

>>> try:
...     check_hand(None)
... except BullError as e:
...     print(e)
a hand is a string such as 'AS 10H 3C 7D KS' or a list of cards or card ids, not None
>>> check_commission("0.05")
Traceback (most recent call last):
...
solver.core.errors.BullError: commission '0.05' is a str; give a number, e.g. 0.05
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from fractions import Fraction
from numbers import Real
from typing import Any

from solver.core.errors import BullError, ParseError, RulesError

__all__ = [
    "check_commission",
    "check_hand",
    "check_paired",
    "check_rules_spec",
    "check_tables",
    "shown",
]

_EXAMPLE = {"card": "'AS 10H 3C 7D KS'", "tile": "'[6:5][4:1][3:3][5:5][2:2]'"}


def shown(value: Any, limit: int = 60) -> str:
    """``repr(value)``, cut to ``limit`` characters (a huge argument stays one line).

    >>> shown("x" * 100, 10)
    "'xxxxxx..."
    """
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_hand(hand: Any, what: str = "card") -> None:
    """A hand is a string, or an iterable of names or ids (a list, a tuple, a 1-D
    array); ``None``, a number, bytes or a dict are a :class:`ParseError` naming it."""
    if isinstance(hand, str):
        return
    if (
        hand is None
        or isinstance(hand, bytes | bytearray | memoryview | Mapping | Real)
        or not isinstance(hand, Iterable)
        or getattr(hand, "ndim", 1) != 1
    ):
        example = _EXAMPLE.get(what, "'...'")
        raise ParseError(
            f"a hand is a string such as {example} or a list of {what}s or {what} ids, "
            f"not {shown(hand)}"
        )


def check_rules_spec(spec: Any, game: str) -> None:
    """A rule set is named by a preset name or a rule file (``str`` or a path) or given
    as a dict; anything else is a :class:`RulesError` naming it."""
    if spec is None or isinstance(spec, str | Mapping):
        return
    if isinstance(spec, os.PathLike) and isinstance(os.fspath(spec), str):
        return
    raise RulesError(
        f"rules={shown(spec)} for {game}: give a preset name, a rule file path, a dict "
        "or a rule set"
    )


def check_commission(value: Any) -> float | Fraction:
    """A commission is a number in [0, 1) (a string, even ``"0.05"``, is not).

    >>> check_commission(0.05), check_commission(Fraction(1, 20))
    (0.05, Fraction(1, 20))
    """
    if isinstance(value, bool) or not isinstance(value, Real):
        raise BullError(
            f"commission {shown(value)} is a {type(value).__name__}; give a number, e.g. 0.05"
        )
    if isinstance(value, Fraction):
        ok = 0 <= value < 1
    else:
        ok = math.isfinite(float(value)) and 0 <= float(value) < 1
    if not ok:
        raise BullError(f"commission {shown(value)} must be a fraction in [0, 1), e.g. 0.05")
    return value if isinstance(value, Fraction) else float(value)


def check_tables(tables: Any) -> str | None:
    """A tables folder is ``None`` (the default) or a path; its text, or a
    :class:`BullError` naming it."""
    if tables is None:
        return None
    if isinstance(tables, str | os.PathLike):
        path = os.fspath(tables)
        if isinstance(path, str):
            return path
    raise BullError(f"tables={shown(tables)}: give the tables folder as a path (or None)")


def check_paired(left: int, right: int, names: tuple[str, str]) -> None:
    """Two batches answered row by row hold as many rows each.

    >>> check_paired(2, 1, ("player", "banker"))
    Traceback (most recent call last):
    ...
    solver.core.errors.ParseError: 2 player hands but 1 banker hands: a batch pairs them row by row
    """
    if left != right:
        raise ParseError(
            f"{left} {names[0]} hands but {right} {names[1]} hands: a batch pairs them row by row"
        )
