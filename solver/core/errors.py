"""The one exception family the tool raises for bad input.

Every user-facing failure (a bad card, an unknown preset, a missing table) is a
:class:`BullError` whose message is one line naming the offending item. The CLI
prints it and exits with code 2; the API lets it propagate.
"""

from __future__ import annotations

__all__ = ["BullError", "ParseError", "RulesError", "TableError", "first_line"]


class BullError(ValueError):
    """Base class: bad input or bad state, with a one-line message."""


class ParseError(BullError):
    """A card, tile or hand could not be read."""


class RulesError(BullError):
    """A rule set is unknown or malformed."""


class TableError(BullError):
    """A table is missing, stale, truncated or tampered with."""


def first_line(exc: BaseException, empty: str | None = None) -> str:
    """The first line of a library's error message, for a one-line :class:`BullError`
    (``empty``, else the exception's type name, when it says nothing).

    >>> first_line(RuntimeError("IO Error: no such file\\nLINE 1: ..."))
    'IO Error: no such file'
    >>> first_line(RuntimeError("  "))
    'RuntimeError'
    """
    text = str(exc).strip()
    return text.splitlines()[0] if text else (empty or type(exc).__name__)
