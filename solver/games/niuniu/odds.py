"""Niu Niu's exact odds and edge: every category's count, and the player's EV over every
ordered pair of disjoint hands of the rule set's deck (the counting core is
:func:`solver.kit.exact.disjoint_counts`). A rule file's hands come from its own table,
built on first use (:mod:`~solver.games.niuniu.source`)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.kit.exact import (
    OddsResult,
    TablesLike,
    disjoint_counts,
    exact_commission,
    fraction_text,
    group_sums,
    percent,
)

__all__ = [
    "EdgeResult",
    "NiuNiuMatchups",
    "edge_of",
    "edge_text",
    "matchups_of",
    "niuniu_edge",
    "niuniu_matchups",
    "odds",
]


def _niuniu_rules(rules: Any) -> Any:
    from solver.games.niuniu.rules import NiuNiuRules, load_rules

    return rules if isinstance(rules, NiuNiuRules) else load_rules(rules)


def _niuniu_columns(
    rules: Any, tables: TablesLike
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64], npt.NDArray[np.uint8]]:
    """(hands, strength, category) of every hand of the rule set's deck in colex order
    (2,598,960, or 658,008 without J/Q/K), from its table (a preset's, or the rule
    file's own, built on first use)."""
    from solver.games.niuniu.source import rules_table

    t = rules_table(rules, tables)
    hands = np.stack([t.column(f"c{i}") for i in range(5)], axis=1).astype(np.uint8)
    return (
        hands,
        t.column(f"{rules.name}_strength").astype(np.int64),
        t.column(f"{rules.name}_category").astype(np.uint8),
    )


@dataclass(frozen=True)
class NiuNiuMatchups:
    """Per player hand (colex order): the disjoint banker hands it beats (``below``),
    ties (``equal``) and loses to (``above``); ``mult_above[:, j]``: the sum of the
    stronger banker hands' multipliers for ``bets[j]``; ``category``: the player hand's
    own."""

    rules: str
    bets: tuple[str, ...]
    category: npt.NDArray[np.uint8]
    below: npt.NDArray[np.int32]
    equal: npt.NDArray[np.int32]
    above: npt.NDArray[np.int32]
    mult_above: npt.NDArray[np.int32]
    banker_hands: int
    seconds: float


_MATCHUPS: dict[tuple[str, str], NiuNiuMatchups] = {}


def matchups_of(
    rules: Any,
    hands: npt.NDArray[np.uint8],
    strength: npt.NDArray[np.int64],
    category: npt.NDArray[np.uint8],
    deck: int,
) -> NiuNiuMatchups:
    """The matchup counts of ``hands`` (every 5-subset of ``range(deck)``, colex order)
    with their strengths and categories under ``rules``, for every bet of the rule set."""
    import time

    t0 = time.perf_counter()
    weights = np.stack(
        [np.asarray(rules.multiplier_row(b), dtype=np.int64)[category] for b in rules.bets], axis=1
    )
    c = disjoint_counts(hands, strength, deck, weights)
    # counts are below 2^31 (at most 1,533,939 banker hands); multiplier sums may not be
    wide = int(weights.max(initial=0)) * c.total >= 1 << 31
    return NiuNiuMatchups(
        rules=rules.name,
        bets=tuple(rules.bets),
        category=category,
        below=c.below.astype(np.int32),
        equal=c.equal.astype(np.int32),
        above=c.above.astype(np.int32),
        mult_above=np.asarray(c.weight_above).astype(np.int64 if wide else np.int32),
        banker_hands=c.total,
        seconds=time.perf_counter() - t0,
    )


def niuniu_matchups(rules: Any = None, tables: TablesLike = None) -> NiuNiuMatchups:
    """The exact per-hand matchup counts under ``rules`` for every bet of the rule set
    (computed once per rule set and tables directory, then cached)."""
    import time

    r = _niuniu_rules(rules)
    key = (json.dumps(r.to_data(), sort_keys=True), os.fspath(tables) if tables else "")
    hit = _MATCHUPS.get(key)
    if hit is not None:
        return hit
    t0 = time.perf_counter()
    out = matchups_of(r, *_niuniu_columns(r, tables), r.deck_size)
    out = replace(out, seconds=time.perf_counter() - t0)
    while len(_MATCHUPS) >= 4:  # keep four rule sets' arrays (about 60 MB each)
        del _MATCHUPS[next(iter(_MATCHUPS))]
    _MATCHUPS[key] = out
    return out


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
    mu = niuniu_matchups(r, tables)
    lookup = time.perf_counter() - t1  # ~0 when the counts were cached
    res = edge_of(r, mu, bet_name, c)
    return replace(res, seconds=time.perf_counter() - t0 - lookup + mu.seconds)


def edge_of(rules: Any, mu: NiuNiuMatchups, bet: str, c: Fraction) -> EdgeResult:
    """The exact edge of ``bet`` with commission ``c`` from matchup counts ``mu`` (of any
    deck: :func:`matchups_of`)."""
    from solver.games.niuniu.rules import Category

    j = mu.bets.index(bet)
    mult = np.asarray(rules.multiplier_row(bet), dtype=np.int64)
    n = len(mu.category)
    pairs = n * mu.banker_hands
    ncat = len(Category)
    cat = mu.category.astype(np.int64)
    hands_k = np.bincount(cat, minlength=ncat)
    wins = group_sums(cat, mu.below, ncat)
    paid = group_sums(cat, mu.mult_above[:, j], ncat)
    ties = group_sums(cat, mu.equal, ncat)  # equal strength: equal category, equal m
    banker_ties = rules.on_tie == "banker"
    rank = rules.category_rank
    labels = [Category(i).label for i in sorted(range(ncat), key=lambda i: rank[i]) if rank[i] >= 0]

    def net(k: int) -> Fraction:
        lost = paid[k] + (int(mult[k]) * ties[k] if banker_ties else 0)
        return (1 - c) * int(mult[k]) * wins[k] - lost

    ev_num = sum(net(k) for k in range(ncat))
    ev_by: dict[str, Fraction] = {}
    for label in labels:
        k = Category[label.upper()]
        if hands_k[k]:
            ev_by[label] = net(k) / (int(hands_k[k]) * mu.banker_hands)
    win_total = sum(wins)
    tie_total = int(mu.equal.sum(dtype=np.int64))
    loss_total = int(mu.above.sum(dtype=np.int64))
    if win_total + tie_total + loss_total != pairs:
        raise AssertionError("matchup counts do not add up to every pair")
    player_k = {lb: Fraction(wins[Category[lb.upper()]], pairs) for lb in labels}
    tie_k = {lb: Fraction(ties[Category[lb.upper()]] if banker_ties else 0, pairs) for lb in labels}
    return EdgeResult(
        rules=rules.name,
        bet=bet,
        commission=c,
        pairs=pairs,
        ev=Fraction(ev_num) / pairs,
        p_win=Fraction(win_total, pairs),
        p_loss=Fraction(loss_total + (tie_total if banker_ties else 0), pairs),
        p_push=Fraction(0 if banker_ties else tie_total, pairs),
        winner_category={lb: 2 * v + tie_k[lb] for lb, v in player_k.items()},
        player_win_category=player_k,
        ev_by_category=ev_by,
        hands_by_category={lb: int(hands_k[Category[lb.upper()]]) for lb in labels},
        seconds=mu.seconds,
    )


def odds(rules: Any, tables: TablesLike) -> OddsResult:
    """Exact counts of every category, every score and every special (under the rule
    set's definitions, before precedence) over every hand of its deck."""
    from solver.games.niuniu.hands import hand_shape, special_flags
    from solver.games.niuniu.rules import SPECIALS, Category
    from solver.games.niuniu.source import rules_table

    r = _niuniu_rules(rules)
    t = rules_table(r, tables)
    hands = np.stack([t.column(f"c{i}") for i in range(5)], axis=1)
    category = t.column(f"{r.name}_category").astype(np.int64)
    points = t.column("points").astype(np.int64)
    flags = special_flags(hand_shape(hands), r)
    total = len(points)
    rank = r.category_rank
    cats = np.bincount(category, minlength=len(Category))
    order = sorted((i for i in range(len(Category)) if rank[i] >= 0), key=lambda i: rank[i])
    base = np.bincount(points, minlength=11)
    return OddsResult(
        game="niuniu",
        rules=r.name,
        sections={
            "category": tuple((Category(i).label, int(cats[i])) for i in order),
            "points": tuple(
                ("no_bull" if p == 0 else "niu_niu" if p == 10 else f"niu_{p}", int(base[p]))
                for p in range(11)
            ),
            "specials_before_precedence": tuple(
                (s, int(np.count_nonzero(flags[s]))) for s in SPECIALS
            ),
        },
        totals={"category": total, "points": total, "specials_before_precedence": total},
    )


def edge_text(res: EdgeResult) -> str:
    """Plain-text summary of an edge result."""
    lines = [
        f"niuniu edge [{res.rules}], bet {res.bet}, commission "
        f"{float(res.commission):g}, over {res.pairs:,} pairs of disjoint hands",
        f"  player EV per stake: {float(res.ev):+.6f} (exact {fraction_text(res.ev)});"
        f" house edge {percent(-res.ev)}",
        f"  P(win) {percent(res.p_win)}  P(loss) {percent(res.p_loss)}  "
        f"P(push) {percent(res.p_push)}",
        "  winning hand's category (either side):",
    ]
    for lb, v in res.winner_category.items():
        lines.append(f"    {lb:<16} {percent(v):>10}")
    lines.append(f"  computed in {res.seconds:.1f} s")
    return "\n".join(lines)
