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


def build(games: Iterable[str] | None = None, tables: str | os.PathLike[str] | None = None,
          log: Callable[[str], Any] | None = None) -> dict[str, Any]:
    """Build the tables of ``games`` (default: all) and install them as one new set.

    Returns a summary: per table its rows, digest and build seconds, and the set path.
    """
    say = log or (lambda s: None)
    chosen = list(games) if games else list(BUILDERS)
    for g in chosen:
        _builder(g)  # fail on an unknown game before any work
    out_dir = default_build_dir(tables)
    built: dict[str, pa.Table] = {}
    summary: dict[str, Any] = {"tables": {}, "directory": str(out_dir)}
    for game in chosen:
        t0 = time.perf_counter()
        say(f"building {game} ...")
        result = _builder(game)()
        seconds = time.perf_counter() - t0
        for name, table in result.items():
            meta = table.schema.metadata or {}
            digest = meta.get(b"bull.digest", b'""').decode().strip('"')
            summary["tables"][name] = {"game": game, "rows": table.num_rows,
                                       "digest": digest, "seconds": round(seconds, 3)}
            say(f"  {name}: {table.num_rows:,} rows, digest {digest[:16]}…, {seconds:.2f} s")
        built.update(result)
    t0 = time.perf_counter()
    set_path = write_set(built, out_dir)
    summary["write_seconds"] = round(time.perf_counter() - t0, 3)
    summary["set"] = str(Path(set_path))
    say(f"wrote {len(built)} table(s) to {out_dir} (set {Path(set_path).name}) "
        f"in {summary['write_seconds']:.2f} s")
    return summary
