"""Rendering many settled rounds as JSON Lines fast (``bull round --input --json``).

A streamed round file can hold millions of player settlements; building a dict per
player and passing it to :func:`json.dumps` costs more than settling them. These
helpers write the same text (``json.dumps`` spacing and key order, so a line parses to
the record the dict path builds) from a few precomputed pieces: the JSON array of each
hand's names (from cached tables of two and three names at once) and, for the fields
that take few distinct values, the text of each distinct value combination, rendered
once.

>>> import numpy as np
>>> hand_texts(np.array([[0, 1, 2], [2, 1, 0]]), ("A", "B", "C"))
['["A", "B", "C"]', '["C", "B", "A"]']
>>> unique_texts(np.array([3, 1, 3]), lambda i: f"<{i}>")
['<0>', '<1>', '<0>']
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["JSON_STYLE", "dumps", "hand_texts", "round_lines", "text_lines", "unique_texts"]


def dumps(value: Any) -> str:
    """One JSON value as the records' lines spell it.

    >>> dumps({"a": [1, None]})
    '{"a": [1, null]}'
    """
    return json.dumps(value, ensure_ascii=False)


@lru_cache(maxsize=16)
def _chunks(names: tuple[str, ...], k: int, quoted: bool, sep: str) -> list[str]:
    """The text of every ``k`` names in a row (JSON strings when ``quoted``), joined by
    ``sep``, by mixed-radix index ``i0 * n**(k-1) + ... + i(k-1)``."""
    one = [dumps(x) for x in names] if quoted else list(names)
    out = one
    for _ in range(k - 1):
        out = [a + sep + b for a in out for b in one]
    return out


JSON_STYLE = (True, ", ", "[", "]")
"""A hand as a JSON array of names."""


def hand_texts(
    ids: npt.NDArray[np.integer[Any]],
    names: Sequence[str],
    sizes: npt.NDArray[np.integer[Any]] | None = None,
    prefix: str | Sequence[str] = "",
    suffixes: Sequence[str] | None = None,
    style: tuple[bool, str, str, str] = JSON_STYLE,
) -> list[str]:
    """The item names of each row of ``ids`` (the first ``sizes[i]`` items of row
    ``i``; all of them without ``sizes``) as a JSON array (``style``: quoted or not,
    the separator, the opening and the closing text), after ``prefix`` (one, or one per
    row) and before ``suffixes[i]``.

    >>> hand_texts(np.array([[0, 1]]), ("AS", "2S"), prefix=["p "], style=(False, " ", "", ""))
    ['p AS 2S']
    """
    quoted, sep, open_, close = style
    names = tuple(names)
    n = len(names)
    arr = np.asarray(ids, dtype=np.int64)
    width = arr.shape[1]
    if sizes is None:
        sizes = np.full(len(arr), width, dtype=np.int64)
    out: list[str] = [""] * len(arr)
    for k in sorted(set(np.asarray(sizes).tolist())):
        rows = np.flatnonzero(sizes == k)
        every = len(rows) == len(arr)
        parts: list[list[str]] = []
        at = 0
        while at < k:
            step = 3 if k - at >= 3 and k - at != 4 else 2 if k - at >= 2 else 1
            code = np.zeros(len(rows), dtype=np.int64)
            for j in range(at, at + step):
                code = code * n + arr[rows, j]
            table = _chunks(names, step, quoted, sep)
            parts.append([table[c] for c in code.tolist()])
            at += step
        if isinstance(prefix, str):
            heads: Sequence[str] = [prefix + open_] * len(rows)
        else:
            heads = [prefix[r] + open_ for r in rows.tolist()]
        ends = (
            [close] * len(rows)
            if suffixes is None
            else [close + suffixes[r] for r in rows.tolist()]
        )
        texts = [h + sep.join(t) + e for h, *t, e in zip(heads, *parts, ends, strict=True)]
        if every:
            return texts
        for r, t in zip(rows.tolist(), texts, strict=True):
            out[r] = t
    return out


def unique_texts(key: npt.NDArray[np.integer[Any]], render: Callable[[int], str]) -> list[str]:
    """``render(i)`` for each element, computed once per distinct ``key`` value (``i``
    is the first element with that key)."""
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    texts = [render(i) for i in first.tolist()]
    return [texts[i] for i in inverse.ravel().tolist()]


def round_lines(
    banker: Sequence[str],
    players: Sequence[str],
    start: npt.NDArray[np.int64],
    sizes: npt.NDArray[np.int64],
    tails: Sequence[str],
    house: str = "banker",
) -> list[str]:
    """``{"banker": B, "player_results": [P, ...]<tail>}`` per round: ``banker`` and ``players``
    are texts per hand (the round's banker at ``start``, its players after it),
    ``tails`` the rest of each round's object, from its first ``, "key": ...``;
    ``house``: the game's name for the banker's key (Pok Deng: ``"dealer"``)."""
    head = '{"' + house + '": '
    out = []
    for s, n, tail in zip(start.tolist(), sizes.tolist(), tails, strict=True):
        out.append(
            head + banker[s] + ', "player_results": [' + ", ".join(players[s + 1 : s + n])
            + "]" + tail + "}"
        )  # fmt: skip
    return out


def text_lines(
    hands: Sequence[str],
    start: npt.NDArray[np.int64],
    sizes: npt.NDArray[np.int64],
    tails: Sequence[str],
) -> list[str]:
    """A round's text: its hands' lines (banker first), then ``tails[k]``."""
    out = []
    for s, n, tail in zip(start.tolist(), sizes.tolist(), tails, strict=True):
        out.append("\n".join(hands[s : s + n]) + "\n" + tail)
    return out
