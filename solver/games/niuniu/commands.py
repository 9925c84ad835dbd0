"""Niu Niu's command-line adapters: the records and text of ``bull eval`` and
``bull compare`` (the CLI itself is game-blind)."""

from __future__ import annotations

from typing import Any

import numpy as np

from solver.core.cards import parse_hand
from solver.games.niuniu.runtime import _evaluate_many, _source, parse_pair, settle
from solver.kit.exact import commission_fraction

__all__ = ["cli_compare", "cli_compare_text", "cli_eval", "cli_eval_text"]


def cli_eval(
    hands: list[str], rules: str | None, options: dict[str, Any], tables: str | None
) -> list[dict[str, Any]]:
    src = _source(rules, tables)
    bet = src.rules.bet(options.get("bet"))
    parsed = [parse_hand(h, size=5, copies=src.rules.decks) for h in hands]
    few = len(parsed) <= 64
    out = []
    for h in _evaluate_many(parsed, src, bet, few=few):
        out.append(h.to_json())
    if bet == src.rules.bet(None) and options.get("commission") is None and not src.rules.shoe:
        from solver.core.indexing import colex_rank_array
        from solver.games.niuniu.hand_odds import eval_fields

        ranks = colex_rank_array(np.array(parsed, dtype=np.uint8).reshape(-1, 5), presorted=True)
        for rec, odds in zip(out, eval_fields(src.table(), src.rules, ranks), strict=True):
            rec.update(odds)  # per-hand odds of the default bet (issue 14)
    return out


def cli_eval_text(rec: dict[str, Any]) -> str:
    hand = " ".join(rec["hand"])
    if rec["has_bull"]:
        how = f"bull {' '.join(rec['bull'])} + {' '.join(rec['rest'])}"
    else:
        how = "no three cards make a multiple of 10"
    label = rec["category"].replace("_", " ")
    text = f"{hand}: {label} ({how}) [{rec['rules']}]"  # strength: in --json only
    if "p_win" in rec:
        text += (
            f"; vs one random hand: P(win) {rec['p_win']:.4%}, EV as player "
            f"{rec['ev_player']:+.4f}, as banker {rec['ev_banker']:+.4f} ({rec['odds_bet']} bet)"
        )
    return text


def cli_compare(
    player: str, banker: str, rules: str | None, options: dict[str, Any], tables: str | None
) -> dict[str, Any]:
    src = _source(rules, tables)
    pc, bc = parse_pair(player, banker, src.rules)
    bet = src.rules.bet(options.get("bet"))
    p, b = _evaluate_many([pc, bc], src, bet, few=True)
    s = settle(pc, bc, src.rules, bet=bet, commission=options.get("commission"), tables=tables)
    return {
        "player": p.to_json(),
        "banker": b.to_json(),
        "winner": s.winner,
        "reason": s.comparison.reason,
        "bet": s.bet,
        "commission": s.commission,
        "commission_fraction": commission_fraction(s.commission),
        "net": s.net,
        "banker_net": s.banker_net,
        "rules": src.rules.name,
    }


def cli_compare_text(rec: dict[str, Any]) -> str:
    p, b = rec["player"], rec["banker"]
    lines = [
        f"player {' '.join(p['hand'])}: {p['category'].replace('_', ' ')}",
        f"banker {' '.join(b['hand'])}: {b['category'].replace('_', ' ')}",
    ]
    if rec["winner"] == "push":
        lines.append(f"push ({rec['reason']}); player net 0")
    else:
        lines.append(
            f"{rec['winner']} wins: {rec['reason']}; player net {rec['net']:+g} "
            f"({rec['bet']} bet, commission {rec['commission']:g}) [{rec['rules']}]"
        )
    return "\n".join(lines)
