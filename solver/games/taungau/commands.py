"""Tau Ngau's command-line adapters: the records and text of ``bull eval`` and
``bull compare`` (the CLI itself is game-blind)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from solver.core.errors import BullError
from solver.games.taungau.hands import settle_reason as _reason
from solver.games.taungau.play import (
    _evaluate_many,
    _parse,
    _source,
    cli_compare_text,
    settle,
    showdown_json,
)
from solver.games.taungau.rules import TauNgauRules

__all__ = [
    "_reason",
    "cli_compare",
    "cli_compare_text",
    "cli_eval",
    "cli_eval_text",
]


def _check_options(options: Mapping[str, Any]) -> str | None:
    for key in ("bet", "commission", "dealer_draws_at_most"):
        if options.get(key) is not None:
            flag = "--" + key.replace("_", "-")
            raise BullError(f"{flag} does not apply to taungau")
    mode = options.get("banker_reveals")
    if mode is not None and mode not in TauNgauRules.REVEALS:
        raise BullError(f"--banker-reveals is {mode!r}; expected first or last")
    return mode


def cli_eval(
    hands: list[str], rules: str | None, options: dict[str, Any], tables: str | None
) -> list[dict[str, Any]]:
    """JSON-ready records for ``bull eval taungau``."""
    mode = _check_options(options)
    src = _source(rules, tables)
    parsed = [_parse(h) for h in hands]
    reveals = mode or src.rules.banker_reveals
    return [
        h.to_json(reveals if src.rules.has_decline else None) for h in _evaluate_many(parsed, src)
    ]


def cli_eval_text(rec: dict[str, Any]) -> str:
    """One readable line per hand."""
    hand = "".join(rec["hand"])
    if rec["has_bull"]:
        vals = "".join(f" {k}={v}" for k, v in (rec["values"] or {}).items())
        how = f"{rec['points']}: bull {''.join(rec['bull'])} + {''.join(rec['rest'])}{vals}"
        reach = " ".join(str(x) for x in rec["reachable"])
        how += f" (reachable: {reach})"
    else:
        how = "no bull" + (f" ({rec['points']})" if rec["points"] is not None else "")
    text = f"{hand} {how} [{rec['rules']}]"
    if "decision_banker_last" in rec:
        if rec["has_bull"]:
            at = rec["decline_if_banker_at_least"]
            text += (
                f"; banker last: {rec['decision_banker_last']} (EV declare "
                f"{rec['ev_declare']:+.4f} vs decline {rec['ev_decline']:+.4g}); "
                f"banker first: decline if banker >= {at}"
                if at is not None
                else f"; banker last: {rec['decision_banker_last']} (EV declare "
                f"{rec['ev_declare']:+.4f} vs decline {rec['ev_decline']:+.4g}); "
                "banker first: never decline"
            )
        elif float(rec["ev_decline"]).is_integer():
            text += f"; pays {-rec['ev_decline']:g}"
        else:  # the payment depends on the banker's hand ("banker_score")
            text += f"; pays {-rec['ev_decline']:.4f} on average"
    return text


def cli_compare(
    player: str, banker: str, rules: str | None, options: dict[str, Any], tables: str | None
) -> dict[str, Any]:
    """JSON-ready record for ``bull compare taungau``."""
    mode = _check_options(options)
    return showdown_json(settle(player, banker, rules, banker_reveals=mode, tables=tables))
