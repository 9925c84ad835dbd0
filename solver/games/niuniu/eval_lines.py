"""``bull eval niuniu --input``: a block of hand lines answered at once.

The hands are read by the batch tokeniser (:func:`solver.kit.notation.card_tokens`)
and looked up by colex rank; a line is then a few pieces read from tables of finished
text (``take``) and joined, with no formatting per hand:

* the hand, its bull and its other two cards: the spelling of every sorted three
  cards (22,100) and two cards (1,326);
* the category's words (text) or ``has_bull``/``points`` (JSON);
* the rest of the line, which depends only on the hand's *class* — its category,
  points, number of bulls, strength and per-hand odds (11,724 classes under
  ``classic``, 165,974 under ``casino``) — written once per class per process by
  Arrow kernels (:mod:`solver.kit.textcols`).

The class of each of the 2,598,960 hands (and its bull's cards) is one 32-bit number
per hand, worked out from the table's columns on first use and stored in the user's
cache (:mod:`solver.kit.linestore`, checked when read), so a run reads one column of
10 MB instead of eight. The lines are byte for byte those of
:func:`~solver.games.niuniu.commands.cli_eval` and ``cli_eval_text``. A line this path
cannot answer (a spelling the tokeniser leaves alone, a repeated card, a card not in
the deck) is null in the result: the caller answers it one at a time, so its error
message is the per-hand one.
"""

from __future__ import annotations

import json
from itertools import combinations
from math import comb
from typing import Any

import numpy as np
import pyarrow as pa

from solver.core.cards import CARD_NAMES
from solver.core.errors import RulesError
from solver.core.indexing import sort_columns
from solver.games.niuniu.hand_odds import ODDS_SUFFIXES
from solver.games.niuniu.runtime import _source
from solver.kit import linestore
from solver.kit import textcols as tc
from solver.kit.notation import Spans, card_tokens

__all__ = ["answer", "eval_ids", "eval_lines"]

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
_ORDER32 = [np.ascontiguousarray(_ORDER[:, k], dtype=np.int32) for k in range(5)]
_B1, _B2, _B3, _B4, _B5 = (
    np.array([comb(x, k) for x in range(52)], dtype=np.int32) for k in range(1, 6)
)
"""C(x, k) for a card id x (a colex rank is the sum over the sorted cards)."""
_CLASS_BITS = 27
_TAIL_CHUNK = 16384
"""A hand's packed number: its class below this bit, its bull mask above."""


def eval_lines(
    spans: Spans, rules: str | None, options: dict[str, Any], tables: str | None, as_json: bool
) -> pa.Array | None:
    """Each hand's ``bull eval`` line (with its line end), null where the caller must
    answer it alone; ``None`` when this rule set is not answered here (a shoe)."""
    src = _source(rules, tables)
    if src.rules.decks > 1:
        return None
    ids, _, ok = card_tokens(spans, (5,))
    return answer(ids, ok, rules, options, tables, as_json)


def eval_ids(
    ids: np.ndarray, rules: Any, options: dict[str, Any], tables: str | None, as_json: bool
) -> pa.Array | None:
    """The ``bull eval`` lines of hands given as card ids, (n, 5) in any order: see
    :meth:`solver.kit.entry.GameEntry.eval_ids`."""
    arr = np.asarray(ids)
    ok = np.asarray(((arr >= 0) & (arr < 52)).all(axis=1), dtype=bool)
    return answer(
        np.where(ok[:, None], arr, 0).astype(np.uint8), ok, rules, options, tables, as_json
    )


def answer(
    ids: np.ndarray,
    ok: np.ndarray,
    rules: Any,
    options: dict[str, Any],
    tables: str | None,
    as_json: bool,
) -> pa.Array | None:
    """The ``bull eval`` lines of hands given as card ids (``ids``: (n, 5), any order;
    a row whose ``ok`` is false, holds a card twice or a card not in the deck is null);
    ``None`` when this rule set is not answered here (a shoe)."""
    src = _source(rules, tables)
    r = src.rules
    if r.decks > 1:
        return None
    bet = r.bet(options.get("bet"))
    c = sort_columns([ids[:, i] for i in range(5)])  # uint8 columns, low to high
    dup = (c[0] == c[1]) | (c[1] == c[2]) | (c[2] == c[3]) | (c[3] == c[4])
    ok = ok & ~dup & (c[4] < r.deck_size)
    n = len(ids)
    if not ok.any():
        return tc.strings([""] * n) if n == 0 else _nulls(n)
    if not ok.all():  # any hand of the deck: its line is not used
        c = [np.where(ok, col, i).astype(np.uint8) for i, col in enumerate(c)]
    low3 = _B1[c[0]] + _B2[c[1]] + _B3[c[2]]  # colex rank of the lowest three cards
    ranks = low3 + _B4[c[3]] + _B5[c[4]]
    lines = _Lines.get(src, bet, options, as_json)
    packed = lines.packed[ranks]
    cls = packed & ((1 << _CLASS_BITS) - 1)
    mask = packed >> _CLASS_BITS
    has = lines.has[cls]
    flat = np.stack(c, axis=1).ravel()  # the sorted cards; a bull's by its positions
    at = np.arange(0, 5 * n, 5, dtype=np.int32)
    role = [flat[at + _ORDER32[k][mask]] for k in range(5)]
    bull = _B1[role[0]] + _B2[role[1]] + _B3[role[2]]
    rest = _B1[role[3]] + _B2[role[4]] + 1
    parts = [
        tc.lookup(lines.hand3, low3),
        tc.lookup(lines.hand2_head, (_B1[c[3]] + _B2[c[4]]) * lines.heads + lines.head_of[cls]),
        tc.lookup(lines.bull, np.where(has, bull, len(lines.bull) - 1)),
        tc.lookup(lines.rest, np.where(has, rest, 0)),
        tc.lookup(lines.tail, cls),
    ]
    out = tc.join(*parts)
    if ok.all():
        return out
    index = np.where(ok, np.arange(n), 0)
    return tc._call("take", out, tc._index(index, ok))


def _nulls(n: int) -> pa.Array:
    return pa.nulls(n, pa.string())


def _colex(k: int) -> np.ndarray:
    """Every sorted ``k`` cards of the deck, (C(52, k), k), in colex order."""
    c = np.array(list(combinations(range(52), k)), dtype=np.int64)
    return c[np.lexsort(c.T)]


def _groups(as_json: bool) -> tuple[pa.Array, pa.Array]:
    """The spelling of every sorted three cards (row: colex rank) and two cards, as
    text (``3D 7S KS``) or JSON list items (``"3D", "7S", "KS"``)."""
    names = tc.strings([json.dumps(c) for c in CARD_NAMES] if as_json else list(CARD_NAMES))
    sep = ", " if as_json else " "
    out = []
    for k in (3, 2):
        c = _colex(k)
        cols: list[pa.Array | str] = []
        for i in range(k):
            cols += [sep, tc.lookup(names, c[:, i])] if i else [tc.lookup(names, c[:, i])]
        out.append(tc.join(*cols))
    return out[0], out[1]


class _Lines:
    """The tables one rule set, bet and format is answered from."""

    @classmethod
    def get(cls, src: Any, bet: str, options: dict[str, Any], as_json: bool) -> _Lines:
        odds = _with_odds(src.rules, bet, options)
        key = (id(src), bet, odds, as_json)
        got = _MADE.get(key)
        if got is None or got.src is not src:
            got = _MADE[key] = cls(src, bet, odds, as_json)
        return got

    def __init__(self, src: Any, bet: str, odds: bool, as_json: bool) -> None:
        self.src = src
        r = src.rules
        self.packed, values = _classes(src)
        has = values["has"].astype(bool)
        self.has = has
        cat = values["category"]
        labels: list[str] = []
        for code in range(int(cat.max()) + 1):
            try:
                labels.append(r.category(code).label)
            except RulesError:
                labels.append("")
        three, two = _groups(as_json)
        points = values["points"]
        if as_json:
            top_p = int(points.max()) + 1
            head = [
                f'{"true" if h else "false"}, "points": {p}, "bull": ' + ("[" if h else "null")
                for h in (False, True)
                for p in range(top_p)
            ]
            self.head_of = has * top_p + points
            self.hand3 = tc.join('{"hand": [', three, ", ")
            pair_end, mid = '], "has_bull": ', [', "rest": null', '], "rest": [']
        else:
            head = [
                f"{x.replace('_', ' ')} ("
                + ("bull " if h else "no three cards make a multiple of 10")
                for x in labels
                for h in (False, True)
            ]
            self.head_of = cat * 2 + has
            self.hand3 = tc.join(three, " ")
            pair_end, mid = ": ", ["", " + "]
        self.heads = len(head)
        pairs = np.repeat(np.arange(len(two)), self.heads)  # row: pair * heads + head
        self.hand2_head = tc.join(
            tc.lookup(two, pairs),
            pair_end,
            tc.lookup(tc.strings(head), np.arange(len(pairs)) % self.heads),
        )
        self.bull = tc.concat([three, tc.strings([""])])
        self.rest = tc.concat([tc.strings([mid[0]]), tc.join(mid[1], two)])
        odd = _odds(src, values) if odds else None
        mult = np.asarray(r.multiplier_row(bet), dtype=np.int64)
        tails = []
        for i in range(0, len(has), _TAIL_CHUNK):  # a piece at a time: less memory
            part = slice(i, i + _TAIL_CHUNK)
            v = {k: a[part] for k, a in values.items()}
            o = (
                None
                if odd is None
                else {**odd, **{s: (odd[s][0][part], odd[s][1]) for s in ODDS_SUFFIXES}}
            )
            if as_json:
                tails.append(_json_tail(v, has[part], labels, mult[cat[part]], r.name, o))
            else:
                tails.append(_text_tail(len(has[part]), r.name, o))
        self.tail = tc.concat(tails)


_MADE: dict[tuple[Any, ...], _Lines] = {}


def _with_odds(r: Any, bet: str, options: dict[str, Any]) -> bool:
    return bool(bet == r.bet(None) and options.get("commission") is None and not r.shoe)


def _odds_names(src: Any) -> tuple[list[str], dict[str, Any]] | None:
    """The rule set's odds columns and their note (``None``: the table has none)."""
    table, name = src.table(), src.rules.name
    note = table.meta.get("extra", {}).get(f"{name}_odds")
    names = [f"{name}_{s}" for s in ODDS_SUFFIXES]
    if note is None or any(c not in table.column_names for c in names):
        return None
    return names, note


def _odds(src: Any, values: dict[str, np.ndarray]) -> dict[str, Any] | None:
    """The odds of each class and their denominators (``None``: the table has none)."""
    got = _odds_names(src)
    if got is None:
        return None
    _, note = got
    return {
        "bet": note["bet"],
        **{s: (values[s], int(note[f"{s}_denominator"])) for s in ODDS_SUFFIXES},
    }


_FIELDS = ["has", "points", "n_bulls", "category", "strength", *ODDS_SUFFIXES]


def _stored(src: Any) -> tuple[dict[str, Any], tuple[np.ndarray, dict[str, np.ndarray]] | None]:
    """The store key of ``src``'s classes, and the classes if stored and whole."""
    t = src.table()
    odds = _odds_names(src)
    key = {"rules": src.rules.to_data(), "table": t.meta.get("digest"), "odds": odds is not None}
    got = linestore.load_arrays("niuniu-classes", key)
    if got is not None and set(got) == {"packed", *_FIELDS} and len(got["packed"]) == t.num_rows:
        packed = got.pop("packed")
        if packed.dtype == np.uint32:
            return key, (packed, got)
    return key, None


def _classes(src: Any, child: bool = True) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Per hand (colex rank) its class and bull mask packed in 32 bits, and per class
    its values: read from the user's cache, else worked out and stored there — by a
    child process when one can be started (working them out reads eight columns of
    2.6 M rows, whose memory the allocators keep: the child's is given back when it
    ends), else here."""
    key, got = _stored(src)
    if got is not None:
        return got
    if child and _work_out_in_child(src):
        _, got = _stored(src)
        if got is not None:
            return got
    return _work_out(src, key)


def _work_out_in_child(src: Any) -> bool:
    """Work out and store ``src``'s classes in a child process; whether it did."""
    import subprocess
    import sys

    if not sys.executable:
        return False
    spec = json.dumps({"rules": src.rules.to_data(), "tables": _tables_arg(src.tables)})
    try:
        done = subprocess.run(
            [sys.executable, "-m", "solver.games.niuniu.eval_lines", spec],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
    except OSError:
        return False
    return done.returncode == 0


def _tables_arg(tables: Any) -> str | None:
    import os

    return None if tables is None else os.fspath(tables)


def _work_out(src: Any, key: dict[str, Any]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    t = src.table()
    name = src.rules.name
    odds = _odds_names(src)
    fields = _FIELDS
    names = {
        "points": "points",
        "n_bulls": "n_bulls",
        "category": f"{name}_category",
        "strength": f"{name}_strength",
        **({s: f"{name}_{s}" for s in ODDS_SUFFIXES} if odds is not None else {}),
    }
    mask = _read(t, "bull_mask").astype(np.uint32)
    words: list[np.ndarray] = []  # the fields packed into as few 63-bit words as fit
    used, lows = 63, {}
    for f in fields:
        v = (
            (mask != 0).astype(np.int64)
            if f == "has"
            else _read(t, names[f]).astype(np.int64)
            if f in names
            else np.zeros(t.num_rows, dtype=np.int64)
        )
        lows[f] = int(v.min())
        bits = max(int(v.max()) - lows[f], 1).bit_length()
        if used + bits > 63:
            words.append(np.zeros(t.num_rows, dtype=np.int64))
            used = 0
        words[-1] |= (v - lows[f]) << used
        used += bits
        del v
    order = np.lexsort(words[::-1])
    new = np.zeros(len(order), dtype=bool)
    new[0] = True
    for w in words:
        v = w[order]
        new[1:] |= v[1:] != v[:-1]
        del v
    cls = np.empty(len(order), dtype=np.uint32)
    cls[order] = np.cumsum(new, dtype=np.uint32) - 1
    firsts = order[new]
    del order, new, words
    values: dict[str, np.ndarray] = {}
    for f in fields:
        v = (
            (mask != 0)
            if f == "has"
            else _read(t, names[f])
            if f in names
            else np.zeros(t.num_rows, dtype=np.int64)
        )
        values[f] = v[firsts].astype(np.int64)
    if len(firsts) >= 1 << _CLASS_BITS or mask.max() >= 32:
        raise RulesError("too many hand classes for the batch path")  # never for 5 cards
    packed = cls | mask << _CLASS_BITS
    linestore.save_arrays("niuniu-classes", key, {"packed": packed, **values})
    _give_back()
    return packed, values


def _give_back() -> None:
    """Return the memory of the table's columns, read once, to the system (Arrow's
    pool, and glibc's heap where there is one): the answers' tables come next."""
    pa.default_memory_pool().release_unused()
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass


def _read(t: Any, name: str) -> np.ndarray:
    """A whole column of the table, not kept in its cache of read columns (the class
    of every hand is worked out once, then read from the user's cache)."""
    kept = name in t._columns
    v: np.ndarray = t.column(name)
    if not kept:
        t._columns.pop(t._alias.get(name, name), None)
        pa.default_memory_pool().release_unused()  # the reader's buffers
    return v


def _text_tail(k: int, rules_name: str, odds: dict[str, Any] | None) -> pa.Array:
    parts: list[pa.Array | str] = [tc.const(f") [{rules_name}]", k)]
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


def _json_tail(
    values: dict[str, np.ndarray],
    has: np.ndarray,
    labels: list[str],
    mult: np.ndarray,
    rules_name: str,
    odds: dict[str, Any] | None,
) -> pa.Array:
    cat = values["category"]
    n_bulls = values["n_bulls"]
    top_n = int(n_bulls.max()) + 1
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
        tc.lookup(tc.strings(mid), (has * top_n + n_bulls) * len(labels) + cat),
        tc.ints(values["strength"]),
        tc.lookup(tc.strings(tail), mult),
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


if __name__ == "__main__":  # the child of _work_out_in_child
    import sys

    _args = json.loads(sys.argv[1])
    _src = _source(_args["rules"], _args["tables"])
    _work_out(_src, _stored(_src)[0])
