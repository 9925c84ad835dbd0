"""Benchmark ``bull audit``: seat-rows/s of the DuckDB engine on a large generated
Parquet log, its ratio to a plain DuckDB ``count(*)`` scan of the same file (and to a
scan that reads every audited column), peak memory, and Spark local mode on a smaller
log with its ratio to DuckDB on that log.

    python scripts/bench_audit.py --rows 100000000 --spark-rows 10000000

Each measurement runs in its own process (peak memory is that process's max RSS, and
the largest worker process's: a large Parquet log is audited by one worker per core).
Logs are written once to ``--dir`` (Niu Niu, 4 players and a banker, hands as card
ids) and reused. The exact figures an audit tests against (category probabilities,
the showdown outcome) are computed once per rule set and cached with the tables; a
first audit of a small log warms that cache, and its time is reported apart
(``warm_up_seconds``), so the rate measures the audit of the rows.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

CHILD = r"""
import json, resource, sys, time
what, path = sys.argv[1], sys.argv[2]
t = time.perf_counter()
if what in ("count", "scan"):
    import duckdb
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    q = ("SELECT count(*) FROM read_parquet('%s')" if what == "count" else
         "SELECT count(round), count(role), sum(len(hand)), count(result), sum(net) "
         "FROM read_parquet('%s')") % path
    out = con.execute(q).fetchall()[0]
else:
    from solver.audit.command import cli_audit
    res = cli_audit("niuniu", [path], engine=what)
    out = [res["rows"], res["settlement_check"]["disagree"], len(res["flagged"])]
secs = time.perf_counter() - t
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # the largest worker
print(json.dumps({"what": what, "seconds": secs, "peak_mb": rss, "worker_peak_mb": kids,
                  "out": list(out)}))
"""


def measure(what: str, path: str) -> dict[str, object]:
    p = subprocess.run(
        [sys.executable, "-c", CHILD, what, path], capture_output=True, text=True, check=False
    )
    if p.returncode:
        raise SystemExit(f"{what} failed: {p.stderr.strip().splitlines()[-1:]}")
    result: dict[str, object] = json.loads(p.stdout.strip().splitlines()[-1])
    return result


def make_log(path: str, rows: int) -> None:
    if os.path.exists(path):
        return
    from solver.audit.deal import deal

    t = time.perf_counter()
    deal("niuniu", rows // 5, players=4, seed=1, out=path, hand_format="ids")
    print(f"generated {path} ({rows:,} rows) in {time.perf_counter() - t:.1f} s", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=100_000_000)
    ap.add_argument("--spark-rows", type=int, default=10_000_000)
    ap.add_argument("--dir", default="/tmp/bull-bench-audit")
    ap.add_argument("--no-spark", action="store_true")
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    big = os.path.join(args.dir, f"niuniu-{args.rows}.parquet")
    make_log(big, args.rows)
    warm = os.path.join(args.dir, "niuniu-warm-up.parquet")
    if not os.path.exists(warm):
        from solver.audit.deal import deal

        deal("niuniu", 1000, players=4, seed=2, out=warm, hand_format="ids")
    first = measure("duckdb", warm)
    count, scan, duck = measure("count", big), measure("scan", big), measure("duckdb", big)
    rate = args.rows / float(duck["seconds"])  # type: ignore[arg-type]
    report = {
        "rows": args.rows,
        "warm_up_seconds": first["seconds"],
        "file_mb": os.path.getsize(big) / 2**20,
        "duckdb_seconds": duck["seconds"],
        "duckdb_rows_per_s": rate,
        "duckdb_peak_mb": duck["peak_mb"],
        "duckdb_worker_peak_mb": duck["worker_peak_mb"],
        "count_star_seconds": count["seconds"],
        "ratio_to_count_star": float(duck["seconds"]) / float(count["seconds"]),  # type: ignore[arg-type]
        "column_scan_seconds": scan["seconds"],
        "ratio_to_column_scan": float(duck["seconds"]) / float(scan["seconds"]),  # type: ignore[arg-type]
    }
    if not args.no_spark:
        small = os.path.join(args.dir, f"niuniu-{args.spark_rows}.parquet")
        make_log(small, args.spark_rows)
        d2, sp = measure("duckdb", small), measure("spark", small)
        report |= {
            "spark_rows": args.spark_rows,
            "spark_seconds": sp["seconds"],
            "spark_rows_per_s": args.spark_rows / float(sp["seconds"]),  # type: ignore[arg-type]
            "duckdb_seconds_same_rows": d2["seconds"],
            "spark_to_duckdb_time_ratio": float(sp["seconds"]) / float(d2["seconds"]),  # type: ignore[arg-type]
            "spark_identical_counts": sp["out"] == d2["out"],
        }
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
