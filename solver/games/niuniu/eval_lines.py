"""``bull eval niuniu --input``: a block of hand lines answered at once.

The hands are read by the batch tokeniser (:func:`solver.kit.notation.card_tokens`),
looked up in the table by colex rank, and their text or JSON lines are built column
by column (:mod:`solver.kit.textcols`) — the same lines, byte for byte, as
:func:`~solver.games.niuniu.commands.cli_eval` and its ``cli_eval_text`` give one hand
at a time. A line this path cannot answer (a spelling the tokeniser leaves alone, a
repeated card, a card not in the deck) is null in the result: the caller answers it
one at a time, so its error message is the per-hand one.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from solver.core.cards import CARD_NAMES
from solver.core.errors import RulesError
from solver.core.indexing import colex_rank_array
from solver.games.niuniu.hand_odds import ODDS_SUFFIXES
from solver.games.niuniu.runtime import _source
from solver.kit import textcols as tc
from solver.kit.notation import Spans, card_tokens

__all__ = ["eval_lines"]

_NAMES = tc.strings(CARD_NAMES)
_JSON_NAMES = tc.json_strings(CARD_NAMES)
# per bull mask: the positions of the bull's three cards, then of the other two
_ORDER = np.array(
    [
        [i for i in range(5) if m >> i & 1] + [i for i in range(5) if not m >> i & 1]
        if bin(m).count("1") == 3
        else list(range(5))
        for m in range(32)
    ],
    dtype=np.int64,
)


def _names(cols: list[pa.Array], sep: str) -> pa.Array:
    parts: list[pa.Array | str] = []
    for i, c in enumerate(cols):
        if i:
            parts.append(sep)
        parts.append(c)
    return tc.join(*parts)


def eval_lines(
    spans: Spans, rules: str | None, options: dict[str, Any], tables: str | None, as_json: bool
) -> pa.Array | None:
    """Each hand's ``bull eval`` line (with its line end), null where the caller must
    answer it alone; ``None`` when this rule set is not answered here (a shoe)."""
    src = _source(rules, tables)
    r = src.rules
    if r.decks > 1:
        return None
    bet = r.bet(options.get("bet"))
    mult = np.asarray(r.multiplier_row(bet), dtype=np.int64)
    ids, _, ok = card_tokens(spans, (5,))
    srt = np.sort(ids, axis=1)
    ok &= ~(srt[:, 1:] == srt[:, :-1]).any(axis=1) & (srt[:, 4] < r.deck_size)
    rows = np.flatnonzero(ok)
    n = len(spans)
    if not len(rows):
        return pa.nulls(n, pa.string())
    hands = srt[rows]
    ranks = colex_rank_array(hands, presorted=True)
    cols = src.lookup(ranks)
    cat = np.asarray(cols["category"], dtype=np.int64)
    labels: list[str] = []
    for code in range(int(cat.max()) + 1):
        try:
            labels.append(r.category(code).label)
        except RulesError:
            labels.append("")
    mask = np.asarray(cols["bull_mask"], dtype=np.int64)
    has = mask != 0
    perm = np.take_along_axis(hands.astype(np.int64), _ORDER[mask], axis=1)
    odds = _odds(src, ranks) if _with_odds(r, bet, options) else None
    if as_json:
        line = _json(hands, perm, has, cols, cat, labels, mult, r.name, odds)
    else:
        line = _text(hands, perm, has, cat, labels, r.name, odds)
    if len(rows) == n:
        return line
    index = np.cumsum(ok) - 1
    return pc.take(line, pa.array(np.where(ok, index, 0), mask=~ok))


def _with_odds(r: Any, bet: str, options: dict[str, Any]) -> bool:
    return bool(bet == r.bet(None) and options.get("commission") is None and not r.shoe)


def _odds(src: Any, ranks: np.ndarray) -> dict[str, Any] | None:
    """The per-hand odds columns and their denominators (``None``: the table has none)."""
    table, name = src.table(), src.rules.name
    note = table.meta.get("extra", {}).get(f"{name}_odds")
    names = [f"{name}_{s}" for s in ODDS_SUFFIXES]
    if note is None or any(c not in table.column_names for c in names):
        return None
    return {
        "bet": note["bet"],
        **{
            s: (np.asarray(table.column(c)[ranks], dtype=np.int64), int(note[f"{s}_denominator"]))
            for s, c in zip(ODDS_SUFFIXES, names, strict=True)
        },
    }


def _text(
    hands: np.ndarray,
    perm: np.ndarray,
    has: np.ndarray,
    cat: np.ndarray,
    labels: list[str],
    rules_name: str,
    odds: dict[str, Any] | None,
) -> pa.Array:
    hand = _names([tc.lookup(_NAMES, hands[:, i]) for i in range(5)], " ")
    b = [tc.lookup(_NAMES, perm[:, i]) for i in range(5)]
    how = pc.if_else(
        pa.array(has),
        tc.join("bull ", _names(b[:3], " "), " + ", _names(b[3:], " ")),
        pa.scalar("no three cards make a multiple of 10"),
    )
    label = tc.lookup(tc.strings([x.replace("_", " ") for x in labels]), cat)
    out = tc.join(hand, ": ", label, " (", how, ") [", rules_name, "]")
    if odds is None:
        return tc.join(out, "\n")
    p, evp, evb = (odds[s][0] / odds[s][1] for s in ODDS_SUFFIXES)
    return tc.join(
        out,
        "; vs one random hand: P(win) ",
        tc.fixed(p, 4, percent=True),
        ", EV as player ",
        tc.fixed(evp, 4, plus=True),
        ", as banker ",
        tc.fixed(evb, 4, plus=True),
        f" ({odds['bet']} bet)\n",
    )


def _json(
    hands: np.ndarray,
    perm: np.ndarray,
    has: np.ndarray,
    cols: dict[str, np.ndarray],
    cat: np.ndarray,
    labels: list[str],
    mult: np.ndarray,
    rules_name: str,
    odds: dict[str, Any] | None,
) -> pa.Array:
    j = [tc.lookup(_JSON_NAMES, hands[:, i]) for i in range(5)]
    b = [tc.lookup(_JSON_NAMES, perm[:, i]) for i in range(5)]
    hasa = pa.array(has)
    bull = pc.if_else(hasa, tc.join("[", _names(b[:3], ", "), "]"), pa.scalar("null"))
    rest = pc.if_else(hasa, tc.join("[", _names(b[3:], ", "), "]"), pa.scalar("null"))
    parts: list[pa.Array | str] = [
        '{"hand": [',
        _names(j, ", "),
        '], "has_bull": ',
        pc.if_else(hasa, pa.scalar("true"), pa.scalar("false")),
        ', "points": ',
        tc.ints(cols["points"]),
        ', "bull": ',
        bull,
        ', "rest": ',
        rest,
        ', "n_bulls": ',
        tc.ints(cols["n_bulls"]),
        ', "category": ',
        tc.lookup(tc.json_strings(labels), cat),
        ', "strength": ',
        tc.ints(cols["strength"]),
        ', "multiplier": ',
        tc.ints(mult[cat]),
        ', "rules": ',
        tc.json_strings([rules_name])[0].as_py(),
    ]
    if odds is not None:
        for s in ODDS_SUFFIXES:
            num, den = odds[s]
            parts += [
                f', "{s}": ',
                tc.floats(num / den),
                f', "{s}_fraction": "',
                tc.fractions(num, np.full(len(num), den)),
                '"',
            ]
        parts.append(', "odds_bet": ' + tc.json_strings([odds["bet"]])[0].as_py())
    parts.append("}\n")
    return tc.join(*parts)
