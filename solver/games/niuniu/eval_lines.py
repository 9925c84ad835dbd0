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

import json
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
_GROUPS: dict[bool, tuple[pa.Array, pa.Array]] = {}


def _groups(as_json: bool) -> tuple[pa.Array, pa.Array]:
    """The spelling of every sorted three cards (row: colex rank) and two cards, as
    text (``3D 7S KS``) or JSON list items (``"3D", "7S", "KS"``); a last, empty row
    stands for no cards."""
    got = _GROUPS.get(as_json)
    if got is None:
        from itertools import combinations

        names = [json.dumps(c) for c in CARD_NAMES] if as_json else list(CARD_NAMES)
        sep = ", " if as_json else " "
        # colex order: by the highest card, then the next ...
        three = [sep.join(names[i] for i in c) for c in _colex(combinations(range(52), 3))]
        two = [sep.join(names[i] for i in c) for c in _colex(combinations(range(52), 2))]
        got = _GROUPS[as_json] = (tc.strings([*three, ""]), tc.strings([*two, ""]))
    return got


def _colex(subsets: Any) -> list[tuple[int, ...]]:
    return sorted(subsets, key=lambda c: c[::-1])


def _rank3(c: np.ndarray) -> np.ndarray:
    a, b, d = (c[:, i].astype(np.int64) for i in range(3))
    out: np.ndarray = a + b * (b - 1) // 2 + d * (d - 1) * (d - 2) // 6
    return out


def _rank2(c: np.ndarray) -> np.ndarray:
    a, b = (c[:, i].astype(np.int64) for i in range(2))
    out: np.ndarray = a + b * (b - 1) // 2
    return out


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
    three, two = _groups(as_json)
    hand = [tc.lookup(three, _rank3(hands[:, :3])), ", " if as_json else " "]
    hand.append(tc.lookup(two, _rank2(hands[:, 3:])))
    bull = tc.lookup(three, np.where(has, _rank3(perm[:, :3]), len(three) - 1))
    rest = tc.lookup(two, np.where(has, _rank2(perm[:, 3:]), len(two) - 1))
    if as_json:
        line = _json(hand, bull, rest, has, cols, cat, labels, mult, r.name, odds)
    else:
        line = _text(hand, bull, rest, has, cat, labels, r.name, odds)
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
    hand: list[pa.Array | str],
    bull: pa.Array,
    rest: pa.Array,
    has: np.ndarray,
    cat: np.ndarray,
    labels: list[str],
    rules_name: str,
    odds: dict[str, Any] | None,
) -> pa.Array:
    how = [
        f": {x.replace('_', ' ')} ({'bull ' if h else 'no three cards make a multiple of 10'}"
        for x in labels
        for h in (False, True)
    ]
    parts: list[pa.Array | str] = [
        *hand,
        tc.lookup(tc.strings(how), cat * 2 + has),
        bull,
        tc.lookup(tc.strings(["", " + "]), has),
        rest,
        f") [{rules_name}]",
    ]
    if odds is not None:
        p, evp, evb = (odds[s][0] / odds[s][1] for s in ODDS_SUFFIXES)
        parts += [
            "; vs one random hand: P(win) ",
            *tc.fixed_parts(p, 4, percent=True),
            ", EV as player ",
            *tc.fixed_parts(evp, 4, plus=True),
            ", as banker ",
            *tc.fixed_parts(evb, 4, plus=True),
            f" ({odds['bet']} bet)",
        ]
    return tc.join(*parts, "\n")


def _json(
    hand: list[pa.Array | str],
    bull: pa.Array,
    rest: pa.Array,
    has: np.ndarray,
    cols: dict[str, np.ndarray],
    cat: np.ndarray,
    labels: list[str],
    mult: np.ndarray,
    rules_name: str,
    odds: dict[str, Any] | None,
) -> pa.Array:
    points = np.asarray(cols["points"], dtype=np.int64)
    n_bulls = np.asarray(cols["n_bulls"], dtype=np.int64)
    top_p, top_n = int(points.max()) + 1, int(n_bulls.max()) + 1
    head = [
        f'], "has_bull": {"true" if h else "false"}, "points": {p}, "bull": '
        + ("[" if h else "null")
        for h in (False, True)
        for p in range(top_p)
    ]
    mid = [
        ("]" if h else "")
        + f', "n_bulls": {nb}, "category": {json.dumps(x, ensure_ascii=False)}, "strength": '
        for h in (False, True)
        for nb in range(top_n)
        for x in labels
    ]
    name = json.dumps(rules_name, ensure_ascii=False)
    tail = [f', "multiplier": {m}, "rules": {name}' for m in range(int(mult.max()) + 1)]
    parts: list[pa.Array | str] = [
        '{"hand": [',
        *hand,
        tc.lookup(tc.strings(head), has * top_p + points),
        bull,
        tc.lookup(tc.strings([', "rest": null', '], "rest": [']), has),
        rest,
        tc.lookup(tc.strings(mid), (has * top_n + n_bulls) * len(labels) + cat),
        tc.ints(cols["strength"]),
        tc.lookup(tc.strings(tail), mult[cat]),
    ]
    if odds is not None:
        for s in ODDS_SUFFIXES:
            num, den = odds[s]
            g = np.gcd(num, den)
            dens, which = np.unique(den // g, return_inverse=True)  # few: divisors
            parts += [
                f', "{s}": ',
                tc.floats(num / den),
                f', "{s}_fraction": "',
                tc.ints(num // g),
                tc.lookup(tc.strings([f'/{d}"' for d in dens.tolist()]), which),
            ]
        parts.append(', "odds_bet": ' + json.dumps(odds["bet"], ensure_ascii=False))
    return tc.join(*parts, "}\n")
