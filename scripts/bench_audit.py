"""Benchmark ``bull audit`` against DuckDB's own scan of the same log (issue 26).

The targets: ``bull audit`` at least 0.5x the speed of DuckDB's own scan of the same
logs (``SELECT count(*), sum(length(hand))`` over the files: the scan's time over the
audit's, >= 0.5) and at least 15 M seat-rows/s on the 100 M-row log.

    python scripts/bench_audit.py                    # 100 M rows, 3 runs each, Spark too
    python scripts/bench_audit.py --rows 20000000 --csv-rows 2000000 --no-spark
    python scripts/bench_audit.py --before /tmp/old     # /tmp/old: a worktree of older code

Every measurement runs in its own process (bytecode caching on, as an installed
``bull`` runs), scan and audit alternating, best of ``--runs``: the wall clock of the
whole process (Python's start-up, the imports, the work), its CPU time (user + system,
the worker processes' included) and, for the audit, the engine's own time (the
``seconds`` it reports: the scan and the batch work, without start-up, imports and the
statistics after). Logs are written once to ``--dir``
(Niu Niu, 4 players and a banker) and reused: the Parquet log with hands as card ids;
with ``--csv-rows`` a CSV log with hands as text too. The exact figures an audit tests
against are computed once per rule set and cached with the tables; a first audit of a
small log warms that cache, and its time is reported apart (``warm_up_seconds``).
Also printed: ``count(*)`` alone (Parquet metadata), a scan touching every audited
column, peak memory, the load average; and Spark local mode on ``--spark-rows`` rows
with its time over DuckDB's on that log. The floor under the audit's time
(``read_floor_*``, Parquet, in the same runs): a process that only reads the five
columns an audit reads, the way its two worker processes read them (pyarrow, half the
row groups each, the same options), and does nothing with them; the scan's time over
it is the most the audit's ratio could reach with all its own work free. Beside it
(``duckdb_read_*``): the same two workers reading their halves with DuckDB (one thread
each) into Arrow batches instead, the other reader the workers could use.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from typing import Any

CHILD = r"""
import json, os, resource, sys, time
t = time.perf_counter()
what, path, fmt = sys.argv[1], sys.argv[2], sys.argv[3]
src = {"parquet": "read_parquet('%s')", "csv": "read_csv('%s', header = true)"}[fmt] % path
extra = {}
if what in ("count", "hand_scan", "column_scan"):
    import duckdb
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    q = {"count": "SELECT count(*) FROM %s",
         "hand_scan": "SELECT count(*), sum(length(hand)) FROM %s",
         "column_scan": "SELECT count(round), count(role), sum(length(hand)), count(result), "
                        "sum(net) FROM %s"}[what] % src
    out = con.execute(q).fetchall()[0]
elif what == "arrow_read":  # the floor: the audit's read alone, as its workers read
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    import pyarrow.parquet as pq
    groups = pq.ParquetFile(path).metadata.num_row_groups
    def read(part):
        pf = pq.ParquetFile(path, read_dictionary=["role", "result"], pre_buffer=False)
        cols = ["round", "role", "hand", "result", "net"]
        return sum(b.num_rows for b in pf.iter_batches(
            1 << 18, row_groups=part, columns=cols, use_threads=False))
    halves = [list(range(groups // 2)), list(range(groups // 2, groups))]
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:
        out = [sum(pool.map(read, halves))]
elif what == "duckdb_read":  # the same, each worker's half read by DuckDB into Arrow
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    import pyarrow.parquet as pq
    rows = pq.ParquetFile(path).metadata.num_rows
    def read(part):
        import duckdb
        con = duckdb.connect()
        con.execute("SET threads = 1")
        con.execute("SET enable_progress_bar = false")
        q = ("SELECT round, role, hand, result, net FROM read_parquet('%s', file_row_number = "
             "true) WHERE file_row_number >= %d AND file_row_number < %d") % (path, *part)
        return sum(b.num_rows for b in con.sql(q).to_arrow_reader(1 << 20))
    halves = [(0, rows // 2), (rows // 2, rows)]
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:
        out = [sum(pool.map(read, halves))]
else:
    from solver.audit.command import cli_audit
    res = cli_audit("niuniu", [path], engine=what)
    out = [res["rows"], res["settlement_check"]["disagree"], len(res["flagged"])]
    extra["engine_seconds"] = res["seconds"]
secs = time.perf_counter() - t
me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"what": what, "seconds": secs,
                  "cpu": me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime,
                  "peak_mb": me.ru_maxrss / 1024, "worker_peak_mb": kids.ru_maxrss / 1024,
                  "out": [float(x) for x in out], "pandas": "pandas" in sys.modules, **extra}))
"""


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
"""The children's environment: bytecode caching on, as an installed ``bull`` runs."""


def measure(what: str, path: str, fmt: str = "parquet", code: str | None = None) -> dict[str, Any]:
    """One measurement in its own process (``code``: a source tree to import the solver
    from instead, for a before/after in the same run)."""
    env = {**ENV, "PYTHONPATH": code} if code else ENV
    p = subprocess.run(
        [sys.executable, "-c", CHILD, what, path, fmt],
        capture_output=True, text=True, check=False, env=env, cwd=code or None,
    )  # fmt: skip
    if p.returncode:
        raise SystemExit(f"{what} failed: {p.stderr.strip().splitlines()[-1:]}")
    result: dict[str, Any] = json.loads(p.stdout.strip().splitlines()[-1])
    return result


def best(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The run of least wall time, with the least CPU time of all runs beside it."""
    top = dict(min(runs, key=lambda r: float(r["seconds"])))
    top["cpu_best"] = min(float(r["cpu"]) for r in runs)
    top["seconds_all"] = [round(float(r["seconds"]), 3) for r in runs]
    return top


def make_log(path: str, rows: int, hand_format: str) -> None:
    if os.path.exists(path):
        return
    from solver.audit.deal import deal

    t = time.perf_counter()
    deal("niuniu", rows // 5, players=4, seed=1, out=path, hand_format=hand_format)
    print(f"generated {path} ({rows:,} rows) in {time.perf_counter() - t:.1f} s", flush=True)


def compare(path: str, fmt: str, rows: int, runs: int, before: str | None) -> dict[str, Any]:
    """DuckDB's scan and the audit of one log (and the audit by the code in ``before``),
    alternating, best of ``runs``."""
    scans, audits, olds, reads, duck_reads = [], [], [], [], []
    for _ in range(runs):
        scans.append(measure("hand_scan", path, fmt))
        if fmt == "parquet":
            reads.append(measure("arrow_read", path, fmt))
            duck_reads.append(measure("duckdb_read", path, fmt))
        if before:
            olds.append(measure("duckdb", path, fmt, before))
        audits.append(measure("duckdb", path, fmt))
    scan, audit = best(scans), best(audits)
    floor = {}
    if reads:
        read = best(reads)
        floor = {
            "read_floor_seconds": round(read["seconds"], 3),
            "read_floor_cpu": round(read["cpu_best"], 3),
            "ratio_scan_to_read_floor": round(float(scan["seconds"]) / float(read["seconds"]), 3),
        }
        duck = best(duck_reads)
        floor |= {
            "duckdb_read_seconds": round(duck["seconds"], 3),
            "duckdb_read_cpu": round(duck["cpu_best"], 3),
            "ratio_scan_to_duckdb_read": round(float(scan["seconds"]) / float(duck["seconds"]), 3),
        }
    old = {}
    if olds:
        was = best(olds)
        old = {
            "before_audit_seconds": round(was["seconds"], 3),
            "before_audit_cpu": round(was["cpu_best"], 3),
            "before_same_counts": was["out"] == audit["out"],
        }
    return (
        old
        | floor
        | {
            "rows": rows,
            "format": fmt,
            "file_mb": round(os.path.getsize(path) / 2**20, 1),
            "hand_scan_seconds": round(scan["seconds"], 3),
            "hand_scan_cpu": round(scan["cpu_best"], 3),
            "audit_seconds": round(audit["seconds"], 3),
            "audit_seconds_all": audit["seconds_all"],
            "audit_cpu": round(audit["cpu_best"], 3),
            "audit_engine_seconds": audit["engine_seconds"],
            "audit_rows_per_s": round(rows / float(audit["seconds"])),
            "audit_engine_rows_per_s": round(rows / float(audit["engine_seconds"])),
            "ratio_scan_to_audit": round(float(scan["seconds"]) / float(audit["seconds"]), 3),
            "ratio_scan_to_audit_cpu": round(scan["cpu_best"] / audit["cpu_best"], 3),
            "audit_peak_mb": round(audit["peak_mb"]),
            "audit_worker_peak_mb": round(audit["worker_peak_mb"]),
            "audit_imported_pandas": audit["pandas"],
            "same_rows": scan["out"][0] == audit["out"][0] == rows,
        }
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=100_000_000)
    ap.add_argument("--csv-rows", type=int, default=0, help="also a CSV log of text hands")
    ap.add_argument("--spark-rows", type=int, default=10_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--dir", default="/tmp/bull-bench-audit")
    ap.add_argument("--no-spark", action="store_true")
    ap.add_argument(
        "--before", metavar="DIR", help="a source tree of earlier code (git worktree or archive): "
        "its audit too, in the same runs"
    )  # fmt: skip
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    big = os.path.join(args.dir, f"niuniu-{args.rows}.parquet")
    make_log(big, args.rows, "ids")
    warm = os.path.join(args.dir, "niuniu-warm-up.parquet")
    make_log(warm, 5000, "ids")
    report: dict[str, Any] = {"load_average_before": os.getloadavg()}
    report["warm_up_seconds"] = measure("duckdb", warm)["seconds"]
    if args.before:
        measure("duckdb", warm, "parquet", args.before)  # its own figures cache, warmed
    report["parquet"] = compare(big, "parquet", args.rows, args.runs, args.before)
    count, column = measure("count", big), measure("column_scan", big)
    report["parquet"] |= {
        "count_star_seconds": round(count["seconds"], 3),
        "column_scan_seconds": round(column["seconds"], 3),
        "column_scan_cpu": round(column["cpu"], 3),
    }
    if args.csv_rows:
        text = os.path.join(args.dir, f"niuniu-{args.csv_rows}.csv")
        make_log(text, args.csv_rows, "text")
        report["csv"] = compare(text, "csv", args.csv_rows, args.runs, args.before)
    if not args.no_spark:
        small = os.path.join(args.dir, f"niuniu-{args.spark_rows}.parquet")
        make_log(small, args.spark_rows, "ids")
        d2, sp = measure("duckdb", small), measure("spark", small)
        report["spark"] = {
            "rows": args.spark_rows,
            "spark_seconds": round(sp["seconds"], 3),
            "spark_rows_per_s": round(args.spark_rows / float(sp["seconds"])),
            "duckdb_seconds_same_rows": round(d2["seconds"], 3),
            "spark_to_duckdb_time_ratio": round(float(sp["seconds"]) / float(d2["seconds"]), 2),
            "spark_identical_counts": sp["out"] == d2["out"],
        }
    report["load_average_after"] = os.getloadavg()
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
