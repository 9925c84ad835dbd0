"""``bull serve --workers N``: each worker listens on its own socket of the port
(``SO_REUSEPORT``), so keep-alive connections opened together spread over the workers
(uvicorn's shared socket gave them all to whichever worker woke first); Ctrl-C ends
every process; a port already in use is a one-line error before anything starts."""

from __future__ import annotations

import io
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")

from solver.cli import main
from solver.serve.command import CONFIG_ENV
from solver.serve.workers import reuse_port

BODY = json.dumps({"hands": ["9S 9D"]}).encode()  # Pok Deng: the smallest tables to read
REQUEST = (
    b"POST /v1/pokdeng/eval HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
    b"Content-Length: " + str(len(BODY)).encode() + b"\r\n\r\n" + BODY
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _ask(s: socket.socket) -> bytes:
    s.sendall(REQUEST)
    got = b""
    while b"\r\n\r\n" not in got or not got.endswith(b"}]"):
        part = s.recv(65536)
        if not part:
            break
        got += part
    return got


def _sockets(port: int, state: str) -> set[int]:
    """Socket inodes of local ``port`` in TCP ``state`` (01 established, 0A listening)."""
    out = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            f = line.split()
            if int(f[1].rsplit(":", 1)[1], 16) == port and f[3] == state:
                out.add(int(f[9]))
    return out


def _sockets_of(pid: int) -> set[int]:
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(int(target[8:-1]))
    return inodes


@pytest.mark.skipif(
    not reuse_port() or not Path("/proc/net/tcp").exists(), reason="SO_REUSEPORT and /proc"
)
def test_connections_spread_over_the_workers_and_ctrl_c_ends_them(
    niuniu_tables: Path, tmp_path: Path
) -> None:
    port = _free_port()
    env = {**os.environ, CONFIG_ENV: json.dumps({"tables": str(niuniu_tables)})}
    env["TMPDIR"] = str(tmp_path)  # where each worker's private folder is made
    code = (
        "from solver.serve.workers import serve_workers\n"
        "from solver.serve.protocol import HeadTimeout\n"
        f"raise SystemExit(serve_workers('127.0.0.1', {port}, 2, {{'app': "
        "'solver.serve.command:factory', 'factory': True, 'http': HeadTimeout, "
        "'log_level': 'warning'}))"
    )  # the tables are read on first use here (bull serve reads them at start)
    proc = subprocess.Popen([sys.executable, "-c", code], env=env)
    conns: list[socket.socket] = []
    try:
        deadline = time.monotonic() + 90
        while len(_sockets(port, "0A")) < 2:  # both workers listening, each its socket
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        workers = [
            int(p) for p in os.listdir("/proc") if p.isdigit()
            and Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[1] == str(proc.pid)
            and b"spawn_main" in Path(f"/proc/{p}/cmdline").read_bytes()
        ]  # fmt: skip
        assert len(workers) == 2
        conns = [socket.create_connection(("127.0.0.1", port), timeout=60) for _ in range(32)]
        for s in conns:  # keep-alive: every connection answered, and still open
            assert _ask(s).startswith(b"HTTP/1.1 200")
        open_now = _sockets(port, "01")
        held = [len(_sockets_of(w) & open_now) for w in workers]
        # a fair split has 6 or more on each side but once in 9,000 runs; uvicorn's
        # shared socket gave 32:0, 25:7 and 4:28 (this socket per worker 15:17, 17:15, 18:14)
        assert sum(held) == 32 and min(held) >= 6, held
    finally:
        for s in conns:
            s.close()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 0
    assert not any(Path(f"/proc/{w}").exists() for w in workers)
    # each worker removed its private folder as it stopped (a worker ends by os._exit)
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith("bull-serve-")]


def test_a_port_in_use_is_one_line_before_anything_starts() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        for workers in ("1", "2"):
            out, err = io.StringIO(), io.StringIO()
            code = main(["serve", "--port", str(port), "--workers", workers], out=out, err=err)
            assert code == 2 and out.getvalue() == ""
            assert err.getvalue().count("\n") == 1 and "cannot listen on" in err.getvalue()
            assert "in use" in err.getvalue()
