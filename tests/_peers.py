"""Implementations for ``bull probe`` tests, written here from the rule text (RULES.md
§3, §5), run as real child processes: ``peer(tmp_path, "niuniu", **faults)`` writes one
and returns its command.

The Pok Deng peer answers ``type``, ``points`` and ``deng`` and settles showdowns
(``winner``, ``net``); house rules: ``straights`` (``low``, ``high``, ``both``),
``tong_deng`` (Tong's deng), ``equal_push`` (equal type and points push); mistake
``three_card_pok``.

The Niu Niu peer answers ``has_bull`` and ``points`` (a bull: three cards summing to a
multiple of ten, J/Q/K count 10, A 1; points: the other two mod 10, 0 as 10) and, for
a showdown, nothing. Planted mistakes: ``skip_first`` (the bull search never uses the
first card written), ``face_11`` (J/Q/K counted 11, 12, 13 — uncatalogued). Faults:
``crash_on``/``hang_on`` a hand (text as asked), ``garbage_at`` the Nth answer line,
``reverse`` (answers of each pair of questions swapped in order), ``duplicate`` (every
answer twice), ``exit_start`` (exits before reading anything), ``unknown_id`` (one
answer to an id never asked), ``stderr_flood``; ``compact`` writes answers id first
without spaces (``{"id":N,...}``).
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

def respond(q):
    return answer(q["hand"]) if "hand" in q else {}

"""

POKDENG = r"""
import json, os, sys
CFG = json.loads(sys.argv[1])
RANKS = {"A": 1, "J": 11, "Q": 12, "K": 13}
TYPE_ORDER = ["normal", "sam_lueang", "straight", "straight_flush", "tong", "pok"]

def rank(c):
    r = c[:-1]
    return RANKS.get(r) or int(r)

def run(ranks):
    rs = sorted(ranks)
    ace = CFG.get("straights")
    if not ace or len(set(rs)) < 3:
        return False
    if rs[2] - rs[0] == 2 and (ace != "high" or 1 not in rs):
        return True
    return ace in ("high", "both") and rs == [1, 12, 13]

def hand(cards):
    ranks = [rank(c) for c in cards]
    suits = [c[-1] for c in cards]
    points = sum(r if r < 10 else 0 for r in ranks) % 10
    if len(cards) == 2:
        deng = 2 if suits[0] == suits[1] or ranks[0] == ranks[1] else 1
        return ("pok" if points >= 8 else "normal"), points, deng
    flush = len(set(suits)) == 1
    if len(set(ranks)) == 1:
        return "tong", points, CFG.get("tong_deng", 5)
    if run(ranks):
        return ("straight_flush", points, 5) if flush else ("straight", points, 3)
    if all(r > 10 for r in ranks):
        return "sam_lueang", points, 3
    if CFG.get("three_card_pok") and points >= 8:
        return "pok", points, 3 if flush else 1
    return "normal", points, 3 if flush else 1

def showdown(p, d):
    pt, pp, pd = hand(p)
    dt, dp, dd = hand(d)
    a = (TYPE_ORDER.index(pt), pp)
    b = (TYPE_ORDER.index(dt), dp)
    if a > b:
        return "player", pd if {pt, dt} != {"tong", "sam_lueang"} else 2
    if a < b:
        return "dealer", -(dd if {pt, dt} != {"tong", "sam_lueang"} else 2)
    if pd == dd or CFG.get("equal_push"):
        return "push", 0
    return ("player", pd - dd) if pd > dd else ("dealer", pd - dd)

def respond(q):
    if "hand" in q:
        t, pts, deng = hand(q["hand"])
        return {"type": t, "points": pts, "deng": deng}
    w, net = showdown(q["player"], q["banker"])
    return {"winner": w, "net": net}

"""


LOOP = r"""
import json, os, sys, time
CFG = json.loads(sys.argv[1])
if CFG.get("exit_start"):
    sys.stderr.write("engine: cannot load its tables\n")
    sys.exit(3)
import os
out = sys.stdout
n = 0
buf = b""
SEP = (",", ":") if CFG.get("compact") else (", ", ": ")
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
        a = respond(q)
        a = {"id": q["id"], **a} if CFG.get("compact") else {**a, "id": q["id"]}
        n += 1
        if n == CFG.get("garbage_at"):
            answers.append("oops, not an answer\n")
            continue
        if n == CFG.get("unknown_id"):
            answers.append(json.dumps({"id": 10**9, "has_bull": False}, separators=SEP) + "\n")
        text = json.dumps(a, separators=SEP) + "\n"
        answers.append(text + text if CFG.get("duplicate") else text)
    if CFG.get("reverse"):
        answers.reverse()
    out.write("".join(answers))
    out.flush()
"""


LINES = r"""
import sys
for line in sys.stdin:  # --protocol lines: a hand per line, "has_bull,points" back
    a = answer(line.split())
    print(f"{str(a['has_bull']).lower()},{a['points']}", flush=True)
"""


def peer(tmp: Path, game: str = "niuniu", lines: bool = False, **cfg: Any) -> list[str]:
    """The command of a test implementation of ``game`` with ``cfg`` (module docstring);
    ``lines``: the plain-lines protocol (Niu Niu)."""
    path = tmp / f"{game}_peer{'_lines' if lines else ''}.py"
    path.write_text({"niuniu": NIUNIU, "pokdeng": POKDENG}[game] + (LINES if lines else LOOP))
    return [sys.executable, str(path), json.dumps(cfg)]
