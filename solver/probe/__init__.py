"""``bull probe``: verify a running implementation directly — ask it questions, infer
its rules, confirm on every hand.

``bull probe GAME -- CMD [ARGS...]`` starts the implementation as a child process and
talks to it over a line protocol on its stdin/stdout (:mod:`solver.probe.peer`):

- **JSON Lines** (default): one request object per line, ``{"id": 17, "hand":
  ["KS","9H","8C","3D","7S"]}`` or a showdown ``{"id": 18, "player": [...], "banker":
  [...]}``; one answer object per line with the same ``id`` and any of the fields
  ``bull verify`` reads (``has_bull``, ``points``, ``category``, ``bull``, ``winner``,
  ``net``, ``deng``, ``values``...). Answers may come out of order.
- **Plain lines** (``--protocol lines``): the hand as text on one line (a showdown as
  ``PLAYER | BANKER``), the answer as one CSV line of the ``--fields`` in that order.
- **HTTP** (``--url``): the same JSON objects POSTed in batches, an array in, an array
  out.

The phases (:mod:`solver.probe.run`): cover, discriminate, substantiate, infer,
confirm. The report is ``bull verify``'s (same JSON keys) over every answer, plus
``queries``, ``phases``,
``crashes``, ``timeouts``, ``faults``, ``inferred``, ``confirm`` and ``coverage``.
Exit codes: 0 every answer agrees and the peer never failed, 1 a disagreement or a
fault of the peer (the report covers what was answered), 2 bad input.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from solver import games
from solver.core.errors import BullError
from solver.probe.faults import Faults
from solver.probe.http import HttpPeer
from solver.probe.peer import ChildPeer, Peer
from solver.probe.run import Prober, ProbeReport, ShowdownPlan

__all__ = ["Faults", "ProbeReport", "cli_probe", "probe"]

_SHOWDOWN_FIELDS = frozenset({"winner", "net"})


def _fields(text: str | None, game: str) -> list[str]:
    """``--fields``: the claim fields of a plain-lines answer, in order."""
    if not text:
        raise BullError("--protocol lines needs --fields, e.g. --fields has_bull,points")
    fields = [f.strip() for f in text.split(",") if f.strip()]
    checker_fields = games.get(game).checker(None, {}, None).fields
    known = {*checker_fields["hand"], *checker_fields["showdown"], "type"}
    for f in fields:
        if f not in known:
            raise BullError(
                f"--fields: unknown field {f!r} for {game} (expected any of: "
                f"{', '.join(sorted(known))})"
            )
    if _SHOWDOWN_FIELDS & set(fields) and set(fields) - _SHOWDOWN_FIELDS:
        raise BullError("--fields: either hand fields or showdown fields (winner, net), not both")
    return fields


def probe(
    game: str,
    command: Sequence[str] | None = None,
    *,
    url: str | None = None,
    protocol: str = "jsonl",
    fields: str | None = None,
    rules: Any = None,
    options: Mapping[str, Any] | None = None,
    tables: str | None = None,
    columns: Mapping[str, str] | None = None,
    budget: int | None = None,
    seed: int = 0,
    window: int = 4096,
    timeout_ms: int = 5000,
    restarts: int = 5,
    out: str | None = None,
    progress: Any = None,
) -> ProbeReport:
    """Probe an implementation (a command, or a service at ``url``); see the module
    docstring."""
    games.get(game)
    if (command is None or not list(command)) == (url is None):
        both = " (not both)" if url is not None else ""
        raise BullError(
            f"bull probe: give the implementation as `-- CMD [ARGS...]` or --url URL{both}"
        )
    if protocol not in ("jsonl", "lines"):
        raise BullError(f"--protocol {protocol!r}: expected jsonl or lines")
    if budget is not None and budget < 1:
        raise BullError(f"--budget {budget}: expected a positive number of questions")
    if timeout_ms < 1:
        raise BullError(f"--timeout-ms {timeout_ms}: expected a positive number")
    shows = ShowdownPlan()
    names: list[str] = []
    if protocol == "lines":
        names = _fields(fields, game)
        showdown = bool(_SHOWDOWN_FIELDS & set(names))
        shows = ShowdownPlan(hands=not showdown, showdowns=showdown)
    peer: Peer
    if url is not None:
        if protocol != "jsonl":
            raise BullError("--url speaks JSON (arrays of the JSON Lines objects)")
        peer = HttpPeer(url, batch=min(window, 4096), timeout_ms=timeout_ms)
        target = url
    else:
        cmd = list(command or [])
        peer = ChildPeer(cmd, protocol, window, timeout_ms, restarts)
        target = shlex.join(cmd)
    prober = Prober(
        game,
        peer,
        target=target,
        rules=rules,
        options=options,
        tables=tables,
        columns=columns,
        budget=budget,
        seed=seed,
        out=out,
        shows=shows,
        progress=progress,
    )
    prober._fields = names
    try:
        return prober.run()
    finally:
        prober.close()


def _cli_run(args: Any, command: list[str]) -> ProbeReport:
    """``bull probe``'s run from its parsed arguments."""
    from solver.core.status import StatusLine
    from solver.kit.read import parse_column_options

    game = games.get(args.game)
    options = game.accept({k: getattr(args, k, None) for k in games.OPTION_KEYS})
    with StatusLine(getattr(args, "err", None)) as status:
        return probe(
            args.game,
            command or None,
            url=args.url,
            protocol=args.protocol,
            fields=args.fields,
            rules=args.rules,
            options=options,
            tables=args.tables,
            columns=parse_column_options(args.column or []),
            budget=None if args.exhaustive else args.budget,
            seed=args.seed,
            window=args.window,
            timeout_ms=args.timeout_ms,
            restarts=args.restarts,
            out=args.out,
            progress=status.show if status.live else None,
        )


def cli_probe(args: Any, out: Any) -> int:
    """The ``bull probe`` subcommand. Ctrl-C at any point prints the partial report
    (empty before the first answer) and exits 1."""
    command = list(args.command or [])
    if command and command[0] == "--":
        command = command[1:]
    try:
        report = _cli_run(args, command)
    except KeyboardInterrupt:  # before the probe could take it: nothing answered yet
        target = args.url if args.url is not None else shlex.join(command)
        report = ProbeReport(None, target, 0, 0, [], Faults(interrupted=True))
    inferred = report.inferred
    if inferred is not None and args.infer_out:
        from solver.kit.findings import AtomicFile

        with AtomicFile(args.infer_out) as f:
            f.write(inferred.rule_file)
    if args.json:
        out.write(json.dumps(report.to_json(), ensure_ascii=False) + "\n")
    else:
        out.write(report.text() + "\n")
        if inferred is not None and inferred.steps:
            if args.infer_out:
                out.write(f"rule file written to {args.infer_out}\n")
            else:
                out.write(inferred.rule_file)
    return report.exit_code
