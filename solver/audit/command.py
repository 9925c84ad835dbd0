"""``bull audit`` and ``bull deal``: options in, a summary (JSON object and text) out.

:func:`cli_audit` runs an audit and returns the ``--json`` object: ``rounds``, ``rows``,
``settlement_check`` (shaped like ``bull verify``'s summary, with ``disagree`` and
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
import os
import time
from collections.abc import Mapping, Sequence
from typing import Any

from solver import games
from solver.audit.batch import Partial
from solver.audit.fairness import ALPHA, noncentrality_ahead
from solver.audit.findings import (
    DEFAULT_BULL_RATE,
    fairness_tests,
    flagged,
    list_groups,
    not_run,
)
from solver.audit.hold import hold_ahead, hold_checks
from solver.audit.logs import (
    check_logs,
    engine_view,
    find_logs,
    map_log_columns,
    parse_columns,
    parse_round_key,
    scope_columns,
)
from solver.audit.partial import MAX_GROUPS, TooManyGroups
from solver.audit.settle import settlement_summary
from solver.audit.spec import load_spec
from solver.core.errors import BullError

__all__ = ["audit_exit", "audit_text", "cli_audit", "cli_deal", "run_audit", "run_deal"]

ENGINES = ("duckdb", "spark")
MAX_FLAGS_LISTED = 100
"""The most flags (and tests without enough rounds) listed; all are counted."""


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
    heads = check_logs(files, fmt)
    if out and os.path.lexists(out) and not os.path.isdir(out):
        raise BullError(f"--out {out}: not a folder (the audit report is a folder of files)")
    spec = load_spec(game, rules, opts, tables)
    per_file = not key and len(files) > 1
    started = time.perf_counter()
    try:
        with engine_view(files, heads, fmt, engine) as view:
            part, mapping, scope = _run_engine(
                engine, spec, view, fmt, explicit, by, key, rules=rules, options=opts,
                tables=tables, threads=threads, per_file=per_file,
            )  # fmt: skip
        seconds = time.perf_counter() - started
        part, raw = Partial(), part
        part.merge(raw)  # examples in one order whatever the engine
    except TooManyGroups:
        raise BullError(
            f"--by {', '.join(by)}: more than {MAX_GROUPS:,} groups; --by groups rounds by a "
            "column with fewer values (a table, a day, a dealer)"
        ) from None
    hint = shoe_hint(game, spec, part.most_copies)
    if part.rows == 0:
        raise BullError(f"{files[0]}: no rows to audit")
    if part.rounds == 0:
        first = part.malformed_rows[0] if part.malformed_rows else None
        first = first or (part.impossible_rows[0] if part.impossible_rows else None)
        where = f" (first: round {first[0]}: {first[1]})" if first else ""
        tail = f"; {hint}" if hint else ""
        raise BullError(f"{files[0]}: no complete round to audit{where}{tail}")
    tests = fairness_tests(part, spec, bull_rate)
    holds, hold_method = hold_checks(part, spec)
    smallest: dict[str, float] = {}
    flag_groups: set[str] = set()
    for t in tests:
        smallest[t.group] = min(smallest.get(t.group, 1.0), t.p_value)
        if t.status == "flagged":
            flag_groups.add(t.group)
    for h in holds:
        smallest[h.group] = min(smallest.get(h.group, 1.0), h.p_value)
        if h.flagged:
            flag_groups.add(h.group)
    listing = list_groups([k for k in part.groups if k], smallest, flag_groups)
    shown = [t for t in tests if listing.keeps(t.group)]
    problems = [f"{t.name} [{t.group}]" for t in flagged(tests)]
    problems += [f"hold [{h.group}]" for h in holds if h.flagged]
    thin = [
        {"name": t.name, "group": t.group, "rounds": t.rounds, "needs": t.power_rounds,
         "bias": t.bias}
        for t in shown if t.status == "not enough rounds"
    ] + [
        {"name": "hold", "group": h.group, "rounds": h.rounds, "needs": h.power_rounds,
         "bias": hold_method["power_bias"]}
        for h in holds if listing.keeps(h.group) and h.status == "not enough rounds"
    ]  # fmt: skip
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
        "settlement_check": settlement,
        "impossible": part.impossible,
        "impossible_rounds": [{"round": r, "reason": m} for r, m in part.impossible_rows],
        "malformed": part.malformed,
        "malformed_rows": [{"round": r, "message": m} for r, m in part.malformed_rows],
        "deck_hint": hint,
        "fairness": [t.to_json() for t in shown],
        "hold": [h.to_json() for h in holds if listing.keeps(h.group)],
        "hold_method": hold_method,
        "groups_not_listed": listing.summary,
        "not_run": not_run(spec),
        "not_enough_rounds": thin[:MAX_FLAGS_LISTED],
        "not_enough_rounds_count": len(thin),
        "decks": spec.decks,
        "flagged": problems[:MAX_FLAGS_LISTED],
        "flagged_count": len(problems),
        "alpha": ALPHA,
    }
    if out:
        from solver.audit.report import write_report

        try:
            result["report"] = write_report(out, result, part, spec)
        except OSError as exc:
            where = exc.filename or out
            raise BullError(f"--out {out}: cannot write {where}: {exc.strerror or exc}") from None
    return result


def _run_engine(
    engine: str,
    spec: Any,
    files: Sequence[str],
    fmt: str,
    explicit: Mapping[str, str],
    by: Sequence[str],
    key: Sequence[str],
    *,
    rules: str | None,
    options: Mapping[str, Any],
    tables: str | None,
    threads: int | None,
    per_file: bool,
) -> tuple[Partial, dict[str, str], list[str]]:
    """The audit's partial on ``engine``, the logs' column map and scope columns."""
    if engine == "duckdb":
        from solver.audit.duckdb_engine import column_types, run_duckdb
        from solver.audit.ranges import parquet_types

        types = (parquet_types(files) if fmt == "parquet" else None) or column_types(files, fmt)
        names = list(types)
        mapping = map_log_columns(names, explicit, by)
        scope = scope_columns(names, key)
        part = run_duckdb(
            spec, files, fmt, mapping, by, threads=threads, per_file=per_file, scope=scope,
            types=types, meanwhile=lambda: _ahead(spec),
        )  # fmt: skip
        return part, mapping, scope
    from solver.audit.spark_engine import run_spark, spark_columns

    names = spark_columns(files, fmt)
    mapping = map_log_columns(names, explicit, by)
    scope = scope_columns(names, key)
    part = run_spark(
        spec, files, fmt, mapping, by, rules=rules, options=options, tables=tables,
        per_file=per_file, scope=scope,
    )  # fmt: skip
    return part, mapping, scope


def _ahead(spec: Any) -> None:
    """The statistics' work that needs the rule set alone, done while the DuckDB
    engine's workers read the logs (see :func:`~solver.audit.duckdb_engine.run_duckdb`):
    the hold check's covariance, and the power searches of the tests' likely degrees of
    freedom (kept on disk, and for this process)."""
    hold_ahead(spec)
    dfs = {1, 2, len(spec.labels) - 1, len(spec.unit_names) - 1, len(spec.net or ()) - 1}
    noncentrality_ahead(sorted(dfs), spec.hooks.get("tables"))  # (read back from disk)


def shoe_hint(game: str, spec: Any, most: int) -> str:
    """When the logs deal more copies of a card in one round than the rules' deck has:
    what to try (a preset of the game whose shoe holds that many; else a rule file)."""
    have = int(spec.copies.max()) if len(spec.copies) else 1
    if most <= have:
        return ""
    entry = games.get(game)
    fits = []
    for name in entry.presets():
        try:
            decks = int(getattr(entry.load_rules(name), "decks", 1) or 1)
        except BullError:
            continue
        if decks >= most:
            fits.append((decks, name))
    what = "card" if spec.kind != "tile" else "tile"
    msg = (
        f"the logs deal up to {most} copies of a {what} in one round and the rules "
        f"({spec.rules}) have {have}: were they dealt from a shoe?"
    )
    if fits:
        return msg + " audit with --rules " + " or --rules ".join(n for _, n in sorted(fits))
    return msg + f" audit with a rule file of decks = {most} or more"


def audit_exit(res: Mapping[str, Any]) -> int:
    bad = res["settlement_check"]["disagree"] or res["impossible"] or res["malformed"]
    bad = bad or res.get("flagged_count", len(res["flagged"]))
    return 1 if bad else 0


MARKS = {"flagged": "FLAG", "ok": "ok  ", "not enough rounds": "low "}


def audit_text(res: Mapping[str, Any]) -> str:
    """The plain-text summary of an audit."""
    s = res["settlement_check"]
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
    if res.get("deck_hint"):
        lines.append(f"  hint: {res['deck_hint']}")
    if res["malformed"]:
        lines.append(f"malformed rows or rounds: {res['malformed']:,}")
        for r in res["malformed_rows"][:5]:
            lines.append(f"  round {r['round']}: {r['message']}")
    lines.append(
        "deal fairness (G-test; p < 1e-6 flags; power: rounds to detect the bias; "
        "low: not enough rounds to see it):"
    )
    for t in res["fairness"]:
        status = t.get("status", "flagged" if t["p_value"] < res["alpha"] else "ok")
        head = (
            f"  {MARKS[status]} {t['name']:<16} {t['group']:<14} G {t['statistic']:>12.2f} "
            f"df {t['df']:>3} p {t['p_value']:.3g}  "
        )
        if status == "not enough rounds":
            lines.append(head + f"not enough rounds (needs {t['power_rounds']:,}) to see: "
                         f"{t['bias']}")  # fmt: skip
        else:
            pw = f"{t['power_rounds']:,}" if t["power_rounds"] else "-"
            lines.append(head + f"power {pw} rounds ({t['bias']})")
        if status == "flagged" and t["deviations"]:
            d = t["deviations"][0]
            lines.append(
                f"       largest deviation {d['label']}: observed {d['observed']:,}, "
                f"expected {d['expected']:,.1f}"
            )
    lines += _hold_lines(res)
    summary = res.get("groups_not_listed")
    if summary:
        lines.append(
            f"  {summary['not_listed']:,} more groups not listed ({summary['note']}): "
            f"{summary['flagged_not_listed']:,} of them flagged, smallest p "
            f"{summary['smallest_p_not_listed']:.3g}"
        )
    for nr in res.get("not_run", []):
        lines.append(f"  not run: {nr['name']}: {nr['reason']}")
    verdict = "clean" if audit_exit(res) == 0 else "problems found"
    thin = res.get("not_enough_rounds", [])
    if thin:
        named = ", ".join(f"{x['name']} [{x['group']}] (needs {x['needs']:,})" for x in thin[:4])
        more = res.get("not_enough_rounds_count", len(thin)) - min(4, len(thin))
        verdict += f"; not enough rounds to test: {named}" + (f" and {more:,} more" if more else "")
    lines.append("result: " + verdict)
    return "\n".join(lines)


def _hold_lines(res: Mapping[str, Any]) -> list[str]:
    holds, m = res.get("hold") or [], res.get("hold_method") or {}
    if not holds:
        return []
    lines = [
        f"hold: the players' total net against its expected total ({m['band_percent']:g} % band, "
        f"{m['correction']}; {m['covariance_note']}):"
    ]
    for h in holds:
        lo, hi = h["band"]
        head = (
            f"  {MARKS[h['status']]} hold             {h['group']:<14} rounds {h['rounds']:,} "
            f"observed {h['observed']:+,.2f} expected {h['expected']:+,.2f} "
            f"(band {lo:+,.2f} .. {hi:+,.2f}) z {h['z']:+.2f} p {h['p_value']:.3g}"
        )
        if h["status"] == "not enough rounds":
            head += f"  not enough rounds (needs {h['power_rounds']:,}) to see: {m['power_bias']}"
        lines.append(head)
    return lines


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
