#!/usr/bin/env python3
"""Every committed table's build time (issue 26: ``bull build`` <= 10 s in all), and the
Tau Ngau and Pok Deng builds against direct enumeration, measured in the same run.

* Per table (``--tables-only`` stops after these): each table's own build step in a
  fresh process (Niu Niu's tables one by one as ``build_tables`` makes them, the grab
  reusing classic's counts), wall and CPU seconds (user + system, this process and any
  it starts); then the whole ``bull build --tables TMP`` in its own process (writing
  included): wall, CPU, peak RSS and the seconds it spent writing. Each figure is the
  best of ``--repeat`` runs, and a ratio to a baseline measured in the same run: numpy
  sorting 2**24 random int64 keys (the counting's core operation), so a busy machine
  shows in the baseline too. ``--before DIR`` (a checkout of an older commit, e.g. a
  ``git archive``) measures the same steps of that code, alternating run by run.

* Tau Ngau: the whole tile build (every hand, every 3/6 choice, banker distributions by
  inclusion-exclusion) against enumerating the 80,730 banker hands of each of the
  201,376 player hands (timed on a sample, extrapolated).
* Pok Deng: the whole strategy (1,326 starts x 3 dealer policies x 4 rule sets) against
  settling every (dealer hand, player draw, dealer draw) deal of a start (2,763,600 per
  start, timed on a sample with numpy, extrapolated).

    python scripts/bench_builds.py [--tables-only | --build-only] [--repeat 3] [--before DIR]
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

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from solver.core.indexing import all_subsets, colex_rank_array  # noqa: E402
from solver.games.pokdeng import hands as pokdeng  # noqa: E402
from solver.games.pokdeng import rules as pokdeng_rules  # noqa: E402
from solver.games.pokdeng import strategy as pokdeng_strategy  # noqa: E402
from solver.games.taungau import hands as taungau  # noqa: E402
from solver.games.taungau import rules as taungau_rules  # noqa: E402

STEPS = ("niuniu", "niuniu_no_faces", "niuniu_shoe6", "taungau", "pokdeng")
"""The per-table steps, one process each (the grab is timed in the ``niuniu`` one)."""

# Run in a child with the code under test first on sys.path: prints
# {table: [wall, cpu]} for its step. The calls are the ones every version has.
DRIVER = r"""
import json, resource, sys, time

def cpu():
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime

def timed(fn):
    t0, c0 = time.perf_counter(), cpu()
    got = fn()
    return got, [time.perf_counter() - t0, cpu() - c0]

step = sys.argv[1]
out = {}
if step.startswith("niuniu"):
    from solver.games.niuniu import grab, hands
    from solver.games.niuniu.rules import PRESETS, load_rules
    groups = {}
    for preset in PRESETS:
        r = load_rules(preset)
        groups.setdefault(hands.table_name(r), []).append(r)
    counts = {}
    table, out[step] = timed(lambda: hands.build_table(groups[step], odds=True, counts=counts))
    if step == "niuniu":
        bet = grab.grab_bet(load_rules("classic"))
        known = counts["classic"][bet] if bet else None
        s = table.column("classic_strength").to_numpy()
        c = table.column("classic_category").to_numpy()
        _, out[grab.TABLE] = timed(lambda: grab.build_grab_table(s, c, known))
elif step == "taungau":
    from solver.games.taungau import hands
    _, out[step] = timed(hands.build_tables)
else:
    from solver.games.pokdeng import strategy
    _, out["pokdeng+pokdeng_strategy"] = timed(strategy.build_tables)
print(json.dumps(out))
"""


def seconds(fn, repeat: int = 1) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def run_measured(argv: list[str], code: Path) -> tuple[str, dict[str, float]]:
    """Run ``argv`` (cwd and first on the path: ``code``); stdout, wall, CPU, peak RSS."""
    env = {**os.environ, "PYTHONPATH": str(code), "BULL_NO_AUTOBUILD": "1"}
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=code, env=env, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        if os.waitstatus_to_exitcode(status):
            raise SystemExit(f"{' '.join(argv)} failed in {code}: {err.read()[-600:]}")
        return out.read(), {
            "wall": wall,
            "cpu": usage.ru_utime + usage.ru_stime,
            "peak_mb": usage.ru_maxrss / 1024,
        }


def table_times(code: Path, steps: bool = True) -> dict[str, dict[str, float]]:
    """One run of every table's step (unless ``steps`` is false) and of the whole build,
    for the code in ``code``."""
    out: dict[str, dict[str, float]] = {}
    for step in STEPS if steps else ():
        text, _ = run_measured([sys.executable, "-c", DRIVER, step], code)
        for name, (wall, cpu) in json.loads(text).items():
            out[name] = {"wall": wall, "cpu": cpu}
    with tempfile.TemporaryDirectory() as d:
        argv = [sys.executable, "-m", "solver", "build", "--tables", d, "--json"]
        text, got = run_measured(argv, code)
    summary = json.loads(text.strip().splitlines()[-1])
    out["bull build (all, written)"] = got
    out["of which writing"] = {"wall": summary["write_seconds"]}
    return out


def best_of(runs: list[dict[str, dict[str, float]]]) -> dict[str, dict[str, float]]:
    keys = runs[0].keys()
    return {
        k: {f: (max if f == "peak_mb" else min)(r[k][f] for r in runs) for f in runs[0][k]}
        for k in keys
    }


def taungau_direct(sample: int) -> float:
    """Seconds per player hand to enumerate its banker hands and bin their scores."""
    strength = taungau.all_strengths(taungau_rules.load_rules("macau"))
    hands = all_subsets(32, 5)
    rng = np.random.default_rng(1)
    picks = rng.choice(len(hands), sample, replace=False)
    t = seconds(lambda: [taungau.banker_distribution_direct(hands[i], strength) for i in picks])
    return t / sample


def pokdeng_direct(sample: int) -> float:
    """Seconds per start to settle every ordered deal (D, x, c) with numpy lookups."""
    rules = pokdeng_rules.load_rules("standard")
    two, three = pokdeng.all_hands(2), pokdeng.all_hands(3)
    t2, p2, d2 = pokdeng.classify(two, rules)
    t3, p3, d3 = pokdeng.classify(three, rules)
    i, j = np.triu_indices(50, 1)
    x, c = np.nonzero(~np.eye(50, dtype=bool))
    keep = (
        (x[None] != i[:, None])
        & (x[None] != j[:, None])
        & (c[None] != i[:, None])
        & (c[None] != j[:, None])
    )
    di, xc = np.nonzero(keep)
    pos = (i[di], j[di], x[xc], c[xc])

    def one(start: np.ndarray) -> int:
        unseen = np.array([q for q in range(52) if q not in start])
        d0, d1, xx, cc = (unseen[p] for p in pos)
        r2 = colex_rank_array(np.stack([d0, d1], axis=1))
        dealer_draws = (t2[r2] != pokdeng_rules.HandType.POK) & (p2[r2] <= 4)
        r3 = colex_rank_array(np.stack([d0, d1, cc], axis=1))
        dt = np.where(dealer_draws, t3[r3], t2[r2])
        dp = np.where(dealer_draws, p3[r3], p2[r2])
        dd = np.where(dealer_draws, d3[r3], d2[r2])
        pr = colex_rank_array(
            np.stack([np.full_like(xx, start[0]), np.full_like(xx, start[1]), xx], axis=1)
        )
        net = pokdeng.settle(t3[pr], p3[pr], d3[pr], dt, dp, dd, rules)
        return int(net.sum())

    rng = np.random.default_rng(2)
    starts = [np.sort(rng.choice(52, 2, replace=False)) for _ in range(sample)]
    return seconds(lambda: [one(s) for s in starts]) / sample


def baseline() -> float:
    """Seconds to sort 2**24 random int64 keys (best of 3)."""
    keys = np.random.default_rng(0).integers(0, 1 << 62, 1 << 24)
    return seconds(lambda: np.sort(keys), 3)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sample", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=3, help="best of N")
    ap.add_argument("--tables-only", action="store_true", help="skip the direct enumerations")
    ap.add_argument(
        "--build-only", action="store_true", help="only the whole build (implies --tables-only)"
    )
    ap.add_argument(
        "--before", metavar="DIR", help="an older checkout to measure alternately with this one"
    )
    args = ap.parse_args()
    codes = {"now": REPO}
    if args.before:
        codes["before"] = Path(args.before).resolve()
    b0 = baseline()
    runs: dict[str, list[dict[str, dict[str, float]]]] = {k: [] for k in codes}
    for _ in range(args.repeat):
        for label, code in codes.items():
            runs[label].append(table_times(code, not args.build_only))
    b1 = baseline()
    base_s = min(b0, b1)
    report: dict[str, object] = {
        "baseline_sort_2^24_s": round(base_s, 4),
        "repeat": args.repeat,
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    for label in codes:
        got = best_of(runs[label])
        report[label] = {
            k: {f: round(v, 3) for f, v in fig.items()} | {"ratio": round(fig["wall"] / base_s, 1)}
            for k, fig in got.items()
        }
    print(json.dumps(report, indent=2))
    if args.tables_only or args.build_only:
        return 0
    t_tn = seconds(taungau.build_tables, 2)
    per_hand = taungau_direct(args.sample * 4)
    t_pd = seconds(pokdeng_strategy.build_tables, 2)
    per_start = pokdeng_direct(args.sample)
    n_tn, n_pd = 201_376, 1_326 * 3 * 4
    direct = {
        "taungau_build_s": round(t_tn, 3),
        "taungau_direct_s_per_hand": round(per_hand, 5),
        "taungau_direct_extrapolated_s": round(per_hand * n_tn),
        "taungau_speedup": round(per_hand * n_tn / t_tn),
        "pokdeng_build_s": round(t_pd, 3),
        "pokdeng_direct_s_per_start_and_policy": round(per_start, 4),
        "pokdeng_direct_extrapolated_s": round(per_start * n_pd),
        "pokdeng_speedup": round(per_start * n_pd / t_pd),
        "targets": {"taungau_build_s": 10, "pokdeng_build_s": 60},
    }
    print(json.dumps(direct, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
