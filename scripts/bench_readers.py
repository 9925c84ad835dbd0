#!/usr/bin/env python3
"""The one bounded input reader (issue 24) against Python's own line reading, measured
alternately in the same run, best of ``--repeat``.

* lines: :class:`solver.core.files.Lines` (CR, LF and CRLF, BOM, bounded line length)
  over a file of ``--lines`` hand lines, against ``for line in open(path, "rb")`` (LF
  only, unbounded). Reported: lines/s of each and the ratio.
* claims: ``read_chunks`` of the same hands as CSV and JSON Lines (every column made a
  type the parsers read, non-UTF-8 rows and over-long fields found), against
  ``pyarrow.csv.read_csv`` / ``pyarrow.json.read_json`` of the file (no checks).
* memory (first, so that the peak is its own): one JSON line of ``--long-mb`` MB among
  good lines, read by ``read_chunks``: the peak RSS grows by about the line limit
  (``read_jsonl.MAX_LINE_BYTES``), not by the line's size.

    python scripts/bench_readers.py                  # 1,000,000 lines
    python scripts/bench_readers.py --lines 200000   # a quick look
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def best(fn: Callable[[], object], repeat: int) -> float:
    out = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out = min(out, time.perf_counter() - t)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lines", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--long-mb", type=int, default=200)
    args = ap.parse_args()

    import pyarrow.csv as pacsv
    import pyarrow.json as pajson

    from solver.core.files import Lines
    from solver.kit import read

    rng = random.Random(1)
    deck = [r + s for r in "A23456789TJQK" for s in "SHDC"]
    hands = [" ".join(rng.sample(deck, 5)) for _ in range(args.lines)]
    with tempfile.TemporaryDirectory() as tmp:
        txt, csv, jsonl = Path(tmp, "h.txt"), Path(tmp, "c.csv"), Path(tmp, "c.jsonl")
        txt.write_text("".join(h + "\n" for h in hands))
        csv.write_text("hand,points\n" + "".join(f"{h},7\n" for h in hands))
        jsonl.write_text("".join(f'{{"hand": "{h}", "points": 7}}\n' for h in hands))

        long = Path(tmp, "long.jsonl")
        with open(long, "wb") as f:
            f.write(b'{"hand": "KS 9H 8C 3D 7S", "points": 7}\n')
            f.write(b'{"hand": "')
            for _ in range(args.long_mb):  # written in pieces: the writer holds no line
                f.write(b"K" * (1 << 20))
            f.write(b'"}\n')
            f.write(b'{"hand": "KS 9H 8C 3D 7S", "points": 7}\n')
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        n = sum(len(c) for c in read.read_chunks(str(long), "jsonl", {}, 65536)[2])
        grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
        print(f"memory a {args.long_mb} MB JSON line: {n} rows read, peak RSS grew {grown:,.0f} MB")

        def ours_lines() -> int:
            with open(txt, "rb") as f:
                return sum(1 for _ in Lines(f, "bench", max_line=10_000))

        def python_lines() -> int:
            with open(txt, "rb") as f:
                return sum(1 for _ in f)

        def chunks(path: Path, fmt: str) -> Callable[[], int]:
            return lambda: sum(len(c) for c in read.read_chunks(str(path), fmt, {}, 65536)[2])

        pairs = [
            ("lines", ours_lines, python_lines),
            ("csv", chunks(csv, "csv"), lambda: pacsv.read_csv(csv).num_rows),
            ("jsonl", chunks(jsonl, "jsonl"), lambda: pajson.read_json(jsonl).num_rows),
        ]
        for name, ours, base in pairs:
            t_ours, t_base = float("inf"), float("inf")
            for _ in range(args.repeat):  # alternately: the machine's load hits both
                t_ours = min(t_ours, best(ours, 1))
                t_base = min(t_base, best(base, 1))
            print(
                f"{name:6} ours {args.lines / t_ours:12,.0f} lines/s   baseline "
                f"{args.lines / t_base:12,.0f} lines/s   ratio {t_ours / t_base:5.2f}x"
            )


if __name__ == "__main__":
    main()
