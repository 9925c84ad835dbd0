#!/usr/bin/env python3
"""Issue 25's exact worst round at a full table: how long the search takes, for every
preset, bet and option ``bull risk`` accepts and every table size.

For each case the game's problem is set up once (``setup_s``: the hands, their types and
nets), then :func:`solver.kit.packing.worst_round` runs for each N (2 up to the game's
largest table; N = 1 is checked against the heads-up largest win). Each search's CPU
seconds (process time) and wall seconds, nodes and whether it finished within its budget
(``exact``) are printed as JSON lines. The baseline, measured in the same run before
and after the searches: a fixed pure-Python workload (``calibrate``), so figures from a
loaded machine can be read as ratios (``cpu_ratio``: the search's CPU time over the
workload's). Target: every search exact, seconds to a minute per rule set.

    python scripts/bench_worst.py [--only niuniu taungau pokdeng] [--players N ...]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from solver.kit.packing import worst_round
from solver.kit.realize import SearchTooLong


def calibrate() -> float:
    """CPU seconds of a fixed pure-Python workload (dict and integer work, like the
    search's)."""
    t0 = time.process_time()
    d: dict[int, int] = {}
    x = 0
    for i in range(3_000_000):
        x = (x * 1_103_515_245 + i) & 0xFFFFFFFF
        d[x & 0xFFFF] = d.get(x & 0xFFFF, 0) + 1
    return time.process_time() - t0


def _max_win(res: Any) -> Fraction:
    """The heads-up largest win of an edge result with its ``net`` distribution."""
    assert res.net is not None
    return Fraction(res.net.max_win)


def cases() -> Iterator[tuple[str, str, Callable[[], Any], int, Callable[[], Fraction]]]:
    """(game, label, make the problem, the largest table, the heads-up largest win)."""
    from solver.games.niuniu.odds import _niuniu_rules
    from solver.games.niuniu.risk import worst_problem as nn
    from solver.games.pokdeng.risk import edge as pd_edge
    from solver.games.pokdeng.risk import worst_problem as pd
    from solver.games.taungau.risk import edge as tn_edge
    from solver.games.taungau.risk import worst_problem as tn
    from solver.kit.exact import exact_commission

    def nn_win(r: Any, bet: str, comm: Fraction) -> Callable[[], Fraction]:
        def f() -> Fraction:
            from solver.games.niuniu.audit import exact_figures

            fig = exact_figures(r, bet, float(comm), None)
            return max(Fraction(a) for a, _ in fig["net"])

        return f

    for preset in ("classic", "casino", "no_faces", "shoe6"):
        r = _niuniu_rules(preset)
        comms = [exact_commission(None, r.commission)]
        comms += [Fraction(0)] if preset == "classic" else []
        for bet in sorted(name for name, _ in r.multipliers):
            for c in comms:
                yield (
                    "niuniu",
                    f"{preset} {bet} commission {c}",
                    lambda r=r, bet=bet, c=c: nn(r, bet, c, None),
                    min((r.deck_size * int(r.decks)) // 5 - 1, 9 if r.decks == 1 else 16),
                    nn_win(r, bet, c),
                )
    for preset in ("macau", "pagat"):
        for reveals in ("first", "last") if preset == "macau" else (None,):
            yield (
                "taungau",
                f"{preset} reveals {reveals}",
                lambda p=preset, rv=reveals: tn(p, rv, None),
                5,
                lambda p=preset, rv=reveals: _max_win(tn_edge(p, rv)),
            )
    for preset, ks in (("standard", (4, 0, 3, 5, 9)), ("straights", (4,)), ("shoe8", (4,))):
        for k in ks:
            yield (
                "pokdeng",
                f"{preset} dealer draws at most {k}",
                lambda p=preset, k=k: pd(p, k, None),
                16,
                lambda p=preset, k=k: _max_win(pd_edge(p, k)),
            )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="*", choices=("niuniu", "taungau", "pokdeng"))
    ap.add_argument("--players", nargs="*", type=int, help="these table sizes only")
    ap.add_argument("--match", help="only the cases whose label holds this text")
    args = ap.parse_args()
    base = [calibrate()]
    print(json.dumps({"calibrate_cpu_s": round(base[0], 3), "load": os.getloadavg()}))
    worst_cpu = 0.0
    for game, label, make, most, win in cases():
        if args.only and game not in args.only:
            continue
        if args.match and args.match not in label:
            continue
        t0, c0 = time.perf_counter(), time.process_time()
        problem = make()
        setup = {"setup_s": round(time.perf_counter() - t0, 2),
                 "setup_cpu_s": round(time.process_time() - c0, 2)}  # fmt: skip
        rows = []
        for n in args.players or range(1, most + 1):
            if n > most:
                continue
            t0, c0 = time.perf_counter(), time.process_time()
            try:
                w = worst_round(problem.search, n)
                amount: str | None = str(Fraction(w.amount, problem.step))
                nodes, exact = w.nodes, True
            except SearchTooLong:
                amount, nodes, exact = None, None, False
            cpu = time.process_time() - c0
            worst_cpu = max(worst_cpu, cpu)
            row = {"players": n, "amount": amount, "exact": exact, "nodes": nodes,
                   "wall_s": round(time.perf_counter() - t0, 3), "cpu_s": round(cpu, 3),
                   "cpu_ratio": round(cpu / base[0], 3)}  # fmt: skip
            if n == 1 and exact:
                row["heads_up_ok"] = Fraction(amount or 0) == win()
            rows.append(row)
        print(json.dumps({"game": game, "case": label, **setup, "rows": rows}), flush=True)
    base.append(calibrate())
    print(json.dumps({"calibrate_cpu_s_after": round(base[1], 3), "load": os.getloadavg(),
                      "slowest_search_cpu_s": round(worst_cpu, 3)}))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
