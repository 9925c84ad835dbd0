"""The hands of a plain ``eval`` body read from its bytes with numpy, no Python string
made: ``{"hands": ["KS 9H 8C 3D 7S", ...]}`` — one key, a list of strings, every byte
ASCII, no backslash (no escape), no control character in a string, JSON whitespace
anywhere between the tokens. In that shape every string's text is the bytes between
its quotes, and ``json.loads`` reads exactly those strings (a property test compares
the two on random bodies). Any other body — another key, a number, an escape, a
character outside ASCII, a stray byte — is ``None`` here, and is read by ``json.loads``.

>>> s = hand_spans(b'{"hands": ["KS 9H 8C 3D 7S", " AS 2S 3S 4S 6D"]}')
>>> [bytes(s.data[a:b]).decode() for a, b in zip(s.starts, s.ends, strict=True)]
['KS 9H 8C 3D 7S', ' AS 2S 3S 4S 6D']
>>> hand_spans(b'{"hands": ["KS", 5]}') is None, hand_spans(b'{"hands": ["\\\\u004bS"]}') is None
(True, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import overload

import numpy as np

from solver.kit.notation import Spans

__all__ = ["SpanTexts", "hand_spans"]

_WS = np.zeros(256, dtype=bool)
_WS[[0x20, 0x09, 0x0A, 0x0D]] = True
_HEAD = b'"hands"'


def hand_spans(raw: bytes) -> Spans | None:
    """The hands of ``raw`` as spans of its bytes (no copy), if ``raw`` is a plain
    ``{"hands": [...]}`` body of one or more strings; else ``None``."""
    if not raw.isascii() or b"\\" in raw:
        return None
    data = np.frombuffer(raw, dtype=np.uint8)
    quotes = np.flatnonzero(data == 0x22)
    if len(quotes) < 4 or len(quotes) % 2:
        return None
    opens, closes = quotes[0::2], quotes[1::2]
    if raw[opens[0] : closes[0] + 1] != _HEAD:
        return None
    # outside the strings: whitespace and the structure only, in this order:
    # { "hands" : [ "..." , "..." ... ] }
    size = len(data) + 1
    edges = np.bincount(opens, minlength=size) - np.bincount(closes + 1, minlength=size)
    in_string = np.cumsum(edges[:-1]) > 0  # the quotes themselves included
    outside = np.flatnonzero(~in_string & ~_WS[data])
    tokens = data[outside]
    n = len(opens) - 1  # the strings after the key
    if len(tokens) != n + 4:  # { : [ , ... ] }: n - 1 commas
        return None
    if tokens[0] != 0x7B or tokens[1] != 0x3A or tokens[2] != 0x5B:
        return None
    if tokens[-2] != 0x5D or tokens[-1] != 0x7D or (tokens[3:-2] != 0x2C).any():
        return None
    # each token sits where it must: "{" before the key, ":" and "[" between the key
    # and the first string, a comma between each two strings, "]" "}" after the last
    at = outside
    if not (at[0] < opens[0] and closes[0] < at[1] < at[2] < opens[1]):
        return None
    if not (closes[-1] < at[-2]):
        return None
    if n > 1 and not ((closes[1:-1] < at[3:-2]) & (at[3:-2] < opens[2:])).all():
        return None
    starts, ends = opens[1:] + 1, closes[1:]
    if ((data < 0x20) & in_string).any():  # a control character inside a string
        return None
    return Spans(data, starts.astype(np.int64), ends.astype(np.int64), np.ones(n, dtype=bool))


class SpanTexts(Sequence[str]):
    """The texts of spans as a sequence of strings, each decoded when asked for (a
    hand answered alone, or named in an error)."""

    def __init__(self, spans: Spans) -> None:
        self.spans = spans

    def __len__(self) -> int:
        return len(self.spans)

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...
    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        s = self.spans
        a, b = int(s.starts[i]), int(s.ends[i])
        return s.data[a:b].tobytes().decode("ascii")
