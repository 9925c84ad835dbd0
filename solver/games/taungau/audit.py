"""What ``bull audit`` and ``bull deal`` need to know about Tau Ngau (a game-blind face).

:func:`audit_spec` returns plain data and vectorised functions: five tiles dealt from
the 32-tile set, the audited category (the best score, from the table by colex rank)
with its exact probability (the ``odds`` room), the exact showdown outcome and the
distribution of the player's net (:func:`net_distribution`: players decline as the rule
set says), and the settlement (``play.settle_batch``).
Tiles are audited by type: a civil type comes twice in the set, a military one once.

>>> s = audit_spec(None, {}, None)
>>> s["labels"][:3], len(s["deck"]), s["copies"][:3].tolist()
(['no_bull', '1', '2'], 32, [2, 1, 2])
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["audit_spec", "hand_space"]


@lru_cache(maxsize=8)
def _net_cached(
    rules: str | None, reveals: str | None, tables: str | None
) -> tuple[tuple[Fraction, Fraction], ...]:
    from solver.games.taungau.rules import load_rules

    return tuple(net_distribution(load_rules(rules), reveals, tables))


def net_distribution(
    r: Any, reveals: str | None, tables: str | None
) -> list[tuple[Fraction, Fraction]]:
    """The exact distribution of the player's net (as ``play.settle_batch`` settles)
    over every ordered pair of disjoint hands: (amount, probability) by amount.

    Per player hand the table gives how many of the 80,730 banker hands from the other
    27 tiles have each strength; the net is a function of the two strengths and the
    player's decision (declining a bull: when the banker reveals last, the hand's own
    decision; first, whenever declaring would lose more than the no-bull payment).
    """
    from solver.games.taungau.covariance import net_matrix
    from solver.games.taungau.hands import BANKER_HANDS, HAND_COUNT, banker_distribution
    from solver.games.taungau.odds import _banker_dist

    mode = reveals or r.banker_reveals
    ps, net = net_matrix(r, mode, tables)
    dist = _banker_dist(r, tables) if r.has_decline else banker_distribution(ps).astype(np.int64)
    amounts, inv = np.unique(net, return_inverse=True)
    counts = np.zeros(len(amounts), dtype=np.int64)
    np.add.at(counts, inv.reshape(-1), dist.reshape(-1))
    pairs = HAND_COUNT * BANKER_HANDS
    if int(counts.sum()) != pairs:
        raise AssertionError("the banker counts do not add up to every pair")
    return [
        (Fraction(int(a)), Fraction(int(n), pairs))
        for a, n in zip(amounts, counts, strict=True)
        if n
    ]


def separate(
    player: npt.NDArray[np.uint8], banker: npt.NDArray[np.uint8]
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]]:
    """Two hands of one round with physical tile ids that do not clash: a log names
    tile types, so both hands may read a civil tile as copy 0; the banker's copies come
    after the player's.

    >>> pl, bk = np.array([[0, 3, 4, 5, 6]], np.uint8), np.array([[0, 7, 8, 9, 10]], np.uint8)
    >>> p, b = separate(pl, bk)
    >>> int(p[0, 0]), int(b[0, 0])
    (0, 1)
    """
    from solver.core.tiles import TYPE_FIRST_ID, TYPE_OF_TILE

    of = np.array(TYPE_OF_TILE, dtype=np.int64)
    first = np.array(TYPE_FIRST_ID, dtype=np.int64)
    tp, tb = of[player.astype(np.int64)], of[banker.astype(np.int64)]
    k = tp.shape[1]
    before = np.tril(np.ones((k, k), dtype=bool), -1)  # [i, j]: j comes before i
    own_p = ((tp[:, :, None] == tp[:, None, :]) & before).sum(axis=2)
    own_b = ((tb[:, :, None] == tb[:, None, :]) & before).sum(axis=2)
    in_p = (tb[:, :, None] == tp[:, None, :]).sum(axis=2)
    return (first[tp] + own_p).astype(np.uint8), (first[tb] + in_p + own_b).astype(np.uint8)


def hand_space(rules: Any = None) -> dict[str, Any]:
    """What Tau Ngau deals (every rule set the same 32 tiles): the part of
    :func:`audit_spec` that reads no table and no figure (``bull probe`` asks its
    questions from it).

    >>> s = hand_space()
    >>> s["kind"], s["sizes"], len(s["deck"]), s["copies"][:3].tolist()
    ('tile', (5,), 32, [2, 1, 2])
    """
    from solver.core.tiles import NUM_TILES, TYPE_COPIES, TYPE_NAMES, TYPE_OF_TILE

    return {
        "kind": "tile",
        "hand_size": 5,
        "sizes": (5,),
        "deck": np.arange(NUM_TILES, dtype=np.uint8),
        "unit": np.array(TYPE_OF_TILE, dtype=np.int64),
        "unit_names": list(TYPE_NAMES),
        "copies": np.array(TYPE_COPIES, dtype=np.int64),
    }


def audit_spec(
    rules: Any,
    options: Mapping[str, Any],
    tables: str | None,
    arrays: Mapping[str, npt.NDArray[Any]] | None = None,
) -> dict[str, Any]:
    """The audit description of Tau Ngau under ``rules`` (see the module docstring)."""
    from solver.core.indexing import colex_rank_array
    from solver.games.taungau.odds import odds
    from solver.games.taungau.play import rule_columns, settle_batch
    from solver.games.taungau.rules import load_rules
    from solver.kit.parse import parse_tile_hands

    r = load_rules(rules)
    res = odds(r, tables)
    rows = res.sections["best_score"]
    labels = [lb for lb, _ in rows]
    expected = [Fraction(n, res.totals["best_score"]) for _, n in rows]
    if arrays is None:
        arrays = {"strength": rule_columns(r, ["strength"], tables)["strength"].astype(np.int8)}
    str_col = arrays["strength"]
    reveals = options.get("banker_reveals")

    def strength(ids: npt.NDArray[np.uint8]) -> npt.NDArray[np.int64]:
        return str_col[colex_rank_array(np.sort(ids, axis=1), presorted=True)].astype(np.int64)

    def settle(
        player: npt.NDArray[np.uint8], banker: npt.NDArray[np.uint8]
    ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float64]]:
        player, banker = separate(player, banker)
        out = settle_batch(player, banker, r, banker_reveals=reveals, tables=tables)
        w = np.asarray(out["winner"])
        winner = np.where(w > 0, 0, np.where(w < 0, 1, 2)).astype(np.int8)
        return winner, np.asarray(out["net"], dtype=np.float64)

    net: Any = None
    if "net" not in arrays:
        net = (
            _net_cached(rules, reveals, tables)
            if isinstance(rules, str | None)
            else net_distribution(r, reveals, tables)
        )
        arrays = {**arrays, "net": np.array(json.dumps([[str(a), str(p)] for a, p in net]))}
    else:
        net = [(Fraction(a), Fraction(p)) for a, p in json.loads(str(arrays["net"]))]
    outcome = [sum((p for a, p in net if a > 0), Fraction(0)),
               sum((p for a, p in net if a < 0), Fraction(0)),
               sum((p for a, p in net if a == 0), Fraction(0))]  # fmt: skip
    mode = reveals or r.banker_reveals
    note = f"players decline as the rules say (banker reveals {mode})" if r.has_decline else ""
    return {
        "game": "taungau",
        "rules": r.name,
        **hand_space(r),
        "parse": lambda arr: parse_tile_hands(arr, (5,)),
        "labels": labels,
        "expected": expected,
        "bull": [lb != "no_bull" for lb in labels],
        "category": strength,  # strength 0..10 is the index of the best score's label
        "strength": strength,
        "outcome": outcome,
        "net": net,
        "outcome_note": note,
        "settle": settle,
        "finish": None,
        "banker_word": "banker",
        "separate": separate,
        "arrays": dict(arrays),
    }
