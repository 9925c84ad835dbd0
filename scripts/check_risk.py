#!/usr/bin/env python3
"""Issue 25's full-deck check of ``bull risk``: a fresh seeded simulation of >= 10^7 whole
tables (too slow for the test suite, which runs 10^5 on the full deck and every deal of
reduced decks: tests/test_risk_table.py) against the figures ``bull risk`` answers.

For Niu Niu ``classic``, double bet, 9 players (and any game given):

* every amount of one seat's net against the exact heads-up distribution (``bull edge``),
  within 4.5 standard errors;
* the covariance ``bull risk`` reports (its own seeded run) against this run's, within
  the two 99 % intervals together;
* the identity Var = N·Var₁ + N(N-1)·Cov against the variance of the banker's net
  measured directly in this run.

    python scripts/check_risk.py [--game niuniu] [--tables 10000000] [--players 9]

Exit 1 if a check fails; the figures are printed as JSON.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

from solver import games
from solver.kit.risk import NetDistribution
from solver.kit.table_sim import simulate_tables, spec_dealer

OPTIONS = {"niuniu": {"bet": "double"}, "taungau": {}, "pokdeng": {}}
SPEC_OPTIONS = {
    "niuniu": {"bet": "double"},
    "taungau": {},
    "pokdeng": {"player_strategy": "optimal"},
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="niuniu", choices=games.names())
    ap.add_argument("--tables", type=int, default=10_000_000)
    ap.add_argument("--players", type=int, default=9)
    ap.add_argument("--seed", type=int, default=99)
    args = ap.parse_args()
    game = games.get(args.game)
    risk = game.risk(None, OPTIONS[args.game], None, args.players, 1000)
    player: NetDistribution = risk.player
    step = 1
    for a, _ in player.points:
        step = step * a.denominator // math.gcd(step, a.denominator)
    spec = game.audit_spec(None, SPEC_OPTIONS[args.game], None)
    t0 = time.perf_counter()

    def show(done: int, total: int) -> None:
        if done % 1_000_000 < 50_000:
            print(f"  {done:,} / {total:,} tables", file=sys.stderr, flush=True)

    s = simulate_tables(
        spec_dealer(spec, args.players), args.players, args.tables, step, args.seed, show
    )
    seconds = time.perf_counter() - t0
    failures = []
    # one seat against the exact heads-up distribution
    first = s.banker[0]
    worst_z = 0.0
    for a, p in player.points:
        got = first.get(int(-a * step), 0) / s.tables
        se = math.sqrt(float(p) * (1 - float(p)) / s.tables)
        worst_z = max(worst_z, abs(got - float(p)) / se)
    if worst_z > 4.5:
        failures.append(f"heads-up frequencies: |z| up to {worst_z:.2f}")
    # the covariance against bull risk's
    m, half = s.pair_moment(99)
    cov = m - float(player.mean) ** 2
    lo, hi = risk.covariance_interval
    if abs(cov - risk.covariance) > half + (hi - lo) / 2:
        failures.append(f"covariance {cov:.6f} vs bull risk's {risk.covariance:.6f}")
    # the variance identity against the direct variance of the banker's net
    n = args.players
    hist = s.banker[n - 1]
    mean = sum(v * c for v, c in hist.items()) / s.tables / step
    direct = sum((v / step - mean) ** 2 * c for v, c in hist.items()) / (s.tables - 1)
    identity = n * float(player.variance) + n * (n - 1) * cov
    # the direct estimate's own standard error, from the fourth moment
    m4 = sum((v / step - mean) ** 4 * c for v, c in hist.items()) / s.tables
    se_var = math.sqrt(max(0.0, m4 - direct**2) / s.tables)
    if abs(direct - identity) > 4 * se_var:
        failures.append(f"variance: direct {direct:.4f} vs identity {identity:.4f}")
    print(
        json.dumps(
            {
                "game": args.game,
                "players": n,
                "tables": s.tables,
                "seconds": round(seconds, 1),
                "heads_up_worst_z": round(worst_z, 3),
                "covariance": cov,
                "covariance_half_width_99": half,
                "bull_risk_covariance": risk.covariance,
                "bull_risk_covariance_interval": [lo, hi],
                "variance_direct": direct,
                "variance_direct_se": se_var,
                "variance_identity": identity,
                "failures": failures,
            },
            indent=2,
        )
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
