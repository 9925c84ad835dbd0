"""The shoe counting core (:mod:`solver.kit.shoe`) against pair-by-pair enumeration
written here from the definition: given the player's hand P, a banker hand B is dealt
from the rest of the shoe in Π_c C(N - p_c, b_c) ways."""

from __future__ import annotations

from collections import Counter
from math import comb

import numpy as np
import pytest

from solver.core.indexing import all_multisets, all_subsets, multiset_rank, multiset_unrank
from solver.core.shoe import deals, excess_copies, shoe_weights
from solver.kit.exact import disjoint_counts
from solver.kit.shoe import exact_dot, shoe_counts


def brute(hands: np.ndarray, s: np.ndarray, w: np.ndarray, decks: int) -> dict[str, list]:
    cnt = [Counter(h.tolist()) for h in hands]
    out: dict[str, list] = {k: [] for k in ("below", "equal", "above", "wb", "we", "wa", "tot")}
    for p in range(len(hands)):
        acc = dict.fromkeys(out, 0)
        acc.update(wb=np.zeros(w.shape[1], int), we=np.zeros(w.shape[1], int))
        acc["wa"] = np.zeros(w.shape[1], int)
        for b in range(len(hands)):
            ways = 1
            for c, bc in cnt[b].items():
                left = decks - cnt[p].get(c, 0)
                ways *= comb(left, bc) if left >= 0 else 0
            acc["tot"] += ways
            side = "below" if s[b] < s[p] else "equal" if s[b] == s[p] else "above"
            acc[side] += ways
            acc[{"below": "wb", "equal": "we", "above": "wa"}[side]] += ways * w[b]
        for k in out:
            out[k].append(acc[k])
    return out


@pytest.mark.parametrize(("faces", "size"), [(4, 2), (5, 3), (6, 5), (7, 4)])
def test_counts_match_pair_by_pair_enumeration(faces: int, size: int) -> None:
    rng = np.random.default_rng(faces * 10 + size)
    hands = all_multisets(faces, size)
    s = rng.integers(0, 6, len(hands))  # ties on purpose
    w = rng.integers(0, 4, (len(hands), 2))
    # one sub-multiset block at a time (chunk=1) gives the same counts as all at once
    small = shoe_counts(hands, s, faces, [1, 2, 3, 5], w, chunk=1)
    for c, one_block in zip(shoe_counts(hands, s, faces, [1, 2, 3, 5], w), small, strict=True):
        for name in ("weight", "below", "equal", "above", "weight_above"):
            assert (getattr(c, name) == getattr(one_block, name)).all(), name
        b = brute(hands, s, w, c.decks)
        dealt = c.weight > 0
        for key, got in (("below", c.below), ("equal", c.equal), ("above", c.above)):
            assert got[dealt].tolist() == np.array(b[key])[dealt].tolist(), (key, c.decks)
        assert (np.array(b["tot"])[dealt] == c.total).all()
        for key, got in (("wa", c.weight_above),):
            assert (np.array(b[key])[dealt] == got[dealt]).all(), (key, c.decks)


def test_one_deck_is_the_disjoint_count() -> None:
    """With one deck a shoe table is the set table plus weight-0 repeats: the counts on
    the sets are the one-deck inclusion-exclusion's."""
    faces, size = 9, 4
    sets = all_subsets(faces, size)
    multis = all_multisets(faces, size)
    rng = np.random.default_rng(3)
    s_sets = rng.integers(0, 20, len(sets))
    w_sets = rng.integers(1, 5, len(sets))
    where = np.array([multiset_rank(tuple(h)) for h in sets.tolist()])
    s = np.zeros(len(multis), np.int64)
    w = np.zeros(len(multis), np.int64)
    s[where], w[where] = s_sets, w_sets
    one = disjoint_counts(sets, s_sets, faces, w_sets)
    c = shoe_counts(multis, s, faces, [1], w)[0]
    assert c.weight[where].tolist() == [1] * len(sets) and c.weight.sum() == len(sets)
    assert c.below[where].tolist() == one.below.tolist()
    assert c.equal[where].tolist() == one.equal.tolist()
    assert c.above[where].tolist() == one.above.tolist()
    assert c.weight_above[where, 0].tolist() == one.weight_above.tolist()
    assert c.total == one.total


def test_weights_and_ranks() -> None:
    hands = all_multisets(52, 2)
    for decks in (1, 2, 8):
        assert int(shoe_weights(hands, decks).sum()) == comb(52 * decks, 2) == deals(52, decks, 2)
    assert len(all_multisets(52, 5)) == comb(56, 5) == 3_819_816
    for r in (0, 1, 12345, 3_819_815):
        assert multiset_rank(multiset_unrank(r, 5)) == r
    assert shoe_weights(np.array([[7, 7, 7, 9, 9]]), 6).tolist() == [comb(6, 3) * comb(6, 2)]
    assert excess_copies(np.array([[1, 1, 2], [3, 3, 3]]), 2) == (1, 3, 3)
    assert excess_copies(np.array([[1, 1, 2]]), 2) is None


def test_exact_dot_does_not_overflow() -> None:
    w = np.full(1000, 2**15, dtype=np.int64)
    x = np.full(1000, 2**47 - 1, dtype=np.int64)
    x[::2] *= -1
    assert exact_dot(w, x) == sum(int(a) * int(b) for a, b in zip(w, x, strict=True))
