#!/usr/bin/env python3
"""Niu Niu performance, with a pure-Python brute-force baseline measured in the same run.

Reports: build time; batch lookups per second (sorting the five ids and the colex rank
included); single-hand API calls per second; a one-shot ``bull eval`` process. Every
figure is also given as a ratio to the baseline evaluator (itertools over the ten
triples), because absolute seconds on a shared 2-core machine are noisy.

    python scripts/bench_niuniu.py [--tables DIR] [--quick]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from itertools import combinations
from pathlib import Path

import numpy as np

from solver.core.cards import CARD_NAMES
from solver.games.niuniu import play as nn
from solver.games.niuniu.hands import build_tables


def baseline_points(hand: tuple[int, ...]) -> int:
    """The plain brute force: card values, ten triples, last digit."""
    vals = [min((c >> 2) + 1, 10) for c in hand]
    for t in combinations(vals, 3):
        if sum(t) % 10 == 0:
            return (sum(vals) - 1) % 10 + 1
    return 0


def _calls(fn, hands, tables) -> None:  # type: ignore[no-untyped-def]
    """One API call per hand, results dropped (as a caller evaluating a stream would)."""
    for h in hands:
        fn(h, tables=tables)


def best_of(fn, repeat: int = 3) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tables", default=None)
    ap.add_argument("--quick", action="store_true", help="smaller samples")
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    n_batch = 2_000_000 if args.quick else 10_000_000
    n_single = 100_000 if args.quick else 500_000
    n_base = 100_000 if args.quick else 300_000

    # baseline: pure-Python brute force per hand
    hands = [tuple(int(x) for x in rng.choice(52, 5, replace=False)) for _ in range(n_base)]
    t_base = best_of(lambda: [baseline_points(h) for h in hands], 2)
    base_rate = n_base / t_base

    # build (enumerate + evaluate + digest; the Parquet write is timed by `bull build`)
    t_build = best_of(build_tables, 1)

    # batch lookups: random hands in random order; sort + colex rank + gather
    batch = (
        np.argsort(rng.random((n_batch, 52)), axis=1)[:, :5].astype(np.uint8)
        if n_batch <= 2_000_000
        else np.concatenate(
            [
                np.argsort(rng.random((1_000_000, 52)), axis=1)[:, :5].astype(np.uint8)
                for _ in range(n_batch // 1_000_000)
            ]
        )
    )
    nn.evaluate_batch(batch[:10], tables=args.tables)  # load the table once
    from solver.core.indexing import batch_lookup
    from solver.store.tables import open_table

    strength = open_table("niuniu", args.tables).column("classic_strength")

    def lookup() -> None:  # validate + sort the five ids + colex rank + gather the strength
        batch_lookup(batch, [strength])

    t_lookup = best_of(lookup)
    t_api_batch = best_of(lambda: nn.evaluate_batch(batch, tables=args.tables))
    # single-hand API
    singles = (
        hands[:n_single] if n_single <= n_base else (hands * (n_single // n_base + 1))[:n_single]
    )
    nn.evaluate(singles[0], tables=args.tables)
    t_single = best_of(lambda: _calls(nn.evaluate, singles, args.tables), 2)
    names = [" ".join(CARD_NAMES[c] for c in h) for h in singles]
    t_single_str = best_of(lambda: _calls(nn.evaluate, names, args.tables), 2)
    # one-shot CLI process
    cmd = [sys.executable, "-m", "solver", "eval", "niuniu", "KS 9H 8C 3D 7S"]
    if args.tables:
        cmd += ["--tables", args.tables]
    subprocess.run(cmd, check=True, capture_output=True)
    t_cli = best_of(lambda: subprocess.run(cmd, check=True, capture_output=True), 5)
    t_python = best_of(lambda: subprocess.run([sys.executable, "-c", "pass"], check=True), 5)

    report = {
        "baseline_hands_per_s": round(base_rate),
        "build_s": round(t_build, 3),
        "build_vs_baseline_all_hands": round(2_598_960 / base_rate / t_build, 1),
        "batch_lookup_hands_per_s": round(n_batch / t_lookup),
        "batch_lookup_vs_baseline": round(n_batch / t_lookup / base_rate, 1),
        "evaluate_batch_hands_per_s": round(n_batch / t_api_batch),
        "single_api_calls_per_s": round(n_single / t_single),
        "single_api_vs_baseline": round(n_single / t_single / base_rate, 2),
        "single_api_from_text_calls_per_s": round(n_single / t_single_str),
        "one_shot_cli_s": round(t_cli, 3),
        "bare_python_startup_s": round(t_python, 3),
        "targets": {
            "build_s": 10,
            "batch_lookup_hands_per_s": 50e6,
            "single_api_calls_per_s": 5e5,
            "one_shot_cli_s": 0.3,
        },
    }
    print(json.dumps(report, indent=2))
    Path("scripts/.last_bench_niuniu.json").write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
