"""Tau Ngau: bulls with the 3/6 choice, best plays per rule set, the decline decision,
and the table build (RULES §4).

A tile is worth its pips, except [2:1] and [4:2], each worth 3 or 6 at the holder's
choice. A hand's **choice** ``c`` (0..3) says which of them count 6: bit 0 for [2:1],
bit 1 for [4:2] (a bit for a tile not in the hand changes nothing). Under a choice, a
bull is three tiles totalling a multiple of 10 and the score is the last digit of the
five tiles' total.

Everything here is vectorised over hands: an ``(n, 5)`` array of tile ids, each row
sorted (canonical order). All 201,376 hands x 10 triples x 4 choices take well under
a second; the banker distributions use inclusion-exclusion over shared tiles.

>>> rules = load_rules("macau")
>>> from solver.core.tiles import parse_hand
>>> hand = np.array([parse_hand("[6:6][6:5][4:3][4:2][2:2]")])
>>> play = best_plays(analyse(hand), rules)
>>> int(play.points[0]), int(play.values[0]), int(play.bull_mask[0])
(10, 2, 28)
>>> play = best_plays(analyse(hand), load_rules("pagat"))
>>> int(play.points[0]), int(play.values[0]), int(play.bull_mask[0])
(7, 0, 28)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from math import comb
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from solver.core.errors import RulesError
from solver.core.indexing import all_subsets, colex_rank_array
from solver.core.tiles import NUM_TILES, TILE_TYPES, TYPE_OF_TILE, tile_id
from solver.games.taungau.rules import PRESETS, Decision, TauNgauRules, load_rules
from solver.store.tables import make_table

__all__ = [
    "BANKER_HANDS",
    "CHOICE_ORDER",
    "HAND_COUNT",
    "NONE",
    "TRIPLES",
    "WILD_TILES",
    "Analysis",
    "BestPlay",
    "analyse",
    "banker_distribution",
    "banker_distribution_direct",
    "best_plays",
    "build_tables",
    "choice_values",
    "decline_analysis",
    "evaluate_rows",
    "every_hand_analysis",
    "rule_set_columns",
    "rule_set_table",
    "settle",
    "settle_reason",
    "tile_value",
]

HAND_SIZE = 5
HAND_COUNT = comb(NUM_TILES, HAND_SIZE)
"""201,376 hands of five physical tiles."""
BANKER_HANDS = comb(NUM_TILES - HAND_SIZE, HAND_SIZE)
"""80,730 banker hands from the 27 tiles a player does not hold."""
NONE = 255
"""Sentinel in uint8 table columns for "does not exist" (no bull, no threshold)."""

WILD_TILES: tuple[int, int] = (tile_id(2, 1), tile_id(4, 2))
"""[2:1] and [4:2]: each worth 3 or 6. Choice bit 0 is [2:1], bit 1 is [4:2]."""
TRIPLES: tuple[tuple[int, int, int], ...] = tuple(combinations(range(HAND_SIZE), 3))
"""The ten bulls as positions in the sorted hand, in lexicographic order."""
CHOICE_ORDER: tuple[int, ...] = (0, 2, 1, 3)
"""Choices in canonical order: values of ([2:1], [4:2]) lexicographic, 3 before 6.
[2:1] (id 2) always sorts before [4:2] (id 11), so this is position order too."""
_TRIPLE_MASKS = np.array([sum(1 << p for p in t) for t in TRIPLES], dtype=np.uint8)
_REST = tuple(tuple(p for p in range(HAND_SIZE) if p not in t) for t in TRIPLES)
_STRENGTHS = 11  # 0 = no bull, 1..10 = bull scores from worst to best


def tile_value(tile: int, choice: int = 0) -> int:
    """Value of a tile under a choice: its pips, [2:1]/[4:2] as 3 or 6.

    >>> tile_value(tile_id(6, 6)), tile_value(tile_id(4, 2)), tile_value(tile_id(4, 2), 2)
    (12, 3, 6)
    """
    if tile == WILD_TILES[0]:
        return 6 if choice & 1 else 3
    if tile == WILD_TILES[1]:
        return 6 if choice & 2 else 3
    hi, lo = TILE_TYPES[TYPE_OF_TILE[tile]]
    return hi + lo


def choice_values() -> npt.NDArray[np.int8]:
    """``V[c, tile]`` = value of ``tile`` under choice ``c``, modulo 10 (shape (4, 32))."""
    return np.array(
        [[tile_value(t, c) % 10 for t in range(NUM_TILES)] for c in range(4)], dtype=np.int8
    )


_VALUES = choice_values()


# ---------------------------------------------------------------- rule sets


# ---------------------------------------------------------------- evaluation


@dataclass(frozen=True)
class Analysis:
    """Preset-free facts about sorted hands (arrays of length n).

    ``bull_ok[c, t]``: triple ``TRIPLES[t]`` is a bull under choice ``c``; ``digit[c]``:
    the last digit of the total under choice ``c``; ``reachable``: bit ``d`` set when
    some choice with some bull leaves last digit ``d``.
    """

    hands: npt.NDArray[np.uint8]
    bull_ok: npt.NDArray[np.bool_]
    digit: npt.NDArray[np.int8]
    exists: npt.NDArray[np.bool_]
    has_bull: npt.NDArray[np.bool_]
    reachable: npt.NDArray[np.uint16]
    wild_bits: npt.NDArray[np.uint8]


def analyse(hands: npt.ArrayLike) -> Analysis:
    """Every bull under every choice for an ``(n, 5)`` array of tile ids (rows are
    sorted here if they are not)."""
    h = np.sort(np.asarray(hands, dtype=np.uint8), axis=1)
    if h.ndim != 2 or h.shape[1] != HAND_SIZE:
        raise ValueError("hands must have shape (n, 5)")
    vals = _VALUES[:, h]  # (4, n, 5)
    digit = (vals.sum(axis=2, dtype=np.int16) % 10).astype(np.int8)
    bull_ok = np.stack(
        [(vals[:, :, i] + vals[:, :, j] + vals[:, :, k]) % 10 == 0 for i, j, k in TRIPLES],
        axis=1,
    )  # (4, 10, n)
    exists: npt.NDArray[np.bool_] = np.asarray(bull_ok.any(axis=1))  # (4, n)
    reach = np.zeros(h.shape[0], dtype=np.uint16)
    for c in range(4):
        reach |= np.where(exists[c], np.left_shift(1, digit[c].astype(np.uint16)), 0).astype(
            np.uint16
        )
    wild_bits = (h == WILD_TILES[0]).any(axis=1).astype(np.uint8) | (
        (h == WILD_TILES[1]).any(axis=1).astype(np.uint8) << 1
    )
    return Analysis(
        hands=h,
        bull_ok=bull_ok,
        digit=digit,
        exists=exists,
        has_bull=np.asarray(exists.any(axis=0)),
        reachable=reach,
        wild_bits=wild_bits,
    )


@dataclass(frozen=True)
class BestPlay:
    """The optimal (and canonical) play of each hand under one rule set.

    ``strength``: 0 no bull, 1..10 worst to best bull; ``points``: the score on the
    rule set's scale (no bull: 0 if a 0 counts as 10, else :data:`NONE`);
    ``bull_mask``: bit p set when sorted position p is in the bull (0: no bull);
    ``values``: bit 0 = [2:1] counts 6, bit 1 = [4:2] counts 6, only for tiles in the
    hand (:data:`NONE`: no bull); ``choice``: the choice taken (0 for no bull).
    """

    strength: npt.NDArray[np.uint8]
    points: npt.NDArray[np.uint8]
    bull_mask: npt.NDArray[np.uint8]
    values: npt.NDArray[np.uint8]
    choice: npt.NDArray[np.uint8]


def best_plays(a: Analysis, rules: TauNgauRules) -> BestPlay:
    """The best score, and the canonical bull reaching it: the first (triple of
    positions in lexicographic order, then choice with 3 before 6) that does."""
    strength_c = np.where(a.exists, rules.strength_of_digits(a.digit), 0).astype(np.uint8)
    best = strength_c.max(axis=0)
    ok = np.stack(
        [
            a.bull_ok[c, t] & (strength_c[c] == best)
            for t in range(len(TRIPLES))
            for c in CHOICE_ORDER
        ]
    )  # (40, n)
    first = ok.argmax(axis=0)
    has = best > 0
    order = np.array(CHOICE_ORDER, dtype=np.uint8)
    choice = np.where(has, order[first % 4], 0).astype(np.uint8)
    mask = np.where(has, _TRIPLE_MASKS[first // 4], 0).astype(np.uint8)
    values = np.where(has, choice & a.wild_bits, NONE).astype(np.uint8)
    points = best if rules.zero_counts_as == 10 else np.where(has, best - 1, NONE)
    return BestPlay(
        strength=best, points=points.astype(np.uint8), bull_mask=mask, values=values, choice=choice
    )


# ---------------------------------------------------------------- the banker's side


def _subset_positions(k: int) -> list[tuple[int, ...]]:
    return list(combinations(range(HAND_SIZE), k))


def banker_distribution(strength: npt.ArrayLike) -> npt.NDArray[np.int32]:
    """For every hand (colex order, all 201,376), how many of the 80,730 hands dealt
    from the other 27 tiles have each strength 0..10: shape (201376, 11).

    Inclusion-exclusion over the tiles the two hands would share: the hands disjoint
    from H number ``Σ_{S⊆H} (-1)^|S| · N(S)``, where ``N(S)`` counts the hands that
    contain the subset S. ``N`` per strength is one ``bincount`` over the colex ranks
    of every k-subset of every hand (k = 0..5): about 6 million increments in all,
    instead of 16 billion (player, banker) pairs. The array is read-only: the last few
    are kept for the next rule set with the same strengths.
    """
    s = np.asarray(strength).astype(np.int64)
    if s.shape != (HAND_COUNT,):
        raise ValueError(f"need one strength per hand ({HAND_COUNT}), got {s.shape}")
    # rule sets that rank the hands alike (a payout, a settlement apart) share it
    digest = hashlib.blake2b(s.tobytes(), digest_size=16).digest()
    got = _DISTRIBUTIONS.get(digest)
    if got is not None:
        return got
    hands = all_subsets(NUM_TILES, HAND_SIZE)
    dist = np.broadcast_to(
        np.bincount(s, minlength=_STRENGTHS).astype(np.int32), (HAND_COUNT, _STRENGTHS)
    ).copy()
    for k in range(1, HAND_SIZE + 1):
        positions = _subset_positions(k)
        ranks = [colex_rank_array(hands[:, list(p)], presorted=True) for p in positions]
        keys = np.concatenate([r * _STRENGTHS + s for r in ranks])
        counts = np.bincount(keys, minlength=comb(NUM_TILES, k) * _STRENGTHS)
        # every partial sum fits in int32 (at most 32 x 201,376)
        counts32 = counts.astype(np.int32).reshape(-1, _STRENGTHS)
        op = np.subtract if k % 2 else np.add
        for r in ranks:
            op(dist, counts32[r], out=dist)
    dist.flags.writeable = False
    if len(_DISTRIBUTIONS) >= 4:
        _DISTRIBUTIONS.pop(next(iter(_DISTRIBUTIONS)))
    _DISTRIBUTIONS[digest] = dist
    return dist


_DISTRIBUTIONS: dict[bytes, npt.NDArray[np.int32]] = {}
"""The last banker distributions made, by a digest of the strengths (read-only)."""


@lru_cache(maxsize=1)
def _rest_subsets() -> npt.NDArray[np.uint8]:
    return all_subsets(NUM_TILES - HAND_SIZE, HAND_SIZE)


def banker_distribution_direct(
    hand: npt.ArrayLike, strength: npt.ArrayLike
) -> npt.NDArray[np.int32]:
    """The banker distribution of one hand by enumerating its 80,730 banker hands
    (``strength``: every hand's strength in colex order). For rule files and checks."""
    held = set(int(t) for t in np.asarray(hand).ravel())
    rest = np.array([t for t in range(NUM_TILES) if t not in held], dtype=np.uint8)
    banker = rest[_rest_subsets()]
    ranks = colex_rank_array(banker, presorted=True)
    return np.bincount(np.asarray(strength)[ranks].astype(np.int64), minlength=_STRENGTHS).astype(
        np.int32
    )


def decline_analysis(
    strength: npt.NDArray[np.integer], dist: npt.NDArray[np.integer], rules: TauNgauRules
) -> dict[str, npt.NDArray[Any]]:
    """EVs (exact numerators over 80,730) and decisions under ``difference`` settlement.

    ``strength``: the player's best strength per hand; ``dist``: banker counts per
    strength, shape (n, 11). Declining (and holding no bull) pays
    :meth:`~TauNgauRules.no_bull_payment` of the banker's strength. Returns arrays
    ``ev_declare_num`` (no bull: the payment), ``ev_decline_num`` (paying as a hand
    without a bull), ``ev_first_num``, ``ev_last_num``, ``decision_last``
    (:class:`Decision`) and ``decline_at_least`` (lowest banker score at which declining
    is right when the banker reveals first; :data:`NONE` if none).
    """
    st = np.asarray(strength).astype(np.int64)
    d = np.asarray(dist).astype(np.int64)
    payoff = np.array([rules.payoff_value(s) for s in range(_STRENGTHS)], dtype=np.int64)
    pays = rules.no_bull_payments()[None, :]  # (1, 11): what declining costs per banker
    gain = payoff[st][:, None] - payoff[None, :]  # (n, 11): the player's net when declaring
    has = st > 0
    decline_total = -(d * pays).sum(axis=1)
    declare = np.where(has, (d * gain).sum(axis=1), decline_total)
    if rules.decline_allowed:
        first = np.where(has, (d * np.maximum(gain, -pays)).sum(axis=1), decline_total)
        decide = np.where(declare < decline_total, Decision.DECLINE, Decision.DECLARE)
        last = np.maximum(declare, decline_total)
        by_strength = [rules.decline_at_least(s) for s in range(_STRENGTHS)]
        table = np.array([NONE if b is None else b for b in by_strength], dtype=np.int64)
        at_least = table[st]
    else:
        decide = np.full(st.shape, Decision.DECLARE)
        last = declare
        first = declare
        at_least = np.full(st.shape, NONE)
    decide = np.where(has, decide, Decision.NO_BULL)
    return {
        "ev_declare_num": declare.astype(np.int32),
        "ev_decline_num": decline_total.astype(np.int32),
        "ev_first_num": first.astype(np.int32),
        "ev_last_num": last.astype(np.int32),
        "decision_last": decide.astype(np.uint8),
        "decline_at_least": at_least.astype(np.uint8),
    }


def settle(
    player_strength: int, banker_strength: int, rules: TauNgauRules, player_declines: bool = False
) -> tuple[int, int]:
    """``(player_net, banker_net)`` in stakes for one showdown (strength 0 = no bull).

    >>> macau = load_rules("macau")
    >>> settle(6, 0, macau), settle(6, 10, macau), settle(6, 6, macau), settle(1, 10, macau, True)
    ((6, -6), (-4, 4), (0, 0), (-4, 4))
    >>> settle(0, 0, macau), settle(1, 0, load_rules("pagat")), settle(0, 0, load_rules("pagat"))
    ((-4, 4), (1, -1), (0, 0))
    >>> fixed = TauNgauRules.from_data("fixed", macau.to_data() | {"no_bull_pays": "banker_score"})
    >>> settle(0, 7, fixed), settle(0, 0, fixed), settle(3, 7, fixed, True)
    ((-7, 7), (-4, 4), (-7, 7))
    """
    if player_declines and not rules.decline_allowed:
        raise RulesError(f"rule set {rules.name} does not allow declining a bull")
    p = 0 if player_declines else player_strength
    if rules.settlement == "difference":
        if p == 0:
            player = -rules.no_bull_payment(banker_strength)
            banker = -player
        else:
            player = rules.payoff_value(p) - rules.payoff_value(banker_strength)
            banker = rules.payoff_value(banker_strength) - rules.payoff_value(p)
        return player, banker
    # even money: strengths compare directly (no bull 0 < every bull)
    player = (p > banker_strength) - (p < banker_strength)
    banker = (banker_strength > p) - (banker_strength < p)
    return player, banker


# ---------------------------------------------------------------- rows and the table


def evaluate_rows(
    hands: npt.ArrayLike,
    rules: TauNgauRules,
    all_strength: npt.NDArray[np.integer] | None = None,
    with_banker: bool = True,
) -> dict[str, npt.NDArray[Any]]:
    """The per-rule-set table columns (unprefixed: ``points``, ``bull_mask``, …,
    ``banker_0``..``banker_10``, ``ev_*``) plus ``has_bull`` and ``reachable``,
    computed directly for the given hands. Banker columns appear for rule sets with
    a decline analysis; they need every hand's strength (``all_strength``; computed
    when not given) and enumerate each hand's 80,730 banker hands.
    """
    a = analyse(hands)
    play = best_plays(a, rules)
    out: dict[str, npt.NDArray[Any]] = {
        "has_bull": a.has_bull,
        "reachable": a.reachable,
        "points": play.points,
        "bull_mask": play.bull_mask,
        "values": play.values,
        "strength": play.strength,
    }
    if with_banker and rules.has_decline:
        if all_strength is None:
            all_strength = all_strengths(rules)
        dist = (
            np.stack([banker_distribution_direct(h, all_strength) for h in a.hands])
            if len(a.hands)
            else np.zeros((0, _STRENGTHS), dtype=np.int32)
        )
        out |= _banker_columns(play.strength, dist, rules)
    return out


def all_strengths(rules: TauNgauRules) -> npt.NDArray[np.uint8]:
    """Best strength of every hand (colex order) under ``rules``."""
    return _all_strengths_cached(json.dumps(rules.to_data(), sort_keys=True))


@lru_cache(maxsize=4)
def _all_strengths_cached(key: str) -> npt.NDArray[np.uint8]:
    data = json.loads(key)
    rules = TauNgauRules.from_data(data["name"], data)
    return best_plays(every_hand_analysis(), rules).strength


def _banker_columns(
    strength: npt.NDArray[np.integer], dist: npt.NDArray[np.int32], rules: TauNgauRules
) -> dict[str, npt.NDArray[Any]]:
    out: dict[str, npt.NDArray[Any]] = {
        f"banker_{k}": dist[:, k].astype(np.int32) for k in range(_STRENGTHS)
    }
    ev = decline_analysis(strength, dist, rules)
    out["ev_declare_num"] = ev["ev_declare_num"]
    out["ev_declare"] = ev["ev_declare_num"] / BANKER_HANDS
    out["decision_last"] = ev["decision_last"]
    out["ev_last_num"] = ev["ev_last_num"]
    out["ev_last"] = ev["ev_last_num"] / BANKER_HANDS
    out["decline_at_least"] = ev["decline_at_least"]
    out["ev_first_num"] = ev["ev_first_num"]
    out["ev_first"] = ev["ev_first_num"] / BANKER_HANDS
    return out


COLUMN_NOTES: dict[str, str] = {
    "t0..t4": "tile ids of the hand, sorted (row i is the hand of colex rank i); "
    "ids: 21 types by (high, low) ascending, civil types two consecutive ids",
    "has_bull": "some bull exists under some 3/6 choice",
    "reachable": "bit d set: some bull under some choice leaves last digit d (0..9)",
    "P_points": "best score on the preset's scale; no bull: 0 (macau) or 255 (pagat)",
    "P_strength": "0 no bull, 1..10 worst to best bull under the preset",
    "P_bull_mask": "bit p: sorted position p is in the canonical bull; 0 = no bull",
    "P_values": "bit 0: [2:1] counts 6, bit 1: [4:2] counts 6 (tiles in the hand only); "
    "255 = no bull",
    "P_banker_k": "banker hands (of 80,730 from the 27 other tiles) with strength k; "
    "under macau strength k is score k, 0 no bull",
    "P_ev_declare_num": "player's EV of declaring x 80,730 (exact); no bull: the payment",
    "P_ev_declare": "P_ev_declare_num / 80,730",
    "P_decision_last": "banker reveals last: 0 declare, 1 decline, 2 no bull",
    "P_ev_last": "EV of that decision (num: x 80,730); declining is -4",
    "P_decline_at_least": "banker reveals first: lowest banker score at which declining "
    "is right (p + 5); 255 = none (p > 5 or no bull)",
    "P_ev_first": "EV when the banker reveals first and the player declines at "
    "P_decline_at_least or above (num: x 80,730)",
}


def rule_set_columns(a: Analysis, rules: TauNgauRules) -> dict[str, npt.NDArray[Any]]:
    """The unprefixed table columns of one rule set for the hands of ``a`` (every hand,
    colex order: the banker distributions need them all)."""
    play = best_plays(a, rules)
    cols: dict[str, npt.NDArray[Any]] = {
        "points": play.points,
        "strength": play.strength,
        "bull_mask": play.bull_mask,
        "values": play.values,
    }
    if rules.has_decline:
        dist = banker_distribution(play.strength)
        if not np.all(dist.sum(axis=1) == BANKER_HANDS):
            raise AssertionError("banker distribution does not sum to 80,730")
        cols |= _banker_columns(play.strength, dist, rules)
    return cols


_EXTRA = {
    "columns": COLUMN_NOTES,
    "sentinel": NONE,
    "hand_size": HAND_SIZE,
    "banker_hands": BANKER_HANDS,
    "canonical_bull": "sort the hand canonically; first optimal (triple of "
    "positions in lexicographic order, then 3/6 values of "
    "([2:1], [4:2]) lexicographic with 3 before 6)",
}


def _hand_columns(a: Analysis) -> dict[str, npt.ArrayLike]:
    columns: dict[str, npt.ArrayLike] = {f"t{i}": a.hands[:, i] for i in range(HAND_SIZE)}
    columns["has_bull"] = a.has_bull
    columns["reachable"] = a.reachable
    return columns


@lru_cache(maxsize=1)
def every_hand_analysis() -> Analysis:
    """:func:`analyse` of every hand in colex order, made once (it is rule-free: every
    rule set's table starts from it); its arrays are read-only."""
    a = analyse(all_subsets(NUM_TILES, HAND_SIZE))
    for value in vars(a).values():
        value.flags.writeable = False
    return a


def build_tables() -> dict[str, pa.Table]:
    """The ``taungau`` table: every 5-tile hand, colex order, both presets."""
    a = every_hand_analysis()
    columns = _hand_columns(a)
    rules_meta: dict[str, Any] = {}
    for preset in PRESETS:
        rules = load_rules(preset)
        rules_meta[preset] = rules.to_data()
        cols = rule_set_columns(a, rules)
        columns |= {f"{preset}_{k}": v for k, v in cols.items()}
    return {"taungau": make_table("taungau", columns, rules=rules_meta, extra=_EXTRA)}


def rule_set_table(rules: TauNgauRules) -> pa.Table:
    """The ``taungau`` table of one rule set that is not a preset (a user's rule file):
    every hand in colex order, its columns unprefixed (``points``, ``banker_0`` …),
    built by :func:`solver.store.custom.rule_table` on first use."""
    a = every_hand_analysis()
    columns = _hand_columns(a) | rule_set_columns(a, rules)
    extra = _EXTRA | {"prefix": "none: one rule set, columns unprefixed"}
    return make_table("taungau", columns, rules={rules.name: rules.to_data()}, extra=extra)


def settle_reason(rec: Mapping[str, Any], settlement: str) -> str:
    """Why the showdown settled as it did, in the rule set's terms.

    >>> side = {"has_bull": True, "points": 6}
    >>> settle_reason({"player": side, "banker": {**side, "points": 2}, "net": 4}, "difference")
    'player 6 vs banker 2: the banker pays the difference, 4'
    """
    p, b, net = rec["player"], rec["banker"], rec["net"]
    pb, bb = p["has_bull"], b["has_bull"]
    ps = f"player {p['points']}" if pb else "player no bull"
    bs = f"banker {b['points']}" if bb else "banker no bull"
    if settlement == "even_money":
        if pb and bb:
            if p["points"] == b["points"]:
                return f"{ps} vs {bs}: equal scores push"
            return f"{ps} vs {bs}: the higher score wins 1"
        if pb or bb:
            return f"{ps} vs {bs}: only the {'player' if pb else 'banker'} has a bull, wins 1"
        return "neither has a bull: push"
    if not pb:
        return f"{ps} vs {bs}: the player has no bull and pays {-net}"
    if p.get("declines"):
        return f"{ps} vs {bs}: the player declines his bull and pays {-net} instead"
    if net > 0:
        return f"{ps} vs {bs}: the banker pays the difference, {net}"
    if net < 0:
        return f"{ps} vs {bs}: the player pays the difference, {-net}"
    return f"{ps} vs {bs}: equal scores, nobody pays"
