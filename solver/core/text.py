r"""The characters a hand may be written with, and nothing else.

Cards and tiles are written with a handful of ASCII characters (and the four suit
symbols). Python's own case mapping and digit parsing accept far more (the long s,
U+017F, upper-cases to ``S``; ``int()`` reads an Arabic-Indic three, U+0663, as 3),
which would turn a look-alike into a card. A written hand is therefore checked
character by character: a character of the notation is kept, a full-width or
half-width form of one (its NFKC form, for ``<wide>``/``<narrow>`` compatibility
characters only) is read as that character, and anything else is an error naming
the character.

>>> only_notation("\uff11\uff10\uff28 \uff21\uff33", CARD_CHARACTERS)  # full width
'10H AS'
>>> only_notation("A\u017f", CARD_CHARACTERS)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
solver.core.errors.ParseError: character ... (U+017F LATIN SMALL LETTER LONG S) in ...
"""

from __future__ import annotations

import unicodedata

from solver.core.errors import ParseError

__all__ = ["CARD_CHARACTERS", "TILE_CHARACTERS", "only_notation"]

CARD_CHARACTERS = frozenset("AaTtJjQqKkSsHhDdCc0123456789♠♥♦♣♤♡♢♧,;")
"""Every character of the card notation (RULES.md §2), besides white space."""
TILE_CHARACTERS = frozenset("0123456789[]:,;")
"""Every character of the tile notation (RULES.md §2), besides white space."""


def only_notation(text: str, allowed: frozenset[str], what: str = "card") -> str:
    """``text`` with width variants of notation characters folded to them; any other
    non-ASCII character outside ``allowed`` (and white space) is a :class:`ParseError`.
    ASCII characters pass through: the token parser names a bad token whole."""
    if text.isascii() or all(c in allowed or c.isspace() for c in text):
        return text  # ASCII junk is left to the token parser ("unknown card 'XX'")
    out = []
    for c in text:
        if c in allowed or c.isspace() or c.isascii():
            out.append(c)
            continue
        folded = unicodedata.normalize("NFKC", c)
        if unicodedata.decomposition(c).startswith(("<wide>", "<narrow>")) and folded in allowed:
            out.append(folded)
            continue
        name = unicodedata.name(c, "unnamed character")
        raise ParseError(
            f"character {c!r} (U+{ord(c):04X} {name}) in {text.strip()!r} is not part of "
            f"the {what} notation"
        )
    return "".join(out)
