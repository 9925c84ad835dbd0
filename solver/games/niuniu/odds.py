"""Niu Niu's exact odds and edge: every category's count, and the player's EV over every
ordered pair of disjoint hands of the rule set's deck (the counting core is
:func:`solver.kit.exact.disjoint_counts`). A rule file's hands come from its own table,
built on first use (:mod:`~solver.games.niuniu.source`).

From a shoe of N > 1 decks every hand is a multiset of faces with a weight (the ways to
deal it), and the banker's hand is dealt from what the player's leaves: counts are
weighted by card removal by multiplicity (:func:`solver.kit.shoe.shoe_counts`), the
pairs are the C(52N, 5) · C(52N - 5, 5) ordered deals of two hands, and two hands can be
exactly equal (``on_tie``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

import numpy as np

from solver.games.niuniu.matchups import (
    MatchupSums,
    NiuNiuMatchups,
    _niuniu_rules,
    matchups_of,
    niuniu_matchups,
    niuniu_sums,
    shoe_curve,
    shoe_matchups,
    sums_of,
)
from solver.kit.exact import (
    OddsResult,
    TablesLike,
    exact_commission,
    fraction_text,
    percent,
)
from solver.kit.risk import NetDistribution, distribution_text

__all__ = [
    "EdgeResult",
    "MatchupSums",
    "NiuNiuMatchups",
    "edge_of",
    "edge_text",
    "matchups_of",
    "niuniu_edge",
    "niuniu_matchups",
    "niuniu_sums",
    "odds",
    "shoe_curve",
    "shoe_matchups",
]


@dataclass(frozen=True)
class EdgeResult:
    """The player's exact expectation in Niu Niu over every pair of disjoint hands.

    ``ev`` is the player's net per unit staked; ``p_*`` are probabilities of the
    showdown; ``winner_category[label]``: the probability that the showdown is won (by
    either side) with a hand of that category; ``player_win_category``: the same, the
    player's wins only (the banker's are equal, the two hands being exchangeable);
    ``ev_by_category[label]``: the player's EV holding a hand of that category;
    ``seconds``: the computing time of the figure (the matchup counts, even if cached).
    """

    rules: str
    bet: str
    commission: Fraction
    pairs: int
    ev: Fraction
    p_win: Fraction
    p_loss: Fraction
    p_push: Fraction
    winner_category: Mapping[str, Fraction]
    player_win_category: Mapping[str, Fraction]
    ev_by_category: Mapping[str, Fraction]
    hands_by_category: Mapping[str, int]
    seconds: float = field(default=0.0, compare=False)
    decks: int = 1
    net: NetDistribution | None = None
    """The exact distribution of the player's net per round (its mean is ``ev``)."""

    def text(self) -> str:
        """The plain-text summary (``bull edge``)."""
        return edge_text(self)

    def to_json(self) -> dict[str, Any]:
        """The ``bull edge niuniu --json`` object."""
        return {
            "game": "niuniu",
            "rules": self.rules,
            "bet": self.bet,
            "commission": float(self.commission),
            "commission_fraction": fraction_text(self.commission),
            "decks": self.decks,
            "pairs": self.pairs,
            "ev": float(self.ev),
            "ev_fraction": fraction_text(self.ev),
            "house_edge": float(-self.ev),
            "p_win": float(self.p_win),
            "p_loss": float(self.p_loss),
            "p_push": float(self.p_push),
            "p_win_fraction": fraction_text(self.p_win),
            "p_loss_fraction": fraction_text(self.p_loss),
            "p_push_fraction": fraction_text(self.p_push),
            "winner_category": {k: float(v) for k, v in self.winner_category.items()},
            "winner_category_fraction": {
                k: fraction_text(v) for k, v in self.winner_category.items()
            },
            "ev_by_category": {k: float(v) for k, v in self.ev_by_category.items()},
            "ev_by_category_fraction": {
                k: fraction_text(v) for k, v in self.ev_by_category.items()
            },
            **({} if self.net is None else self.net.to_json()),
            "seconds": round(self.seconds, 3),
        }


def niuniu_edge(
    rules: Any = None,
    bet: str | None = None,
    commission: float | Fraction | None = None,
    tables: TablesLike = None,
) -> EdgeResult:
    """The player's exact EV for ``bet`` (default: the rule set's default bet) with the
    house keeping ``commission`` of the player's winnings (default: the rule set's).

    The player wins ``m(P) (1 - c)`` when his hand P is stronger (m: the multiplier of
    the winning hand for the bet) and pays ``m(B)`` when the banker's B is stronger; an
    equal showdown is a push, or (``on_tie = "banker"``) the player pays ``m(B)``.
    """
    import time

    t0 = time.perf_counter()
    r = _niuniu_rules(rules)
    bet_name = r.bet(bet)
    c = exact_commission(commission, r.commission)
    t1 = time.perf_counter()
    sums = niuniu_sums(r, tables)
    lookup = time.perf_counter() - t1  # ~0 when the counts were cached
    res = edge_of(r, sums, bet_name, c)
    return replace(res, seconds=time.perf_counter() - t0 - lookup + sums.seconds)


def edge_of(rules: Any, mu: NiuNiuMatchups | MatchupSums, bet: str, c: Fraction) -> EdgeResult:
    """The exact edge of ``bet`` with commission ``c`` from matchup counts ``mu`` (of any
    deck: :func:`matchups_of`) or their sums by category (:func:`niuniu_sums`)."""
    s = mu if isinstance(mu, MatchupSums) else sums_of(mu, rules.n_codes)
    j = s.bets.index(bet)
    mult = np.asarray(rules.multiplier_row(bet), dtype=np.int64)
    pairs = s.pairs
    ncat = rules.n_codes
    hands_k, wins, paid, ties = s.hands, s.wins, s.paid[j], s.ties
    banker_ties = rules.on_tie == "banker"
    rank = rules.category_rank
    order = sorted((i for i in range(ncat) if rank[i] >= 0), key=lambda i: rank[i])
    code = {rules.labels[i]: i for i in order}
    labels = list(code)

    def net(k: int) -> Fraction:
        lost = paid[k] + (int(mult[k]) * ties[k] if banker_ties else 0)
        return (1 - c) * int(mult[k]) * wins[k] - lost

    ev_num = sum(net(k) for k in range(ncat))
    ev_by: dict[str, Fraction] = {}
    for label in labels:
        k = code[label]
        if hands_k[k]:
            ev_by[label] = net(k) / (int(hands_k[k]) * s.banker_hands)
    win_total = sum(wins)
    tie_total = sum(ties)
    loss_total = s.losses_total
    if win_total + tie_total + loss_total != pairs:
        raise AssertionError("matchup counts do not add up to every pair")
    ev = Fraction(ev_num) / pairs
    player_k = {lb: Fraction(wins[code[lb]], pairs) for lb in labels}
    tie_k = {lb: Fraction(ties[code[lb]] if banker_ties else 0, pairs) for lb in labels}
    return EdgeResult(
        rules=rules.name,
        bet=bet,
        commission=c,
        pairs=pairs,
        ev=ev,
        p_win=Fraction(win_total, pairs),
        p_loss=Fraction(loss_total + (tie_total if banker_ties else 0), pairs),
        p_push=Fraction(0 if banker_ties else tie_total, pairs),
        winner_category={lb: 2 * v + tie_k[lb] for lb, v in player_k.items()},
        player_win_category=player_k,
        ev_by_category=ev_by,
        hands_by_category={lb: int(hands_k[code[lb]]) for lb in labels},
        seconds=s.seconds,
        decks=s.decks,
    )


def odds(rules: Any, tables: TablesLike) -> OddsResult:
    """Exact counts of every category, every score and every special (under the rule
    set's definitions, before precedence) over every hand of its deck; from a shoe, over
    every deal of five cards (C(52N, 5): each distinct hand counted as often as it can be
    dealt)."""
    from solver.games.niuniu.hands import hand_shape, special_flags
    from solver.games.niuniu.rules import SPECIALS
    from solver.games.niuniu.source import rules_table

    r = _niuniu_rules(rules)
    t = rules_table(r, tables)
    hands = np.stack([t.column(f"c{i}") for i in range(5)], axis=1)
    category = t.column(f"{r.name}_category").astype(np.int64)
    points = t.column("points").astype(np.int64)
    flags = special_flags(hand_shape(hands), r)
    # one deck: every row is one hand; a shoe: a row is dealt in `weight` ways
    w = t.column("weight").astype(np.int64) if r.shoe else np.ones(len(points), np.int64)
    total = int(w.sum())
    rank = r.category_rank
    cats = np.bincount(category, weights=w, minlength=r.n_codes).astype(np.int64)
    order = sorted((i for i in range(r.n_codes) if rank[i] >= 0), key=lambda i: rank[i])
    base = np.bincount(points, weights=w, minlength=11).astype(np.int64)
    return OddsResult(
        game="niuniu",
        rules=r.name,
        sections={
            "category": tuple((r.labels[i], int(cats[i])) for i in order),
            "points": tuple(
                ("no_bull" if p == 0 else "niu_niu" if p == 10 else f"niu_{p}", int(base[p]))
                for p in range(11)
            ),
            "specials_before_precedence": tuple((s, int(w[flags[s]].sum())) for s in SPECIALS),
        },
        totals={"category": total, "points": total, "specials_before_precedence": total},
        unit="deals" if r.shoe else "hands",
    )


def edge_text(res: EdgeResult) -> str:
    """Plain-text summary of an edge result."""
    lines = [
        f"niuniu edge [{res.rules}], bet {res.bet}, commission "
        f"{float(res.commission):g}, over {res.pairs:,} "
        + (
            "pairs of disjoint hands"
            if res.decks == 1
            else f"ordered deals of two hands from a {res.decks}-deck shoe"
        ),
        f"  player EV per stake: {float(res.ev):+.6f} (exact {fraction_text(res.ev)});"
        f" house edge {percent(-res.ev)}",
        f"  P(win) {percent(res.p_win)}  P(loss) {percent(res.p_loss)}  "
        f"P(push) {percent(res.p_push)}",
        "  winning hand's category (either side):",
    ]
    for lb, v in res.winner_category.items():
        lines.append(f"    {lb:<16} {percent(v):>10}")
    if res.net is not None:
        lines += distribution_text(res.net)
    lines.append(f"  computed in {res.seconds:.1f} s")
    return "\n".join(lines)
