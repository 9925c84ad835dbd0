"""Answers of Niu Niu hands and showdowns under a rule set or any variant of it (a
catalogue entry of :mod:`solver.games.niuniu.diagnose`): the data variants run through
:mod:`solver.games.niuniu.hands`'s own evaluator; the mistakes (a bull search that skips
the first card, Niu Niu reported as 0, a tie-break suit taken from the order the cards
were written in, the loser's multiplier, commission on the stake) are evaluated here.

A diagnosis scores hundreds of variants on the same rows, so what variants share is
computed once: the bull facts of the cards (per bull rule), the categories (per specials
and their definitions), the tie keys (per tie-break and suit order) and each rule set
made from its data (:func:`~solver.kit.diagnosis.variant_rules`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.kit.diagnosis import Variant, mistakes_of, options_of, variant_rules

__all__ = [
    "niuniu_hand_answers",
    "niuniu_showdown_answers",
    "niuniu_showdown_strengths",
    "sort_rows",
]


class _Kept:
    """Values by key, the most recently used kept up to ``budget`` bytes (the last one
    always)."""

    def __init__(self, budget: int) -> None:
        self.budget, self.size = budget, 0
        self.items: dict[Any, tuple[Any, int]] = {}

    def get(self, key: Any) -> Any:
        hit = self.items.pop(key, None)
        if hit is None:
            return None
        self.items[key] = hit  # the most recently used last
        return hit[0]

    def put(self, key: Any, value: Any, nbytes: int) -> Any:
        self.items[key] = (value, nbytes)
        self.size += nbytes
        while self.size > self.budget and len(self.items) > 1:
            self.size -= self.items.pop(next(iter(self.items)))[1]
        return value


_KEEP_BYTES = 8 << 20
"""What a set of cards keeps of its evaluations (special flags, categories, tie keys,
strengths; the most recently used), and a set of showdown rows of their outcomes: for
a small group every variant's, for a large one the last few."""


def _niuniu_rules(variant: Variant | None, base: Any) -> Any:
    from solver.games.niuniu.rules import NiuNiuRules

    return variant_rules(variant, base, NiuNiuRules.from_data)


def niuniu_hand_answers(
    cards: npt.NDArray[np.integer],
    base: Any,
    variant: Variant | None = None,
    known: Mapping[str, npt.NDArray[Any]] | None = None,
) -> dict[str, npt.NDArray[Any]]:
    """Answers for hands written as ``cards`` (n, 5) in input order, under ``base``
    rules or a variant of them: ``has_bull``, ``points``, ``category``, ``strength`` and
    ``forbidden`` (a card a valid bull may not use, 255 = none). ``known``: the hands'
    answers under ``base`` when the caller has them (``sorted``, ``has_bull``, ``points``,
    ``category``, as from the table), used for a variant that keeps ``base``'s rules
    (a mistake, a settlement option) instead of evaluating the hands anew.

    >>> from solver.games.niuniu.rules import load_rules
    >>> from solver.core.cards import parse_cards
    >>> h = np.array([parse_cards("AS 2C 7D 4H 8S")], dtype=np.uint8)
    >>> a = niuniu_hand_answers(h, load_rules("classic"))
    >>> bool(a["has_bull"][0]), int(a["points"][0])
    (True, 2)
    >>> v = Variant("x", "x", mistake="bull_skips_first")
    >>> bool(niuniu_hand_answers(h, load_rules("classic"), v)["has_bull"][0])
    False
    """
    from solver.games.niuniu.hands import _base_arrays, categories, strength_arrays

    rules = _niuniu_rules(variant, base)
    c = np.asarray(cards, dtype=np.uint8)
    if known is not None and rules is base and not rules.categories:
        srt = np.asarray(known["sorted"])
        return _mistakes(
            c,
            rules,
            variant,
            np.asarray(known["has_bull"], dtype=bool),
            np.asarray(known["points"]).astype(np.int64),
            np.asarray(known["category"]).astype(np.int64),
            lambda cat: strength_arrays(srt, cat.astype(np.uint8), rules),
        )
    # the bull facts of these very cards (they depend on the bull rule only) are shared
    # by every variant scored on them, and each rule set's categories by its mistakes
    # (the last few are kept; the key is a digest of the cards)
    digest = (c.shape, hashlib.blake2b(c.tobytes(), digest_size=16).digest())
    key = (*digest, rules.bull_from_three_of_a_kind)
    hit = _LAST.get(key)
    if hit is None:
        srt = sort_rows(c)
        # evaluate_arrays, strength lazily
        hit = (srt, _base_arrays(srt, rules), _Kept(_KEEP_BYTES), _Kept(_KEEP_BYTES))
        if len(_LAST) >= _KEEP:
            _LAST.pop(next(iter(_LAST)))
        _LAST[key] = hit
    srt, ev, cats, ties = hit
    # today's keys: the categories depend on the specials counted and their definitions
    # alone (the variants of a suit order, a tie-break or a payout share them); a file
    # in the rule language: on the rule set itself
    ckey: Any = (
        id(rules)
        if rules.categories
        else (
            rules.specials,
            rules.five_small_bull_total,
            rules.five_small_bull_max_rank,
            rules.four_faces_fifth,
        )
    )
    got = cats.get(ckey)
    if got is None or (rules.categories and got[0] is not rules):
        if rules.categories:  # a file in the rule language: its compiled categories
            from solver.games.niuniu.hands import compiled_arrays

            code, own = compiled_arrays(srt, rules)
            got = (rules, code.astype(np.int64), own)
            cats.put(ckey, got, got[1].nbytes + own.nbytes)
        else:
            flags = _flags(cats, ev, rules)
            got = (rules, categories(ev, flags, rules).astype(np.int64), None)
            cats.put(ckey, got, got[1].nbytes)
    cat0, own_strength = got[1], got[2]
    return _mistakes(
        c,
        rules,
        variant,
        ev["has_bull"].copy(),
        ev["points"].astype(np.int64),
        cat0.copy(),
        (lambda _: own_strength)
        if own_strength is not None
        else (
            lambda cat: strength_arrays(srt, cat.astype(np.uint8), rules, _ties(ties, srt, rules))
        ),
    )


def _flags(
    kept: _Kept, shape: Mapping[str, npt.NDArray[Any]], rules: Any
) -> dict[str, npt.NDArray[np.bool_]]:
    """:func:`~solver.games.niuniu.hands.special_flags` of hands of ``shape`` (their
    :func:`~solver.games.niuniu.hands.hand_shape`) under ``rules``' definitions, from
    ``kept`` (the same hands' flags, shared by every specials list of those
    definitions) or made and kept there."""
    from solver.games.niuniu.hands import special_flags

    defs = (rules.five_small_bull_total, rules.five_small_bull_max_rank, rules.four_faces_fifth)
    key = ("flags", *defs)
    got = kept.get(key)
    if got is None:
        got = special_flags(shape, rules)
        kept.put(key, got, sum(a.nbytes for a in got.values()))
    return got  # type: ignore[no-any-return]


def _ties(kept: _Kept, srt: npt.NDArray[np.uint8], rules: Any) -> npt.NDArray[np.int32]:
    """The tie keys of the sorted hands ``srt`` under ``rules``' tie-break and suit
    order, from ``kept`` (the same cards' keys, shared by every variant that keeps
    both) or computed and kept there."""
    from solver.games.niuniu.hands import tie_keys

    key = (rules.tie_break, rules.suit_strength)
    got = kept.get(key)
    if got is None:
        got = tie_keys(srt, rules)
        kept.put(key, got, got.nbytes)
    return got  # type: ignore[no-any-return]


def _mistakes(
    c: npt.NDArray[np.uint8],
    rules: Any,
    variant: Variant | None,
    has: npt.NDArray[np.bool_],
    points: npt.NDArray[np.int64],
    cat: npt.NDArray[np.int64],
    strength: Callable[[npt.NDArray[np.int64]], npt.NDArray[Any]],
) -> dict[str, npt.NDArray[Any]]:
    """The answers of hands written as ``c`` under ``rules`` (``has``, ``points``,
    ``cat``: the rules' own, owned here), with the variant's mistakes applied."""
    from solver.games.niuniu.rules import Category

    forbidden = np.full(len(c), 255, dtype=np.uint8)
    mistakes = mistakes_of(variant)  # every mistake a variant applies, at once
    if "bull_skips_first" in mistakes:
        points = _skip_first(c, rules.bull_from_three_of_a_kind)
        has = points > 0
        plain = cat <= Category.NIU_NIU
        cat = np.where(plain, points, cat)
        forbidden = c[:, 0].copy()
    if "niu_niu_as_zero" in mistakes:  # after the bull search, whichever it was
        points = np.where(points == 10, 0, points)
    trips = np.array(rules.bull_from_three_of_a_kind)  # the bull rule a claimed bull meets
    return _Answers(
        {
            "has_bull": has,
            "points": points,
            "category": cat,
            "forbidden": forbidden,
            "bull_from_three_of_a_kind": trips,
        },
        lambda: strength(cat),
    )


def _skip_first(c: npt.NDArray[np.uint8], trips: bool) -> npt.NDArray[np.int64]:
    """The points of the best bull among the cards but the first written (0: none); the
    last cards' result is kept (a pair of mistakes asks again for the same cards)."""
    hit = _SKIPPED.get("last")
    if hit is not None and hit[0] is c and hit[1] == trips and np.array_equal(hit[2], c):
        return hit[3].copy()
    # card values (A 1 ... 10/J/Q/K 10) by table, in small integers, a column each
    value = [_VALUE[c[:, j]] for j in range(5)]
    total = value[0] + value[1] + value[2] + value[3] + value[4]
    best = np.zeros(len(c), dtype=np.int16)
    for a, b, d in ((1, 2, 3), (1, 2, 4), (1, 3, 4), (2, 3, 4)):
        bsum = value[a] + value[b] + value[d]
        ok = _TENS[bsum]  # a multiple of 10
        if trips:
            ra, rb, rd = (c[:, j] >> 2 for j in (a, b, d))
            ok = ok | ((ra == rb) & (rb == rd))
        # the other two cards' last digit, 0 as 10
        np.maximum(best, np.where(ok, _LAST_DIGIT[total - bsum], 0), out=best)
    points = best.astype(np.int64)
    _SKIPPED["last"] = (c, trips, c.copy(), points)
    return points.copy()


_SKIPPED: dict[str, tuple[Any, bool, npt.NDArray[np.uint8], npt.NDArray[np.int64]]] = {}

_VALUE = np.array([min(c // 4 + 1, 10) for c in range(256)], dtype=np.int16)
"""A card id's value (ids past 51: unused)."""
_TENS = np.arange(64) % 10 == 0
"""Sums of three values that are a multiple of 10."""
_LAST_DIGIT = ((np.arange(64) - 1) % 10 + 1).astype(np.int16)
"""The points of two cards' total: its last digit, 0 as 10."""

_LAST: dict[tuple[Any, ...], tuple[Any, Any, _Kept, _Kept]] = {}
"""The last evaluations of :func:`niuniu_hand_answers`, by cards and bull rule: the
sorted cards, the bull facts, the categories per specials and their definitions, and
the tie keys per tie-break and suit order (the most recently used, up to
:data:`_KEEP_BYTES` each)."""
_KEEP = 4
"""Entries kept (a showdown evaluates the player's and the banker's hands in turn)."""


class _Answers(dict[str, npt.NDArray[Any]]):
    """Answers whose ``strength`` (showdowns need it, hand claims do not) is computed
    when first read."""

    def __init__(
        self, items: Mapping[str, npt.NDArray[Any]], strength: Callable[[], npt.NDArray[Any]]
    ) -> None:
        super().__init__(items)
        self._strength = strength

    def __missing__(self, key: str) -> npt.NDArray[Any]:
        if key != "strength":
            raise KeyError(key)
        self[key] = value = self._strength()
        return value


_NETWORK5 = ((0, 1), (3, 4), (2, 4), (2, 3), (0, 3), (0, 2), (1, 4), (1, 3), (1, 2))
"""A sorting network for five items (nine compare-exchanges)."""


def sort_rows(cards: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """Each row sorted ascending: rows of five by a sorting network on the columns (much
    faster than ``np.sort(axis=1)`` on millions of short rows), others by ``np.sort``.

    >>> from itertools import product
    >>> every = np.array(list(product(range(2), repeat=5)), dtype=np.uint8)
    >>> bool((sort_rows(every) == np.sort(every, axis=1)).all())
    True
    """
    c = np.asarray(cards, dtype=np.uint8)
    if c.ndim != 2 or c.shape[1] != 5:
        return np.sort(c, axis=1)
    cols = [c[:, j].copy() for j in range(5)]
    for a, b in _NETWORK5:
        lo = np.minimum(cols[a], cols[b])
        np.maximum(cols[a], cols[b], out=cols[b])
        cols[a] = lo
    return np.stack(cols, axis=1)


def niuniu_showdown_strengths(
    cards: npt.NDArray[np.integer], rules: Any, variant: Variant | None
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """``(category, strength)`` of hands written as ``cards`` under a variant."""
    a = niuniu_hand_answers(cards, rules, variant)
    r = _niuniu_rules(variant, rules)
    return a["category"], _suit_from(cards, r, mistakes_of(variant), a["strength"])


def _suit_from(
    cards: npt.NDArray[np.integer],
    rules: Any,
    mistakes: frozenset[str],
    strength: Any,
    written: Callable[[str], npt.NDArray[np.int64]] | None = None,
) -> Any:
    """``strength`` with a tie-break suit taken from the order the cards were written
    in (the first or the last written card of the top rank), under that mistake;
    ``written(mistake)``: :func:`_written_suit` of ``cards``, when the caller keeps it."""
    suit_from = mistakes & _SUIT_FROM
    if not suit_from or rules.tie_break not in ("highest_card", "rank_by_rank"):
        return strength
    mistake = min(suit_from)
    suit = _written_suit(cards, mistake) if written is None else written(mistake)
    ss = np.array(rules.suit_strength, dtype=np.int64)[suit]
    return (strength & ~np.int64(3)) | ss


_SUIT_FROM = frozenset({"suit_from_input_order", "suit_from_last_written"})


def _written_suit(cards: npt.NDArray[np.integer], mistake: str) -> npt.NDArray[np.int64]:
    """The suit of the first (``suit_from_input_order``) or the last written card of
    each hand's top rank."""
    c = np.asarray(cards, dtype=np.int64)
    rank = c >> 2
    top = rank.max(axis=1)
    at_top = rank == top[:, None]
    if mistake == "suit_from_input_order":
        first = np.argmax(at_top, axis=1)
    else:  # the last-written card of the top rank
        first = c.shape[1] - 1 - np.argmax(at_top[:, ::-1], axis=1)
    suit: npt.NDArray[np.int64] = c[np.arange(len(c)), first] & 3
    return suit


def niuniu_showdown_answers(
    player: npt.NDArray[np.integer],
    banker: npt.NDArray[np.integer],
    bet: npt.NDArray[np.int64],
    commission: npt.NDArray[np.float64],
    base: Any,
    variant: Variant | None = None,
) -> dict[str, npt.NDArray[Any]]:
    """``winner`` (0 player, 1 banker, 2 push) and ``net`` (the player's, in stakes) of
    showdowns, under ``base`` or a variant. ``bet`` indexes ``base.bets`` per row.
    (:class:`~solver.games.niuniu.showdown_group.ShowdownGroup` answers the same for
    many variants of one group of rows.)"""
    rules = _niuniu_rules(variant, base)
    pc_, ps = niuniu_showdown_strengths(player, rules, variant)
    bc, bs = niuniu_showdown_strengths(banker, rules, variant)
    return _settle(rules, variant, _payouts(rules), pc_, ps, bc, bs, bet, commission)


def _payouts(rules: Any) -> npt.NDArray[np.float64]:
    """The winner's multiplier per bet (``rules.bets``' order) and category code."""
    return np.array([rules.multiplier_row(b) for b in rules.bets], dtype=np.float64)


def _settle(
    rules: Any,
    variant: Variant | None,
    rows: npt.NDArray[np.float64],
    pc_: npt.NDArray[np.int64],
    ps: npt.NDArray[Any],
    bc: npt.NDArray[np.int64],
    bs: npt.NDArray[Any],
    bet: npt.NDArray[np.int64],
    commission: npt.NDArray[np.float64],
) -> dict[str, npt.NDArray[Any]]:
    """The answers of showdowns whose hands' categories and strengths are known, under
    ``rules`` (``rows``: its :func:`_payouts`) and the variant's settlement options and
    mistakes."""
    tie = 1 if rules.on_tie == "banker" else 2
    winner = np.where(ps > bs, 0, np.where(ps < bs, 1, tie))
    return _settle_known(rules, variant, rows, pc_, ps, bc, bs, winner, bet, commission)


def _settle_known(
    rules: Any,
    variant: Variant | None,
    rows: npt.NDArray[np.float64],
    pc_: npt.NDArray[np.int64],
    ps: npt.NDArray[Any],
    bc: npt.NDArray[np.int64],
    bs: npt.NDArray[Any],
    winner: npt.NDArray[np.int64],
    bet: npt.NDArray[np.int64] | int,
    commission: npt.NDArray[np.float64] | float,
) -> dict[str, npt.NDArray[Any]]:
    """:func:`_settle` once the ``winner`` is known; ``bet`` and ``commission`` may be
    one for every row (the same arithmetic)."""
    opts = options_of(variant)
    if "bet" in opts:
        bet = list(rules.bets).index(opts["bet"])
    if isinstance(bet, int):  # one bet on every row
        pm, bm = rows[bet][pc_], rows[bet][bc]
    else:
        bet_idx = np.asarray(bet, dtype=np.int64)
        pm, bm = rows[bet_idx, pc_], rows[bet_idx, bc]
    comm: Any = commission
    if "commission" in opts:
        comm = float(opts["commission"])
    elif not isinstance(comm, float):
        comm = np.asarray(comm, dtype=np.float64)
    mistakes = mistakes_of(variant)
    if "loser_multiplier" in mistakes:
        pm, bm = bm, pm
    win = pm - comm if "commission_on_stake" in mistakes else pm * (1 - comm)
    net = np.where(winner == 0, win, np.where(winner == 1, -bm, 0.0))
    return {
        "winner": winner,
        "net": np.round(net, 9),
        "player_category": pc_,
        "banker_category": bc,
        "player_strength": ps,
        "banker_strength": bs,
    }
