# ruff: noqa: E501 (the curl examples and case tables read best one to a line)
"""``bull serve``: run the HTTP server (uvicorn) on the app of :mod:`solver.serve.app`.

This module imports neither FastAPI nor uvicorn until the server starts, so ``bull
serve --help`` works without the ``serve`` extra, and ``bull serve`` without it says
how to install it.
"""

from __future__ import annotations

import json
import os
from typing import Any

from solver.core.errors import BullError

__all__ = ["CONFIG_ENV", "EXAMPLES", "cli_serve", "factory", "keep_freed_memory"]

CONFIG_ENV = "BULL_SERVE_CONFIG"
"""The environment variable that hands the options to ``--workers`` processes."""

_H = "-H 'Content-Type: application/json'"
EXAMPLES = f"""\
endpoints (POST a JSON body; a batch answers with a JSON array of the CLI's --json
records, one record with that record; Accept: application/x-ndjson gives JSON Lines):
  curl -s localhost:8000/v1/niuniu/eval {_H} -d '{{"hands": ["KS 9H 8C 3D 7S", "AS 2S 3S 4S 6D"]}}'
  curl -s localhost:8000/v1/niuniu/compare {_H} -d '{{"player": "JS QS KS 5H 5D", "banker": "4C 7C 8D JD KH", "bet": "double"}}'
  curl -s localhost:8000/v1/niuniu/rank {_H} -d '{{"hands": ["KS 9H 8C 3D 7S", "JS QS KD 5H 5D"]}}'
  curl -s localhost:8000/v1/niuniu/round {_H} -d '{{"banker": "4C 7C 8D JD KH", "players": ["JS QS KS 5H 5D"]}}'
  curl -s localhost:8000/v1/pokdeng/advise {_H} -d '{{"hand": "7H 5D", "dealer_draws_at_most": 5}}'
  curl -s localhost:8000/v1/niuniu/grab {_H} -d '{{"hand": "AS 10H 3C 7D", "players": 3}}'
  curl -s localhost:8000/v1/niuniu/odds {_H} -d '{{"rules": "casino"}}'
  curl -s localhost:8000/v1/taungau/edge {_H} -d '{{"banker_reveals": "first"}}'
  curl -s localhost:8000/v1/pokdeng/strategy {_H} -d '{{"rules": "straights"}}'
  curl -s localhost:8000/v1/niuniu/rules
  curl -s localhost:8000/v1/niuniu/rules/casino
  curl -s localhost:8000/v1/pokdeng/rules {_H} -d '{{"rules": {{"base": "standard", "deng": {{"tong": 4}}}}}}'
  curl -s 'localhost:8000/v1/niuniu/deal?seed=42&hands=3&deal=1'
  curl -s localhost:8000/v1/niuniu/verify {_H} -d '{{"rows": [{{"hand": "KS 9H 8C 3D 7S", "points": 6}}]}}'
  curl -s localhost:8000/v1/niuniu/eval {_H} -d '{{"hands": ["KS 9H 8C 3D 7S"], "rules": {{"base": "classic", "commission": 0.03}}}}'
batches: hands, pairs ([player, banker]), deals (rank), rounds ([banker, player ...]),
rows (verify); up to --max-batch items. A rule set is a preset name or a rule file as a
JSON object in the body, never a path. /openapi.json: the schema; /: the web trainer."""


def _config(args: Any) -> dict[str, Any]:
    return {
        "tables": args.tables,
        "max_body": args.max_body,
        "max_batch": args.max_batch,
        "timeout": args.timeout,
        "read_timeout": args.read_timeout,
        "warm": True,
    }


def factory() -> Any:
    """The app for a server process, its options from :data:`CONFIG_ENV`."""
    from solver.serve.app import ServeConfig, create_app

    keep_freed_memory()
    return create_app(ServeConfig(**json.loads(os.environ.get(CONFIG_ENV, "{}"))))


def keep_freed_memory() -> bool:
    """Have glibc's allocator give buffers up to 32 MB from its heap and keep what is
    freed (up to 512 MB) instead of mapping each large buffer fresh from the system and
    returning it when freed: a 10,000-hand answer's few megabytes were page-faulted in
    anew for every copy (its array built in 9 ms, 0.7 ms so). Whether it was set (not
    on a system without glibc's ``mallopt``).

    The server's memory stays near its peak (a worker: about 450 MB answering batches).
    """
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt  # the C library the interpreter runs on
    except (OSError, AttributeError, TypeError):
        return False
    m_trim_threshold, m_mmap_threshold = -1, -3
    return bool(mallopt(m_mmap_threshold, 32 << 20)) and bool(mallopt(m_trim_threshold, 512 << 20))


def cli_serve(args: Any, out: Any) -> int:
    """Run the server until Ctrl-C."""
    try:
        import fastapi  # noqa: F401
        import uvicorn
    except ImportError:
        raise BullError(
            "bull serve needs the optional extra 'serve': pip install 'bull-solver[serve]'"
        ) from None
    from solver.store.tables import find_tables_dir

    if args.tables is not None:
        find_tables_dir(args.tables)  # a bad --tables is an error now, not per request
    os.environ[CONFIG_ENV] = json.dumps(_config(args))
    where = f"http://{'[' + args.host + ']' if ':' in args.host else args.host}:{args.port}/"
    from solver.serve.protocol import HEAD_TIMEOUT_ENV, HeadTimeout

    os.environ[HEAD_TIMEOUT_ENV] = str(args.read_timeout)

    options: dict[str, Any] = {
        "app": "solver.serve.command:factory",
        "factory": True,
        "http": HeadTimeout,
        "log_level": "warning",
        "access_log": args.access_log,
        "timeout_keep_alive": 5,
        "proxy_headers": False,  # no proxy in front: X-Forwarded-* is not read (nor parsed)
        "backlog": 2048,
    }
    from solver.serve.workers import port_free, reuse_port, serve_workers

    try:
        port_free(args.host, args.port)
    except OSError as exc:  # in use, or no such address: one line, not uvicorn's log
        raise BullError(f"cannot listen on {where}: {exc.strerror or exc}") from None
    out.write(f"bull serve: {where} (API under /v1/, the trainer at /; Ctrl-C ends)\n")
    out.flush()
    if args.workers > 1 and args.port and reuse_port():  # a socket each: spread evenly
        return serve_workers(args.host, args.port, args.workers, options)
    uvicorn.run(**options, host=args.host, port=args.port, workers=args.workers)
    return 0
