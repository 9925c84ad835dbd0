"""Parsing claim values and hands for ``bull verify``, a whole column at a time.

Every parser takes an Arrow column and returns, per row, the value, whether the row
**states** anything (an empty field is not a claim) and whether it is **bad**
(malformed, with a message naming the value). The common spellings are read with Arrow
compute and numpy, without a Python loop; only the other rows go one at a time to the
game's own parser (:mod:`solver.core.cards`, :mod:`solver.core.tiles`), whose error message names
the bad item.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from solver.core.errors import BullError
from solver.core.indexing import sort_columns
from solver.kit.columns import arrow_ints, arrow_mask
from solver.kit.plain import plain_bools, plain_cards, plain_digits, plain_tiles, string_offsets
from solver.kit.read import MAX_LISTED

__all__ = [
    "NONE_WORDS",
    "PAD",
    "Hands",
    "Parsed",
    "parse_bool",
    "parse_card_hands",
    "parse_float",
    "parse_int",
    "parse_label",
    "parse_tile_hands",
    "show",
]

_BOOL_WORDS = {
    "true": True,
    "false": False,
    "1": True,
    "0": False,
    "yes": True,
    "no": False,
    "t": True,
    "f": False,
    "y": True,
    "n": False,
}
NONE_WORDS = ("none", "null", "no_bull", "-", "[]", "n/a", "na")
"""Spellings of an explicit "nothing" (no bull, no score); an empty field is not a claim."""


# ---------------------------------------------------------------- value parsing


@dataclass
class Parsed:
    """A claim column parsed: ``value`` where ``stated``; ``bad`` rows are malformed."""

    value: npt.NDArray[Any]
    stated: npt.NDArray[np.bool_]
    bad: npt.NDArray[np.bool_]
    messages: dict[int, str] = field(default_factory=dict)


def _filled(arr: pa.Array) -> npt.NDArray[Any]:
    """A numeric Arrow array as numpy, a null as 0 (without a scalar argument to Arrow,
    which imports pandas)."""
    if not arr.null_count:
        return to_np(arr)
    valid = to_np(arr.is_valid(), bool)
    out = to_np(pc.drop_null(arr))
    full = np.zeros(len(arr), dtype=out.dtype)
    full[valid] = out
    return full


@functools.cache
def _strings(values: tuple[str, ...]) -> pa.Array:
    """A string Arrow array of ``values`` (made from buffers, see :func:`arrow_ints`)."""
    data = [v.encode() for v in values]
    off = np.zeros(len(data) + 1, dtype=np.int32)
    np.cumsum([len(d) for d in data], out=off[1:])
    return pa.Array.from_buffers(
        pa.string(), len(data), [None, pa.py_buffer(off), pa.py_buffer(b"".join(data))]
    )


def to_np(arr: pa.Array, dtype: Any = None) -> npt.NDArray[Any]:
    """An Arrow array as numpy (copied where it must be: nulls, booleans, text; booleans
    without nulls from their bits: Arrow's conversion imports pandas).

    >>> to_np(pa.array([True, False, True]).slice(1)).tolist()
    [False, True]
    """
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    t = arr.type
    if pa.types.is_boolean(t) and not arr.null_count:
        bits = np.frombuffer(arr.buffers()[1], dtype=np.uint8)
        out = np.unpackbits(bits, bitorder="little")[arr.offset : arr.offset + len(arr)]
        return out.astype(bool if dtype is None else dtype)
    if (pa.types.is_integer(t) or pa.types.is_floating(t)) and not arr.null_count:
        kind = "f" if pa.types.is_floating(t) else "i" if pa.types.is_signed_integer(t) else "u"
        raw = np.frombuffer(arr.buffers()[1], dtype=f"{kind}{t.bit_width // 8}")
        return np.asarray(raw[arr.offset : arr.offset + len(arr)], dtype=dtype)
    return np.asarray(arr.to_numpy(zero_copy_only=False), dtype=dtype)


def nonempty(text: pa.Array) -> npt.NDArray[np.bool_]:
    """Rows of a text column holding at least one character (a null row: false)."""
    if pa.types.is_string(text.type) or pa.types.is_large_string(text.type):
        wide = np.int64 if pa.types.is_large_string(text.type) else np.int32
        at = slice(text.offset, text.offset + len(text) + 1)
        off = np.frombuffer(text.buffers()[1], dtype=wide)[at]
        return (np.diff(off) > 0) & ~nulls(text)  # some byte: some character
    return to_np(pc.fill_null(pc.greater(pc.utf8_length(text), 0), False), bool)


def is_text(t: pa.DataType) -> bool:
    return bool(pa.types.is_string(t) or pa.types.is_large_string(t))


def as_text(arr: pa.Array) -> pa.Array:
    """A claim column as text. Scalars are cast; a nested value (a list, an object) is
    spelled as JSON, so that it fails to parse as a value and its row is malformed —
    a list of points is not a point.

    >>> as_text(pa.array([[7], None])).to_pylist()
    ['[7]', None]
    """
    if is_text(arr.type):
        return arr
    if pa.types.is_nested(arr.type):
        return pa.array(
            [None if v is None else json.dumps(v, default=str) for v in arr.to_pylist()],
            pa.string(),
        )
    return pc.cast(arr, pa.string())


def _clean_text(arr: pa.Array) -> tuple[pa.Array, npt.NDArray[np.bool_]]:
    """Trimmed, lower-cased text and the rows that state something (non-empty)."""
    arr = as_text(arr)
    t = pc.utf8_lower(pc.utf8_trim_whitespace(arr))
    return t, nonempty(t)


def _lookup(
    text: pa.Array, table: Mapping[str, Any], dtype: Any, fill: Any
) -> tuple[npt.NDArray[Any], npt.NDArray[np.bool_]]:
    keys = list(table)
    idx = pc.index_in(text, value_set=_strings(tuple(keys)))
    found = to_np(pc.is_valid(idx), bool)
    vals = np.array([table[k] for k in keys] + [fill], dtype=dtype)
    pos = np.where(found, _filled(idx), len(keys)).astype(np.int64)
    return vals[pos], found


def _text_lookup(
    arr: pa.Array, table: Mapping[str, Any], dtype: Any, fill: Any, label: bool = False
) -> tuple[npt.NDArray[Any], npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """``(value, found, stated)``: exact matches first; only the other rows are trimmed,
    lower-cased (and, for labels, spaces and dashes turned into ``_``)."""
    arr = as_text(arr)
    vals, found = _lookup(arr, table, dtype, fill)
    stated = found.copy()
    rest = np.flatnonzero(~found & ~nulls(arr))
    if len(rest):
        sub = pc.utf8_lower(pc.utf8_trim_whitespace(pc.take(arr, arrow_ints(rest))))
        if label:
            sub = pc.replace_substring_regex(sub, r"[\s\-]+", "_")
        st = nonempty(sub)
        v2, f2 = _lookup(sub, table, dtype, fill)
        vals[rest], found[rest], stated[rest] = v2, f2, st
    return vals, found, stated


def nulls(arr: pa.Array) -> npt.NDArray[np.bool_]:
    if arr.null_count == 0:
        return np.zeros(len(arr), dtype=bool)
    return to_np(arr.is_null(), bool)


def parse_bool(arr: pa.Array, name: str) -> Parsed:
    """``true/false/yes/no/1/0`` (any case), or a boolean column."""
    n = len(arr)
    if pa.types.is_boolean(arr.type):
        stated = ~nulls(arr)
        val = to_np(pc.and_kleene(arr, arr.is_valid()), bool)
        return Parsed(val, stated, np.zeros(n, dtype=bool))
    if pa.types.is_integer(arr.type):
        stated = ~nulls(arr)
        v = _filled(arr)
        bad = stated & (v != 0) & (v != 1)
        return Parsed(v == 1, stated & ~bad, bad, _messages(arr, bad, name, "true or false"))
    if (plain := plain_bools(arr)) is not None:  # every row "true" or "false"
        return Parsed(plain, np.ones(n, dtype=bool), np.zeros(n, dtype=bool))
    val, found, stated = _text_lookup(arr, _BOOL_WORDS, bool, False)
    bad = stated & ~found
    return Parsed(val, stated & found, bad, _messages(arr, bad, name, "true or false"))


def parse_int(arr: pa.Array, name: str, none_value: int | None = None) -> Parsed:
    """Integers (``none_value`` stands for the words of :data:`NONE_WORDS`, if given)."""
    n = len(arr)
    if pa.types.is_integer(arr.type):
        stated = ~nulls(arr)
        v = _filled(arr).astype(np.int64)
        return Parsed(v, stated, np.zeros(n, dtype=bool))
    if pa.types.is_floating(arr.type):
        stated = ~nulls(arr)
        f = to_np(pc.fill_null(arr, 0), np.float64)
        bad = stated & ((f != np.round(f)) | ~np.isfinite(f))
        v = np.where(bad, 0, f).astype(np.int64)
        return Parsed(v, stated & ~bad, bad, _messages(arr, bad, name, "an integer"))
    if pa.types.is_boolean(arr.type):
        stated = ~nulls(arr)
        return Parsed(
            np.zeros(n, np.int64),
            np.zeros(n, bool),
            stated,
            _messages(arr, stated, name, "an integer"),
        )
    plain = _plain_ints(arr)
    if plain is not None:
        return plain
    text, stated = _clean_text(arr)
    digits = pc.match_substring_regex(text, r"^[+-]?\d{1,9}(\.0*)?$")
    ok = to_np(pc.fill_null(digits, False), bool)
    v = np.zeros(n, dtype=np.int64)
    if ok.any():
        sel = arrow_ints(np.flatnonzero(ok))
        nums = pc.cast(pc.cast(pc.take(text, sel), pa.float64()), pa.int64())
        v[ok] = to_np(nums, np.int64)
    none = np.zeros(n, dtype=bool)
    if none_value is not None:
        _, none = _lookup(text, dict.fromkeys(NONE_WORDS, 0), np.int64, 0)
        v[none] = none_value
    bad = stated & ~ok & ~none
    return Parsed(v, stated & ~bad, bad, _messages(arr, bad, name, "an integer"))


_DIGIT_OR_MINUS = np.zeros(256, dtype=bool)
_DIGIT_OR_MINUS[[*b"0123456789-"]] = True


def _plain_ints(arr: pa.Array) -> Parsed | None:
    """A text column of plain integers (digits, a leading ``-``, at most nine bytes; or
    empty: not stated) read by a cast, as :func:`parse_int` reads them; ``None`` when
    some row holds anything else (each row is then read by the rules).

    >>> _plain_ints(pa.array(["7", "", "-12", None])).value.tolist()
    [7, 0, -12, 0]
    >>> _plain_ints(pa.array(["7", " 7"])) is None, _plain_ints(pa.array(["0x5"])) is None
    (True, True)
    """
    if (small := plain_digits(arr)) is not None:  # one or two digits a row (or empty)
        return Parsed(small[0], small[1], np.zeros(len(arr), dtype=bool))
    if not pa.types.is_string(arr.type) or not len(arr):
        return None
    data = arr.buffers()[2]
    off = string_offsets(arr)
    raw = np.zeros(0, np.uint8) if data is None else np.frombuffer(data, dtype=np.uint8)
    if not _DIGIT_OR_MINUS[raw[off[0] : off[-1]]].all():
        return None
    size = np.diff(off)
    if size.max() > 9:
        return None
    stated = (size > 0) & ~nulls(arr)
    value = np.zeros(len(arr), dtype=np.int64)
    try:
        got = pc.cast(pc.filter(arr, arrow_mask(stated)), pa.int64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None  # a misplaced "-"
    value[stated] = to_np(got, np.int64)
    return Parsed(value, stated, np.zeros(len(arr), dtype=bool))


def parse_float(arr: pa.Array, name: str) -> Parsed:
    """Numbers (net stakes, commissions)."""
    n = len(arr)
    if pa.types.is_integer(arr.type) or pa.types.is_floating(arr.type):
        stated = ~nulls(arr)
        v = to_np(pc.fill_null(pc.cast(arr, pa.float64()), 0.0), np.float64)
        bad = stated & ~np.isfinite(v)
        return Parsed(v, stated & ~bad, bad, _messages(arr, bad, name, "a number"))
    text, stated = _clean_text(arr)
    ok_arr = pc.match_substring_regex(text, r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
    ok = to_np(pc.fill_null(ok_arr, False), bool)
    v = np.zeros(n, dtype=np.float64)
    if ok.any():
        sel = arrow_ints(np.flatnonzero(ok))
        v[ok] = to_np(pc.cast(pc.take(text, sel), pa.float64()), np.float64)
    bad = stated & ~ok
    return Parsed(v, stated & ~bad, bad, _messages(arr, bad, name, "a number"))


def parse_label(arr: pa.Array, name: str, labels: Mapping[str, int]) -> Parsed:
    """A label from ``labels`` (normalised: lower case, spaces and dashes as ``_``)."""
    val, found, stated = _text_lookup(arr, labels, np.int64, -1, label=True)
    bad = stated & ~found
    want = "one of " + ", ".join(
        sorted({k for k, v in labels.items() if _canonical_label(labels, v) == k})
    )
    return Parsed(val, stated & found, bad, _messages(arr, bad, name, want))


def _canonical_label(labels: Mapping[str, int], value: int) -> str:
    return next(k for k, v in labels.items() if v == value)


def _messages(arr: pa.Array, bad: npt.NDArray[np.bool_], name: str, want: str) -> dict[int, str]:
    out: dict[int, str] = {}
    for i in np.flatnonzero(bad)[:MAX_LISTED].tolist():
        out[i] = f"{name} {show(arr[i].as_py())}: expected {want}"
    return out


def show(v: Any) -> str:
    s = json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else repr(v)
    return s if len(s) <= 60 else s[:57] + "..."


# ---------------------------------------------------------------- hands

PAD = 255
"""Filler after the last item of a short hand (Pok Deng two-card hands)."""


def _fast_cards(
    text: pa.Array, sizes: tuple[int, ...]
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
    """Vectorised read of hands in the card notation: the plainest spelling from the
    bytes (:func:`plain_cards`), the rest by the token table (:func:`solver.kit.notation.
    card_tokens`); rows neither reads (``ok`` false) go to the slow parser."""
    from solver.kit.notation import Spans, card_tokens

    ids, size, ok = plain_cards(text, sizes)
    rest = np.flatnonzero(~ok)
    if len(rest):
        some = Spans.of_arrow(text).take(rest)
        ids[rest], size[rest], ok[rest] = card_tokens(some, sizes)
    return ids, size, ok


def _slow_cards(value: Any, sizes: tuple[int, ...], copies: int = 1) -> list[int]:
    from solver.core.cards import parse_card, parse_cards, parse_hand

    if isinstance(value, str):
        parse_hand(value, size=sizes, copies=copies)  # names the bad card, repeat or count
        return parse_cards(value)
    if isinstance(value, list):
        parse_hand(value, size=sizes, copies=copies)
        return [v if isinstance(v, int) else parse_card(v) for v in value]
    raise BullError(f"not a hand: {show(value)}")


@dataclass
class Hands:
    """Parsed hands: ``ids`` in the order written (:data:`PAD` after a short hand),
    ``size`` per row; ``stated`` rows are non-empty, ``bad`` ones malformed (with a
    message), ``none`` ones an explicit "nothing" (e.g. no bull)."""

    ids: npt.NDArray[np.uint8]
    size: npt.NDArray[np.int8]
    stated: npt.NDArray[np.bool_]
    bad: npt.NDArray[np.bool_]
    none: npt.NDArray[np.bool_]
    messages: dict[int, str]
    sorted: npt.NDArray[np.uint8] | None = None
    written: npt.NDArray[np.int8] | None = None
    """Tiles: per row, where the ``j``-th tile written stands among the row's tiles
    sorted (ties in the order written; a row not read by the notation: sorted)."""


def parse_items(
    arr: pa.Array,
    sizes: tuple[int, ...],
    kind: str,
    fast: Callable[[pa.Array, tuple[int, ...]], tuple[Any, ...]],
    slow: Callable[..., list[int]],
    item: str = "card",
    allow_none: bool = False,
    copies: int = 1,
) -> Hands:
    """Parse a column of hands of ``sizes`` items (cards or tiles); a row may hold an
    item at most ``copies`` times (a card from a shoe of that many decks).

    ``fast`` reads the common spellings of a text column at once (its ``ok`` rows);
    the other rows go to ``slow``, one at a time, whose :class:`BullError` message makes
    the row malformed.
    """
    n = len(arr)
    width = max(sizes)
    text = joined_text(arr)
    trimmed = None
    if text is not None:
        got = fast(text, sizes)
        ids, size, done = got[0], got[1], got[2]
        written = got[3] if len(got) > 3 else None
        stated = done.copy()
        rest = np.flatnonzero(~done)
        if len(rest):
            trimmed = pc.utf8_trim_whitespace(pc.take(text, arrow_ints(rest)))
            stated[rest] = nonempty(trimmed)
    else:
        written = None
        ids = np.full((n, width), PAD, dtype=np.uint8)
        size = np.zeros(n, dtype=np.int8)
        done = np.zeros(n, dtype=bool)
        lens = to_np(pc.fill_null(pc.list_value_length(arr), 0), np.int64)
        stated = ~nulls(arr) & (lens > 0)
        if item == "card" and stated.any():  # ids in our encoding, read at once
            flat = arr.flatten()
            vals = to_np(pc.fill_null(flat, 255), np.int64)
            bad_val = (vals < 0) | (vals > 51)
            row_of = np.repeat(np.arange(n), np.where(nulls(arr), 0, lens))
            ok = stated & np.isin(lens, sizes) & (np.bincount(row_of[bad_val], minlength=n) == 0)
            starts = np.cumsum(np.where(nulls(arr), 0, lens)) - np.where(nulls(arr), 0, lens)
            for k in sizes:
                rows = np.flatnonzero(ok & (lens == k))
                if len(rows):
                    ids[rows, :k] = vals[starts[rows][:, None] + np.arange(k)].astype(np.uint8)
                    size[rows] = k
                    done[rows] = True
    slow_rows = stated & ~done
    none = np.zeros(n, dtype=bool)
    if allow_none and trimmed is not None and slow_rows.any():
        _, nw = _lookup(pc.utf8_lower(trimmed), dict.fromkeys(NONE_WORDS, 0), np.int64, 0)
        none[np.flatnonzero(~done)] = nw
        none &= slow_rows
        slow_rows &= ~none
    bad = np.zeros(n, dtype=bool)
    messages: dict[int, str] = {}
    for i in np.flatnonzero(slow_rows).tolist():
        try:
            items = (
                slow(arr[i].as_py(), sizes, copies) if copies > 1 else slow(arr[i].as_py(), sizes)
            )
        except BullError as exc:
            bad[i] = True
            if len(messages) < MAX_LISTED:
                messages[i] = f"{kind}: {exc}"
            continue
        ids[i, : len(items)] = items
        size[i] = len(items)
    srt = ids if item == "tile" else None  # tiles: read sorted, no id twice (copies)
    if done.any() and item != "tile":  # repeated items in a fast-read row (PAD last)
        cols = sort_columns([ids[:, j] for j in range(width)])
        dup = np.zeros(n, dtype=bool)
        for j in range(width - copies):  # copies + 1 equal sorted ids in a row
            dup |= (cols[j] == cols[j + copies]) & (cols[j] != PAD)
        dup &= done
        for i in np.flatnonzero(dup).tolist():
            bad[i] = True
            if len(messages) < MAX_LISTED:
                messages[i] = f"{kind}: {_dup_message(ids[i], item, copies)}"
        srt = np.stack(cols, axis=1)  # every row's final ids, sorted
    return Hands(ids, size, stated, bad, none, messages, srt, written)


def _dup_message(row: npt.NDArray[np.uint8], item: str, copies: int = 1) -> str:
    from solver.core.cards import CARD_NAMES

    vals = [c for c in row.tolist() if c != PAD]
    d = next(c for c in vals if vals.count(c) > copies)
    name = CARD_NAMES[d] if item == "card" else d
    if copies == 1:
        return f"duplicate {item} {name}"
    return f"{item} {name} appears {vals.count(d)} times; a {copies}-deck shoe holds {copies}"


def joined_text(arr: pa.Array) -> pa.Array | None:
    """A string column for text or list-of-text columns (``None`` for lists of ids)."""
    t = arr.type
    if is_text(t):
        return arr
    if pa.types.is_dictionary(t):
        return joined_text(pc.cast(arr, t.value_type))
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        if is_text(t.value_type):
            joined = pc.binary_join(arr, " ")
            return joined if is_text(joined.type) else pc.cast(joined, pa.string())
        if pa.types.is_integer(t.value_type) or pa.types.is_null(t.value_type):
            return None
    if pa.types.is_null(t):
        return pa.array([None] * len(arr), pa.string())
    # a number, an object ...: spelled as text, so each row is malformed (not the file)
    return as_text(arr)


def parse_card_hands(
    arr: pa.Array,
    sizes: tuple[int, ...],
    kind: str = "hand",
    allow_none: bool = False,
    copies: int = 1,
) -> Hands:
    """Card hands in any accepted spelling (RULES §2), as ids in the order written.

    >>> h = parse_card_hands(pa.array(["AS 10H 3C 7D KS", "AS AS 2C 3D 4H", None]), (5,))
    >>> h.ids[0].tolist(), h.bad.tolist(), h.stated.tolist()
    ([0, 37, 11, 26, 48], [False, True, False], [True, True, False])
    >>> h.messages[1]
    'hand: duplicate card AS'
    """
    return parse_items(arr, sizes, kind, _fast_cards, _slow_cards, "card", allow_none, copies)


# ---------------------------------------------------------------- tiles


def _tile_tables() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    from solver.core.tiles import TYPE_COPIES, TYPE_FIRST_ID

    return np.array(TYPE_FIRST_ID, dtype=np.int64), np.array(TYPE_COPIES, dtype=np.int64)


TILE_FIRST, TILE_COPIES = _tile_tables()
_FIRST_ID = TILE_FIRST.astype(np.uint8)
_ONE_COPY = TILE_COPIES == 1


def _fast_tiles(
    text: pa.Array, sizes: tuple[int, ...]
) -> tuple[
    npt.NDArray[np.uint8], npt.NDArray[np.int8], npt.NDArray[np.bool_], npt.NDArray[np.int8]
]:
    """Vectorised read of hands in the tile notation — the plainest spelling from the
    bytes (:func:`plain_tiles`), the rest by the grammar (:func:`solver.kit.notation.
    tile_tokens`): canonical sorted tile ids (copy 0 of a civil type before copy 1);
    a hand with more copies of a type than the set holds is left to the slow parser.
    Also the order written (:attr:`Hands.written`)."""
    from solver.kit.notation import Spans, tile_tokens

    types, size, ok = plain_tiles(text, sizes)
    rest = np.flatnonzero(~ok)
    if len(rest):
        some = Spans.of_arrow(text).take(rest)
        types[rest], size[rest], ok[rest] = tile_tokens(some, sizes)
    n, width = types.shape
    if ok.all() and (size == width).all():  # every row read, of the full size
        written = _places(types)
    else:
        written = np.tile(np.arange(width, dtype=np.int8), (n, 1))
        full = np.flatnonzero(ok & (size == width))
        written[full] = _places(types[full])
    ids = np.full((n, width), PAD, dtype=np.uint8)
    for k in sizes:
        hit = ok & (size == k)
        every = bool(hit.all())
        rows = np.arange(n) if every else np.flatnonzero(hit)
        if not len(rows):
            continue
        t = sort_columns([types[:, j] if every else types[rows, j] for j in range(k)])
        over = np.zeros(len(rows), dtype=bool)
        dup = [np.zeros(len(rows), dtype=bool)]  # a tile of the type before it: copy 1
        for j in range(1, k):
            dup.append(t[j] == t[j - 1])
            over |= dup[j] & _ONE_COPY[t[j]]
            if j > 1:
                over |= t[j] == t[j - 2]  # three of a type
        if every and not over.any():  # every row, none over the set's copies
            for j in range(k):
                ids[:, j] = _FIRST_ID[t[j]] + dup[j]
            continue
        good = ~over
        for j in range(k):
            ids[rows[good], j] = (_FIRST_ID[t[j]] + dup[j])[good]
        ok[rows[over]] = False
    return ids, np.where(ok, size, 0).astype(np.int8), ok, written


def _places(items: npt.NDArray[np.int8]) -> npt.NDArray[np.int8]:
    """Per row, where each item stands among the row's items sorted, equal items in
    their order (a stable sort's ranks).

    >>> _places(np.array([[5, 1, 5, 0]], dtype=np.int8)).tolist()
    [[2, 1, 3, 0]]
    """
    k = items.shape[1]
    col = [np.ascontiguousarray(items[:, j]) for j in range(k)]  # strided: 10x slower
    place = [np.zeros(len(items), dtype=np.int8) for _ in range(k)]
    for j in range(k):
        for i in range(j):  # item i before item j, or item j before item i
            before = col[i] <= col[j]
            place[j] += before
            place[i] += ~before
    out = np.empty(items.shape, dtype=np.int8)
    for j in range(k):
        out[:, j] = place[j]
    return out


def _slow_tiles(value: Any, sizes: tuple[int, ...]) -> list[int]:
    from solver.core.tiles import canonical_hand, parse_hand

    if isinstance(value, str | list):
        return list(canonical_hand(parse_hand(value, size=sizes)))
    raise BullError(f"not a hand of tiles: {show(value)}")


def parse_tile_hands(
    arr: pa.Array, sizes: tuple[int, ...], kind: str = "hand", allow_none: bool = False
) -> Hands:
    """Tile hands in any accepted spelling (RULES §2), as canonical sorted ids.

    >>> h = parse_tile_hands(pa.array(["[6:5][4:1][2:2][3:3][5:4]", "66 66 66 11 22"]), (5,))
    >>> h.ids[0].tolist(), h.bad.tolist()
    ([3, 8, 10, 19, 28], [False, True])
    """
    return parse_items(arr, sizes, kind, _fast_tiles, _slow_tiles, "tile", allow_none)
