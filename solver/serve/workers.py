"""``bull serve --workers N`` (N > 1) where the system has ``SO_REUSEPORT`` (Linux, the
BSDs): each worker process listens on its own socket bound to the one port, and the
kernel spreads the connections over the sockets evenly by their addresses.

uvicorn's own workers share one listening socket: whichever worker wakes first accepts
every connection waiting, so keep-alive clients that connect together often all land on
one worker while the others idle (32 connections opened at once were seen split 32:0 and
29:3). Here the parent checks the port is free, starts the workers (each a uvicorn
server on its socket), ends them all on Ctrl-C or SIGTERM, and starts a worker again
when one ends on its own — unless it ended within its first seconds (it could not
start: the whole server ends with its exit code).
"""

from __future__ import annotations

import multiprocessing
import signal
import socket
import time
from typing import Any

__all__ = ["port_free", "reuse_port", "serve_workers"]

STARTUP = 30.0
"""Seconds after which a worker that ends is started again (before: a failed start)."""


def reuse_port() -> bool:
    """Whether this system lets several sockets listen on one port (``SO_REUSEPORT``)."""
    return hasattr(socket, "SO_REUSEPORT")


def _listen(host: str, port: int, backlog: int, reuse: bool) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    sock.listen(backlog)
    return sock


def port_free(host: str, port: int) -> None:
    """Raise :class:`OSError` unless ``host:port`` can be listened on now."""
    with _listen(host, port, 1, reuse=False):
        pass


def _worker(host: str, port: int, options: dict[str, Any]) -> None:  # pragma: no cover
    """One worker (a child process): a uvicorn server on its own socket."""
    import uvicorn

    sock = _listen(host, port, options.get("backlog", 2048), reuse=True)
    uvicorn.Server(uvicorn.Config(**options)).run(sockets=[sock])


def serve_workers(host: str, port: int, workers: int, options: dict[str, Any]) -> int:
    """Run ``workers`` uvicorn servers of ``options`` (:class:`uvicorn.Config`'s keyword
    arguments) on ``host:port`` until Ctrl-C or SIGTERM; the exit code."""
    port_free(host, port)
    ctx = multiprocessing.get_context("spawn")
    stop: list[int] = []
    previous = {
        sig: signal.signal(sig, lambda n, _f: stop.append(n))
        for sig in (signal.SIGINT, signal.SIGTERM)
    }

    def start() -> tuple[Any, float]:
        p = ctx.Process(target=_worker, args=(host, port, options), daemon=True)
        p.start()
        return p, time.monotonic()

    procs = [start() for _ in range(workers)]
    code = 0
    try:
        while not stop:
            time.sleep(0.2)
            for i, (p, began) in enumerate(procs):
                if p.exitcode is None or stop:
                    continue
                if time.monotonic() - began < STARTUP:  # it could not start
                    code = p.exitcode or 1
                    stop.append(0)
                    break
                procs[i] = start()
    finally:
        for p, _ in procs:
            if p.exitcode is None:
                p.terminate()  # SIGTERM: uvicorn ends its connections gracefully
        deadline = time.monotonic() + 10
        for p, _ in procs:
            p.join(max(0.0, deadline - time.monotonic()))
            if p.exitcode is None:
                p.kill()
                p.join()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return code
