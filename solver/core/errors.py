"""The one exception family the tool raises for bad input.

Every user-facing failure (a bad card, an unknown preset, a missing table) is a
:class:`BullError` whose message is one line naming the offending item. The CLI
prints it and exits with code 2; the API lets it propagate.
"""

from __future__ import annotations

__all__ = ["BullError", "ParseError", "RulesError", "TableError"]


class BullError(ValueError):
    """Base class: bad input or bad state, with a one-line message."""


class ParseError(BullError):
    """A card, tile or hand could not be read."""


class RulesError(BullError):
    """A rule set is unknown or malformed."""


class TableError(BullError):
    """A table is missing, stale, truncated or tampered with."""
