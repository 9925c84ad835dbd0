#!/usr/bin/env python3
"""Every committed table's build time (issue 26: ``bull build`` <= 10 s in all), and the
Tau Ngau and Pok Deng builds against direct enumeration, measured in the same run.

* Per table: the seconds of each table's own build step (Niu Niu's four tables one by
  one as ``build_tables`` makes them, the grab reusing classic's counts), the whole
  ``bull build`` into a temporary directory (writing included), and each as a ratio to
  a baseline measured in the same run: numpy sorting 2**24 random int64 keys (the
  counting's core operation), so a busy machine shows in the baseline too.

* Tau Ngau: the whole tile build (every hand, every 3/6 choice, banker distributions by
  inclusion-exclusion) against enumerating the 80,730 banker hands of each of the
  201,376 player hands (timed on a sample, extrapolated).
* Pok Deng: the whole strategy (1,326 starts x 3 dealer policies x 4 rule sets) against
  settling every (dealer hand, player draw, dealer draw) deal of a start (2,763,600 per
  start, timed on a sample with numpy, extrapolated).

    python scripts/bench_builds.py [--sample N]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from solver.core.indexing import all_subsets, colex_rank_array
from solver.games.pokdeng import hands as pokdeng
from solver.games.pokdeng import rules as pokdeng_rules
from solver.games.pokdeng import strategy as pokdeng_strategy
from solver.games.taungau import hands as taungau
from solver.games.taungau import rules as taungau_rules


def seconds(fn, repeat: int = 1) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


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


def table_times(repeat: int) -> dict[str, float]:
    """Seconds of each committed table's build step, and of the whole build."""
    import tempfile

    from solver.build import build
    from solver.games.niuniu import grab, hands
    from solver.games.niuniu.rules import PRESETS, load_rules

    out: dict[str, float] = {}
    groups: dict[str, list] = {}  # type: ignore[type-arg]
    for preset in PRESETS:
        r = load_rules(preset)
        groups.setdefault(hands.table_name(r), []).append(r)
    counts: dict = {}  # type: ignore[type-arg]
    built = {}
    for name, rule_sets in groups.items():
        t0 = time.perf_counter()
        built[name] = hands.build_table(rule_sets, odds=True, counts=counts)
        out[name] = time.perf_counter() - t0
    base = built["niuniu"]
    bet = grab.grab_bet(load_rules("classic"))
    known = counts["classic"][bet] if bet else None
    s, c = base.column("classic_strength").to_numpy(), base.column("classic_category").to_numpy()
    out[grab.TABLE] = seconds(lambda: grab.build_grab_table(s, c, known), repeat)
    out["taungau"] = seconds(taungau.build_tables, repeat)
    out["pokdeng+pokdeng_strategy"] = seconds(pokdeng_strategy.build_tables, repeat)
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        summary = build(None, tables=d)
        out["bull build (all, written)"] = time.perf_counter() - t0
        out["of which writing"] = summary["write_seconds"]
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sample", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=1, help="best of N for the quick tables")
    ap.add_argument("--tables-only", action="store_true", help="skip the direct enumerations")
    args = ap.parse_args()
    b0 = baseline()
    times = table_times(args.repeat)
    b1 = baseline()
    base_s = min(b0, b1)
    tables = {k: {"s": round(v, 3), "ratio": round(v / base_s, 1)} for k, v in times.items()}
    print(json.dumps({"baseline_sort_2^24_s": round(base_s, 4), "tables": tables}, indent=2))
    if args.tables_only:
        return 0
    t_tn = seconds(taungau.build_tables, 2)
    per_hand = taungau_direct(args.sample * 4)
    t_pd = seconds(pokdeng_strategy.build_tables, 2)
    per_start = pokdeng_direct(args.sample)
    n_tn, n_pd = 201_376, 1_326 * 3 * 4
    report = {
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
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
