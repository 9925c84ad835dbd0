"""Tau Ngau's command-line adapters: the records and text of ``bull eval`` and
``bull compare`` (the CLI itself is game-blind)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from solver.core.errors import BullError
from solver.games.taungau.play import _evaluate_many, _parse, _source, cli_compare_text, compare
from solver.games.taungau.rules import TauNgauRules, load_rules

__all__ = ["cli_compare", "cli_compare_text", "cli_eval", "cli_eval_text"]


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
    s = compare(player, banker, rules, banker_reveals=mode, tables=tables)
    rec = s.to_json()
    rec["reason"] = _reason(rec, load_rules(rules).settlement)
    return rec


def _reason(rec: dict[str, Any], settlement: str) -> str:
    """Why the showdown settled as it did, in the rule set's terms.

    >>> side = {"has_bull": True, "points": 6}
    >>> _reason({"player": side, "banker": {**side, "points": 2}, "net": 4}, "difference")
    'player 6 vs banker 2: the banker pays the difference, 4'
    """
    p, b, net = rec["player"], rec["banker"], rec["net"]
    pb, bb = p["has_bull"], b["has_bull"]
    ps = f"player {p['points']}" if pb else "player no bull"
    bs = f"banker {b['points']}" if bb else "banker no bull"
    if settlement == "even_money":
        if pb and bb:
            if p["points"] == b["points"]:
                return f"{ps} vs {bs}: equal scores push"
            return f"{ps} vs {bs}: the higher score wins 1"
        if pb or bb:
            return f"{ps} vs {bs}: only the {'player' if pb else 'banker'} has a bull, wins 1"
        return "neither has a bull: push"
    if not pb:
        return f"{ps} vs {bs}: the player has no bull and pays {-net}"
    if p.get("declines"):
        return f"{ps} vs {bs}: the player declines his bull and pays {-net} instead"
    if net > 0:
        return f"{ps} vs {bs}: the banker pays the difference, {net}"
    if net < 0:
        return f"{ps} vs {bs}: the player pays the difference, {-net}"
    return f"{ps} vs {bs}: equal scores, nobody pays"
