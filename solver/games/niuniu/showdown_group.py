"""Answers of one group of Niu Niu showdowns under hundreds of variants of a rule set
(a diagnosis scores its whole catalogue and the pairs of causes on the same few sets of
rows): :class:`ShowdownGroup` gives what
:func:`~solver.games.niuniu.variant_answers.niuniu_showdown_answers` gives, computing
once what variants share — the sorted hands, their bull facts, special flags,
categories and tie keys, and the strengths and outcome of the variants that differ in
settlement alone (another payout, commission, bet or tie rule).

A tie key is read, not recomputed, per suit order: the key of the ranks kept per
tie-break, and the strongest suit among the top rank's cards looked up from the set of
suits the top rank holds (:func:`_best_suit`).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.games.niuniu.variant_answers import (
    _KEEP_BYTES,
    _flags,
    _Kept,
    _niuniu_rules,
    _payouts,
    _settle_known,
    _skip_first,
    _suit_from,
    _written_suit,
    sort_rows,
)
from solver.kit.diagnosis import Variant, mistakes_of

__all__ = ["ShowdownGroup"]


_SETTLEMENT_FIELDS = frozenset(
    {"name", "description", "bets", "default_bet", "commission", "multipliers", "on_tie"}
)
"""The rule set's fields that say how a showdown is paid, not which hand wins: variants
that differ in these alone share their hands' categories and strengths."""
_SETTLEMENT_MISTAKES = frozenset({"loser_multiplier", "commission_on_stake"})
"""The mistakes made in paying a showdown (the hands' strengths are the rules' own)."""


class _Same:
    """A key equal to another only for the very same object (which it holds)."""

    __slots__ = ("obj",)

    def __init__(self, obj: Any) -> None:
        self.obj = obj

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.obj is self.obj

    def __hash__(self) -> int:
        return id(self.obj)


class _Consts:
    """What a rule set's showdowns read of it, made once per rules object: the key of
    what decides its hands' strengths (every field but the settlement's; a rule file's
    own categories: the rules object itself) and its payout table."""

    __slots__ = ("cat_rank", "key", "payouts", "rules")

    def __init__(self, rules: Any) -> None:
        from dataclasses import fields

        self.rules = rules
        self.key: Any = (
            _Same(rules)
            if rules.categories
            else tuple(
                (f.name, getattr(rules, f.name))
                for f in fields(rules)
                if f.name not in _SETTLEMENT_FIELDS
            )
        )
        self.payouts = _payouts(rules)
        self.cat_rank = np.array(rules.category_rank, dtype=np.int32)


def _consts(rules: Any) -> _Consts:
    hit = _CONSTS.get(id(rules))
    if hit is None or hit.rules is not rules:
        if len(_CONSTS) >= 4096:
            _CONSTS.clear()
        hit = _CONSTS[id(rules)] = _Consts(rules)
    return hit


_CONSTS: dict[int, _Consts] = {}


class _Side:
    """One side's hands (``cards``, in the order written) of some rows of a group, and
    what variants share of their evaluation: the bull facts per bull rule, the
    categories per specials and definitions, the points of the bull search that skips
    the first card, the tie keys per tie-break and suit order, and the strengths per
    rule set (but its settlement) and mistakes."""

    def __init__(self, cards: npt.NDArray[np.uint8]) -> None:
        self.cards = cards
        self.srt = sort_rows(cards)
        self.ev: dict[Any, dict[str, npt.NDArray[Any]]] = {}
        """Per bull rule its bull facts; per tie-break its ranks' key; the top rank's suits."""
        self.skipped: dict[bool, npt.NDArray[np.int64]] = {}
        self.kept = _Kept(_KEEP_BYTES)

    def strength(
        self, rules: Any, sig: Any, mistakes: frozenset[str]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[Any]]:
        """``(category, strength)`` under ``rules`` with ``mistakes`` (``sig``: what
        decides them, see :meth:`ShowdownGroup.__call__`), as
        :func:`niuniu_showdown_strengths` gives them."""
        from solver.games.niuniu.hands import strength_arrays
        from solver.games.niuniu.rules import Category

        got = self.kept.get(("strength", sig))
        if got is not None:
            return got  # type: ignore[no-any-return]
        cat, own = self._categories(rules)
        if "bull_skips_first" in mistakes:
            trips = rules.bull_from_three_of_a_kind
            points = self.skipped.get(trips)
            if points is None:
                points = self.skipped[trips] = _skip_first(self.cards, trips)
            cat = np.where(cat <= Category.NIU_NIU, points, cat)
        if own is not None:  # a file in the rule language: its compiled strengths
            strength: Any = own
        else:
            ties = self.ties(rules.tie_break, rules.suit_strength)
            cat_rank = _consts(rules).cat_rank
            strength = strength_arrays(self.srt, cat.astype(np.uint8), rules, ties, cat_rank)
        strength = _suit_from(self.cards, rules, mistakes, strength, self._written)
        return self.kept.put(("strength", sig), (cat, strength), cat.nbytes + strength.nbytes)  # type: ignore[no-any-return]

    def ties(self, tie_break: str, suit_strength: tuple[int, ...]) -> npt.NDArray[np.int32]:
        """:func:`~solver.games.niuniu.hands.tie_keys` of the hands under a tie-break and
        suit order: the key of the ranks (the top rank, or every rank high to low) kept
        per tie-break, and the strongest suit among the top rank's cards read from the
        set of suits the top rank holds (a table of 16 per suit order)."""
        key = ("ties", tie_break, suit_strength)
        got = self.kept.get(key)
        if got is None:
            if tie_break == "none":
                got = np.zeros(len(self.srt), dtype=np.int32)
            else:
                got = self._rank_key(tie_break) + _best_suit(suit_strength)[self._top_suits()]
            self.kept.put(key, got, got.nbytes)
        return got  # type: ignore[no-any-return]

    def _rank_key(self, tie_break: str) -> npt.NDArray[np.int32]:
        """The tie key's part of the ranks, times 4 (``highest_card``: the top rank;
        ``rank_by_rank``: the ranks high to low, four bits each)."""
        got = self.ev.get(tie_break)
        if got is None:
            rank = self.srt.astype(np.int32) >> 2
            key = rank[:, 4].copy()
            if tie_break == "rank_by_rank":
                for i in (3, 2, 1, 0):
                    key = key * 16 + rank[:, i]
            got = self.ev[tie_break] = {"key": key * 4}
        return got["key"]

    def _written(self, mistake: str) -> npt.NDArray[np.int64]:
        """:func:`_written_suit` of the hands (kept)."""
        got = self.ev.get(mistake)
        if got is None:
            got = self.ev[mistake] = {"suit": _written_suit(self.cards, mistake)}
        return got["suit"]

    def _top_suits(self) -> npt.NDArray[np.uint8]:
        """Per hand, the suits among the cards of its top rank (bit ``s`` for suit ``s``)."""
        got = self.ev.get("top_suits")
        if got is None:
            c = self.srt
            rank, top = c >> 2, c[:, 4] >> 2
            mask = np.zeros(len(c), dtype=np.uint8)
            for i in range(c.shape[1]):
                mask |= np.where(rank[:, i] == top, _SUIT_BIT[c[:, i] & 3], 0).astype(np.uint8)
            got = self.ev["top_suits"] = {"mask": mask}
        return got["mask"]

    def _categories(self, rules: Any) -> tuple[npt.NDArray[np.int64], npt.NDArray[Any] | None]:
        from solver.games.niuniu.hands import _base_arrays, categories

        trips = rules.bull_from_three_of_a_kind
        ckey: Any = (
            ("categories", _Same(rules))
            if rules.categories
            else (
                "categories",
                trips,
                rules.specials,
                rules.five_small_bull_total,
                rules.five_small_bull_max_rank,
                rules.four_faces_fifth,
            )
        )
        got = self.kept.get(ckey)
        if got is None:
            if rules.categories:
                from solver.games.niuniu.hands import compiled_arrays

                code, own = compiled_arrays(self.srt, rules)
                got = (code.astype(np.int64), own)
                size = got[0].nbytes + own.nbytes
            else:
                ev = self.ev.get(trips)
                if ev is None:
                    ev = self.ev[trips] = _base_arrays(self.srt, rules)
                flags = _flags(self.kept, ev, rules)
                got = (categories(ev, flags, rules).astype(np.int64), None)
                size = got[0].nbytes
            self.kept.put(ckey, got, size)
        return got  # type: ignore[no-any-return]


_SUIT_BIT = np.array([1, 2, 4, 8], dtype=np.uint8)


def _best_suit(suit_strength: tuple[int, ...]) -> npt.NDArray[np.int32]:
    """Per set of suits (bit ``s`` for suit ``s``), the strength of its strongest suit
    under a suit order (-1 for none).

    >>> _best_suit((3, 2, 1, 0)).tolist()[:6]
    [-1, 3, 2, 3, 1, 3]
    """
    got = _BEST_SUIT.get(suit_strength)
    if got is None:
        got = np.array(
            [
                max([suit_strength[s] for s in range(4) if m >> s & 1], default=-1)
                for m in range(16)
            ],
            dtype=np.int32,
        )
        _BEST_SUIT[suit_strength] = got
    return got


_BEST_SUIT: dict[tuple[int, ...], npt.NDArray[np.int32]] = {}


class _Rows:
    """Some rows of a group: both sides, and per strength signature the showdowns'
    categories, strengths and outcome (0 the player's hand is stronger, 1 the
    banker's, 2 equal)."""

    def __init__(self, player: npt.NDArray[np.uint8], banker: npt.NDArray[np.uint8]) -> None:
        self.player, self.banker = _Side(player), _Side(banker)
        self.kept = _Kept(_KEEP_BYTES)

    def outcome(self, rules: Any, sig: Any, mistakes: frozenset[str]) -> tuple[Any, ...]:
        """``(player category, player strength, banker category, banker strength,
        outcome)``."""
        got = self.kept.get(sig)
        if got is None:
            pc_, ps = self.player.strength(rules, sig, mistakes)
            bc, bs = self.banker.strength(rules, sig, mistakes)
            out = np.where(ps > bs, 0, np.where(ps < bs, 1, 2))
            got = self.kept.put(sig, (pc_, ps, bc, bs, out), out.nbytes)
        return got  # type: ignore[no-any-return]


class ShowdownGroup:
    """The answers of one group of showdowns (``player`` and ``banker`` hands in the
    order written, each row's ``bet`` index and ``commission``) under ``base`` and any
    variant, on any rows of the group: ``group(variant, sel)`` is
    ``niuniu_showdown_answers(player[sel], banker[sel], bet[sel], commission[sel], base,
    variant)``. A diagnosis asks it for hundreds of variants on a few sets of rows, so
    what they share is computed once: the sorted hands, their bull facts, categories and
    tie keys, and the strengths and outcome of the variants that differ in settlement
    alone (another payout, commission, bet or tie rule). A small group evaluates every
    row once per strength signature and answers any rows from that; a large one
    evaluates the rows asked for (the last few sets of rows kept).

    Two showdowns under the double bet (Niu Niu pays 3, five faces 5): the banker's
    Niu Niu beats the player's 2 points, the player's five faces win; then with half
    the win taken as commission, on both rows and on the second alone:

    >>> from solver.games.niuniu.rules import load_rules
    >>> from solver.core.cards import parse_cards
    >>> p = np.array([parse_cards("AS 2C 7D 4H 8S"), parse_cards("KS QS JS KH QD")], np.uint8)
    >>> b = np.array([parse_cards("3S 3C 4D 4H 6S"), parse_cards("10H 9H 8H 7C 6C")], np.uint8)
    >>> g = ShowdownGroup(p, b, np.ones(2, np.int64), np.zeros(2), load_rules("classic"))
    >>> g(None)["winner"].tolist(), g(None)["net"].tolist()
    ([1, 0], [-3.0, 5.0])
    >>> half = Variant("commission=0.5", "x", options={"commission": 0.5})
    >>> g(half)["net"].tolist(), g(half, np.array([1]))["net"].tolist()
    ([-3.0, 2.5], [2.5])
    """

    def __init__(
        self,
        player: npt.NDArray[np.integer],
        banker: npt.NDArray[np.integer],
        bet: npt.NDArray[np.int64],
        commission: npt.NDArray[np.float64],
        base: Any,
    ) -> None:
        self.player = np.asarray(player, dtype=np.uint8)
        self.banker = np.asarray(banker, dtype=np.uint8)
        self.bet = np.asarray(bet, dtype=np.int64)
        self.commission = np.asarray(commission, dtype=np.float64)
        self.base = base
        n = len(self.bet)
        one = n > 0 and bool((self.bet == self.bet[0]).all())
        self._one_bet = int(self.bet[0]) if one else None
        one = n > 0 and bool((self.commission == self.commission[0]).all())
        self._one_commission = float(self.commission[0]) if one else None
        """The bet and commission of every row, when every row has the same."""
        self._every: _Rows | None = None
        self._range: npt.NDArray[np.int64] | None = None
        self._rows: list[tuple[npt.NDArray[np.int64], _Rows]] = []

    def __call__(
        self, variant: Variant | None, sel: npt.NDArray[np.int64] | None = None
    ) -> dict[str, npt.NDArray[Any]]:
        """The answers under ``variant`` (``None``: the base rules) on rows ``sel``
        (``None``: every row)."""
        if variant is not None and _SCORED[0]() is not self:
            self._scored()
        rules = _niuniu_rules(variant, self.base)
        consts = _consts(rules)
        mistakes = mistakes_of(variant)
        # what decides the hands' strengths: the rule set but its settlement, and the
        # mistakes but those made in paying
        sig = (consts.key, mistakes - _SETTLEMENT_MISTAKES)
        n = len(self.player)
        every = sel is None or (len(sel) == n and np.array_equal(sel, self._arange()))
        if every:
            got = self._all().outcome(rules, sig, mistakes)
        elif n <= _SHARE_ROWS:  # every row evaluated once, these rows taken from it
            got = tuple(a[sel] for a in self._all().outcome(rules, sig, mistakes))
        else:
            assert sel is not None
            got = self._some(sel).outcome(rules, sig, mistakes)
        bet: Any = self._one_bet
        if bet is None:
            bet = self.bet if every else self.bet[sel]
        comm: Any = self._one_commission
        if comm is None:
            comm = self.commission if every else self.commission[sel]
        pc_, ps, bc, bs, outcome = got
        winner = np.minimum(outcome, 1) if rules.on_tie == "banker" else outcome
        return _settle_known(rules, variant, consts.payouts, pc_, ps, bc, bs, winner, bet, comm)

    def _scored(self) -> None:
        """This group's variants are being scored: the group scored before is done, its
        evaluations dropped (the checker may keep its groups, and check the next one
        while this one is scored; if asked again, it evaluates anew)."""
        before, _SCORED[0] = _SCORED[0](), weakref.ref(self)
        if before is not None:
            before._every, before._rows = None, []

    def _arange(self) -> npt.NDArray[np.int64]:
        if self._range is None:
            self._range = np.arange(len(self.player))
        return self._range

    def _all(self) -> _Rows:
        if self._every is None:
            self._every = _Rows(self.player, self.banker)
        return self._every

    def _some(self, sel: npt.NDArray[np.int64]) -> _Rows:
        """The rows ``sel`` of a large group: a set of rows asked for before (the same
        rows) shares its evaluations; the last few are kept."""
        for i, (kept, rows) in enumerate(self._rows):
            if len(kept) == len(sel) and np.array_equal(kept, sel):
                if i:
                    self._rows.insert(0, self._rows.pop(i))
                return rows
        rows = _Rows(self.player[sel], self.banker[sel])
        self._rows.insert(0, (np.array(sel, copy=True), rows))
        del self._rows[_KEEP_ROWS:]
        return rows


_SCORED: list[Callable[[], ShowdownGroup | None]] = [lambda: None]
"""The group whose variants are being scored (the last asked for a variant), weakly."""
_SHARE_ROWS = 65_536
"""A group of up to this many rows is evaluated on every row, once per strength
signature, whatever rows a variant is asked about (the cost of a step is then mostly
its call, not its rows); a larger one on the rows asked for."""
_KEEP_ROWS = 4
"""Sets of rows a large :class:`ShowdownGroup` keeps the evaluations of (a diagnosis
scores a group's variants on every row, on the interesting ones and on the disagreeing
ones)."""
