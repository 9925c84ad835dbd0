#!/usr/bin/env python3
"""Text input and one-shot start-up of ``bull eval`` (issue 26), each command in its
own process, best of ``--repeat`` runs.

* ``eval --input``: ``--lines`` random hands a line (default 1,000,000) for each game,
  text and ``--json`` out, written to ``/dev/null``. Reported: lines/s of the whole
  process (wall clock, start-up and table load included), its CPU time (user + system)
  and peak RSS (``os.wait4``). Targets: >= 1,000,000 lines/s for Niu Niu and Pok Deng,
  >= 500,000 for Tau Ngau; peak < 300 MB. The first run of each game and format is
  also reported on its own ("cold"): it starts from an empty user cache
  (``XDG_CACHE_HOME``), so Niu Niu works out its hand classes and Tau Ngau writes and
  stores its lines (:mod:`solver.kit.linestore`); the best of ``--repeat`` runs after
  it read them.
* baseline in the same run: a bare interpreter importing numpy and pyarrow.

The children run with bytecode caching on (``PYTHONDONTWRITEBYTECODE`` removed, a
warm-up run first), as an installed ``bull`` runs: compiling the solver's sources on
every start costs about 0.1 s.
* one-shot: ``bull eval niuniu "KS 9H 8C 3D 7S"`` against a bare interpreter that
  imports numpy and pyarrow, measured alternately in the same run. Target: <= 2x.

    python scripts/bench_text.py                 # the full size
    python scripts/bench_text.py --lines 200000  # a quick look
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

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

TARGETS = {"niuniu": 1_000_000, "pokdeng": 1_000_000, "taungau": 500_000}
MEMORY_MB = 300


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run(argv: list[str], cwd: Path = REPO, env: dict[str, str] | None = None) -> dict[str, float]:
    """Wall and CPU seconds and peak RSS (MB) of one child process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env or ENV
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({code}): {err.decode()[-400:]}")
    return {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "peak_mb": usage.ru_maxrss / 1024,
    }


def best(
    argv: list[str], repeat: int, cwd: Path = REPO, env: dict[str, str] | None = None
) -> dict[str, float]:
    runs = [run(argv, cwd, env) for _ in range(repeat)]
    return {
        "wall": min(r["wall"] for r in runs),
        "cpu": min(r["cpu"] for r in runs),
        "peak_mb": max(r["peak_mb"] for r in runs),
    }


def write_hands(game: str, path: Path, lines: int, seed: int = 26) -> None:
    """``lines`` random hands of ``game`` in the plain notation, one a line."""
    import numpy as np

    from solver.core.cards import CARD_NAMES
    from solver.core.tiles import TILE_NAMES

    rng = np.random.default_rng(seed)
    names = np.array(TILE_NAMES if game == "taungau" else CARD_NAMES)
    deck = len(names)
    with open(path, "w", encoding="utf-8") as f:
        for start in range(0, lines, 200_000):
            m = min(200_000, lines - start)
            picks = np.argsort(rng.random((m, deck)), axis=1)[:, :5]
            cols = names[picks]
            if game == "taungau":
                text = ["".join(r) for r in cols.tolist()]
            elif game == "pokdeng":
                three = rng.random(m) < 0.5
                text = [
                    " ".join(r[:3] if t else r[:2])
                    for r, t in zip(cols.tolist(), three, strict=True)
                ]
            else:
                text = [" ".join(r) for r in cols.tolist()]
            f.write("\n".join(text) + "\n")


def main() -> int:
    if sys.argv[1:2] == ["--write"]:
        write_hands(sys.argv[2], Path(sys.argv[3]), int(sys.argv[4]))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--games", nargs="*", default=list(TARGETS))
    ap.add_argument("--skip-startup", action="store_true")
    ap.add_argument(
        "--before",
        type=Path,
        help="another checkout (e.g. `git archive` of an older commit) to run the same "
        "commands from, for a before/after in the same run",
    )
    args = ap.parse_args()
    bull = [sys.executable, "-m", "solver"]
    results: dict[str, object] = {"lines": args.lines, "load_average_start": os.getloadavg()}
    rows = []
    base_argv = [sys.executable, "-c", "import numpy, pyarrow"]
    with tempfile.TemporaryDirectory(prefix="bench_text_") as tmp:
        run([*bull, "eval", "niuniu", "KS 9H 8C 3D 7S"])  # bytecode written
        for game in args.games:
            path = Path(tmp) / f"{game}.txt"
            # written by a child: a child's peak RSS starts at its parent's size at fork
            subprocess.run(
                [sys.executable, __file__, "--write", game, str(path), str(args.lines)],
                check=True,
            )
            for fmt in ("text", "json"):
                argv = [*bull, "eval", game, "--input", str(path)]
                if fmt == "json":
                    argv.append("--json")
                key = f"eval_{game}_{fmt}"
                fresh = {**ENV, "XDG_CACHE_HOME": str(Path(tmp) / f"cache_{key}")}
                cold = run(argv, env=fresh)  # an empty cache; the runs after it read it
                r = best(argv, args.repeat, env=fresh)
                base = best(base_argv, args.repeat)
                rate = args.lines / r["wall"]
                results[key] = {
                    **{k: round(v, 3) for k, v in r.items()},
                    "lines_per_s": round(rate),
                    "lines_per_cpu_s": round(args.lines / r["cpu"]),
                    "cold": {k: round(v, 3) for k, v in cold.items()},
                    "import_numpy_pyarrow": {k: round(v, 3) for k, v in base.items()},
                }
                ratio = rate / TARGETS[game]
                rows.append(
                    (
                        f"`eval {game} --input` ({fmt}) >= {TARGETS[game]:,} lines/s",
                        f"{rate:,.0f} lines/s ({r['wall']:.2f} s, CPU {r['cpu']:.2f} s; "
                        f"bare import {base['wall']:.2f} s, CPU {base['cpu']:.2f} s), "
                        f"peak {r['peak_mb']:.0f} MB; cold cache {cold['wall']:.2f} s, "
                        f"CPU {cold['cpu']:.2f} s, peak {cold['peak_mb']:.0f} MB",
                        f"{ratio:.2f}x target (CPU: {args.lines / r['cpu'] / TARGETS[game]:.2f}x)",
                    )
                )
                print(f"{key}: {results[key]}", file=sys.stderr)
                if args.before:
                    old = best(argv, args.repeat, args.before)
                    results[f"{key}_before"] = {
                        **{k: round(v, 3) for k, v in old.items()},
                        "lines_per_s": round(args.lines / old["wall"]),
                        "lines_per_cpu_s": round(args.lines / old["cpu"]),
                        "speedup_cpu": round(old["cpu"] / r["cpu"], 1),
                    }
                    print(f"{key}_before: {results[f'{key}_before']}", file=sys.stderr)
    if not args.skip_startup:
        one_argv = [*bull, "eval", "niuniu", "KS 9H 8C 3D 7S"]
        base, one = [], []
        before: list[float] = []
        for _ in range(max(args.repeat, 5)):  # alternately: the same load on both
            base.append(run(base_argv)["wall"])
            one.append(run(one_argv)["wall"])
            if args.before:
                before.append(run(one_argv, args.before)["wall"])
        ratio = min(one) / min(base)
        results["startup"] = {
            "import_numpy_pyarrow_s": round(min(base), 3),
            "eval_one_hand_s": round(min(one), 3),
            "ratio": round(ratio, 2),
            **({"before_s": round(min(before), 3)} if before else {}),
        }
        rows.append(
            (
                "one-shot `eval niuniu HAND` <= 2x `import numpy, pyarrow`",
                f"{min(one):.2f} s vs {min(base):.2f} s",
                f"{ratio:.2f}x",
            )
        )
    results["load_average_end"] = os.getloadavg()
    print(json.dumps(results, indent=2))
    print("\n| target | measured | ratio |\n| --- | --- | --- |")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
