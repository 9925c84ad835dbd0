"""Niu Niu from a 6-deck shoe against one deck, measured in the same run (issue 12).

Times the table build (every hand evaluated: 2,598,960 sets vs 3,819,816 multisets) and
the exact edge (every ordered pair of hands: one-deck inclusion-exclusion vs the
multiset version with card removal by multiplicity), and prints the ratios; these
machines are noisy, the ratios are what to compare. Targets: 6-deck build ≤ 15 s,
6-deck edge ≤ 120 s.

    python scripts/bench_shoe.py [--all-sizes]

``--all-sizes`` also times the report's curve (1..8 decks in one pass).
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from solver.games.niuniu.hands import build_table
from solver.games.niuniu.odds import edge_of, matchups_of, shoe_matchups
from solver.games.niuniu.rules import load_rules
from solver.kit.exact import exact_commission, fraction_text


def columns(table: object, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    t = table  # a pyarrow Table
    hands = np.stack([t.column(f"c{i}").to_numpy() for i in range(5)], axis=1)  # type: ignore[attr-defined]
    return (
        hands,
        t.column(f"{name}_strength").to_numpy().astype(np.int64),  # type: ignore[attr-defined]
        t.column(f"{name}_category").to_numpy(),  # type: ignore[attr-defined]
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--all-sizes", action="store_true")
    args = ap.parse_args()
    one, shoe = load_rules("classic"), load_rules("shoe6")
    c = exact_commission(None, one.commission)

    t0 = time.perf_counter()
    t1 = build_table([one])
    b1 = time.perf_counter() - t0
    t0 = time.perf_counter()
    t6 = build_table([shoe])
    b6 = time.perf_counter() - t0
    print(
        f"build: 1 deck {b1:.2f} s ({t1.num_rows:,} rows), 6 decks {b6:.2f} s "
        f"({t6.num_rows:,} rows): ratio {b6 / b1:.2f}"
    )

    t0 = time.perf_counter()
    mu1 = matchups_of(one, *columns(t1, "classic"), 52)
    e1 = time.perf_counter() - t0
    t0 = time.perf_counter()
    mu6 = matchups_of(shoe, *columns(t6, "shoe6"), 52)
    e6 = time.perf_counter() - t0
    print(f"edge (every bet): 1 deck {e1:.1f} s, 6 decks {e6:.1f} s: ratio {e6 / e1:.2f}")
    for bet in shoe.bets:
        a, b = edge_of(one, mu1, bet, c), edge_of(shoe, mu6, bet, c)
        print(
            f"  {bet}: 1 deck {float(a.ev):+.6f}, 6 decks {float(b.ev):+.6f} "
            f"({fraction_text(b.ev)}), P(push) {float(b.p_push):.6f}"
        )
    if args.all_sizes:
        t0 = time.perf_counter()
        curve = shoe_matchups(shoe, *columns(t6, "shoe6"), 52, list(range(1, 9)))
        ec = time.perf_counter() - t0
        print(f"curve 1..8 decks in one pass: {ec:.1f} s ({ec / e6:.2f} x one 6-deck edge)")
        print(
            "  1 deck through the shoe path equals today's:",
            all(edge_of(one, curve[0], b, c).ev == edge_of(one, mu1, b, c).ev for b in one.bets),
        )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
    print(f"peak memory {peak:.1f} GB")


if __name__ == "__main__":
    main()
