"""The ``bull`` command line. ``main(argv) -> int`` is testable without a subprocess.

Game-specific work lives in ``solver.<game>_play`` (functions ``cli_eval``,
``cli_eval_text``, ``cli_compare``, ``cli_compare_text``); this module only parses
arguments, reads input, prints text or JSON Lines, and turns every
:class:`~solver.core.errors.BullError` into one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from solver import games
from solver.cli_options import bounded as _bounded
from solver.cli_options import deck_list as _deck_list
from solver.cli_options import game_argument, game_options
from solver.cli_options import seconds as _seconds
from solver.commands import (
    cmd_advise,
    cmd_build,
    cmd_compare,
    cmd_drill,
    cmd_edge,
    cmd_eval,
    cmd_grab,
    cmd_odds,
    cmd_rank,
    cmd_round,
    cmd_rules,
    cmd_strategy,
    module_command,
)
from solver.core.errors import BullError
from solver.helptext import HELP, NOTATION

__all__ = ["main"]

GAMES = games.names()


class _ArgError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _ArgError(message)


def _helped(sub: Any, name: str, summary: str) -> _Parser:
    """A subcommand parser whose --help has a description, the notation and an example."""
    description, example = HELP[name]
    parser: _Parser = sub.add_parser(
        name,
        help=summary,
        description=description,
        epilog=f"{NOTATION}\n\nexample:\n  {example}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    return parser


def _parser() -> _Parser:
    p = _Parser(prog="bull", description="Exhaustive solver for Niu Niu, Tau Ngau and Pok Deng.")
    from solver import __version__

    p.add_argument("--version", action="version", version=f"bull {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    def common(sp: argparse.ArgumentParser, rules: bool = True) -> None:
        if rules:
            sp.add_argument(
                "--rules",
                metavar="NAME|FILE",
                help="preset name or rule file (default: the game's default preset)",
            )
        sp.add_argument(
            "--tables",
            metavar="DIR",
            help="tables directory (default: $BULL_TABLES, "
            "then the repository's tables/, then the user cache)",
        )
        sp.add_argument("--json", action="store_true", help="machine-readable JSON output")

    b = _helped(sub, "build", "build every table and print a summary")
    b.add_argument(
        "--game", action="append", choices=GAMES, help="build only this game (repeatable)"
    )
    common(b, rules=False)
    b.set_defaults(run=cmd_build)

    e = _helped(sub, "eval", "evaluate hands")
    game_argument(e, "eval")
    e.add_argument("hands", nargs="*", metavar="HAND", help="a hand, quoted (one argument a hand)")
    e.add_argument("--input", metavar="FILE", help="one hand per line ('-' = stdin)")
    common(e)
    game_options(e, "eval")
    e.set_defaults(run=cmd_eval)

    c = _helped(sub, "compare", "settle a player's hand against the banker/dealer")
    game_argument(c, "compare")
    c.add_argument("player", metavar="PLAYER", help="the player's hand, quoted")
    c.add_argument("other", metavar="BANKER", help="the banker's (Pok Deng: dealer's) hand")
    common(c)
    game_options(c, "compare")
    c.set_defaults(run=cmd_compare)

    def dealer_options(sp: argparse.ArgumentParser) -> None:  # pokdeng's two-sided game
        sp.add_argument(
            "--dealer",
            choices=("best-response", "equilibrium"),
            help="pokdeng: the dealer's best response to --player, or the exact equilibrium",
        )
        sp.add_argument(
            "--must-draw-at-most",
            type=_bounded(-1, 7),
            metavar="K",
            help="pokdeng --dealer: the house makes the dealer draw on K or less (-1: free)",
        )
        sp.add_argument(
            "--player",
            dest="player_strategy",
            metavar="mirror|optimal|FILE",
            help="pokdeng --dealer best-response: the player strategy answered (CSV HAND,ACTION)",
        )

    a = _helped(sub, "advise", "pokdeng: stand or draw, with both exact EVs")
    game_argument(a, "advise")
    a.add_argument("hand", metavar="HAND", help="the two-card start, quoted")
    common(a)
    game_options(a, "advise")
    dealer_options(a)
    a.add_argument(
        "--dealer-sees",
        type=_bounded(2, 3),
        metavar="N",
        help="pokdeng: the dealer's decision for HAND when the player shows N (2 or 3) cards",
    )
    a.set_defaults(run=cmd_advise)

    s = _helped(sub, "strategy", "pokdeng: the whole drawing strategy as a chart")
    game_argument(s, "strategy")
    s.add_argument("--png", metavar="FILE", help="also draw the chart as a PNG")
    common(s)
    game_options(s, "strategy")
    dealer_options(s)
    s.set_defaults(run=cmd_strategy)

    o = _helped(sub, "odds", "exact count and probability of every category/score/type")
    game_argument(o, "odds")
    common(o)
    o.set_defaults(run=cmd_odds)

    g = _helped(sub, "edge", "the player's exact expected value against the banker")
    game_argument(g, "edge")
    common(g)
    game_options(g, "edge")
    g.set_defaults(run=cmd_edge)

    from solver.risk_command import add_parser as add_risk
    from solver.risk_command import add_sim_tables

    add_risk(sub, _helped, common, lambda sp: game_options(sp, "risk"), _bounded)

    r = _helped(sub, "report", "write a research report with every exact figure")
    r.add_argument("--out", metavar="DIR", default="report", help="output directory")
    r.add_argument(
        "--rules",
        action="append",
        metavar="FILE",
        help="also report on this rule file (repeatable; its `game` key names the game)",
    )
    r.add_argument(
        "--shoe-decks",
        type=_deck_list,
        metavar="N,N,...",
        help="the shoe sizes the one-deck-to-shoe tables compare (default 1,2,...,8)",
    )
    add_sim_tables(r, _bounded)
    r.add_argument(
        "--players",
        type=_bounded(1, 16),
        metavar="N",
        help="the risk sections' tables seat 1 to N players (default: each game's full table)",
    )
    r.add_argument("--progress", action="store_true", help="progress on stderr, even piped")
    common(r, rules=False)
    r.set_defaults(run=module_command("solver.report", "cli_report"))

    v = _helped(sub, "verify", "check another implementation's claims against ours")
    game_argument(v, "verify")
    v.add_argument("file", metavar="FILE", help="claims: .csv, .jsonl/.ndjson or .parquet")
    v.add_argument(
        "--format",
        choices=("csv", "jsonl", "parquet"),
        help="file format (default: from the extension)",
    )
    v.add_argument("--out", metavar="FILE", help="write the disagreeing rows here")
    v.add_argument(
        "--column",
        action="append",
        default=[],
        metavar="FIELD=NAME",
        help="read FIELD from the column NAME (repeatable), e.g. hand=cards",
    )
    v.add_argument(
        "--batch-size",
        type=_bounded(1, 10_000_000),
        default=262_144,
        metavar="N",
        help="rows per streamed batch",
    )
    v.add_argument(
        "--infer",
        action="store_true",
        help="also infer the rule set the claims follow (searched over the rule options) "
        "and print it as a rule file",
    )
    v.add_argument(
        "--infer-out", metavar="FILE", help="write the inferred rule file here (implies --infer)"
    )
    common(v)
    game_options(v, "verify")
    v.set_defaults(run=module_command("solver.verify", "cli_verify"))

    pr = _helped(sub, "probe", "verify a running implementation: ask it, infer, confirm")
    game_argument(pr, "probe")
    pr.add_argument(
        "command", nargs="*", metavar="-- CMD [ARGS...]", help="the implementation (after --)"
    )
    pr.add_argument("--url", metavar="URL", help="an implementation served over HTTP (POST)")
    pr.add_argument(
        "--protocol", choices=("jsonl", "lines"), default="jsonl", help="default: jsonl"
    )
    pr.add_argument(
        "--fields", metavar="F,F,...", help="--protocol lines: the answer's CSV fields in order"
    )
    pr.add_argument(
        "--column",
        action="append",
        default=[],
        metavar="FIELD=NAME",
        help="the implementation calls FIELD NAME (repeatable), e.g. points=score",
    )
    pr.add_argument(
        "--budget",
        type=_bounded(1, 100_000_000),
        metavar="N",
        help="confirm on N seeded hands instead of every hand",
    )
    pr.add_argument("--exhaustive", action="store_true", help="confirm on every hand (default)")
    pr.add_argument("--seed", type=_bounded(0, 2**31), default=0, metavar="S", help="default 0")
    pr.add_argument(
        "--window",
        type=_bounded(1, 1_000_000),
        default=4096,
        metavar="N",
        help="questions in flight at most (default 4096)",
    )
    pr.add_argument(
        "--timeout-ms",
        type=_bounded(1, 3_600_000),
        default=5000,
        metavar="MS",
        help="no answer for this long is a hang (default 5000)",
    )
    pr.add_argument(
        "--restarts",
        type=_bounded(0, 1000),
        default=5,
        metavar="N",
        help="restart a crashed implementation at most N times (default 5)",
    )
    pr.add_argument("--out", metavar="FILE", help="write the disagreeing answers here")
    pr.add_argument("--infer-out", metavar="FILE", help="write the inferred rule file here")
    common(pr)
    game_options(pr, "probe")
    pr.set_defaults(run=module_command("solver.probe", "cli_probe"))

    t = _helped(sub, "vectors", "write conformance test vectors (Wycheproof-style JSON)")
    game_argument(t, "vectors")
    t.add_argument("--out", metavar="FILE", help="output file (default: stdout)")
    t.add_argument(
        "--format",
        choices=("json", "jsonl"),
        help="a Wycheproof-style JSON document or JSON Lines (default: jsonl for an --out "
        "name ending in .jsonl, else json)",
    )
    t.add_argument("--seed", type=int, default=20261129, help="seed of the random sample")
    t.add_argument(
        "--sample", type=int, default=200, metavar="N", help="size of the seeded random sample"
    )
    t.add_argument(
        "--banker-reveals",
        choices=("first", "last"),
        help="taungau macau: does the banker show first or last",
    )
    common(t)
    t.set_defaults(run=module_command("solver.vectors", "cli_vectors"))

    ru = sub.add_parser(
        "rules",
        help="print a rule set as a TOML rule file (every option, defaults filled in)",
        description="Print the effective rule set of GAME (a preset, or your rule file with "
        "every default filled in) as TOML, ready to edit and pass back as --rules FILE; "
        "--list lists the presets. Example: bull rules niuniu --rules casino",
    )
    game_argument(ru, "rules")
    ru.add_argument("--list", action="store_true", help="list the presets of GAME")
    ru.add_argument(  # issue 22
        "--expand",
        action="store_true",
        help="print the rule set in the full rule language: every category (Pok Deng: "
        "type) with its predicate, rank, tie chain and multipliers or deng (Tau Ngau: "
        "scores and payouts), what today's keys are sugar for",
    )
    common(ru)
    ru.set_defaults(run=cmd_rules)

    k = _helped(sub, "check-tables", "recompute digests and verify every table")
    common(k, rules=False)
    k.set_defaults(run=module_command("solver.store.integrity", "cli_check_tables"))
    _audit_parsers(sub, common)
    _table_parsers(sub, common)
    _serve_parser(sub)
    return p


def _audit_parsers(sub: Any, common: Callable[..., None]) -> None:
    """``bull audit`` and ``bull deal`` (their work: :mod:`solver.audit.command`)."""
    au = sub.add_parser(
        "audit",
        help="audit logged play: settlement and deal fairness (DuckDB or Spark)",
        description="Re-settle every logged round and test the dealt hands against the exact "
        "probabilities (G-test, power). LOGS: Parquet/CSV/JSON Lines files, folders or globs, "
        "one row per seat per round. Example: bull audit niuniu 'logs/*.parquet' --by table",
    )
    game_argument(au, "audit")
    au.add_argument(
        "logs", nargs="+", metavar="LOGS", help="Parquet, CSV or JSON Lines files, folders, globs"
    )
    au.add_argument(
        "--engine", choices=("duckdb", "spark"), default="duckdb",
        help="duckdb (embedded, the default) or spark (PySpark, local or a cluster)",
    )  # fmt: skip
    au.add_argument("--by", action="append", metavar="COLUMN", help="also test per group")
    au.add_argument("--out", metavar="DIR", help="write the Markdown report, tables, plots")
    au.add_argument("--format", choices=("parquet", "csv", "jsonl"), help="the logs' format")
    au.add_argument("--column", action="append", metavar="FIELD=NAME", help="rename a field")
    au.add_argument(
        "--round-key", metavar="COL[,COL]",
        help="the columns identifying a round across files, the last its id (default: the "
        "round id within each file; 'round': the id alone, rounds may span files)",
    )  # fmt: skip
    au.add_argument(
        "--power-bull-rate", type=float, default=0.85, metavar="P",
        help="the biased bull rate the power is computed for (default 0.85)",
    )  # fmt: skip
    au.add_argument(
        "--player-strategy", choices=("mirror", "optimal"),
        help="pokdeng: test the outcome assuming players draw so (mirror: on 4 or less)",
    )  # fmt: skip
    common(au)
    game_options(au, "audit")
    au.set_defaults(run=module_command("solver.audit.command", "run_audit"))
    de = sub.add_parser(
        "deal",
        help="write a seeded synthetic log of play, fair or rigged",
        description="Write synthetic logs for bull audit. Biases: bull_rate=P, banker_edge=P; "
        "errors=F plants settlement errors. Example: bull deal niuniu --rounds 10000 "
        "--bias bull_rate=0.85 --out log.parquet",
    )
    game_argument(de, "deal")
    de.add_argument(
        "--rounds", type=_bounded(1, 10**10), required=True, metavar="N",
        help="how many rounds to deal",
    )  # fmt: skip
    de.add_argument(
        "--players", type=_bounded(1, 16), default=4, metavar="K",
        help="players against the banker each round (default 4)",
    )  # fmt: skip
    de.add_argument(
        "--seed", type=int, default=0, help="the shuffle's seed: the same seed deals the same log"
    )
    de.add_argument(
        "--bias", action="append", metavar="NAME=P",
        help="rig the deal (repeatable): bull_rate=P, the share of dealt hands with a bull; "
        "banker_edge=P, the share of rounds whose strongest hand goes to the banker; "
        "errors=F, the share of player rows settled wrong (as --error-rules settles, else "
        "the winner flipped and the net negated)",
    )  # fmt: skip
    de.add_argument("--error-rules", metavar="NAME|FILE", help="planted errors settle so")
    de.add_argument(
        "--hand-format", choices=("text", "ids"), default="text",
        help="hands as text (default) or as lists of card or tile ids",
    )  # fmt: skip
    de.add_argument(
        "--player-strategy", choices=("mirror", "optimal"),
        help="pokdeng: how the players draw (default mirror: on 4 or less)",
    )  # fmt: skip
    de.add_argument("--out", required=True, metavar="FILE", help=".parquet, .csv or .jsonl")
    common(de)
    game_options(de, "deal")
    de.set_defaults(run=module_command("solver.audit.command", "run_deal"))


def _table_parsers(sub: Any, common: Callable[..., None]) -> None:
    """``bull rank`` and ``bull round`` (their work: each game's ``table`` room)."""
    rk = sub.add_parser(
        "rank",
        help="rank 2 or more hands from one deck, strongest first, with the reasons",
        description="Order the hands strongest first, each with its category or score and "
        "the rule that decides it against the next; every hand comes from one deck or tile "
        'set. Example: bull rank niuniu "KS 9H 8C 3D 7S" "JS QS KD 5H 5D" "KH 9S 8D 3C 7H"',
    )
    game_argument(rk, "rank")
    rk.add_argument("hands", nargs="*", metavar="HAND", help="2 or more hands, each quoted")
    common(rk)
    game_options(rk, "rank")
    rk.set_defaults(run=cmd_rank)
    ro = sub.add_parser(
        "round",
        help="settle every player against the banker/dealer from one deck",
        description="Settle each player against the banker (dealer) as the rules say: Tau "
        "Ngau with the decline decision, Pok Deng with the dealer's Pok settling all at once; "
        "each player's net and the banker's total. --input FILE: one round a line, "
        "BANKER | PLAYER | PLAYER ..., streamed. Example: bull round niuniu "
        '--banker "4C 7C 8D JD KH" --player "JS QS KS 5H 5D" --player "AS 2S 3S 4S 6D"',
    )
    game_argument(ro, "round")
    ro.add_argument("--banker", metavar="HAND", help="the banker's (dealer's) hand")
    ro.add_argument(
        "--player", dest="players", action="append", metavar="HAND", help="a player (repeatable)"
    )
    ro.add_argument("--input", metavar="FILE", help="one round per line ('-' = stdin)")
    common(ro)
    game_options(ro, "round")
    ro.set_defaults(run=cmd_round)
    gr = sub.add_parser(
        "grab",
        help="niuniu grab the banker: odds and best bid from four visible cards",
        description="Grab the banker (看牌抢庄): from four visible cards, the exact "
        "distribution of the final category over the 48 fifth cards, P(win) and EV as banker "
        "and as player (niu 7-9 x2, niu niu x3, five faces x5, 5% commission from whoever "
        'wins), the percentile and the best bid. Example: bull grab niuniu "AS 10H 3C 7D"',
    )
    game_argument(gr, "grab")
    gr.add_argument("hand", metavar="HAND", help="the four visible cards")
    gr.add_argument(
        "--players", type=_bounded(1, 9), metavar="N", help="players against the banker"
    )
    common(gr)
    gr.set_defaults(run=cmd_grab)
    dr = sub.add_parser(
        "drill",
        help="a terminal trainer: name each hand's bull and points, then the winner",
        description="Deal 2-4 hands from a seeded shuffle; name each hand's bull (its three "
        "cards or tiles, or 'no bull') and its points ('7', 'niu niu'; Pok Deng: the points "
        "only), then the winner's number. Every answer is checked against the tables and a "
        "wrong one explained by its arithmetic; an unreadable answer is asked again. A "
        "summary ends the drill (end of input, 'quit', Ctrl-C or --time-limit); --json "
        "writes one JSON line per deal, question and answer, and the summary last. "
        "Example: bull drill niuniu --hands 3",
    )
    game_argument(dr, "drill")
    dr.add_argument("--hands", type=_bounded(2, 4), default=2, metavar="N", help="2 to 4")
    dr.add_argument("--seed", type=int, help="the shuffle's seed (default: random, printed)")
    dr.add_argument("--time-limit", type=_seconds, metavar="SECONDS", help="end after this long")
    common(dr)
    dr.set_defaults(run=cmd_drill)


def _serve_parser(sub: Any) -> None:
    """``bull serve`` (its work: :mod:`solver.serve.command`; FastAPI is imported only
    when the server starts)."""
    from solver.serve.command import EXAMPLES

    sv = sub.add_parser(
        "serve",
        help="the reference over HTTP (JSON API) and the web trainer",
        description="Serve the CLI's JSON records over HTTP under /v1/{game}/ (eval, "
        "compare, rank, round, advise, grab, odds, edge, strategy, rules, verify), the "
        "OpenAPI document at /openapi.json and the web trainer and lookup at /. Needs the "
        "optional extra: pip install 'bull-solver[serve]'.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sv.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1)")
    sv.add_argument("--port", type=_bounded(0, 65535), default=8000, help="default 8000")
    sv.add_argument("--tables", metavar="DIR", help="tables directory (as for every command)")
    sv.add_argument(
        "--workers", type=_bounded(1, 64), default=1, metavar="N", help="server processes"
    )
    sv.add_argument(
        "--max-body", type=_bounded(1024, 1 << 30), default=1 << 20, metavar="BYTES",
        help="largest request body accepted (default 1 MB; larger: 413)",
    )  # fmt: skip
    sv.add_argument(
        "--max-batch", type=_bounded(1, 1_000_000), default=10_000, metavar="N",
        help="hands (pairs, rounds, rows) per request (default 10,000)",
    )  # fmt: skip
    sv.add_argument(
        "--timeout", type=_bounded(1, 3600), default=60, metavar="SECONDS",
        help="longest an answer may compute (default 60; longer: 503)",
    )  # fmt: skip
    sv.add_argument(
        "--read-timeout", type=_bounded(1, 600), default=10, metavar="SECONDS",
        help="longest a client may take to send its request head or body (default 10; 408)",
    )  # fmt: skip
    sv.add_argument("--access-log", action="store_true", help="log every request")
    sv.set_defaults(run=module_command("solver.serve.command", "cli_serve"))


@functools.cache
def _shared_parser() -> _Parser:
    """The parser, built once per process (~10 ms; a process calling :func:`main` many
    times, as a test worker does, built it once a call)."""
    return _parser()


def main(argv: Sequence[str] | None = None, out: Any = None, err: Any = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 1 disagreement found, 2 bad input)."""
    out = out or sys.stdout
    err = err or sys.stderr
    for stream in {out, err} & {sys.stdout, sys.stderr}:
        # a file name that is not UTF-8 (surrogate escapes) is written back as its bytes
        with contextlib.suppress(AttributeError, ValueError):
            stream.reconfigure(errors="surrogateescape")
    parser = _shared_parser()
    try:
        words = list(sys.argv[1:] if argv is None else argv)
        tail = None  # `bull probe GAME [OPTIONS] -- CMD [ARGS...]`: the command as given
        if "--" in words and "probe" in words[: words.index("--")]:
            words, tail = words[: words.index("--")], words[words.index("--") + 1 :]
        args = parser.parse_args(words)
        for name, value in vars(args).items():  # a list default is the parser's own: copied
            if isinstance(value, list):
                setattr(args, name, list(value))
        if tail is not None:
            args.command = tail
    except _ArgError as exc:
        err.write(f"bull: error: {exc}\n")
        return 2
    except SystemExit as exc:  # --help / --version
        return int(exc.code or 0)
    args.err = err  # module commands write notes (not results) here
    from solver.store.custom import NOTICES

    token = NOTICES.set(lambda s: err.write(s + "\n"))  # "building ..." notes go to err too
    try:
        from solver.outputs import check_outputs

        check_outputs(args)  # no output overwrites an input, before anything is written
        code: int = args.run(args, out)
        return code
    except BullError as exc:
        msg = " ".join(str(exc).split("\n"))
        err.write(f"bull: error: {msg}\n")
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        err.write("bull: interrupted\n")
        return 130
    except OSError as exc:  # the output could not be written (a full disk, /dev/full)
        with contextlib.suppress(OSError):
            where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
            err.write(f"bull: error: cannot write the output: {where}{exc.strerror or exc}\n")
        return 2
    finally:
        NOTICES.reset(token)


def entry() -> None:
    """Console-script entry point."""
    sys.exit(main())
