"""Pok Deng at runtime: evaluate, settle, advise and chart — single hands and batches.

Presets (``standard``, ``straights``) are looked up by colex rank in the ``pokdeng`` and
``pokdeng_strategy`` tables. A user's rule file (or dict) is classified directly with
the vectorised code of :mod:`solver.games.pokdeng.hands`; its exact strategy comes from
a ``pokdeng_strategy`` table of its own, built on first use by
:mod:`solver.games.pokdeng.strategy` and cached by the rule set's content digest
(:mod:`solver.games.pokdeng.rulefile`).

>>> h = evaluate("9S 9D", rules={"name": "demo"})
>>> h
evaluate('9S 9D', rules='demo')
>>> h.names, h.type, h.points, h.deng, h.strength
(['9S', '9D'], HandType.POK, 8, 2, 58)
>>> print(settle("6C 4C 5C", "KH 2S 3C", rules={"name": "demo"}))
player wins: both Normal 5: deng 3 vs 1, player wins the difference 2; player net +2
>>> evaluate("6C 4C 5C", rules={"name": "demo"}) > evaluate("KH 2S 3C", rules={"name": "demo"})
True
>>> a = advise("7H 5D", rules={"name": "demo"})
>>> a.action, a.ev_draw > a.ev_stand
('draw', True)
>>> print(a)  # doctest: +NORMALIZE_WHITESPACE
5D 7H (Normal 2, 1 deng): DRAW — EV draw -0.5346, stand -0.8756 (margin 0.3410);
dealer draws on 4 or less; rules demo
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.core.cards import CARD_NAMES, Card, check_copies, format_hand, hand_names, parse_hand
from solver.core.errors import ParseError, RulesError, TableError
from solver.core.indexing import colex_rank_array, item_ids, multiset_rank_array
from solver.core.inputs import check_paired
from solver.core.rules import preset_names
from solver.games.pokdeng.hands import N_TWO, HandClass, classify, settle_classes, two_card_kind
from solver.games.pokdeng.hands import settle as _settle_arrays
from solver.games.pokdeng.rulefile import rule_solution, shoe_rule_solution
from solver.games.pokdeng.rules import PRESET_DIR, HandType, Kind, PokDengRules, load_rules
from solver.games.pokdeng.strategy import (
    CONFIGS,
    DRAW_DEN,
    POLICIES,
    Action,
    Solution,
    config_rules,
    overall_ev,
    strategy_row,
)
from solver.kit.results import Ranked, Settlement, Showdown
from solver.store.tables import LoadedTable, open_table

__all__ = [
    "Advice",
    "HandEval",
    "PokDengHand",
    "Settlement",
    "Showdown",
    "advise",
    "advise_batch",
    "compare",
    "evaluate",
    "evaluate_batch",
    "evaluate_many",
    "overall",
    "settle",
    "settle_batch",
]

RulesSpec = str | os.PathLike[str] | Mapping[str, Any] | PokDengRules | None


# ---------------------------------------------------------------- rule sets and tables


@dataclass(frozen=True)
class _Ruleset:
    rules: PokDengRules
    config: str | None  # a table configuration (preset), or None: compute directly


def _resolve(spec: RulesSpec) -> _Ruleset:
    if isinstance(spec, PokDengRules):
        return _Ruleset(spec, None)
    if spec is None or (isinstance(spec, str) and spec in preset_names(PRESET_DIR)):
        rules = load_rules(spec)
        return _Ruleset(rules, rules.name if rules.name in CONFIGS else None)
    return _Ruleset(load_rules(spec), None)


_CHECKED: set[tuple[int, str]] = set()


def _table(name: str, tables: str | os.PathLike[str] | None, config: str) -> LoadedTable:
    """Open a Pok Deng table and check it was built with today's preset ``config``."""
    t = open_table(name, tables)
    key = (id(t), config)
    if key not in _CHECKED:
        stored = t.rules.get(config)
        if stored is None:
            raise TableError(
                f"table {name} has no rule set {config!r}; rebuild with `bull build --game pokdeng`"
            )
        if stored != config_rules(config).to_data():
            raise TableError(
                f"table {name} was built with different {config!r} rules; "
                "rebuild with `bull build --game pokdeng`"
            )
        _CHECKED.add(key)
    return t


def _policy(rs: _Ruleset, k: int | None) -> int:
    if k is None:
        return rs.rules.dealer_draws_at_most
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= 9:
        raise RulesError(
            f"dealer policy {k!r}: the dealer draws at a total of K or less, K an integer 0..9"
        )
    return k


def _solution(rules: PokDengRules, k: int, tables: str | os.PathLike[str] | None) -> Solution:
    """A rule set, or a dealer policy, the preset tables do not hold: its own strategy
    table, built on first use (it says so) and cached."""
    return rule_solution(rules, k, tables)


# ---------------------------------------------------------------- evaluate


@dataclass(frozen=True)
class PokDengHand(Ranked):
    """One hand's type, points, deng and strength (``10 * type + points``): ``hand``
    holds its card ids. ``<``/``>`` order hands as a showdown does (points, the rule
    set's two-card order, then deng where equal points pay by deng)."""

    hand: tuple[Card, ...]
    type: HandType
    points: int
    deng: int
    strength: int
    rules: str
    ruleset: PokDengRules | None = field(default=None, compare=False, repr=False)

    @property
    def cards(self) -> tuple[Card, ...]:
        return self.hand

    @property
    def names(self) -> list[str]:
        """The hand's cards as names, e.g. ``['9S', '9D']``."""
        return hand_names(self.hand)

    @property
    def hand_class(self) -> HandClass:
        kind = Kind(int(two_card_kind(np.array([self.hand]))[0]))
        return HandClass(self.type, self.points, self.deng, kind)

    def versus(self, other: PokDengHand) -> int:
        """-1, 0 or 1: the sign of this hand's net against ``other``."""
        rules = self.ruleset or load_rules(self.rules)
        net = settle_classes(self.hand_class, other.hand_class, rules).net
        return (net > 0) - (net < 0)

    def __repr__(self) -> str:
        return f"evaluate({format_hand(self.hand)!r}, rules={self.rules!r})"

    def __str__(self) -> str:
        return f"{format_hand(self.hand)}: {self.hand_class}"  # strength: in --json only


HandEval = PokDengHand
"""The hand type by the name of the first releases."""


def _as_cards(
    hand: str | Sequence[str] | Sequence[int], sizes: Sequence[int] = (2, 3), copies: int = 1
) -> tuple[Card, ...]:
    return parse_hand(hand, size=sizes, copies=copies)


def _max_copies(srt: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The largest number of copies of one card in each sorted row."""
    out: npt.NDArray[np.int64] = (srt[:, :, None] == srt[:, None, :]).sum(axis=2).max(axis=1)
    return out


def _check_batch(cards: npt.ArrayLike, copies: int = 1) -> npt.NDArray[np.int64]:
    """Sorted card ids of a batch; a row may hold ``copies`` of a card (a shoe)."""
    arr = item_ids(cards, 52, (2, 3))  # exact ids or an error naming row and column
    srt = np.sort(arr, axis=1)
    dup = np.nonzero(_max_copies(srt) > copies)[0]
    if dup.size:
        row = [CARD_NAMES[c] for c in arr[dup[0]].tolist()]
        if copies == 1:
            raise ParseError(f"row {int(dup[0])}: duplicate card in hand {' '.join(row)!r}")
        check_copies(arr[dup[0]].tolist(), copies, f"row {int(dup[0])}: hand {' '.join(row)!r}")
    return srt


def evaluate_batch(
    cards: npt.ArrayLike, rules: RulesSpec = None, tables: str | os.PathLike[str] | None = None
) -> dict[str, npt.NDArray[np.int8]]:
    """Type, points, deng and strength of a batch: ``cards`` is (n, 2) or (n, 3) card ids.

    >>> out = evaluate_batch([[32, 34], [0, 4]], rules={"name": "demo"})
    >>> out["type"].tolist(), out["deng"].tolist()
    ([5, 0], [2, 2])
    """
    rs = _resolve(rules)
    srt = _check_batch(cards, rs.rules.decks)
    if rs.config is None:
        t, p, d = classify(srt, rs.rules)
        return {
            "type": t,
            "points": p,
            "deng": d,
            "strength": (10 * t.astype(np.int16) + p).astype(np.int8),
        }
    table = _table("pokdeng", tables, rs.config)
    rows = colex_rank_array(srt, presorted=True) + (N_TWO if srt.shape[1] == 3 else 0)
    cfg = rs.config
    return {
        "type": table.column(f"{cfg}_type")[rows],
        "points": table.column("points")[rows],
        "deng": table.column(f"{cfg}_deng")[rows],
        "strength": table.column(f"{cfg}_strength")[rows],
    }


def evaluate(
    hand: str | Sequence[str] | Sequence[int],
    rules: RulesSpec = None,
    tables: str | os.PathLike[str] | None = None,
) -> PokDengHand:
    """Evaluate one hand of 2 or 3 cards."""
    return evaluate_many([hand], rules, tables)[0]


def evaluate_many(
    hands: Sequence[str | Sequence[str] | Sequence[int]],
    rules: RulesSpec = None,
    tables: str | os.PathLike[str] | None = None,
) -> list[PokDengHand]:
    """Evaluate many hands of 2 or 3 cards, in order: one vectorised lookup per hand size.

    >>> [str(e) for e in evaluate_many(["9S 9D", "AC 4C 4D"], rules={"name": "demo"})]
    ['9S 9D: Pok 8, 2 deng', 'AC 4D 4C: Normal 9, 1 deng']
    """
    rs = _resolve(rules)
    parsed = [_as_cards(h, copies=rs.rules.decks) for h in hands]
    spec: RulesSpec = rs.rules if rs.config is None else rs.config
    out: list[PokDengHand | None] = [None] * len(parsed)
    for size in (2, 3):
        at = [i for i, c in enumerate(parsed) if len(c) == size]
        if not at:
            continue
        got = evaluate_batch(np.array([parsed[i] for i in at]), spec, tables)
        cols = {k: v.tolist() for k, v in got.items()}
        for j, i in enumerate(at):
            out[i] = PokDengHand(
                hand=parsed[i],
                type=HandType(cols["type"][j]),
                points=cols["points"][j],
                deng=cols["deng"][j],
                strength=cols["strength"][j],
                rules=rs.rules.name,
                ruleset=rs.rules,
            )
    return [e for e in out if e is not None]


# ---------------------------------------------------------------- compare / settle


def compare(
    player: str | Sequence[str] | Sequence[int],
    dealer: str | Sequence[str] | Sequence[int],
    rules: RulesSpec = None,
    tables: str | os.PathLike[str] | None = None,
) -> Showdown[PokDengHand]:
    """Who wins the player's hand against the dealer's, and why (see :func:`settle`);
    the dealer is the showdown's ``banker`` (also ``.dealer``), his win ``"dealer"``."""
    return settle(player, dealer, rules, tables).showdown


def settle(
    player: str | Sequence[str] | Sequence[int],
    dealer: str | Sequence[str] | Sequence[int],
    rules: RulesSpec = None,
    tables: str | os.PathLike[str] | None = None,
) -> Settlement[PokDengHand]:
    """Settle the player's hand against the dealer's (2 or 3 cards each, from one deck
    or one shoe of ``decks`` decks: no card more often than the shoe holds it); ``net``
    is the player's in stakes, ``banker_net`` the dealer's.

    >>> settle("3S 3H 3D", "JS QH KD", rules={"name": "demo"}).net
    2
    """
    rs = _resolve(rules)
    n = rs.rules.decks
    p_cards = _as_cards(player, copies=n)
    d_cards = _as_cards(dealer, copies=n)
    shared = sorted(set(p_cards) & set(d_cards))
    if shared and n == 1:
        raise ParseError(f"card {CARD_NAMES[shared[0]]} is in both hands (one deck)")
    check_copies([*p_cards, *d_cards], n, "the two hands")
    spec: RulesSpec = rs.rules if rs.config is None else rs.config
    p = evaluate(p_cards, spec, tables)
    d = evaluate(d_cards, spec, tables)
    s = settle_classes(p.hand_class, d.hand_class, rs.rules)
    show = Showdown(p, d, s.winner, s.reason, rs.rules.name)
    return Settlement(show, s.net, -s.net)


def settle_batch(
    player: npt.ArrayLike,
    dealer: npt.ArrayLike,
    rules: RulesSpec = None,
    tables: str | os.PathLike[str] | None = None,
) -> npt.NDArray[np.int64]:
    """The player's net for each row of two batches of hands (each (n, 2) or (n, 3)).

    >>> settle_batch([[32, 34]], [[0, 12, 13]], rules={"name": "demo"}).tolist()
    [2]
    """
    p_arr = item_ids(player, 52, (2, 3))  # exact ids, rows of one length, or one line
    d_arr = item_ids(dealer, 52, (2, 3))
    check_paired(len(p_arr), len(d_arr), ("player", "dealer"))
    rs = _resolve(rules)
    n = rs.rules.decks
    p_srt = _check_batch(p_arr, n)
    d_srt = _check_batch(d_arr, n)
    both = np.sort(np.concatenate([p_srt, d_srt], axis=1), axis=1)
    clash = np.nonzero(_max_copies(both) > n)[0]
    if clash.size and n == 1:
        raise ParseError(f"row {int(clash[0])}: a card is in both hands (one deck)")
    if clash.size:
        row = int(clash[0])
        check_copies(both[row].tolist(), n, f"row {row}: the two hands")
    spec: RulesSpec = rs.rules if rs.config is None else rs.config
    p = evaluate_batch(p_srt, spec, tables)
    d = evaluate_batch(d_srt, spec, tables)
    kinds = (two_card_kind(p_srt), two_card_kind(d_srt))
    return _settle_arrays(
        p["type"], p["points"], p["deng"], d["type"], d["points"], d["deng"], rs.rules, *kinds
    )


# ---------------------------------------------------------------- advise


@dataclass(frozen=True)
class Advice:
    """The best action for a two-card start with both exact EVs (player's net per stake);
    ``hand`` holds the start's card ids."""

    hand: tuple[Card, ...]
    type: HandType
    points: int
    deng: int
    action: str
    ev_stand: Fraction
    ev_draw: Fraction
    margin: Fraction
    dealer_draws_at_most: int
    rules: str

    @property
    def names(self) -> list[str]:
        return hand_names(self.hand)

    def __str__(self) -> str:
        head = f"{format_hand(self.hand)} ({HandClass(self.type, self.points, self.deng)})"
        tail = f"dealer draws on {self.dealer_draws_at_most} or less; rules {self.rules}"
        if self.action == "pok":
            return f"{head}: POK — no choice, EV {float(self.ev_stand):+.4f}; {tail}"
        other = "stand" if self.action == "draw" else "draw"
        ev = {"stand": self.ev_stand, "draw": self.ev_draw}
        return (
            f"{head}: {self.action.upper()} — EV {self.action} {float(ev[self.action]):.4f}"
            f", {other} {float(ev[other]):.4f} (margin {float(self.margin):.4f}); {tail}"
        )


def advise_batch(
    cards: npt.ArrayLike,
    dealer_draws_at_most: int | None = None,
    rules: RulesSpec = None,
    tables: str | os.PathLike[str] | None = None,
) -> dict[str, npt.NDArray[Any]]:
    """Action code (:class:`~solver.games.pokdeng.strategy.Action`) and exact EV numerators
    over ``den`` for a batch of two-card starts, shape (n, 2)."""
    rs = _resolve(rules)
    srt = _check_batch(cards, rs.rules.decks)
    if srt.shape[1] != 2:
        raise ParseError("advice is for two-card starts; a three-card hand has already drawn")
    k = _policy(rs, dealer_draws_at_most)
    if rs.rules.decks > 1:  # a shoe: multiset starts, their own denominator
        shoe = shoe_rule_solution(rs.rules, k, tables)
        mranks = multiset_rank_array(srt, presorted=True)
        return {
            "action": shoe.action[mranks],
            "ev_stand_num": shoe.ev_stand_num[mranks],
            "ev_draw_num": shoe.ev_draw_num[mranks],
            "den": np.full(len(mranks), shoe.den, dtype=np.int64),
        }
    ranks = colex_rank_array(srt, presorted=True)
    if rs.config is None or k not in POLICIES:
        sol = _solution(rs.rules, k, tables)
        stand, draw = sol.ev_stand_num[ranks], sol.ev_draw_num[ranks]
        action = sol.action[ranks]
    else:
        table = _table("pokdeng_strategy", tables, rs.config)
        rows = strategy_row(rs.config, k, 0) + ranks
        stand = table.column("ev_stand_num")[rows] * (
            DRAW_DEN // table.column("ev_stand_den")[rows]
        )
        draw = table.column("ev_draw_num")[rows] * (DRAW_DEN // table.column("ev_draw_den")[rows])
        action = table.column("action")[rows].astype(np.int8)
        check = table.column("rank")[rows]
        cfg = table.column("config")[rows]
        pol = table.column("dealer_draws_at_most")[rows]
        if (check != ranks).any() or (cfg != CONFIGS.index(rs.config)).any() or (pol != k).any():
            raise TableError(
                "table pokdeng_strategy rows are out of order; rebuild with "
                "`bull build --game pokdeng`"
            )
    return {
        "action": action,
        "ev_stand_num": stand,
        "ev_draw_num": draw,
        "den": np.full(len(ranks), DRAW_DEN, dtype=np.int64),
    }


def advise(
    hand: str | Sequence[str] | Sequence[int],
    dealer_draws_at_most: int | None = None,
    rules: RulesSpec = None,
    tables: str | os.PathLike[str] | None = None,
) -> Advice:
    """Stand or draw for a two-card start, with both exact EVs (RULES §5); from a shoe
    (``decks > 1``) the start may hold two identical cards."""
    rs = _resolve(rules)
    cards = parse_hand(hand, size=(2, 3), copies=rs.rules.decks)
    if len(cards) == 3:
        shown = " ".join(CARD_NAMES[c] for c in cards)
        raise ParseError(
            f"advise takes a two-card start; {shown!r} has 3 cards (a three-card "
            "hand has already drawn: no choice left)"
        )
    k = _policy(rs, dealer_draws_at_most)
    spec: RulesSpec = rs.rules if rs.config is None else rs.config
    out = advise_batch(np.array([cards]), k, spec, tables)
    ev = evaluate(cards, spec, tables)
    stand = Fraction(int(out["ev_stand_num"][0]), int(out["den"][0]))
    draw = Fraction(int(out["ev_draw_num"][0]), int(out["den"][0]))
    return Advice(
        hand=ev.hand,
        type=ev.type,
        points=ev.points,
        deng=ev.deng,
        action=Action(int(out["action"][0])).label,
        ev_stand=stand,
        ev_draw=draw,
        margin=abs(draw - stand),
        dealer_draws_at_most=k,
        rules=rs.rules.name,
    )


def overall(
    rules: RulesSpec = None,
    dealer_draws_at_most: int | None = None,
    tables: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """The player's overall EV under optimal drawing (``ev_optimal``) and under "draw on 4
    or less" (``ev_simple``), floats and exact ``*_fraction`` strings.

    >>> overall({"name": "demo"})["ev_simple_fraction"]   # the same policy as the dealer
    '0/1'
    """
    rs = _resolve(rules)
    k = _policy(rs, dealer_draws_at_most)
    if rs.rules.decks > 1:
        return shoe_rule_solution(rs.rules, k, tables).overall()
    if rs.config is None or k not in POLICIES:
        return overall_ev(_solution(rs.rules, k, tables))
    table = _table("pokdeng_strategy", tables, rs.config)
    try:
        rec = dict(table.meta["extra"]["overall_ev"][rs.config][str(k)])
    except (KeyError, TypeError):
        raise TableError(
            "table pokdeng_strategy lacks the overall EVs; rebuild with `bull build --game pokdeng`"
        ) from None
    return rec


# ---------------------------------------------------------------- the strategy chart


# ---------------------------------------------------------------- CLI contract

_OTHER_GAME_OPTIONS = {
    "bet": "--bet",
    "commission": "--commission",
    "banker_reveals": "--banker-reveals",
}
