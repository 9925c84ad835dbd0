"""Benchmark ``bull verify`` on a large Parquet file (and the same claims as CSV) of each
game's hand claims, against reading the same file, in the same run.

Generates, per game, ``--rows`` (default 10,000,000) hands written as text in random
order — Niu Niu ``"AS 10H 3C 7D KS"`` with ``has_bull``, ``points`` and ``category``
under ``classic``; Pok Deng ``"9S 9D"`` / ``"6C 4C 5C"`` (two or three cards) with
``points``, ``type`` and ``deng`` under ``standard``; Tau Ngau ``"[6:5][4:1]..."`` with
``has_bull`` and ``points`` under ``macau`` — and one row in ``--plant`` (default 2,000)
carries a planted mistake: Niu Niu a bull search that skips the first card written
(computed here from the rule text), Pok Deng ``mistake=three_card_pok``, Tau Ngau
``mistake=wild_in_bull`` (from the games' catalogues). Then, each in its own process so
that peak memory is measured separately:

* **baseline** — read every column of the file batch by batch (``iter_batches``) and
  touch every value: the cost of I/O and decoding alone;
* **verify** — ``bull verify GAME FILE --json`` (diagnosis on, as by default);
* with ``--csv`` (the default), the same claims written as CSV: **csv baseline** —
  pyarrow's streaming CSV reader over the file (``open_csv``, every batch read, one
  thread as verify's reader) — and ``bull verify`` of the CSV.

Each is best of ``--repeat`` (3) runs, with bytecode caching on (as an installed
``bull`` runs; ``PYTHONDONTWRITEBYTECODE`` is dropped from the children's environment);
the wall clock and the CPU time (user + system, every thread) are measured inside the
child. Prints rows/s, peak RSS, and the ratios
baseline time / verify time, with the load average. Targets (issue 26): Parquet >=
0.6, CSV >= 0.5; and (issue 12) >= 2 M rows/s, peak < 1 GB.

    .venv/bin/python scripts/bench_verify.py [--rows N] [--games niuniu,pokdeng,taungau]
        [--dir DIR (keep and reuse the files)] [--no-csv] [--repeat N] [--plant N]
        [--before DIR (a git archive of an older commit: its verify too, same files)]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

GAMES = ("niuniu", "pokdeng", "taungau")

BASELINE = """
import pyarrow.parquet as pq, pyarrow.compute as pc
pf = pq.ParquetFile(ARGS[0])
n = 0
for b in pf.iter_batches(batch_size=262144):
    for col in b.columns:
        pc.sum(pc.utf8_length(col) if str(col.type) == "string" else col)
    n += b.num_rows
print(n)
"""

VERIFY = """
from solver.cli import main
RC = main(["verify", ARGS[1], ARGS[0], "--json"])
"""

CSV_BASELINE = """
import pyarrow.csv as pacsv
n = 0
for b in pacsv.open_csv(ARGS[0], read_options=pacsv.ReadOptions(use_threads=False)):
    n += b.num_rows
print(n)
"""

WRAPPER = """
import json, resource, sys, time
ARGS = sys.argv[2:]
t = time.perf_counter()
c0 = time.process_time()
exec(sys.argv[1])
wall = time.perf_counter() - t
cpu = time.process_time() - c0
# the peak of this process's own memory (ru_maxrss keeps the parent's across exec)
hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")]
peak = int(hwm[0].split()[1]) if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
sys.stderr.write(json.dumps({"wall": wall, "cpu": cpu, "peak_mb": peak / 1024}) + "\\n")
"""

CHUNK = 1_000_000
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
"""The children's environment: bytecode caching on, as an installed ``bull`` runs (with
``PYTHONDONTWRITEBYTECODE`` set, every run compiled verify's modules anew: 0.1 to 0.3 s)."""


def distinct(rng: np.random.Generator, n: int, k: int, of: int) -> npt.NDArray[np.uint8]:
    """``n`` rows of ``k`` distinct ids below ``of``, in random order (drawn with
    replacement, rows that repeat an id drawn again)."""
    ids = rng.integers(0, of, size=(n, k), dtype=np.uint8)
    while True:
        srt = np.sort(ids, axis=1)
        dup = (srt[:, 1:] == srt[:, :-1]).any(axis=1)
        if not dup.any():
            return ids
        ids[dup] = rng.integers(0, of, size=(int(dup.sum()), k), dtype=np.uint8)


def niuniu_chunk(rng: np.random.Generator, n: int, plant: int) -> tuple[dict[str, pa.Array], int]:
    from solver.core.cards import CARD_NAMES
    from solver.games.niuniu.hands import evaluate_arrays
    from solver.games.niuniu.rules import Category, load_rules

    cards = distinct(rng, n, 5, 52)
    ev = evaluate_arrays(np.sort(cards, axis=1), load_rules("classic"))
    has, points, cat = (
        ev["has_bull"].copy(),
        ev["points"].astype(np.int64),
        ev["category"].astype(np.int64),
    )
    mark = rng.random(n) < 1 / plant if plant else np.zeros(n, dtype=bool)
    planted = 0
    if mark.any():  # the planted mistake: bulls never use the first card written
        v = np.minimum((cards[mark].astype(np.int64) >> 2) + 1, 10)
        ok = np.zeros(int(mark.sum()), dtype=bool)
        for a, b, d in ((1, 2, 3), (1, 2, 4), (1, 3, 4), (2, 3, 4)):
            ok |= (v[:, a] + v[:, b] + v[:, d]) % 10 == 0
        pts = np.where(ok, (v.sum(axis=1) - 1) % 10 + 1, 0)
        special = cat[mark] > 10
        has[mark] = ok
        points[mark] = pts
        cat[mark] = np.where(special, cat[mark], pts)
        planted = int(((ev["points"][mark] != pts) | (ev["has_bull"][mark] != ok)).sum())
    names = pa.array(CARD_NAMES)
    cols = [pc.take(names, pa.array(cards[:, i])) for i in range(5)]
    labels = pa.array([c.label for c in Category])
    return {
        "hand": pc.binary_join_element_wise(*cols, " "),
        "has_bull": pa.array(has),
        "points": pa.array(points.astype(np.int8)),
        "category": pc.take(labels, pa.array(cat)),
    }, planted


def pokdeng_chunk(rng: np.random.Generator, n: int, plant: int) -> tuple[dict[str, pa.Array], int]:
    from solver.core.cards import CARD_NAMES
    from solver.games.pokdeng.diagnose import pokdeng_catalogue, pokdeng_hand_answers
    from solver.games.pokdeng.rules import HandType, load_rules

    rules = load_rules("standard")
    cards = distinct(rng, n, 3, 52)
    size = np.where(rng.random(n) < 0.5, 2, 3).astype(np.int8)
    cards[size == 2, 2] = 255
    ans = pokdeng_hand_answers(cards, size, rules)
    mark = np.flatnonzero(rng.random(n) < 1 / plant) if plant else np.zeros(0, np.int64)
    planted = 0
    if len(mark):
        v = next(x for x in pokdeng_catalogue(rules, "hand") if x.key == "mistake=three_card_pok")
        wrong = pokdeng_hand_answers(cards[mark], size[mark], rules, v)
        for k in ("type", "points", "deng"):
            planted_k = np.asarray(wrong[k]) != np.asarray(ans[k])[mark]
            ans[k] = np.asarray(ans[k]).copy()
            ans[k][mark] = np.asarray(wrong[k])
            planted = max(planted, int(planted_k.sum()))
    names = pa.array([*CARD_NAMES, None])
    cols = [pc.take(names, pa.array(np.minimum(cards[:, i], 52))) for i in range(3)]
    labels = pa.array([t.label for t in HandType])
    return {
        "hand": pc.binary_join_element_wise(*cols, " ", null_handling="skip"),
        "points": pa.array(np.asarray(ans["points"]).astype(np.int8)),
        "type": pc.take(labels, pa.array(np.asarray(ans["type"]))),
        "deng": pa.array(np.asarray(ans["deng"]).astype(np.int8)),
    }, planted


def taungau_chunk(rng: np.random.Generator, n: int, plant: int) -> tuple[dict[str, pa.Array], int]:
    from solver.core.tiles import TILE_NAMES, TYPE_FIRST_ID, TYPE_OF_TILE
    from solver.games.taungau.diagnose import taungau_catalogue, taungau_hand_answers
    from solver.games.taungau.rules import load_rules

    rules = load_rules("macau")
    tiles = distinct(rng, n, 5, 32)  # five of the 32 tiles, in the order written
    types = np.sort(np.array(TYPE_OF_TILE, dtype=np.int64)[tiles], axis=1)
    dup = np.zeros(types.shape, dtype=np.int64)
    dup[:, 1:] = types[:, 1:] == types[:, :-1]
    canon = (np.array(TYPE_FIRST_ID, dtype=np.int64)[types] + dup).astype(np.uint8)
    ans = taungau_hand_answers(canon, rules)
    has, points = np.asarray(ans["has_bull"]).copy(), np.asarray(ans["points"]).copy()
    mark = np.flatnonzero(rng.random(n) < 1 / plant) if plant else np.zeros(0, np.int64)
    planted = 0
    if len(mark):
        v = next(x for x in taungau_catalogue(rules, "hand") if x.key == "mistake=wild_in_bull")
        wrong = taungau_hand_answers(canon[mark], rules, v, {"bull": None})
        planted = int((np.asarray(wrong["points"]) != points[mark]).sum())
        has[mark] = np.asarray(wrong["has_bull"])
        points[mark] = np.asarray(wrong["points"])
    names = pa.array(TILE_NAMES)
    cols = [pc.take(names, pa.array(tiles[:, i])) for i in range(5)]
    return {
        "hand": pc.binary_join_element_wise(*cols, ""),
        "has_bull": pa.array(has),
        "points": pa.array(points.astype(np.int8)),
    }, planted


def generate(game: str, path: Path, rows: int, plant: int, seed: int = 1) -> int:
    """Write ``rows`` claims of ``game`` to ``path``; returns the planted disagreements."""
    make = {"niuniu": niuniu_chunk, "pokdeng": pokdeng_chunk, "taungau": taungau_chunk}[game]
    rng = np.random.default_rng(seed)
    planted = 0
    writer = None
    try:
        for start in range(0, rows, CHUNK):
            cols, got = make(rng, min(CHUNK, rows - start), plant)
            planted += got
            table = pa.table(cols)
            if writer is None:
                writer = pq.ParquetWriter(path, table.schema, compression="zstd")
            writer.write_table(table, row_group_size=262_144)
    finally:
        if writer is not None:
            writer.close()
    return planted


def run(
    code: str, path: Path, game: str, cwd: str | None = None
) -> tuple[float, float, float, float, str]:
    """Run ``code`` in a fresh interpreter (in ``cwd``: its ``solver`` is imported first):
    (process wall s, in-process wall s, in-process CPU s, peak RSS MB, stdout)."""
    t = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", WRAPPER, code, str(path), game],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd or REPO,
        env=ENV,
    )
    wall = time.perf_counter() - t
    try:
        stats = json.loads(proc.stderr.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise SystemExit(f"benchmark child failed: {proc.stderr.strip()}") from None
    return wall, stats["wall"], stats["cpu"], stats["peak_mb"], proc.stdout


def best(
    code: str, path: Path, game: str, repeat: int, cwd: str | None = None
) -> tuple[float, float, float, float, str]:
    """The best of ``repeat`` runs (least in-process wall; least CPU; largest peak)."""
    runs = [run(code, path, game, cwd) for _ in range(repeat)]
    top = min(runs, key=lambda r: r[1])
    return (
        min(r[0] for r in runs),
        top[1],
        min(r[2] for r in runs),
        max(r[3] for r in runs),
        top[4],
    )


def report(label: str, rows: int, r: tuple[float, float, float, float, str]) -> None:
    proc, inproc, cpu, peak, _ = r
    print(
        f"{label:30s}: {inproc:6.2f} s  {rows / inproc / 1e6:6.2f} M rows/s  cpu {cpu:6.2f} s  "
        f"peak {peak:5.0f} MB  (process {proc:.2f} s)",
        flush=True,
    )


def load() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def bench(game: str, path: Path, args: Any, lines: list[str]) -> bool:
    """Benchmark one game's file (and its CSV); returns whether issue 12's targets hold."""
    rows = pq.ParquetFile(path).metadata.num_rows
    print(f"-- {game}: {rows:,} rows (load average {load()})", flush=True)
    base = best(BASELINE, path, game, args.repeat)
    ver = best(VERIFY, path, game, args.repeat)
    report("baseline, read + touch", rows, base)
    report(f"bull verify {game} (Parquet)", rows, ver)
    if args.before:
        old = best(VERIFY, path, game, args.repeat, args.before)
        report(f"before: bull verify {game}", rows, old)
        print(f"before/now: wall {old[1] / ver[1]:.2f}x, cpu {old[2] / ver[2]:.2f}x")
    summary = json.loads(ver[4])
    ratio = base[1] / ver[1]
    print(
        f"ratio baseline/verify  : wall {ratio:.2f}, cpu {base[2] / ver[2]:.2f} "
        f"(target >= 0.6), peak x{ver[3] / max(base[3], 1):.2f}"
    )
    print(
        f"verify: {summary['disagree']:,} disagreements of {summary['checked']:,} rows; "
        f"{summary['headline']}"
    )
    lines.append(
        f"| `verify {game}` Parquet, {rows:,} rows, >= 0.6x read + touch | {ver[1]:.2f} s "
        f"({ver[2]:.2f} s CPU) vs {base[1]:.2f} s ({base[2]:.2f} s CPU) | {ratio:.2f}x |"
    )
    if not args.no_csv:
        csv_path = path.with_suffix(".csv")
        if not csv_path.exists():
            import pyarrow.csv as pacsv

            with pacsv.CSVWriter(csv_path, pq.ParquetFile(path).schema_arrow) as w:
                for b in pq.ParquetFile(path).iter_batches(batch_size=262_144):
                    w.write_batch(b)
        cbase = best(CSV_BASELINE, csv_path, game, args.repeat)
        cver = best(VERIFY, csv_path, game, args.repeat)
        report("baseline, pyarrow CSV", rows, cbase)
        report(f"bull verify {game} (CSV)", rows, cver)
        if args.before:
            old = best(VERIFY, csv_path, game, args.repeat, args.before)
            report(f"before: bull verify {game} (CSV)", rows, old)
            print(f"before/now: wall {old[1] / cver[1]:.2f}x, cpu {old[2] / cver[2]:.2f}x")
        cratio = cbase[1] / cver[1]
        print(
            f"ratio baseline/verify  : wall {cratio:.2f}, cpu {cbase[2] / cver[2]:.2f} "
            "(target >= 0.5)"
        )
        lines.append(
            f"| `verify {game}` CSV, {rows:,} rows, >= 0.5x pyarrow's CSV reader | "
            f"{cver[1]:.2f} s ({cver[2]:.2f} s CPU) vs {cbase[1]:.2f} s ({cbase[2]:.2f} s "
            f"CPU) | {cratio:.2f}x |"
        )
    print(f"(load average after: {load()})", flush=True)
    return rows / ver[0] >= 2e6 and ver[3] < 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--games", default=",".join(GAMES), help="comma-separated")
    ap.add_argument("--plant", type=int, default=2_000, help="one planted mistake per N rows")
    ap.add_argument("--dir", help="keep the generated files here (and reuse them)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-csv", action="store_true", help="leave out the CSV runs")
    ap.add_argument(
        "--before",
        metavar="DIR",
        help="an older source tree (git archive) whose verify runs too, for a before/after "
        "in the same run",
    )
    args = ap.parse_args()
    tmp = tempfile.TemporaryDirectory()
    folder = Path(args.dir) if args.dir else Path(tmp.name)
    folder.mkdir(parents=True, exist_ok=True)
    lines: list[str] = []
    met = True
    for game in args.games.split(","):
        if game not in GAMES:
            raise SystemExit(f"unknown game {game!r} (expected {', '.join(GAMES)})")
        path = folder / f"{game}-{args.rows}-{args.plant}.parquet"
        if not path.exists():
            t = time.perf_counter()
            planted = generate(game, path, args.rows, args.plant)
            print(
                f"generated {args.rows:,} {game} rows ({planted:,} planted disagreements) in "
                f"{time.perf_counter() - t:.1f} s: {path} ({path.stat().st_size / 1e6:.0f} MB)"
            )
        met &= bench(game, path, args, lines)
    print(
        "issue 12 targets (>= 2 M rows/s for the whole process, peak < 1 GB):",
        "met" if met else "NOT met",
    )
    print("\n".join(lines))
    tmp.cleanup()


if __name__ == "__main__":
    main()
