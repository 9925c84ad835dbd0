"""The plainest spellings of hands read straight from an Arrow text column's bytes.

Most claims files write hands one way: cards of two bytes (or ``10`` and a suit) with
one space between two (``"AS 10H 3C 7D KS"``), tiles as ``[a:b]`` one after another
or with one space between (``"[6:5][4:1]..."``). Those rows are read here with a few
numpy passes over the bytes; every other row (another separator, a suit symbol, a
stray byte, a wrong count) is left to the token tables of :mod:`solver.kit.notation`,
which read these rows alike (``tests/test_verify_keys.py`` compares them on random and
broken text), and then to the per-hand parsers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

__all__ = [
    "PAD",
    "plain_bools",
    "plain_cards",
    "plain_digits",
    "plain_tiles",
    "string_offsets",
    "text_bytes",
]

PAD = 255
"""Filler after the last card of a short hand."""


def _valid(arr: pa.Array) -> npt.NDArray[np.bool_]:
    if arr.null_count == 0:
        return np.ones(len(arr), dtype=bool)
    return np.asarray(arr.is_valid().to_numpy(zero_copy_only=False), dtype=bool)


def _card_tables() -> tuple[npt.NDArray[np.int16], npt.NDArray[np.int16]]:
    """Two-byte card tokens read as one little-endian number (suit byte << 8 | rank
    byte: ``A 2 … 9 T J Q K`` and ``S H D C``, any case) → card id, and the suit byte
    after ``10`` → the id of that ten; -1 for anything else."""
    rank = np.full(256, -1, dtype=np.int16)
    suit = np.full(256, -1, dtype=np.int16)
    for i, r in enumerate("A23456789TJQK"):
        rank[ord(r)] = rank[ord(r.lower())] = i
    for i, x in enumerate("SHDC"):
        suit[ord(x)] = suit[ord(x.lower())] = i
    two = np.full((256, 256), -1, dtype=np.int16)  # [suit byte, rank byte]: little-endian
    both = (suit[:, None] >= 0) & (rank[None, :] >= 0)
    two[both] = (rank[None, :] * 4 + suit[:, None])[both]
    ten = np.where(suit >= 0, 36 + suit, -1).astype(np.int16)
    return two.ravel(), ten


_CARD_TWO, _CARD_TEN = _card_tables()
_TEN_CODE = ord("0") << 8 | ord("1")
"""The bytes ``10`` read as one little-endian two-byte number."""
_PLAIN_ROWS = 1 << 14
"""Hands read at a time by :func:`plain_cards` (its arrays stay in the cache)."""


def plain_cards(
    text: pa.Array, sizes: tuple[int, ...]
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
    """Card hands in the plainest spelling, read straight from the column's bytes:
    cards of two bytes (rank, suit letter) or three (``10`` and a suit letter), any
    case, one space between two cards, nothing else. Card ids in the order written
    (:data:`PAD` after a short hand), the count, and ``ok``: the row is so spelled with a
    count in ``sizes`` (any other row is left to :func:`solver.kit.notation.card_tokens`,
    which reads such a row alike; repeated cards are not checked here).

    >>> ids, size, ok = plain_cards(pa.array(["KS 9h 10C 3D 7S", "AS  2H", "AS 2H", None]), (2, 5))
    >>> ids[0].tolist(), ids[2].tolist(), size.tolist(), ok.tolist()
    ([48, 33, 39, 10, 24], [0, 5, 255, 255, 255], [5, 0, 2, 0], [True, False, True, False])
    """
    n, width = len(text), max(sizes)
    ids = np.full((n, width), PAD, dtype=np.uint8)
    size = np.zeros(n, dtype=np.int8)
    ok = np.zeros(n, dtype=bool)
    _by_parts(text, sizes, _PLAIN_ROWS, _plain_part, (ids, size, ok))
    return ids, size, ok


def _by_parts(
    text: pa.Array,
    sizes: tuple[int, ...],
    rows: int,
    part: Callable[..., None],
    outs: tuple[npt.NDArray[Any], ...],
) -> None:
    """Call ``part(data, offsets, valid, sizes, *views)`` on ``rows`` rows of ``text``
    at a time (their bytes stay in the cache), the views those rows of ``outs``;
    nothing when the column holds no bytes."""
    got = text_bytes(text)
    if got is None:
        return
    off, data = got
    valid = _valid(text)
    for lo in range(0, len(text), rows):
        hi = min(len(text), lo + rows)
        part(data, off[lo : hi + 1], valid[lo:hi], sizes, *(o[lo:hi] for o in outs))


def _plain_part(
    data: npt.NDArray[np.uint8],
    off: npt.NDArray[np.int32],
    valid: npt.NDArray[np.bool_],
    sizes: tuple[int, ...],
    ids: npt.NDArray[np.uint8],
    size: npt.NDArray[np.int8],
    ok: npt.NDArray[np.bool_],
) -> None:
    """:func:`plain_cards` of the rows between offsets ``off``, written into the views:
    card after card, every row at once — a card's first two bytes (``10``: and the
    third); a row of ``k`` cards ends right after its ``k``-th card, and a space
    follows each card before."""
    width = ids.shape[1]
    base = int(off[0])
    # zeros past the end: a start moves at most 4 bytes a card, from at most the end
    seg = np.zeros(int(off[-1]) - base + 4 * width + 4, dtype=np.uint8)
    seg[: int(off[-1]) - base] = data[base : int(off[-1])]
    start = (off[:-1] - base).astype(np.int64)
    en = (off[1:] - base).astype(np.int64)
    got = np.empty((width, len(en)), dtype=np.int16)
    good = valid.copy()  # the cards so far read, each followed by a space
    count = np.zeros(len(en), dtype=np.int8)  # the rows read: their cards
    for j in range(width):
        # a card's first two bytes as one little-endian number (two takes of bytes: a
        # take through a view of two-byte numbers at every byte is four times slower)
        code = np.take(seg, start + 1).astype(np.intp)
        code <<= 8
        code |= np.take(seg, start)
        card = np.take(_CARD_TWO, code)
        ten = code == _TEN_CODE
        at = np.flatnonzero(ten)  # about 1 card in 13: ``10`` and a suit letter
        if len(at):
            card[at] = np.take(_CARD_TEN, np.take(seg, start[at] + 2))
        got[j] = card
        good &= card >= 0
        stop = start + 2
        stop += ten
        if j + 1 in sizes:  # rows of j + 1 cards end here
            count[good & (stop == en)] = j + 1
        if j + 1 < width:
            good &= np.take(seg, stop) == 32
            start = stop + 1
    read = count > 0
    for j in range(width):
        ids[:, j] = np.where(count > j, got[j], PAD)
    size[:] = count
    ok[:] = read


def _tile_type(hi: npt.NDArray[np.uint8], lo: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """Two pips as 0..5 (``1``..``6`` less ``"1"``, either order) → the tile type, in
    :data:`solver.core.tiles.TILE_TYPES` order (the higher pip's triangle number plus the
    lower: ``[1:1]`` 0, ``[2:1]`` 1, ``[2:2]`` 2 …), one byte each, with no table. ``hi``
    is overwritten.

    >>> from solver.core.tiles import TILE_TYPES
    >>> hi = np.array([h - 1 for h, _ in TILE_TYPES], dtype=np.uint8)
    >>> lo = np.array([l - 1 for _, l in TILE_TYPES], dtype=np.uint8)
    >>> _tile_type(lo.copy(), hi).tolist() == list(range(21)) == _tile_type(hi, lo).tolist()
    True
    """
    big = np.maximum(hi, lo)
    low = np.minimum(hi, lo)
    hi[...] = big + np.uint8(1)
    hi *= big
    hi >>= 1
    hi += low
    return hi


def plain_tiles(
    text: pa.Array, sizes: tuple[int, ...]
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
    """Tile hands in the plainest spelling, read straight from the column's bytes:
    tiles ``[a:b]`` (pips 1..6, either order), one after another or with one space
    between two. Tile types in the order written (-1 after the last), the count, and
    ``ok``: the row is so spelled with a count in ``sizes`` (any other row is left to
    :func:`solver.kit.notation.tile_tokens`, which reads such a row alike).

    >>> t, size, ok = plain_tiles(pa.array(["[6:5][4:1]", "[6:5] [1:4]", "[6:5]4:1", None]), (2,))
    >>> t[:2].tolist(), size.tolist(), ok.tolist()
    ([[19, 6], [19, 6]], [2, 2, 0, 0], [True, True, False, False])
    """
    n, width = len(text), max(sizes)
    types = np.full((n, width), -1, dtype=np.int8)
    size = np.zeros(n, dtype=np.int8)
    ok = np.zeros(n, dtype=bool)
    _by_parts(text, sizes, _TILE_ROWS, _tiles_part, (types, size, ok))
    return types, size, ok


_TILE_ROWS = 1 << 15
"""Tile hands read at a time by :func:`plain_tiles` (a column of their bytes is read
a byte a row: the rows' bytes stay in the cache for the next)."""


def _tiles_part(
    data: npt.NDArray[np.uint8],
    off: npt.NDArray[np.int32],
    valid: npt.NDArray[np.bool_],
    sizes: tuple[int, ...],
    types: npt.NDArray[np.int8],
    size: npt.NDArray[np.int8],
    ok: npt.NDArray[np.bool_],
) -> None:
    """:func:`plain_tiles` of the rows between offsets ``off``, written into the views."""
    n = len(valid)
    length = np.diff(off)
    for k in sizes:
        for gap in (0, 1):  # no separator, or one space
            width_k = 5 * k + gap * (k - 1)
            rows = np.flatnonzero(valid & (length == width_k))
            if not len(rows):
                continue
            # a row per byte place (the part's bytes transposed in the cache): each
            # place read contiguously
            if len(rows) == n and (length == width_k).all():  # one block: a matrix
                b = data[off[0] : off[0] + n * width_k].reshape(n, width_k).T.copy()
            else:
                b = data[off[rows][None, :] + np.arange(width_k)[:, None]]
            step = 5 + gap
            got = np.empty((k, len(rows)), dtype=np.int8)
            good = np.ones(len(rows), dtype=bool)
            for j in range(k):
                at = j * step
                good &= b[at] == 91
                good &= b[at + 2] == 58
                good &= b[at + 4] == 93
                if gap and j < k - 1:
                    good &= b[at + 5] == 32
                hi = b[at + 1] - np.uint8(49)  # pips 1..6 as 0..5 (a byte below "1" wraps)
                lo = b[at + 3] - np.uint8(49)
                good &= hi < 6
                good &= lo < 6
                got[j] = _tile_type(hi, lo).view(np.int8)
            got = got.T
            if len(rows) == n and good.all():  # every row, all read
                types[:, :k] = got
                size[:] = k
                ok[:] = True
                continue
            read = rows[good]
            types[read, :k] = got[good]
            size[read] = k
            ok[read] = True


def text_bytes(text: pa.Array) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.uint8]] | None:
    """A string column's offsets (its rows') and data bytes; ``None`` when it has none
    (no rows, no bytes, or not a string column)."""
    if not len(text) or not pa.types.is_string(text.type) or text.buffers()[2] is None:
        return None
    return string_offsets(text), np.frombuffer(text.buffers()[2], dtype=np.uint8)


def string_offsets(arr: pa.Array) -> npt.NDArray[np.int32]:
    """The int32 offsets of a ``string`` or ``binary`` array's rows (one more than its
    rows; row i's bytes are ``off[i]:off[i + 1]`` of its data): a view of its buffer.

    >>> string_offsets(pa.array(["ab", None, "xyz"]).slice(1)).tolist()
    [2, 2, 5]
    """
    return np.frombuffer(arr.buffers()[1], dtype=np.int32)[arr.offset : arr.offset + len(arr) + 1]


def plain_bools(text: pa.Array) -> npt.NDArray[np.bool_] | None:
    """The values of a text column whose every row is ``true`` or ``false`` (as Arrow's
    CSV writer spells them), read from the bytes; ``None`` when some row is anything
    else (a null, another word, another case: every row is then read by the rules).

    >>> plain_bools(pa.array(["true", "false", "true"])).tolist()
    [True, False, True]
    >>> plain_bools(pa.array(["true", "True"])) is None, plain_bools(pa.array(["falsy"])) is None
    (True, True)
    """
    got = text_bytes(text)
    if got is None or text.null_count:
        return None
    off, data = got
    start, size = off[:-1], np.diff(off)
    true, false = size == 4, size == 5
    if not (true | false).all():
        return None
    last = len(data) - 1
    for i, (t, f) in enumerate(zip(b"true", b"false", strict=False)):
        byte = np.take(data, np.minimum(start + i, last))  # the rows' i-th bytes
        true &= byte == t
        false &= byte == f
    false &= np.take(data, np.minimum(start + 4, last)) == ord("e")
    if not (true | false).all():
        return None
    return np.asarray(true, dtype=bool)


def plain_digits(text: pa.Array) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]] | None:
    """``(value, stated)`` of a text column whose every row is one or two digits or
    empty (not stated), read from the bytes; ``None`` when some row is anything else
    (a null, a sign, a longer number, a space: every row is then read otherwise).

    >>> v, stated = plain_digits(pa.array(["7", "", "10", "03"]))
    >>> v.tolist(), stated.tolist()
    ([7, 0, 10, 3], [True, False, True, True])
    >>> plain_digits(pa.array(["7", "-1"])) is None, plain_digits(pa.array(["100"])) is None
    (True, True)
    >>> [a.tolist() for a in plain_digits(pa.array(["", ""]))]  # no bytes at all
    [[0, 0], [False, False]]
    """
    got = text_bytes(text)
    if got is None or text.null_count:
        return None
    off, data = got
    start, size = off[:-1], np.diff(off)
    if size.max() > 2:
        return None
    if not len(data):  # every row empty: none stated
        return np.zeros(len(size), dtype=np.int64), np.zeros(len(size), dtype=bool)
    # bytes less "0", as bytes: a byte below "0" wraps past 9 (no wider copies)
    d0 = np.take(data, start, mode="clip") - np.uint8(48)
    d1 = np.take(data, start + 1, mode="clip") - np.uint8(48)
    some, two = size > 0, size == 2
    if ((d0 > 9) & some).any() or ((d1 > 9) & two).any():
        return None
    d0[~some] = 0
    np.copyto(d0, d0 * np.uint8(10) + d1, where=two)  # at most 99
    return d0.astype(np.int64), some
