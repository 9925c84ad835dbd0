"""What the Niu Niu language stage of ``bull verify --infer`` works with (issue 22): a
claims file's rows as :class:`Rows`; a learned :class:`Item`, the significance gate
(:func:`gate`) and the :class:`Lesson` are the game-blind ones of
:mod:`solver.kit.lesson`. See :mod:`~solver.games.niuniu.induce`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from solver.games.niuniu.rules import NiuNiuRules
from solver.kit.lesson import Item, Lesson, gate

__all__ = ["Item", "Lesson", "Rows", "gate", "read_rows"]


# ---------------------------------------------------------------- reading the rows


@dataclass(frozen=True)
class Rows:
    """A claims file's rows as the learner needs them (malformed rows left out)."""

    hands: npt.NDArray[np.uint8]
    """Hand rows' cards, sorted (n, 5)."""
    claim: npt.NDArray[np.int64]
    """Each hand row's claimed category, an index into ``names`` (-1: not claimed)."""
    names: tuple[str, ...]
    player: npt.NDArray[np.uint8]
    banker: npt.NDArray[np.uint8]
    winner: npt.NDArray[np.int64]
    """0 player, 1 banker, 2 push, -1 not claimed."""
    net: npt.NDArray[np.float64]
    """The player's net claimed (NaN: not claimed)."""
    bet: npt.NDArray[np.int64]
    """Index into the rule set's bets."""
    commission: npt.NDArray[np.float64]
    """The row's commission (NaN: the rule set's)."""


def _labels(rules: NiuNiuRules) -> dict[str, str]:
    from solver.games.niuniu.verify import _nn_labels

    out = {k: rules.labels[v] for k, v in _nn_labels().items() if v < len(rules.labels)}
    out |= {n: n for n in rules.labels if n}
    return out


def _names(arr: pa.Array) -> tuple[npt.NDArray[np.int64], list[str]]:
    from solver.kit.parse import as_text

    text = pc.utf8_lower(pc.utf8_trim_whitespace(as_text(arr)))
    text = pc.replace_substring_regex(text, r"[\s\-]+", "_")
    enc = (
        pc.dictionary_encode(text).combine_chunks()
        if isinstance(text, pa.ChunkedArray)
        else (pc.dictionary_encode(text))
    )
    idx = np.asarray(enc.indices.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)
    return idx, [str(x) for x in enc.dictionary.to_pylist()]


def read_rows(
    path: str,
    fmt: str,
    columns: Mapping[str, str],
    batch_size: int,
    rules: NiuNiuRules,
    bet: str | None = None,
    commission: float | None = None,
) -> Rows:
    """The rows of a claims file (the same reader as ``bull verify``); a row without a
    bet or a commission of its own takes ``bet`` (default: the rule set's) and
    ``commission`` (``None``: the rule set's, which the learner may learn)."""
    from solver.kit.check import WINNER_LABELS
    from solver.kit.parse import parse_card_hands, parse_float, parse_label
    from solver.kit.read import read_chunks

    _, _, chunks = read_chunks(path, fmt, columns, batch_size)
    bet_name = bet
    alias = _labels(rules)
    names: list[str] = []
    hands, claims, pls, bks, wins, nets, bets, comms = ([] for _ in range(8))
    size, copies = rules.deck_size, rules.decks
    for chunk in chunks:
        cols = chunk.columns
        n = len(chunk)
        hand_rows = np.zeros(n, dtype=bool)
        if "hand" in cols:
            h = parse_card_hands(cols["hand"], (5,), copies=copies)
            hand_rows = h.stated
            ok = h.stated & ~h.bad & (h.ids < size).all(axis=1)
            claim = np.full(n, -1, dtype=np.int64)
            if "category" in cols:
                idx, dic = _names(cols["category"])
                ids = []
                for d in dic:
                    d = alias.get(d, d)
                    if not d:
                        ids.append(-1)
                        continue
                    if d not in names:
                        names.append(d)
                    ids.append(names.index(d))
                look = np.array([*ids, -1], dtype=np.int64)
                claim = look[idx]
            hands.append(np.sort(h.ids[ok], axis=1))
            claims.append(claim[ok])
        if "player" in cols and "banker" in cols:
            p = parse_card_hands(cols["player"], (5,), "player", copies=copies)
            b = parse_card_hands(cols["banker"], (5,), "banker", copies=copies)
            ok = ~hand_rows & p.stated & b.stated & ~p.bad & ~b.bad
            ok &= (p.ids < size).all(axis=1) & (b.ids < size).all(axis=1)
            w = np.full(n, -1, dtype=np.int64)
            if "winner" in cols:
                pw = parse_label(cols["winner"], "winner", WINNER_LABELS)
                w = np.where(pw.stated, pw.value, -1)
            net = np.full(n, np.nan)
            if "net" in cols:
                pn = parse_float(cols["net"], "net")
                net = np.where(pn.stated, pn.value, np.nan)
            bet_of = np.full(n, rules.bets.index(rules.bet(bet_name)), dtype=np.int64)
            if "bet" in cols:
                pb = parse_label(cols["bet"], "bet", {x: i for i, x in enumerate(rules.bets)})
                bet_of = np.where(pb.stated, pb.value, bet_of)
                ok &= ~pb.bad
            comm = np.full(n, np.nan if commission is None else float(commission))
            if "commission" in cols:
                pcm = parse_float(cols["commission"], "commission")
                comm = np.where(pcm.stated, pcm.value, comm)
            pls.append(np.sort(p.ids[ok], axis=1))
            bks.append(np.sort(b.ids[ok], axis=1))
            wins.append(w[ok])
            nets.append(net[ok])
            bets.append(bet_of[ok])
            comms.append(comm[ok])

    def cat(parts: list[Any], dtype: Any, width: int = 0) -> Any:
        if parts:
            return np.concatenate(parts).astype(dtype)
        return np.zeros((0, width) if width else 0, dtype=dtype)

    return Rows(
        cat(hands, np.uint8, 5),
        cat(claims, np.int64),
        tuple(names),
        cat(pls, np.uint8, 5),
        cat(bks, np.uint8, 5),
        cat(wins, np.int64),
        cat(nets, np.float64),
        cat(bets, np.int64),
        cat(comms, np.float64),
    )
