#!/usr/bin/env python3
"""A user's Niu Niu rule file: its table's first-use build and its later loads, against
the preset build (``hands.build_tables``) measured in the same run.

* **preset build**: :func:`solver.games.niuniu.hands.build_tables` (every preset's table:
  the 52-card table with ``classic`` and ``casino``, the 40-card one with ``no_faces``),
  and the 52-card preset table alone.
* **first use** of a rule file (no cached table): :func:`solver.games.niuniu.source.rules_table`
  builds it, writes it atomically and reopens it — in process, and as a whole
  ``bull eval --rules FILE`` command (a fresh process, wall time). Target ≤ 5 s.
* **load after**: a fresh open of the cached table (what a new process does), with and
  without reading the columns a lookup needs, and the whole ``bull eval`` command again,
  against the same command for a preset. Target ≤ 0.2 s.

Rule files: a 52-card one with every special, Hong Kong bulls, rank-by-rank tie-breaks
and a Multi bet (the most work per hand), and a 40-card one.

    python scripts/bench_rules.py [--repeat N] [--json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from solver.games.niuniu import hands
from solver.games.niuniu.rules import load_rules
from solver.games.niuniu.source import rules_table
from solver.store import custom
from solver.store import tables as store

HAND = {"standard": "KS 9H 8C 3D 7S", "no_faces": "10S 9H 8C 3D 7S"}


def rule_files() -> dict[str, dict[str, Any]]:
    classic = load_rules("classic").to_data()
    multi = {"default": 1, **{f"niu_{k}": k for k in range(1, 10)}, "niu_niu": 10}
    every = {
        **classic,
        "name": "bench_every",
        "specials": [
            "straight",
            "three_of_a_kind",
            "four_faces",
            "five_faces",
            "four_of_a_kind",
            "straight_flush",
            "five_small_bull",
        ],
        "bull_from_three_of_a_kind": True,
        "tie_break": "rank_by_rank",
        "quads_first": True,
        "bets": ["multi"],
        "default_bet": "multi",
        "multipliers": {"multi": {**multi, "five_faces": 11}},
    }
    forty = {**load_rules("no_faces").to_data(), "name": "bench_forty", "on_tie": "banker"}
    return {"52 cards, every option": every, "40 cards (no_faces)": forty}


def best(fn: Any, repeat: int) -> float:
    out = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out = min(out, time.perf_counter() - t0)
    return out


def command(args: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "solver", *args],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - t0


def measure(name: str, data: dict[str, Any], repeat: int, work: Path) -> dict[str, float]:
    rules = load_rules(data)
    path = work / f"{data['name']}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    cache = work / name.split()[0]

    def first_use() -> None:
        shutil.rmtree(cache, ignore_errors=True)
        cache.mkdir()
        custom._OPEN.clear()
        rules_table(rules, cache, notice=lambda s: None)

    build = best(first_use, repeat)
    shutil.rmtree(cache, ignore_errors=True)
    cache.mkdir()
    cold_command = command(
        ["eval", "niuniu", HAND[rules.deck], "--rules", str(path), "--tables", str(cache)]
    )

    def load(columns: bool) -> None:
        custom._OPEN.clear()
        t = rules_table(rules, cache, notice=lambda s: None)
        if columns:
            for col in ("points", "bull_mask", "n_bulls", f"{rules.name}_category"):
                t.column(col)
            t.column(f"{rules.name}_strength")

    open_only = best(lambda: load(False), repeat)
    with_columns = best(lambda: load(True), repeat)
    warm_command = min(
        command(["eval", "niuniu", HAND[rules.deck], "--rules", str(path), "--tables", str(cache)])
        for _ in range(repeat)
    )
    return {
        "first_use_build": build,
        "first_use_command": cold_command,
        "load_open": open_only,
        "load_with_columns": with_columns,
        "cached_command": warm_command,
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=3, help="best of N (default 3)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    repeat = max(1, args.repeat)

    preset_all = best(hands.build_tables, repeat)
    standard = [load_rules("classic"), load_rules("casino")]
    preset_52 = best(lambda: hands.build_table(standard), repeat)
    preset_command = min(
        command(["eval", "niuniu", HAND["standard"], "--rules", "casino"]) for _ in range(repeat)
    )
    store._LOADED.clear()
    report: dict[str, Any] = {
        "preset_build_tables": preset_all,
        "preset_52_card_table": preset_52,
        "preset_eval_command": preset_command,
        "rule_files": {},
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name, data in rule_files().items():
            report["rule_files"][name] = measure(name, data, repeat, Path(tmp))
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"preset build (hands.build_tables, every preset table): {preset_all:6.2f} s")
    print(f"  the 52-card preset table alone (classic + casino):    {preset_52:6.2f} s")
    print(f"  `bull eval niuniu --rules casino` (whole command):   {preset_command:6.2f} s")
    for name, m in report["rule_files"].items():
        print(f"\nrule file, {name}:")
        print(
            f"  first use, table built + written + opened: {m['first_use_build']:6.2f} s "
            f"(limit 5 s; {m['first_use_build'] / preset_all:.2f}x the preset build, "
            f"{m['first_use_build'] / preset_52:.2f}x the 52-card preset table)"
        )
        print(f"  first use, whole `bull eval` command:      {m['first_use_command']:6.2f} s")
        print(
            f"  load after, open the cached table:         {m['load_open']:6.3f} s "
            f"(limit 0.2 s; {m['load_open'] / preset_all:.4f}x the preset build)"
        )
        print(
            f"  load after, open + the lookup columns:     {m['load_with_columns']:6.3f} s "
            f"({m['load_with_columns'] / preset_all:.4f}x the preset build)"
        )
        print(
            f"  cached, whole `bull eval` command:         {m['cached_command']:6.2f} s "
            f"({m['cached_command'] / preset_command:.2f}x the same command for a preset)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
