#!/usr/bin/env python3
"""The Pok Deng rule language (issue 22): a rule file of ``[[types]]`` builds its exact
tables within 2x today's preset build, and ``bull verify pokdeng --infer`` learns types
from every hand of two and three cards.

* **build**: the exact strategy table (:func:`solver.games.pokdeng.rulefile.
  rule_strategy_table`: every hand classified, the 1,326 starts solved) for ``straights``
  in today's keys, then for a types file (``straights`` expanded, with J-Q-K tested as
  pictures before the straights and runs of one suit paid 4) — best of ``--repeat``, the
  same run. Target: ratio <= 2.
* **infer**: a claims file of every hand (``hand``, ``category``, ``points``, ``deng``) as
  the types file classifies it, then ``bull verify pokdeng FILE --rules straights --infer
  --json`` in a fresh process: wall time, the process's peak RSS, what it adopted.

    python scripts/bench_pokdeng_language.py [--repeat N] [--json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from solver.games.pokdeng.rulefile import rule_strategy_table
from solver.games.pokdeng.rules import PokDengRules, load_rules

CHILD = r"""
import io, json, resource, sys, time
from solver.cli import main
t = time.perf_counter()
out, err = io.StringIO(), io.StringIO()
code = main(["verify", "pokdeng", sys.argv[1], "--rules", "straights", "--json", "--infer"],
            out=out, err=err)
secs = time.perf_counter() - t
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
inf = json.loads(out.getvalue())["inferred"] if out.getvalue() else {}
print(json.dumps({"code": code, "seconds": secs, "peak_mb": rss, "err": err.getvalue()[-300:],
                  "adopted": [(s["id"], s["support"]) for s in inf.get("adopted", [])],
                  "disagree_after": inf.get("disagree_after"), "rows": inf.get("checked")}))
"""


def house() -> PokDengRules:
    """``straights`` expanded, J-Q-K tested as pictures first, suited runs paid 4."""
    data = load_rules("straights").expand()
    types = [t for t in data["types"] if t["name"] != "sam_lueang"]
    at = next(i for i, t in enumerate(types) if t["name"] == "straight_flush")
    types.insert(at, {"name": "sam_lueang", "when": "cards == 3 and faces == 3", "deng": 3})
    for t in types:
        if t["name"] == "straight_flush":
            t["deng"] = 4
    return PokDengRules.from_data("bench_house", {**data, "types": types})


def best(fn: Any, repeat: int) -> float:
    out = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out = min(out, time.perf_counter() - t0)
    return out


def claims_file(path: Path, rules: PokDengRules) -> int:
    """Every hand of two and three cards with its type, points and deng, as CSV."""
    import csv

    from solver.core.cards import hand_names
    from solver.games.pokdeng.hands import all_hands, classify
    from solver.games.pokdeng.language import TYPE_NAMES

    rows = 0
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["hand", "category", "points", "deng"])
        for size in (2, 3):
            cards = all_hands(size)
            kind, points, deng = classify(cards, rules)
            for i, hand in enumerate(cards.tolist()):
                w.writerow([" ".join(hand_names(hand)), TYPE_NAMES[kind[i]], points[i], deng[i]])
            rows += len(cards)
    return rows


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=3, help="best of N builds (default 3)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    repeat = max(1, args.repeat)
    preset, own = load_rules("straights"), house()
    t_preset = best(lambda: rule_strategy_table(preset), repeat)
    t_own = best(lambda: rule_strategy_table(own), repeat)
    report: dict[str, Any] = {
        "preset_build_s": t_preset,
        "language_build_s": t_own,
        "build_ratio": t_own / t_preset,
        "build_target_ratio": 2.0,
    }
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "every_hand.csv"
        rows = claims_file(path, own)
        proc = subprocess.run(
            [sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, check=False
        )
        if proc.returncode:
            raise SystemExit(f"verify --infer failed: {proc.stderr.strip()[-500:]}")
        report["infer"] = {**json.loads(proc.stdout.strip().splitlines()[-1]), "hand_rows": rows}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"preset build (straights, strategy table):   {t_preset:6.2f} s")
    print(f"types file build (pictures first, SF 4):    {t_own:6.2f} s "
          f"({t_own / t_preset:.2f}x the preset build; target <= 2x)")  # fmt: skip
    inf = report["infer"]
    print(f"verify --infer on every hand ({inf['hand_rows']:,} rows): {inf['seconds']:.1f} s, "
          f"peak {inf['peak_mb']:.0f} MB")  # fmt: skip
    print(f"  adopted: {inf['adopted']}; disagreeing after: {inf['disagree_after']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
