"""What ``bull audit`` and ``bull deal`` need to know about Pok Deng (a game-blind face).

A seat is dealt two cards and may draw a third, so the audited hand is the **two-card
start**: the first two cards of the logged hand, which must be written in the order
dealt. Its category is the two-card type and points (``pok_9`` … ``normal_0``) with the
exact probability from the ``odds`` room. The showdown outcome depends on the drawing,
so it has no exact expected frequency here (``outcome`` is ``None``); the settlement of
the final hands is ``play.settle_batch``. ``finish`` completes dealt starts the way
``bull deal`` plays them: a seat without pok draws on 4 or less, the dealer on the rule
set's ``dealer_draws_at_most`` (nobody draws against a dealer's pok).

>>> s = audit_spec(None, {}, None)
>>> s["labels"][:2], s["hand_size"], s["sizes"]
(['pok_8', 'pok_9'], 2, (2, 3))
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["audit_spec"]

PAD = 255
PLAYER_DRAWS_AT_MOST = 4


def audit_spec(
    rules: Any,
    options: Mapping[str, Any],
    tables: str | None,
    arrays: Mapping[str, npt.NDArray[Any]] | None = None,
) -> dict[str, Any]:
    """The audit description of Pok Deng under ``rules`` (see the module docstring)."""
    from solver.core.cards import CARD_NAMES
    from solver.core.indexing import all_subsets, colex_rank_array
    from solver.games.pokdeng.odds import odds
    from solver.games.pokdeng.play import evaluate_batch, settle_batch
    from solver.games.pokdeng.rules import HandType, load_rules
    from solver.kit.parse import parse_card_hands

    r = load_rules(rules)
    res = odds(r, tables)
    rows = res.sections["2_card_type_points"]
    labels = [lb for lb, _ in rows]
    expected = [Fraction(n, res.totals["2_card_type_points"]) for _, n in rows]
    index = {lb: i for i, lb in enumerate(labels)}
    if arrays is None:
        starts = all_subsets(52, 2)
        ev = evaluate_batch(starts, r, tables)
        pairs = zip(ev["type"].tolist(), ev["points"].tolist(), strict=True)
        names = [f"{HandType(t).label}_{p}" for t, p in pairs]
        arrays = {
            "category": np.array([index[n] for n in names], dtype=np.int8),
            "strength": np.asarray(ev["strength"], dtype=np.int16),
            "points": np.asarray(ev["points"], dtype=np.int8),
            "pok": np.asarray(ev["type"] == int(HandType.POK)),
        }
    cat_col, str_col = arrays["category"], arrays["strength"]
    pts_col, pok_col = arrays["points"], arrays["pok"]
    dealer_k = options.get("dealer_draws_at_most")
    dealer_k = r.dealer_draws_at_most if dealer_k is None else int(dealer_k)

    def rank(ids: npt.NDArray[np.uint8]) -> npt.NDArray[np.int32]:
        return colex_rank_array(np.sort(ids[:, :2], axis=1), presorted=True)

    def category(ids: npt.NDArray[np.uint8]) -> npt.NDArray[np.int64]:
        return cat_col[rank(ids)].astype(np.int64)

    def strength(ids: npt.NDArray[np.uint8]) -> npt.NDArray[np.int64]:
        return str_col[rank(ids)].astype(np.int64)

    def finish(
        start: npt.NDArray[np.uint8],
        extra: npt.NDArray[np.uint8],
        dealer_pok: npt.NDArray[np.bool_],
    ) -> npt.NDArray[np.uint8]:
        """Final hands (n, 3), PAD when standing: ``extra`` the next card for each."""
        rk = rank(start)
        draws = ~pok_col[rk] & (pts_col[rk] <= PLAYER_DRAWS_AT_MOST) & ~dealer_pok
        out = np.full((len(start), 3), PAD, dtype=np.uint8)
        out[:, :2] = start[:, :2]
        out[draws, 2] = extra[draws]
        return out

    def finish_dealer(
        start: npt.NDArray[np.uint8], extra: npt.NDArray[np.uint8]
    ) -> npt.NDArray[np.uint8]:
        rk = rank(start)
        draws = ~pok_col[rk] & (pts_col[rk] <= dealer_k)
        out = np.full((len(start), 3), PAD, dtype=np.uint8)
        out[:, :2] = start[:, :2]
        out[draws, 2] = extra[draws]
        return out

    def settle(
        player: npt.NDArray[np.uint8], banker: npt.NDArray[np.uint8]
    ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float64]]:
        net = np.zeros(len(player), dtype=np.float64)
        for sp in (2, 3):
            for sb in (2, 3):
                sel = ((player[:, 2] != PAD) == (sp == 3)) & ((banker[:, 2] != PAD) == (sb == 3))
                if sel.any():
                    net[sel] = settle_batch(player[sel, :sp], banker[sel, :sb], r, tables)
        winner = np.where(net > 0, 0, np.where(net < 0, 1, 2)).astype(np.int8)
        return winner, net

    return {
        "game": "pokdeng",
        "rules": r.name,
        "kind": "card",
        "hand_size": 2,
        "sizes": (2, 3),
        "deck": np.arange(52, dtype=np.uint8),
        "unit": np.arange(52, dtype=np.int64),
        "unit_names": list(CARD_NAMES),
        "copies": np.ones(52, dtype=np.int64),
        "parse": lambda arr: parse_card_hands(arr, (2, 3)),
        "labels": labels,
        "expected": expected,
        "bull": [lb.startswith("pok") for lb in labels],
        "category": category,
        "strength": strength,
        "outcome": None,
        "settle": settle,
        "finish": finish,
        "finish_dealer": finish_dealer,
        "pok": lambda ids: pok_col[rank(ids)],
        "banker_word": "dealer",
        "arrays": dict(arrays),
    }
