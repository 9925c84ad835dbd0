"""What the probe asks, game-blind: the question space of a game (its deck, hand sizes
and unit names, from the registry's ``audit_spec``), the cover classes, every hand, a
seeded sample, seeded showdown deals, and the game's conformance vectors (``bull
vectors``: a question that catches each catalogued cause, with our answers).

Cover classes: for cards, each multiset of ranks once with mixed suits and, when the
ranks are distinct, once as a flush (for hands of two or three cards also with the
first two suited), each in a seeded random order and suit relabelling; for tiles, a
seeded sample of the multisets of tile types (there are 33,934 five-tile multisets:
the whole set is the confirm phase).

>>> sp = space("pokdeng", None)
>>> sp.sizes, len(sp.names)
((2, 3), 52)
>>> len(list(every(sp)))  # 1,326 two-card and 22,100 three-card hands
23426
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations_with_replacement
from typing import Any

import numpy as np
import numpy.typing as npt

from solver import games

__all__ = [
    "Space",
    "classes",
    "deals",
    "every",
    "every_blocks",
    "every_count",
    "neighbours",
    "sample",
    "space",
    "vector_rows",
]


@dataclass(frozen=True)
class Space:
    """A game's question space: ``kind`` (``card`` or ``tile``), hand ``sizes``, the
    ``deck`` of physical ids, each id's ``unit`` (its face) and the unit ``names``
    (indexed by unit), ``copies`` of each unit in the deck."""

    game: str
    kind: str
    sizes: tuple[int, ...]
    deck: tuple[int, ...]
    unit: tuple[int, ...]
    names: tuple[str, ...]
    copies: tuple[int, ...]

    def units(self) -> list[int]:
        """The units present in the deck (a 40-card deck has no J/Q/K)."""
        return sorted({self.unit[i] for i in self.deck})


def space(game: str, rules: Any) -> Space:
    """The question space of ``game`` under ``rules`` (from the registry: what the game
    deals, without the tables and exact figures an audit reads)."""
    spec = games.get(game).hand_space(rules)
    unit = [int(u) for u in np.asarray(spec["unit"]).tolist()]
    names = list(spec["unit_names"])
    return Space(
        game,
        str(spec["kind"]),
        tuple(int(s) for s in spec["sizes"]),
        tuple(int(d) for d in np.asarray(spec["deck"]).tolist()),
        tuple(unit),
        tuple(names),
        tuple(int(c) for c in np.asarray(spec["copies"]).tolist()),
    )


def _multisets(sp: Space, k: int) -> Iterator[tuple[int, ...]]:
    """Every multiset of ``k`` units the deck can deal (ascending)."""
    units = sp.units()
    have = tuple(sum(1 for i in sp.deck if sp.unit[i] == u) for u in units)
    yield from _dealable(tuple(units), have, k)


@lru_cache(maxsize=8)
def _dealable(units: tuple[int, ...], have: tuple[int, ...], k: int) -> tuple[tuple[int, ...], ...]:
    """The multisets of ``k`` of ``units`` holding at most ``have`` of each (ascending),
    made once per deck and size: a probe plans its questions, and re-plans them for
    each rule set it tries, from the same Tau Ngau multisets (53,130 of five).

    >>> _dealable((0, 1), (2, 1), 2)
    ((0, 0), (0, 1))
    """
    most = dict(zip(units, have, strict=True))
    return tuple(
        combo
        for combo in combinations_with_replacement(units, k)
        if all(combo.count(u) <= most[u] for u in set(combo))
    )


def every_count(sp: Space) -> int:
    """How many distinct hands :func:`every` yields."""
    if sp.kind == "card":
        from math import comb

        return sum(comb(len(sp.deck), k) for k in sp.sizes)
    return sum(sum(1 for _ in _multisets(sp, k)) for k in sp.sizes)


def every(sp: Space, seed: int = 0) -> Iterator[list[int]]:
    """Every distinct hand (of units), each in a seeded random order."""
    for block in every_blocks(sp, seed):
        yield from block.tolist()


def every_blocks(sp: Space, seed: int = 0, block: int = 65_536) -> Iterator[npt.NDArray[np.int64]]:
    """:func:`every`'s hands in blocks, one hand a row (the hands of one block are of
    one size)."""
    rng = np.random.default_rng(seed)
    for k in sp.sizes:
        if sp.kind == "card":
            deck = np.array(sp.deck, dtype=np.int64)
            for rows in _card_blocks(len(deck), k, block):
                hands = deck[rows]
                perm = np.argsort(rng.random(hands.shape), axis=1)
                yield np.take_along_axis(hands, perm, axis=1)
        else:
            part: list[list[int]] = []
            for combo in _multisets(sp, k):
                hand = list(combo)
                rng.shuffle(hand)
                part.append([int(u) for u in hand])
                if len(part) == block:
                    yield np.array(part, dtype=np.int64)
                    part = []
            if part:
                yield np.array(part, dtype=np.int64)


def _subsets(n: int, k: int) -> npt.NDArray[np.int16]:
    """Every ``k``-subset of ``range(n)``, increasing, in lexicographic order (each row
    grown by every larger index, in numpy).

    >>> _subsets(4, 2).tolist()
    [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]
    """
    c = np.arange(n, dtype=np.int16)[:, None]
    for _ in range(k - 1):
        last = c[:, -1].astype(np.int64)
        reps = n - 1 - last
        start = np.repeat(np.cumsum(reps) - reps, reps)
        grown = np.repeat(last + 1, reps) + np.arange(int(reps.sum())) - start
        c = np.column_stack([np.repeat(c, reps, axis=0), grown.astype(np.int16)])
    return c


def _card_blocks(n: int, k: int, block: int = 65_536) -> Iterator[npt.NDArray[np.int64]]:
    """Every ``k``-subset of ``range(n)`` as rows of index arrays, in blocks
    (lexicographic: the order of :func:`itertools.combinations`)."""
    rows = _subsets(n, k)
    for i in range(0, len(rows), block):
        yield rows[i : i + block].astype(np.int64)


def _suited(ranks: tuple[int, ...], pattern: str, rng: np.random.Generator) -> list[int] | None:
    """Card ids for ``ranks`` with suits as ``pattern`` says (``mixed``, ``flush``,
    ``two``: the first two suited), relabelled at random; None when impossible."""
    relabel = rng.permutation(4)
    k = len(ranks)
    if pattern == "flush":
        if len(set(ranks)) < k:
            return None
        suits = [0] * k
    elif pattern == "two":
        if k > 3 or ranks[0] == ranks[1]:
            return None
        suits = [0, 0] + [1 + j for j in range(k - 2)]
        # equal ranks later need distinct suits: the cycle below keeps them apart
        if len(set(ranks[2:])) < k - 2:
            return None
    else:
        suits = [j % 4 for j in range(k)]
        if k > 1 and len(set(suits)) == 1:
            return None
    return [r * 4 + int(relabel[s]) for r, s in zip(ranks, suits, strict=True)]


def classes(sp: Space, seed: int = 0, tiles: int = 8_000) -> list[list[int]]:
    """The cover: one hand per class (module docstring), seeded (the same hands for the
    same space and seed: made once in a process, each caller given its own lists)."""
    return [list(hand) for hand in _classes(sp, seed, tiles)]


@lru_cache(maxsize=8)
def _classes(sp: Space, seed: int, tiles: int) -> tuple[tuple[int, ...], ...]:
    rng = np.random.default_rng(seed)
    out: list[list[int]] = []
    for k in sp.sizes:
        if sp.kind == "card":
            deck = set(sp.deck)
            ranks = sorted({i >> 2 for i in sp.deck})
            for combo in combinations_with_replacement(ranks, k):
                if any(combo.count(r) > 4 for r in set(combo)):
                    continue
                for pattern in ("mixed", "flush", "two"):
                    hand = _suited(combo, pattern, rng)
                    if hand is None or not set(hand) <= deck:
                        continue
                    rng.shuffle(hand)
                    out.append(hand)
        else:
            multis = list(_multisets(sp, k))
            pick = (
                range(len(multis))
                if len(multis) <= tiles
                else sorted(rng.choice(len(multis), tiles, replace=False).tolist())
            )
            for j in pick:
                hand = list(multis[j])
                rng.shuffle(hand)
                out.append(hand)
    return tuple(tuple(hand) for hand in out)


def _units_of(sp: Space, ids: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    return np.asarray(sp.unit, dtype=np.int64)[ids]


def sample(sp: Space, n: int, seed: int = 1) -> list[list[int]]:
    """``n`` random hands (sizes at random among the game's), seeded."""
    rng = np.random.default_rng(seed)
    deck = np.array(sp.deck, dtype=np.int64)
    k = max(sp.sizes)
    picks = np.argsort(rng.random((n, len(deck))), axis=1)[:, :k]
    hands = _units_of(sp, deck[picks])
    sizes = rng.choice(np.array(sp.sizes), n)
    return [row[:s] for row, s in zip(hands.tolist(), sizes.tolist(), strict=True)]


def deals(sp: Space, n: int, seed: int = 2) -> list[tuple[list[int], list[int]]]:
    """``n`` random showdowns (player, banker) dealt from one deck, seeded."""
    rng = np.random.default_rng(seed)
    deck = np.array(sp.deck, dtype=np.int64)
    k = max(sp.sizes)
    picks = np.argsort(rng.random((n, len(deck))), axis=1)[:, : 2 * k]
    hands = _units_of(sp, deck[picks]).tolist()
    ps = rng.choice(np.array(sp.sizes), n).tolist()
    bs = rng.choice(np.array(sp.sizes), n).tolist()
    return [(h[:p], h[k : k + b]) for h, p, b in zip(hands, ps, bs, strict=True)]


def neighbours(
    sp: Space, hands: list[list[int]], rng: np.random.Generator
) -> list[list[list[int]]]:
    """Every question one item away from ``hands`` (a hand, or a showdown's two): one
    item replaced by another unit the deck still holds (a card not in use; a tile type
    with a copy left), the others kept in their written order; seeded random order.
    A cause that shows on a question usually shows on many of its neighbours, so they
    are where thin evidence for a cause is found.

    >>> sp = space("niuniu", None)
    >>> near = neighbours(sp, [[0, 1, 2, 3, 4]], np.random.default_rng(0))
    >>> len(near), all(len(set(h[0])) == 5 and len(h[0]) == 5 for h in near)
    (235, True)
    """
    used: dict[int, int] = {}
    for hand in hands:
        for u in hand:
            used[u] = used.get(u, 0) + 1
    copies = {u: sum(1 for i in sp.deck if sp.unit[i] == u) for u in sp.units()}
    free = [u for u in sorted(copies) if used.get(u, 0) < copies[u]]
    out = []
    for h, hand in enumerate(hands):
        for i, old in enumerate(hand):
            for u in free:
                if u != old:
                    new = [list(x) for x in hands]
                    new[h][i] = u
                    out.append(new)
    order = rng.permutation(len(out))
    return [out[int(j)] for j in order]


def vector_rows(
    game: str, rules: Any, options: Mapping[str, Any], tables: str | None, sample: int = 0
) -> list[dict[str, Any]]:
    """The game's conformance vectors (``bull vectors``) with ``sample`` random hands
    and showdowns: questions that catch each catalogued cause, with our answers. A
    showdown keeps only its two hands (``banker`` for the dealer too) and only when it
    is dealt under the default bet. Kept for the next probe of the same rules in this
    process (a probe re-run, ``bull serve``): each is a copy."""
    data = games.get(game).load_rules(rules).to_data()
    key = json.dumps([game, data, dict(options), tables, sample], sort_keys=True, default=str)
    if key not in _VECTOR_ROWS:
        if len(_VECTOR_ROWS) >= 8:
            _VECTOR_ROWS.pop(next(iter(_VECTOR_ROWS)))
        _VECTOR_ROWS[key] = _vector_rows(game, rules, options, tables, sample, data)
    return [dict(r) for r in _VECTOR_ROWS[key]]


_VECTOR_ROWS: dict[str, list[dict[str, Any]]] = {}


def _vector_rows(
    game: str,
    rules: Any,
    options: Mapping[str, Any],
    tables: str | None,
    sample: int,
    data: Mapping[str, Any],
) -> list[dict[str, Any]]:
    recs, _ = games.get(game).vectors(rules, 20_261_202, sample, dict(options), tables)
    default_bet = data.get("default_bet")
    out = []
    for r in recs:
        if r.get("kind") == "showdown":
            if "bet" in r and r["bet"] != (options.get("bet") or default_bet):
                continue
            banker = r.get("banker", r.get("dealer"))
            out.append({**r, "banker": banker})
        else:
            out.append(r)
    return out
