#!/usr/bin/env python3
"""``bull serve`` on loopback, with a bounded load generator (raw asyncio sockets,
HTTP/1.1 keep-alive), beside the CLI's batch path measured in the same run.

Reports:
  * batch: Niu Niu hand evaluations per second through ``POST /v1/niuniu/eval`` with
    10,000-hand requests (``--conc`` requests in flight), and the CLI's batch path on the
    same hands (``bull eval niuniu --input FILE --json``, in-process, output dropped);
  * single: ``eval`` requests of one hand per second, closed loop (``--conc``
    connections), then the latency percentiles paced at half that rate (open loop);
  * connections: ``--connections`` keep-alive connections opened at once, each sending
    ``--per-connection`` requests; every error counted.

Every phase is bounded by ``--seconds`` (and a request count): the machine is shared.

    python scripts/bench_serve.py [--tables DIR] [--seconds 3] [--workers 1]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
DECK = [r + s for s in "SHDC" for r in RANKS]


def random_hands(n: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.sample(DECK, 5)) for _ in range(n)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_server(port: int, tables: str | None, workers: int) -> subprocess.Popen[bytes]:
    argv = [sys.executable, "-m", "solver", "serve", "--port", str(port), "--workers", str(workers)]
    if tables:
        argv += ["--tables", tables]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    for _ in range(600):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc
        except OSError:
            if proc.poll() is not None:
                raise SystemExit(  # noqa: B904 (the server's stderr says why)
                    f"the server ended: {proc.stderr.read().decode() if proc.stderr else ''}"
                )
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("the server did not start in 30 s")


class Conn:
    """One keep-alive HTTP/1.1 connection."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port: int) -> Conn:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 24)
        return cls(reader, writer)

    async def post(self, path: str, body: bytes) -> tuple[int, bytes]:
        head = (
            f"POST {path} HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode()
        self.writer.write(head + body)
        await self.writer.drain()
        raw = await self.reader.readuntil(b"\r\n\r\n")
        status = int(raw.split(b" ", 2)[1])
        length = 0
        for line in raw.split(b"\r\n")[1:]:
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":", 1)[1])
        return status, await self.reader.readexactly(length)

    def close(self) -> None:
        self.writer.close()


async def batch_phase(
    port: int, bodies: list[bytes], conc: int, seconds: float
) -> tuple[int, float, int]:
    """(hands answered, seconds, errors) for 10,000-hand requests, ``conc`` in flight."""
    conns = [await Conn.open(port) for _ in range(conc)]
    done = errors = 0
    t0 = time.perf_counter()
    stop = t0 + seconds

    async def loop(c: Conn, k: int) -> None:
        nonlocal done, errors
        while time.perf_counter() < stop:
            status, data = await c.post("/v1/niuniu/eval", bodies[k % len(bodies)])
            k += conc
            if status != 200 or not data.startswith(b"[{"):
                errors += 1
            else:
                done += 10_000

    await asyncio.gather(*(loop(c, k) for k, c in enumerate(conns)))
    took = time.perf_counter() - t0
    for c in conns:
        c.close()
    return done, took, errors


async def single_closed(
    port: int, bodies: list[bytes], conc: int, seconds: float
) -> tuple[int, float, int]:
    conns = [await Conn.open(port) for _ in range(conc)]
    done = errors = 0
    t0 = time.perf_counter()
    stop = t0 + seconds

    async def loop(c: Conn, k: int) -> None:
        nonlocal done, errors
        while time.perf_counter() < stop:
            status, _ = await c.post("/v1/niuniu/eval", bodies[k % len(bodies)])
            k += conc
            done += status == 200
            errors += status != 200

    await asyncio.gather(*(loop(c, k) for k, c in enumerate(conns)))
    took = time.perf_counter() - t0
    for c in conns:
        c.close()
    return done, took, errors


async def single_paced(
    port: int, bodies: list[bytes], rate: float, seconds: float, pool: int
) -> tuple[list[float], int]:
    """Latencies (s) of requests sent at ``rate`` per second (open loop: a request's
    latency counts from when it was due), over a pool of connections."""
    free: asyncio.Queue[Conn] = asyncio.Queue()
    for _ in range(pool):
        free.put_nowait(await Conn.open(port))
    lat: list[float] = []
    errors = 0
    n = max(1, int(rate * seconds))
    t0 = time.perf_counter()

    async def one(k: int, due: float) -> None:
        nonlocal errors
        c = await free.get()
        status, _ = await c.post("/v1/niuniu/eval", bodies[k % len(bodies)])
        lat.append(time.perf_counter() - due)
        errors += status != 200
        free.put_nowait(c)

    tasks = []
    for k in range(n):
        due = t0 + k / rate
        wait = due - time.perf_counter()
        if wait > 0:
            await asyncio.sleep(wait)
        tasks.append(asyncio.create_task(one(k, due)))
    await asyncio.gather(*tasks)
    while not free.empty():
        free.get_nowait().close()
    return lat, errors


async def connections_phase(port: int, body: bytes, n: int, per: int) -> tuple[int, int, float]:
    """(requests answered, errors, seconds) with ``n`` connections open at once."""
    ok = errors = 0
    t0 = time.perf_counter()

    async def client() -> None:
        nonlocal ok, errors
        try:
            c = await Conn.open(port)
        except OSError:
            errors += per
            return
        try:
            for _ in range(per):
                status, _ = await c.post("/v1/niuniu/eval", body)
                ok += status == 200
                errors += status != 200
                await asyncio.sleep(0.05)  # idle on the open connection between requests
        except (OSError, asyncio.IncompleteReadError):
            errors += 1
        finally:
            c.close()

    await asyncio.gather(*(client() for _ in range(n)))
    return ok, errors, time.perf_counter() - t0


def cli_batch(hands: list[str], tables: str | None, repeat: int) -> float:
    """Hands per second of ``bull eval niuniu --input FILE --json`` in-process."""
    from solver.cli import main

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "hands.txt"
        path.write_text("".join(h + "\n" for h in hands))
        argv = ["eval", "niuniu", "--input", str(path), "--json"]
        if tables:
            argv += ["--tables", tables]
        best = float("inf")
        for _ in range(repeat):
            out = io.BytesIO()
            sink = io.TextIOWrapper(out, encoding="utf-8")
            t0 = time.perf_counter()
            code = main(argv, out=sink, err=io.StringIO())
            sink.flush()
            best = min(best, time.perf_counter() - t0)
            assert code == 0
    return len(hands) / best


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", default="tables" if Path("tables").is_dir() else None)
    ap.add_argument("--seconds", type=float, default=3.0, help="length of each phase")
    ap.add_argument("--workers", type=int, default=1, help="server processes")
    ap.add_argument("--conc", type=int, default=4, help="batch requests in flight")
    ap.add_argument("--single-conc", type=int, default=32, help="connections, single requests")
    ap.add_argument("--connections", type=int, default=500)
    ap.add_argument("--per-connection", type=int, default=3)
    ap.add_argument("--json", action="store_true", help="the figures as one JSON line")
    args = ap.parse_args()

    hands = random_hands(100_000)
    bodies = [
        json.dumps({"hands": hands[i : i + 10_000]}).encode() for i in range(0, len(hands), 10_000)
    ]
    singles = [json.dumps({"hands": [h]}).encode() for h in hands[:1000]]
    cli_rate = cli_batch(hands, args.tables, 3)

    port = free_port()
    proc = start_server(port, args.tables, args.workers)
    try:
        asyncio.run(batch_phase(port, bodies[:1], 1, 0.1))  # warm: the table is loaded
        done, took, batch_err = asyncio.run(batch_phase(port, bodies, args.conc, args.seconds))
        batch_rate = done / took
        n, took1, single_err = asyncio.run(
            single_closed(port, singles, args.single_conc, args.seconds)
        )
        single_rate = n / took1
        lat, paced_err = asyncio.run(
            single_paced(port, singles, single_rate / 2, args.seconds, args.single_conc)
        )
        ok, conn_err, took2 = asyncio.run(
            connections_phase(port, singles[0], args.connections, args.per_connection)
        )
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
    figures = {
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg()[0],
        "workers": args.workers,
        "cli_batch_hands_per_s": round(cli_rate),
        "http_batch_hands_per_s": round(batch_rate),
        "http_batch_vs_cli": round(batch_rate / cli_rate, 3),
        "batch_errors": batch_err,
        "single_requests_per_s": round(single_rate),
        "single_errors": single_err,
        "paced_rate_per_s": round(single_rate / 2),
        "paced_p50_ms": round(1000 * pct(lat, 0.50), 2),
        "paced_p99_ms": round(1000 * pct(lat, 0.99), 2),
        "paced_errors": paced_err,
        "connections": args.connections,
        "connection_requests_ok": ok,
        "connection_errors": conn_err,
        "connection_seconds": round(took2, 2),
    }
    if args.json:
        print(json.dumps(figures))
        return 0
    f = figures
    lines = [
        f"machine: {f['cpus']} CPUs, load average {f['load_average']:.1f}; workers {args.workers}",
        f"batch (10,000-hand requests, {args.conc} in flight): {batch_rate:,.0f} hands/s over "
        f"HTTP; CLI batch path {cli_rate:,.0f} hands/s (HTTP/CLI {f['http_batch_vs_cli']:.2f}); "
        f"errors {batch_err}",
        f"single eval, closed loop ({args.single_conc} connections): {single_rate:,.0f} "
        f"requests/s; errors {single_err}",
        f"single eval paced at {single_rate / 2:,.0f}/s: p50 {f['paced_p50_ms']} ms, "
        f"p99 {f['paced_p99_ms']} ms; errors {paced_err}",
        f"{args.connections} keep-alive connections at once, {args.per_connection} requests "
        f"each: {ok:,} answered, {conn_err} errors, {took2:.1f} s",
    ]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
