"""The settlement re-check's summary, diagnosed by the verify engine.

Every player row is re-settled against its round's banker in the batch work
(:mod:`solver.audit.batch`, the game's own ``settle``). The disagreeing rows (up to
:data:`~solver.audit.batch.MAX_SETTLE_ROWS`), with the agreeing ones (up to
:data:`~solver.audit.partial.MAX_AGREE_ROWS`), are then handed to ``bull verify``'s
engine as showdown rows — ``player``, ``banker``, ``winner``, ``net`` — which checks
them again and names the rule variants that explain the disagreements, each scored by
verify's own scorer on the agreeing rows too (what it contradicts). The summary is shaped like
verify's, with the audit's counts over every row.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from solver.audit.batch import Partial

__all__ = ["settlement_summary"]


def settlement_summary(
    part: Partial,
    game: str,
    rules: str | None,
    options: Mapping[str, Any],
    tables: str | None,
) -> dict[str, Any]:
    """``checked``, ``agree``, ``disagree``, ``fields``, ``diagnosis``, ``headline`` and
    ``examples`` (with each row's round and seat)."""
    fields = {
        f: {"agree": v[0], "disagree": v[1], "not_stated": v[2]} for f, v in part.fields.items()
    }
    out: dict[str, Any] = {
        "checked": part.settled,
        "agree": part.settled - part.disagree,
        "disagree": part.disagree,
        "by_field": {f: v["disagree"] for f, v in fields.items()},
        "fields": fields,
        "diagnosis": [],
        "headline": "all settlements agree" if not part.disagree else "",
        "diagnosed": 0,
        "examples": [],
    }
    if not part.disagree:
        return out
    rows = part.disagree_rows
    cols: dict[str, Any] = {
        "player": pa.array([r["player"] for r in rows], pa.list_(pa.uint8())),
        "banker": pa.array([r["banker"] for r in rows], pa.list_(pa.uint8())),
    }
    if "winner" in part.fields:
        cols["winner"] = pa.array([r.get("winner") for r in rows], pa.string())
    if "net" in part.fields:
        cols["net"] = pa.array([r.get("net") for r in rows], pa.float64())
    table = pa.table(cols)
    agreeing = part.settled - part.disagree
    scored = part.agree_kept
    if scored:  # the disagreeing rows first (their lines name the examples), then these
        agree = pa.concat_tables(part.agree_rows).select(table.column_names)
        table = pa.concat_tables([table, agree.cast(table.schema)])
    from solver.verify import verify_file

    with tempfile.TemporaryDirectory(prefix="bull-audit-") as tmp:
        path = os.path.join(tmp, "showdowns.parquet")
        pq.write_table(table, path)
        rep = verify_file(game, path, rules=rules, options=options, tables=tables)
    out["diagnosis"] = [d.to_json() for d in rep.diagnosis]
    out["headline"] = rep.headline
    notes = []
    if len(rows) < part.disagree:
        notes.append(f"diagnosed on the first {len(rows):,} of {part.disagree:,}")
    if scored < agreeing:
        notes.append(f"causes scored on the first {scored:,} of {agreeing:,} agreeing rows")
    if notes:
        out["headline"] += " (" + "; ".join(notes) + ")"
    out["agreeing_scored"] = scored
    out["diagnosed"] = rep.diagnosed
    out["confirmed"] = rep.disagree
    examples = []
    for ex in rep.examples[:20]:
        r = rows[int(ex["line"]) - 1] if 0 < int(ex["line"]) <= len(rows) else {}
        rec = {"round": r.get("round"), "seat": r.get("seat")}
        rec |= {k: v for k, v in ex.items() if k not in ("line", "row_type")}
        examples.append(rec)
    out["examples"] = examples
    return out
