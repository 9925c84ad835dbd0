#!/usr/bin/env python3
"""Pok Deng as a two-sided game (issue 15), timed against today's player strategy.

In one run, each the best of ``--repeat`` cold runs (the payoff tables' cache cleared)
after one warm-up:

* the baseline: ``strategy.solve`` (the player's strategy against a fixed dealer),
* the dealer's best response to the player's optimum (tables + response; bound 30 s),
* the equilibrium with its exact certificate (tables + LP + polish + certificate;
  bound 300 s), for the house constraints ``--must-draw-at-most`` (default -1 and 3),

printing the ratios to the baseline and the exact figures.

    python scripts/bench_equilibrium.py [--repeat N] [--rules standard] [--json]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

from solver.games.pokdeng.dealer import best_response, dealer_game, optimal_strategy
from solver.games.pokdeng.equilibrium import solve_equilibrium
from solver.games.pokdeng.rules import load_rules
from solver.games.pokdeng.strategy import overall_ev, solve


def best_of(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """Best wall time of ``repeat`` calls (after a warm-up call) and the last result."""
    out = fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rules", default="standard")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rules = load_rules(args.rules)
    opt = optimal_strategy(rules)

    def baseline() -> Any:
        return overall_ev(solve(rules, 4))

    def response(k: int) -> Callable[[], Any]:
        def run() -> Any:
            dealer_game.cache_clear()
            return best_response(rules, opt, k)

        return run

    def equilibrium(k: int) -> Callable[[], Any]:
        def run() -> Any:
            dealer_game.cache_clear()
            return solve_equilibrium(rules, k)

        return run

    t_base, base = best_of(baseline, args.repeat)
    rows: list[dict[str, Any]] = [
        {
            "what": "strategy.solve (baseline, dealer fixed K=4)",
            "seconds": t_base,
            "ev_player_fraction": base["ev_optimal_fraction"],
        }
    ]
    for k in (-1, 3):
        t, br = best_of(response(k), args.repeat)
        rows.append(
            {
                "what": f"best response to the optimum, must_draw_at_most={k}",
                "seconds": t,
                "ratio": t / t_base,
                "bound": 30.0,
                "ev_player_fraction": f"{br.player_ev.numerator}/{br.player_ev.denominator}",
            }
        )
    for k in (-1, 3):
        t, eq = best_of(equilibrium(k), args.repeat)
        rows.append(
            {
                "what": f"equilibrium + certificate, must_draw_at_most={k}",
                "seconds": t,
                "ratio": t / t_base,
                "bound": 300.0,
                "value_fraction": f"{eq.value.numerator}/{eq.value.denominator}",
                "ev_player_best_response": float(eq.player_best_response_ev),
                "ev_dealer_best_response": float(eq.dealer_best_response_ev),
                "exact": eq.exact,
                "parts": eq.seconds,
            }
        )
    if args.json:
        print(json.dumps({"rules": args.rules, "repeat": args.repeat, "rows": rows}))
        return
    for r in rows:
        extra = (
            f"  x{r['ratio']:.1f} of baseline (bound {r['bound']:.0f} s)" if "ratio" in r else ""
        )
        print(f"{r['what']:<58} {r['seconds']:8.3f} s{extra}")
        for key in (
            "ev_player_fraction",
            "value_fraction",
            "ev_player_best_response",
            "ev_dealer_best_response",
        ):
            if key in r:
                print(f"    {key}: {r[key]}")


if __name__ == "__main__":
    main()
