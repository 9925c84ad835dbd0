"""Niu Niu's matchup counts: for every player hand, the banker hands dealt from what it
leaves that it beats, ties and loses to (the counting core is
:func:`solver.kit.exact.disjoint_counts`; from a shoe, :func:`solver.kit.shoe.shoe_counts`),
and their sums by the player hand's category (:class:`MatchupSums`), all that an edge
and its net distribution read.

The counts take seconds (one deck) to half a minute (a shoe) and hundreds of MB; their
sums take a few hundred bytes, so :func:`niuniu_sums` keeps them on disk beside the
rule-set tables (``rules/matchup-sums-<digest>-<code>.json``,
:func:`solver.store.custom.cached_figures`) as well as in memory: a later process (a
test worker, a second ``bull edge``/``risk``/``report``/``audit``) under the same rule
set, by the same code, reads them back. What the counts depend on is the key: the hands
and the bets' multipliers (not the name, the commission or what a tie does), the number
of decks and how they were counted (one deck's subsets, or a shoe's multisets: a shoe
pass's one-deck row is kept apart from the one-deck count, so comparing them stays a
check).
"""

from __future__ import annotations

import itertools
import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.kit.exact import TablesLike, disjoint_counts, group_sums
from solver.kit.shoe import exact_dot, shoe_counts

__all__ = [
    "MatchupSums",
    "NiuNiuMatchups",
    "matchups_of",
    "niuniu_matchups",
    "niuniu_sums",
    "shoe_curve",
    "shoe_matchups",
    "shoe_sums",
    "sums_of",
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
    if rules.decks > 1:
        return shoe_matchups(rules, hands, strength, category, deck, [rules.decks])[0]
    t0 = time.perf_counter()
    weights = _bet_weights(rules, category)
    c = disjoint_counts(hands, strength, deck, weights)
    return _matchups(rules, category, c, time.perf_counter() - t0)


def _matchups(
    rules: Any, category: npt.NDArray[np.uint8], c: Any, seconds: float, shoe: bool = False
) -> NiuNiuMatchups:
    """The record of counts ``c`` (:func:`~solver.kit.exact.disjoint_counts`'s, or with
    ``shoe`` one of :func:`~solver.kit.shoe.shoe_counts`', which carry the ways to deal
    each player hand and their shoe's decks)."""
    return NiuNiuMatchups(
        rules=rules.name,
        bets=tuple(rules.bets),
        category=category,
        below=c.below,
        equal=c.equal,
        above=c.above,
        mult_above=np.asarray(c.weight_above, dtype=np.int64),
        banker_hands=c.total,
        seconds=seconds,
        weight=c.weight if shoe else None,
        decks=c.decks if shoe else 1,
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
    t0 = time.perf_counter()
    weights = _bet_weights(rules, category)
    counts = shoe_counts(hands, strength, faces, decks, weights)
    share = (time.perf_counter() - t0) / len(decks)
    return [_matchups(rules, category, c, share, shoe=True) for c in counts]


def niuniu_matchups(rules: Any = None, tables: TablesLike = None) -> NiuNiuMatchups:
    """The exact per-hand matchup counts under ``rules`` for every bet of the rule set
    (computed once per rule set and tables directory, then cached)."""
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
class MatchupSums:
    """The matchup counts summed by the player hand's category code ``k`` (one entry per
    code of the rule set): ``hands[k]`` player hands (from a shoe: ways to deal them),
    ``wins[k]``, ``ties[k]`` and ``losses[k]`` the ordered pairs in which such a hand
    beats, ties or loses to the banker's, ``paid[j][k]`` the sum of the stronger banker
    hands' multipliers for ``bets[j]``; ``banker_hands``: the banker's hands after any
    one player hand; ``seconds``: the time the counts took when they were counted.

    >>> s = MatchupSums("x", ("b",), (2, 1), (1, 2), (0, 0), (2, 1), ((4, 1),), 3, 0.5)
    >>> s.pairs, s.wins_total, s.losses_total
    (9, 3, 3)
    """

    rules: str
    bets: tuple[str, ...]
    hands: tuple[int, ...]
    wins: tuple[int, ...]
    ties: tuple[int, ...]
    losses: tuple[int, ...]
    paid: tuple[tuple[int, ...], ...]
    banker_hands: int
    seconds: float
    decks: int = 1

    @property
    def pairs(self) -> int:
        """How many ordered pairs (player hand, banker hand) the sums cover."""
        return sum(self.hands) * self.banker_hands

    @property
    def wins_total(self) -> int:
        return sum(self.wins)

    @property
    def losses_total(self) -> int:
        return sum(self.losses)

    def to_json(self) -> dict[str, Any]:
        """What the disk cache keeps (the rule set's name is not part of the key)."""
        return {
            "bets": list(self.bets),
            "hands": list(self.hands),
            "wins": list(self.wins),
            "ties": list(self.ties),
            "losses": list(self.losses),
            "paid": [list(p) for p in self.paid],
            "banker_hands": self.banker_hands,
            "seconds": self.seconds,
            "decks": self.decks,
        }

    @classmethod
    def from_json(cls, data: Any, rules: Any) -> MatchupSums | None:
        """The sums read back for ``rules``, or None when ``data`` is not whole: every
        count an int, one per category code and bet of the rule set, the number of
        decks the rule set's, and the pairs adding up (each won pair is another's lost
        one: the two hands are exchangeable)."""
        try:
            ints = [data[f] for f in ("hands", "wins", "ties", "losses")]
            paid = data["paid"]
            n, total = rules.n_codes, int(data["banker_hands"])
            flat = [x for row in [*ints, *paid] for x in row] + [data["banker_hands"]]
            if (
                tuple(data["bets"]) != tuple(rules.bets)
                or len(paid) != len(rules.bets)
                or any(len(row) != n for row in [*ints, *paid])
                or not all(type(x) is int and x >= 0 for x in flat)
                or data["decks"] != rules.decks
            ):
                return None
            out = cls(
                rules=rules.name,
                bets=tuple(rules.bets),
                hands=tuple(ints[0]),
                wins=tuple(ints[1]),
                ties=tuple(ints[2]),
                losses=tuple(ints[3]),
                paid=tuple(tuple(p) for p in paid),
                banker_hands=total,
                seconds=float(data["seconds"]),
                decks=int(data["decks"]),
            )
        except (KeyError, TypeError, ValueError):
            return None
        whole = out.wins_total + sum(out.ties) + out.losses_total == out.pairs
        return out if whole and out.wins_total == out.losses_total else None


def sums_of(mu: NiuNiuMatchups, ncat: int) -> MatchupSums:
    """The per-category sums of the counts ``mu`` (``ncat``: the rule set's number of
    category codes)."""
    cat = mu.category.astype(np.int64)
    if mu.weight is None:
        hands = [int(x) for x in np.bincount(cat, minlength=ncat)]

        def by_cat(v: npt.NDArray[np.int64]) -> tuple[int, ...]:
            return tuple(group_sums(cat, v, ncat))
    else:  # weighted sums, exact: the hands sorted by category once, summed per run
        order = np.argsort(cat, kind="stable")
        ends = np.searchsorted(cat[order], np.arange(ncat + 1)).tolist()
        w = mu.weight[order]

        def by_cat(v: npt.NDArray[np.int64]) -> tuple[int, ...]:
            vs = np.asarray(v, dtype=np.int64)[order]
            return tuple(exact_dot(w[a:b], vs[a:b]) for a, b in itertools.pairwise(ends))

        hands = list(by_cat(np.ones(len(cat), np.int64)))

    return MatchupSums(
        rules=mu.rules,
        bets=mu.bets,
        hands=tuple(hands),
        wins=by_cat(mu.below),
        ties=by_cat(mu.equal),
        losses=by_cat(mu.above),
        paid=tuple(by_cat(mu.mult_above[:, j]) for j in range(len(mu.bets))),
        banker_hands=mu.banker_hands,
        seconds=mu.seconds,
        decks=mu.decks,
    )


_SUMS: dict[tuple[str, str, str], MatchupSums] = {}


def _sums_key(rules: Any, tables: TablesLike, shoe_pass: bool) -> tuple[str, str, str]:
    return (*_cache_key(rules, tables), "shoe" if shoe_pass else "deck")


def _read_sums(
    key: tuple[str, str, str], rules: Any, tables: TablesLike
) -> tuple[Path | None, MatchupSums | None]:
    """The sums for ``key`` from memory, else from the disk cache (then remembered), and
    where the disk cache keeps them (None when they were in memory)."""
    from solver.store.custom import cached_figures

    hit = _SUMS.get(key)
    path = None
    if hit is None:
        path, stored = cached_figures("matchup-sums", _disk_key(key), tables, 1 << 20)
        hit = None if stored is None else MatchupSums.from_json(stored.get("sums"), rules)
        if hit is None:
            return path, None
        _SUMS[key] = hit
    return path, replace(hit, rules=rules.name)


def _keep_sums(key: tuple[str, str, str], sums: MatchupSums, path: Path | None) -> None:
    """``sums`` remembered for ``key`` and written to the disk cache at ``path``."""
    from solver.store.custom import store_figures

    _SUMS[key] = sums
    if path is not None:
        store_figures(path, _disk_key(key), {"sums": sums.to_json()})


def _disk_key(key: tuple[str, str, str]) -> dict[str, Any]:
    return {"figures": "niuniu matchup sums 1", "counts": json.loads(key[0]), "pass": key[2]}


def niuniu_sums(rules: Any = None, tables: TablesLike = None) -> MatchupSums:
    """The per-category sums of :func:`niuniu_matchups` under ``rules``: read from
    memory or the disk cache, else counted once and kept in both (the counts
    themselves in memory, as :func:`niuniu_matchups` keeps them)."""
    r = _niuniu_rules(rules)
    key = _sums_key(r, tables, r.decks > 1)
    path, got = _read_sums(key, r, tables)
    if got is None:  # the counts stay in memory too: a test worker may read them after
        got = sums_of(niuniu_matchups(r, tables), r.n_codes)
        _keep_sums(key, got, path)
    return got


def shoe_sums(
    rules: Any, decks: Sequence[int], tables: TablesLike = None
) -> dict[int, MatchupSums]:
    """The per-category sums of the matchup counts of ``rules`` (a shoe rule set: its
    table of every 5-multiset) dealt from shoes of each size in ``decks``, the sizes not
    cached counted in one pass (:func:`shoe_matchups`; one deck too, kept apart from
    the one-deck count of :func:`niuniu_sums`)."""
    r = _niuniu_rules(rules)
    if not r.shoe:
        raise ValueError("shoe_sums needs a shoe rule set (decks > 1) for its table")
    out: dict[int, MatchupSums] = {}
    paths: dict[int, Path | None] = {}
    for d in decks:
        rd = replace(r, decks=d)
        paths[d], got = _read_sums(_sums_key(rd, tables, True), rd, tables)
        if got is not None:
            out[d] = got
    todo = [d for d in decks if d not in out]
    if todo:
        hands, strength, category = _niuniu_columns(r, tables)
        for mu in shoe_matchups(r, hands, strength, category, r.deck_size, todo):
            got = sums_of(mu, r.n_codes)
            key = _sums_key(replace(r, decks=mu.decks), tables, True)
            _keep_sums(key, got, paths[mu.decks])
            out[mu.decks] = got
    return {d: out[d] for d in decks}
