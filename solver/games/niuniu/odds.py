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
from solver.kit.risk import NetDistribution, distribution_text
from solver.kit.shoe import exact_dot, shoe_counts

__all__ = [
    "EdgeResult",
    "NiuNiuMatchups",
    "edge_of",
    "edge_text",
    "matchups_of",
    "niuniu_edge",
    "niuniu_matchups",
    "odds",
    "shoe_curve",
    "shoe_matchups",
]


def _niuniu_rules(rules: Any) -> Any:
    from solver.games.niuniu.rules import NiuNiuRules, load_rules

    return rules if isinstance(rules, NiuNiuRules) else load_rules(rules)


def _niuniu_columns(
    rules: Any, tables: TablesLike
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64], npt.NDArray[np.uint8]]:
    """(hands, strength, category) of every hand of the rule set's deck in table order
    (2,598,960 in colex order, or 658,008 without J/Q/K; from a shoe every multiset in
    dense multiset order), from its table (a preset's, or the rule file's own, built on
    first use)."""
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
    """Per player hand (table order): the disjoint banker hands it beats (``below``),
    ties (``equal``) and loses to (``above``); ``mult_above[:, j]``: the sum of the
    stronger banker hands' multipliers for ``bets[j]``; ``category``: the player hand's
    own. From a shoe (``weight`` given: the ways to deal each player hand) the counts
    are ways to deal the banker's hand from the rest of the shoe; ``banker_hands`` is
    the ways after any one player hand."""

    rules: str
    bets: tuple[str, ...]
    category: npt.NDArray[np.uint8]
    below: npt.NDArray[np.int64]
    equal: npt.NDArray[np.int64]
    above: npt.NDArray[np.int64]
    mult_above: npt.NDArray[np.int64]
    banker_hands: int
    seconds: float
    weight: npt.NDArray[np.int64] | None = None
    decks: int = 1

    def player_sum(self, values: npt.NDArray[np.integer], mask: Any = None) -> int:
        """Σ over player hands (those in ``mask``) of weight * value, exactly."""
        v = np.asarray(values, dtype=np.int64)
        w = self.weight
        if mask is not None:
            v = v[mask]
            w = None if w is None else w[mask]
        if w is None:
            return int(v.sum(dtype=np.int64))
        return exact_dot(w, v)

    @property
    def pairs(self) -> int:
        """How many ordered pairs (player hand, banker hand) the counts cover."""
        n = len(self.category) if self.weight is None else int(self.weight.sum())
        return n * self.banker_hands


_MATCHUPS: dict[tuple[str, str], NiuNiuMatchups] = {}


def matchups_of(
    rules: Any,
    hands: npt.NDArray[np.uint8],
    strength: npt.NDArray[np.int64],
    category: npt.NDArray[np.uint8],
    deck: int,
) -> NiuNiuMatchups:
    """The matchup counts of ``hands`` (every 5-subset of ``range(deck)``, colex order;
    from a shoe of ``rules.decks`` decks every 5-multiset, see :func:`shoe_matchups`)
    with their strengths and categories under ``rules``, for every bet of the rule set."""
    import time

    if rules.decks > 1:
        return shoe_matchups(rules, hands, strength, category, deck, [rules.decks])[0]
    t0 = time.perf_counter()
    weights = _bet_weights(rules, category)
    c = disjoint_counts(hands, strength, deck, weights)
    return NiuNiuMatchups(
        rules=rules.name,
        bets=tuple(rules.bets),
        category=category,
        below=c.below,
        equal=c.equal,
        above=c.above,
        mult_above=np.asarray(c.weight_above, dtype=np.int64),
        banker_hands=c.total,
        seconds=time.perf_counter() - t0,
    )


def _bet_weights(rules: Any, category: npt.NDArray[np.uint8]) -> npt.NDArray[np.int64]:
    """Per hand and bet of the rule set: the multiplier the hand collects when it wins."""
    return np.stack(
        [np.asarray(rules.multiplier_row(b), dtype=np.int64)[category] for b in rules.bets], axis=1
    )


def shoe_matchups(
    rules: Any,
    hands: npt.NDArray[np.uint8],
    strength: npt.NDArray[np.int64],
    category: npt.NDArray[np.uint8],
    faces: int,
    decks: list[int],
) -> list[NiuNiuMatchups]:
    """The matchup counts of every 5-multiset of ``range(faces)`` (dense multiset order)
    dealt from shoes of each size in ``decks`` (one sort serves them all; with one deck
    the figures are the one-deck ones, the repeats weighing 0)."""
    import time

    t0 = time.perf_counter()
    weights = _bet_weights(rules, category)
    out = []
    for c in shoe_counts(hands, strength, faces, decks, weights):
        out.append(
            NiuNiuMatchups(
                rules=rules.name,
                bets=tuple(rules.bets),
                category=category,
                below=c.below,
                equal=c.equal,
                above=c.above,
                mult_above=c.weight_above,
                banker_hands=c.total,
                seconds=(time.perf_counter() - t0) / len(decks),
                weight=c.weight,
                decks=c.decks,
            )
        )
    return out


def niuniu_matchups(rules: Any = None, tables: TablesLike = None) -> NiuNiuMatchups:
    """The exact per-hand matchup counts under ``rules`` for every bet of the rule set
    (computed once per rule set and tables directory, then cached)."""
    import time

    r = _niuniu_rules(rules)
    key = _cache_key(r, tables)
    hit = _MATCHUPS.get(key)
    if hit is not None:
        return hit
    t0 = time.perf_counter()
    out = matchups_of(r, *_niuniu_columns(r, tables), r.deck_size)
    out = replace(out, seconds=time.perf_counter() - t0)
    _remember(key, out)
    return out


def _cache_key(rules: Any, tables: TablesLike) -> tuple[str, str]:
    """What the matchup counts depend on: the hands and the bets' multipliers (not the
    name, the commission or what a tie does), and the tables."""
    data = rules.to_data()
    key = {k: v for k, v in data.items() if k not in _NOT_IN_MATCHUPS}
    return (json.dumps(key, sort_keys=True), os.fspath(tables) if tables else "")


_NOT_IN_MATCHUPS = ("name", "description", "commission", "on_tie", "default_bet")


def _remember(key: tuple[str, str], mu: NiuNiuMatchups) -> None:
    while len(_MATCHUPS) >= 10:  # a few rule sets' arrays (60-150 MB each)
        del _MATCHUPS[next(iter(_MATCHUPS))]
    _MATCHUPS[key] = mu


def shoe_curve(
    rules: Any, decks: list[int], tables: TablesLike = None, keep: Any = None
) -> dict[int, NiuNiuMatchups]:
    """The matchup counts of ``rules`` dealt from shoes of each size in ``decks``, in
    one pass over every 5-multiset (the table of ``rules``, which must be a shoe rule
    set). Each (or each size in ``keep``) is cached as the matchups of ``rules`` with
    that many decks, so :func:`niuniu_edge` answers them at once afterwards; one deck
    comes out of the same pass (repeats weigh 0) and equals the one-deck figures
    exactly. Each size's counts take ~180 MB: pass a few sizes at a time to bound the
    memory (``bull report`` does)."""
    from dataclasses import replace as dc_replace

    r = _niuniu_rules(rules)
    if not r.shoe:
        raise ValueError("shoe_curve needs a shoe rule set (decks > 1) for its table")
    out: dict[int, NiuNiuMatchups] = {}
    todo = []
    for d in decks:
        hit = _MATCHUPS.get(_cache_key(dc_replace(r, decks=d), tables))
        if hit is not None:
            out[d] = hit
        else:
            todo.append(d)
    if todo:
        hands, strength, category = _niuniu_columns(r, tables)
        for mu in shoe_matchups(r, hands, strength, category, r.deck_size, todo):
            out[mu.decks] = mu
            if keep is None or mu.decks in keep:
                _remember(_cache_key(dc_replace(r, decks=mu.decks), tables), mu)
    return {d: out[d] for d in decks}


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
    mu = niuniu_matchups(r, tables)
    lookup = time.perf_counter() - t1  # ~0 when the counts were cached
    res = edge_of(r, mu, bet_name, c)
    return replace(res, seconds=time.perf_counter() - t0 - lookup + mu.seconds)


def edge_of(rules: Any, mu: NiuNiuMatchups, bet: str, c: Fraction) -> EdgeResult:
    """The exact edge of ``bet`` with commission ``c`` from matchup counts ``mu`` (of any
    deck: :func:`matchups_of`)."""
    j = mu.bets.index(bet)
    mult = np.asarray(rules.multiplier_row(bet), dtype=np.int64)
    pairs = mu.pairs
    ncat = rules.n_codes
    cat = mu.category.astype(np.int64)
    if mu.weight is None:
        hands_k = [int(x) for x in np.bincount(cat, minlength=ncat)]
        wins = group_sums(cat, mu.below, ncat)
        paid = group_sums(cat, mu.mult_above[:, j], ncat)
        ties = group_sums(cat, mu.equal, ncat)  # equal strength: equal category, equal m
    else:
        masks = [cat == k for k in range(ncat)]
        hands_k = [mu.player_sum(np.ones(len(cat), np.int64), m) for m in masks]
        wins = [mu.player_sum(mu.below, m) for m in masks]
        paid = [mu.player_sum(mu.mult_above[:, j], m) for m in masks]
        ties = [mu.player_sum(mu.equal, m) for m in masks]
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
            ev_by[label] = net(k) / (int(hands_k[k]) * mu.banker_hands)
    win_total = sum(wins)
    tie_total = sum(ties)
    loss_total = mu.player_sum(mu.above)
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
        seconds=mu.seconds,
        decks=mu.decks,
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
