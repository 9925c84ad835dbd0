#!/usr/bin/env python3
"""The Niu Niu rule language (issue 22): a rule file with categories of its own builds
its exact table within 2x today's preset build, and ``bull verify --infer`` learns a
category from every one of the 2,598,960 hands within 120 s and 1 GB.

* **build**: :func:`solver.games.niuniu.hands.build_table` for ``classic`` (a preset in
  today's keys), then for a rule file in the language with three new categories (a bull
  whose other two cards are a pair, "all small", three of a kind and a pair), a tie chain
  of its own for no-bull hands and a multiplier table — best of ``--repeat``, the same run.
  Target: ratio <= 2.
* **infer**: a claims file of every hand (``hand``, ``category``) as the Hong Kong house
  claims them (the pair bull a category above niu niu), then
  ``bull verify niuniu FILE --infer --json`` in a fresh process: wall time and the
  process's peak RSS, and what it adopted. Targets: <= 120 s, < 1 GB.

    python scripts/bench_language.py [--repeat N] [--json] [--keep DIR]
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

from solver.games.niuniu import hands
from solver.games.niuniu.rules import load_rules

REPO = Path(__file__).resolve().parent.parent
HOUSE_CATEGORIES = [
    {"name": "all_small", "when": 'all_in("A-4")', "rank": 14, "tie": ["highest_card", "push"],
     "multipliers": {"equal": 4, "double": 4}},
    {"name": "five_faces", "when": "faces == 5", "rank": 13, "tie": ["highest_card", "push"],
     "multipliers": {"equal": 5, "double": 5}},
    {"name": "gourd", "when": "kind == 3 and pairs == 2", "rank": 12,
     "tie": ["pair_rank_then_kicker", "push"], "multipliers": {"equal": 4, "double": 4}},
    {"name": "bull_pair", "when": "bull and bull_pair", "rank": 11,
     "tie": ["rank_by_rank", "push"], "multipliers": {"equal": 5, "double": 5}},
]  # fmt: skip

CHILD = r"""
import io, json, resource, sys, time
from solver.cli import main
t = time.perf_counter()
out, err = io.StringIO(), io.StringIO()
code = main(["verify", "niuniu", sys.argv[1], "--tables", sys.argv[2], "--json", "--infer"],
            out=out, err=err)
secs = time.perf_counter() - t
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
inf = json.loads(out.getvalue())["inferred"] if out.getvalue() else {}
print(json.dumps({"code": code, "seconds": secs, "peak_mb": rss, "err": err.getvalue()[-300:],
                  "adopted": [(s["id"], s["support"]) for s in inf.get("adopted", [])],
                  "disagree_after": inf.get("disagree_after"), "rows": inf.get("checked")}))
"""


def house_rules(name: str, categories: list[dict[str, Any]]) -> dict[str, Any]:
    """``classic`` expanded, with ``categories`` above niu niu (every rank from niu niu
    down kept) and the issue's no-bull tie chain."""
    data = load_rules("classic").expand()
    low = [c for c in data["categories"] if c["rank"] <= 10]
    for c in low:
        if c["name"] == "no_bull":
            c["tie"] = ["number_of_pairs", "pair_rank", "rank_by_rank", "push"]
    return {**data, "name": name, "categories": [*categories, *low]}


def best(fn: Any, repeat: int) -> float:
    out = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out = min(out, time.perf_counter() - t0)
    return out


def claims_file(path: Path) -> int:
    """Every hand and its category under the Hong Kong house, as CSV."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    from solver.core.cards import CARD_NAMES

    hk = load_rules(house_rules("hk", [HOUSE_CATEGORIES[1], HOUSE_CATEGORIES[3]]))
    t = pq.read_table(REPO / "tables" / "niuniu.parquet", columns=[f"c{i}" for i in range(5)])
    cards = np.stack([t.column(f"c{i}").to_numpy() for i in range(5)], axis=1)
    code, _ = hands.compiled_arrays(cards, hk)
    names = pa.array(list(CARD_NAMES))
    cols = [pc.take(names, pa.array(cards[:, i].astype(np.int32))) for i in range(5)]
    hand = pc.binary_join_element_wise(*cols, " ")
    labels = pa.array(list(hk.labels))
    cat = pc.take(labels, pa.array(code.astype(np.int32)))
    pcsv.write_csv(pa.table({"hand": hand, "category": cat}), str(path))
    return len(cards)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=3, help="best of N builds (default 3)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--keep", metavar="DIR", help="write the claims file here (and reuse it)")
    args = p.parse_args()
    repeat = max(1, args.repeat)

    classic = load_rules("classic")
    house = load_rules(house_rules("bench_house", HOUSE_CATEGORIES))
    preset = best(lambda: hands.build_table([classic]), repeat)
    own = best(lambda: hands.build_table([house]), repeat)
    report: dict[str, Any] = {
        "preset_build_s": preset,
        "language_build_s": own,
        "build_ratio": own / preset,
        "build_target_ratio": 2.0,
    }
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(args.keep) if args.keep else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        tables = Path(tmp) / "tables"
        tables.mkdir()
        for name in ("niuniu.parquet", "MANIFEST.json"):
            (tables / name).symlink_to(REPO / "tables" / name)
        path = work / "hk_every_hand.csv"
        t0 = time.perf_counter()
        rows = claims_file(path) if not path.exists() else 2_598_960
        report["claims_file_s"] = time.perf_counter() - t0
        proc = subprocess.run(
            [sys.executable, "-c", CHILD, str(path), str(tables)],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode:
            raise SystemExit(f"verify --infer failed: {proc.stderr.strip()[-500:]}")
        got = json.loads(proc.stdout.strip().splitlines()[-1])
        report["infer"] = {**got, "hand_rows": rows, "target_s": 120, "target_mb": 1024}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"preset build (classic, 2,598,960 hands):         {preset:6.2f} s")
    print(
        f"rule file with 3 new categories and a tie chain: {own:6.2f} s "
        f"({own / preset:.2f}x the preset build; target <= 2x)"
    )
    inf = report["infer"]
    print(
        f"verify --infer on every hand ({inf['hand_rows']:,} rows): {inf['seconds']:.1f} s "
        f"(target <= 120 s), peak {inf['peak_mb']:.0f} MB (target < 1024 MB)"
    )
    print(f"  adopted: {inf['adopted']}; disagreeing after: {inf['disagree_after']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
