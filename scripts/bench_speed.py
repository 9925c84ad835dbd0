"""Every speed target of issue 26 in one command: the benchmarks run one after another
and their ratios gathered into one table (Markdown), with the load average of each.

    python scripts/bench_speed.py                 # the full sizes (about 40 minutes)
    python scripts/bench_speed.py --quick         # smaller inputs, one run each (minutes)
    python scripts/bench_speed.py --only build,text --json speed.json
    python scripts/bench_speed.py --suite         # the test suite's wall clock too

Each part is its own benchmark in ``scripts/`` (run it alone for the details): the
whole ``bull build`` (``bench_builds.py --tables-only``; target <= 10 s), ``bull eval
--input`` and the one-shot ``bull eval`` (``bench_text.py``), ``bull verify`` on Parquet
and CSV (``bench_verify.py``), ``bull audit`` against DuckDB's own scan
(``bench_audit.py``) and, with ``--suite``, the README's test command (target <= 8
minutes). A ratio is of the form the target states, measured in the same run; ``met``
says whether it reaches the target. The machine should be otherwise idle: the ratios
hold up under load better than the rates, but none is immune.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

Row = dict[str, Any]
"""One line of the table: ``target``, ``measured``, ``ratio``, ``met``, ``command``."""


def run(argv: list[str], timeout: float | None = None) -> str:
    """The standard output of a benchmark (its progress goes to the terminal)."""
    print("$", " ".join(argv[1:]), flush=True)
    p = subprocess.run(
        argv, stdout=subprocess.PIPE, text=True, check=False, cwd=REPO, timeout=timeout
    )
    if p.returncode:
        raise SystemExit(f"{argv[1]} failed (exit {p.returncode})")
    return p.stdout


def first_json(text: str) -> dict[str, Any]:
    """The first JSON object printed on a line of its own.

    >>> first_json('generated\\n{"a": 1,\\n "b": [2]}\\n| x |')
    {'a': 1, 'b': [2]}
    """
    at = next(m.start() for m in re.finditer(r"^\{", text, re.MULTILINE))
    obj, _ = json.JSONDecoder().raw_decode(text[at:])
    assert isinstance(obj, dict)
    return obj


def table_rows(text: str, prefix: str) -> list[list[str]]:
    """The cells of the Markdown rows of ``text`` whose first cell starts with ``prefix``.

    >>> table_rows("| `verify nn` x | 1 s | 0.25x |\\n| other | 2 | 3 |", "`verify")
    [['`verify nn` x', '1 s', '0.25x']]
    """
    rows = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0].startswith(prefix):
            rows.append(cells)
    return rows


def ratio_of(cell: str) -> float:
    """The first ratio (``0.25x``) written in a cell."""
    m = re.search(r"([0-9.]+)x", cell)
    if m is None:
        raise ValueError(f"no ratio in {cell!r}")
    return float(m.group(1))


def load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def build(args: Any) -> list[Row]:
    cmd = [sys.executable, "scripts/bench_builds.py", "--build-only", "--repeat", str(args.repeat)]
    before = load()
    got = first_json(run(cmd))
    fig = got["now"]["bull build (all, written)"]
    wall = float(fig["wall"])
    return [
        {
            "target": "`bull build` of every committed table <= 10 s",
            "measured": f"{wall:.2f} s wall, {float(fig.get('cpu', 0)):.2f} s CPU "
            f"(numpy sorting 2^24 keys: {got['baseline_sort_2^24_s']:.2f} s)",
            "ratio": round(10 / wall, 2),
            "met": wall <= 10,
            "load": f"{before}, {load()}",
            "command": " ".join(cmd[1:]),
        }
    ]


def text(args: Any) -> list[Row]:
    lines = "200000" if args.quick else "1000000"
    cmd = [sys.executable, "scripts/bench_text.py", "--lines", lines, "--repeat", str(args.repeat)]
    before = load()
    out = run(cmd)
    rows = []
    for cells in table_rows(out, "`eval") + table_rows(out, "one-shot"):
        r = ratio_of(cells[2])
        one_shot = cells[0].startswith("one-shot")
        rows.append(
            {
                "target": cells[0],
                "measured": f"{int(lines):,} lines: {cells[1]}" if not one_shot else cells[1],
                "ratio": r,
                "met": r <= 2 if one_shot else r >= 1,
                "load": f"{before}, {load()}",
                "command": " ".join(cmd[1:]),
            }
        )
    return rows


def verify(args: Any) -> list[Row]:
    rows_n = "1000000" if args.quick else "10000000"
    cmd = [sys.executable, "scripts/bench_verify.py", "--rows", rows_n,
           "--repeat", str(args.repeat)]  # fmt: skip
    if args.dir:
        cmd += ["--dir", str(Path(args.dir) / "verify")]
    before = load()
    out = run(cmd)
    rows = []
    for cells in table_rows(out, "`verify"):
        r = ratio_of(cells[2])
        goal = 0.6 if "Parquet" in cells[0] else 0.5
        rows.append(
            {
                "target": cells[0],
                "measured": cells[1],
                "ratio": r,
                "met": r >= goal,
                "load": f"{before}, {load()}",
                "command": " ".join(cmd[1:]),
            }
        )
    return rows


def audit(args: Any) -> list[Row]:
    n = 10_000_000 if args.quick else 100_000_000
    cmd = [sys.executable, "scripts/bench_audit.py", "--rows", str(n), "--no-spark",
           "--runs", str(args.repeat)]  # fmt: skip
    if args.dir:
        cmd += ["--dir", str(Path(args.dir) / "audit")]
    before = load()
    got = first_json(run(cmd))["parquet"]
    ratio = float(got["ratio_scan_to_audit"])
    rate = float(got["audit_rows_per_s"])
    common = {"load": f"{before}, {load()}", "command": " ".join(cmd[1:])}
    return [
        {
            "target": "`bull audit` >= 0.5x DuckDB's scan (`count(*), sum(length(hand))`)",
            "measured": f"{n:,} Parquet rows: {got['audit_seconds']:.2f} s "
            f"({got['audit_cpu']:.2f} s CPU) vs {got['hand_scan_seconds']:.2f} s "
            f"({got['hand_scan_cpu']:.2f} s CPU); DuckDB's scan of every audited column "
            f"{got['column_scan_seconds']:.2f} s",
            "ratio": ratio,
            "met": ratio >= 0.5,
            **common,
        },
        {
            "target": "`bull audit` >= 15 M seat-rows/s",
            "measured": f"{rate / 1e6:.1f} M rows/s on {n:,} rows",
            "ratio": round(rate / 15e6, 2),
            "met": rate >= 15e6,
            **common,
        },
    ]


def suite(args: Any) -> list[Row]:
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    before = load()
    t = time.perf_counter()
    p = subprocess.run(cmd, cwd=REPO, check=False, stdout=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t
    tail = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
    return [
        {
            "target": "the test suite <= 8 minutes",
            "measured": f"{wall:.0f} s ({tail.strip('= ')})",
            "ratio": round(480 / wall, 2),
            "met": wall <= 480 and p.returncode == 0,
            "load": f"{before}, {load()}",
            "command": "python -m pytest -q",
        }
    ]


PARTS: dict[str, Callable[[Any], list[Row]]] = {
    "build": build,
    "text": text,
    "verify": verify,
    "audit": audit,
}


def markdown(rows: list[Row]) -> str:
    out = ["| target | measured | ratio | met | load average | command |",
           "| --- | --- | --- | --- | --- | --- |"]  # fmt: skip
    for r in rows:
        met = "**met**" if r["met"] else "not met"
        out.append(
            f"| {r['target']} | {r['measured']} | {r['ratio']:.2f}x | {met} | {r['load']} "
            f"| `python {r['command']}` |"
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="smaller inputs (a quick look)")
    ap.add_argument("--repeat", type=int, help="best of N (default 3; --quick: 1)")
    ap.add_argument("--only", help=f"comma-separated parts of {', '.join(PARTS)}")
    ap.add_argument("--suite", action="store_true", help="time the test suite too (~8 min)")
    ap.add_argument("--dir", help="keep the generated inputs here and reuse them")
    ap.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    args = ap.parse_args(argv)
    args.repeat = args.repeat or (1 if args.quick else 3)
    names = args.only.split(",") if args.only else list(PARTS)
    unknown = [n for n in names if n not in PARTS]
    if unknown:
        ap.error(f"--only: unknown part {unknown[0]!r} (parts: {', '.join(PARTS)})")
    rows: list[Row] = []
    parts = [PARTS[n] for n in names] + ([suite] if args.suite else [])
    for part in parts:
        got = part(args)
        rows += got
        print("\n".join(markdown(got).splitlines()[2:]), flush=True)  # its rows as they come
    print()
    print(markdown(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
