"""The hot endpoint of ``bull serve`` as a plain ASGI route: ``POST /v1/{game}/eval``,
read from the raw body and answered with bytes built in one go, in front of the FastAPI
application (which still documents it in ``/openapi.json`` and answers everything else).

A body of the plain shape — a JSON object with ``hands``, a list of 1 to ``max_batch``
strings, and any of the endpoint's other fields — is read here: ``json.loads`` (as
Starlette reads a body), the hands turned into one Arrow text column (the column *is*
the check that every hand is a string of characters: no number, null or lone UTF-16
surrogate converts), the other fields checked by the endpoint's own model without the
hands. Its hands then go to the batch tokeniser the CLI's ``--input`` uses, which names
a bad hand by its place (``hands[3]: unknown card 'ZZ'``). Anything else (bad JSON, an
unknown field, a hand that is no string, a batch over the limit) is handed, body and
all, to the FastAPI route, whose one-line error names the bad item as it always did: an
error costs what it costs, a good request skips the per-request model validation of
10,000 hands and the framework's layers.

>>> eval_path("/v1/niuniu/eval"), eval_path("/v1/niuniu/rank"), eval_path("/v1/x/eval/")
('niuniu', None, None)
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

import anyio
import pyarrow as pa
from pydantic import ValidationError
from starlette.exceptions import HTTPException

from solver import games
from solver.core.errors import BullError
from solver.serve.bodies import EvalOptions
from solver.serve.calls import FEW, Answer, Calls
from solver.serve.limits import error_body

__all__ = ["NDJSON", "Hot", "Reply", "Runner", "eval_path"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

NDJSON = "application/x-ndjson"
Reply = tuple[int, list[bytes | memoryview], str, dict[str, str]]
"""An answer: status, body (in pieces sent one after the other), media type, extra
headers."""

_JSON = "application/json"


def eval_path(path: str) -> str | None:
    """The game of a ``/v1/{game}/eval`` path, else ``None``."""
    parts = path.split("/")
    if len(parts) == 4 and parts[1] == "v1" and parts[3] == "eval" and parts[2]:
        return parts[2]
    return None


class Runner:
    """Runs an endpoint's computation under the server's timeout and turns its answer
    (or its error) into a :data:`Reply` — for the FastAPI routes and the hot one."""

    def __init__(self, calls: Calls, timeout: float, threads: int = 8) -> None:
        self.calls = calls
        self.timeout = timeout
        self.limiter = anyio.CapacityLimiter(threads)

    def error(self, status: int, message: str, headers: dict[str, str] | None = None) -> Reply:
        return status, [error_body(message)], _JSON, headers or {}

    async def reply(self, ndjson: bool, work: Any, *args: Any, inline: bool = False) -> Reply:
        """``work(*args)`` in a worker thread under the timeout; ``inline``: a small
        answer from warm tables (well under a millisecond), computed in place."""
        try:
            if inline:
                answer: Answer = work(*args)
            else:
                with anyio.fail_after(self.timeout):
                    answer = await anyio.to_thread.run_sync(
                        work, *args, limiter=self.limiter, abandon_on_cancel=True
                    )
        except TimeoutError:
            return self.error(
                503, f"the answer took over {self.timeout:g} s (the server's --timeout)",
                {"Retry-After": "30"},
            )  # fmt: skip
        except BullError as exc:
            return self.error(400, self.calls.clean(str(exc)))
        except RecursionError:
            return self.error(400, "the request is nested too deeply")
        if ndjson:
            return 200, [answer.jsonl()], NDJSON, {}
        return 200, answer.json_parts(), _JSON, {}


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope["headers"]:
        if key == name:
            return bytes(value)
    return None


def _is_json(content_type: bytes | None) -> bool:
    """Whether FastAPI reads the body as JSON: its type is ``application/json`` or
    ``application/...+json``, parameters aside (no type: no, FastAPI's strict default)."""
    if content_type is None:
        return False
    kind = content_type.split(b";", 1)[0].strip().lower()
    return kind == b"application/json" or (
        kind.startswith(b"application/") and kind.endswith(b"+json")
    )


async def send_reply(send: Send, reply: Reply) -> None:
    """The reply as ASGI messages: its pieces one body message each (uvicorn writes
    them; the protocol's :class:`~solver.serve.protocol.Corked` sends them as one)."""
    status, parts, media, extra = reply
    size = sum(len(p) for p in parts)
    headers = [(b"content-type", media.encode()), (b"content-length", str(size).encode())]
    headers += [(k.lower().encode(), v.encode()) for k, v in extra.items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    last = len(parts) - 1
    for i, part in enumerate(parts):
        await send({"type": "http.response.body", "body": part, "more_body": i < last})


class Hot:
    """``POST /v1/{game}/eval`` of a plain body answered here; every other request, and
    every body not of the plain shape, goes to ``app`` (the FastAPI application)."""

    def __init__(self, app: ASGIApp, runner: Runner, max_batch: int) -> None:
        self.app = app
        self.runner = runner
        self.calls = runner.calls
        self.max_batch = max_batch
        self.games = frozenset(games.names())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            game = eval_path(scope["path"])
            if game in self.games:
                await self._eval(games.get(game), scope, receive, send)
                return
        await self.app(scope, receive, send)

    async def _eval(self, game: games.Game, scope: Scope, receive: Receive, send: Send) -> None:
        chunks = []
        while True:
            try:
                message = await receive()
            except HTTPException as exc:  # the limits: too large (413), too slow (408)
                await send_reply(send, self.runner.error(exc.status_code, str(exc.detail)))
                return
            if message["type"] != "http.request":  # the client went away
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        raw = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        body = self._plain(scope, raw)
        if body is None:  # the framework's validation names what is wrong
            await self.app(scope, _replay(raw, receive), send)
            return
        ndjson = NDJSON in (_header(scope, b"accept") or b"").decode("latin-1")
        calls = self.calls
        spans = body[1]
        reply = await self.runner.reply(
            ndjson, calls.eval, game, body[0], spans, inline=calls.quick(game, body[0])
        )
        await send_reply(send, reply)

    def _plain(self, scope: Scope, raw: bytes) -> tuple[_Eval, pa.Array | None] | None:
        """The body and its hands as a text column, when the body is of the plain
        shape; ``None`` otherwise."""
        if not raw or not _is_json(_header(scope, b"content-type")):
            return None
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):
            return None
        if type(data) is not dict:
            return None
        hands = data.get("hands")
        if type(hands) is not list or not 0 < len(hands) <= self.max_batch:
            return None
        fields: dict[str, Any] = {}
        if len(data) > 1:
            rest = {k: v for k, v in data.items() if k != "hands"}
            try:
                fields = dict(EvalOptions.model_validate(rest))
            except (ValidationError, RecursionError):
                return None
        column = None
        if len(hands) <= FEW:  # the per-hand path takes them: no column needed
            if not all(type(h) is str and (h.isascii() or _characters(h)) for h in hands):
                return None
        else:
            try:  # every hand a string of characters, or no column
                column = pa.array(hands, pa.string())
            except (TypeError, ValueError, pa.ArrowException):
                return None
            if column.null_count:
                return None
        return _Eval(hands, fields.get("rules"), EvalOptions.given(fields)), column


@dataclass(frozen=True)
class _Eval:
    """A plain ``eval`` body, checked: what :meth:`Calls.eval` reads of an
    :class:`~solver.serve.bodies.EvalBody` (a model built without validation costs
    more than the rest of a one-hand answer's reading)."""

    hands: list[str]
    rules: str | dict[str, Any] | None
    given: dict[str, Any]

    def options(self) -> dict[str, Any]:
        return self.given


def _characters(text: str) -> bool:
    """Whether ``text`` holds no lone UTF-16 surrogate (it can be written as UTF-8)."""
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def _replay(raw: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives the body already read, then the client's messages."""
    sent = False

    async def again() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": raw, "more_body": False}
        return await receive()

    return again
