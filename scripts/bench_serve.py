#!/usr/bin/env python3
"""``bull serve`` on loopback, with a bounded load generator in its own process, beside
the CLI's batch path measured in the same run.

Reports:
  * batch: Niu Niu hand evaluations per second through ``POST /v1/niuniu/eval`` with
    10,000-hand requests (``--conc`` requests in flight, one blocking keep-alive socket
    each, the answer read into one reused buffer), and the CLI's batch path on the same
    hands (``bull eval niuniu --input FILE --json``, in-process, output kept in memory);
    the first answer is checked record for record against the CLI's;
  * single: ``eval`` requests of one hand per second, closed loop (``--single-conc``
    keep-alive connections, asyncio protocols on uvloop), then the latency percentiles
    paced at half that rate (open loop: a request's latency counts from when it was due,
    so a stall shows even while no request is out);
  * connections: ``--connections`` keep-alive connections opened at once, each sending
    ``--per-connection`` requests; every error counted.

Each phase's load generator is a fresh process (``--drive PHASE``); the figures say the
CPU seconds it used itself and those of the server (every process of it) in the
phase, and the load average, so the reader sees how much of the machine each took.
Every phase is bounded by ``--seconds`` (and by its request count): the machine is shared.

    python scripts/bench_serve.py [--tables DIR] [--seconds 3] [--workers 2]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import random
import resource
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
DECK = [r + s for s in "SHDC" for r in RANKS]
BATCH = 10_000
PATH = "/v1/niuniu/eval"


def random_hands(n: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.sample(DECK, 5)) for _ in range(n)]


def batch_bodies(hands: list[str]) -> list[bytes]:
    return [
        json.dumps({"hands": hands[i : i + BATCH]}).encode() for i in range(0, len(hands), BATCH)
    ]


def request(body: bytes) -> bytes:
    return (
        f"POST {PATH} HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body


def cpu_self() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def cpu_tree(pid: int) -> dict[int, float]:
    """CPU seconds (user + system) of ``pid`` and of every process under it, now."""
    tick = os.sysconf("SC_CLK_TCK")
    stats: dict[int, tuple[int, float]] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            raw = (d / "stat").read_text()
        except OSError:
            continue
        fields = raw.rsplit(")", 1)[1].split()
        stats[int(d.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / tick)
    tree, todo = set(), [pid]
    while todo:
        p = todo.pop()
        tree.add(p)
        todo += [c for c, (ppid, _) in stats.items() if ppid == p and c not in tree]
    return {p: stats[p][1] for p in tree if p in stats}


# -- the load generators (run in their own process: --drive PHASE)


def read_answer(sock: socket.socket, buf: bytearray) -> tuple[int, memoryview]:
    """One HTTP/1.1 answer with a Content-Length, read into ``buf`` (grown as needed)."""
    view = memoryview(buf)
    got = 0
    while True:
        n = sock.recv_into(view[got:])
        if not n:
            raise ConnectionError("the server closed the connection")
        got += n
        end = buf.find(b"\r\n\r\n", 0, got)
        if end >= 0:
            break
    head = bytes(buf[:end]).lower() + b"\r\n"
    at = head.find(b"content-length:")
    length = int(head[at + 15 : head.find(b"\r\n", at)])
    total = end + 4 + length
    if total > len(buf):
        buf.extend(bytes(total - len(buf)))
        view = memoryview(buf)
    while got < total:
        n = sock.recv_into(view[got:total])
        if not n:
            raise ConnectionError("the server closed the connection")
        got += n
    return int(head[9:12]), view[end + 4 : total]


def drive_batch(port: int, conc: int, seconds: float) -> dict[str, Any]:
    """10,000-hand requests, ``conc`` blocking keep-alive sockets (a thread each: the
    socket calls run without the GIL)."""
    reqs = [request(b) for b in batch_bodies(random_hands(100_000))]
    done = [0] * conc
    errors = [0] * conc
    first: list[bytes] = []
    seen: list[str] = []
    stop = time.perf_counter() + seconds

    def run(k: int) -> None:
        buf = bytearray(8 << 20)
        with socket.create_connection(("127.0.0.1", port)) as s:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            i = k
            while time.perf_counter() < stop:
                s.sendall(reqs[i % len(reqs)])
                status, body = read_answer(s, buf)
                if status == 200 and body[:2] == b"[{":
                    done[k] += BATCH
                    if i == 0:
                        first.append(bytes(body))
                else:
                    errors[k] += 1
                    seen.append(f"{status}: {bytes(body[:200])!r}")
                i += conc

    cpu0, t0 = cpu_self(), time.perf_counter()
    threads = [threading.Thread(target=run, args=(k,)) for k in range(conc)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took, cpu = time.perf_counter() - t0, cpu_self() - cpu0
    records = json.loads(first[0]) if first else None
    return {"hands": sum(done), "seconds": took, "errors": sum(errors), "cpu": cpu,
            "first": records, "error_seen": seen[:1]}  # fmt: skip


class Client(asyncio.Protocol):
    """One keep-alive connection: a request at a time, the answer's end found by its
    Content-Length."""

    def __init__(self) -> None:
        self.buf = b""
        self.want = -1
        self.status = 0
        self.waiter: asyncio.Future[int] | None = None
        self.transport: Any = None  # uvloop's transports are no asyncio.Transport

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buf += data
        if self.want < 0:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            head = self.buf[:end].lower() + b"\r\n"
            at = head.find(b"content-length:")
            self.want = end + 4 + int(head[at + 15 : head.find(b"\r\n", at)])
            self.status = int(head[9:12])
        if len(self.buf) >= self.want:
            self.buf, self.want = self.buf[self.want :], -1
            if self.waiter is not None and not self.waiter.done():
                self.waiter.set_result(self.status)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(ConnectionError("the server closed the connection"))

    async def ask(self, req: bytes) -> int:
        self.waiter = asyncio.get_running_loop().create_future()
        self.transport.write(req)
        return await self.waiter


async def connect(port: int) -> Client:
    _, proto = await asyncio.get_running_loop().create_connection(Client, "127.0.0.1", port)
    return proto


def singles() -> list[bytes]:
    return [request(json.dumps({"hands": [h]}).encode()) for h in random_hands(1000)]


async def drive_single(port: int, conc: int, seconds: float) -> dict[str, Any]:
    reqs = singles()
    conns = [await connect(port) for _ in range(conc)]
    done = errors = 0
    cpu0, t0 = cpu_self(), time.perf_counter()
    stop = t0 + seconds

    async def loop(c: Client, k: int) -> None:
        nonlocal done, errors
        while time.perf_counter() < stop:
            status = await c.ask(reqs[k % len(reqs)])
            k += conc
            done += status == 200
            errors += status != 200

    await asyncio.gather(*(loop(c, k) for k, c in enumerate(conns)))
    took, cpu = time.perf_counter() - t0, cpu_self() - cpu0
    for c in conns:
        c.transport.close()
    return {"requests": done, "seconds": took, "errors": errors, "cpu": cpu}


async def drive_paced(port: int, rate: float, seconds: float, pool: int) -> dict[str, Any]:
    """Requests due at ``rate`` per second (open loop), over a pool of connections (a
    request waits for a free one; its latency counts from when it was due)."""
    reqs = singles()
    free: asyncio.Queue[Client] = asyncio.Queue()
    for _ in range(pool):
        free.put_nowait(await connect(port))
    lat: list[float] = []
    errors = 0
    n = max(1, int(rate * seconds))

    async def one(k: int, due: float) -> None:
        nonlocal errors
        c = await free.get()
        status = await c.ask(reqs[k % len(reqs)])
        lat.append(time.perf_counter() - due)
        errors += status != 200
        free.put_nowait(c)

    cpu0, t0 = cpu_self(), time.perf_counter()
    tasks = []
    for k in range(n):
        due = t0 + k / rate
        wait = due - time.perf_counter()
        if wait > 0:
            await asyncio.sleep(wait)
        tasks.append(asyncio.create_task(one(k, due)))
    await asyncio.gather(*tasks)
    took, cpu = time.perf_counter() - t0, cpu_self() - cpu0
    while not free.empty():
        free.get_nowait().transport.close()
    lat.sort()
    return {"requests": n, "seconds": took, "errors": errors, "cpu": cpu,
            "p50": pct(lat, 0.50), "p99": pct(lat, 0.99), "max": lat[-1]}  # fmt: skip


async def drive_connections(port: int, n: int, per: int) -> dict[str, Any]:
    """``n`` connections open at once, each sending ``per`` requests (idle between)."""
    req = singles()[0]
    ok = errors = 0
    opened: list[Client] = []
    all_open = asyncio.Event()

    async def client() -> None:
        nonlocal ok, errors
        try:
            c = await connect(port)
        except OSError:
            errors += per
            return
        opened.append(c)
        if len(opened) == n:
            all_open.set()
        try:
            await asyncio.wait_for(all_open.wait(), 30)  # every connection held at once
            for _ in range(per):
                status = await c.ask(req)
                ok += status == 200
                errors += status != 200
                await asyncio.sleep(0.05)
        except (OSError, TimeoutError):
            errors += 1
        finally:
            c.transport.close()

    cpu0, t0 = cpu_self(), time.perf_counter()
    await asyncio.gather(*(client() for _ in range(n)))
    took, cpu = time.perf_counter() - t0, cpu_self() - cpu0
    return {"requests": ok, "seconds": took, "errors": errors, "cpu": cpu, "held": len(opened)}


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def drive(args: argparse.Namespace) -> int:
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    if args.drive == "batch":
        got = drive_batch(args.port, args.conc, args.seconds)
    elif args.drive == "single":
        got = asyncio.run(drive_single(args.port, args.single_conc, args.seconds))
    elif args.drive == "paced":
        got = asyncio.run(drive_paced(args.port, args.rate, args.seconds, args.single_conc))
    else:
        got = asyncio.run(drive_connections(args.port, args.connections, args.per_connection))
    print(json.dumps(got))
    return 0


# -- the run


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_server(
    port: int, tables: str | None, workers: int, source: str | None = None
) -> subprocess.Popen[bytes]:
    """``bull serve`` on ``port``, of this tree or of ``source`` (another tree's root),
    once every worker answers."""
    argv = [sys.executable, "-m", "solver", "serve", "--port", str(port), "--workers", str(workers)]
    if tables:
        argv += ["--tables", str(Path(tables).resolve())]
    env = dict(os.environ)
    if source:
        env["PYTHONPATH"] = str(Path(source).resolve())
    proc = subprocess.Popen(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=source
    )
    probe = request(json.dumps({"hands": random_hands(1)}).encode())
    for _ in range(1200):  # up to a minute: every worker reads its tables first
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
                s.sendall(probe)
                if read_answer(s, bytearray(1 << 16))[0] == 200:
                    return proc
        except OSError:
            if proc.poll() is not None:
                raise SystemExit(  # noqa: B904 (the server's stderr says why)
                    f"the server ended: {proc.stderr.read().decode() if proc.stderr else ''}"
                )
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("the server did not start in a minute")


def phase(
    server: int, port: int, args: argparse.Namespace, name: str, *extra: str
) -> dict[str, Any]:
    """Run the load generator of ``name`` in its own process; its figures, with the
    server's CPU seconds over the same span (in all, and per process, the busiest
    first) and the load average after."""
    argv = [sys.executable, __file__, "--drive", name, "--port", str(port),
            "--seconds", str(args.seconds), "--conc", str(args.conc),
            "--single-conc", str(args.single_conc), "--connections", str(args.connections),
            "--per-connection", str(args.per_connection), *extra]  # fmt: skip
    cpu0 = cpu_tree(server)
    out = subprocess.run(argv, capture_output=True, text=True, check=False)
    if out.returncode:
        raise SystemExit(f"the {name} load generator failed:\n{out.stderr[-3000:]}")
    cpu1 = cpu_tree(server)
    got: dict[str, Any] = json.loads(out.stdout)
    used = sorted((cpu1[p] - cpu0.get(p, 0.0) for p in cpu1), reverse=True)
    got["server_cpu"] = sum(used)
    got["server_cpu_by_process"] = [round(u, 2) for u in used if u >= 0.01]
    got["load_average"] = os.getloadavg()[0]
    return got


def cli_batch(hands: list[str], tables: str | None, repeat: int) -> tuple[float, float, str]:
    """Hands per second of ``bull eval niuniu --input FILE --json`` in-process (the best
    of ``repeat``), its CPU seconds in that run, and what it printed."""
    from solver.cli import main

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "hands.txt"
        path.write_text("".join(h + "\n" for h in hands))
        argv = ["eval", "niuniu", "--input", str(path), "--json"]
        if tables:
            argv += ["--tables", tables]
        best, cpu, printed = float("inf"), 0.0, ""
        for _ in range(repeat):
            out = io.BytesIO()
            sink = io.TextIOWrapper(out, encoding="utf-8")
            c0, t0 = time.process_time(), time.perf_counter()
            code = main(argv, out=sink, err=io.StringIO())
            sink.flush()
            took = time.perf_counter() - t0
            assert code == 0
            if took < best:
                best, cpu = took, time.process_time() - c0
                printed = out.getvalue().decode()
    return len(hands) / best, cpu, printed


def warm(port: int, workers: int) -> None:
    """A batch request on each of a few fresh connections, so that every worker has
    read its tables whole before the clock runs (a server before this round's did so
    on its first batch, not at start)."""
    req = request(batch_bodies(random_hands(BATCH))[0])
    buf = bytearray(8 << 20)
    for _ in range(4 * workers):
        with socket.create_connection(("127.0.0.1", port)) as s:
            s.sendall(req)
            read_answer(s, buf)


def run_phases(pid: int, port: int, args: argparse.Namespace) -> dict[str, Any]:
    batch = phase(pid, port, args, "batch")
    single = phase(pid, port, args, "single")
    rate = single["requests"] / single["seconds"]
    half = phase(pid, port, args, "paced", "--rate", str(rate / 2))
    fixed = phase(pid, port, args, "paced", "--rate", str(args.paced_rate))
    conns = phase(pid, port, args, "connections")
    return {"batch": batch, "single": single, "paced_half": half, "paced_fixed": fixed,
            "connections": conns}  # fmt: skip


def best(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Of several rounds: the fastest batch and single phases, the paced phases with the
    lowest p99, the connections phase with the fewest errors."""

    def rate(p: dict[str, Any]) -> float:
        return float(p["hands"] if "hands" in p else p["requests"]) / p["seconds"]

    out = {
        "batch": max((r["batch"] for r in runs), key=rate),
        "single": max((r["single"] for r in runs), key=rate),
        "paced_half": min((r["paced_half"] for r in runs), key=lambda p: p["p99"]),
        "paced_fixed": min((r["paced_fixed"] for r in runs), key=lambda p: p["p99"]),
        "connections": min((r["connections"] for r in runs), key=lambda p: p["errors"]),
    }
    for name, p in out.items():  # no error of another round is hidden, nor its figure
        key = (lambda q: round(1000 * q["p99"], 2)) if name.startswith("paced") else rate
        out[name] = {
            **p,
            "errors_all_rounds": sum(r[name]["errors"] for r in runs),
            "every_round": [round(key(r[name]), 2) for r in runs],
        }
    return out


def report(label: str, f: dict[str, Any], cli_rate: float, args: argparse.Namespace) -> list[str]:
    def cpu(p: dict[str, Any]) -> str:
        split = " + ".join(f"{c:.2f}" for c in p["server_cpu_by_process"]) or "0"
        return (f"CPU: server {p['server_cpu']:.2f} s ({split}), load generator "
                f"{p['cpu']:.2f} s, in {p['seconds']:.2f} s; load average "
                f"{p['load_average']:.1f}")  # fmt: skip

    b, s, h, x, c = (f[k] for k in ("batch", "single", "paced_half", "paced_fixed", "connections"))
    brate, srate = b["hands"] / b["seconds"], s["requests"] / s["seconds"]

    def paced(p: dict[str, Any]) -> str:
        return (f"{p['requests'] / p['seconds']:,.0f}/s: p50 {1000 * p['p50']:.2f} ms, p99 "
                f"{1000 * p['p99']:.2f} ms, max {1000 * p['max']:.1f} ms; "
                f"{p['errors_all_rounds']} errors")  # fmt: skip

    def rounds(p: dict[str, Any]) -> str:
        every = p["every_round"]
        return (
            f" (rounds: {', '.join(f'{v:,.0f}' if v > 100 else f'{v}' for v in every)})"
            if len(every) > 1
            else ""
        )

    return [
        f"[{label}] batch (10,000-hand requests, {args.conc} in flight): {brate:,.0f} hands/s "
        f"over HTTP{rounds(b)} (HTTP/CLI {brate / cli_rate:.2f}); {b['errors_all_rounds']} errors"
        + (f" ({b['error_seen'][0]})" if b["error_seen"] else ""),
        f"  {cpu(b)}; server CPU per 10,000 hands "
        f"{1000 * b['server_cpu'] / max(1, b['hands'] / BATCH):.1f} ms",
        f"[{label}] single eval, closed loop ({args.single_conc} connections): {srate:,.0f} "
        f"requests/s{rounds(s)}; {s['errors_all_rounds']} errors",
        f"  {cpu(s)}; server CPU per request "
        f"{1e6 * s['server_cpu'] / max(1, s['requests']):.0f} us",
        f"[{label}] single eval paced at half that rate, {paced(h)}{rounds(h)}",
        f"  {cpu(h)}",
        f"[{label}] single eval paced at {paced(x)}{rounds(x)}",
        f"  {cpu(x)}",
        f"[{label}] {args.connections} keep-alive connections at once ({c['held']} held), "
        f"{args.per_connection} requests each: {c['requests']:,} answered, "
        f"{c['errors_all_rounds']} errors",
        f"  {cpu(c)}",
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", default="tables" if Path("tables").is_dir() else None)
    ap.add_argument("--seconds", type=float, default=3.0, help="length of each phase")
    ap.add_argument("--workers", type=int, default=2, help="server processes")
    ap.add_argument("--conc", type=int, default=4, help="batch requests in flight")
    ap.add_argument("--single-conc", type=int, default=32, help="connections, single requests")
    ap.add_argument("--paced-rate", type=float, default=1000.0,
                    help="a second paced phase at this rate (half the 2,000/s target)")  # fmt: skip
    ap.add_argument("--connections", type=int, default=500)
    ap.add_argument("--per-connection", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=1, help="every phase this many times")
    ap.add_argument("--before", metavar="DIR", help="also the server of another tree "
                    "(e.g. a `git archive` of a commit), its phases alternating with "
                    "this one's")  # fmt: skip
    ap.add_argument("--json", action="store_true", help="the figures as one JSON line")
    ap.add_argument("--drive", choices=["batch", "single", "paced", "connections"],
                    help=argparse.SUPPRESS)  # fmt: skip
    ap.add_argument("--port", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--rate", type=float, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.drive:
        return drive(args)

    load0 = os.getloadavg()[0]
    hands = random_hands(100_000)
    cli_rate, cli_cpu, printed = cli_batch(hands, args.tables, 3)
    want = [json.loads(line) for line in printed.splitlines()[:BATCH]]

    sources = {"now": None, **({"before": args.before} if args.before else {})}
    servers: dict[str, tuple[subprocess.Popen[bytes], int]] = {}
    runs: dict[str, list[dict[str, Any]]] = {k: [] for k in sources}
    try:
        for label, source in sources.items():
            port = free_port()
            servers[label] = (start_server(port, args.tables, args.workers, source), port)
            warm(port, args.workers)
        for _ in range(args.rounds):
            for label, (proc, port) in servers.items():
                runs[label].append(run_phases(proc.pid, port, args))
    finally:
        for proc, _ in servers.values():
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
    differ = [
        f"{label} round {k + 1}"
        for label, v in runs.items()
        for k, r in enumerate(v)
        if r["batch"].pop("first") != want
    ]
    same = not differ
    figures = {k: best(v) for k, v in runs.items()}
    result = {
        "cpus": os.cpu_count(),
        "load_average_before": load0,
        "workers": args.workers,
        "rounds": args.rounds,
        "cli_batch_hands_per_s": round(cli_rate),
        "cli_batch_cpu_s": round(cli_cpu, 3),
        "http_batch_same_records_as_cli": same,
        **figures,
    }
    if args.json:
        print(json.dumps(result))
        return 0 if same else 1
    lines = [
        f"machine: {os.cpu_count()} CPUs, load average {load0:.1f} before; server workers "
        f"{args.workers}; best of {args.rounds} round(s)",
        f"CLI batch path (bull eval niuniu --input --json, 100,000 hands, best of 3): "
        f"{cli_rate:,.0f} hands/s ({cli_cpu:.2f} s CPU for 100,000 hands)",
        f"every batch answer the same records as the CLI's: "
        f"{'yes' if same else 'NO: ' + ', '.join(differ)}",
    ]
    for label, f in figures.items():
        lines += report(label, f, cli_rate, args)
    if "before" in figures:
        now, then = figures["now"], figures["before"]

        def ratio(key: str, unit: str) -> float:
            a, b = now[key], then[key]
            return (a[unit] / a["seconds"]) / (b[unit] / b["seconds"])

        def per(key: str, unit: str) -> float:
            a, b = now[key], then[key]
            return (a["server_cpu"] / a[unit]) / (b["server_cpu"] / b[unit])

        lines.append(
            f"now/before: batch rate {ratio('batch', 'hands'):.2f}x, server CPU per hand "
            f"{per('batch', 'hands'):.2f}x; single rate {ratio('single', 'requests'):.2f}x, "
            f"server CPU per request {per('single', 'requests'):.2f}x"
        )
    print("\n".join(lines))
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
