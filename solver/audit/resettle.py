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

from solver.audit.columns import (
    RESULT_LABELS,
    Pick,
    RoundKeys,
    Rows,
    all_finite,
    arrow_of,
    column,
    hand_lists,
    label,
    number,
    rows_of,
    text_of,
)
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
    prow: Rows,
    brow: Rows,
    ids: npt.NDArray[np.uint8],
    winner: npt.NDArray[np.int8],
    net: npt.NDArray[np.float64],
    pick: Pick | None = None,
) -> npt.NDArray[np.float64]:
    """Re-check the claims of the player rows ``prow`` (bankers ``brow``) of the block
    ``t``; the logged net of each (see the module docstring). ``pick``: gives a
    column's values at ``prow`` (faster than indexing by it); ``prow`` and ``brow`` may be
    made when first needed (see :data:`~solver.audit.columns.Rows`)."""
    stated_any = np.zeros(len(winner), dtype=bool)
    wrong = np.zeros(len(winner), dtype=bool)
    logged = np.asarray(net, dtype=np.float64)  # read only: the hold check adds it up
    claims: dict[str, Any] = {}
    if "result" in t.column_names:
        typ = t.schema.field("result").type
        if pa.types.is_integer(typ) or pa.types.is_floating(typ):
            v = parse_float(pc.take(column(t, "result"), pa.array(rows_of(prow))), "result")
            val = np.where(v.value > 0, 0, np.where(v.value < 0, 1, 2))
            res_st, res_bad = v.stated, v.bad
        else:
            lab = label(t, "result", RESULT_LABELS, prow, pick)
            val, res_st, res_bad = lab.value, lab.stated, lab.bad
        claims["winner"] = (res_st, val, res_bad)
    if "net" in t.column_names:
        nv = number(column(t, "net"), "net", prow, pick)
        claims["net"] = (nv.stated, nv.value, nv.bad)
        if nv.stated.all() and not nv.bad.any() and all_finite(nv.value):
            logged = nv.value
        else:
            usable = nv.stated & ~nv.bad & np.isfinite(nv.value)
            logged = np.where(usable, nv.value, logged)
    everywhere = False  # a claim stated, and right, on every row
    for f, (st, val, bd) in claims.items():
        ok = val == winner if f == "winner" else _near(val, net)
        stats = part.fields.setdefault(f, [0, 0, 0])
        if st.all() and ok.all():  # (the common case: two passes, no arrays of flags)
            stats[0] += len(st)
            everywhere = True
        else:
            off = st & ~ok
            n_stated, n_off = int(np.count_nonzero(st)), int(np.count_nonzero(off))
            stats[0] += n_stated - n_off
            stats[1] += n_off
            stats[2] += len(st) - n_stated
            stated_any |= st
            wrong |= off
        part.malformed += int(np.count_nonzero(bd))
        left = max(0, room["malformed"] - len(part.malformed_rows))
        for i in np.flatnonzero(bd)[:left].tolist():
            prow = rows_of(prow)  # (made once)
            r = rnd_arr(int(prow[i]))
            part.malformed_rows.append((r, f"{'result' if f == 'winner' else f}: not readable"))
    if everywhere:
        stated_any[:] = True
    part.settled += int(np.count_nonzero(stated_any))
    n_wrong = int(np.count_nonzero(wrong))
    part.disagree += n_wrong
    left = max(0, room["disagree"] - len(part.disagree_rows)) if n_wrong else 0
    labels = ("player", spec.banker_word, "push")
    separate = spec.hooks.get("separate")
    room_agree = max(0, room.get("agree", 0))
    agree = np.flatnonzero(stated_any & ~wrong)[:room_agree] if room_agree else None
    if agree is not None and len(agree):
        p_at, b_at = rows_of(prow)[agree], rows_of(brow)[agree]
        part.agree_rows.append(_agree_rows(spec, rnd_arr, p_at, b_at, ids, claims, agree, labels))
    p_rows, b_rows = (rows_of(prow), rows_of(brow)) if left else (winner[:0], winner[:0])
    for i in np.flatnonzero(wrong)[:left].tolist() if left else []:
        pl, bk = ids[p_rows[i] : p_rows[i] + 1], ids[b_rows[i] : b_rows[i] + 1]
        if separate is not None:
            pl, bk = separate(pl, bk)
        row: dict[str, Any] = {
            "round": rnd_arr(int(p_rows[i])),
            "seat": int(p_rows[i]) - int(b_rows[i]),
            "player": [int(c) for c in pl[0] if c != PAD],
            "banker": [int(c) for c in bk[0] if c != PAD],
        }
        if "winner" in claims and claims["winner"][0][i]:
            row["winner"] = labels[int(claims["winner"][1][i])]
        if "net" in claims and claims["net"][0][i]:
            row["net"] = float(claims["net"][1][i])
        part.disagree_rows.append(row)
    return logged


def _near(claim: npt.NDArray[np.float64], net: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
    """``|claim - net| <= 1e-6`` (``net`` finite), worked out only where they differ.

    >>> _near(np.array([1.0, 2.0, 3.0, np.inf]), np.array([1.0, 2.0000001, 4.0, 1.0])).tolist()
    [True, True, False, False]
    """
    ok: npt.NDArray[np.bool_] = np.asarray(claim == net)
    if not ok.all():
        at = np.flatnonzero(~ok)
        ok[at] = np.abs(claim[at] - net[at]) <= 1e-6
    return ok


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
    winner = pa.nulls(len(at), pa.string())
    net = pa.nulls(len(at), pa.float64())
    if "winner" in claims:  # a stated, agreeing claim is 0, 1 or 2: a label
        st, val, _ = claims["winner"]
        code = arrow_of(np.where(st[at], val[at], 0).astype(np.int8), ~st[at])
        winner = pc.take(text_of(labels), code)
    if "net" in claims:
        st, val, _ = claims["net"]
        net = arrow_of(np.asarray(val[at], dtype=np.float64), ~st[at])
    return pa.table(
        {
            "round": keys,
            "seat": arrow_of((prow - brow).astype(np.int64)),
            "player": hand_lists(pl),
            "banker": hand_lists(bk),
            "winner": winner,
            "net": net,
        }
    )
