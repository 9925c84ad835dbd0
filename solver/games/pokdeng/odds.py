"""Pok Deng's exact odds and edge: every type, points and deng count, and the player's EV
from the exact drawing strategy (:mod:`solver.games.pokdeng.strategy`).

From a shoe (``decks = N > 1``) a count is the number of ways to deal the hands from
the full shoe (the multisets' weights), over ``C(52 N, k)`` deals; the edge weights
each multiset start by its weight and uses the shoe strategy
(:mod:`solver.games.pokdeng.shoe`). ``p_push_*`` is the probability of a push."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from solver.core.errors import BullError, TableError
from solver.kit.exact import OddsResult, TablesLike, fraction_text
from solver.kit.risk import NetDistribution, distribution_text

__all__ = ["PokDengEdge", "edge_text", "odds", "pokdeng_edge"]


@dataclass(frozen=True)
class PokDengEdge:
    """The player's exact EV in Pok Deng, heads-up with card removal (RULES §5), over all
    1,326 two-card starts (a shoe: the 1,378 multiset starts, weighted by how they are
    dealt): ``ev_optimal`` drawing optimally, ``ev_simple`` drawing on 4 or less;
    ``draws_optimal``: how many starts draw under the optimal strategy; ``p_push_*``:
    the probability of a push under each (``None`` when not computed)."""

    rules: str
    dealer_draws_at_most: int
    ev_optimal: Fraction
    ev_simple: Fraction
    draws_optimal: int
    ev_by_points: Mapping[str, Fraction]
    decks: int = 1
    p_push_optimal: Fraction | None = None
    p_push_simple: Fraction | None = None
    net: NetDistribution | None = None
    """The exact distribution of the player's net per round drawing optimally (its
    mean is ``ev_optimal``)."""

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
            "ev_by_points_fraction": {k: fraction_text(v) for k, v in self.ev_by_points.items()},
            "decks": self.decks,
            **{
                key: None if v is None else float(v)
                for key, v in (
                    ("p_push_optimal", self.p_push_optimal),
                    ("p_push_simple", self.p_push_simple),
                )
            },
            **{
                f"{key}_fraction": None if v is None else fraction_text(v)
                for key, v in (
                    ("p_push_optimal", self.p_push_optimal),
                    ("p_push_simple", self.p_push_simple),
                )
            },
            **({} if self.net is None else {"distribution_strategy": "optimal"}),
            **({} if self.net is None else self.net.to_json()),
        }


def pokdeng_edge(
    rules: Any = None, dealer_draws_at_most: int | None = None, tables: TablesLike = None
) -> PokDengEdge:
    """Exact overall EVs from the exact drawing strategy (``solver.games.pokdeng.strategy``):
    solved afresh for a preset (a fraction of a second), read from the rule set's own
    cached table for any other rule set (built on first use). (The whole net
    distribution: :func:`solver.games.pokdeng.risk.edge`.)"""
    from solver.games.pokdeng.rules import PokDengRules, load_rules

    r = rules if isinstance(rules, PokDengRules) else load_rules(rules)
    k = r.dealer_draws_at_most if dealer_draws_at_most is None else dealer_draws_at_most
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= 9:
        raise BullError(
            f"dealer policy {k!r}: the dealer draws at a total of K or less, K an integer 0..9"
        )
    return shoe_edge(r, k, tables) if r.decks > 1 else _one_deck_edge(r, k, tables)


def _one_deck_edge(r: Any, k: int, tables: TablesLike) -> PokDengEdge:
    from solver.games.pokdeng.rulefile import rule_solution
    from solver.games.pokdeng.rules import HandType
    from solver.games.pokdeng.strategy import CONFIGS, DRAW_DEN, config_rules, solve

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
        p_push_optimal=push_one_deck(r, k, draw > stand),
        p_push_simple=push_one_deck(r, k, ~pok & (sol.points <= 4)),
    )


def push_one_deck(r: Any, k: int, draws: Any) -> Fraction:
    """P(push) over the 1,326 one-deck starts when ``draws`` (by colex rank) draw, from
    the shoe solver at one deck (it gives exactly the one-deck figures)."""
    from solver.core.indexing import multiset_rank_array
    from solver.games.pokdeng.hands import all_hands

    sol = _one_deck_shoe(r, k)
    rows = multiset_rank_array(all_hands(2), presorted=True)
    num = np.where(draws, sol.push_draw_num[rows], sol.push_stand_num[rows]).astype(object)
    return Fraction(int(num.sum()), len(rows) * sol.den)


_ONE_DECK: dict[tuple[Any, int], Any] = {}


def _one_deck_shoe(r: Any, k: int) -> Any:
    from solver.games.pokdeng.shoe import solve_shoe

    key = (r, k)
    if key not in _ONE_DECK:
        _ONE_DECK[key] = solve_shoe(r, k)
    return _ONE_DECK[key]


def shoe_edge(r: Any, k: int, tables: TablesLike = None) -> PokDengEdge:
    """The edge from a shoe (``r.decks > 1``): multiset starts weighted by their deals."""
    from solver.games.pokdeng.rulefile import shoe_rule_solution
    from solver.games.pokdeng.rules import HandType

    sol = shoe_rule_solution(r, k, tables)
    rec = sol.overall()
    pok = sol.type == HandType.POK
    best = np.where(pok, sol.ev_stand_num, np.maximum(sol.ev_stand_num, sol.ev_draw_num))
    w = sol.weight.astype(object)
    by: dict[str, Fraction] = {}
    for p in range(10):
        for is_pok in (False, True):
            m = (sol.points == p) & (pok == is_pok) & (sol.weight > 0)
            if m.any():
                label = f"pok_{p}" if is_pok else str(p)
                num = int((w[m] * best[m].astype(object)).sum())
                by[label] = Fraction(num, int(w[m].sum()) * sol.den)
    return PokDengEdge(
        rules=r.name,
        dealer_draws_at_most=k,
        ev_optimal=Fraction(rec["ev_optimal_fraction"]),
        ev_simple=Fraction(rec["ev_simple_fraction"]),
        draws_optimal=rec["draws_optimal"],
        ev_by_points=by,
        decks=r.decks,
        p_push_optimal=Fraction(rec["p_push_optimal_fraction"]),
        p_push_simple=Fraction(rec["p_push_simple_fraction"]),
    )


def odds(rules: Any, tables: TablesLike) -> OddsResult:
    from solver.games.pokdeng.hands import classify_all
    from solver.games.pokdeng.rules import HandType, PokDengRules, load_rules
    from solver.games.pokdeng.strategy import CONFIGS, config_rules
    from solver.store.tables import open_table

    r = rules if isinstance(rules, PokDengRules) else load_rules(rules)
    if r.decks > 1:
        return shoe_odds(r, tables)
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


def shoe_odds(r: Any, tables: TablesLike = None) -> OddsResult:
    """Exact odds from a shoe: per type, type and points, and deng, the number of ways to
    deal such a hand from the full shoe (the multisets' weights) over ``C(52 N, k)``."""
    from math import comb

    from solver.games.pokdeng.rulefile import shoe_hands
    from solver.games.pokdeng.rules import HandType

    t = shoe_hands(r, tables)
    size = t.column("size")
    sections: dict[str, tuple[tuple[str, int], ...]] = {}
    totals: dict[str, int] = {}
    for n in (2, 3):
        m = size == n
        typ, pts, dg = (t.column(c)[m].astype(np.int64) for c in ("type", "points", "deng"))
        w = t.column("weight")[m].astype(np.int64)
        types = sorted(set(typ[w > 0].tolist()), reverse=True)
        rows_t = [(HandType(v).label, int(w[typ == v].sum())) for v in types]
        rows_p = []
        for v in types:
            for p in range(10):
                cnt = int(w[(typ == v) & (pts == p)].sum())
                if cnt:
                    rows_p.append((f"{HandType(v).label}_{p}", cnt))
        rows_d = [(str(d), int(w[dg == d].sum())) for d in sorted(set(dg[w > 0].tolist()))]
        sections[f"{n}_card_type"] = tuple(rows_t)
        sections[f"{n}_card_type_points"] = tuple(rows_p)
        sections[f"{n}_card_deng"] = tuple(rows_d)
        total = comb(52 * r.decks, n)
        assert int(w.sum()) == total
        totals |= {f"{n}_card_type": total, f"{n}_card_type_points": total, f"{n}_card_deng": total}
    return OddsResult(game="pokdeng", rules=r.name, sections=sections, totals=totals)


def edge_text(res: PokDengEdge) -> str:
    """Plain-text summary of an edge result."""
    starts = "1,326 starts" if res.decks == 1 else "1,378 multiset starts"
    shoe = "" if res.decks == 1 else f", {res.decks}-deck shoe"
    lines = [
        f"pokdeng edge [{res.rules}]{shoe}, dealer draws on {res.dealer_draws_at_most} or less",
        f"  optimal drawing:     {float(res.ev_optimal):+.6f} "
        f"(exact {fraction_text(res.ev_optimal)}); {res.draws_optimal} of {starts} draw",
        f"  draw on 4 or less:   {float(res.ev_simple):+.6f} "
        f"(exact {fraction_text(res.ev_simple)})",
    ]
    if res.p_push_optimal is not None and res.p_push_simple is not None:
        lines.append(
            f"  P(push):             {float(res.p_push_optimal):.6f} optimal, "
            f"{float(res.p_push_simple):.6f} drawing on 4 or less"
        )
    if res.net is not None:
        lines += distribution_text(res.net, "drawing optimally, the player's net per round")
    return "\n".join(lines)
