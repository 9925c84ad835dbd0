"""``bull eval taungau --input``: a block of hand lines answered at once.

A Tau Ngau answer depends only on the hand's multiset of tile types (33,934 of them),
so each distinct hand is answered once per process by the per-hand path
(:func:`~solver.games.taungau.commands.cli_eval` and ``cli_eval_text``: the same
record, hence the same line) and every line holding it takes that line. The hands are
read by the batch tokeniser (:func:`solver.kit.notation.tile_tokens`); a hand it leaves
(an odd spelling, more copies of a type than the set holds) is null in the result, for
the caller to answer alone with the per-hand message.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from solver.core.tiles import NUM_TYPES, TYPE_COPIES, TYPE_FIRST_ID, canonical_hand
from solver.games.taungau.commands import _check_options, cli_eval_text
from solver.games.taungau.play import _evaluate_many, _source
from solver.kit.notation import Spans, tile_tokens

__all__ = ["eval_lines"]

_COPIES = np.array(TYPE_COPIES, dtype=np.int64)
_LINES: dict[tuple[Any, ...], _Cache] = {}
"""Lines already written, per (rules, tables, banker reveals, format)."""


def eval_lines(
    spans: Spans, rules: str | None, options: dict[str, Any], tables: str | None, as_json: bool
) -> pa.Array:
    """Each hand's ``bull eval`` line (with its line end), null where the caller must
    answer it alone."""
    mode = _check_options(options)
    src = _source(rules, tables)
    reveals = (mode or src.rules.banker_reveals) if src.rules.has_decline else None
    types, _, ok = tile_tokens(spans, (5,))
    t = np.sort(types.astype(np.int64), axis=1)
    dup2 = t[:, 1:] == t[:, :-1]
    over = (dup2 & (_COPIES[np.maximum(t[:, 1:], 0)] == 1)).any(axis=1)
    over |= (t[:, 2:] == t[:, :-2]).any(axis=1)
    ok &= ~over
    n = len(spans)
    rows = np.flatnonzero(ok)
    if not len(rows):
        return pa.nulls(n, pa.string())
    key = t[rows, 0]
    for i in range(1, 5):
        key = key * NUM_TYPES + t[rows, i]
    cache = _LINES.get((src.rules, tables, reveals, as_json))
    if cache is None:
        cache = _LINES[(src.rules, tables, reveals, as_json)] = _Cache()
    slot = cache.slot[key]
    if (slot < 0).any():
        missing = np.unique(key[slot < 0])
        hands = [
            canonical_hand(TYPE_FIRST_ID[k // NUM_TYPES ** (4 - i) % NUM_TYPES] for i in range(5))
            for k in missing.tolist()
        ]
        lines = []
        for h in _evaluate_many(hands, src):
            rec = h.to_json(reveals)
            lines.append(
                (json.dumps(rec, ensure_ascii=False) if as_json else cli_eval_text(rec)) + "\n"
            )
        cache.add(missing, lines)
        slot = cache.slot[key]
    index = np.zeros(n, dtype=np.int64)
    index[rows] = slot
    return pc.take(cache.table, pa.array(index, mask=~ok))


class _Cache:
    """The lines written so far: ``slot[key]`` their index in ``table`` (-1: none yet)."""

    def __init__(self) -> None:
        self.slot = np.full(NUM_TYPES**5, -1, dtype=np.int32)
        self.table = pa.array([], pa.string())

    def add(self, keys: np.ndarray, lines: list[str]) -> None:
        self.slot[keys] = len(self.table) + np.arange(len(keys), dtype=np.int32)
        self.table = pa.concat_arrays([self.table, pa.array(lines, pa.string())])
