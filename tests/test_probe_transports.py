"""``bull probe``'s transports as a user meets them: the README's adapters (Python and
JavaScript under node, each at most 20 lines) probed as shown; ``--url`` against a
tiny ``http.server`` engine written here; Ctrl-C (SIGINT to a probe process) printing
the partial report; ``--column`` and ``--window``.

The engines here answer Niu Niu hands from RULES.md §3 (A = 1, 2..9 their value,
10/J/Q/K = 10; a bull is three cards summing to a multiple of ten; points the last
digit of the total, 0 as 10), so every answer agrees."""

from __future__ import annotations

import io
import json
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from _peers import peer

from solver.cli import main

REPO = Path(__file__).resolve().parent.parent
NIU = """
from itertools import combinations
RANKS = "A 2 3 4 5 6 7 8 9 10 J Q K".split()

def niu(cards):
    v = [min(10, RANKS.index(c[:-1]) + 1) for c in cards]
    if any(sum(t) % 10 == 0 for t in combinations(v, 3)):
        return {"has_bull": True, "points": sum(v) % 10 or 10}
    return {"has_bull": False, "points": 0}
"""
"""The engines' evaluator (the source of the scripts written below)."""
_ns: dict[str, Any] = {}
exec(NIU, _ns)
niu = _ns["niu"]


def run(*args: str) -> tuple[int, dict[str, Any], str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["probe", *args], out=out, err=err)
    assert "Traceback" not in out.getvalue() + err.getvalue()
    text = out.getvalue()
    return code, (json.loads(text) if text.strip().startswith("{") else {}), err.getvalue()


def readme_adapters() -> dict[str, str]:
    section = (REPO / "README.md").read_text().split("## Probe", 1)[1].split("\n## ", 1)[0]
    blocks = dict(re.findall(r"```(python|js)\n(.*?)```", section, re.S))
    assert set(blocks) == {"python", "js"}, "the README's Probe section shows both adapters"
    return blocks


@pytest.mark.parametrize("lang", ["python", "js"])
def test_readme_adapter_runs_as_shown(tmp_path: Path, lang: str) -> None:
    code_text = readme_adapters()[lang]
    assert len(code_text.rstrip("\n").splitlines()) <= 20, f"the {lang} adapter is over 20 lines"
    if lang == "js":
        node = shutil.which("node")
        if node is None:
            pytest.skip("node is not installed (.ci/run installs it)")
        cmd = [node, str(tmp_path / "adapter.js")]
    else:
        cmd = [sys.executable, str(tmp_path / "adapter.py")]
    Path(cmd[-1]).write_text(code_text)
    code, rep, _ = run("niuniu", "--budget", "200", "--json", "--", *cmd)
    assert code == 0, rep.get("headline")
    assert rep["disagree"] == 0 and rep["fields"]["points"]["agree"] > 7_000
    assert rep["fields"]["has_bull"]["agree"] == rep["fields"]["points"]["agree"]


class _Engine(BaseHTTPRequestHandler):
    """POST: a JSON array of questions in, a JSON array of answers out (reversed, so
    ids, not positions, must match them)."""

    calls: ClassVar[list[int]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        qs = json.loads(body)
        self.calls.append(len(qs))
        out = [{"id": q["id"], **(niu(q["hand"]) if "hand" in q else {})} for q in qs]
        data = json.dumps(out[::-1]).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def engine_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Engine)
    _Engine.calls = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/answer"
    finally:
        server.shutdown()
        server.server_close()


def test_url_posts_batches(engine_url: str) -> None:
    code, rep, _ = run(
        "niuniu", "--url", engine_url, "--budget", "100", "--window", "500", "--json"
    )
    assert code == 0, rep.get("headline")
    assert rep["disagree"] == 0 and rep["answered"] == rep["queries"] > 7_000
    calls = _Engine.calls
    assert sum(calls) == rep["queries"] and max(calls) == 500 and len(calls) > 10


def test_url_nobody_listening_is_one_line() -> None:
    import socket

    with socket.socket() as s:  # a port with nobody listening
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, _, _ = run("niuniu", "--url", f"http://127.0.0.1:{port}/x", "--budget", "10")
    assert code == 1


def test_column_renames_an_answer_field(tmp_path: Path) -> None:
    script = tmp_path / "score.py"
    script.write_text(
        NIU + "import json, sys\n"
        "for line in sys.stdin:\n"
        "    q = json.loads(line)\n"
        "    a = niu(q['hand']) if 'hand' in q else {}\n"
        "    print(json.dumps({'id': q['id'], 'score': a.get('points')}), flush=True)\n"
    )
    cmd = [sys.executable, str(script)]
    code, rep, _ = run("niuniu", "--column", "points=score", "--budget", "50", "--json", "--", *cmd)
    assert code == 0 and rep["fields"]["points"]["agree"] > 7_000


def test_window_of_one_still_answers(tmp_path: Path) -> None:
    cmd = peer(tmp_path, "pokdeng")
    code, rep, _ = run("pokdeng", "--window", "1", "--budget", "30", "--json", "--", *cmd)
    assert code == 0 and rep["answered"] == rep["queries"] > 1_000


def test_ctrl_c_prints_the_partial_report(tmp_path: Path) -> None:
    """SIGINT to a probe process once it has answers: the report so far, exit 1."""
    slow, marker = tmp_path / "slow.py", tmp_path / "answered-500"
    slow.write_text(
        NIU + "import json, sys, time\n"
        "for n, line in enumerate(sys.stdin):\n"
        "    q = json.loads(line)\n"
        "    time.sleep(0.002)\n"
        f"    if n == 500: open({str(marker)!r}, 'w').close()\n"
        "    a = niu(q['hand']) if 'hand' in q else {}\n"
        "    print(json.dumps({'id': q['id'], **a}), flush=True)\n"
    )
    # Python leaves SIGINT ignored when it starts with it ignored (a suite run in the
    # background of a non-interactive shell): the probe is started with Python's own
    # handler, as a terminal starts it
    boot = (
        "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "sys.argv[0] = 'bull'; from solver.__main__ import entry; entry()"
    )
    cmd = [sys.executable, "-c", boot, "probe", "niuniu", "--window", "8", "--json"]
    proc = subprocess.Popen(
        [*cmd, "--", sys.executable, str(slow)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    for _ in range(600):  # the cover is being answered (~8,000 questions at 2 ms)
        if marker.exists() or proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=120)
    finally:  # a probe that ignored the signal is not left running the rest of the suite
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert "Traceback" not in out + err
    assert proc.returncode == 1, (out[-300:], err[-300:])
    rep = json.loads(out)
    assert rep["faults"]["interrupted"] is True and rep["faults"]["fatal"] is None
    assert 500 < rep["answered"] < 8_000 and rep["disagree"] == 0
    assert rep["phases"]["cover"]["questions"] >= rep["answered"]


@pytest.mark.parametrize("json_out", [True, False])
def test_ctrl_c_during_start_up_prints_the_empty_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, json_out: bool
) -> None:
    """Ctrl-C before anything is asked (here while the question space is being built,
    before the peer is started): the partial report, empty, and exit 1 — not
    "bull: interrupted" and 130."""
    import solver.probe.plan

    def interrupted(*_: Any, **__: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(solver.probe.plan, "space", interrupted)
    started = tmp_path / "started"
    cmd = [sys.executable, "-c", f"open({str(started)!r}, 'w')"]
    out, err = io.StringIO(), io.StringIO()
    code = main(["probe", "niuniu", *(["--json"] if json_out else []), "--", *cmd], out, err)
    assert code == 1 and err.getvalue() == "" and not started.exists()
    if json_out:
        rep = json.loads(out.getvalue())
        assert rep["faults"]["interrupted"] is True and rep["faults"]["fatal"] is None
        assert rep["queries"] == rep["answered"] == 0 and rep["exit"] == 1
        assert rep["file"].startswith(sys.executable)
    else:
        text = out.getvalue()
        assert "no answers to check" in text and "questions 0 (answered 0)\n" in text
        assert "interrupted: the report covers the questions answered so far" in text
