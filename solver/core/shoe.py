"""A shoe of N identical decks: how many ways a hand (a multiset of card faces) is dealt.

A hand from a shoe of ``decks`` decks is a multiset of faces (card ids 0..51, or tiles):
face ``c`` may appear up to ``decks`` times. The shoe holds ``decks`` physical copies of
each face, so a hand holding face ``c`` ``m_c`` times is dealt in

    weight = Π_c C(decks, m_c)

ways (a product over the faces it holds); summed over every multiset of size k that is
``C(faces * decks, k)``, the number of k-card deals from the full shoe. With one deck a
weight is 1 for a set and 0 for a hand repeating a card: a one-deck table is a shoe table
with weight 0 on the repeats.

>>> import numpy as np
>>> shoe_weights(np.array([[0, 0, 1], [0, 1, 2], [0, 0, 0]]), 2).tolist()
[2, 8, 0]
>>> deals(52, 6, 5)
23856384552
"""

from __future__ import annotations

from math import comb

import numpy as np
import numpy.typing as npt

__all__ = ["MAX_DECKS", "deals", "excess_copies", "multiplicities", "shoe_weights"]

MAX_DECKS = 8
"""The largest shoe a rule file may ask for (``decks = 1..8``)."""


def deals(faces: int, decks: int, k: int) -> int:
    """How many k-card deals a full shoe of ``decks`` decks of ``faces`` faces has."""
    return comb(faces * decks, k)


def multiplicities(hands: npt.NDArray[np.integer]) -> npt.NDArray[np.int8]:
    """Per position of sorted hands (n, k): how many times that position's face occurs
    in its hand (every copy of a face gets the same count).

    >>> multiplicities(np.array([[0, 0, 3], [1, 2, 2]])).tolist()
    [[2, 2, 1], [1, 2, 2]]
    """
    h = np.asarray(hands)
    out = np.zeros(h.shape, dtype=np.int8)
    for i in range(h.shape[1]):
        out[:, i] = (h == h[:, i : i + 1]).sum(axis=1)
    return out


def shoe_weights(hands: npt.NDArray[np.integer], decks: int) -> npt.NDArray[np.int64]:
    """Ways to deal each sorted hand (n, k) from a full shoe: Π_c C(decks, m_c), 0 where a
    face occurs more than ``decks`` times."""
    h = np.asarray(hands)
    n, k = h.shape
    factor = np.array([comb(decks, j) for j in range(k + 1)], dtype=np.int64)
    w = np.ones(n, dtype=np.int64)
    run = np.ones(n, dtype=np.intp)  # copies of the face at position i seen so far
    for i in range(1, k + 1):
        # a run of equal faces ends at position i - 1: its factor C(decks, copies)
        same = h[:, i] == h[:, i - 1] if i < k else np.zeros(n, dtype=bool)
        w *= np.where(same, 1, factor[run])
        run = np.where(same, run + 1, 1)
    return w


def excess_copies(hands: npt.ArrayLike, decks: int) -> tuple[int, int, int] | None:
    """The first row (of hands (n, k), any order) holding a face more than ``decks``
    times, as ``(row, face, copies)``; ``None`` when every row can be dealt.

    >>> excess_copies(np.array([[1, 2, 3], [4, 4, 4]]), 2)
    (1, 4, 3)
    """
    h = np.sort(np.asarray(hands), axis=1)
    if not h.size:
        return None
    m = multiplicities(h)
    bad = m > decks
    if not bad.any():
        return None
    row = int(np.flatnonzero(bad.any(axis=1))[0])
    col = int(np.flatnonzero(bad[row])[0])
    return row, int(h[row, col]), int(m[row, col])
