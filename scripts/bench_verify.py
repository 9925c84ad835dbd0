"""Benchmark ``bull verify`` on a large Parquet file (and the same claims as CSV) of
Niu Niu claims.

Generates ``--rows`` (default 10,000,000) Niu Niu hands written as text
(``"AS 10H 3C 7D KS"``, in random order) with claims ``has_bull``, ``points`` and
``category`` under ``classic``; one row in ``--plant`` (default 2,000) carries a planted
mistake (a bull search that skips the first card). Then, each in its own process so
that peak memory is measured separately:

* **baseline** — read the same columns of the file batch by batch (``iter_batches``)
  and touch every value: the cost of I/O and decoding alone;
* **verify** — ``bull verify niuniu FILE --json`` (diagnosis on, as by default);
* with ``--csv`` (the default), the same claims written as CSV: **csv baseline** —
  pyarrow's streaming CSV reader over the file (``open_csv``, every batch read) — and
  ``bull verify`` of the CSV.

Each is best of ``--repeat`` (3) runs; the wall clock and the CPU time (user + system,
every thread) are measured inside the child. Prints rows/s, peak RSS, and the ratios
baseline time / verify time. Targets (issue 26): Parquet >= 0.6, CSV >= 0.5; and
(issue 12) >= 2 M rows/s, peak < 1 GB.

    .venv/bin/python scripts/bench_verify.py [--rows N] [--file PATH] [--keep] [--no-csv]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

BASELINE = """
import pyarrow.parquet as pq, pyarrow.compute as pc
pf = pq.ParquetFile(ARGS[0])
n = 0
for b in pf.iter_batches(batch_size=262144):
    for col in b.columns:
        pc.sum(pc.utf8_length(col) if str(col.type) == "string" else col)
    n += b.num_rows
print(n)
"""

VERIFY = """
from solver.cli import main
RC = main(["verify", "niuniu", ARGS[0], "--json"])
"""

CSV_BASELINE = """
import pyarrow.csv as pacsv
n = 0
for b in pacsv.open_csv(ARGS[0], read_options=pacsv.ReadOptions(use_threads=False)):
    n += b.num_rows
print(n)
"""

WRAPPER = """
import json, resource, sys, time
ARGS = sys.argv[2:]
t = time.perf_counter()
c0 = time.process_time()
exec(sys.argv[1])
wall = time.perf_counter() - t
ru = resource.getrusage(resource.RUSAGE_SELF)
cpu = time.process_time() - c0
sys.stderr.write(json.dumps({"wall": wall, "cpu": cpu, "peak_mb": ru.ru_maxrss / 1024}) + "\\n")
"""


def generate(path: Path, rows: int, plant: int, seed: int = 1) -> int:
    """Write ``rows`` claims to ``path``; returns the number of planted mistakes."""
    from solver.core.cards import CARD_NAMES
    from solver.games.niuniu.hands import evaluate_arrays
    from solver.games.niuniu.rules import Category, load_rules

    rules = load_rules("classic")
    rng = np.random.default_rng(seed)
    names = pa.array(CARD_NAMES)
    labels = pa.array([c.label for c in Category])
    chunk = 1_000_000
    planted = 0
    writer = None
    try:
        for start in range(0, rows, chunk):
            n = min(chunk, rows - start)
            # five distinct cards per row: argsort of random keys over 52 is too slow for
            # millions; draw with replacement and redraw rows that repeat a card
            cards = rng.integers(0, 52, size=(n, 5), dtype=np.uint8)
            while True:
                srt = np.sort(cards, axis=1)
                dup = (srt[:, 1:] == srt[:, :-1]).any(axis=1)
                if not dup.any():
                    break
                cards[dup] = rng.integers(0, 52, size=(int(dup.sum()), 5), dtype=np.uint8)
            ev = evaluate_arrays(np.sort(cards, axis=1), rules)
            has, points, cat = (
                ev["has_bull"].copy(),
                ev["points"].astype(np.int64),
                ev["category"].astype(np.int64),
            )
            mark = rng.random(n) < 1 / plant
            if mark.any():  # the planted mistake: bulls never use the first card written
                v = np.minimum((cards[mark].astype(np.int64) >> 2) + 1, 10)
                ok = np.zeros(int(mark.sum()), dtype=bool)
                for a, b, d in ((1, 2, 3), (1, 2, 4), (1, 3, 4), (2, 3, 4)):
                    ok |= (v[:, a] + v[:, b] + v[:, d]) % 10 == 0
                pts = np.where(ok, (v.sum(axis=1) - 1) % 10 + 1, 0)
                special = cat[mark] > 10
                has[mark] = ok
                points[mark] = pts
                cat[mark] = np.where(special, cat[mark], pts)
                planted += int(((ev["points"][mark] != pts) | (ev["has_bull"][mark] != ok)).sum())
            cols = [pc.take(names, pa.array(cards[:, i])) for i in range(5)]
            hand = pc.binary_join_element_wise(*cols, " ")
            table = pa.table(
                {
                    "hand": hand,
                    "has_bull": pa.array(has),
                    "points": pa.array(points.astype(np.int8)),
                    "category": pc.take(labels, pa.array(cat)),
                }
            )
            if writer is None:
                writer = pq.ParquetWriter(path, table.schema, compression="zstd")
            writer.write_table(table, row_group_size=262_144)
    finally:
        if writer is not None:
            writer.close()
    return planted


def run(code: str, path: Path) -> tuple[float, float, float, float, str]:
    """Run ``code`` in a fresh interpreter: (process wall s, in-process wall s, in-process
    CPU s, peak RSS MB, stdout)."""
    t = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", WRAPPER, code, str(path)],
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO,
    )
    wall = time.perf_counter() - t
    try:
        stats = json.loads(proc.stderr.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise SystemExit(f"benchmark child failed: {proc.stderr.strip()}") from None
    return wall, stats["wall"], stats["cpu"], stats["peak_mb"], proc.stdout


def best(code: str, path: Path, repeat: int) -> tuple[float, float, float, float, str]:
    """The best of ``repeat`` runs (least in-process wall; least CPU; largest peak)."""
    runs = [run(code, path) for _ in range(repeat)]
    top = min(runs, key=lambda r: r[1])
    return (
        min(r[0] for r in runs),
        top[1],
        min(r[2] for r in runs),
        max(r[3] for r in runs),
        top[4],
    )


def report(label: str, rows: int, r: tuple[float, float, float, float, str]) -> None:
    proc, inproc, cpu, peak, _ = r
    print(
        f"{label:23s}: {inproc:6.2f} s  {rows / inproc / 1e6:6.2f} M rows/s  cpu {cpu:6.2f} s  "
        f"peak {peak:5.0f} MB  (process {proc:.2f} s)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--plant", type=int, default=2_000, help="one planted mistake per N rows")
    ap.add_argument("--file", help="Parquet file to (re)use")
    ap.add_argument("--keep", action="store_true", help="keep the generated file")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-csv", action="store_true", help="leave out the CSV runs")
    args = ap.parse_args()
    tmp = tempfile.TemporaryDirectory()
    path = Path(args.file) if args.file else Path(tmp.name) / "claims.parquet"
    if not path.exists():
        t = time.perf_counter()
        planted = generate(path, args.rows, args.plant)
        print(
            f"generated {args.rows:,} rows ({planted:,} planted disagreements) in "
            f"{time.perf_counter() - t:.1f} s: {path} ({path.stat().st_size / 1e6:.0f} MB)"
        )
    rows = pq.ParquetFile(path).metadata.num_rows
    base = best(BASELINE, path, args.repeat)
    ver = best(VERIFY, path, args.repeat)
    report("baseline, read + touch", rows, base)
    report("bull verify (Parquet)", rows, ver)
    summary = json.loads(ver[4])
    ratio = base[1] / ver[1]
    print(
        f"ratio baseline/verify  : wall {ratio:.2f}, cpu {base[2] / ver[2]:.2f} "
        f"(target >= 0.6), peak x{ver[3] / max(base[3], 1):.2f}"
    )
    print(
        f"verify: {summary['disagree']:,} disagreements of {summary['checked']:,} rows; "
        f"{summary['headline']}"
    )
    lines = [
        f"| `verify` Parquet, {rows:,} rows, >= 0.6x read + touch | {rows / ver[1] / 1e6:.2f} M "
        f"rows/s ({ver[1]:.1f} s vs {base[1]:.1f} s) | {ratio:.2f}x |"
    ]
    if not args.no_csv:
        csv_path = Path(tmp.name) / "claims.csv"
        import pyarrow.csv as pacsv

        with pacsv.CSVWriter(csv_path, pq.ParquetFile(path).schema_arrow) as w:
            for b in pq.ParquetFile(path).iter_batches(batch_size=262_144):
                w.write_batch(b)
        cbase = best(CSV_BASELINE, csv_path, args.repeat)
        cver = best(VERIFY, csv_path, args.repeat)
        report("baseline, pyarrow CSV", rows, cbase)
        report("bull verify (CSV)", rows, cver)
        cratio = cbase[1] / cver[1]
        print(
            f"ratio baseline/verify  : wall {cratio:.2f}, cpu {cbase[2] / cver[2]:.2f} "
            "(target >= 0.5)"
        )
        lines.append(
            f"| `verify` CSV, {rows:,} rows, >= 0.5x pyarrow's CSV reader | "
            f"{rows / cver[1] / 1e6:.2f} M rows/s ({cver[1]:.1f} s vs {cbase[1]:.1f} s) | "
            f"{cratio:.2f}x |"
        )
    ok = rows / ver[0] >= 2e6 and ver[3] < 1024
    print(
        "issue 12 targets (>= 2 M rows/s for the whole process, peak < 1 GB):",
        "met" if ok else "NOT met",
    )
    print("\n".join(lines))
    if args.keep and not args.file:
        keep = REPO / "bench_claims.parquet"
        os.replace(path, keep)
        print(f"kept {keep}")
    tmp.cleanup()


if __name__ == "__main__":
    main()
