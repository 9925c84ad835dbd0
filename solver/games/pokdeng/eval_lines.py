"""``bull eval pokdeng --input``: a block of hand lines answered at once.

The hands are read by the batch tokeniser (:func:`solver.kit.notation.card_tokens`),
evaluated by :func:`~solver.games.pokdeng.play.evaluate_batch` per hand size, and their
text or JSON lines built column by column — the same lines, byte for byte, as
``cli_eval`` and ``cli_eval_text`` give one hand at a time. A hand this path leaves (an
odd spelling, a card repeated more often than the shoe holds it) is null: the caller
answers it alone, with the per-hand message.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from solver.core.cards import CARD_NAMES
from solver.games.pokdeng.commands import _check_options
from solver.games.pokdeng.hands import HandClass
from solver.games.pokdeng.play import _resolve, evaluate_batch
from solver.games.pokdeng.rules import HandType
from solver.kit import textcols as tc
from solver.kit.notation import PAD, Spans, card_tokens

__all__ = ["eval_lines"]

_NAMES = tc.strings(CARD_NAMES)
_JSON_NAMES = tc.json_strings(CARD_NAMES)


def eval_lines(
    spans: Spans, rules: str | None, options: dict[str, Any], tables: str | None, as_json: bool
) -> pa.Array:
    """Each hand's ``bull eval`` line (with its line end), null where the caller must
    answer it alone."""
    _check_options(options, policy_ok=False)
    rs = _resolve(rules)
    spec: Any = rs.rules if rs.config is None else rs.config
    ids, size, ok = card_tokens(spans, (2, 3))
    srt = np.sort(ids, axis=1)  # PAD sorts last
    same = srt[:, 1:] == srt[:, :-1]
    same &= srt[:, 1:] != PAD
    copies = rs.rules.decks
    if copies == 1:
        ok &= ~same.any(axis=1)
    elif copies == 2:
        ok &= ~same.all(axis=1)
    n = len(spans)
    parts: list[pa.Array] = []
    order: list[np.ndarray] = []
    for k in (2, 3):
        rows = np.flatnonzero(ok & (size == k))
        if not len(rows):
            continue
        hands = srt[rows, :k]
        got = evaluate_batch(hands, spec, tables)
        parts.append(_lines(hands, got, rs.rules.name, as_json))
        order.append(rows)
    if not parts:
        return pa.nulls(n, pa.string())
    done = pa.concat_arrays(parts)
    rows = np.concatenate(order)
    index = np.zeros(n, dtype=np.int64)
    index[rows] = np.arange(len(rows))
    if len(rows) == n and (rows == np.arange(n)).all():
        return done
    return pc.take(done, pa.array(index, mask=~ok))


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
            tc.json_strings([name])[0].as_py(),
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
    import json

    try:
        return json.dumps(HandType(code).label, ensure_ascii=False)
    except ValueError:
        return '""'
