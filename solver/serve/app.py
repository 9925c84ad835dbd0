"""The ``bull serve`` application (FastAPI on Starlette): versioned JSON endpoints under
``/v1/{game}/`` that answer with the CLI's ``--json`` records, the web trainer and lookup
at ``/``, and the OpenAPI document at ``/openapi.json``.

A batch (``hands``, ``pairs``, ``deals``, ``rounds``, ``rows``) answers with a JSON array
whose items are the CLI's JSON lines; one hand, pair or round answers with the one
record. ``Accept: application/x-ndjson`` answers with JSON Lines instead: the bytes the
CLI prints. Every error is ``{"error": "<one line naming the bad item>"}``: 400 for bad
input (bad JSON, an unknown game, field, card or preset), 404 for no such path, 405 for
a wrong method, 408 for a client too slow to send its body, 413 for a body over
``max_body``, 503 for an answer that took over ``timeout`` seconds.
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from importlib.resources import files
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from solver import __version__, games
from solver.core.errors import BullError
from solver.serve.bodies import (
    AdviseBody,
    CompareBody,
    EdgeBody,
    EvalBody,
    GrabBody,
    OddsBody,
    RankBody,
    RoundBody,
    StrategyBody,
    VerifyBody,
)
from solver.serve.calls import Calls
from solver.serve.hot import NDJSON, Hot, Runner
from solver.serve.limits import Limits, error_body

__all__ = ["ServeConfig", "create_app"]

log = logging.getLogger("bull.serve")


@dataclass(frozen=True)
class ServeConfig:
    """The server's limits and tables (``bull serve`` options)."""

    tables: str | None = None
    max_body: int = 1 << 20
    """Bytes of request body accepted (``--max-body``)."""
    max_batch: int = 10_000
    """Hands (pairs, rounds, rows) per request (``--max-batch``)."""
    timeout: float = 60.0
    """Seconds an answer may compute (``--timeout``): a rule file's first use builds its
    table, which may take that long; the build goes on and the next request uses it."""
    read_timeout: float = 10.0
    """Seconds a client may take to send its request body (``--read-timeout``)."""
    warm: bool = False
    """Read each game's default tables whole before the first request (``bull serve``
    does; a test's app reads them on first use)."""


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    return Response(error_body(message), status, headers, media_type="application/json")


_TAG = re.compile(r"^(str|int|float|bool|none|function-after\[.*|(dict|list|tuple|literal)\[.*\])$")
_KINDS = {
    "str": "a string",
    "int": "a whole number",
    "float": "a number",
    "bool": "true/false",
    "dict": "an object",
    "list": "a list",
    "tuple": "a list",
    "literal": "one of the names",
}


def _where(loc: tuple[Any, ...]) -> tuple[str, list[str]]:
    """The field path of an error (``hands[3]``) and the union members it names."""
    out, tags = "", []
    for p in (str(p) for p in loc if p not in ("body", "query", "path")):
        if _TAG.match(p):
            tags.append(_KINDS.get(p.split("[")[0], p))
            continue
        out += f"[{p}]" if p.isdigit() else (f".{p}" if out else p)
    return out or "body", tags


def _validation_message(exc: RequestValidationError) -> str:
    """One line for the first problem pydantic found (the rest are counted)."""
    errors = exc.errors()
    if not errors:
        return "bad request"
    e = errors[0]
    kind, loc = e.get("type", ""), tuple(e.get("loc", ()))
    where, tags = _where(loc)
    given = repr(e.get("input"))
    given = given if len(given) <= 60 else given[:57] + "..."
    more = len(errors) - 1
    if tags:  # one value, several types it may be: say them all
        kinds = [t for err in errors for t in _where(tuple(err.get("loc", ())))[1]
                 if _where(tuple(err.get("loc", ())))[0] == where]  # fmt: skip
        more -= len(kinds) - 1
        msg = f"field {where!r}: expected {' or '.join(dict.fromkeys(kinds))} (got {given})"
    elif kind == "json_invalid":
        at = loc[1] if len(loc) > 1 else "?"
        why = (e.get("ctx") or {}).get("error", "not JSON")
        msg = f"the body is not valid JSON (at character {at}: {why})"
    elif kind == "value_error" and where == "body":  # a validator of the whole body
        msg = str(e.get("msg", "bad request")).removeprefix("Value error, ")
    elif where == "body":
        msg = f"the body must be a JSON object of the endpoint's fields (got {given})"
    elif kind == "extra_forbidden":
        msg = f"unknown field {where!r}"
    elif kind == "missing":
        msg = f"missing field {where!r}"
    else:
        msg = f"field {where!r}: {e.get('msg', 'bad value')} (got {given})"
    return msg + (f" (and {more} more problem{'s' * (more > 1)})" if more > 0 else "")


def create_app(config: ServeConfig | None = None) -> Any:
    """The ASGI application (the API, the static pages, the limits around them)."""
    cfg = config or ServeConfig()
    calls = Calls(cfg.tables, cfg.max_batch)
    if cfg.warm:
        calls.warm()

    @asynccontextmanager
    async def lifespan(_app: Any) -> AsyncIterator[None]:
        try:
            yield
        finally:
            calls.close()  # the private folder goes with the server, whatever ends it

    app = FastAPI(
        lifespan=lifespan,
        title="bull-solver",
        version=__version__,
        summary="The exact reference for Niu Niu, Tau Ngau and Pok Deng: the CLI's JSON "
        "records over HTTP.",
        docs_url="/docs",
        redoc_url=None,
    )

    runner = Runner(calls, cfg.timeout)

    async def run(request: Request, work: Any, *args: Any, inline: bool = False) -> Response:
        """``work(*args)`` answered under the timeout (:class:`Runner`)."""
        ndjson = NDJSON in request.headers.get("accept", "")
        status, parts, media, headers = await runner.reply(ndjson, work, *args, inline=inline)
        return Response(b"".join(parts), status, headers, media_type=media)

    def game_of(name: str) -> games.Game:
        return games.get(name)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Response:
        return _error(400, _validation_message(exc))

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> Response:
        if exc.status_code == 404:
            return _error(404, f"no such path: {request.url.path} (the API is under /v1/{{game}}/)")
        if exc.status_code == 405:
            allowed = exc.headers.get("Allow", "") if exc.headers else ""
            return _error(
                405,
                f"method {request.method} not allowed on {request.url.path} (use {allowed})",
                {"Allow": allowed},
            )
        if exc.status_code == 400 and str(exc.detail).startswith("There was an error parsing"):
            return _error(400, "the request body could not be read")
        return _error(exc.status_code, str(exc.detail))

    @app.exception_handler(BullError)
    async def bull_error(request: Request, exc: BullError) -> Response:
        return _error(400, calls.clean(str(exc)))

    @app.exception_handler(Exception)
    async def internal(request: Request, exc: Exception) -> Response:
        log.exception("internal error on %s %s", request.method, request.url.path)
        return _error(500, f"internal error ({type(exc).__name__}); the server logged it")

    v1 = "/v1/{game}"

    @app.post(f"{v1}/eval", summary="bull eval: one record per hand")
    async def eval_(game: str, body: EvalBody, request: Request) -> Response:
        g = game_of(game)
        return await run(request, calls.eval, g, body, inline=calls.quick(g, body))

    @app.post(f"{v1}/compare", summary="bull compare: player against banker (or pairs)")
    async def compare(game: str, body: CompareBody, request: Request) -> Response:
        return await run(request, calls.compare, game_of(game), body)

    @app.post(f"{v1}/rank", summary="bull rank: hands from one deck, strongest first")
    async def rank(game: str, body: RankBody, request: Request) -> Response:
        return await run(request, calls.rank, game_of(game), body)

    @app.post(f"{v1}/round", summary="bull round: settle players against the banker")
    async def round_(game: str, body: RoundBody, request: Request) -> Response:
        return await run(request, calls.round, game_of(game), body)

    @app.post(f"{v1}/advise", summary="bull advise (pokdeng): stand or draw")
    async def advise(game: str, body: AdviseBody, request: Request) -> Response:
        return await run(request, calls.advise, game_of(game), body)

    @app.post(f"{v1}/grab", summary="bull grab (niuniu): grab the banker from four cards")
    async def grab(game: str, body: GrabBody, request: Request) -> Response:
        return await run(request, calls.grab, game_of(game), body)

    @app.post(f"{v1}/verify", summary="bull verify: claim rows in, the report out")
    async def verify(game: str, body: VerifyBody, request: Request) -> Response:
        return await run(request, calls.verify, game_of(game), body)

    @app.post(f"{v1}/strategy", summary="bull strategy (pokdeng): the drawing chart")
    async def strategy(game: str, body: StrategyBody, request: Request) -> Response:
        return await run(request, calls.strategy, game_of(game), body)

    @app.get(f"{v1}/strategy", summary="bull strategy (pokdeng), options as query parameters")
    async def strategy_get(
        game: str, body: Annotated[StrategyBody, Query()], request: Request
    ) -> Response:
        return await run(request, calls.strategy, game_of(game), body)

    @app.post(f"{v1}/odds", summary="bull odds: exact count of every category")
    async def odds(game: str, body: OddsBody, request: Request) -> Response:
        return await run(request, calls.odds, game_of(game), body)

    @app.get(f"{v1}/odds", summary="bull odds, the preset as a query parameter")
    async def odds_get(game: str, body: Annotated[OddsBody, Query()], request: Request) -> Response:
        return await run(request, calls.odds, game_of(game), body)

    @app.post(f"{v1}/edge", summary="bull edge: the player's exact expected value")
    async def edge(game: str, body: EdgeBody, request: Request) -> Response:
        return await run(request, calls.edge, game_of(game), body)

    @app.get(f"{v1}/edge", summary="bull edge, options as query parameters")
    async def edge_get(game: str, body: Annotated[EdgeBody, Query()], request: Request) -> Response:
        return await run(request, calls.edge, game_of(game), body)

    @app.get(f"{v1}/rules", summary="bull rules --list: the presets")
    async def presets(game: str, request: Request) -> Response:
        return await run(request, calls.presets, game_of(game))

    @app.get(f"{v1}/rules/{{preset}}", summary="bull rules --rules PRESET: every option")
    async def rule_set(game: str, preset: str, request: Request) -> Response:
        return await run(request, calls.rule_set, game_of(game), preset)

    @app.post(f"{v1}/rules", summary="bull rules --rules FILE: a rule file, defaults filled in")
    async def rule_file(game: str, body: OddsBody, request: Request) -> Response:
        return await run(request, calls.rule_set, game_of(game), body.rules)

    @app.get(f"{v1}/deal", summary="deal N of bull drill --seed S --hands H (the trainer)")
    async def deal(
        game: str,
        request: Request,
        seed: Annotated[int, Query(ge=0, lt=2**63)] = 0,
        hands: Annotated[int, Query(ge=2, le=4)] = 2,
        deal: Annotated[int, Query(ge=1, le=100_000)] = 1,
        rules: Annotated[str | None, Query()] = None,
    ) -> Response:
        return await run(request, calls.deal, game_of(game), seed, hands, deal, rules)

    @app.get("/v1", summary="the games and their endpoints")
    async def index() -> Response:
        listing = {
            "version": __version__,
            "games": {
                g: {
                    "title": games.get(g).title,
                    "default_rules": games.get(g).default_rules,
                    "commands": sorted(games.get(g).commands),
                }
                for g in games.names()
            },
        }
        import json

        return Response(json.dumps(listing).encode(), media_type="application/json")

    static = files("solver.serve") / "static"

    @app.get("/", include_in_schema=False)
    async def home() -> Response:
        return FileResponse(str(static / "index.html"))

    app.mount("/static", StaticFiles(directory=str(static)), name="static")
    return Limits(Hot(app, runner, cfg.max_batch), cfg.max_body, cfg.read_timeout)
