"""Niu Niu per-hand odds: the table columns ``<preset>_p_win``, ``<preset>_ev_player``
and ``<preset>_ev_banker`` (issue 14), exact integer numerators over denominators
stated in the table's notes.

For a hand ``h`` and the preset's default bet, against one opponent hand dealt from
the other 47 cards (every one of the ``B`` = C(47, 5) disjoint hands equally likely):

* ``p_win`` = ``below / B``: the opponent hands ``h`` beats.
* as the player, ``h`` collects its own multiplier ``m`` less the commission ``c`` when
  it wins and pays the banker's multiplier when it loses (and on a tie when ties go to
  the banker): ``ev_player = (m (1 - c) below - above_mult - tie) / B``; with
  ``c = p / q`` the column holds ``q`` times the numerator, over ``q B``.
* as the banker, ``h`` collects ``m`` from every weaker player hand (and on a tie when
  ties go to the banker) and pays every stronger one its multiplier in full (the
  house's commission comes out of the player's winnings, RULES.md §3):
  ``ev_banker = (m below - above_mult + tie) / B``.

``above_mult`` is the sum of the multipliers of the stronger disjoint hands, counted
exactly by inclusion-exclusion (:func:`solver.kit.exact.disjoint_counts`). One-deck
rule sets only; a shoe's table carries no odds columns.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.games.niuniu.rules import NiuNiuRules
from solver.kit.exact import DisjointCounts, disjoint_counts

__all__ = ["ODDS_SUFFIXES", "bet_counts", "odds_columns"]

ODDS_SUFFIXES = ("p_win", "ev_player", "ev_banker")
"""The per-hand odds columns of a preset ``name``: ``f"{name}_{suffix}"``."""


def bet_counts(
    rules: NiuNiuRules,
    cards: npt.NDArray[np.integer[Any]],
    strength: npt.ArrayLike,
    category: npt.ArrayLike,
) -> dict[str, DisjointCounts]:
    """Per bet of ``rules``: the disjoint counts of every hand, ``weight_above`` the sum
    of the stronger hands' multipliers under that bet; one counting pass for all bets."""
    if rules.decks > 1:
        raise ValueError("per-hand odds are for one-deck rule sets")
    cat = np.asarray(category, dtype=np.int64)
    rows = np.asarray([rules.multiplier_row(b) for b in rules.bets], dtype=np.int64)
    c = disjoint_counts(cards, strength, rules.deck_size, rows[:, cat].T)
    wa = np.asarray(c.weight_above)
    return {b: replace(c, weight_above=wa[:, j]) for j, b in enumerate(rules.bets)}


def odds_columns(
    rules: NiuNiuRules,
    cards: npt.NDArray[np.integer[Any]],
    strength: npt.ArrayLike,
    category: npt.ArrayLike,
    counts: DisjointCounts | None = None,
) -> tuple[dict[str, npt.NDArray[np.int64]], dict[str, Any]]:
    """The three columns for ``rules`` (``cards``: every hand of its deck, colex
    order) and the note stating their bet, commission and denominators. ``counts``:
    the default bet's :func:`bet_counts`, when already counted."""
    if rules.decks > 1:
        raise ValueError("per-hand odds are for one-deck rule sets")
    bet = rules.bet(None)
    row = np.asarray(rules.multiplier_row(bet), dtype=np.int64)
    m = row[np.asarray(category, dtype=np.int64)]
    c = disjoint_counts(cards, strength, rules.deck_size, m) if counts is None else counts
    comm = Fraction(str(rules.commission)).limit_denominator(10**6)
    p, q = comm.numerator, comm.denominator
    below = np.asarray(c.below, dtype=np.int64)
    above = np.asarray(c.weight_above, dtype=np.int64)
    tie = m * np.asarray(c.equal, dtype=np.int64) if rules.on_tie == "banker" else 0
    name = rules.name
    cols = {
        f"{name}_p_win": below,
        f"{name}_ev_player": (q - p) * m * below - q * above - q * tie,
        f"{name}_ev_banker": m * below - above + tie,
    }
    note = {
        "bet": bet,
        "commission": str(comm),
        "opponent_hands": int(c.total),
        "p_win_denominator": int(c.total),
        "ev_player_denominator": int(q * c.total),
        "ev_banker_denominator": int(c.total),
        "what": "against one opponent hand from the other cards of the deck: P(win), "
        "and the exact EV as player (commission off its winnings) and as banker",
    }
    return cols, note


def eval_fields(
    table: Any, rules: NiuNiuRules, ranks: npt.NDArray[np.integer[Any]]
) -> list[dict[str, Any]]:
    """``bull eval``'s odds fields for the table rows ``ranks``: ``p_win``,
    ``ev_player``, ``ev_banker`` and their exact ``_fraction`` twins (none when the
    table has no odds columns for ``rules``: a rule file's or a shoe's table)."""
    from solver.kit.exact import fraction_text

    name = rules.name
    note = table.meta.get("extra", {}).get(f"{name}_odds")
    cols = [f"{name}_{s}" for s in ODDS_SUFFIXES]
    if note is None or any(c not in table.column_names for c in cols):
        return [{} for _ in ranks]
    got = (
        table.rows(np.asarray(ranks), cols)
        if len(ranks) <= 64
        else {c: table.column(c)[np.asarray(ranks)] for c in cols}
    )
    dens = [note[f"{s}_denominator"] for s in ODDS_SUFFIXES]
    out = []
    for i in range(len(ranks)):
        rec: dict[str, Any] = {}
        for s, c, d in zip(ODDS_SUFFIXES, cols, dens, strict=True):
            f = Fraction(int(got[c][i]), d)
            rec[s] = float(f)
            rec[f"{s}_fraction"] = fraction_text(f)
        rec["odds_bet"] = note["bet"]
        out.append(rec)
    return out
