"""Tau Ngau's exact odds and edge: the best score's distribution, and the player's EV
from the table's per-hand banker distributions (``macau``) or from
:func:`solver.kit.exact.disjoint_counts` over the 32 tiles (``pagat``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.core.errors import BullError
from solver.core.indexing import all_subsets
from solver.kit.exact import (
    OddsResult,
    TablesLike,
    disjoint_counts,
    fraction_text,
    group_sums,
    percent,
)
from solver.kit.risk import NetDistribution, distribution_text

__all__ = ["TauNgauEdge", "edge_text", "odds", "taungau_edge"]


@dataclass(frozen=True)
class TauNgauEdge:
    """The player's exact EV in Tau Ngau over every (player, banker) pair of disjoint
    5-tile hands (201,376 x 80,730).

    ``ev_always_declare``: always setting a bull aside when there is one;
    ``ev_optimal_first`` / ``ev_optimal_last``: declining optimally when the banker
    shows first / last; ``ev_optimal``: the one for ``banker_reveals``. Under even-money
    settlement (no decline) all three are equal. ``p_win``/``p_push``/``p_loss``: the
    showdown's outcome when always declaring. ``decline_last``: how many hands decline
    when the banker reveals last; ``decline_from``: per player score, the lowest banker
    score at which declining is right when the banker reveals first (``None``: never);
    ``ev_by_score``: the player's EV of declaring, per best score (and ``"no_bull"``).
    """

    rules: str
    settlement: str
    banker_reveals: str
    pairs: int
    ev_always_declare: Fraction
    ev_optimal: Fraction
    ev_optimal_first: Fraction
    ev_optimal_last: Fraction
    p_win: Fraction
    p_push: Fraction
    p_loss: Fraction
    decline_last: int
    decline_from: Mapping[int, int | None]
    ev_by_score: Mapping[str, Fraction]
    hands_by_score: Mapping[str, int]
    net: NetDistribution | None = None
    """The exact distribution of the player's net per round under the optimal declines
    for ``banker_reveals`` (its mean is ``ev_optimal``)."""

    def text(self) -> str:
        """The plain-text summary (``bull edge``)."""
        return edge_text(self)

    def to_json(self) -> dict[str, Any]:
        """The ``bull edge taungau --json`` object."""
        out: dict[str, Any] = {
            "game": "taungau",
            "rules": self.rules,
            "settlement": self.settlement,
            "banker_reveals": self.banker_reveals,
            "pairs": self.pairs,
        }
        for name in (
            "ev_always_declare",
            "ev_optimal",
            "ev_optimal_first",
            "ev_optimal_last",
            "p_win",
            "p_push",
            "p_loss",
        ):
            value: Fraction = getattr(self, name)
            out[name] = float(value)
            out[name + "_fraction"] = fraction_text(value)
        out["decline_last_hands"] = self.decline_last
        out["decline_from"] = {str(k): v for k, v in self.decline_from.items()}
        out["ev_by_score"] = {k: float(v) for k, v in self.ev_by_score.items()}
        out["ev_by_score_fraction"] = {k: fraction_text(v) for k, v in self.ev_by_score.items()}
        if self.net is not None:
            out |= self.net.to_json()
        return out


def _taungau_rules(rules: Any) -> Any:
    from solver.games.taungau.rules import TauNgauRules, load_rules

    return rules if isinstance(rules, TauNgauRules) else load_rules(rules)


def _taungau_strength(r: Any, tables: TablesLike) -> npt.NDArray[np.int64]:
    """The strength of every hand in colex order: a preset's from the table, a rule
    file's from its own cached table."""
    from solver.games.taungau.play import rule_columns

    return rule_columns(r, ["strength"], tables)["strength"].astype(np.int64)


def _banker_dist(r: Any, tables: TablesLike) -> npt.NDArray[np.int64]:
    """Every hand's banker distribution (shape (201376, 11)) from the rule set's table."""
    from solver.games.taungau.play import rule_columns

    cols = rule_columns(r, [f"banker_{k}" for k in range(11)], tables)
    return np.stack([cols[f"banker_{k}"] for k in range(11)], axis=1).astype(np.int64)


def taungau_edge(
    rules: Any = None, banker_reveals: str | None = None, tables: TablesLike = None
) -> TauNgauEdge:
    """Exact Tau Ngau EVs (see :class:`TauNgauEdge`). ``macau`` uses the table's
    per-hand banker distributions; even-money rule sets count weaker/equal/stronger
    disjoint banker hands by inclusion-exclusion over the tiles. (The whole net
    distribution: :func:`solver.games.taungau.risk.edge`.)"""
    from solver.games.taungau.hands import BANKER_HANDS, HAND_COUNT, banker_distribution
    from solver.games.taungau.rules import Decision

    r = _taungau_rules(rules)
    reveals = banker_reveals or r.banker_reveals
    if reveals not in ("first", "last"):
        raise BullError(f"banker_reveals {reveals!r}: expected first or last")
    strength = _taungau_strength(r, tables)
    pairs = HAND_COUNT * BANKER_HANDS
    hands_s = np.bincount(strength, minlength=11)

    def score_label(s: int) -> str:
        sc = r.score_of_strength(s)
        return "no_bull" if sc is None else str(sc)

    labels = {s: score_label(s) for s in range(11) if hands_s[s]}
    if r.settlement == "even_money":
        c = disjoint_counts(all_subsets(32, 5), strength, 32)
        win, push, loss = (int(c.below.sum()), int(c.equal.sum()), int(c.above.sum()))
        ev = Fraction(win - loss, pairs)
        per = group_sums(strength, c.below - c.above, 11)
        ev_by = {labels[s]: Fraction(per[s], int(hands_s[s]) * BANKER_HANDS) for s in labels}
        return TauNgauEdge(
            rules=r.name,
            settlement=r.settlement,
            banker_reveals=reveals,
            pairs=pairs,
            ev_always_declare=ev,
            ev_optimal=ev,
            ev_optimal_first=ev,
            ev_optimal_last=ev,
            p_win=Fraction(win, pairs),
            p_push=Fraction(push, pairs),
            p_loss=Fraction(loss, pairs),
            decline_last=0,
            decline_from={r.score_of_strength(s): None for s in range(1, 11)},
            ev_by_score=ev_by,
            hands_by_score={labels[s]: int(hands_s[s]) for s in labels},
        )
    # difference settlement: the player's net is payoff(p) - payoff(b), or pays the
    # no-bull payment of the banker's hand (declining pays the same)
    from solver.games.taungau.hands import decline_analysis

    dist = _banker_dist(r, tables) if r.has_decline else banker_distribution(strength)
    cols = {k: v.astype(np.int64) for k, v in decline_analysis(strength, dist, r).items()}
    payoff = np.array([r.payoff_value(s) for s in range(11)], dtype=np.int64)
    has = strength > 0
    net = np.where(
        has[:, None],
        payoff[strength][:, None] - payoff[None, :],
        -r.no_bull_payments()[None, :],
    )  # (n, 11): the player's net when always declaring
    win = int((dist * (net > 0)).sum())
    push = int((dist * (net == 0)).sum())
    n_decline = int((cols["decision_last"] == Decision.DECLINE).sum())
    decline_from = {int(payoff[s]): r.decline_at_least(s) for s in range(1, 11)}
    per = group_sums(strength, cols["ev_declare_num"], 11)
    ev_by = {labels[s]: Fraction(per[s], int(hands_s[s]) * BANKER_HANDS) for s in labels}
    ev_first = Fraction(int(cols["ev_first_num"].sum()), pairs)
    ev_last = Fraction(int(cols["ev_last_num"].sum()), pairs)
    return TauNgauEdge(
        rules=r.name,
        settlement=r.settlement,
        banker_reveals=reveals,
        pairs=pairs,
        ev_always_declare=Fraction(int(cols["ev_declare_num"].sum()), pairs),
        ev_optimal=ev_first if reveals == "first" else ev_last,
        ev_optimal_first=ev_first,
        ev_optimal_last=ev_last,
        p_win=Fraction(win, pairs),
        p_push=Fraction(push, pairs),
        p_loss=Fraction(pairs - win - push, pairs),
        decline_last=n_decline,
        decline_from=decline_from,
        ev_by_score=ev_by,
        hands_by_score={labels[s]: int(hands_s[s]) for s in labels},
    )


def odds(rules: Any, tables: TablesLike) -> OddsResult:
    r = _taungau_rules(rules)
    strength = _taungau_strength(r, tables)
    counts = np.bincount(strength, minlength=11)
    rows = [("no_bull", int(counts[0]))]
    for s in range(1, 11):  # bull strengths, worst to best
        rows.append((str(r.score_of_strength(s)), int(counts[s])))
    return OddsResult(
        game="taungau",
        rules=r.name,
        sections={"best_score": tuple(rows)},
        totals={"best_score": len(strength)},
    )


def edge_text(res: TauNgauEdge) -> str:
    """Plain-text summary of an edge result."""
    lines = [
        f"taungau edge [{res.rules}], settlement {res.settlement}, over "
        f"{res.pairs:,} pairs of disjoint hands",
        f"  always declaring: {float(res.ev_always_declare):+.6f} "
        f"(exact {fraction_text(res.ev_always_declare)})",
        f"  declining optimally, banker reveals first: "
        f"{float(res.ev_optimal_first):+.6f} ({fraction_text(res.ev_optimal_first)})",
        f"  declining optimally, banker reveals last:  "
        f"{float(res.ev_optimal_last):+.6f} ({fraction_text(res.ev_optimal_last)})",
        f"  optimal for banker_reveals={res.banker_reveals}: {float(res.ev_optimal):+.6f}",
        f"  always declaring: P(win) {percent(res.p_win)}  P(push) {percent(res.p_push)}  "
        f"P(loss) {percent(res.p_loss)}",
    ]
    if res.net is not None:
        lines += distribution_text(res.net, "declining optimally, the player's net per round")
    return "\n".join(lines)
