"""Niu Niu at run time: evaluate, compare and settle hands from the precomputed table
(the public API is :mod:`solver.games.niuniu.play`, which adds ``rank``).

Every rule set is answered by an array lookup at the hand's colex rank: a preset from
the committed tables, a user's rule file from a table of its own, built on first use and
cached by the rule set's content digest (:mod:`~solver.games.niuniu.source`). A
showdown still equal after the tie-break is a push or a banker's win (``on_tie``).

>>> h = evaluate("KS 9H 8C 3D 7S")
>>> h.points, h.category.label, h.bull_names
(7, 'niu_7', ['3D', '7S', 'KS'])
>>> settle("JS QS KS 5H 5D", "4C 7C 8D JD KH", bet="double").net
2.85
>>> evaluate("KS 9H 8C 3D 7S") < evaluate("JS QS KD 5H 5D")   # niu 7 < niu niu
True
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from math import comb
from operator import itemgetter
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.core.cards import (
    RANK_NAMES,
    SUIT_NAMES,
    Card,
    card_name,
    check_copies,
    format_hand,
    hand_names,
    parse_hand,
)
from solver.core.errors import BullError
from solver.core.indexing import (
    batch_lookup,
    colex_rank_array,
    item_ids,
    multiset_rank_array,
    sort_columns,
)
from solver.core.inputs import check_commission, check_paired, check_tables
from solver.games.niuniu.rules import PRESETS, Category, NamedCategory, NiuNiuRules, load_rules
from solver.games.niuniu.source import check_rows, rules_table
from solver.kit.results import Ranked, Settlement, Showdown
from solver.store.tables import LoadedTable

__all__ = [
    "Comparison",
    "NiuNiuHand",
    "Settlement",
    "Showdown",
    "compare",
    "evaluate",
    "evaluate_batch",
    "parse_pair",
    "settle",
    "settle_batch",
]

HandLike = str | Iterable[str] | Iterable[int]
RulesLike = str | os.PathLike[str] | Mapping[str, Any] | NiuNiuRules | None
_COLUMNS = ("has_bull", "points", "bull_mask", "n_bulls")
_MASK_POS = {m: tuple(i for i in range(5) if m >> i & 1) for m in range(32)}
_CATEGORIES = tuple(Category)
_MASK_GET = {m: itemgetter(*pos) if len(pos) > 1 else None for m, pos in _MASK_POS.items()}
_C1, _C2, _C3, _C4, _C5 = ([comb(n, k) for n in range(57)] for k in range(1, 6))


@dataclass(frozen=True, slots=True)
class NiuNiuHand(Ranked):
    """An evaluated hand: ``hand`` holds its card ids (sorted). ``strength`` orders
    hands under ``rules`` (tie-breaks included), and so do ``<`` and ``>``."""

    hand: tuple[Card, ...]
    points: int
    bull: tuple[Card, ...] | None
    n_bulls: int
    category: Category | NamedCategory
    strength: int
    multiplier: int
    rules: str

    @property
    def has_bull(self) -> bool:
        return self.bull is not None

    @property
    def cards(self) -> tuple[Card, ...]:
        """The hand's card ids (``hand``, by the name of the first releases)."""
        return self.hand

    @property
    def names(self) -> list[str]:
        """The hand's cards as names, e.g. ``['3D', '7S', '8C', '9H', 'KS']``."""
        return hand_names(self.hand)

    def versus(self, other: NiuNiuHand) -> int:
        """-1, 0 or 1 by strength (equal strength: a tie, ``on_tie`` settles it)."""
        return (self.strength > other.strength) - (self.strength < other.strength)

    @property
    def rest(self) -> tuple[Card, ...] | None:
        """The two cards that score, or ``None`` without a bull."""
        if self.bull is None:
            return None
        rest = list(self.hand)
        for c in self.bull:  # one copy each: a shoe's hand may hold a card twice
            rest.remove(c)
        return tuple(rest)

    @property
    def bull_names(self) -> list[str] | None:
        return None if self.bull is None else hand_names(self.bull)

    def __repr__(self) -> str:
        return f"evaluate({format_hand(self.hand)!r}, rules={self.rules!r})"

    def __str__(self) -> str:
        if self.bull is None:
            how = "no bull"
        else:
            how = f"bull {format_hand(self.bull)} + {format_hand(self.rest or ())}"
        return f"{format_hand(self.hand)}: {self.category.label} ({how}) [{self.rules}]"

    def to_json(self) -> dict[str, Any]:
        rest = self.rest
        return {
            "hand": hand_names(self.hand),
            "has_bull": self.has_bull,
            "points": self.points,
            "bull": self.bull_names,
            "rest": None if rest is None else hand_names(rest),
            "n_bulls": self.n_bulls,
            "category": self.category.label,
            "strength": self.strength,
            "multiplier": self.multiplier,
            "rules": self.rules,
        }


_SLOT_SETTERS = tuple(NiuNiuHand.__dict__[f].__set__ for f in NiuNiuHand.__slots__)
_NEW = object.__new__


def _make_hand(
    cards: tuple[Card, ...],
    points: int,
    bull: tuple[Card, ...] | None,
    n_bulls: int,
    category: Category | NamedCategory,
    strength: int,
    multiplier: int,
    rules: str,
) -> NiuNiuHand:
    """``NiuNiuHand(...)`` at half the cost: the same slots, set directly (the frozen
    dataclass ``__init__`` goes through ``object.__setattr__`` once per field)."""
    h = _NEW(NiuNiuHand)
    s0, s1, s2, s3, s4, s5, s6, s7 = _SLOT_SETTERS
    s0(h, cards)
    s1(h, points)
    s2(h, bull)
    s3(h, n_bulls)
    s4(h, category)
    s5(h, strength)
    s6(h, multiplier)
    s7(h, rules)
    return h


Comparison = Showdown
"""The showdown type by the name of the first releases (one :class:`Showdown` now)."""


# ---------------------------------------------------------------- lookups


_Packed = tuple["array[int]", "array[int]", list[tuple[int, Any, int, Category | NamedCategory]]]


class _Source:
    """Where answers for one rule set come from: its table's columns (a preset's
    committed table, or the rule file's own, built on first use)."""

    def __init__(self, rules: NiuNiuRules, tables: str | os.PathLike[str] | None) -> None:
        self.rules = rules
        self.tables = tables
        self.deck_size = rules.deck_size
        self.decks = rules.decks
        self._table: LoadedTable | None = None
        self._packed: _Packed | None = None
        self._mult: dict[str | None, tuple[int, ...]] = {}
        self.mult_default = rules.multiplier_row(None)
        self.name = rules.name

    def table(self) -> LoadedTable:
        if self._table is None:
            self._table = rules_table(self.rules, self.tables)
        return self._table

    def names(self) -> list[str]:
        return [*_COLUMNS, f"{self.rules.name}_category", f"{self.rules.name}_strength"]

    def lookup(
        self, ranks: npt.NDArray[np.integer], few: bool = False
    ) -> dict[str, npt.NDArray[Any]]:
        """Columns at colex ``ranks`` (a few rows: read only their row groups)."""
        t = self.table()
        cols = t.rows(ranks, self.names()) if few else {n: t.column(n)[ranks] for n in self.names()}
        return {
            "has_bull": cols["has_bull"],
            "points": cols["points"],
            "bull_mask": cols["bull_mask"],
            "n_bulls": cols["n_bulls"],
            "category": cols[f"{self.rules.name}_category"],
            "strength": cols[f"{self.rules.name}_strength"],
        }

    def multipliers(self, bet: str | None) -> tuple[int, ...]:
        row = self._mult.get(bet)
        if row is None:
            row = self._mult[bet] = self.rules.multiplier_row(bet)
        return row

    def packed(self) -> _Packed:
        """The fastest path for one hand at a time: per row an index into a small list
        of distinct (points, bull getter, n_bulls, category), and the strengths, as
        compact machine arrays."""
        if self._packed is None:
            t = self.table()
            name = self.rules.name
            fields = np.stack(
                [
                    t.column("points"),
                    t.column("bull_mask"),
                    t.column("n_bulls"),
                    t.column(f"{name}_category"),
                ],
                axis=1,
            ).astype(np.int64)
            key = ((fields[:, 0] * 32 + fields[:, 1]) * 16 + fields[:, 2]) * 32 + fields[:, 3]
            uniq, inverse = np.unique(key, return_inverse=True)
            decode = []
            for k in uniq.tolist():
                k, cat = divmod(k, 32)
                k, nb = divmod(k, 16)
                pts, mask = divmod(k, 32)
                decode.append((pts, _MASK_GET[mask], nb, self.rules.category(cat)))
            # compact machine arrays: one cache line per lookup, no boxed ints kept
            self._packed = (
                array("H", inverse.astype(np.uint16).tobytes()),
                array("i", t.column(f"{name}_strength").astype(np.int32).tobytes()),
                decode,
            )
        return self._packed


_SOURCES: dict[tuple[NiuNiuRules, str | None], _Source] = {}


_BY_SPEC: dict[tuple[Any, Any], _Source] = {}


def _source(rules: RulesLike, tables: str | os.PathLike[str] | None) -> _Source:
    """The answer source for a rule set, cached by the caller's spelling of it (a preset
    name or file is read once per process)."""
    try:
        fast_key = (rules, tables)
        hit = _BY_SPEC.get(fast_key)
        if hit is not None:
            return hit
    except TypeError:  # an unhashable spec (a dict)
        fast_key = None
    r = load_rules(rules) if not isinstance(rules, NiuNiuRules) else rules
    key = (r, check_tables(tables))
    src = _SOURCES.get(key)
    if src is None:
        src = _SOURCES[key] = _Source(r, tables)
    if fast_key is not None and (
        rules is None or isinstance(rules, NiuNiuRules) or rules in PRESETS
    ):
        _BY_SPEC[fast_key] = src  # files are re-read: they may change
    return src


def _evaluate_many(
    hands: Sequence[tuple[Card, ...]], src: _Source, bet: str | None, few: bool
) -> list[NiuNiuHand]:
    rules = src.rules
    mult = rules.multiplier_row(bet)
    arr = np.array(hands, dtype=np.uint8).reshape(-1, 5)
    for cards in hands:
        rules.check_cards(cards)
    rank = multiset_rank_array if rules.shoe else colex_rank_array
    cols = src.lookup(rank(arr, presorted=True), few=few)
    out = []
    for i, cards in enumerate(hands):
        mask = int(cols["bull_mask"][i])
        cat = rules.category(int(cols["category"][i]))
        out.append(
            NiuNiuHand(
                hand=cards,
                points=int(cols["points"][i]),
                bull=tuple(cards[p] for p in _MASK_POS[mask]) if mask else None,
                n_bulls=int(cols["n_bulls"][i]),
                category=cat,
                strength=int(cols["strength"][i]),
                multiplier=mult[cat],
                rules=rules.name,
            )
        )
    return out


def evaluate(
    hand: HandLike,
    rules: RulesLike = None,
    *,
    bet: str | None = None,
    tables: str | os.PathLike[str] | None = None,
) -> NiuNiuHand:
    """Evaluate one 5-card hand (a string like ``"AS 10H 3C 7D KS"`` or card ids).

    ``multiplier`` is what the hand collects when it wins under ``bet``
    (default: the rule set's default bet).
    """
    src = _source(rules, tables)
    cards: tuple[int, ...] | None = None
    shoe = src.decks > 1
    if not shoe and (type(hand) is tuple or type(hand) is list):  # fast path: five card ids
        try:
            a, b, c, d, e = srt = sorted(hand)
            if (
                type(a) is type(b) is type(c) is type(d) is type(e) is int
                and 0 <= a < b < c < d < e < src.deck_size
            ):
                cards = tuple(srt)
        except (TypeError, ValueError):
            pass
    if cards is None:
        cards = parse_hand(hand, size=5, copies=src.decks)
        src.rules.check_cards(cards)
        a, b, c, d, e = cards
    packed, strengths, decode = src.packed()
    if shoe:  # the dense multiset rank
        i = _C1[a] + _C2[b + 1] + _C3[c + 2] + _C4[d + 3] + _C5[e + 4]
    else:
        i = _C1[a] + _C2[b] + _C3[c] + _C4[d] + _C5[e]
    points, get_bull, n_bulls, cat = decode[packed[i]]
    mult = src.mult_default if bet is None else src.multipliers(bet)
    return _make_hand(
        cards,
        points,
        get_bull(cards) if get_bull else None,
        n_bulls,
        cat,
        strengths[i],
        mult[cat],
        src.name,
    )


def _tie_reason(p: NiuNiuHand, b: NiuNiuHand, rules: NiuNiuRules) -> str:
    strength = rules.suit_strength

    def key(c: Card) -> tuple[int, int]:
        return (c >> 2, strength[c & 3])

    if rules.tie_break == "highest_card":
        hp, hb = max(p.hand, key=key), max(b.hand, key=key)
        hi, lo = (hp, hb) if key(hp) > key(hb) else (hb, hp)
        return f"both {p.category.label}; highest card {card_name(hi)} beats {card_name(lo)}"
    if rules.tie_break == "rank_by_rank":

        def order(h: NiuNiuHand) -> list[int]:
            ranks = sorted((c >> 2 for c in h.hand), reverse=True)
            if (
                rules.quads_first
                and h.category == Category.FOUR_OF_A_KIND
                and ranks.count(ranks[-1]) == 4
            ):
                ranks = ranks[1:] + ranks[:1]
            return ranks

        rp, rb = order(p), order(b)
        ordinals = ("highest", "second", "third", "fourth", "fifth")
        for i, (x, y) in enumerate(zip(rp, rb, strict=True)):
            if x != y:
                hi, lo = max(x, y), min(x, y)
                return (
                    f"both {p.category.label}; {ordinals[i]} rank {RANK_NAMES[hi]} beats "
                    f"{RANK_NAMES[lo]}"
                )
        hp, hb = max(p.hand, key=key), max(b.hand, key=key)
        hi, lo = (hp, hb) if key(hp) > key(hb) else (hb, hp)
        return (
            f"both {p.category.label}, same ranks; highest card {card_name(hi)} beats "
            f"{card_name(lo)} on suit ({' > '.join(SUIT_NAMES[s] for s in rules.suit_order)})"
        )
    return f"both {p.category.label}"


def compare(
    player: HandLike,
    banker: HandLike,
    rules: RulesLike = None,
    *,
    tables: str | os.PathLike[str] | None = None,
) -> Showdown[NiuNiuHand]:
    """Compare a player's hand with the banker's: the winner and the reason."""
    src = _source(rules, tables)
    pc, bc = parse_pair(player, banker, src.rules)
    p, b = evaluate(pc, src.rules, tables=tables), evaluate(bc, src.rules, tables=tables)
    if p.strength == b.strength:
        if src.rules.on_tie == "banker":
            return Showdown(
                p,
                b,
                "banker",
                f"both {p.category.label}, equal on the tie-break: ties go to the banker",
                p.rules,
            )
        return Showdown(p, b, "push", f"both {p.category.label}, equal on the tie-break", p.rules)
    winner = "player" if p.strength > b.strength else "banker"
    if p.category != b.category:
        w, l_ = (p, b) if winner == "player" else (b, p)
        reason = f"{w.category.label} beats {l_.category.label}"
    else:
        reason = _tie_reason(p, b, src.rules)
    return Showdown(p, b, winner, reason, p.rules)


def _net(winner: str, p_mult: int, b_mult: int, commission: float) -> tuple[float, float]:
    """The player's net and the banker's: the loser pays the winner's multiplier, the
    house keeps ``commission`` of a player's winnings."""
    if winner == "player":
        return round(p_mult * (1 - commission), 12), -float(p_mult)
    if winner == "banker":
        return -float(b_mult), float(b_mult)
    return 0.0, 0.0


def settle(
    player: HandLike,
    banker: HandLike,
    rules: RulesLike = None,
    *,
    bet: str | None = None,
    commission: float | None = None,
    tables: str | os.PathLike[str] | None = None,
) -> Settlement[NiuNiuHand]:
    """Settle one showdown: the winner collects its hand's multiplier for ``bet``; the
    house keeps ``commission`` of a player's winnings (default: the rule set's)."""
    src = _source(rules, tables)
    bet_name = src.rules.bet(bet)
    comm = src.rules.commission if commission is None else _check_commission(commission)
    cmp_ = compare(player, banker, src.rules, tables=tables)
    row = src.rules.multiplier_row(bet_name)
    net, banker_net = _net(cmp_.winner, row[cmp_.player.category], row[cmp_.banker.category], comm)
    return Settlement(cmp_, net, banker_net, bet_name, comm)


def parse_pair(
    player: HandLike, banker: HandLike, rules: NiuNiuRules
) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    """Both hands of a showdown, read for ``rules``' deck: from one deck they share no
    card; from a shoe of N decks no card occurs more than N times in the two together.

    >>> parse_pair("AS AS 2S 3S 4S", "AS 5S 6S 7S 8S", load_rules("shoe6"))[1]
    (0, 16, 20, 24, 28)
    """
    pc = parse_hand(player, size=5, copies=rules.decks)
    bc = parse_hand(banker, size=5, copies=rules.decks)
    if rules.decks == 1:
        shared = sorted(set(pc) & set(bc))
        if shared:
            raise BullError(f"card {card_name(shared[0])} is in both hands (one deck)")
    else:
        check_copies([*pc, *bc], rules.decks, "the two hands")
    rules.check_cards(pc)
    rules.check_cards(bc)
    return pc, bc


def _check_commission(c: float) -> float:
    return float(check_commission(c))


# ---------------------------------------------------------------- batch


def evaluate_batch(
    cards: npt.ArrayLike, rules: RulesLike = None, *, tables: str | os.PathLike[str] | None = None
) -> dict[str, npt.NDArray[Any]]:
    """Evaluate many hands at once: ``cards`` is (n, 5) card ids in any order.

    Returns arrays ``has_bull``, ``points``, ``category``, ``strength``, ``n_bulls``,
    ``bull_mask`` (positions in the *sorted* hand) and ``rank`` (the table row).
    """
    src = _source(rules, tables)
    arr = item_ids(cards, 52, (5,))  # whole card ids, else an error naming row and column
    check_rows(src.rules, arr)  # a J/Q/K under no_faces
    t = src.table()
    if src.rules.shoe:
        _check_shoe_rows(arr, src.rules.decks, "")
    names = (
        ("has_bull", "has_bull"),
        ("points", "points"),
        ("bull_mask", "bull_mask"),
        ("n_bulls", "n_bulls"),
        ("category", f"{src.rules.name}_category"),
        ("strength", f"{src.rules.name}_strength"),
    )
    if src.rules.shoe:  # hands may repeat a card: the dense multiset rank
        cols = sort_columns([arr[:, i] for i in range(5)])
        rank = multiset_rank_array(np.stack(cols, axis=1), presorted=True)
        got = [t.column(n)[rank] for _, n in names]
        return {**{k: v for (k, _), v in zip(names, got, strict=True)}, "rank": rank}
    try:
        *got, rank = batch_lookup(arr, [t.column(n) for _, n in names], with_rank=True)
    except ValueError as exc:
        raise BullError(f"bad hands array: {exc}") from None
    return {**{k: v for (k, _), v in zip(names, got, strict=True)}, "rank": rank}


def _check_shoe_rows(arr: npt.NDArray[np.int64], decks: int, what: str) -> None:
    """Refuse the first row holding a card more often than the shoe does."""
    from solver.core.shoe import excess_copies

    bad = excess_copies(arr, decks)
    if bad is not None:
        row, card, n = bad
        raise BullError(
            f"row {row}{what}: card {card_name(card)} appears {n} times; "
            f"a {decks}-deck shoe holds {decks}"
        )


def settle_batch(
    player: npt.ArrayLike,
    banker: npt.ArrayLike,
    rules: RulesLike = None,
    *,
    bet: str | None = None,
    commission: float | None = None,
    tables: str | os.PathLike[str] | None = None,
) -> npt.NDArray[np.float64]:
    """The player's net for many showdowns at once (rows of ``player`` vs ``banker``)."""
    src = _source(rules, tables)
    row = np.array(src.rules.multiplier_row(bet), dtype=np.float64)
    comm = src.rules.commission if commission is None else _check_commission(commission)
    pa_, ba = item_ids(player, 52, (5,)), item_ids(banker, 52, (5,))
    check_paired(len(pa_), len(ba), ("player", "banker"))
    p = evaluate_batch(pa_, src.rules, tables=tables)
    b = evaluate_batch(ba, src.rules, tables=tables)
    if src.rules.shoe:
        _check_shoe_rows(np.concatenate([pa_, ba], axis=1), src.rules.decks, " (both hands)")
    else:
        overlap = (pa_[:, :, None] == ba[:, None, :]).any(axis=(1, 2))
        if overlap.any():
            at = int(np.flatnonzero(overlap)[0])
            raise BullError(f"row {at}: player and banker share a card")
    win = p["strength"] > b["strength"]
    lose = p["strength"] < b["strength"]
    if src.rules.on_tie == "banker":
        lose |= p["strength"] == b["strength"]
    net = np.zeros(len(win))
    net[win] = row[p["category"][win]] * (1 - comm)
    net[lose] = -row[b["category"][lose]]
    return net


# ---------------------------------------------------------------- CLI frontend
