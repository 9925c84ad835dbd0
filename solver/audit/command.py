"""``bull audit`` and ``bull deal``: options in, a summary (JSON object and text) out.

:func:`cli_audit` runs an audit and returns the ``--json`` object: ``rounds``, ``rows``,
``settlement`` (shaped like ``bull verify``'s summary, with ``disagree`` and
``diagnosis``), ``impossible`` (a count, with ``impossible_rounds`` listed),
``malformed`` and ``fairness`` — a list of tests, each with ``name``, ``group``,
``statistic`` (the G statistic), ``df``, ``p_value``, ``power_rounds`` and more — and
``not_run``, the tests left out with the reason (Pok Deng's outcome and net without
``--player-strategy``: the drawing decides them).
:func:`audit_text` prints it. Exit code (:func:`audit_exit`): 0 clean, 1 a settlement
disagreement, an impossible deal, a malformed row or a test at ``p < 1e-6``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

from solver import games
from solver.audit.batch import Partial
from solver.audit.fairness import ALPHA
from solver.audit.findings import DEFAULT_BULL_RATE, fairness_tests, flagged, not_run
from solver.audit.logs import (
    find_logs,
    map_log_columns,
    parse_columns,
    parse_round_key,
    scope_columns,
)
from solver.audit.settle import settlement_summary
from solver.audit.spec import load_spec
from solver.core.errors import BullError

__all__ = ["audit_exit", "audit_text", "cli_audit", "cli_deal", "run_audit", "run_deal"]

ENGINES = ("duckdb", "spark")


def cli_audit(
    game: str,
    logs: Sequence[str],
    *,
    rules: str | None = None,
    engine: str = "duckdb",
    by: Sequence[str] = (),
    out: str | None = None,
    fmt: str | None = None,
    columns: Sequence[str] = (),
    options: Mapping[str, Any] | None = None,
    tables: str | None = None,
    bull_rate: float = DEFAULT_BULL_RATE,
    threads: int | None = None,
    round_key: Sequence[str] = (),
) -> dict[str, Any]:
    """Audit ``logs`` of ``game``; see the module docstring. A round is identified per
    file (logs of many tables and days each number their rounds from 1), or by
    ``round_key``: the columns that together identify it across files (the last one the
    round id, e.g. ``["table", "day", "round"]``; ``["round"]``: the id alone)."""
    if engine not in ENGINES:
        raise BullError(f"--engine {engine!r}: expected one of {', '.join(ENGINES)}")
    if not 0 < bull_rate < 1:
        raise BullError(f"--power-bull-rate {bull_rate:g}: expected a probability in (0, 1)")
    entry = games.get(game)
    opts = entry.accept(dict(options or {}))
    explicit = parse_columns(columns)
    key = parse_round_key(round_key)
    if key and "round" in explicit:
        raise BullError("--round-key and --column round=... both name the round: give one")
    if key:
        explicit["round"] = key[-1]
    files, fmt = find_logs(logs, fmt)
    spec = load_spec(game, rules, opts, tables)
    per_file = not key and len(files) > 1
    started = time.perf_counter()
    if engine == "duckdb":
        from solver.audit.duckdb_engine import columns_of, run_duckdb

        names = columns_of(files, fmt)
        mapping = map_log_columns(names, explicit, by)
        scope = scope_columns(names, key)
        part = run_duckdb(
            spec, files, fmt, mapping, by, threads=threads, per_file=per_file, scope=scope
        )
    else:
        from solver.audit.spark_engine import run_spark, spark_columns

        names = spark_columns(files, fmt)
        mapping = map_log_columns(names, explicit, by)
        scope = scope_columns(names, key)
        part = run_spark(
            spec, files, fmt, mapping, by, rules=rules, options=opts, tables=tables,
            per_file=per_file, scope=scope,
        )  # fmt: skip
    seconds = time.perf_counter() - started
    part, raw = Partial(), part
    part.merge(raw)  # examples in one order whatever the engine
    if part.rows == 0:
        raise BullError(f"{files[0]}: no rows to audit")
    if part.rounds == 0:
        first = part.malformed_rows[0] if part.malformed_rows else None
        where = f" (first: round {first[0]}: {first[1]})" if first else ""
        raise BullError(f"{files[0]}: no complete round to audit{where}")
    tests = fairness_tests(part, spec, bull_rate)
    settlement = settlement_summary(part, game, rules, opts, tables)
    result: dict[str, Any] = {
        "game": game,
        "rules": spec.rules,
        "engine": engine,
        "files": len(files),
        "round_key": ["file"] * per_file + [*scope, mapping["round"]],
        "rounds": part.rounds,
        "rows": part.rows,
        "seconds": round(seconds, 3),
        "settlement": settlement,
        "impossible": part.impossible,
        "impossible_rounds": [{"round": r, "reason": m} for r, m in part.impossible_rows],
        "malformed": part.malformed,
        "malformed_rows": [{"round": r, "message": m} for r, m in part.malformed_rows],
        "fairness": [t.to_json() for t in tests],
        "not_run": not_run(spec),
        "decks": spec.decks,
        "flagged": [f"{t.name} [{t.group}]" for t in flagged(tests)],
        "alpha": ALPHA,
    }
    if out:
        from solver.audit.report import write_report

        result["report"] = write_report(out, result, part, spec)
    return result


def audit_exit(res: Mapping[str, Any]) -> int:
    bad = res["settlement"]["disagree"] or res["impossible"] or res["malformed"] or res["flagged"]
    return 1 if bad else 0


def audit_text(res: Mapping[str, Any]) -> str:
    """The plain-text summary of an audit."""
    s = res["settlement"]
    lines = [
        f"audit {res['game']} [{res['rules']}] on {res['engine']}: {res['rows']:,} rows, "
        f"{res['rounds']:,} rounds from {res['files']} file(s) in {res['seconds']:.1f} s",
        f"settlement: checked {s['checked']:,}, agree {s['agree']:,}, disagree {s['disagree']:,}",
    ]
    if s["disagree"]:
        lines.append("  diagnosis: " + s["headline"])
        for ex in s["examples"][:5]:
            lines.append(
                f"  round {ex.get('round')}, seat {ex.get('seat')}: {ex.get('reason', '')}"
            )
    lines.append(f"impossible deals: {res['impossible']:,}")
    for r in res["impossible_rounds"][:5]:
        lines.append(f"  round {r['round']}: {r['reason']}")
    if res["malformed"]:
        lines.append(f"malformed rows or rounds: {res['malformed']:,}")
        for r in res["malformed_rows"][:5]:
            lines.append(f"  round {r['round']}: {r['message']}")
    lines.append("deal fairness (G-test; p < 1e-6 flags; power: rounds to detect the bias):")
    for t in res["fairness"]:
        mark = "FLAG" if t["p_value"] < res["alpha"] else "ok  "
        pw = f"{t['power_rounds']:,}" if t["power_rounds"] else "-"
        lines.append(
            f"  {mark} {t['name']:<16} {t['group']:<14} G {t['statistic']:>12.2f} df {t['df']:>3} "
            f"p {t['p_value']:.3g}  power {pw} rounds ({t['bias']})"
        )
        if t["p_value"] < res["alpha"] and t["deviations"]:
            d = t["deviations"][0]
            lines.append(
                f"       largest deviation {d['label']}: observed {d['observed']:,}, "
                f"expected {d['expected']:,.1f}"
            )
    for nr in res.get("not_run", []):
        lines.append(f"  not run: {nr['name']}: {nr['reason']}")
    lines.append("result: " + ("clean" if audit_exit(res) == 0 else "problems found"))
    return "\n".join(lines)


def run_audit(args: Any, out: Any) -> int:
    """The ``bull audit`` subcommand."""
    res = cli_audit(
        args.game,
        args.logs,
        rules=args.rules,
        engine=args.engine,
        by=args.by or (),
        out=args.out,
        fmt=args.format,
        columns=args.column or (),
        options={k: getattr(args, k, None) for k in games.OPTION_KEYS},
        tables=args.tables,
        bull_rate=args.power_bull_rate,
        round_key=[args.round_key] if getattr(args, "round_key", None) else (),
    )
    out.write((json.dumps(res) if args.json else audit_text(res)) + "\n")
    return audit_exit(res)


def cli_deal(
    game: str,
    rounds: int,
    out: str,
    *,
    players: int = 4,
    seed: int = 0,
    bias: Sequence[str] = (),
    rules: str | None = None,
    options: Mapping[str, Any] | None = None,
    tables: str | None = None,
    error_rules: str | None = None,
    hand_format: str = "text",
) -> dict[str, Any]:
    """Write a synthetic log (see :mod:`solver.audit.deal`); its summary as JSON."""
    from solver.audit.deal import deal, parse_biases

    opts = games.get(game).accept(dict(options or {}))
    s = deal(
        game, rounds, players=players, seed=seed, bias=parse_biases(bias), out=out,
        rules=rules, options=opts, tables=tables, error_rules=error_rules,
        hand_format=hand_format,
    )  # fmt: skip
    return s.to_json() | {"text": s.text()}


def run_deal(args: Any, out: Any) -> int:
    """The ``bull deal`` subcommand."""
    res = cli_deal(
        args.game,
        args.rounds,
        args.out,
        players=args.players,
        seed=args.seed,
        bias=args.bias or (),
        rules=args.rules,
        options={k: getattr(args, k, None) for k in games.OPTION_KEYS},
        tables=args.tables,
        error_rules=args.error_rules,
        hand_format=args.hand_format,
    )
    text = res.pop("text")
    out.write((json.dumps(res) if args.json else text) + "\n")
    return 0
