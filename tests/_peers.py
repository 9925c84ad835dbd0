"""Implementations for ``bull probe`` tests, written here from the rule text (RULES.md
§3, §5), run as real child processes: ``peer(tmp_path, "niuniu", **faults)`` writes one
and returns its command.

The Niu Niu peer answers ``has_bull`` and ``points`` (a bull: three cards summing to a
multiple of ten, J/Q/K count 10, A 1; points: the other two mod 10, 0 as 10) and, for
a showdown, nothing. Planted mistakes: ``skip_first`` (the bull search never uses the
first card written), ``face_11`` (J/Q/K counted 11, 12, 13 — uncatalogued). Faults:
``crash_on``/``hang_on`` a hand (text as asked), ``garbage_at`` the Nth answer line,
``reverse`` (answers of each pair of questions swapped in order), ``duplicate`` (every
answer twice), ``exit_start`` (exits before reading anything), ``unknown_id`` (one
answer to an id never asked), ``stderr_flood``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

NIUNIU = r"""
import itertools, json, os, sys, time
CFG = json.loads(sys.argv[1])
V = {"A": 1, "J": 10, "Q": 10, "K": 10}
if CFG.get("face_11"):
    V = {"A": 1, "J": 11, "Q": 12, "K": 13}

def val(c):
    r = c[:-1]
    return V.get(r) or int(r)

def answer(hand):
    vals = [val(c) for c in hand]
    idx = range(1, 5) if CFG.get("skip_first") else range(5)
    for t in itertools.combinations(idx, 3):
        s = sum(vals[i] for i in t)
        if s % 10 == 0:
            rest = sum(vals) - s
            return {"has_bull": True, "points": rest % 10 or 10}
    return {"has_bull": False, "points": 0}

if CFG.get("exit_start"):
    sys.stderr.write("engine: cannot load its tables\n")
    sys.exit(3)
import os
out = sys.stdout
n = 0
buf = b""
while True:
    chunk = os.read(0, 1 << 16)
    if not chunk:
        break
    buf += chunk
    *lines, buf = buf.split(b"\n")
    answers = []
    for line in lines:
        if not line.strip():
            continue
        q = json.loads(line)
        text = " ".join(q.get("hand", []))
        if CFG.get("stderr_flood"):
            sys.stderr.write("x" * 10000 + "\n")
        if text and text == CFG.get("crash_on"):
            out.write("".join(answers))
            out.flush()
            raise SystemExit(7)
        if text and text == CFG.get("hang_on"):
            out.write("".join(answers))
            out.flush()
            time.sleep(3600)
        a = answer(q["hand"]) if "hand" in q else {}
        a["id"] = q["id"]
        n += 1
        if n == CFG.get("garbage_at"):
            answers.append("Traceback (most recent call last): oops\n")
            continue
        if n == CFG.get("unknown_id"):
            answers.append(json.dumps({"id": 10**9, "has_bull": False}) + "\n")
        text = json.dumps(a) + "\n"
        answers.append(text + text if CFG.get("duplicate") else text)
    if CFG.get("reverse"):
        answers.reverse()
    out.write("".join(answers))
    out.flush()
"""


def peer(tmp: Path, game: str = "niuniu", **cfg: Any) -> list[str]:
    """The command of a test implementation of ``game`` with ``cfg`` (module docstring)."""
    path = tmp / f"{game}_peer.py"
    path.write_text({"niuniu": NIUNIU}[game])
    return [sys.executable, str(path), json.dumps(cfg)]
