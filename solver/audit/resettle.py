"""The settlement re-check of one block of an audit: every player row's claims
(``result``, ``net``) against its re-settled showdown with the round's banker.

:func:`resettle` counts the agreeing and disagreeing claims into a
:class:`~solver.audit.partial.Partial`, keeps the disagreeing rows (and the first
agreeing ones) for the verify engine's diagnosis, and returns each player row's
*logged* net — the claimed ``net`` where the log states a readable one, else the
re-settled amount — which the hold check adds up.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from solver.audit.columns import RESULT_LABELS, RoundKeys, column, hand_lists, label, number
from solver.audit.partial import Partial, Room
from solver.audit.spec import AuditSpec
from solver.kit.parse import parse_float

__all__ = ["PAD", "resettle"]

PAD = 255


def resettle(
    spec: AuditSpec,
    part: Partial,
    room: Room,
    t: pa.Table,
    rnd_arr: RoundKeys,
    prow: npt.NDArray[np.int64],
    brow: npt.NDArray[np.int64],
    ids: npt.NDArray[np.uint8],
    winner: npt.NDArray[np.int8],
    net: npt.NDArray[np.float64],
) -> npt.NDArray[np.float64]:
    """Re-check the claims of the player rows ``prow`` (bankers ``brow``) of the block
    ``t``; the logged net of each (see the module docstring)."""
    idx = pa.array(prow)
    stated_any = np.zeros(len(prow), dtype=bool)
    wrong = np.zeros(len(prow), dtype=bool)
    logged = np.asarray(net, dtype=np.float64).copy()
    claims: dict[str, Any] = {}
    if "result" in t.column_names:
        typ = t.schema.field("result").type
        if pa.types.is_integer(typ) or pa.types.is_floating(typ):
            v = parse_float(pc.take(column(t, "result"), idx), "result")
            val = np.where(v.value > 0, 0, np.where(v.value < 0, 1, 2))
            res_st, res_bad = v.stated, v.bad
        else:
            lab = label(t, "result", RESULT_LABELS, prow)
            val, res_st, res_bad = lab.value, lab.stated, lab.bad
        claims["winner"] = (res_st, val, res_bad)
    if "net" in t.column_names:
        nv = number(column(t, "net"), "net", prow)
        claims["net"] = (nv.stated, nv.value, nv.bad)
        usable = nv.stated & ~nv.bad & np.isfinite(nv.value)
        logged[usable] = nv.value[usable]
    for f, (st, val, bd) in claims.items():
        ok = val == winner if f == "winner" else np.abs(val - net) <= 1e-6
        stats = part.fields.setdefault(f, [0, 0, 0])
        stats[0] += int((st & ok).sum())
        stats[1] += int((st & ~ok).sum())
        stats[2] += int((~st).sum())
        stated_any |= st
        wrong |= st & ~ok
        part.malformed += int(bd.sum())
        left = max(0, room["malformed"] - len(part.malformed_rows))
        for i in np.flatnonzero(bd)[:left].tolist():
            r = rnd_arr(int(prow[i]))
            part.malformed_rows.append((r, f"{'result' if f == 'winner' else f}: not readable"))
    part.settled += int(stated_any.sum())
    part.disagree += int(wrong.sum())
    left = max(0, room["disagree"] - len(part.disagree_rows))
    labels = ("player", spec.banker_word, "push")
    separate = spec.hooks.get("separate")
    agree = np.flatnonzero(stated_any & ~wrong)[: max(0, room.get("agree", 0))]
    if len(agree):
        part.agree_rows.append(
            _agree_rows(spec, rnd_arr, prow[agree], brow[agree], ids, claims, agree, labels)
        )
    for i in np.flatnonzero(wrong)[:left].tolist():
        pl, bk = ids[prow[i] : prow[i] + 1], ids[brow[i] : brow[i] + 1]
        if separate is not None:
            pl, bk = separate(pl, bk)
        row: dict[str, Any] = {
            "round": rnd_arr(int(prow[i])),
            "seat": int(prow[i]) - int(brow[i]),
            "player": [int(c) for c in pl[0] if c != PAD],
            "banker": [int(c) for c in bk[0] if c != PAD],
        }
        if "winner" in claims and claims["winner"][0][i]:
            row["winner"] = labels[int(claims["winner"][1][i])]
        if "net" in claims and claims["net"][0][i]:
            row["net"] = float(claims["net"][1][i])
        part.disagree_rows.append(row)
    return logged


def _agree_rows(
    spec: AuditSpec,
    rnd_arr: RoundKeys,
    prow: npt.NDArray[np.int64],
    brow: npt.NDArray[np.int64],
    ids: npt.NDArray[np.uint8],
    claims: dict[str, Any],
    at: npt.NDArray[np.int64],
    labels: tuple[str, str, str],
) -> pa.Table:
    """The agreeing player rows ``prow`` (with their bankers ``brow``; ``at``: their
    places among the block's player rows) as showdown rows for the diagnosis."""
    pl, bk = ids[prow], ids[brow]
    separate = spec.hooks.get("separate")
    if separate is not None:
        pl, bk = separate(pl, bk)
    keys = rnd_arr.take(prow)
    winner: list[str | None] = [None] * len(at)
    net: list[float | None] = [None] * len(at)
    if "winner" in claims:
        st, val, _ = claims["winner"]
        winner = [labels[int(v)] if s else None for s, v in zip(st[at], val[at], strict=True)]
    if "net" in claims:
        st, val, _ = claims["net"]
        net = [float(v) if s else None for s, v in zip(st[at], val[at], strict=True)]
    return pa.table(
        {
            "round": keys,
            "seat": pa.array(prow - brow, pa.int64()),
            "player": hand_lists(pl),
            "banker": hand_lists(bk),
            "winner": pa.array(winner, pa.string()),
            "net": pa.array(net, pa.float64()),
        }
    )
