"""Time ``bull edge niuniu`` against baselines measured in the same run.

Baselines (both extrapolated from a timed sample, both exact methods):

* **direct enumeration, vectorised**: for a player hand, look up the strengths of all
  1,533,939 banker hands from the other 47 cards and count (numpy); times 2,598,960.
* **pairwise loop**: compare one (player, banker) pair at a time in Python; times
  3,986,646,103,440 pairs.

Usage: ``python scripts/bench_edge.py [--tables DIR] [--sample N]``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

import numpy as np

from solver.core.indexing import all_subsets, colex_rank_array
from solver.kit import exact as analysis
from solver.store.tables import open_table

PLAYER_HANDS = 2_598_960
BANKER_HANDS = 1_533_939


def direct_per_hand(strength: np.ndarray, sample: int, seed: int = 1) -> float:
    """Seconds per player hand to count its disjoint weaker/stronger banker hands."""
    rng = np.random.default_rng(seed)
    subsets = all_subsets(47, 5)
    t0 = time.perf_counter()
    for _ in range(sample):
        hand = np.sort(rng.choice(52, 5, replace=False))
        rest = np.setdiff1d(np.arange(52), hand).astype(np.uint8)
        s = strength[colex_rank_array(rest[subsets], presorted=True)]
        mine = strength[colex_rank_array(hand[None, :].astype(np.uint8))[0]]
        _ = int((s < mine).sum()), int((s > mine).sum())
    return (time.perf_counter() - t0) / sample


def pairwise_per_pair(strength: np.ndarray, pairs: int, seed: int = 2) -> float:
    """Seconds per (player, banker) pair compared one at a time in Python."""
    rng = np.random.default_rng(seed)
    s = strength.tolist()
    hands = rng.integers(0, PLAYER_HANDS, (pairs, 2)).tolist()
    t0 = time.perf_counter()
    wins = 0
    for a, b in hands:
        wins += s[a] > s[b]
    return (time.perf_counter() - t0) / pairs


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--tables", help="tables directory")
    p.add_argument("--sample", type=int, default=20, help="player hands to enumerate")
    args = p.parse_args()
    t = open_table("niuniu", args.tables)
    strength = t.column("classic_strength").astype(np.int64)

    t0 = time.perf_counter()
    res = analysis.niuniu_edge("classic", "double", None, args.tables)
    api = time.perf_counter() - t0
    cmd = [sys.executable, "-m", "solver", "edge", "niuniu", "--bet", "double", "--json"]
    if args.tables:
        cmd += ["--tables", args.tables]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    cli = time.perf_counter() - t0

    per_hand = direct_per_hand(strength, args.sample)
    direct = per_hand * PLAYER_HANDS
    per_pair = pairwise_per_pair(strength, 1_000_000)
    pairwise = per_pair * PLAYER_HANDS * BANKER_HANDS
    print(
        f"bull edge niuniu (classic, double): EV {float(res.ev):+.6f} = "
        f"{analysis.fraction_text(res.ev)}"
    )
    print(f"  inclusion-exclusion, in process:  {api:8.2f} s")
    print(f"  `bull edge niuniu` command, total: {cli:8.2f} s  (limit 60 s)")
    print(
        f"  baseline, direct enumeration:     {direct:8.0f} s  "
        f"({per_hand * 1e3:.1f} ms x {PLAYER_HANDS:,} player hands; sample {args.sample})"
    )
    print(
        f"  baseline, pairwise Python loop:   {pairwise:8.3g} s  "
        f"({per_pair * 1e9:.0f} ns x {PLAYER_HANDS * BANKER_HANDS:,} pairs)"
    )
    print(f"  speed-up vs direct enumeration:   {direct / api:8.0f}x")
    print(f"  speed-up vs pairwise loop:        {pairwise / api:8.3g}x")


if __name__ == "__main__":
    main()
