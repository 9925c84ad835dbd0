"""Benchmark ``bull probe``'s transport: questions/s over the pipe against a trivial peer
beside that peer's own time to read and answer them (the same run), and the whole
exhaustive Niu Niu confirm (2,598,960 hands) against a peer that computes each answer,
as a ratio to that peer's own compute time (the target: at most 1.5x).

    python scripts/bench_probe.py            # both peers, every hand
    python scripts/bench_probe.py --budget 500000

Each peer is a Python child process reading JSON Lines in blocks and answering
``has_bull`` and ``points``: ``dict`` takes the ranks out of the line's bytes and looks
the answer up in a dict of the 6,175 rank multisets (built before it reads anything);
``compute`` is written as an adapter is (the README's): it parses each line as JSON,
evaluates the hand (every triple of the five cards, RULES.md section 3) and writes
the answer. A peer's own time is its CPU time
(user + system) from its first line read to its end of input: reading, answering,
writing. The probe's time is the wall time of its asking phases (cover, discriminate,
confirm: the ``phases`` of the report); its rate is the questions asked over that time.
Both peers answer correctly, so the report is ``disagree 0`` (checked). The probe's
CPU time in its asking phases (every thread: ``probe_cpu_questions_per_s``), over the
whole run (verify's work too) and the load average are printed beside, with the
peer's wall time from its first line read to its last answer (``peer_wall_seconds``):
on a shared machine the wall-clock rates move with the load (a peer given a third of
a core takes three times its CPU time whatever the probe does), the CPU figures much
less.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from typing import Any

PEER = r"""
import itertools, json, os, resource, sys, time
kind, stats = sys.argv[1], sys.argv[2]
RANKS = [b"A", b"2", b"3", b"4", b"5", b"6", b"7", b"8", b"9", b"10", b"J", b"Q", b"K"]
VALUE = {r: min(10, i + 1) for i, r in enumerate(RANKS)}

def niu(values):
    if any(sum(t) % 10 == 0 for t in itertools.combinations(values, 3)):
        return b'"has_bull":true,"points":%d}\n' % (sum(values) % 10 or 10)
    return b'"has_bull":false,"points":0}\n'

TABLE = {}
if kind == "dict":
    for combo in itertools.combinations_with_replacement(RANKS, 5):
        TABLE[tuple(sorted(combo))] = niu([VALUE[r] for r in combo])

def answer(line):
    if kind == "compute":  # as an adapter is written: parse, evaluate, print JSON
        q = json.loads(line)
        if "hand" not in q:
            return b'{"id":%d}\n' % q["id"]
        return b'{"id":%d,' % q["id"] + niu([VALUE[c[:-1].encode()] for c in q["hand"]])
    j = line.find(b',"hand":[')
    if j < 0:
        return line[: line.find(b",")] + b"}\n"  # a showdown: nothing stated
    ranks = [c[:-1] for c in line[j + 10 : line.rfind(b'"]')].split(b'","')]
    return line[:j] + b"," + TABLE[tuple(sorted(ranks))]

def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime

buf, n, start, first, wall = b"", 0, None, 0.0, 0.0
while True:
    chunk = os.read(0, 1 << 20)
    if start is None:
        start, first = cpu(), time.perf_counter()
    if not chunk:
        break
    buf += chunk
    *lines, buf = buf.split(b"\n")
    n += len(lines)
    os.write(1, b"".join(answer(x) for x in lines if x))
    wall = time.perf_counter() - first  # to the last answer written
with open(stats, "w") as f:
    f.write('{"questions": %d, "cpu_seconds": %.6f, "wall_seconds": %.6f}'
            % (n, cpu() - (start or 0), wall))
"""


ASK_CPU = [0.0]
"""The probe's CPU time (every thread) inside its asking phases."""


def _count_ask_cpu() -> None:
    from solver.probe.run import Prober

    ask = Prober.ask

    def timed(self: Any, name: str, questions: Any) -> int:
        t = time.process_time()
        try:
            return ask(self, name, questions)
        finally:
            ASK_CPU[0] += time.process_time() - t

    Prober.ask = timed  # type: ignore[method-assign]


def run(kind: str, budget: int | None, tmp: str, window: int = 4096) -> dict[str, Any]:
    from solver.probe import probe

    ASK_CPU[0] = 0.0

    peer, stats = os.path.join(tmp, "peer.py"), os.path.join(tmp, f"{kind}.json")
    with open(peer, "w") as f:
        f.write(PEER)
    t, cpu = time.perf_counter(), time.process_time()
    cmd = [sys.executable, peer, kind, stats]
    rep = probe("niuniu", cmd, budget=budget, window=window).to_json()
    wall, cpu = time.perf_counter() - t, time.process_time() - cpu
    for _ in range(100):  # the peer writes its figures at end of input
        if os.path.exists(stats) and os.path.getsize(stats):
            break
        time.sleep(0.05)
    with open(stats) as f:
        own = json.load(f)
    assert rep["disagree"] == 0 and rep["answered"] == rep["queries"], rep["headline"]
    ask = sum(rep["phases"][p]["seconds"] for p in ("cover", "discriminate", "confirm"))
    return {
        "peer": kind,
        "window": window,
        "questions": rep["queries"],
        "exhaustive": rep["coverage"]["exhaustive"],
        "probe_ask_seconds": round(ask, 2),
        "probe_questions_per_s": round(rep["queries"] / ask),
        "peer_cpu_seconds": round(own["cpu_seconds"], 2),
        "peer_questions_per_s": round(own["questions"] / max(own["cpu_seconds"], 1e-9)),
        "ratio_probe_to_peer": round(ask / max(own["cpu_seconds"], 1e-9), 2),
        "peer_wall_seconds": round(own["wall_seconds"], 2),
        "probe_ask_cpu_seconds": round(ASK_CPU[0], 2),
        "ratio_probe_cpu_to_peer": round(ASK_CPU[0] / max(own["cpu_seconds"], 1e-9), 2),
        "probe_cpu_questions_per_s": round(rep["queries"] / max(ASK_CPU[0], 1e-9)),
        "confirm_seconds": rep["phases"]["confirm"]["seconds"],
        "whole_run_seconds": round(wall, 2),
        "probe_cpu_seconds_whole_run": round(cpu, 2),
        "load_average": round(os.getloadavg()[0], 1),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budget", type=int, help="confirm on N seeded hands (default: every hand)")
    ap.add_argument("--peer", choices=("dict", "compute", "both"), default="both")
    ap.add_argument("--window", type=int, default=4096, help="questions in flight (default 4096)")
    args = ap.parse_args(argv)
    kinds = ("dict", "compute") if args.peer == "both" else (args.peer,)
    _count_ask_cpu()
    with tempfile.TemporaryDirectory(prefix="bench-probe-") as tmp:
        for kind in kinds:
            print(json.dumps(run(kind, args.budget, tmp, args.window)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
