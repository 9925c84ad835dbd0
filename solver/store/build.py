"""Build a set of tables from given builders and install it atomically (game-blind).

The caller names the builders (the registry's games); this module runs them, reports
what it built and hands the tables to :func:`~solver.store.tables.write_set`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa

from solver.store.sets import write_set
from solver.store.tables import default_build_dir

__all__ = ["Builder", "build_set"]

Builder = Callable[[], Mapping[str, pa.Table]]
"""A game's builder: enumerates every hand, returns ``{table name: pyarrow.Table}``."""


def build_set(
    builders: Mapping[str, Builder],
    tables: str | os.PathLike[str] | None = None,
    log: Callable[[str], Any] | None = None,
    progress: Callable[[str], Any] | None = None,
    headlines: Callable[[str, str, pa.Table], list[str]] | None = None,
) -> dict[str, Any]:
    """Run ``builders`` (game → builder) and install their tables as one new set.

    ``log`` receives the summary lines, ``progress`` what is being done now,
    ``headlines(game, table name, table)`` a few facts per table for the summary.
    Returns a summary: per table its rows, digest and build seconds, and the set path.
    """
    say = log or (lambda s: None)
    now = progress or (lambda s: None)
    started = time.perf_counter()
    out_dir = default_build_dir(tables)
    built: dict[str, pa.Table] = {}
    summary: dict[str, Any] = {"tables": {}, "directory": str(out_dir)}
    for game, builder in builders.items():
        t0 = time.perf_counter()
        now(f"building {game} ...")
        result = builder()
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
            for line in headlines(game, name, table) if headlines else []:
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
