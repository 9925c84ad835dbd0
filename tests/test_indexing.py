from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np
import pytest

from solver.core.indexing import (
    all_subsets,
    colex_rank,
    colex_rank_array,
    colex_unrank,
    colex_unrank_array,
    sort_columns,
)


def colex_key(s: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(reversed(s))


@pytest.mark.parametrize(("n", "k"), [(10, 1), (12, 2), (13, 3), (15, 4), (20, 5), (32, 3)])
def test_ranks_match_colex_order_of_itertools(n: int, k: int) -> None:
    subsets = sorted(combinations(range(n), k), key=colex_key)
    assert [colex_rank(s) for s in subsets] == list(range(comb(n, k)))
    assert [colex_unrank(i, k) for i in range(len(subsets))] == subsets
    arr = np.array(subsets, dtype=np.uint8)
    assert colex_rank_array(arr).tolist() == list(range(len(subsets)))
    assert colex_unrank_array(np.arange(len(subsets)), k).tolist() == [list(s) for s in subsets]
    assert all_subsets(n, k).tolist() == [list(s) for s in subsets]


@pytest.mark.slow
@pytest.mark.parametrize(("n", "k"), [(52, 5), (32, 5), (52, 3), (52, 2)])
def test_full_decks_exhaustively(n: int, k: int) -> None:
    lex = np.fromiter((c for s in combinations(range(n), k) for c in s), dtype=np.uint8)
    lex = lex.reshape(-1, k)
    ranks = colex_rank_array(lex)
    assert len(ranks) == comb(n, k)
    # a bijection onto 0..C(n,k)-1 ...
    assert np.array_equal(np.sort(ranks), np.arange(comb(n, k)))
    # ... that agrees with the all_subsets enumeration and its inverse
    table = all_subsets(n, k)
    assert np.array_equal(table[ranks], lex)
    assert np.array_equal(colex_unrank_array(ranks, k), lex)


def test_rank_of_unsorted_rows_and_sort_network() -> None:
    rng = np.random.default_rng(1)
    for k in (2, 3, 4, 5, 6):
        rows = np.array([rng.choice(52, size=k, replace=False) for _ in range(2000)])
        cols = sort_columns([rows[:, i] for i in range(k)])
        assert np.array_equal(np.stack(cols, axis=1), np.sort(rows, axis=1))
        assert colex_rank_array(rows).tolist() == [colex_rank(sorted(r)) for r in rows.tolist()]


@pytest.mark.parametrize(
    "bad,needle",
    [
        ([[0, 1, 2, 3, 4.5]], "row 0, column 4: 4.5 is not a card id"),
        ([[0, 1, 2, 3, 4], [5, 6, 7, 8, float("nan")]], "row 1, column 4: nan"),
        ([[0, 1, 2, 3, 4 + 1j]], "is not a card id"),
        ([[0, 1, 2, 3, 52]], "row 0, column 4: 52 is out of range"),
        ([[0, 1, 2, 3, -1]], "-1 is out of range"),
        ([[True, False, True, False, True]], "True is not a card id"),
        ([[0, 1, 2, 3]], "shape (n, 5)"),
    ],
)
def test_batch_ids_are_exact_or_an_error_naming_row_and_column(bad: list, needle: str) -> None:  # type: ignore[type-arg]
    from solver.core.errors import BullError
    from solver.core.indexing import batch_lookup, item_ids

    with pytest.raises(BullError) as e:
        item_ids(bad, 52, (5,))
    assert needle in str(e.value)
    with pytest.raises(BullError):
        batch_lookup(bad, [np.arange(2598960)])
    # integral floats are exact ids
    assert item_ids([[0.0, 1.0, 2.0, 3.0, 4.0]], 52, (5,)).tolist() == [[0, 1, 2, 3, 4]]


def test_batch_lookup_of_sorted_rows_needs_no_sort() -> None:
    """``presorted`` skips the sorting network: on rows already in increasing order it
    gives every hand's colex rank, as the rank written from its definition does."""
    from solver.core.indexing import batch_lookup

    rng = np.random.default_rng(7)
    hands = np.sort(np.stack([rng.permutation(52)[:5] for _ in range(3000)]), axis=1)
    want = [sum(comb(int(c), i + 1) for i, c in enumerate(row)) for row in hands]
    col = np.arange(2598960, dtype=np.int32)
    for presorted in (False, True):
        got, rank = batch_lookup(hands.astype(np.uint8), [col], with_rank=True, presorted=presorted)
        assert got.tolist() == want and rank.tolist() == want
