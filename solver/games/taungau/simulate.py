"""A seeded Monte Carlo simulator of Tau Ngau rounds, an independent check of the exact
figures: its small evaluator is written from RULES.md and shares no code with
:mod:`solver.games.taungau.hands`."""

from __future__ import annotations

from typing import Any

import numpy as np

from solver.core.errors import BullError
from solver.kit.simulation import Arr, SimResult, check_round, deal, summarise

__all__ = ["simulate_taungau", "taungau_hands"]

_CIVIL = {(6, 6), (1, 1), (4, 4), (3, 1), (5, 5), (3, 3), (2, 2), (6, 5), (6, 4), (6, 1), (5, 1)}
_TILES = [
    (hi, lo)
    for hi in range(1, 7)
    for lo in range(1, hi + 1)
    for _ in range(2 if (hi, lo) in _CIVIL else 1)
]
_PIPS = np.array([hi + lo for hi, lo in _TILES], dtype=np.int64)
_WILD_A = np.array([t == (2, 1) for t in _TILES])  # [2:1]: 3 or 6
_WILD_B = np.array([t == (4, 2) for t in _TILES])  # [4:2]: 3 or 6


def taungau_hands(tiles: Arr, rules: Any) -> Arr:
    """Best strength of hands of tile indexes into this module's 32-tile list (shape
    (n, 5)), written from RULES §4: 0 no bull, 1..10 worst to best bull. Under
    ``zero_counts_as = 10`` strength = score (a 0 is 10); else strength = score + 1.

    >>> t = [_TILES.index(x) for x in [(6, 6), (6, 5), (4, 3), (4, 2), (2, 2)]]
    >>> taungau_hands(np.array([t]), _tn_rules("macau")).tolist()   # 0 with [4:2] = 6
    [10]
    >>> taungau_hands(np.array([t]), _tn_rules("pagat")).tolist()   # 7 with [4:2] = 3
    [8]
    """
    t = np.asarray(tiles, dtype=np.int64)
    best = np.zeros(len(t), dtype=np.int64)
    for a6 in (False, True):
        for b6 in (False, True):
            v = _PIPS[t] % 10
            v = np.where(_WILD_A[t], 6 if a6 else 3, v)
            v = np.where(_WILD_B[t], 6 if b6 else 3, v)
            total = v.sum(axis=1)
            bull = np.zeros(len(t), dtype=bool)
            for i in range(5):
                for j in range(i + 1, 5):
                    bull |= (v[:, i] + v[:, j] - total) % 10 == 0
            digit = total % 10
            zero_best = rules.zero_counts_as == 10
            strength = np.where(digit == 0, 10, digit) if zero_best else digit + 1
            best = np.maximum(best, np.where(bull, strength, 0))
    return best


def _tn_rules(spec: Any) -> Any:
    from solver.games.taungau.rules import TauNgauRules, load_rules

    return spec if isinstance(spec, TauNgauRules) else load_rules(spec)


def simulate_taungau(
    rules: Any = None,
    policy: str = "declare",
    rounds: int = 100_000,
    players: int = 4,
    seed: int = 0,
    confidence: float = 0.999,
    batch: int = 50_000,
) -> SimResult:
    """The player's net per stake. ``policy``: ``declare`` (always set a bull aside) or
    ``first`` (the banker shows first; decline when the bull would lose more than
    declining costs)."""
    check_round(rounds, players)
    r = _tn_rules(rules)
    if policy not in ("declare", "first"):
        raise BullError(f"unknown Tau Ngau policy {policy!r} (declare or first)")
    if policy == "first" and not r.decline_allowed:
        raise BullError(f"rule set {r.name} does not allow declining")
    rng = np.random.default_rng(seed)
    out = []

    def score(strength: Arr) -> Arr:  # the number settled, 0 no bull
        return strength if r.zero_counts_as == 10 else np.maximum(strength - 1, 0)

    for start in range(0, rounds, batch):
        n = min(batch, rounds - start)
        tiles = deal(rng, n, 32, 5 * (players + 1))
        b = taungau_hands(tiles[:, :5], r)
        net = np.zeros(n)
        for p in range(1, players + 1):
            s = taungau_hands(tiles[:, 5 * p : 5 * p + 5], r)
            if r.settlement == "even_money":
                net += np.sign(s - b)
                continue
            # without a bull (or declining one): a fixed number of stakes, or under
            # "banker_score" the banker's score, 4 when the banker has no bull either
            if r.no_bull_pays == "banker_score":
                pays = np.where(b > 0, score(b), 4)
            else:
                pays = np.full(n, r.no_bull_pays)
            gain = np.where(s > 0, score(s) - score(b), -pays)
            if policy == "first":
                gain = np.maximum(gain, -pays)
            net += gain
        out.append(net / players)
    return summarise("taungau", r.name, policy, np.concatenate(out), players, seed, confidence)
