"""Benchmark ``bull round --input``: player-settlements per second streamed from a file,
for each game, with a same-run baseline.

    python scripts/bench_round.py --rounds 100000 --players 8

A seeded file of rounds (``BANKER | PLAYER | ...``, dealt from one shuffled deck or
tile set) is written once per game to ``--dir``; the command runs in-process through
``solver.cli.main`` with its output to ``/dev/null`` (``--json`` and text). The
baseline settles the first ``--baseline`` rounds one at a time with the game's
``settle_round`` API (one round per call, no batching): the ratio is what the streamed,
vectorised path gains over calling the API in a loop. Target (issue 14): at least
200,000 player-settlements per second.

``--build`` instead times what issue 14 adds to the Niu Niu build (target: the per-hand
odds columns and the grab table together in at most 60 s): the presets' one-deck tables
built with and without their odds columns (the same run's baseline), and the grab
table; and ``bull grab`` one-shot (a fresh process, target 0.3 s) against ``bull eval``
one-shot in the same run, both reading ``--tables``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from solver.cli import main
from solver.core.cards import CARD_NAMES
from solver.core.tiles import TILE_NAMES


def _hands(game: str, rng: np.random.Generator, players: int) -> list[str]:
    if game == "taungau":
        deal = rng.permutation(32)[: 5 * (players + 1)].reshape(players + 1, 5)
        return ["".join(TILE_NAMES[t] for t in h) for h in deal.tolist()]
    if game == "pokdeng":
        deal = rng.permutation(52)
        out, at = [], 0
        for _ in range(players + 1):
            k = 2 + int(rng.random() < 0.5)
            out.append(" ".join(CARD_NAMES[c] for c in deal[at : at + k].tolist()))
            at += k
        if out[0].count(" ") == 1:  # a two-card dealer: keep it off Pok-with-draws
            out[0] = " ".join(CARD_NAMES[c] for c in deal[at : at + 3].tolist())
        return out
    deal = rng.permutation(52)[: 5 * (players + 1)].reshape(players + 1, 5)
    return [" ".join(CARD_NAMES[c] for c in h) for h in deal.tolist()]


def write_rounds(path: Path, game: str, rounds: int, players: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    with open(path, "w", encoding="utf-8") as f:
        for _ in range(rounds):
            f.write(" | ".join(_hands(game, rng, players)) + "\n")


def run(game: str, path: Path, as_json: bool) -> float:
    argv = ["round", game, "--input", str(path)] + (["--json"] if as_json else [])
    with open(os.devnull, "w", encoding="utf-8") as out:
        t = time.perf_counter()
        code = main(argv, out=out)
        secs = time.perf_counter() - t
    if code != 0:
        raise SystemExit(f"bull round {game} exited {code}")
    return secs


def baseline(game: str, path: Path, n: int) -> float:
    settle_round = importlib.import_module(f"solver.games.{game}.table").settle_round
    lines = path.read_text(encoding="utf-8").splitlines()[:n]
    rounds = [[h.strip() for h in line.split("|")] for line in lines]
    settle_round(rounds[0][0], rounds[0][1:])  # warm the table
    t = time.perf_counter()
    for r in rounds:
        settle_round(r[0], r[1:])
    return time.perf_counter() - t


def bench_build(tables: str | None) -> None:
    import subprocess

    from solver.games.niuniu.grab import build_grab_table
    from solver.games.niuniu.hands import build_table
    from solver.games.niuniu.rules import load_rules

    groups = [["classic", "casino"], ["no_faces"]]
    extra = 0.0
    base_table = None
    for names in groups:
        rules = [load_rules(n) for n in names]
        t = time.perf_counter()
        build_table(rules)
        plain = time.perf_counter() - t
        t = time.perf_counter()
        table = build_table(rules, odds=True)
        with_odds = time.perf_counter() - t
        extra += with_odds - plain
        base_table = table if "classic" in names else base_table
        print(f"{'+'.join(names)}: {plain:.1f} s plain, {with_odds:.1f} s with odds columns")
    assert base_table is not None
    t = time.perf_counter()
    build_grab_table(
        base_table.column("classic_strength").to_numpy(),
        base_table.column("classic_category").to_numpy(),
    )
    grab = time.perf_counter() - t
    print(f"grab table: {grab:.1f} s; odds columns + grab table: {extra + grab:.1f} s (target 60)")
    if tables:
        for argv in (["grab", "niuniu", "AS 10H 3C 7D"], ["eval", "niuniu", "AS 10H 3C 7D KS"]):
            best = min(_wall(subprocess, [*argv, "--tables", tables]) for _ in range(3))
            print(f"bull {' '.join(argv)}: {best:.2f} s one-shot (best of 3)")


def _wall(subprocess: Any, argv: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "solver", *argv], check=True, capture_output=True)
    return time.perf_counter() - t


def main_() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=100_000)
    ap.add_argument("--players", type=int, default=8, help="per round (taungau: at most 5)")
    ap.add_argument("--baseline", type=int, default=2_000, help="rounds settled one by one")
    ap.add_argument("--game", action="append", choices=("niuniu", "taungau", "pokdeng"))
    ap.add_argument("--dir", default="/tmp/bench_round")
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--build", action="store_true", help="time the build and bull grab")
    ap.add_argument("--tables", help="--build: a tables set holding niuniu_grab")
    a = ap.parse_args()
    if a.build:
        bench_build(a.tables)
        return
    Path(a.dir).mkdir(parents=True, exist_ok=True)
    for game in a.game or ("niuniu", "taungau", "pokdeng"):
        players = min(a.players, 5) if game == "taungau" else a.players
        path = Path(a.dir) / f"{game}_{a.rounds}_{players}.txt"
        if not path.exists():
            write_rounds(path, game, a.rounds, players, a.seed)
        settlements = a.rounds * players
        run(game, path, True)  # warm: tables opened, modules imported
        js, tx = run(game, path, True), run(game, path, False)
        base = baseline(game, path, a.baseline) / (a.baseline * players)
        print(
            f"{game}: {a.rounds:,} rounds x {players} players = {settlements:,} settlements; "
            f"--json {settlements / js:,.0f}/s ({js:.2f} s), text {settlements / tx:,.0f}/s "
            f"({tx:.2f} s); settle_round one round a call {1 / base:,.0f}/s; "
            f"ratio streamed/API {base * settlements / js:.1f}x"
        )


if __name__ == "__main__":
    main_()
