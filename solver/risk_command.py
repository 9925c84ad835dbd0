"""``bull risk GAME --players N [--rounds T] [--reserve R]``: the banker at a full table.

The parser (:func:`add_parser`, called by :mod:`solver.cli`) and the command
(:func:`cmd_risk`). The figures come from the game's room ``risk``
(``Game.risk``), the arithmetic from :mod:`solver.kit.banker`. The first run for a rule
set simulates its tables once (progress on stderr when it is a terminal, or with
``--progress``); later runs answer from the cache.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from solver import games
from solver.core.status import StatusLine

__all__ = ["DEFAULT_ROUNDS", "SIM_TABLES_HELP", "add_parser", "add_sim_tables", "cmd_risk"]

DEFAULT_ROUNDS = 1000
"""``--rounds`` when not given: the bands (and ruin) after this many rounds."""


def _reserve(text: str) -> Fraction:
    """``--reserve``: a finite amount of stakes, 0 or more."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an amount of stakes") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a finite amount >= 0, e.g. 50")
    return Fraction(repr(value))


def add_parser(
    sub: Any,
    helped: Callable[[Any, str, str], argparse.ArgumentParser],
    common: Callable[[argparse.ArgumentParser], None],
    game_options: Callable[[argparse.ArgumentParser], None],
    bounded: Callable[[int, int], Callable[[str], int]],
) -> None:
    """Add ``bull risk`` to the CLI's subcommands (the CLI's own helpers passed in)."""
    k = helped(sub, "risk", "the banker's risk at a full table: SD, reserve, bands, ruin")
    k.add_argument("game", choices=games.names(), help=f"the game: {', '.join(games.names())}")
    k.add_argument(
        "--players",
        type=bounded(1, 16),
        required=True,
        metavar="N",
        help="players at the table (niuniu 1-9 from one deck, taungau 1-5, pokdeng 1-16)",
    )
    k.add_argument(
        "--rounds",
        type=bounded(1, 10_000_000),
        default=DEFAULT_ROUNDS,
        metavar="T",
        help=f"the bands and ruin after T rounds (default {DEFAULT_ROUNDS:,})",
    )
    k.add_argument(
        "--reserve",
        type=_reserve,
        metavar="R",
        help="also the probability that a banker starting with R stakes is ruined",
    )
    k.add_argument(
        "--progress",
        action="store_true",
        help="report progress on stderr even when it is not a terminal",
    )
    add_sim_tables(k, bounded)
    common(k)
    game_options(k)
    k.set_defaults(run=cmd_risk)


SIM_TABLES_HELP = (
    "tables dealt once per rule set for the figures at more than one player, which are "
    "simulated (default: niuniu 2,000,000, taungau 1,000,000, pokdeng 500,000); the 99%% "
    "intervals narrow as 1/sqrt(N)"
)


def add_sim_tables(
    parser: argparse.ArgumentParser, bounded: Callable[[int, int], Callable[[str], int]]
) -> None:
    """``--sim-tables N`` (``bull risk`` and ``bull report``)."""
    parser.add_argument(
        "--sim-tables", type=bounded(1_000, 100_000_000), metavar="N", help=SIM_TABLES_HELP
    )


def cmd_risk(args: argparse.Namespace, out: Any) -> int:
    from solver.commands import _options

    game = games.get(args.game)
    options = _options(args)
    with StatusLine(args.err, force=args.progress) as status:

        def progress(done: int, total: int) -> None:
            # the table simulation, or (Tau Ngau) the exact covariance's banker hands
            status.show(f"{game.name}: computing the figures once: {done:,} of {total:,}")

        res = game.risk(
            args.rules,
            options,
            args.tables,
            args.players,
            args.rounds,
            args.reserve,
            progress,
            args.sim_tables,
        )
    if args.json:
        out.write(json.dumps(res.to_json(), ensure_ascii=False) + "\n")
    else:
        out.write(res.text() + "\n")
    return 0
