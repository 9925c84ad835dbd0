#!/usr/bin/env python3
"""The Niu Niu matchup sums' disk cache: ``bull edge niuniu`` cold (a fresh copy of the
tables: the counts are counted, every pair of disjoint hands or, from a shoe, every
pair of deals) against the same command again (the sums read back from
``rules/matchup-sums-*.json``), per rule set, measured in the same run. Before the
cache every run paid the cold figure.

    python scripts/bench_matchups.py [--rules classic casino shoe6] [--repeat 3]

Every command runs as a child process (``python -m solver``); wall and CPU seconds
(user + sys, ``os.wait4``), best of ``--repeat``, and the load average are printed as
JSON. ``bull --version`` is the floor (the interpreter's start and the imports).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

from bench_risk import fresh_tables  # noqa: E402  (the same copy of the tables)


def run(argv: list[str], env: dict[str, str]) -> dict[str, float]:
    """One child process: its wall and CPU seconds."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=REPO, stdout=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed")
    return {"wall_s": round(wall, 2), "cpu_s": round(usage.ru_utime + usage.ru_stime, 2)}


def best(runs: list[dict[str, float]]) -> dict[str, float]:
    return min(runs, key=lambda r: r["cpu_s"])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", nargs="*", default=["classic", "casino", "shoe6"])
    ap.add_argument("--repeat", type=int, default=3, help="runs of each; the best is kept")
    args = ap.parse_args()
    py = sys.executable
    work = Path(tempfile.mkdtemp(prefix="bench_matchups_"))
    results: dict[str, object] = {"load_before": os.getloadavg()}
    try:
        env0 = dict(os.environ)
        results["bull_version"] = best([run([py, "-m", "solver", "--version"], env0)])
        for rules in args.rules:
            cmd = [py, "-m", "solver", "edge", "niuniu", "--rules", rules, "--json"]
            cold, warm = [], []
            for i in range(args.repeat):
                env = {**env0, "BULL_TABLES": str(fresh_tables(work, f"{rules}{i}"))}
                cold.append(run(cmd, env))
                warm.append(run(cmd, env))
            c, w = best(cold), best(warm)
            results[rules] = {
                "cold": c,
                "cached": w,
                "cpu_ratio": round(w["cpu_s"] / max(c["cpu_s"], 1e-9), 3),
                "cpu_saved_s": round(c["cpu_s"] - w["cpu_s"], 2),
            }
            print(json.dumps({rules: results[rules]}), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    results["load_after"] = os.getloadavg()
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
