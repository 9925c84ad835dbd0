"""What the row-group checksums cost a reader, measured against the same reads with the
check switched off, in the same run (ratios: this machine is noisy).

* one-shot lookup: a fresh process's first ``bull eval niuniu HAND`` reads one row
  group of six columns — the check hashes those slices;
* whole columns: ``bull odds``/``edge`` read whole columns — the check hashes each once.

Usage: python scripts/bench_checksums.py [--tables DIR] (default: a fresh niuniu build
in a temporary directory).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from solver.build import build
from solver.store import tables as tb

COLUMNS = ["has_bull", "points", "bull_mask", "n_bulls", "classic_category", "classic_strength"]


def timed(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    runs = []
    for _ in range(repeat):
        tb._LOADED.clear()
        t0 = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - t0)
    return statistics.median(runs)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tables")
    args = ap.parse_args()
    folder = Path(args.tables) if args.tables else Path(tempfile.mkdtemp())
    if not args.tables:
        build(["niuniu"], tables=folder)

    def one_row() -> None:
        tb.open_table("niuniu", folder).rows([123_456], COLUMNS)

    def whole() -> None:
        t = tb.open_table("niuniu", folder)
        for c in COLUMNS:
            t.column(c)

    checked = (timed(one_row, 30), timed(whole, 5))
    real = tb.LoadedTable._check, tb._array_checksums
    tb.LoadedTable._check = lambda self, name, groups, sums: None  # type: ignore[method-assign]
    tb._array_checksums = lambda arr: []
    try:
        unchecked = (timed(one_row, 30), timed(whole, 5))
    finally:
        tb.LoadedTable._check, tb._array_checksums = real  # type: ignore[method-assign]
    for label, a, b in (
        ("one-shot lookup (1 row group, 6 columns)", checked[0], unchecked[0]),
        ("whole columns (6 x 2,598,960 rows)", checked[1], unchecked[1]),
    ):
        print(
            f"{label}: {a * 1e3:.2f} ms with checksums, {b * 1e3:.2f} ms without "
            f"(+{(a - b) * 1e3:.2f} ms, x{a / b:.2f})"
        )


if __name__ == "__main__":
    main()
