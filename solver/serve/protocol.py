"""The HTTP protocol of ``bull serve``: uvicorn's httptools protocol with a deadline on
a request's head, and a response's writes sent as one.

uvicorn times out an idle keep-alive connection, and the app times out a slow body
(:mod:`solver.serve.limits`), but a client that opens a connection and sends its request
line and headers a byte at a time would hold it for ever; here it gets a one-line JSON
408 and the connection is closed after ``head_timeout`` seconds (``--read-timeout``).

uvicorn writes a response's head and its body with two calls: with Nagle's algorithm
off, two sends and two TCP segments for each answer, where one does (a single ``eval``
answer is about 600 bytes). The writes of one turn of the event loop are held and sent
together at its end (:class:`Corked`)."""

from __future__ import annotations

import asyncio
import os
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from solver.serve.limits import error_body

__all__ = ["HEAD_TIMEOUT_ENV", "Corked", "HeadTimeout"]

HEAD_TIMEOUT_ENV = "BULL_SERVE_HEAD_TIMEOUT"
"""Seconds a request head may take, for every ``--workers`` process (``bull serve``
sets it from ``--read-timeout``)."""


class Corked:
    """A transport whose writes of one event-loop turn go out as one send (a
    ``writelines``: no copy of a large body); closing sends what is held first. Every
    other attribute is the wrapped transport's."""

    def __init__(self, transport: Any, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._held: list[bytes] = []

    def write(self, data: bytes) -> None:
        if not self._held:
            self._loop.call_soon(self.flush)
        self._held.append(data)

    def flush(self) -> None:
        held, self._held = self._held, []
        if not held or self._transport.is_closing():
            return
        if len(held) == 1:
            self._transport.write(held[0])
        else:
            self._transport.writelines(held)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class HeadTimeout(HttpToolsProtocol):
    """Closes a connection whose request head is not in within ``head_timeout`` s."""

    head_timeout: float = 10.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        given = os.environ.get(HEAD_TIMEOUT_ENV)
        self._limit = float(given) if given else self.head_timeout
        self._head_task: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(Corked(transport, self.loop))  # type: ignore[arg-type]
        self._arm()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._head_task is None:
            self._arm()

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._head_task = self.loop.call_later(self._limit, self._too_slow)

    def _disarm(self) -> None:
        if self._head_task is not None:
            self._head_task.cancel()
            self._head_task = None

    def _too_slow(self) -> None:
        self._head_task = None
        if self.transport.is_closing():
            return
        if self.cycle is None or self.cycle.response_complete:  # no answer under way
            body = error_body(f"the request head took over {self._limit:g} s")
            self.transport.write(
                b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
                b"content-length: " + str(len(body)).encode() + b"\r\nconnection: close\r\n\r\n"
                + body
            )  # fmt: skip
            self.transport.close()
