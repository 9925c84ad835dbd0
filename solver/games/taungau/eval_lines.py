"""``bull eval taungau --input``: a block of hand lines answered at once.

A Tau Ngau answer depends only on the hand's multiset of tile types (33,934 of them),
so each distinct hand is answered once by the per-hand path
(:func:`~solver.games.taungau.commands.cli_eval` and ``cli_eval_text``: the same
record, hence the same line) and every line holding it takes that line, by one
``take`` per block. Once a process has written many lines (a large input), it writes
them all and stores them in the user's cache (:mod:`solver.kit.linestore`, checked
when read), so the next run reads its lines instead of writing them. The hands are
read by the batch tokeniser (:func:`solver.kit.notation.tile_tokens`); a hand it
leaves (an odd spelling, more copies of a type than the set holds) is null in the
result, for the caller to answer alone with the per-hand message.
"""

from __future__ import annotations

import json
from itertools import combinations_with_replacement
from typing import Any

import numpy as np
import pyarrow as pa

from solver.core.tiles import (
    NUM_TILES,
    NUM_TYPES,
    TYPE_COPIES,
    TYPE_FIRST_ID,
    canonical_hand,
    tile_type,
)
from solver.games.taungau.commands import _check_options, cli_eval_text
from solver.games.taungau.play import _evaluate_many, _source
from solver.kit import linestore
from solver.kit import textcols as tc
from solver.kit.notation import Spans, sort_rows, tile_tokens

__all__ = ["all_keys", "answer", "eval_ids", "eval_lines", "hand_keys"]

_COPIES = np.array(TYPE_COPIES, dtype=np.int64)
_TYPE_OF = np.array([tile_type(t) for t in range(NUM_TILES)], dtype=np.int64)
_LINES: dict[tuple[Any, ...], tc.LineCache] = {}
"""Lines already written, per (rules, tables, banker reveals, format)."""
_STORE_AFTER = 2048
"""Lines written in one process past which every line is written and stored."""


def eval_lines(
    spans: Spans, rules: str | None, options: dict[str, Any], tables: str | None, as_json: bool
) -> pa.Array:
    """Each hand's ``bull eval`` line (with its line end), null where the caller must
    answer it alone."""
    mode = _check_options(options)
    types, _, ok = tile_tokens(spans, (5,))
    key, ok = hand_keys(types, ok)
    return answer(key, ok, rules, tables, mode, as_json)


def eval_ids(
    ids: np.ndarray, rules: Any, options: dict[str, Any], tables: str | None, as_json: bool
) -> pa.Array:
    """The ``bull eval`` lines of hands given as tile ids (0..31, :mod:`solver.core.tiles`),
    (n, 5) in any order: see :meth:`solver.kit.entry.GameEntry.eval_ids`."""
    mode = _check_options(options)
    arr = np.asarray(ids, dtype=np.int64)
    ok = ((arr >= 0) & (arr < len(_TYPE_OF))).all(axis=1)
    ok &= (sort_rows(arr)[:, 1:] != sort_rows(arr)[:, :-1]).all(axis=1)  # a tile once
    key, ok = hand_keys(_TYPE_OF[np.where(ok[:, None], arr, 0)], ok)
    return answer(key, ok, rules, tables, mode, as_json)


def hand_keys(types: np.ndarray, ok: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each hand's multiset of tile types (``types``: (n, 5), any order) as one number,
    and ``ok`` less the hands holding a type more often than the set does."""
    t = sort_rows(types).astype(np.int64)
    dup2 = t[:, 1:] == t[:, :-1]
    over = (dup2 & (_COPIES[np.maximum(t[:, 1:], 0)] == 1)).any(axis=1)
    over |= (t[:, 2:] == t[:, :-2]).any(axis=1)
    ok = ok & ~over & (t[:, 0] >= 0)
    key = t[:, 0].copy()
    for i in range(1, 5):
        key = key * NUM_TYPES + t[:, i]
    return np.where(ok, key, 0), ok


def all_keys() -> np.ndarray:
    """The key of every hand of the set (33,934 multisets), sorted."""
    out = [
        k
        for k in combinations_with_replacement(range(NUM_TYPES), 5)
        if all(k.count(t) <= TYPE_COPIES[t] for t in set(k))
    ]
    arr = np.array(out, dtype=np.int64)
    key = arr[:, 0].copy()
    for i in range(1, 5):
        key = key * NUM_TYPES + arr[:, i]
    return key


def answer(
    key: np.ndarray,
    ok: np.ndarray,
    rules: Any,
    tables: str | None,
    mode: str | None,
    as_json: bool,
) -> pa.Array:
    """The lines of hands given by :func:`hand_keys` (null where ``ok`` is false)."""
    src = _source(rules, tables)
    reveals = (mode or src.rules.banker_reveals) if src.rules.has_decline else None
    cache = _LINES.get((src.rules, tables, reveals, as_json))
    if cache is None:
        cache = _LINES[(src.rules, tables, reveals, as_json)] = tc.LineCache(NUM_TYPES**5)
    missing = cache.missing(key[ok])
    if len(missing):
        store = _store_key(src, reveals, as_json)
        if not len(cache.table):  # a first block: lines stored by an earlier run?
            got = linestore.load("taungau-eval", store)
            if got is not None:
                cache.add(*got)
                missing = cache.missing(key[ok])
    if len(missing):
        big = cache.written + len(missing) > _STORE_AFTER
        if big:
            every = all_keys()
            missing = every[cache.slot[every] < 0]
        for i in range(0, len(missing), 4096):  # a few thousand records at a time
            part = missing[i : i + 4096]
            cache.add(part, _write(part, src, reveals, as_json))
        cache.written += len(missing)
        if big:
            every = all_keys()
            linestore.save("taungau-eval", store, every, cache.take(every))
    return cache.take(key, ok)


def _store_key(src: Any, reveals: str | None, as_json: bool) -> dict[str, Any]:
    return {
        "rules": src.rules.to_data(),
        "table": src.table().meta.get("digest"),
        "reveals": reveals,
        "json": as_json,
    }


def _write(keys: np.ndarray, src: Any, reveals: str | None, as_json: bool) -> pa.Array:
    """The lines of the hands ``keys``, by the per-hand path."""
    hands = [
        canonical_hand(TYPE_FIRST_ID[k // NUM_TYPES ** (4 - i) % NUM_TYPES] for i in range(5))
        for k in keys.tolist()
    ]
    lines = []
    for h in _evaluate_many(hands, src):
        rec = h.to_json(reveals)
        lines.append(
            (json.dumps(rec, ensure_ascii=False) if as_json else cli_eval_text(rec)) + "\n"
        )
    return tc.strings(lines)
