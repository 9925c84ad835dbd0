"""Chinese domino tiles: ids 0..31, parsing and printing.

The set has 21 tile types: every pair of pip counts 1..6. Eleven **civil** types come
twice and ten **military** types once (RULES §4), 32 physical tiles in all.

Encoding: the 21 types are taken in canonical order, by ``(high, low)`` ascending
(RULES §8): ``[1:1] [2:1] [2:2] [3:1] … [6:5] [6:6]``. Each civil type gets two
consecutive ids (copy 0, then copy 1), each military type one. Sorting ids therefore
gives the canonical print order, and both copies of a type sort together.

>>> parse_tile("[2:4]"), parse_tile("4:2"), parse_tile("42")
(11, 11, 11)
>>> tile_name(0), tile_name(31)
('[1:1]', '[6:6]')
>>> format_hand(parse_hand("[6:5][4:1] 66, 2:1 [6:6]"))
'[2:1][4:1][6:5][6:6][6:6]'
>>> parse_hand("66 66 66 11 12")
Traceback (most recent call last):
...
solver.core.errors.ParseError: too many copies of [6:6] in hand '66 66 66 11 12': the set has 2
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TypeAlias

import numpy as np
import numpy.typing as npt

from solver.core.errors import ParseError
from solver.core.inputs import check_hand
from solver.core.text import TILE_CHARACTERS, only_notation

__all__ = [
    "CIVIL_TYPES",
    "MILITARY_TYPES",
    "NUM_TILES",
    "NUM_TYPES",
    "TILE_NAMES",
    "TILE_TYPES",
    "TYPE_COPIES",
    "TYPE_FIRST_ID",
    "TYPE_NAMES",
    "TYPE_OF_TILE",
    "Tile",
    "canonical_hand",
    "canonicalize_array",
    "format_hand",
    "hand_names",
    "parse_hand",
    "parse_tile",
    "parse_tiles",
    "tile_copy",
    "tile_id",
    "tile_name",
    "tile_pips",
    "tile_type",
]

Tile: TypeAlias = int
"""A physical tile id, 0..31 (see the module docstring for the encoding)."""

CIVIL_TYPES: frozenset[tuple[int, int]] = frozenset(
    {
        (6, 6),
        (1, 1),
        (4, 4),
        (3, 1),
        (5, 5),
        (3, 3),
        (2, 2),
        (6, 5),
        (6, 4),
        (6, 1),
        (5, 1),
    }
)
"""The eleven civil types (two copies each), as ``(high, low)``."""
MILITARY_TYPES: frozenset[tuple[int, int]] = frozenset(
    {
        (6, 3),
        (5, 4),
        (6, 2),
        (5, 3),
        (5, 2),
        (4, 3),
        (4, 2),
        (4, 1),
        (3, 2),
        (2, 1),
    }
)
"""The ten military types (one copy each), as ``(high, low)``."""

TILE_TYPES: tuple[tuple[int, int], ...] = tuple(
    sorted((hi, lo) for hi in range(1, 7) for lo in range(1, hi + 1))
)
"""The 21 types in canonical order: ``(high, low)`` ascending."""
NUM_TYPES = len(TILE_TYPES)
TYPE_COPIES: tuple[int, ...] = tuple(2 if t in CIVIL_TYPES else 1 for t in TILE_TYPES)
"""How many physical tiles of each type the set holds."""
TYPE_FIRST_ID: tuple[int, ...] = tuple(sum(TYPE_COPIES[:i]) for i in range(NUM_TYPES))
"""Id of copy 0 of each type."""
TYPE_OF_TILE: tuple[int, ...] = tuple(i for i, n in enumerate(TYPE_COPIES) for _ in range(n))
"""Type index (0..20) of each tile id."""
NUM_TILES = len(TYPE_OF_TILE)
TYPE_NAMES: tuple[str, ...] = tuple(f"[{hi}:{lo}]" for hi, lo in TILE_TYPES)
TILE_NAMES: tuple[str, ...] = tuple(TYPE_NAMES[t] for t in TYPE_OF_TILE)
"""Canonical spelling of each tile id (both copies of a civil type print alike)."""

assert NUM_TYPES == 21 and NUM_TILES == 32
assert set(TILE_TYPES) == CIVIL_TYPES | MILITARY_TYPES

_TYPE_INDEX = {t: i for i, t in enumerate(TILE_TYPES)}
_SEPARATORS = re.compile(r"[\s,;]+")
_TILE_AT = re.compile(r"\[([0-9]):([0-9])\]|([0-9]):([0-9])|([0-9])([0-9])")
_TYPE_OF_TILE_ARR = np.array(TYPE_OF_TILE, dtype=np.uint8)
_FIRST_ID_ARR = np.array(TYPE_FIRST_ID, dtype=np.uint8)


def tile_type(tile: Tile) -> int:
    """Type index 0..20 of a tile id."""
    return TYPE_OF_TILE[_check_id(tile)]


def tile_pips(tile: Tile) -> tuple[int, int]:
    """``(high, low)`` pips of a tile id.

    >>> tile_pips(11)
    (4, 2)
    """
    return TILE_TYPES[tile_type(tile)]


def tile_copy(tile: Tile) -> int:
    """0 or 1: which physical copy of its type a tile id is (military types: always 0)."""
    return _check_id(tile) - TYPE_FIRST_ID[TYPE_OF_TILE[tile]]


def tile_id(high: int, low: int, copy: int = 0) -> Tile:
    """The id of copy ``copy`` of the tile with pips ``high`` and ``low`` (any order).

    >>> tile_id(6, 6, 1), tile_id(1, 2)
    (31, 2)
    """
    key = (max(high, low), min(high, low))
    t = _TYPE_INDEX.get(key)
    if t is None:
        raise ParseError(f"unknown tile [{high}:{low}] (pips are 1..6)")
    if not 0 <= copy < TYPE_COPIES[t]:
        raise ParseError(f"tile {TYPE_NAMES[t]} has no copy {copy}: the set has {TYPE_COPIES[t]}")
    return TYPE_FIRST_ID[t] + copy


def _check_id(tile: object) -> int:
    if isinstance(tile, bool) or not isinstance(tile, int | np.integer) or not 0 <= tile < 32:
        raise ParseError(f"not a tile id: {tile!r} (expected 0..31)")
    return int(tile)


def tile_name(tile: Tile) -> str:
    """Canonical spelling, higher end first: ``'[4:2]'``."""
    return TILE_NAMES[_check_id(tile)]


def _type_from_pips(a: str, b: str, shown: str) -> int:
    hi, lo = max(int(a), int(b)), min(int(a), int(b))
    t = _TYPE_INDEX.get((hi, lo))
    if t is None:
        raise ParseError(f"unknown tile {shown!r} (pips are 1..6)")
    return t


def _parse_types(text: str) -> list[int]:
    """Type indexes of the tiles in ``text``, in the order given."""
    types: list[int] = []
    for chunk in _SEPARATORS.split(only_notation(text, TILE_CHARACTERS, "tile").strip()):
        pos = 0
        while pos < len(chunk):
            m = _TILE_AT.match(chunk, pos)
            if m is None:
                end = chunk.find("[", pos + 1)
                bad = chunk[pos:] if end < 0 else chunk[pos:end]
                raise ParseError(f"unknown tile {bad!r} (expected [4:2], 4:2 or 42)")
            a, b = next((m.group(i), m.group(i + 1)) for i in (1, 3, 5) if m.group(i))
            types.append(_type_from_pips(a, b, m.group(0)))
            pos = m.end()
    return types


def parse_tile(text: str) -> Tile:
    """Read one tile (``[4:2]``, ``[2:4]``, ``4:2``, ``42``); returns copy 0 of its type.

    >>> parse_tile("[7:1]")
    Traceback (most recent call last):
    ...
    solver.core.errors.ParseError: unknown tile '[7:1]' (pips are 1..6)
    """
    types = _parse_types(text)
    if len(types) != 1:
        raise ParseError(f"expected one tile, got {text.strip()!r}")
    return TYPE_FIRST_ID[types[0]]


def _assign_copies(types: Iterable[int], shown: str) -> list[Tile]:
    used: Counter[int] = Counter()
    out: list[Tile] = []
    for t in types:
        if used[t] >= TYPE_COPIES[t]:
            raise ParseError(
                f"too many copies of {TYPE_NAMES[t]} in hand {shown!r}: "
                f"the set has {TYPE_COPIES[t]}"
            )
        out.append(TYPE_FIRST_ID[t] + used[t])
        used[t] += 1
    return out


def parse_tiles(text: str) -> list[Tile]:
    """Read tiles, with or without separators, in the order given. A civil type seen
    twice gets copy 0 then copy 1; more copies than the set has is an error.

    >>> parse_tiles("[6:6][6:6] 21")
    [30, 31, 2]
    """
    return _assign_copies(_parse_types(text), text.strip())


def parse_hand(
    text: str | Iterable[str] | Iterable[int], size: int | Sequence[int] | None = 5
) -> tuple[Tile, ...]:
    """Read a hand and return its tile ids sorted canonically.

    ``text`` is a string, an iterable of tile strings (types: copies are assigned), or
    an iterable of tile ids (kept as given; a repeated id is an error). ``size`` is the
    required number of tiles (or a collection of allowed numbers; ``None``: any).

    >>> parse_hand("[6:5][4:1]", size=2)
    (10, 28)
    >>> parse_hand("11 22 33 44")
    Traceback (most recent call last):
    ...
    solver.core.errors.ParseError: hand '11 22 33 44' has 4 tiles; expected 5
    """
    if isinstance(text, str):
        tiles = parse_tiles(text)
        shown = text.strip()
    else:
        check_hand(text, "tile")
        items = list(text)
        shown = " ".join(str(i) for i in items)
        if all(isinstance(i, str) for i in items):
            tiles = _assign_copies((t for i in items for t in _parse_types(str(i))), shown)
        else:
            tiles = []
            for item in items:
                if isinstance(item, str):
                    raise ParseError(f"hand {shown!r} mixes tile names and tile ids")
                tile = _check_id(item)
                if tile in tiles:
                    raise ParseError(
                        f"duplicate tile id {tile} ({TILE_NAMES[tile]}) in hand {shown!r}"
                    )
                tiles.append(tile)
    if size is not None:
        allowed = (size,) if isinstance(size, int) else tuple(size)
        if len(tiles) not in allowed:
            want = " or ".join(str(a) for a in allowed)
            raise ParseError(f"hand {shown!r} has {len(tiles)} tiles; expected {want}")
    return tuple(sorted(tiles))


def canonical_hand(tiles: Iterable[Tile]) -> tuple[Tile, ...]:
    """The same multiset of types with copy 0 used before copy 1, sorted.

    >>> canonical_hand([31, 2])
    (2, 30)
    """
    return tuple(sorted(_assign_copies(sorted(tile_type(t) for t in tiles), "ids")))


def canonicalize_array(ids: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """Row-wise :func:`canonical_hand` of an (n, k) id array: rows sorted, and in each
    row the copies of a type renumbered from copy 0. Rows must not repeat a tile id.

    >>> canonicalize_array([[31, 2, 0], [30, 31, 1]]).tolist()
    [[0, 2, 30], [0, 30, 31]]
    """
    arr = np.sort(np.asarray(ids, dtype=np.int64), axis=1)
    if arr.size and (arr.min() < 0 or arr.max() >= NUM_TILES):
        raise ParseError("tile ids must be 0..31")
    if arr.shape[1] > 1 and np.any(arr[:, 1:] == arr[:, :-1]):
        row = int(np.nonzero(np.any(arr[:, 1:] == arr[:, :-1], axis=1))[0][0])
        raise ParseError(f"row {row} repeats a tile id: {arr[row].tolist()}")
    types = _TYPE_OF_TILE_ARR[arr]
    out = _FIRST_ID_ARR[types].astype(np.uint8)
    if arr.shape[1] > 1:
        # sorted rows: a type's second tile directly follows its first
        out[:, 1:] += (types[:, 1:] == types[:, :-1]).astype(np.uint8)
    return out


def hand_names(tiles: Iterable[Tile]) -> list[str]:
    """Canonical names of the tiles, in canonical order."""
    return [tile_name(t) for t in sorted(tiles)]


def format_hand(tiles: Iterable[Tile], sep: str = "") -> str:
    """Canonical spelling of a hand: ``'[2:1][4:1][6:5]'`` (``sep`` between tiles)."""
    return sep.join(hand_names(tiles))
