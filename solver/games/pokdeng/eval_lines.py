"""``bull eval pokdeng --input``: a block of hand lines answered at once.

The hands are read by the batch tokeniser (:func:`solver.kit.notation.card_tokens`),
evaluated by :func:`~solver.games.pokdeng.play.evaluate_batch` per hand size, and their
text or JSON lines built column by column — the same lines, byte for byte, as
``cli_eval`` and ``cli_eval_text`` give one hand at a time. A hand this path leaves (an
odd spelling, a card repeated more often than the shoe holds it) is null: the caller
answers it alone, with the per-hand message.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pyarrow as pa

from solver.core.cards import CARD_NAMES
from solver.games.pokdeng.commands import _check_options
from solver.games.pokdeng.hands import HandClass
from solver.games.pokdeng.play import _resolve, evaluate_batch
from solver.games.pokdeng.rules import HandType
from solver.kit import textcols as tc
from solver.kit.notation import PAD, Spans, card_tokens, sort_rows

__all__ = ["answer", "eval_ids", "eval_lines"]

_NAMES = tc.strings(CARD_NAMES)
_JSON_NAMES = tc.json_strings(CARD_NAMES)


_LINES: dict[tuple[Any, ...], tc.LineCache] = {}
"""Lines already written, per (rules, tables, format), by the hand's sorted cards."""


def eval_lines(
    spans: Spans, rules: str | None, options: dict[str, Any], tables: str | None, as_json: bool
) -> pa.Array:
    """Each hand's ``bull eval`` line (with its line end), null where the caller must
    answer it alone. A hand's line depends only on its sorted cards (23,426 of them
    from one deck), so each is written once per process and read by one ``take``."""
    _check_options(options, policy_ok=False)
    rs = _resolve(rules)
    spec: Any = rs.rules if rs.config is None else rs.config
    ids, _size, ok = card_tokens(spans, (2, 3))
    return _answer_ids(ids, ok, rs, spec, tables, as_json)


def eval_ids(
    ids: np.ndarray, rules: Any, options: dict[str, Any], tables: str | None, as_json: bool
) -> pa.Array:
    """The ``bull eval`` lines of hands given as card ids, (n, 2) or (n, 3) in any
    order (a 3-column row may end in :data:`PAD` for a 2-card hand): see
    :meth:`solver.kit.entry.GameEntry.eval_ids`."""
    _check_options(options, policy_ok=False)
    rs = _resolve(rules)
    spec: Any = rs.rules if rs.config is None else rs.config
    arr = np.asarray(ids)
    wide = np.full((len(arr), 3), PAD, dtype=np.int64)
    wide[:, : arr.shape[1]] = arr
    card = wide != PAD
    ok = ((wide >= 0) & (wide < 52) | ~card).all(axis=1) & (card.sum(axis=1) >= 2)
    ok &= card[:, 0] & card[:, 1]
    return _answer_ids(
        np.where(ok[:, None], wide, 0).astype(np.uint8), ok, rs, spec, tables, as_json
    )


def _answer_ids(
    ids: np.ndarray, ok: np.ndarray, rs: Any, spec: Any, tables: str | None, as_json: bool
) -> pa.Array:
    srt = sort_rows(ids)  # PAD sorts last
    same = srt[:, 1:] == srt[:, :-1]
    same &= srt[:, 1:] != PAD
    copies = rs.rules.decks
    if copies == 1:
        ok = ok & ~same.any(axis=1)
    elif copies == 2:
        ok = ok & ~same.all(axis=1)
    return answer(srt, ok, rs, spec, tables, as_json)


def answer(
    srt: np.ndarray, ok: np.ndarray, rs: Any, spec: Any, tables: str | None, as_json: bool
) -> pa.Array:
    """The lines of sorted hands ``srt`` (:data:`PAD` after a 2-card hand's cards),
    null where ``ok`` is false."""
    key = srt.astype(np.int64)
    key[key == PAD] = 52
    key = (key[:, 0] * 53 + key[:, 1]) * 53 + key[:, 2]
    cache = _LINES.get((rs.rules, spec, tables, as_json))
    if cache is None:
        cache = _LINES[(rs.rules, spec, tables, as_json)] = tc.LineCache(53**3)
    new = cache.missing(key[ok])
    if len(new):
        hands = np.stack([new // 2809, new // 53 % 53, new % 53], axis=1)
        for k in (2, 3):
            rows = np.flatnonzero((hands[:, 2] == 52) == (k == 2))
            if len(rows):
                got = evaluate_batch(hands[rows, :k], spec, tables)
                cache.add(new[rows], _lines(hands[rows, :k], got, rs.rules.name, as_json))
    return cache.take(key, ok)


def _lines(hands: np.ndarray, got: dict[str, np.ndarray], name: str, as_json: bool) -> pa.Array:
    t = np.asarray(got["type"], dtype=np.int64)
    p = np.asarray(got["points"], dtype=np.int64)
    d = np.asarray(got["deng"], dtype=np.int64)
    k = hands.shape[1]
    if as_json:
        names = [tc.lookup(_JSON_NAMES, hands[:, i]) for i in range(k)]
        joined: list[pa.Array | str] = []
        for i, c in enumerate(names):
            joined += [", ", c] if i else [c]
        labels = [json_label(x) for x in range(max(int(t.max()) + 1, 1))]
        return tc.join(
            '{"hand": [',
            *joined,
            '], "type": ',
            tc.lookup(tc.strings(labels), t),
            ', "points": ',
            tc.ints(p),
            ', "deng": ',
            tc.ints(d),
            ', "strength": ',
            tc.ints(got["strength"]),
            ', "rules": ',
            json.dumps(name, ensure_ascii=False),
            "}\n",
        )
    names = [tc.lookup(_NAMES, hands[:, i]) for i in range(k)]
    spaced: list[pa.Array | str] = []
    for i, c in enumerate(names):
        spaced += [" ", c] if i else [c]
    key = (t * 100 + p) * 100 + d  # each distinct class spelled once
    uniq, inverse = np.unique(key, return_inverse=True)
    texts = [
        str(HandClass(HandType(int(u // 10000)), int(u // 100 % 100), int(u % 100)))
        for u in uniq.tolist()
    ]
    return tc.join(*spaced, ": ", tc.lookup(tc.strings(texts), inverse), "\n")


def json_label(code: int) -> str:
    """The JSON of a hand type's label (``"pok"``), or ``""`` for no type."""
    try:
        return json.dumps(HandType(code).label, ensure_ascii=False)
    except ValueError:
        return '""'
