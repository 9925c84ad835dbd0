"""The exact Pok Deng drawing strategy (RULES.md §5) and the two Pok Deng tables.

For a two-card start P the definition is heads-up: the dealer's two cards D come from
the 50 unseen cards, then the player's draw x from the 48 left, then the dealer's draw c.
(D, x, c) is a uniformly random *ordered* selection of three distinct unseen cards, so

* EV(stand | P)  = E over (D, c) from the 50 of settle(P, dealer's final hand),
* EV(draw | P)   = mean over the 50 unseen x of E over (D, c) from the other 49 of
  settle(P + x, dealer's final hand).

Settlement depends on the dealer's final hand only through its class (type, points,
deng), so for each final player hand H it is enough to know how many ordered (D, c)
avoiding H's cards give each dealer class. Those counts come for every H at once by
inclusion-exclusion over the cards of H: all (D, c) - those holding a card of H + those
holding a pair of H - those holding all three, from per-card, per-pair and per-triple
count arrays built from the 66,300 ordered (D, c) of the full deck. Everything is
integer, so every EV is an exact fraction; the common denominator is
``DRAW_DEN = 1225 · 48 · 47 = 2,763,600`` (stand EVs are multiples of 47 of it).

A Pok on either side settles with two cards. A dealer Pok beats every non-Pok player
hand and pays its own deng whether the player stood or drew, so ``dealer_pok_first``
does not change any EV heads-up; :func:`solve` honours the option anyway (the tests show
both give the same numbers). A Pok start has no choice: action ``pok``, both EVs equal.
On an exact tie between drawing and standing the action is ``stand`` (margin 0).

>>> s = solve(load_rules())
>>> s.action_of(parse_hand("7H 5D")).label, float(s.ev_draw(parse_hand("7H 5D"))) > -1
('draw', True)
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import IntEnum
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from solver.core.cards import Card
from solver.core.errors import RulesError
from solver.core.indexing import colex_rank, colex_rank_array
from solver.games.pokdeng.hands import (
    N_THREE,
    N_TWO,
    all_hands,
    classify_all,
    parse_hand,
    settle,
    two_card_kind,
)
from solver.games.pokdeng.rules import HandType, PokDengRules, load_rules
from solver.store.tables import make_table

__all__ = [
    "CONFIGS",
    "DRAW_DEN",
    "POLICIES",
    "STAND_DEN",
    "Action",
    "Solution",
    "best_actions",
    "build_tables",
    "config_rules",
    "hands_table",
    "overall_ev",
    "solution_columns",
    "solve",
    "strategy_extra",
    "strategy_row",
    "strategy_table",
]

POLICIES: tuple[int, ...] = (3, 4, 5)
"""Dealer policies in the table: the dealer draws on a total of k or less."""
CONFIGS: tuple[str, ...] = ("standard", "straights", "straights_low", "straights_high")
"""Rule configurations in the tables, in row-block order."""
STAND_DEN = 1225 * 48
"""Ordered (dealer hand, dealer draw) from the 50 unseen cards: 58,800."""
DRAW_DEN = 1225 * 48 * 47
"""Ordered (dealer hand, player draw, dealer draw): 2,763,600 (common denominator)."""
NO_CARD = 255
"""Sentinel in ``card2`` of a two-card hand (tables have no nulls)."""


class Action(IntEnum):
    """The best action for a start."""

    STAND = 0
    DRAW = 1
    POK = 2

    @property
    def label(self) -> str:
        return self.name.lower()

    def __repr__(self) -> str:
        return f"Action.{self.name}"


def config_rules(name: str) -> PokDengRules:
    """The full rules of a table configuration: the presets ``standard`` and
    ``straights`` (ace both), and ``straights_low`` / ``straights_high`` — the
    ``straights`` preset with the ace only low (A-2-3) or only high (Q-K-A).

    >>> config_rules("straights_high").ace
    'high'
    """
    if name in ("standard", "straights"):
        return load_rules(name)
    if name in ("straights_low", "straights_high"):
        ace = name.rsplit("_", 1)[1]
        base = load_rules("straights")
        return replace(
            base,
            name=name,
            ace=ace,
            description=f"The straights preset with the ace {ace} only "
            f"({'A-2-3' if ace == 'low' else 'Q-K-A'}; never K-A-2)",
        )
    raise KeyError(name)


# ---------------------------------------------------------------- index geometry


@dataclass(frozen=True)
class _Geometry:
    pair_of_dc: npt.NDArray[np.int64]  # (66300,) colex rank of D
    cards_dc: npt.NDArray[np.int64]  # (66300, 3) the cards D0, D1, c
    pairs_dc: npt.NDArray[np.int64]  # (66300, 3) ranks of the 3 pairs of D + {c}
    triple_dc: npt.NDArray[np.int64]  # (66300,) colex rank of D + {c}
    pairs3: npt.NDArray[np.int64]  # (22100, 3) ranks of the pairs of each triple
    draw_triple: npt.NDArray[np.int64]  # (1326, 50) rank of P + {x} for each unseen x


@lru_cache(maxsize=1)
def _geometry() -> _Geometry:
    two = all_hands(2).astype(np.int64)
    three = all_hands(3).astype(np.int64)
    deck = np.arange(52, dtype=np.int64)
    others = np.broadcast_to(deck, (N_TWO, 52))
    keep = (others != two[:, :1]) & (others != two[:, 1:])
    unseen = others[keep].reshape(N_TWO, 50)  # the 50 cards not in P
    pair_of_dc = np.repeat(np.arange(N_TWO, dtype=np.int64), 50)
    d0 = np.repeat(two[:, 0], 50)
    d1 = np.repeat(two[:, 1], 50)
    c = unseen.reshape(-1)
    cards_dc = np.stack([d0, d1, c], axis=1)
    pairs_dc = np.stack(
        [
            pair_of_dc,
            colex_rank_array(np.stack([d0, c], 1)),
            colex_rank_array(np.stack([d1, c], 1)),
        ],
        axis=1,
    ).astype(np.int64)
    triple_dc = colex_rank_array(cards_dc).astype(np.int64)
    pairs3 = np.stack(
        [
            colex_rank_array(three[:, [0, 1]], presorted=True),
            colex_rank_array(three[:, [0, 2]], presorted=True),
            colex_rank_array(three[:, [1, 2]], presorted=True),
        ],
        axis=1,
    ).astype(np.int64)
    draw_triple = triple_dc.reshape(N_TWO, 50)  # P + {x}: same shape
    return _Geometry(pair_of_dc, cards_dc, pairs_dc, triple_dc, pairs3, draw_triple)


def _code(
    t: npt.NDArray[Any], p: npt.NDArray[Any], d: npt.NDArray[Any], k: npt.NDArray[Any]
) -> npt.NDArray[np.int64]:
    """One integer per class (type, points, deng, kind): deng <= 9, kind <= 3."""
    out: npt.NDArray[np.int64] = ((t.astype(np.int64) * 10 + p) * 10 + d) * 4 + k
    return out


# ---------------------------------------------------------------- the solution


def best_actions(
    kind: npt.NDArray[np.int8], ev_stand: npt.NDArray[np.int64], ev_draw: npt.NDArray[np.int64]
) -> npt.NDArray[np.int8]:
    """The :class:`Action` per start from both EV numerators (a tie stands; a Pok start
    has no choice), for one deck's solution and a shoe's alike."""
    out = np.where(ev_draw > ev_stand, Action.DRAW, Action.STAND)
    out = np.where(kind == HandType.POK, Action.POK, out)
    return out.astype(np.int8)


@dataclass(frozen=True)
class Solution:
    """The exact strategy for every start under one rule set and dealer policy.

    Arrays are indexed by the start's colex rank (0..1325). EV numerators are over
    :data:`DRAW_DEN` (``ev_stand_num`` is always a multiple of 47).
    """

    rules: PokDengRules
    dealer_draws_at_most: int
    type: npt.NDArray[np.int8]
    points: npt.NDArray[np.int8]
    deng: npt.NDArray[np.int8]
    ev_stand_num: npt.NDArray[np.int64]
    ev_draw_num: npt.NDArray[np.int64]

    @property
    def action(self) -> npt.NDArray[np.int8]:
        """:class:`Action` code per start (ties go to stand)."""
        return best_actions(self.type, self.ev_stand_num, self.ev_draw_num)

    @property
    def margin_num(self) -> npt.NDArray[np.int64]:
        """|EV(draw) - EV(stand)| numerators over :data:`DRAW_DEN`."""
        out: npt.NDArray[np.int64] = np.abs(self.ev_draw_num - self.ev_stand_num)
        return out

    def _rank(self, cards: Sequence[Card]) -> int:
        return colex_rank(sorted(cards))

    def ev_stand(self, cards: Sequence[Card]) -> Fraction:
        return Fraction(int(self.ev_stand_num[self._rank(cards)]), DRAW_DEN)

    def ev_draw(self, cards: Sequence[Card]) -> Fraction:
        return Fraction(int(self.ev_draw_num[self._rank(cards)]), DRAW_DEN)

    def action_of(self, cards: Sequence[Card]) -> Action:
        return Action(int(self.action[self._rank(cards)]))

    def overall(self) -> dict[str, Any]:
        """The player's EV over all 1,326 starts under optimal play and under the simple
        "draw on 4 or less" (exact fractions and floats)."""
        return overall_ev(self)


def solve(rules: PokDengRules, dealer_draws_at_most: int | None = None) -> Solution:
    """Exact EVs of standing and drawing for every two-card start (see the module text).

    ``dealer_draws_at_most`` defaults to the rules' own policy. One deck only: a shoe
    (``rules.decks > 1``) is :func:`solver.games.pokdeng.shoe.solve_shoe`'s.
    """
    if rules.decks != 1:
        raise RulesError(
            f"rule set {rules.name}: decks = {rules.decks}; the one-deck solver takes one "
            "deck (use solver.games.pokdeng.shoe.solve_shoe)"
        )
    k = rules.dealer_draws_at_most if dealer_draws_at_most is None else dealer_draws_at_most
    g = _geometry()
    cls = classify_all(rules)
    t2, p2, d2 = cls[2]
    t3, p3, d3 = cls[3]
    # the two-card kind matters only under a house order (else all kinds are one class)
    k2 = two_card_kind(all_hands(2)) if rules.two_card_order else np.zeros(N_TWO, np.int8)
    k3 = np.zeros(N_THREE, dtype=np.int8)  # Kind.THREE_CARDS
    code2 = _code(t2, p2, d2, k2)
    code3 = _code(t3, p3, d3, k3)
    # the dealer's final class for each ordered (D, c) of the full deck
    dealer_draws = (t2 != HandType.POK) & (p2 <= k)
    final = np.where(dealer_draws[g.pair_of_dc], code3[g.triple_dc], code2[g.pair_of_dc])
    classes, inv = np.unique(final, return_inverse=True)
    inv = inv.reshape(-1)
    n_cls = len(classes)
    ck = (classes % 4).astype(np.int8)
    ct = (classes // 400).astype(np.int8)
    cp = ((classes // 40) % 10).astype(np.int8)
    cd = ((classes // 4) % 10).astype(np.int8)
    # inclusion-exclusion count arrays
    total = np.bincount(inv, minlength=n_cls)
    card_flat = np.zeros(52 * n_cls, dtype=np.int64)
    pair_flat = np.zeros(N_TWO * n_cls, dtype=np.int64)
    for j in range(3):
        card_flat += np.bincount(g.cards_dc[:, j] * n_cls + inv, minlength=52 * n_cls)
        pair_flat += np.bincount(g.pairs_dc[:, j] * n_cls + inv, minlength=N_TWO * n_cls)
    per_triple = np.bincount(g.triple_dc * n_cls + inv, minlength=N_THREE * n_cls).reshape(
        N_THREE, n_cls
    )
    per_card = card_flat.reshape(52, n_cls)
    per_pair = pair_flat.reshape(N_TWO, n_cls)
    two = all_hands(2)
    three = all_hands(3)
    # dealer class counts avoiding each two-card start / each three-card final hand
    n2 = total - per_card[two[:, 0]] - per_card[two[:, 1]] + per_pair
    n3 = (
        total
        - per_card[three[:, 0]]
        - per_card[three[:, 1]]
        - per_card[three[:, 2]]
        + per_pair[g.pairs3[:, 0]]
        + per_pair[g.pairs3[:, 1]]
        + per_pair[g.pairs3[:, 2]]
        - per_triple
    )
    assert (n2.sum(axis=1) == STAND_DEN).all() and (n3.sum(axis=1) == 1176 * 47).all()
    dealer = (ct[None], cp[None], cd[None])
    s2 = settle(t2[:, None], p2[:, None], d2[:, None], *dealer, rules, k2[:, None], ck[None])
    s3 = settle(t3[:, None], p3[:, None], d3[:, None], *dealer, rules, k3[:, None], ck[None])
    dealer_pok = ct == HandType.POK
    stand = (n2 * s2).sum(axis=1)  # over STAND_DEN
    if rules.dealer_pok_first:
        # a dealer Pok settles against the player's two cards before any draw
        final3 = (n3 * s3 * ~dealer_pok).sum(axis=1)
        draw = final3[g.draw_triple].sum(axis=1) + (n2 * s2 * dealer_pok).sum(axis=1) * 47
    else:
        draw = (n3 * s3).sum(axis=1)[g.draw_triple].sum(axis=1)
    stand = stand * 47  # over DRAW_DEN
    pok = t2 == HandType.POK
    draw = np.where(pok, stand, draw)  # a Pok has no choice
    return Solution(
        rules=rules.with_policy(k),
        dealer_draws_at_most=k,
        type=t2,
        points=p2,
        deng=d2,
        ev_stand_num=stand.astype(np.int64),
        ev_draw_num=draw.astype(np.int64),
    )


def _fraction_text(f: Fraction) -> str:
    return f"{f.numerator}/{f.denominator}"


def overall_ev(sol: Solution) -> dict[str, Any]:
    """Overall player EV per stake, all 1,326 starts equally likely.

    ``ev_optimal``: the best action for every start; ``ev_simple``: draw on 4 or less.
    """
    best = np.maximum(sol.ev_stand_num, sol.ev_draw_num)
    simple_draws = (sol.type != HandType.POK) & (sol.points <= 4)
    simple = np.where(simple_draws, sol.ev_draw_num, sol.ev_stand_num)
    den = N_TWO * DRAW_DEN
    opt_f = Fraction(int(best.sum()), den)
    simple_f = Fraction(int(simple.sum()), den)
    return {
        "rules": sol.rules.name,
        "dealer_draws_at_most": sol.dealer_draws_at_most,
        "ev_optimal": float(opt_f),
        "ev_optimal_fraction": _fraction_text(opt_f),
        "ev_simple": float(simple_f),
        "ev_simple_fraction": _fraction_text(simple_f),
    }


# ---------------------------------------------------------------- the tables


def hands_table() -> pa.Table:
    """``pokdeng``: all 1,326 two-card hands (rows 0..1325, by colex rank) then all
    22,100 three-card hands (row 1326 + colex rank), with type, deng and strength per
    rule configuration."""
    two = all_hands(2)
    three = all_hands(3)
    n = N_TWO + N_THREE
    cards = np.full((n, 3), NO_CARD, dtype=np.uint8)
    cards[:N_TWO, :2] = two
    cards[N_TWO:] = three
    columns: dict[str, Any] = {
        "size": np.r_[np.full(N_TWO, 2), np.full(N_THREE, 3)].astype(np.uint8),
        "rank": np.r_[np.arange(N_TWO), np.arange(N_THREE)].astype(np.int32),
        "card0": cards[:, 0],
        "card1": cards[:, 1],
        "card2": cards[:, 2],
    }
    rules = {}
    for cfg in CONFIGS:
        r = config_rules(cfg)
        rules[cfg] = r.to_data()
        cls = classify_all(r)
        t = np.r_[cls[2][0], cls[3][0]]
        p = np.r_[cls[2][1], cls[3][1]]
        d = np.r_[cls[2][2], cls[3][2]]
        if "points" not in columns:
            columns["points"] = p
        columns[f"{cfg}_type"] = t
        columns[f"{cfg}_deng"] = d
        columns[f"{cfg}_strength"] = (10 * t.astype(np.int16) + p).astype(np.int8)
    extra = {
        "columns": {
            "size": "uint8: 2 or 3 cards",
            "rank": "int32: colex rank of the sorted card ids among hands of this size",
            "card0, card1, card2": "uint8 card ids, rank*4+suit (rank 0=A..12=K, suit "
            f"0..3=S,H,D,C), ascending; card2 = {NO_CARD} for two cards",
            "points": "int8: last digit of the card values (A=1, 2..9, 10/J/Q/K=0)",
            "<config>_type": "int8: hand type code (type_codes), ordered low to high",
            "<config>_deng": "int8: payout multiplier",
            "<config>_strength": "int8: 10 * type + points",
        },
        "configs": list(CONFIGS),
        "row_order": "rows 0..1325: two-card hands by colex rank; rows 1326..23425: "
        "three-card hands, row = 1326 + colex rank",
        "card2": f"{NO_CARD} for a two-card hand (no third card)",
        "type_codes": {str(int(t)): t.label for t in HandType},
        "strength": "10 * type + points: orders hands by type, then points; equal "
        "strength is settled by deng",
        "points": "the same under every configuration",
    }
    return make_table("pokdeng", columns, rules=rules, extra=extra)


def strategy_row(config: str, dealer_draws_at_most: int, rank: int) -> int:
    """Row of ``pokdeng_strategy`` for a configuration, policy and start colex rank.

    >>> strategy_row("standard", 3, 0), strategy_row("straights", 4, 5)
    (0, 5309)
    """
    return (
        CONFIGS.index(config) * len(POLICIES) + POLICIES.index(dealer_draws_at_most)
    ) * N_TWO + rank


_STRATEGY_COLUMNS = (
    "config",
    "dealer_draws_at_most",
    "rank",
    "card0",
    "card1",
    "type",
    "points",
    "deng",
    "action",
    "ev_stand",
    "ev_draw",
    "margin",
    "ev_stand_num",
    "ev_stand_den",
    "ev_draw_num",
    "ev_draw_den",
    "margin_num",
    "margin_den",
)


def solution_columns(sol: Solution, config: int) -> dict[str, npt.NDArray[Any]]:
    """The 1,326 rows of one solution (configuration index ``config``)."""
    two = all_hands(2)
    cols: dict[str, npt.NDArray[Any]] = {
        "config": np.full(N_TWO, config, dtype=np.int8),
        "dealer_draws_at_most": np.full(N_TWO, sol.dealer_draws_at_most, dtype=np.int8),
        "rank": np.arange(N_TWO, dtype=np.int16),
        "card0": two[:, 0],
        "card1": two[:, 1],
        "type": sol.type,
        "points": sol.points,
        "deng": sol.deng,
        "action": sol.action,
        "ev_stand": sol.ev_stand_num / DRAW_DEN,
        "ev_draw": sol.ev_draw_num / DRAW_DEN,
        "margin": sol.margin_num / DRAW_DEN,
    }
    for key, num in (
        ("ev_stand", sol.ev_stand_num),
        ("ev_draw", sol.ev_draw_num),
        ("margin", sol.margin_num),
    ):
        cols[f"{key}_num"], cols[f"{key}_den"] = _reduce(num)
    return cols


def strategy_extra(configs: list[str], policies: list[int], overall: Any) -> dict[str, Any]:
    return {
        "columns": {
            "config": "int8: index into configs (full rule content in bull.rules)",
            "dealer_draws_at_most": "int8: the dealer draws on a two-card total <= this",
            "rank": "int16: colex rank of the two-card start",
            "card0, card1": "uint8 card ids (rank*4+suit), ascending",
            "type, points, deng": "int8: the start's type code (type_codes), points, deng",
            "action": "int8: action code (action_codes)",
            "ev_stand, ev_draw, margin": "float64: player's EV per stake; margin = "
            "|ev_draw - ev_stand|",
            "*_num, *_den": "int64: the same values as exact fractions in lowest terms",
        },
        "configs": configs,
        "policies": policies,
        "row_order": "row = (config index * 3 + policy index) * 1326 + colex rank of the "
        "start; configs and policies in the orders listed here",
        "definition": "RULES.md §5: heads-up, dealer's two cards averaged over the 50 unseen "
        "cards (dealer Pok included), then the player's draw (48 left) and the "
        "dealer's (47 left); exact card removal",
        "dealer_draws_at_most": "the dealer draws on this two-card total or less; this column "
        "overrides the rule set's default",
        "dealer_pok_first": "does not change any EV heads-up (a non-Pok player pays the "
        "dealer's deng either way); the table uses the rule set's value",
        "action": "stand, draw, or pok (a Pok start has no choice; both EVs equal); on an "
        "exact tie the action is stand",
        "strings": "none: every column is numeric (codes listed here)",
        "fractions": "ev_*_num / ev_*_den are the exact EVs in lowest terms; margin = "
        "|ev_draw - ev_stand|",
        "type_codes": {str(int(t)): t.label for t in HandType},
        "action_codes": {str(int(a)): a.label for a in Action},
        "overall_ev": overall,
    }


def strategy_table(log: Any = None) -> tuple[pa.Table, dict[str, float]]:
    """``pokdeng_strategy``: every start x configuration x policy (row order:
    :func:`strategy_row`). Returns the table and timings."""
    cols: dict[str, list[Any]] = {k: [] for k in _STRATEGY_COLUMNS}
    overall: dict[str, dict[str, Any]] = {}
    rules = {}
    t0 = time.perf_counter()
    for cfg in CONFIGS:
        r = config_rules(cfg)
        rules[cfg] = r.to_data()
        overall[cfg] = {}
        for k in POLICIES:
            sol = solve(r, k)
            overall[cfg][str(k)] = overall_ev(sol)
            for key, v in solution_columns(sol, CONFIGS.index(cfg)).items():
                cols[key].append(v)
    solve_seconds = time.perf_counter() - t0
    columns = {k: np.concatenate(v) for k, v in cols.items()}
    extra = strategy_extra(list(CONFIGS), list(POLICIES), overall)
    if log:
        log(f"pokdeng strategy: {len(CONFIGS) * len(POLICIES)} solves in {solve_seconds:.2f} s")
    return make_table("pokdeng_strategy", columns, rules=rules, extra=extra), {
        "solve_seconds": solve_seconds
    }


def _reduce(num: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    g = np.gcd(num, DRAW_DEN)
    return (num // g).astype(np.int64), (DRAW_DEN // g).astype(np.int64)


def build_tables() -> dict[str, pa.Table]:
    """Both Pok Deng tables (``solver.build.BUILDERS['pokdeng']``)."""
    strategy, _ = strategy_table()
    return {"pokdeng": hands_table(), "pokdeng_strategy": strategy}


if __name__ == "__main__":  # pragma: no cover - a quick timing run
    t = time.perf_counter()
    tables = build_tables()
    print({k: v.num_rows for k, v in tables.items()}, f"{time.perf_counter() - t:.2f} s")
    print(parse_hand("7H 5D"))
