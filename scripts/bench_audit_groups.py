"""Benchmark ``bull audit --by`` with many groups (issue 24: ``--by hand``, 10,000
one-row groups, got no answer in 900 s): the time and peak memory of an audit grouped
by a column with a value per row, against the same log grouped ``--by table`` (four
groups) in the same run (the ratio), and the size of the ``--json`` output (bounded:
50 groups listed, the rest summarised).

    python scripts/bench_audit_groups.py --rounds 2000

Each audit runs in its own process (peak memory is its max RSS).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

CHILD = r"""
import json, resource, sys, time
from solver.audit.command import cli_audit
path, by = sys.argv[1], sys.argv[2]
t = time.perf_counter()
res = cli_audit("niuniu", [path], by=[by])
seconds = time.perf_counter() - t
print(json.dumps({"seconds": seconds, "cpu": time.process_time(),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "json_bytes": len(json.dumps(res)),
                  "groups": (res["groups_not_listed"] or {}).get("groups")}))
"""


def _run(path: str, by: str) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", CHILD, path, by], check=True,
                         capture_output=True, text=True).stdout  # fmt: skip
    return dict(json.loads(out.splitlines()[-1]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2000, help="rounds (5 rows each)")
    ap.add_argument("--dir", default=tempfile.gettempdir(), help="where the log is written")
    args = ap.parse_args(argv)
    from solver.audit.deal import deal

    path = os.path.join(args.dir, f"bench-groups-{args.rounds}.csv")
    if not os.path.exists(path):
        deal("niuniu", args.rounds, players=4, seed=3, out=path)
    _run(path, "table")  # warm the caches (the exact figures, the covariance's tables)
    base = _run(path, "table")
    many = _run(path, "hand")
    print(json.dumps({"rows": args.rounds * 5, "by_table": base, "by_hand": many,
                      "ratio_seconds": many["seconds"] / base["seconds"],
                      "ratio_cpu": many["cpu"] / base["cpu"]}, indent=1))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
