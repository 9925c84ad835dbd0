"""Build every table: each game module enumerates its hands and returns Arrow tables.

``bull build`` and ``scripts/build_tables.py`` both call :func:`build`.
"""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pyarrow as pa

from .errors import BullError
from .tables import default_build_dir, write_set

__all__ = ["BUILDERS", "build"]

BUILDERS: dict[str, str] = {
    "niuniu": "solver.niuniu:build_tables",
    "taungau": "solver.taungau:build_tables",
    "pokdeng": "solver.pokdeng_strategy:build_tables",
}
"""Game → ``module:function`` returning ``{table name: pyarrow.Table}``."""


def _builder(game: str) -> Callable[[], dict[str, pa.Table]]:
    if game not in BUILDERS:
        raise BullError(f"unknown game {game!r} (expected one of: {', '.join(BUILDERS)})")
    module, func = BUILDERS[game].split(":")
    fn: Callable[[], dict[str, pa.Table]] = getattr(importlib.import_module(module), func)
    return fn


def _headlines(name: str, table: pa.Table) -> list[str]:
    """A few facts per table for the build summary, read back from the built columns."""
    import json

    import numpy as np

    def col(c: str) -> Any:
        return table.column(c).to_numpy()

    n = table.num_rows
    if name == "niuniu":
        pts = np.bincount(col("points"), minlength=11)
        return [
            f"bull in {n - pts[0]:,} hands ({(n - pts[0]) / n:.2%}); Niu Niu {pts[10]:,}; "
            f"five faces {int(col('five_faces').sum()):,}"
        ]
    if name == "taungau":
        bull = int(col("has_bull").sum())
        has = col("has_bull")
        differ = int((has & (col("macau_points") % 10 != col("pagat_points"))).sum())
        return [
            f"bull in {bull:,} hands ({bull / n:.2%}); macau and pagat play "
            f"{differ:,} hands for different scores"
        ]
    if name == "pokdeng":
        two = col("size") == 2
        pok = int((two & (col("points") >= 8)).sum())
        return [
            f"{int(two.sum()):,} two-card and {int((~two).sum()):,} three-card hands; "
            f"Pok in {pok:,} two-card hands"
        ]
    if name == "pokdeng_strategy":
        meta = table.schema.metadata or {}
        extra = json.loads(meta.get(b"bull.extra", b"{}"))
        ev = extra.get("overall_ev", {}).get("standard", {}).get("4")
        if ev:
            return [
                f"standard, dealer draws on 4 or less: player EV {ev['ev_optimal']:+.5f} "
                f"drawing optimally, {ev['ev_simple']:+.5f} drawing on 4 or less"
            ]
    return []


def build(
    games: Iterable[str] | None = None,
    tables: str | os.PathLike[str] | None = None,
    log: Callable[[str], Any] | None = None,
    progress: Callable[[str], Any] | None = None,
) -> dict[str, Any]:
    """Build the tables of ``games`` (default: all) and install them as one new set.

    ``log`` receives the summary lines, ``progress`` what is being done now. Returns a
    summary: per table its rows, digest and build seconds, and the set path.
    """
    say = log or (lambda s: None)
    now = progress or (lambda s: None)
    chosen = list(games) if games else list(BUILDERS)
    for g in chosen:
        _builder(g)  # fail on an unknown game before any work
    started = time.perf_counter()
    out_dir = default_build_dir(tables)
    built: dict[str, pa.Table] = {}
    summary: dict[str, Any] = {"tables": {}, "directory": str(out_dir)}
    for game in chosen:
        t0 = time.perf_counter()
        now(f"building {game} ...")
        result = _builder(game)()
        seconds = time.perf_counter() - t0
        for name, table in result.items():
            meta = table.schema.metadata or {}
            digest = meta.get(b"bull.digest", b'""').decode().strip('"')
            summary["tables"][name] = {
                "game": game,
                "rows": table.num_rows,
                "digest": digest,
                "seconds": round(seconds, 3),
            }
            say(f"  {name}: {table.num_rows:,} rows, digest {digest[:16]}…, {seconds:.2f} s")
            for line in _headlines(name, table):
                say(f"      {line}")
        built.update(result)
    t0 = time.perf_counter()
    now(f"writing {len(built)} table(s) to {out_dir} ...")
    set_path = write_set(built, out_dir)
    summary["write_seconds"] = round(time.perf_counter() - t0, 3)
    summary["set"] = str(Path(set_path))
    summary["total_seconds"] = round(time.perf_counter() - started, 3)
    say(
        f"wrote {len(built)} table(s) to {out_dir} (set {Path(set_path).name}) "
        f"in {summary['write_seconds']:.2f} s; {summary['total_seconds']:.1f} s in all"
    )
    return summary
