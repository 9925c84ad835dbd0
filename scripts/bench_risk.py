#!/usr/bin/env python3
"""Issue 25's performance figures, each against a baseline measured in the same run.

* ``edge``: per game, a cold ``bull edge GAME --json`` (with the whole distribution of
  the player's net; a fresh copy of the tables, so nothing computed is cached) against
  the edge without the distribution (the same exact figures by the game's ``odds``
  room, also cold, in a process of its own). Target: ratio <= 1.5.
* ``risk``: per game, ``bull risk GAME --players N`` once to fill the cache (the table
  sample is simulated; its time is reported), then again from the cache. Target: the
  cached answer <= 1 s (the interpreter's start included; ``bull --version`` is given
  as the floor).

    python scripts/bench_risk.py [--only niuniu taungau pokdeng] [--skip-risk]

Every command runs as a child process (``python -m solver`` from this repository);
wall seconds and peak RSS (``os.wait4``) are printed as JSON.
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
GAMES = {
    "niuniu": (["--bet", "double"], 9, "solver.games.niuniu.odds", "niuniu_edge(None, 'double')"),
    "taungau": ([], 5, "solver.games.taungau.odds", "taungau_edge(None)"),
    "pokdeng": ([], 16, "solver.games.pokdeng.odds", "pokdeng_edge(None)"),
}
EDGE_LIMIT = 1.5
RISK_LIMIT_S = 1.0


def run(argv: list[str], env: dict[str, str]) -> dict[str, float]:
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        argv, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {err.decode()[-500:]}")
    return {"wall_s": round(wall, 2), "peak_rss_mb": round(usage.ru_maxrss / 1024, 1)}


def fresh_tables(work: Path, name: str) -> Path:
    """A copy of the repository's tables without anything computed from them."""
    out = work / name
    shutil.copytree(REPO / "tables", out, symlinks=True, ignore=lambda d, n: {"rules"} & set(n))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="*", choices=sorted(GAMES), help="these games only")
    ap.add_argument("--skip-risk", action="store_true", help="leave out `bull risk`")
    args = ap.parse_args()
    py = sys.executable
    work = Path(tempfile.mkdtemp(prefix="bench_risk_"))
    results: dict[str, object] = {}
    try:
        floor = run([py, "-m", "solver", "--version"], dict(os.environ))
        results["bull_version"] = floor
        for game in args.only or GAMES:
            flags, players, module, call = GAMES[game]
            # the cache of computed figures follows the tables directory (rules/)
            env_old = {**os.environ, "BULL_TABLES": str(fresh_tables(work, f"{game}_old"))}
            env_new = {**os.environ, "BULL_TABLES": str(fresh_tables(work, f"{game}_new"))}
            code = (
                f"from {module} import *; import json; r = {call}; print(json.dumps(r.to_json()))"
            )
            without = run([py, "-c", code], env_old)
            with_dist = run([py, "-m", "solver", "edge", game, *flags, "--json"], env_new)
            warm = run([py, "-m", "solver", "edge", game, *flags, "--json"], env_new)
            ratio = with_dist["wall_s"] / max(without["wall_s"], 1e-9)
            results[f"edge_{game}"] = {
                "without_distribution_cold": without,
                "with_distribution_cold": with_dist,
                "with_distribution_cached": warm,
                "ratio_cold": round(ratio, 2),
                "ok": ratio <= EDGE_LIMIT,
            }
            if args.skip_risk:
                continue
            argv = [py, "-m", "solver", "risk", game, *flags, "--players", str(players)]
            fill = run(argv, env_new)
            cached = run(argv, env_new)
            results[f"risk_{game}"] = {
                "first_run_simulates": fill,
                "from_cache": cached,
                "ok": cached["wall_s"] <= RISK_LIMIT_S,
            }
            print(json.dumps({k: results[k] for k in results if game in k}), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
