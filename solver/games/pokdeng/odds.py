"""Pok Deng's exact odds and edge: every type, points and deng count, and the player's EV
from the exact drawing strategy (:mod:`solver.games.pokdeng.strategy`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from solver.core.errors import BullError, TableError
from solver.kit.exact import OddsResult, TablesLike, fraction_text

__all__ = ["PokDengEdge", "edge_text", "odds", "pokdeng_edge"]


@dataclass(frozen=True)
class PokDengEdge:
    """The player's exact EV in Pok Deng, heads-up with card removal (RULES §5), over all
    1,326 two-card starts: ``ev_optimal`` drawing optimally, ``ev_simple`` drawing on 4 or
    less; ``draws_optimal``: how many starts draw under the optimal strategy."""

    rules: str
    dealer_draws_at_most: int
    ev_optimal: Fraction
    ev_simple: Fraction
    draws_optimal: int
    ev_by_points: Mapping[str, Fraction]

    def text(self) -> str:
        """The plain-text summary (``bull edge``)."""
        return edge_text(self)

    def to_json(self) -> dict[str, Any]:
        """The ``bull edge pokdeng --json`` object."""
        return {
            "game": "pokdeng",
            "rules": self.rules,
            "dealer_draws_at_most": self.dealer_draws_at_most,
            "ev_optimal": float(self.ev_optimal),
            "ev_optimal_fraction": fraction_text(self.ev_optimal),
            "ev_simple": float(self.ev_simple),
            "ev_simple_fraction": fraction_text(self.ev_simple),
            "draws_optimal": self.draws_optimal,
            "ev_by_points": {k: float(v) for k, v in self.ev_by_points.items()},
        }


def pokdeng_edge(
    rules: Any = None, dealer_draws_at_most: int | None = None, tables: TablesLike = None
) -> PokDengEdge:
    """Exact overall EVs from the exact drawing strategy (``solver.games.pokdeng.strategy``):
    solved afresh for a preset (a fraction of a second), read from the rule set's own
    cached table for any other rule set (built on first use)."""
    from solver.games.pokdeng.rulefile import rule_solution
    from solver.games.pokdeng.rules import HandType, PokDengRules, load_rules
    from solver.games.pokdeng.strategy import CONFIGS, DRAW_DEN, config_rules, solve

    r = rules if isinstance(rules, PokDengRules) else load_rules(rules)
    k = r.dealer_draws_at_most if dealer_draws_at_most is None else dealer_draws_at_most
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= 9:
        raise BullError(
            f"dealer policy {k!r}: the dealer draws at a total of K or less, K an integer 0..9"
        )
    preset = r.name in CONFIGS and r.with_policy(k) == config_rules(r.name).with_policy(k)
    sol = solve(r, k) if preset else rule_solution(r, k, tables)
    stand = sol.ev_stand_num.astype(np.int64)
    draw = sol.ev_draw_num.astype(np.int64)
    pok = sol.type == HandType.POK
    best = np.where(pok, stand, np.maximum(stand, draw))
    simple = np.where(~pok & (sol.points <= 4), draw, stand)
    den = len(stand) * DRAW_DEN
    by: dict[str, Fraction] = {}
    for p in range(10):
        for is_pok in (False, True):
            m = (sol.points == p) & (pok == is_pok)
            if m.any():
                label = f"pok_{p}" if is_pok else str(p)
                by[label] = Fraction(int(best[m].sum()), int(m.sum()) * DRAW_DEN)
    return PokDengEdge(
        rules=r.name,
        dealer_draws_at_most=k,
        ev_optimal=Fraction(int(best.sum()), den),
        ev_simple=Fraction(int(simple.sum()), den),
        draws_optimal=int((~pok & (draw > stand)).sum()),
        ev_by_points=by,
    )


def odds(rules: Any, tables: TablesLike) -> OddsResult:
    from solver.games.pokdeng.hands import classify_all
    from solver.games.pokdeng.rules import HandType, PokDengRules, load_rules
    from solver.games.pokdeng.strategy import CONFIGS, config_rules
    from solver.store.tables import open_table

    r = rules if isinstance(rules, PokDengRules) else load_rules(rules)
    if r.name in CONFIGS and r == config_rules(r.name):
        t = open_table("pokdeng", tables)
        if t.rules.get(r.name) != r.to_data():
            raise TableError(
                f"table pokdeng was built with other {r.name!r} rules than "
                "this solver's; rebuild with `bull build`"
            )
        size = t.column("size")
        typ, pts, dg = (t.column(f"{r.name}_type"), t.column("points"), t.column(f"{r.name}_deng"))
        cls: dict[int, tuple[Any, ...]] = {
            n: (typ[size == n], pts[size == n], dg[size == n]) for n in (2, 3)
        }
    else:
        cls = dict(classify_all(r))
    sections: dict[str, tuple[tuple[str, int], ...]] = {}
    totals: dict[str, int] = {}
    for n in (2, 3):
        typ, pts, dg = (np.asarray(a).astype(np.int64) for a in cls[n])
        rows_t = [
            (HandType(v).label, int((typ == v).sum()))
            for v in sorted(set(typ.tolist()), reverse=True)
        ]
        rows_p = []
        for v in sorted(set(typ.tolist()), reverse=True):
            for p in range(10):
                cnt = int(((typ == v) & (pts == p)).sum())
                if cnt:
                    rows_p.append((f"{HandType(v).label}_{p}", cnt))
        rows_d = [(str(d), int((dg == d).sum())) for d in sorted(set(dg.tolist()))]
        sections[f"{n}_card_type"] = tuple(rows_t)
        sections[f"{n}_card_type_points"] = tuple(rows_p)
        sections[f"{n}_card_deng"] = tuple(rows_d)
        totals |= {
            f"{n}_card_type": len(typ),
            f"{n}_card_type_points": len(typ),
            f"{n}_card_deng": len(typ),
        }
    return OddsResult(game="pokdeng", rules=r.name, sections=sections, totals=totals)


def edge_text(res: PokDengEdge) -> str:
    """Plain-text summary of an edge result."""
    return "\n".join(
        [
            f"pokdeng edge [{res.rules}], dealer draws on {res.dealer_draws_at_most} or less",
            f"  optimal drawing:     {float(res.ev_optimal):+.6f} "
            f"(exact {fraction_text(res.ev_optimal)}); {res.draws_optimal} of 1,326 starts draw",
            f"  draw on 4 or less:   {float(res.ev_simple):+.6f} "
            f"(exact {fraction_text(res.ev_simple)})",
        ]
    )
