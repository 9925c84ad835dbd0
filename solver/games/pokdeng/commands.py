"""Pok Deng's command-line adapters: the records and text of ``bull eval``, ``compare``,
``advise`` and ``strategy`` (the CLI itself is game-blind)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from solver.core.cards import RANK_NAMES, parse_hand
from solver.core.errors import RulesError
from solver.core.shoe import MAX_DECKS
from solver.games.pokdeng.chart import Chart, chart_png, chart_text, strategy_chart
from solver.games.pokdeng.hands import HandClass
from solver.games.pokdeng.play import (
    _OTHER_GAME_OPTIONS,
    Advice,
    HandEval,
    advise,
    evaluate_many,
    settle,
)
from solver.games.pokdeng.rules import HandType

__all__ = [
    "cli_advise",
    "cli_advise_text",
    "cli_compare",
    "cli_compare_text",
    "cli_eval",
    "cli_eval_text",
    "cli_strategy",
    "cli_strategy_text",
]


_DEALER_KEYS = ("dealer", "must_draw_at_most", "player_strategy", "dealer_sees")
"""Options of the two-sided game (``dealer_commands``)."""


def _check_options(options: Mapping[str, Any], policy_ok: bool) -> int | None:
    for key, flag in _OTHER_GAME_OPTIONS.items():
        if options.get(key) is not None:
            raise RulesError(f"option {flag} does not apply to pokdeng")
    k = options.get("dealer_draws_at_most")
    if k is not None and not policy_ok:
        raise RulesError(
            "option --dealer-draws-at-most applies to pokdeng advise and strategy only"
        )
    return None if k is None else int(k)


def _eval_record(e: HandEval) -> dict[str, Any]:
    return {
        "hand": e.names,
        "type": e.type.label,
        "points": e.points,
        "deng": e.deng,
        "strength": e.strength,
        "rules": e.rules,
    }


def cli_eval(
    hands: list[str], rules: str | None, options: dict[str, Any], tables: str | None
) -> list[dict[str, Any]]:
    """``bull eval pokdeng``: one record per hand."""
    _check_options(options, policy_ok=False)
    return [_eval_record(e) for e in evaluate_many(hands, rules, tables)]


def cli_eval_text(rec: dict[str, Any]) -> str:
    c = HandClass(HandType.from_label(rec["type"]), rec["points"], rec["deng"])
    return f"{' '.join(rec['hand'])}: {c}"  # strength: in --json only


def cli_compare(
    player: str, dealer: str, rules: str | None, options: dict[str, Any], tables: str | None
) -> dict[str, Any]:
    """``bull compare pokdeng PLAYER DEALER``: winner, reason and the player's net."""
    _check_options(options, policy_ok=False)
    s = settle(player, dealer, rules, tables)
    p, d = _eval_record(s.player), _eval_record(s.dealer)
    return {  # the shape of every game's compare: nested hands, winner, net, reason, rules
        "player": p,
        "dealer": d,
        "winner": s.winner,
        "reason": s.reason,
        "net": s.net,
        "dealer_net": s.banker_net,
        "rules": s.player.rules,
    }


def cli_compare_text(rec: dict[str, Any]) -> str:
    p, d = rec["player"], rec["dealer"]
    pc = HandClass(HandType.from_label(p["type"]), p["points"], p["deng"])
    dc = HandClass(HandType.from_label(d["type"]), d["points"], d["deng"])
    head = f"player {' '.join(p['hand'])} ({pc}) vs dealer {' '.join(d['hand'])} ({dc})"
    verdict = "push" if rec["winner"] == "push" else f"{rec['winner']} wins"
    return f"{head}: {verdict}, player net {rec['net']:+d} — {rec['reason']}"


def _frac(f: Fraction) -> str:
    return f"{f.numerator}/{f.denominator}"


def cli_advise(
    hand: str, rules: str | None, options: dict[str, Any], tables: str | None
) -> dict[str, Any]:
    """``bull advise pokdeng HAND``: action, both EVs, margin (floats and exact fractions)."""
    if any(options.get(key) is not None for key in _DEALER_KEYS):  # the dealer's side
        from solver.games.pokdeng import dealer_commands

        return dealer_commands.cli_dealer_advise(hand, rules, options, tables)
    k = _check_options(options, policy_ok=True)
    a = advise(hand, k, rules, tables)
    return {
        "hand": a.names,
        "type": a.type.label,
        "points": a.points,
        "deng": a.deng,
        "action": a.action,
        "ev_stand": float(a.ev_stand),
        "ev_draw": float(a.ev_draw),
        "margin": float(a.margin),
        "ev_stand_fraction": _frac(a.ev_stand),
        "ev_draw_fraction": _frac(a.ev_draw),
        "margin_fraction": _frac(a.margin),
        "dealer_draws_at_most": a.dealer_draws_at_most,
        "rules": a.rules,
    }


def cli_advise_text(rec: dict[str, Any]) -> str:
    if "dealer_sees" in rec:
        from solver.games.pokdeng import dealer_commands

        return dealer_commands.cli_dealer_advise_text(rec)
    a = Advice(
        hand=parse_hand(rec["hand"], size=(2, 3), copies=MAX_DECKS),
        type=HandType.from_label(rec["type"]),
        points=rec["points"],
        deng=rec["deng"],
        action=rec["action"],
        ev_stand=Fraction(rec["ev_stand_fraction"]),
        ev_draw=Fraction(rec["ev_draw_fraction"]),
        margin=Fraction(rec["margin_fraction"]),
        dealer_draws_at_most=rec["dealer_draws_at_most"],
        rules=rec["rules"],
    )
    return str(a)


def cli_strategy(
    rules: str | None, options: dict[str, Any], tables: str | None, png: str | None = None
) -> dict[str, Any]:
    """``bull strategy pokdeng``: every cell of the chart, the summary and overall EVs."""
    if any(options.get(key) is not None for key in _DEALER_KEYS):  # the two-sided game
        from solver.games.pokdeng import dealer_commands

        return dealer_commands.cli_dealer_strategy(rules, options, tables, png)
    k = _check_options(options, policy_ok=True)
    chart = strategy_chart(rules, k, tables)
    cells = []
    for i in range(13):
        for j in range(13):
            cells.append(
                {
                    "cell": Chart.cell_name(i, j),
                    "row": RANK_NAMES[i],
                    "column": RANK_NAMES[j],
                    "kind": "pair" if i == j else "suited" if i < j else "offsuit",
                    "points": chart.points[i][j],
                    "action": chart.action[i][j],
                    "ev_stand": float(chart.ev_stand[i][j]),
                    "ev_draw": float(chart.ev_draw[i][j]),
                    "margin": float(chart.margin(i, j)),
                    "ev_stand_fraction": _frac(chart.ev_stand[i][j]),
                    "ev_draw_fraction": _frac(chart.ev_draw[i][j]),
                    "margin_fraction": _frac(chart.margin(i, j)),
                }
            )
    rec: dict[str, Any] = {
        "rules": chart.rules,
        "dealer_draws_at_most": chart.dealer_draws_at_most,
        "cells": cells,
        "summary": chart.summary(),
        "ev_optimal": float(chart.ev_optimal),
        "ev_optimal_fraction": _frac(chart.ev_optimal),
        "ev_simple": float(chart.ev_simple),
        "ev_simple_fraction": _frac(chart.ev_simple),
        "png": None,
    }
    if png:
        chart_png(chart, png)
        rec["png"] = os.fspath(png)
    return rec


def _chart_from_record(rec: Mapping[str, Any]) -> Chart:
    cells = rec["cells"]

    def grid(key: str, conv: Any) -> tuple[tuple[Any, ...], ...]:
        return tuple(tuple(conv(cells[i * 13 + j][key]) for j in range(13)) for i in range(13))

    return Chart(
        rules=rec["rules"],
        dealer_draws_at_most=rec["dealer_draws_at_most"],
        action=grid("action", str),
        points=grid("points", int),
        ev_stand=grid("ev_stand_fraction", Fraction),
        ev_draw=grid("ev_draw_fraction", Fraction),
        ev_optimal=Fraction(rec["ev_optimal_fraction"]),
        ev_simple=Fraction(rec["ev_simple_fraction"]),
    )


def cli_strategy_text(rec: dict[str, Any]) -> str:
    if "dealer_starts" in rec:
        from solver.games.pokdeng import dealer_commands

        return dealer_commands.cli_dealer_strategy_text(rec)
    text = chart_text(_chart_from_record(rec))
    if rec.get("png"):
        text += f"\nchart written to {rec['png']}"
    return text
