#!/usr/bin/env python3
"""Peak memory and time of every ``bull`` command, each in its own process, against a
baseline measured in the same run (issue 28: "keep peak memory under 2 GB for every
command"; the timing limits that tests used to assert live here).

Every subcommand of ``bull --help`` is run, for each game where it applies, with the
README's typical arguments and the heaviest realistic options: the shoe presets
(``niuniu: shoe6``, ``pokdeng: shoe8``) and an 8-deck Niu Niu rule file, the most
players a table holds (``round``, ``deal``, ``risk``), the README's rule files with new
categories (``forty.toml``: three and four of a kind above niu niu; ``multi.toml``;
``house.toml``; ``fixed.toml``), a rule file that changes only the commission, every
table built from scratch, Spark, and ``serve`` answering the README's requests.

Each command runs as a child of a small launcher (a bare interpreter, no numpy). Two
peaks are taken: the launcher's ``getrusage(RUSAGE_CHILDREN).ru_maxrss`` after waiting
for the command, the largest resident set of the command or of any child it waited for
(Linux keeps ``ru_maxrss`` across ``exec``, so a command forked straight from this
script would inherit this script's size as a floor; forked from the launcher its floor
is the launcher's, about 10 MB), and a poller that sums the resident sets of the whole
process tree every 50 ms (``tree``: Spark's JVM, serve's workers, a probed peer are
processes of their own; the launcher's 10 MB included). A command at or over
2 GB on either is flagged. The baseline is ``bull --version`` (the interpreter and the
CLI's imports) for memory and a fixed numpy workload for time, so a slow machine shows
as a slow baseline and the ratios stay comparable between runs.

    python scripts/bench_commands.py [--rounds N] [--only PREFIX ...] [--skip-report]
                                     [--skip-spark] [--tables DIR] [--list] [--json]

``--rounds`` (default 100,000) sizes the generated inputs: the dealt logs (at the most
players), the ``--input`` files of ``eval`` and ``round``, the claims ``verify`` reads,
the probe's budget. A copy of the table set is used when ``--tables`` is not given, so
the rule-file tables and the risk simulations are built from scratch into a temporary
folder (first use: the heaviest). Commands run one at a time; the table is printed at
the end (``--json``: one JSON document), exit 1 when a command is over 2 GB or fails.

Targets: peak RSS < 2 GB for every command; ``report`` under 180 s scaled by the
baseline (the baseline's time on the machine the limit was set on, about 0.1 s).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
LIMIT_MB = 2 * 1024
REPORT_LIMIT_S = 180.0
BASELINE_REF_S = 0.105
"""The numpy baseline's seconds on the machine where the 180 s report limit was set
(best of three, idle, 2026-12-02: 0.101-0.111 s)."""
GAMES = ("niuniu", "taungau", "pokdeng")
MAX_PLAYERS = {"niuniu": 9, "taungau": 5, "pokdeng": 16}
"""The most players a one-deck table holds (``bull risk --help``)."""
PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _tree_rss_mb(root: int) -> float:
    """The summed resident set of ``root`` and all its descendants, in MB (Linux /proc)."""
    parent: dict[int, int] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        parent[int(entry)] = int(fields[1])
        rss[int(entry)] = int(fields[21])
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo += [c for c, p in parent.items() if p == pid]
    return total * PAGE / 2**20


class Poller:
    """Samples the process tree's summed RSS every ``every`` seconds until stopped."""

    def __init__(self, pid: int, every: float = 0.05) -> None:
        self.pid, self.every, self.peak = pid, every, 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, _tree_rss_mb(self.pid))
            self._stop.wait(self.every)

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return round(self.peak, 1)


def run(argv: list[str], cwd: Path, stdin: str = "", serve: bool = False) -> dict[str, object]:
    """Run ``argv``; its exit code, wall and CPU seconds and both peaks in MB. ``serve``:
    a server, sent the README's requests once it answers, then stopped with SIGINT."""
    t0 = time.perf_counter()
    peak_file = cwd / ".peak"
    peak_file.unlink(missing_ok=True)
    proc = subprocess.Popen(
        [sys.executable, "-S", "-c", LAUNCHER, str(peak_file), *argv],
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=os.environ,
    )
    poller = Poller(proc.pid)
    assert proc.stdin is not None and proc.stderr is not None
    err = b""
    if serve:
        _serve_requests(int(argv[argv.index("--port") + 1]))
        proc.send_signal(signal.SIGINT)
    else:
        proc.stdin.write(stdin.encode())
    proc.stdin.close()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    tree = poller.stop()
    code = os.waitstatus_to_exitcode(status)
    scale = 1 if sys.platform == "darwin" else 1024
    peak = round(int(peak_file.read_text()) * scale / 2**20, 1)
    out: dict[str, object] = {
        "exit": code,
        "wall_s": round(wall, 2),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
        "peak_rss_mb": peak,
        "tree_peak_mb": max(tree, peak),
    }
    if b"Traceback" in err or (code not in (0, 1) and not (serve and code == 128 + signal.SIGINT)):
        out["error"] = err.decode(errors="replace").strip().splitlines()[-1:]
    return out


LAUNCHER = r"""
import os, resource, signal, subprocess, sys
child = subprocess.Popen(sys.argv[2:])
signal.signal(signal.SIGINT, lambda *_: child.send_signal(signal.SIGINT))
code = child.wait()
with open(sys.argv[1], "w") as f:
    f.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(code if code >= 0 else 128 - code)
"""
"""Runs the command as its child and writes the children's peak RSS (KiB) to a file."""


def _serve_requests(port: int) -> None:
    """Wait for ``bull serve`` to answer, then send it the README's requests and a few
    heavy ones (a 10,000-hand batch, shoe odds, the strategy, every edge)."""
    base = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            urllib.request.urlopen(f"{base}/openapi.json", timeout=2).read()
            break
        except OSError:
            time.sleep(0.1)
    hands = [" ".join(c) for c in _deck_hands("niuniu", 10_000)]
    posts = [
        ("niuniu/eval", {"hands": hands}),
        ("niuniu/odds", {"rules": "shoe6"}),
        ("niuniu/edge", {"rules": "shoe6", "bet": "double"}),
        ("pokdeng/strategy", {"rules": "straights"}),
        ("pokdeng/edge", {"rules": "shoe8"}),
        ("niuniu/verify", {"rows": [{"hand": "KS 9H 8C 3D 7S", "points": 6}], "out": True}),
        ("niuniu/grab", {"hand": "AS 10H 3C 7D", "players": 3}),
    ]
    for path, body in posts:
        req = urllib.request.Request(
            f"{base}/v1/{path}",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        try:
            urllib.request.urlopen(req, timeout=600).read()
        except OSError as e:
            print(f"serve: {path}: {e}", file=sys.stderr)
    for path in ("taungau/edge?banker_reveals=first", "niuniu/deal?seed=42&hands=3&deal=1"):
        try:
            urllib.request.urlopen(f"{base}/v1/{path}", timeout=600).read()
        except OSError as e:
            print(f"serve: {path}: {e}", file=sys.stderr)


CARDS = [r + s for r in ["A", *map(str, range(2, 11)), "J", "Q", "K"] for s in "SHDC"]


def _deck_hands(game: str, n: int, seed: int = 0) -> Iterator[list[str]]:
    """``n`` random hands (5 cards; Pok Deng 2 or 3) from fresh one-deck shuffles."""
    rng = np.random.default_rng(seed)
    for i in range(n):
        size = 5 if game == "niuniu" else 2 + i % 2
        yield [CARDS[j] for j in rng.permutation(52)[:size]]


def numpy_baseline() -> float:
    """Seconds of a fixed numpy workload (sort 4 M int64 four times), best of three."""
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2**40, 4_000_000)
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(4):
            np.sort(a)
        best = min(best, time.perf_counter() - t0)
    return best


def _readme_rule_files(work: Path) -> None:
    """Write the README's rule files (```` ```toml ```` blocks opening ``# NAME.toml``)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for name, body in re.findall(r"```toml\n# (\S+\.toml)[^\n]*\n(.*?)```", readme, re.S):
        (work / name).write_text(body, encoding="utf-8")


def _rule_variant(work: Path, game: str, preset: str, name: str, old: str, new: str) -> None:
    text = subprocess.run(
        [sys.executable, "-m", "solver", "rules", game, "--rules", preset],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert old in text, (preset, old)
    text = text.replace(f'name = "{preset}"', f'name = "{name}"').replace(old, new)
    (work / f"{name}.toml").write_text(text, encoding="utf-8")


def _inputs_from_log(work: Path, game: str) -> None:
    """From the dealt log ``log-GAME.csv``: every hand (``hands-GAME.txt``), every round
    (``rounds-GAME.txt``, BANKER | PLAYER | ...) and showdown claims as the log settled
    them (``claims-GAME.csv``)."""
    rounds: dict[str, list[dict[str, str]]] = {}
    with open(work / f"log-{game}.csv", newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            rounds.setdefault(row["round"], []).append(row)
    other = "dealer" if game == "pokdeng" else "banker"
    winner = {"win": "player", "loss": other, "push": "push"}
    with (
        open(work / f"hands-{game}.txt", "w", encoding="utf-8") as hands,
        open(work / f"rounds-{game}.txt", "w", encoding="utf-8") as lines,
        open(work / f"claims-{game}.csv", "w", newline="", encoding="utf-8") as claims,
    ):
        out = csv.writer(claims)
        out.writerow(["player", other, "winner", "net"])
        for seats in rounds.values():
            bank = next(s["hand"] for s in seats if s["role"] != "player")
            players = [s for s in seats if s["role"] == "player"]
            lines.write(" | ".join([bank, *(p["hand"] for p in players)]) + "\n")
            for s in seats:
                hands.write(s["hand"] + "\n")
            for p in players:
                out.writerow([p["hand"], bank, winner[p["result"]], p["net"]])


def commands(work: Path, tables: Path, rounds: int) -> Iterator[tuple[str, list[str], str]]:
    """Every command measured: ``(name, bull arguments, stdin)``, in running order (a
    ``deal`` writes the log the later commands of its game read)."""
    t = ["--tables", str(tables)]
    w = str(work)
    yield "build_all", ["build", "--tables", f"{w}/built"], ""
    yield "check-tables", ["check-tables", *t], ""
    yield "rules_niuniu_list", ["rules", "niuniu", "--list"], ""
    for g in GAMES:
        yield f"rules_{g}", ["rules", g, "--expand"] if g == "niuniu" else ["rules", g], ""
    yield "eval_niuniu", ["eval", "niuniu", "KS 9H 8C 3D 7S", *t], ""
    yield "eval_niuniu_shoe6", ["eval", "niuniu", "KS KS QH JD 10C", "--rules", "shoe6", *t], ""
    forty = ["10S 10H 10D 10C 9S", "5S 5H 5D 3C 7S", "AS 9H 10D 3C 7S", "--rules", "forty.toml"]
    yield "eval_niuniu_forty_file", ["eval", "niuniu", *forty, *t], ""
    yield (
        "eval_taungau",
        ["eval", "taungau", "[6:6][6:5][4:3][4:2][2:2]", "--rules", "pagat", *t],
        "",
    )
    yield "eval_pokdeng", ["eval", "pokdeng", "9S 9D", "AC 4C 4D", *t], ""
    yield (
        "compare_niuniu",
        ["compare", "niuniu", "JS QS KS 5H 5D", "4C 7C 8D JD KH", "--bet", "double", *t],
        "",
    )
    yield (
        "compare_niuniu_shoe6",
        ["compare", "niuniu", "KS KS 9H 8C 7S", "KS KS 9H 8C 7S", "--rules", "shoe6", *t],
        "",
    )
    yield (
        "compare_taungau",
        [
            "compare",
            "taungau",
            "[6:5][4:1][3:3][5:5][2:2]",
            "[6:6][4:4][2:1][3:1][1:1]",
            "--banker-reveals",
            "first",
            *t,
        ],
        "",
    )
    yield (
        "compare_pokdeng_house_file",
        ["compare", "pokdeng", "2S 6S", "4H 4D", "--rules", "house.toml", *t],
        "",
    )
    yield (
        "rank_niuniu",
        ["rank", "niuniu", "KS 9H 8C 3D 7S", "JS QS KD 5H 5D", "KH 9S 8D 3C 7H", *t],
        "",
    )
    yield (
        "rank_taungau",
        ["rank", "taungau", "[6:6][6:5][4:3][4:2][2:2]", "[6:5][4:1][3:3][5:5][1:1]", *t],
        "",
    )
    yield "rank_pokdeng", ["rank", "pokdeng", "9S 9D", "AC 4C 4D", "KH 2S 3C", *t], ""
    yield "grab_niuniu", ["grab", "niuniu", "AS 10H 3C 7D", *t], ""
    yield "advise_pokdeng", ["advise", "pokdeng", "7H 5D", "--dealer-draws-at-most", "5", *t], ""
    yield "advise_pokdeng_shoe8", ["advise", "pokdeng", "KH KH", "--rules", "shoe8", *t], ""
    yield "advise_pokdeng_dealer_sees", ["advise", "pokdeng", "5H 2D", "--dealer-sees", "3", *t], ""
    yield "strategy_pokdeng_png", ["strategy", "pokdeng", "--png", f"{w}/strategy.png", *t], ""
    yield "strategy_pokdeng_shoe8", ["strategy", "pokdeng", "--rules", "shoe8", *t], ""
    yield "strategy_pokdeng_equilibrium", ["strategy", "pokdeng", "--dealer", "equilibrium", *t], ""
    yield (
        "strategy_pokdeng_best_response",
        ["strategy", "pokdeng", "--dealer", "best-response", "--player", "optimal", "--json", *t],
        "",
    )
    for g in GAMES:
        yield f"odds_{g}", ["odds", g, *t], ""
        yield f"edge_{g}", ["edge", g, *(["--bet", "double"] if g == "niuniu" else []), *t], ""
    yield "odds_niuniu_shoe6", ["odds", "niuniu", "--rules", "shoe6", *t], ""
    yield "odds_pokdeng_shoe8", ["odds", "pokdeng", "--rules", "shoe8", *t], ""
    yield "odds_niuniu_forty_file", ["odds", "niuniu", "--rules", "forty.toml", *t], ""
    yield "edge_niuniu_shoe6", ["edge", "niuniu", "--rules", "shoe6", "--bet", "double", *t], ""
    yield "edge_pokdeng_shoe8", ["edge", "pokdeng", "--rules", "shoe8", *t], ""
    yield "edge_niuniu_shoe8_file", ["edge", "niuniu", "--rules", "shoe8nn.toml", *t], ""
    yield "edge_commission_file", ["edge", "niuniu", "--rules", "comm3.toml", *t], ""
    yield "edge_commission_file_again", ["edge", "niuniu", "--rules", "comm3.toml", *t], ""
    yield "edge_niuniu_multi_file", ["edge", "niuniu", "--rules", "multi.toml", *t], ""
    yield "edge_niuniu_forty_file", ["edge", "niuniu", "--rules", "forty.toml", *t], ""
    yield "edge_pokdeng_house_file", ["edge", "pokdeng", "--rules", "house.toml", *t], ""
    yield "edge_taungau_fixed_file", ["edge", "taungau", "--rules", "fixed.toml", *t], ""
    for g in GAMES:
        n = str(MAX_PLAYERS[g])
        bet = ["--bet", "double"] if g == "niuniu" else []
        yield f"risk_{g}_players_{n}", ["risk", g, "--players", n, *bet, "--reserve", "100", *t], ""
    yield (
        "risk_niuniu_forty_file",
        ["risk", "niuniu", "--players", "7", "--rules", "forty.toml", *t],
        "",
    )
    yield "risk_pokdeng_shoe8", ["risk", "pokdeng", "--players", "16", "--rules", "shoe8", *t], ""
    for g in GAMES:
        n, log = str(MAX_PLAYERS[g]), f"{w}/log-{g}.csv"
        yield (
            f"deal_{g}_players_{n}",
            ["deal", g, "--rounds", str(rounds), "--players", n, "--seed", "1", "--out", log, *t],
            "",
        )
        yield f"eval_{g}_input", ["eval", g, "--input", f"{w}/hands-{g}.txt", "--json", *t], ""
        yield f"round_{g}_input", ["round", g, "--input", f"{w}/rounds-{g}.txt", "--json", *t], ""
        yield (
            f"verify_{g}",
            ["verify", g, f"{w}/claims-{g}.csv", "--out", f"{w}/wrong-{g}.jsonl", *t],
            "",
        )
        yield f"audit_{g}", ["audit", g, log, "--by", "table", "--out", f"{w}/audit-{g}", *t], ""
        yield f"vectors_{g}", ["vectors", g, "--out", f"{w}/vectors-{g}.jsonl", *t], ""
        yield f"drill_{g}", ["drill", g, "--hands", "4", "--seed", "7", *t], "no bull\n7\n1\nquit\n"
    big = str(rounds * 10)
    yield (
        "deal_niuniu_shoe6_parquet",
        [
            "deal",
            "niuniu",
            "--rounds",
            big,
            "--players",
            "9",
            "--rules",
            "shoe6",
            "--bias",
            "errors=0.01",
            "--error-rules",
            "shoe6c3.toml",
            "--out",
            f"{w}/shoe6.parquet",
            *t,
        ],
        "",
    )
    yield (
        "audit_niuniu_shoe6_parquet",
        [
            "audit",
            "niuniu",
            f"{w}/shoe6.parquet",
            "--rules",
            "shoe6",
            "--by",
            "table",
            "--json",
            *t,
        ],
        "",
    )
    yield (
        "audit_niuniu_spark",
        ["audit", "niuniu", f"{w}/log-niuniu.csv", "--engine", "spark", *t],
        "",
    )
    yield (
        "verify_niuniu_infer",
        ["verify", "niuniu", f"{w}/claims-niuniu.csv", "--infer", "--commission", "0.03", *t],
        "",
    )
    for g in ("niuniu", "pokdeng"):
        yield f"probe_{g}", ["probe", g, "--budget", str(rounds), *t, "--", *_peer(work, g)], ""
    yield "serve", ["serve", "--port", str(_free_port()), *t], ""
    yield "report", ["report", "--out", f"{w}/report", *t], ""


def _needed(name: str, only: list[str], todo: list[tuple[str, list[str], str]]) -> bool:
    """Whether ``--only`` asks for ``name``, or for a command reading what it deals."""
    if name.startswith(tuple(only)):
        return True
    if not name.startswith("deal_"):
        return False
    argv = next(a for n, a, _ in todo if n == name)
    out = Path(argv[argv.index("--out") + 1]).name
    made = {out} | (
        {f"{k}-{argv[1]}." for k in ("hands", "rounds", "claims")} if "log-" in out else set()
    )
    return any(m in a for n, av, _ in todo if n.startswith(tuple(only)) for a in av for m in made)


def _peer(work: Path, game: str) -> list[str]:
    """A correct implementation of ``game`` for ``bull probe`` (tests/_peers.py's)."""
    sys.path.insert(0, str(REPO / "tests"))
    try:
        from _peers import peer
    finally:
        sys.path.pop(0)
    return [str(x) for x in peer(work, game)]


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", help="table set to use (default: a fresh copy of tables/)")
    ap.add_argument("--rounds", type=int, default=100_000, help="size of the generated inputs")
    ap.add_argument("--only", nargs="*", help="measure only commands whose name starts so")
    ap.add_argument("--skip-report", action="store_true", help="leave out `bull report`")
    ap.add_argument("--skip-spark", action="store_true", help="leave out the Spark audit")
    ap.add_argument("--list", action="store_true", help="list the commands and exit")
    ap.add_argument("--json", action="store_true", help="one JSON document instead of a table")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench_commands_"))
    try:
        tables = Path(args.tables) if args.tables else work / "tables"
        if not args.tables:
            shutil.copytree(REPO / "tables", tables, symlinks=True, ignore=_no_rules)
        _readme_rule_files(work)
        _rule_variant(work, "niuniu", "classic", "comm3", "commission = 0.05", "commission = 0.03")
        _rule_variant(work, "niuniu", "shoe6", "shoe8nn", "decks = 6", "decks = 8")
        _rule_variant(work, "niuniu", "shoe6", "shoe6c3", "commission = 0.05", "commission = 0.03")
        todo = list(commands(work, tables, args.rounds))
        if args.skip_report:
            todo = [c for c in todo if c[0] != "report"]
        if args.skip_spark:
            todo = [c for c in todo if "spark" not in c[0]]
        if args.list:
            for name, argv, _ in todo:
                print(f"{name:34} bull {' '.join(argv)}")
            return 0
        chosen = [c for c in todo if not args.only or _needed(c[0], args.only, todo)]
        bull = [sys.executable, "-m", "solver"]
        base_s = numpy_baseline()
        results: dict[str, dict[str, object]] = {
            "baseline_startup": run([*bull, "--version"], work)
        }
        for name, argv, stdin in chosen:
            results[name] = run([*bull, *argv], work, stdin, serve=name == "serve")
            results[name]["command"] = "bull " + " ".join(argv).replace(str(work), "$W")
            print(f"{name}: {results[name]}", file=sys.stderr)
            if name.startswith("deal_") and results[name]["exit"] == 0 and "csv" in argv[-3]:
                _inputs_from_log(work, argv[1])
        over = sorted(k for k, v in results.items() if _mb(v) >= LIMIT_MB)
        failed = sorted(k for k, v in results.items() if "error" in v)
        summary: dict[str, object] = {
            "baseline_numpy_s": round(base_s, 3),
            "rounds": args.rounds,
            "over_2gb": over,
            "failed": failed,
        }
        if "report" in results:
            ratio = float(results["report"]["wall_s"]) / base_s  # type: ignore[arg-type]
            summary["report_over_baseline"] = round(ratio, 1)
            summary["report_limit_ok"] = ratio <= REPORT_LIMIT_S / BASELINE_REF_S
        if args.json:
            print(json.dumps({"commands": results, **summary}, indent=2))
        else:
            print(_table(results))
            print(json.dumps(summary))
        return 1 if over or failed else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _mb(v: dict[str, object]) -> float:
    return max(float(v["peak_rss_mb"]), float(v["tree_peak_mb"]))  # type: ignore[arg-type]


def _table(results: dict[str, dict[str, object]]) -> str:
    """A Markdown table: name, exit, wall, CPU, both peaks, the flag."""
    rows = ["| command | exit | wall s | CPU s | peak RSS MB | tree peak MB | < 2 GB |"]
    rows.append("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for name, v in results.items():
        flag = "OVER" if _mb(v) >= LIMIT_MB else "ok"
        rows.append(
            f"| `{name}` | {v['exit']} | {v['wall_s']} | {v['cpu_s']} | {v['peak_rss_mb']} "
            f"| {v['tree_peak_mb']} | {flag} |"
        )
    return "\n".join(rows)


def _no_rules(folder: str, names: list[str]) -> set[str]:
    """Leave the cached rule-file tables out of the copy (they are rebuilt)."""
    return {"rules"} & set(names) if Path(folder).name == "tables" else set()


if __name__ == "__main__":
    raise SystemExit(main())
