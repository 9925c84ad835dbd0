"""Request hardening for ``bull serve``, as plain ASGI middleware: a request body over
``max_body`` bytes is refused with 413 (by its ``Content-Length`` before a byte is read,
or as it streams in), and a client that takes more than ``read_timeout`` seconds to send
its body gets 408. Both answers are one-line JSON errors."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette.exceptions import HTTPException

__all__ = ["Limits", "error_body"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def error_body(message: str) -> bytes:
    """The body of every error answer: ``{"error": "<one line>"}``."""
    return json.dumps({"error": " ".join(message.split())}, ensure_ascii=False).encode()


class Limits:
    """Wraps an ASGI app with the body size limit and the slow-client timeout."""

    def __init__(self, app: ASGIApp, max_body: int, read_timeout: float) -> None:
        self.app = app
        self.max_body = max_body
        self.read_timeout = read_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for key, value in scope.get("headers", ()):
            if key == b"content-length":
                try:
                    length = int(value)
                except ValueError:
                    await _refuse(send, 400, "bad Content-Length header")
                    return
                if length > self.max_body:
                    await _refuse(send, 413, self._too_large())
                    return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.read_timeout
        received = 0
        done = False

        async def limited() -> Message:
            nonlocal received, done
            if done:  # the body is in: waiting for a disconnect is not slow sending
                return await receive()
            try:  # asyncio's own (uvicorn runs asyncio): half the CPU of anyio's scope
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                raise HTTPException(
                    408, f"the request body took over {self.read_timeout:g} s"
                ) from None
            if message.get("type") == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body:
                    raise HTTPException(413, self._too_large())
                done = not message.get("more_body", False)
            return message

        await self.app(scope, limited, send)

    def _too_large(self) -> str:
        return f"request body over {self.max_body:,} bytes (the server's --max-body)"


async def _refuse(send: Send, status: int, message: str) -> None:
    body = error_body(message)
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
