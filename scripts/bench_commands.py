#!/usr/bin/env python3
"""Peak memory and time of whole ``bull`` commands, each in its own process, against
a baseline measured in the same run (issue 28: every command under 2 GB; the timing
limits that tests used to assert live here).

Each command runs as a child process; ``os.wait4`` gives that child's own peak
resident set (``ru_maxrss``) and CPU time, the wall clock is measured around it. The
baseline is ``bull --version`` (the interpreter and the CLI's imports) for memory and a
fixed numpy workload for time, so a slow machine shows as a slow baseline and the
ratios stay comparable between runs.

    python scripts/bench_commands.py [--tables DIR] [--only NAME ...] [--skip-report]

Commands measured (a copy of the table set is used when ``--tables`` is not given, so
the rule-file tables are built from scratch into a temporary folder):

* ``report``: ``bull report`` of every game (the issue saw 6 GB and 4 min; the test
  suite asserted < 180 s);
* ``edge_niuniu_shoe6``, ``edge_pokdeng_shoe8``, ``edge_niuniu_shoe8_file``: shoes;
* ``edge_commission_file``: a rule file that changes only the commission of
  ``classic``, first use (the issue saw 91 s and 1.5 GB rebuilding the hand table);
* ``build_taungau``, ``build_pokdeng`` (tests asserted 10 s and 60 s; see also
  ``scripts/bench_builds.py``).

Targets: peak RSS < 2 GB for every command; ``report`` under 180 s scaled by the
baseline (the baseline's time on the machine the limit was set on, about 1 s).
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

import numpy as np

REPO = Path(__file__).resolve().parent.parent
LIMIT_BYTES = 2 * 1024**3
REPORT_LIMIT_S = 180.0
BASELINE_REF_S = 1.0
"""The numpy baseline's seconds on the machine where the 180 s report limit was set."""


def run(argv: list[str], cwd: Path) -> dict[str, float]:
    """Run ``argv``; its wall seconds, CPU seconds and peak RSS in bytes (Linux: KiB)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=os.environ
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}): {err.decode()[-500:]}")
    scale = 1 if sys.platform == "darwin" else 1024
    return {
        "wall_s": round(wall, 2),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
        "peak_rss_mb": round(usage.ru_maxrss * scale / 2**20, 1),
    }


def numpy_baseline() -> float:
    """Seconds of a fixed numpy workload (sort 4 M int64 four times), best of three."""
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2**40, 4_000_000)
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(4):
            np.sort(a)
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", help="table set to use (default: a fresh copy of tables/)")
    ap.add_argument("--only", nargs="*", help="measure only these commands")
    ap.add_argument("--skip-report", action="store_true", help="leave out `bull report`")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench_commands_"))
    try:
        tables = Path(args.tables) if args.tables else work / "tables"
        if not args.tables:
            shutil.copytree(REPO / "tables", tables, symlinks=True, ignore=_no_rules)
        classic = subprocess.run(
            [sys.executable, "-m", "solver", "rules", "niuniu", "--rules", "classic"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        (work / "comm3.toml").write_text(
            classic.replace('name = "classic"', 'name = "comm3"').replace(
                "commission = 0.05", "commission = 0.03"
            ),
            encoding="utf-8",
        )
        shoe6 = subprocess.run(
            [sys.executable, "-m", "solver", "rules", "niuniu", "--rules", "shoe6"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        (work / "shoe8.toml").write_text(
            shoe6.replace('name = "shoe6"', 'name = "shoe8nn"').replace("decks = 6", "decks = 8"),
            encoding="utf-8",
        )
        bull = [sys.executable, "-m", "solver"]
        t = ["--tables", str(tables)]
        commands = {
            "edge_niuniu_shoe6": [*bull, "edge", "niuniu", "--rules", "shoe6", *t],
            "edge_pokdeng_shoe8": [*bull, "edge", "pokdeng", "--rules", "shoe8", *t],
            "edge_commission_file": [*bull, "edge", "niuniu", "--rules", "comm3.toml", *t],
            "edge_commission_file_again": [*bull, "edge", "niuniu", "--rules", "comm3.toml", *t],
            "edge_niuniu_shoe8_file": [*bull, "edge", "niuniu", "--rules", "shoe8.toml", *t],
            "build_taungau": [*bull, "build", "--game", "taungau", "--tables", str(work / "b")],
            "build_pokdeng": [*bull, "build", "--game", "pokdeng", "--tables", str(work / "b")],
            "report": [*bull, "report", "--out", str(work / "report"), *t],
        }
        if args.skip_report:
            commands.pop("report")
        if args.only:
            commands = {k: v for k, v in commands.items() if k in args.only}
        base_s = numpy_baseline()
        results: dict[str, object] = {
            "baseline_numpy_s": round(base_s, 3),
            "baseline_startup": run([*bull, "--version"], work),
        }
        for name, argv in commands.items():
            results[name] = run(argv, work)
            print(f"{name}: {results[name]}", file=sys.stderr)
        over = {
            k: v["peak_rss_mb"]
            for k, v in results.items()
            if isinstance(v, dict) and v["peak_rss_mb"] * 2**20 >= LIMIT_BYTES
        }
        results["over_2gb"] = over
        if "report" in results:
            rep = results["report"]
            assert isinstance(rep, dict)
            ratio = rep["wall_s"] / base_s
            results["report_over_baseline"] = round(ratio, 1)
            results["report_limit_ok"] = ratio <= REPORT_LIMIT_S / BASELINE_REF_S
        print(json.dumps(results, indent=2))
        return 1 if over else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _no_rules(folder: str, names: list[str]) -> set[str]:
    """Leave the cached rule-file tables out of the copy (they are rebuilt)."""
    return {"rules"} & set(names) if Path(folder).name == "tables" else set()


if __name__ == "__main__":
    raise SystemExit(main())
