"""Reading the hand notation (RULES.md §2) a whole batch at a time, from the bytes.

A batch of hands is a :class:`Spans`: one byte buffer and, per hand, where its text
starts and ends (an Arrow text column, or the lines of an input file, without a copy).
The tokenisers classify every byte with numpy, cut the tokens where separators
(space, tab, CR, LF, comma, semicolon) begin and end, and read each token through a
table over the notation — no Python call per card or tile:

* a card token is a rank (``A 2 … 9 10 T J Q K``, any case) and a suit (``S H D C``
  any case, or one of the eight suit symbols ``♠♥♦♣♤♡♢♧``);
* a tile token is ``[6:5]``, ``6:5`` or ``65`` (pips 1..6, either order), written with
  or without separators between tiles.

A hand is read here only when its text is plainly in the notation: ASCII separators,
tokens of the notation, and no other byte. Every other hand (``ok`` false) — a full-
width character, a bad token, a wrong count — is left to the per-hand parser of
:mod:`solver.core.cards` / :mod:`solver.core.tiles`, which accepts or names the error
exactly as it always has. A hand read here is read exactly as that parser reads it
(``tests/test_fast_notation.py`` compares the two on random and malformed text).

>>> s = Spans.of_strings(["KS 9H 8C 3D 7S", "10♠ td", "AS XS"])
>>> ids, size, ok = card_tokens(s, (2, 5))
>>> ids[0].tolist(), ids[1, :2].tolist(), size.tolist(), ok.tolist()
([48, 33, 31, 10, 24], [36, 38], [5, 2, 0], [True, True, False])
>>> types, size, ok = tile_tokens(Spans.of_strings(["[6:5]41 2:2,33 54", "[6:5"]), (5,))
>>> types[0].tolist(), ok.tolist()
([19, 6, 2, 5, 13], [True, False])
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from solver.core.indexing import sort_columns

__all__ = ["CHUNK", "PAD", "Spans", "card_tokens", "sort_rows", "tile_tokens"]

PAD = 255
"""Filler after the last item of a short hand."""

_SEP = np.zeros(256, dtype=bool)
_SEP[[ord(c) for c in " \t\r\n,;"]] = True
"""Bytes that separate tokens (a subset of what the per-hand parser splits on)."""

_RANK1 = np.full(256, -1, dtype=np.int16)
for _i, _r in enumerate("A23456789"):
    _RANK1[ord(_r)] = _i
    _RANK1[ord(_r.lower())] = _i
for _r, _v in (("T", 9), ("J", 10), ("Q", 11), ("K", 12)):
    _RANK1[ord(_r)] = _RANK1[ord(_r.lower())] = _v
_SUIT1 = np.full(256, -1, dtype=np.int16)
for _i, _s in enumerate("SHDC"):
    _SUIT1[ord(_s)] = _SUIT1[ord(_s.lower())] = _i
_SUIT3 = np.full(256, -1, dtype=np.int16)
for _ch, _v in zip("♠♥♦♣♤♡♢♧", (0, 1, 2, 3, 0, 1, 2, 3), strict=True):
    _b = _ch.encode()
    assert _b[:2] == b"\xe2\x99"
    _SUIT3[_b[2]] = _v

_CARD2 = np.full(1 << 16, -1, dtype=np.int16)
"""Two-byte card tokens (rank byte << 8 | suit byte) → card id, else -1."""
_both = (_RANK1[:, None] >= 0) & (_SUIT1[None, :] >= 0)
_CARD2[_both.ravel()] = (_RANK1[:, None] * 4 + _SUIT1[None, :])[_both]

_CARD_BYTE = np.zeros(256, dtype=bool)
"""Bytes a card hand may hold outright (printable ASCII and the separators); a byte of
0x80 or more is allowed only inside a suit symbol."""
_CARD_BYTE[0x21:0x7F] = True
_CARD_BYTE[_SEP] = True
_TILE_BYTE = np.zeros(256, dtype=bool)
_TILE_BYTE[[ord(c) for c in "123456[]:"]] = True
_TILE_BYTE[_SEP] = True
_TILE_INDEX = np.full((7, 7), -1, dtype=np.int64)
"""Pips (either order) → tile type, :data:`solver.core.tiles.TILE_TYPES` order."""
for _t, (_hi, _lo) in enumerate((h, lo) for h in range(1, 7) for lo in range(1, h + 1)):
    _TILE_INDEX[_hi, _lo] = _TILE_INDEX[_lo, _hi] = _t
_DIGIT = np.zeros(256, dtype=bool)
_DIGIT[[ord(c) for c in "123456"]] = True


@dataclass(frozen=True)
class Spans:
    """Hands as byte ranges of one buffer: hand ``i`` is ``data[starts[i]:ends[i]]``
    (``valid[i]`` false: no text at all, an Arrow null)."""

    data: npt.NDArray[np.uint8]
    starts: npt.NDArray[np.int64]
    ends: npt.NDArray[np.int64]
    valid: npt.NDArray[np.bool_]

    def __len__(self) -> int:
        return len(self.starts)

    @classmethod
    def of_arrow(cls, arr: pa.Array) -> Spans:
        """The values of an Arrow text column, without copying them."""
        if isinstance(arr, pa.ChunkedArray):
            arr = arr.combine_chunks()
        n = len(arr)
        large = pa.types.is_large_string(arr.type) or pa.types.is_large_binary(arr.type)
        bufs = arr.buffers()
        raw = np.frombuffer(bufs[1], dtype=np.int64 if large else np.int32) if n else None
        off: npt.NDArray[np.int64] = (
            raw[arr.offset : arr.offset + n + 1].astype(np.int64)
            if raw is not None
            else np.zeros(1, dtype=np.int64)
        )
        data = (
            np.frombuffer(bufs[2], dtype=np.uint8)
            if len(bufs) > 2 and bufs[2] is not None
            else np.zeros(0, dtype=np.uint8)
        )
        valid = (
            np.ones(n, dtype=bool)
            if arr.null_count == 0
            else np.asarray(arr.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
        )
        return cls(data, off[:-1], off[1:], valid)

    @classmethod
    def of_strings(cls, texts: Sequence[str | None]) -> Spans:
        """Spans over Python strings (tests, small batches)."""
        return cls.of_arrow(pa.array(list(texts), pa.string()))

    def slice(self, start: int, stop: int) -> Spans:
        """Hands ``start`` to ``stop`` (views, no copy)."""
        return Spans(
            self.data, self.starts[start:stop], self.ends[start:stop], self.valid[start:stop]
        )

    def take(self, rows: npt.NDArray[np.int64]) -> Spans:
        """The hands at ``rows``, in that order."""
        return Spans(self.data, self.starts[rows], self.ends[rows], self.valid[rows])

    def tokens(
        self, eligible: npt.NDArray[np.bool_]
    ) -> tuple[
        npt.NDArray[np.uint8],
        npt.NDArray[np.int64],
        npt.NDArray[np.int64],
        npt.NDArray[np.int64],
        npt.NDArray[np.int64],
    ]:
        """The tokens of the ``eligible`` hands: ``(bytes, start, end, first, count)``
        — token positions into ``bytes`` (a zero-padded copy of the buffer from the
        first such hand on), and per hand its first token and how many it has (0 for
        a hand not eligible). A token never runs over the end of its hand."""
        n = len(self)
        rows = np.flatnonzero(eligible & (self.ends > self.starts))
        if not len(rows):
            z = np.zeros(0, dtype=np.int64)
            return np.zeros(8, np.uint8), z, z, np.zeros(n, np.int64), np.zeros(n, np.int64)
        lo = int(self.starts[rows[0]])
        hi = int(self.ends[rows].max())
        buf = np.zeros(hi - lo + 8, dtype=np.uint8)
        buf[: hi - lo] = self.data[lo:hi]
        s, e = self.starts[rows] - lo, self.ends[rows] - lo
        word = ~_SEP[buf]
        word[hi - lo :] = False
        gap_s, gap_e = e[:-1], s[1:]
        if (
            len(rows) < n
            or not (gap_e >= gap_s).all()
            or not _SEP[buf[_ranges(gap_s, gap_e)]].all()
        ):
            inside = np.zeros(len(buf) + 1, dtype=np.int8)  # bytes of no eligible hand
            _bump(inside, s, 1)
            _bump(inside, e, -1)
            word &= np.cumsum(inside[:-1], dtype=np.int8) > 0
        prev = np.empty(len(buf), dtype=bool)
        prev[0] = False
        prev[1:] = word[:-1]
        prev[s] = False  # a hand's first byte starts a token even right after another
        nxt = np.empty(len(buf), dtype=bool)
        nxt[-1] = False
        nxt[:-1] = word[1:]
        nxt[e - 1] = False
        t0 = np.flatnonzero(word & ~prev)
        t1 = np.flatnonzero(word & ~nxt) + 1
        first = np.zeros(n, dtype=np.int64)
        count = np.zeros(n, dtype=np.int64)
        first[rows] = np.searchsorted(t0, s)
        count[rows] = np.searchsorted(t0, e) - first[rows]
        return buf, t0, t1, first, count

    def eligible(self, allowed: npt.NDArray[np.bool_], suits: bool) -> npt.NDArray[np.bool_]:
        """Hands made only of ``allowed`` bytes (and, when ``suits``, of the UTF-8
        suit symbols), i.e. those the tokenisers may read."""
        n = len(self)
        ok = self.valid & (self.ends >= self.starts)
        if n == 0 or not len(self.data):
            return ok
        lo, hi = int(self.starts.min()), int(self.ends.max())
        seg = self.data[lo:hi]
        bad = ~allowed[seg]
        if not bad.any():
            return ok
        if suits:
            high = seg >= 0x80
            sym = np.zeros(len(seg), dtype=bool)
            at = np.flatnonzero(seg[:-2] == 0xE2) if len(seg) > 2 else np.zeros(0, np.int64)
            at = at[(seg[at + 1] == 0x99) & (_SUIT3[seg[at + 2]] >= 0)]
            sym[at] = sym[at + 1] = sym[at + 2] = True
            bad &= ~(high & sym)
        where = np.flatnonzero(bad) + lo
        if len(where):  # a bad byte spoils the hand whose range holds it
            order = np.argsort(self.starts, kind="stable")
            k = np.searchsorted(self.starts[order], where, side="right") - 1
            keep = k >= 0
            hit = order[k[keep]]
            inside = where[keep] < self.ends[hit]
            ok[np.unique(hit[inside])] = False
        return ok


def _ranges(a: npt.NDArray[np.int64], b: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Every position of the ranges ``[a[i], b[i])``, concatenated."""
    lens = b - a
    total = int(lens.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    out = np.ones(total, dtype=np.int64)
    at = np.cumsum(lens) - lens
    keep = lens > 0
    out[0] = a[keep][0]
    out[at[keep][1:]] = a[keep][1:] - (b[keep][:-1] - 1)
    return np.cumsum(out)


def _bump(counts: npt.NDArray[np.int8], at: npt.NDArray[np.int64], by: int) -> None:
    """``counts[at] += by`` for positions ``at`` that are distinct."""
    counts[at] += by


def _group(
    value: npt.NDArray[Any],
    good: npt.NDArray[np.bool_],
    first: npt.NDArray[np.int64],
    count: npt.NDArray[np.int64],
    sizes: tuple[int, ...],
) -> tuple[npt.NDArray[Any], npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
    """Per hand: its items in order (``-1`` after the last), count, and whether every
    item read and the count is one of ``sizes``."""
    n, width = len(first), max(sizes)
    all_good = bool(good.all())
    if all_good and len(sizes) == 1 and len(value) == n * width and (count == width).all():
        return value.reshape(n, width), np.full(n, width, np.int8), np.ones(n, dtype=bool)
    ok = np.isin(count, sizes)
    if not all_good:
        bad = np.zeros(len(good) + 1, dtype=np.int64)
        np.cumsum(~good, out=bad[1:])
        ok &= bad[first + count] == bad[first]
    out = np.full((n, width), -1, dtype=value.dtype)
    for k in sizes:
        rows = np.flatnonzero(ok & (count == k))
        if len(rows):
            out[rows, :k] = value[first[rows][:, None] + np.arange(k)]
    size = np.where(ok, count, 0).astype(np.int8)
    return out, size, ok


def _block_tokens(
    spans: Spans, ascii_only: bool, width: int = 0
) -> (
    tuple[
        npt.NDArray[np.uint8], npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]
    ]
    | None
):
    """The tokens of a whole batch in a few passes — ``(bytes, start, end, count)``,
    positions into ``bytes`` (the batch's text with a separator before and after),
    tokens outside every hand dropped, and how many each hand has (``width`` each, when
    the batch is that regular, found without placing the tokens one by one) — when the hands come in
    order, no token can run from one hand into another and (``ascii_only``) no byte is
    above 0x7f; else ``None`` (the general path, :meth:`Spans.tokens`, reads it). Bytes
    that are neither separators nor of the notation need no check here: they make a
    token that no table reads, so its hand goes to the per-hand parser."""
    n = len(spans)
    s_abs, e_abs = spans.starts, spans.ends
    if n == 0:
        return None
    if not spans.valid.all() and (s_abs != e_abs)[~spans.valid].any():
        return None  # a null with text behind it
    lo, hi = int(s_abs[0]), int(e_abs[-1])
    if hi < lo or (n > 1 and not (s_abs[1:] >= e_abs[:-1]).all()):
        return None
    buf = np.empty(hi - lo + 2, dtype=np.uint8)
    buf[0] = buf[-1] = 32
    buf[1:-1] = spans.data[lo:hi]
    if ascii_only and buf.max() >= 0x80:
        return None
    s, e = s_abs - lo + 1, e_abs - lo + 1
    sep = _SEP[buf]
    if n == 1 or ((sep[e[:-1]] | sep[e[:-1] - 1]).all() and (sep[s[1:] - 1] | sep[s[1:]]).all()):
        edge = np.flatnonzero(sep[1:] != sep[:-1]) + 1  # token starts and ends, alternately
        t0, t1 = edge[0::2], edge[1::2]
    else:  # hands back to back (an Arrow column): a token also starts and ends with its hand
        word = ~sep
        begin = word.copy()
        begin[1:] &= sep[:-1]
        end = word.copy()
        end[:-1] &= sep[1:]
        full = e > s
        begin[s[full]] = word[s[full]]
        end[e[full] - 1] = word[e[full] - 1]
        t0 = np.flatnonzero(begin)
        t1 = np.flatnonzero(end) + 1
        if len(t0) != len(t1) or not (t0 < t1).all() or not (t1[:-1] <= t0[1:]).all():
            return None
    if (
        width
        and len(t0) == width * n
        and (t0[::width] >= s).all()
        and (t1[width - 1 :: width] <= e).all()
    ):  # each hand holds its tokens width * i ... width * i + width - 1, and no more
        return buf, t0, t1, np.full(n, width, dtype=np.int64)
    mark = np.bincount(s, minlength=len(buf)).astype(np.int32)  # empty hands share starts
    np.cumsum(mark, out=mark)
    hand = mark[t0].astype(np.int64) - 1
    inside = (hand >= 0) & (t1 <= e[np.maximum(hand, 0)])
    if not inside.all():
        t0, t1, hand = t0[inside], t1[inside], hand[inside]
    return buf, t0, t1, np.bincount(hand, minlength=n)


def sort_rows(ids: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """Each row sorted (``np.sort(ids, axis=1)``) by a sorting network over the
    columns (:func:`solver.core.indexing.sort_columns`): a few whole-column
    minimum/maximum passes instead of a sort per row.

    >>> sort_rows(np.array([[5, 1, 4, 2, 3], [9, 8, 7, 6, 5]])).tolist()
    [[1, 2, 3, 4, 5], [5, 6, 7, 8, 9]]
    """
    k = ids.shape[1] if ids.ndim == 2 else 0
    if not 1 <= k <= 5:
        return np.sort(ids, axis=1)
    return np.stack(sort_columns([ids[:, i] for i in range(k)]), axis=1)


def _fast_cards(
    spans: Spans, sizes: tuple[int, ...]
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int8], npt.NDArray[np.bool_]] | None:
    """:func:`card_tokens` of an ASCII batch in a few whole-batch passes, or ``None``."""
    got = _block_tokens(spans, ascii_only=True, width=sizes[0] if len(sizes) == 1 else 0)
    if got is None:
        return None
    buf, t0, t1, count = got
    length = t1 - t0
    b0, b1 = buf[t0], buf[t0 + 1]
    value = _CARD2[b0.astype(np.uint16) << 8 | b1]  # two-byte tokens: rank and suit letter
    ten = np.flatnonzero(length == 3)
    if len(ten):  # "10S": a 1, a 0 and a suit letter
        suit = _SUIT1[buf[t0[ten] + 2]]
        is_ten = (b0[ten] == ord("1")) & (b1[ten] == ord("0")) & (suit >= 0)
        value[ten] = np.where(is_ten, 36 + suit, -1)
    value[(length != 2) & (length != 3)] = -1
    first = np.cumsum(count) - count
    out, size, ok = _group(value, value >= 0, first, count, sizes)
    out[out < 0] = PAD
    return out.astype(np.uint8), size, ok & spans.valid


def _fast_tiles(
    spans: Spans, sizes: tuple[int, ...]
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8], npt.NDArray[np.bool_]] | None:
    """:func:`tile_tokens` of a batch whose tiles are all written ``[a:b]``, or ``None``."""
    got = _block_tokens(spans, ascii_only=False)
    if got is None:
        return None
    buf, t0, t1, chunks = got
    length = t1 - t0
    if (length % 5).any():
        return None
    per = length // 5  # each token must be a run of "[a:b]" tiles and nothing else
    start = np.cumsum(per) - per
    at = np.repeat(t0 - 5 * start, per) + 5 * np.arange(int(per.sum()))
    c0, c1, c2, c3, c4 = (buf[at + k] for k in range(5))
    if not ((c0 == ord("[")) & _DIGIT[c1] & (c2 == ord(":")) & _DIGIT[c3] & (c4 == ord("]"))).all():
        return None
    typ = _TILE_INDEX[c1.astype(np.int64) - 48, c3.astype(np.int64) - 48]
    upto = np.zeros(len(per) + 1, dtype=np.int64)  # each hand's tiles: over its chunks
    np.cumsum(per, out=upto[1:])
    chunk_end = np.cumsum(chunks)
    count = upto[chunk_end] - upto[chunk_end - chunks]
    first = np.cumsum(count) - count
    out, size, ok = _group(typ, typ >= 0, first, count, sizes)
    ok &= spans.valid
    size = np.where(ok, size, 0).astype(np.int8)
    return out.astype(np.int8), size, ok


FAST_CHUNK = 1 << 16
"""Hands read by the whole-batch tokeniser at a time (about a megabyte of text): its
working arrays take several bytes per byte of text, so a column of ten million hands
is read a piece at a time."""


def _in_pieces(
    spans: Spans, sizes: tuple[int, ...], fast: Callable[..., Any], general: Callable[..., Any]
) -> Any:
    """``fast(piece, sizes)`` (else ``general``) over pieces of :data:`FAST_CHUNK` hands,
    joined."""
    n = len(spans)
    parts = []
    for i in range(0, max(n, 1), FAST_CHUNK):
        piece = spans if n <= FAST_CHUNK else spans.slice(i, i + FAST_CHUNK)
        got = fast(piece, sizes)
        parts.append(got if got is not None else general(piece, sizes))
    if len(parts) == 1:
        return parts[0]
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(3))


CHUNK = 8192
"""Hands tokenised at a time: the working arrays stay in the processor's cache (a
batch of 80,000 hands at once reads 2.4 times slower)."""


_Read = TypeVar("_Read", bound=Callable[..., Any])


def _chunked(read: _Read) -> _Read:
    """``read(spans, sizes)`` over pieces of :data:`CHUNK` hands, joined."""

    @functools.wraps(read)
    def run(spans: Spans, sizes: tuple[int, ...]) -> Any:
        n = len(spans)
        if n <= CHUNK:
            return read(spans, sizes)
        parts = [read(spans.slice(i, i + CHUNK), sizes) for i in range(0, n, CHUNK)]
        return tuple(np.concatenate([p[k] for p in parts]) for k in range(3))

    return cast("_Read", run)


def card_tokens(
    spans: Spans, sizes: tuple[int, ...]
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
    """Card ids in the order written (:data:`PAD` after a short hand), the count, and
    ``ok``: the hand is in the plain notation with a count in ``sizes``. Repeated
    cards are not checked here."""
    out: tuple[npt.NDArray[np.uint8], npt.NDArray[np.int8], npt.NDArray[np.bool_]]
    out = _in_pieces(spans, sizes, _fast_cards, _card_tokens)
    return out


@_chunked
def _card_tokens(
    spans: Spans, sizes: tuple[int, ...]
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
    """Card ids in the order written (:data:`PAD` after a short hand), the count, and
    ``ok``: the hand is in the plain notation with a count in ``sizes``. Repeated
    cards are not checked here."""
    n = len(spans)
    width = max(sizes)
    eligible = spans.eligible(_CARD_BYTE, suits=True)
    buf, t0, t1, first, count = spans.tokens(eligible)
    if not len(t0):
        return np.full((n, width), PAD, np.uint8), np.zeros(n, np.int8), np.zeros(n, bool)
    length = t1 - t0
    code = buf[t0].astype(np.uint16) << 8 | buf[t0 + 1]
    value = _CARD2[code]  # two-byte tokens: rank and suit letter
    other = np.flatnonzero(length != 2)
    if len(other):
        value[other] = _card_long(buf, t0[other], t1[other])
    good = value >= 0
    out, size, ok = _group(value, good, first, count, sizes)
    ok &= eligible
    ids = out.astype(np.uint8)  # -1 → PAD
    return ids, size, ok


def _card_long(
    buf: npt.NDArray[np.uint8], t0: npt.NDArray[np.int64], t1: npt.NDArray[np.int64]
) -> npt.NDArray[np.int16]:
    """Card ids of the tokens that are not two bytes long (``10H``, ``K♠``, ``10♠``, or
    no card: -1)."""
    length = t1 - t0
    last = buf[t1 - 1]
    sym = (length >= 4) & (buf[t1 - 3] == 0xE2) & (buf[t1 - 2] == 0x99)
    suit = np.where(sym, _SUIT3[last], _SUIT1[last])
    rlen = length - np.where(sym, 3, 1)
    b0, b1 = buf[t0], buf[t0 + 1]
    rank = np.where(
        rlen == 1,
        _RANK1[b0],
        np.where((rlen == 2) & (b0 == ord("1")) & (b1 == ord("0")), 9, -1),
    )
    out: npt.NDArray[np.int16] = np.where((rank >= 0) & (suit >= 0), rank * 4 + suit, -1).astype(
        np.int16
    )
    return out


def tile_tokens(
    spans: Spans, sizes: tuple[int, ...]
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
    """Tile types (0..20, :data:`solver.core.tiles.TILE_TYPES` order) in the order
    written (``-1`` after the last), the count, and ``ok``: every chunk between
    separators is a run of ``[a:b]``, ``a:b`` or ``ab`` tiles (pips 1..6) and the count
    is one of ``sizes``. Copies are not checked here."""
    out: tuple[npt.NDArray[np.int8], npt.NDArray[np.int8], npt.NDArray[np.bool_]]
    out = _in_pieces(spans, sizes, _fast_tiles, _tile_tokens)
    return out


@_chunked
def _tile_tokens(
    spans: Spans, sizes: tuple[int, ...]
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
    """Tile types (0..20, :data:`solver.core.tiles.TILE_TYPES` order) in the order
    written (``-1`` after the last), the count, and ``ok``: every chunk between
    separators is a run of ``[a:b]``, ``a:b`` or ``ab`` tiles (pips 1..6) and the count
    is one of ``sizes``. Copies are not checked here."""
    n = len(spans)
    width = max(sizes)
    eligible = spans.eligible(_TILE_BYTE, suits=False)
    buf, t0, t1, _first, count = spans.tokens(eligible)
    if not len(t0):
        return np.full((n, width), -1, np.int8), np.zeros(n, np.int8), np.zeros(n, bool)
    # chunks are tokens here; a chunk holds one or more tiles: read it by the grammar
    # ``\[D:D\] | D:D | DD`` left to right (at each byte at most one form can start)
    at, tiles_per_chunk, bad_chunk = _tile_starts(buf, t0, t1)
    hand_of = np.repeat(np.arange(n), count)  # the hand of each chunk
    bracket = buf[at] == ord("[")
    a = np.where(bracket, buf[at + 1], buf[at]).astype(np.int64) - 48
    b = np.where(bracket, buf[at + 3], np.where(buf[at + 1] == ord(":"), buf[at + 2], buf[at + 1]))
    typ = _TILE_INDEX[a, b.astype(np.int64) - 48]
    tiles = np.bincount(hand_of, weights=tiles_per_chunk, minlength=n).astype(np.int64)
    out, size, ok = _group(typ, typ >= 0, np.cumsum(tiles) - tiles, tiles, sizes)
    ok[hand_of[bad_chunk]] = False
    ok &= eligible
    size = np.where(ok, size, 0).astype(np.int8)
    return out.astype(np.int8), size, ok


def _tile_starts(
    buf: npt.NDArray[np.uint8], t0: npt.NDArray[np.int64], t1: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """Where the tiles of the chunks start (chunk ``j`` is ``buf[t0[j]:t1[j]]``), in
    the order written; how many tiles each chunk holds; and which chunks do not parse.
    The chunks are walked by the grammar one step for all of them at once."""
    n = len(t0)
    pos = t0.copy()
    alive = np.arange(n)
    steps: list[tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]] = []
    bad = np.zeros(n, dtype=bool)
    while len(alive):
        p = pos[alive]
        end = t1[alive]
        c0, c1, c2, c3, c4 = (buf[p + k] for k in range(5))
        room = end - p
        is_b = (
            (c0 == ord("["))
            & (room >= 5)
            & _DIGIT[c1]
            & (c2 == ord(":"))
            & _DIGIT[c3]
            & (c4 == ord("]"))
        )
        is_c = _DIGIT[c0] & (room >= 3) & (c1 == ord(":")) & _DIGIT[c2]
        is_d = _DIGIT[c0] & (room >= 2) & _DIGIT[c1]
        step = np.where(is_b, 5, np.where(is_c, 3, np.where(is_d, 2, 0)))
        bad[alive[step == 0]] = True
        steps.append((alive, np.where(step > 0, p, -1)))
        pos[alive] = p + step
        alive = alive[(step > 0) & (p + step < end)]
    # a chunk's k-th tile in column k: read row by row, the tiles come in written order
    grid = np.full((n, len(steps)), -1, dtype=np.int64)
    for k, (who, p) in enumerate(steps):
        grid[who, k] = p
    found = grid >= 0
    return grid[found], found.sum(axis=1), bad
