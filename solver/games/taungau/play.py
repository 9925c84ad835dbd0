"""Tau Ngau at run time: evaluate hands, settle showdowns, and the CLI frontend.

Preset rule sets are answered by an array lookup at the hand's colex rank in the
``taungau`` table; a user's rule file by the same lookup in a table of its own, built
on first use by the build's vectorised code and cached by the rule set's content
digest (:func:`solver.store.custom.rule_table`; the first use says so on stderr).
Answers depend only on the tile types: a hand is first canonicalised (copy 0 of a
civil type before copy 1).

Doctests here use ``book``, a copy of ``macau`` under another name: a rule set that is
not a shipped preset, answered from its own cached table.

>>> book = {**load_rules("macau").to_data(), "name": "book"}
>>> h = evaluate("[6:6] [6:5] [4:3] [4:2] [2:2]", rules=book)
>>> h.points, h.values_by_name, h.decision_last.label, h.reachable
(10, {'[4:2]': 6}, 'declare', (7, 10))
>>> pagat = {**load_rules("pagat").to_data(), "name": "pagat-copy"}
>>> evaluate("[6:6] [6:5] [4:3] [4:2] [2:2]", rules=pagat).points
7
>>> s = settle("[6:5][4:1][6:4][6:4][5:5]", "[6:6][4:4][3:2][5:3][6:1]", rules=book)
>>> s.player.points, s.banker.points, s.winner, s.net
(6, 10, 'banker', -4)
>>> s.player < s.banker
True
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.core.errors import BullError, ParseError, TableError
from solver.core.indexing import colex_rank_array, item_ids
from solver.core.inputs import check_paired, check_tables
from solver.core.tiles import (
    TILE_NAMES,
    TYPE_COPIES,
    TYPE_NAMES,
    TYPE_OF_TILE,
    Tile,
    canonical_hand,
    canonicalize_array,
    format_hand,
    hand_names,
    parse_hand,
)
from solver.games.taungau.hands import (
    BANKER_HANDS,
    HAND_COUNT,
    NONE,
    WILD_TILES,
    rule_set_table,
    settle_reason,
)
from solver.games.taungau.hands import settle as settle_strengths
from solver.games.taungau.rules import PRESETS, Decision, TauNgauRules, load_rules
from solver.kit.results import Ranked, Settlement, Showdown
from solver.store.custom import rule_table
from solver.store.tables import LoadedTable, open_table

__all__ = [
    "Settlement",
    "Showdown",
    "TauNgauHand",
    "compare",
    "evaluate",
    "evaluate_batch",
    "rule_columns",
    "settle",
    "settle_batch",
    "showdown_json",
]

HandLike = str | Iterable[str] | Iterable[int]
RulesLike = str | os.PathLike[str] | Mapping[str, Any] | TauNgauRules | None
_BASE = ("has_bull", "reachable", "points", "strength", "bull_mask", "values")
_DECLINE = (
    *(f"banker_{k}" for k in range(11)),
    "ev_declare_num",
    "decision_last",
    "decline_at_least",
    "ev_first_num",
    "ev_last_num",
)
_FEW = 64


@dataclass(frozen=True, slots=True)
class TauNgauHand(Ranked):
    """An evaluated hand under one rule set (the canonical best play), ordered by
    ``strength`` with ``<``/``>``.

    ``hand``: canonical tile ids, sorted (also ``tiles``); ``points``: the best score
    on the rule set's scale (no bull: 0 when a 0 counts as 10, else ``None``);
    ``strength``: 0 no bull, 1..10 worst to best; ``bull``: the canonical bull's three
    tiles; ``values``: the 3/6 value given to each [2:1]/[4:2] in the hand
    (``None`` without a bull);
    ``reachable``: every score some bull with some 3/6 choice reaches, on the scale.

    With a decline analysis (settlement ``difference``): ``banker`` counts the 80,730
    banker hands from the other 27 tiles by banker strength; ``ev_declare`` and
    ``ev_decline`` are exact EVs; ``decision_last`` is the choice when the banker
    reveals last; ``decline_if_banker_at_least`` the lowest banker score at which to
    decline when he reveals first; ``ev_banker_first``/``ev_banker_last`` the EVs of
    playing that way. Otherwise those fields are ``None``.
    """

    hand: tuple[Tile, ...]
    rules: str
    has_bull: bool
    strength: int
    points: int | None
    bull: tuple[Tile, ...] | None
    values: tuple[tuple[Tile, int], ...] | None
    reachable: tuple[int, ...]
    banker: tuple[int, ...] | None = None
    ev_declare: Fraction | None = None
    ev_decline: Fraction | None = None
    decision_last: Decision | None = None
    decline_if_banker_at_least: int | None = None
    ev_banker_first: Fraction | None = None
    ev_banker_last: Fraction | None = None

    @property
    def tiles(self) -> tuple[Tile, ...]:
        """The hand's tile ids (``hand``, by the name of the first releases)."""
        return self.hand

    @property
    def names(self) -> list[str]:
        """The hand's tiles as names, e.g. ``['[2:2]', '[4:2]', ...]``."""
        return hand_names(self.hand)

    def versus(self, other: TauNgauHand) -> int:
        """-1, 0 or 1 by best score (no tie-break: equal scores tie)."""
        return (self.strength > other.strength) - (self.strength < other.strength)

    @property
    def rest(self) -> tuple[Tile, ...] | None:
        """The two tiles that score, or ``None`` without a bull."""
        if self.bull is None:
            return None
        return tuple(t for t in self.hand if t not in self.bull)

    @property
    def values_by_name(self) -> dict[str, int] | None:
        """``{'[4:2]': 6}``: the value chosen for each wild tile in the hand."""
        return None if self.values is None else {TILE_NAMES[t]: v for t, v in self.values}

    def ev(self, banker_reveals: str) -> Fraction | None:
        """EV of the best play when the banker reveals ``first`` or ``last``."""
        return self.ev_banker_first if banker_reveals == "first" else self.ev_banker_last

    def __repr__(self) -> str:
        return f"evaluate({format_hand(self.hand)!r}, rules={self.rules!r})"

    def __str__(self) -> str:
        if self.bull is None:
            how = "no bull"
        else:
            vals = "".join(f" {n}={v}" for n, v in (self.values_by_name or {}).items())
            how = (
                f"{self.points}: bull {format_hand(self.bull)} + "
                f"{format_hand(self.rest or ())}{vals}"
            )
        text = f"{format_hand(self.hand)} {how} [{self.rules}]"
        if self.decision_last is not None and self.ev_declare is not None:
            text += (
                f"; banker last: {self.decision_last.label} "
                f"(EV {float(self.ev_declare):+.4f} vs {float(self.ev_decline or 0):+.4g})"
            )
        return text

    def to_json(self, banker_reveals: str | None = None) -> dict[str, Any]:
        """The CLI record (JSON-ready)."""
        rest = self.rest
        rec: dict[str, Any] = {
            "hand": hand_names(self.hand),
            "has_bull": self.has_bull,
            "points": self.points,
            "bull": None if self.bull is None else hand_names(self.bull),
            "rest": None if rest is None else hand_names(rest),
            "values": self.values_by_name,
            "reachable": list(self.reachable),
            "strength": self.strength,
            "rules": self.rules,
        }
        if self.banker is not None:
            rec |= {
                **_twin("ev_declare", self.ev_declare),
                **_twin("ev_decline", self.ev_decline),
                "decision_banker_last": None
                if self.decision_last is None
                else self.decision_last.label,
                "decline_if_banker_at_least": self.decline_if_banker_at_least,
                **_twin("ev_banker_last", self.ev_banker_last),
                **_twin("ev_banker_first", self.ev_banker_first),
                "banker_distribution": list(self.banker),
                # what each count of banker_distribution is: the banker's best score
                "banker_distribution_scores": ["no_bull", *(str(s) for s in range(1, 11))],
            }
            if banker_reveals is not None:
                rec["banker_reveals"] = banker_reveals
                rec |= _twin("ev", self.ev(banker_reveals))
        return rec


def _twin(name: str, x: Fraction | None) -> dict[str, Any]:
    """``name`` as a number and its exact ``name_fraction`` twin (``None`` if unknown)."""
    if x is None:
        return {name: None, f"{name}_fraction": None}
    return {name: float(x), f"{name}_fraction": f"{x.numerator}/{x.denominator}"}


def showdown_json(s: Settlement[TauNgauHand]) -> dict[str, Any]:
    """The ``bull compare taungau --json`` record of a settled showdown."""
    p = _side_json(s.player)
    p["declines"] = s.player_declines
    return {
        "player": p,
        "banker": _side_json(s.banker),
        "winner": s.winner,
        "net": s.net,
        "banker_net": s.banker_net,
        "rules": s.rules,
        "banker_reveals": s.showdown.banker_reveals,
        "reason": s.reason,
    }


def _side_json(h: TauNgauHand) -> dict[str, Any]:
    rec = h.to_json()
    return {k: rec[k] for k in ("hand", "has_bull", "points", "bull", "rest", "values", "strength")}


# ---------------------------------------------------------------- lookups


class _Source:
    """Where answers for one rule set come from: a preset's columns in the ``taungau``
    table, or, for any other rule set (a user's file or dict), its own table built on
    first use and cached by the rule set's content digest
    (:func:`solver.store.custom.rule_table`)."""

    def __init__(self, rules: TauNgauRules, tables: str | os.PathLike[str] | None) -> None:
        self.rules = rules
        self.tables = tables
        self.preset = rules.name in PRESETS and rules == load_rules(rules.name)
        self._table: LoadedTable | None = None

    def table(self) -> LoadedTable:
        if self._table is None:
            if not self.preset:
                self._table = rule_table(
                    "taungau",
                    self.rules.to_data(),
                    lambda: rule_set_table(self.rules),
                    self.tables,
                    rows=HAND_COUNT,
                )
                return self._table
            t = open_table("taungau", self.tables)
            if t.rules.get(self.rules.name) != self.rules.to_data():
                raise TableError(
                    f"table taungau was built with other {self.rules.name!r} "
                    "rules than this solver's; rebuild with `bull build`"
                )
            self._table = t
        return self._table

    def names(self) -> list[str]:
        return list(_BASE + _DECLINE) if self.rules.has_decline else list(_BASE)

    def column(self, name: str) -> str:
        """The table column holding ``name`` (preset columns carry the preset's prefix)."""
        if not self.preset or name in ("has_bull", "reachable"):
            return name
        return f"{self.rules.name}_{name}"

    def lookup(self, hands: npt.NDArray[np.uint8]) -> dict[str, npt.NDArray[Any]]:
        """Unprefixed columns for canonical sorted hands (shape (n, 5))."""
        t = self.table()
        ranks = colex_rank_array(hands, presorted=True)
        names = self.names()
        if len(ranks) <= _FEW:
            raw = t.rows(ranks, [self.column(n) for n in names])
        else:
            raw = {self.column(n): t.column(self.column(n))[ranks] for n in names}
        return {n: raw[self.column(n)] for n in names}


def rule_columns(
    rules: TauNgauRules, names: Sequence[str], tables: str | os.PathLike[str] | None = None
) -> dict[str, npt.NDArray[Any]]:
    """Whole columns (every hand, colex order, unprefixed names such as ``strength`` or
    ``banker_3``) of any rule set: a preset's from the table, another's from its own
    cached table."""
    src = _source(rules, tables)
    t = src.table()
    return {n: t.column(src.column(n)) for n in names}


_SOURCES: dict[tuple[TauNgauRules, str | None], _Source] = {}


def _rules(rules: RulesLike) -> TauNgauRules:
    return rules if isinstance(rules, TauNgauRules) else load_rules(rules)


def _source(rules: RulesLike, tables: str | os.PathLike[str] | None) -> _Source:
    r = _rules(rules)
    key = (r, check_tables(tables))
    src = _SOURCES.get(key)
    if src is None:
        src = _SOURCES[key] = _Source(r, tables)
    return src


def _scale(rules: TauNgauRules, reach_mask: int) -> tuple[int, ...]:
    return tuple(sorted(rules.score(d) for d in range(10) if reach_mask >> d & 1))


def _hand_from_row(
    tiles: tuple[Tile, ...], row: Mapping[str, Any], rules: TauNgauRules
) -> TauNgauHand:
    strength = int(row["strength"])
    has = strength > 0
    mask = int(row["bull_mask"])
    bull = tuple(tiles[i] for i in range(5) if mask >> i & 1) if has else None
    values: tuple[tuple[Tile, int], ...] | None = None
    if has:
        bits = int(row["values"])
        values = tuple(
            (w, 6 if bits >> i & 1 else 3) for i, w in enumerate(WILD_TILES) if w in tiles
        )
    points = int(row["points"])
    hand = TauNgauHand(
        hand=tiles,
        rules=rules.name,
        has_bull=has,
        strength=strength,
        points=None if points == NONE else points,
        bull=bull,
        values=values,
        reachable=_scale(rules, int(row["reachable"])),
    )
    if not rules.has_decline:
        return hand
    banker = tuple(int(row[f"banker_{k}"]) for k in range(11))
    at_least = int(row["decline_at_least"])
    return TauNgauHand(
        hand=tiles,
        rules=rules.name,
        has_bull=has,
        strength=strength,
        points=hand.points,
        bull=bull,
        values=values,
        reachable=hand.reachable,
        banker=banker,
        ev_declare=Fraction(int(row["ev_declare_num"]), BANKER_HANDS) if has else None,
        ev_decline=_ev_decline(banker, rules),
        decision_last=Decision(int(row["decision_last"])),
        decline_if_banker_at_least=None if at_least == NONE else at_least,
        ev_banker_first=Fraction(int(row["ev_first_num"]), BANKER_HANDS),
        ev_banker_last=Fraction(int(row["ev_last_num"]), BANKER_HANDS),
    )


def _ev_decline(banker: Sequence[int], rules: TauNgauRules) -> Fraction:
    """The exact EV of paying as a hand without a bull, over this hand's banker hands."""
    pays = rules.no_bull_payments()
    return Fraction(-sum(int(n) * int(pays[k]) for k, n in enumerate(banker)), BANKER_HANDS)


def _evaluate_many(hands: Sequence[tuple[Tile, ...]], src: _Source) -> list[TauNgauHand]:
    if not hands:
        return []
    arr = np.array(hands, dtype=np.uint8)
    cols = src.lookup(arr)
    lists = {k: np.asarray(v).tolist() for k, v in cols.items()}
    return [
        _hand_from_row(h, {k: v[i] for k, v in lists.items()}, src.rules)
        for i, h in enumerate(hands)
    ]


def _parse(hand: HandLike) -> tuple[Tile, ...]:
    return canonical_hand(parse_hand(hand, size=5))


def evaluate(
    hand: HandLike, rules: RulesLike = None, *, tables: str | os.PathLike[str] | None = None
) -> TauNgauHand:
    """Evaluate one hand (a string like ``"[6:5][4:1] 22 33 54"``, tile strings, or
    tile ids) under a preset name, rule file, dict or :class:`TauNgauRules`
    (default ``macau``).

    >>> book = {**load_rules("macau").to_data(), "name": "book"}
    >>> evaluate("[5:4][1:1][6:4][6:4][5:5]", rules=book).points
    1
    >>> str(evaluate("[5:4][1:1][6:4][6:4][5:5]", rules=book)).split(";")[0]
    '[1:1][5:4][5:5][6:4][6:4] 1: bull [5:5][6:4][6:4] + [1:1][5:4] [book]'
    """
    return _evaluate_many([_parse(hand)], _source(rules, tables))[0]


def evaluate_batch(
    ids: npt.ArrayLike, rules: RulesLike = None, *, tables: str | os.PathLike[str] | None = None
) -> dict[str, npt.NDArray[Any]]:
    """Evaluate many hands: ``ids`` has shape (n, 5), tile ids in any order.

    Returns arrays of length n: ``tiles`` (canonical, sorted), ``has_bull``,
    ``reachable`` (bit d: last digit d), ``points`` (255: none), ``strength``,
    ``bull_mask`` (bits of sorted positions), ``values`` (bit 0 [2:1] = 6, bit 1
    [4:2] = 6; 255 no bull) and, with a decline analysis, ``banker`` (n, 11),
    ``ev_declare``, ``ev_banker_first``, ``ev_banker_last`` (floats; exact numerators
    over 80,730 as ``*_num``), ``decision_last`` and ``decline_at_least`` (255: none).

    >>> book = {**load_rules("macau").to_data(), "name": "book"}
    >>> out = evaluate_batch([[30, 28, 12, 11, 3], [31, 29, 12, 11, 4]], rules=book)
    >>> out["points"].tolist(), out["tiles"][1].tolist()
    ([10, 10], [3, 11, 12, 28, 30])
    """
    arr = item_ids(ids, 32, (5,), "tile")  # exact ids or an error naming row and column
    canon = canonicalize_array(arr)
    src = _source(rules, tables)
    cols = dict(src.lookup(canon))
    out: dict[str, npt.NDArray[Any]] = {"tiles": canon}
    out |= {k: np.asarray(v) for k, v in cols.items() if not k.startswith("banker_")}
    if src.rules.has_decline:
        out["banker"] = np.stack([np.asarray(cols[f"banker_{k}"]) for k in range(11)], axis=1)
        out["ev_declare"] = out["ev_declare_num"] / BANKER_HANDS
        out["ev_banker_first"] = out.pop("ev_first_num") / BANKER_HANDS
        out["ev_banker_last"] = out.pop("ev_last_num") / BANKER_HANDS
    return out


# ---------------------------------------------------------------- showdowns


def _check_pair(player: tuple[Tile, ...], banker: tuple[Tile, ...]) -> None:
    counts = Counter(TYPE_OF_TILE[t] for t in (*player, *banker))
    for t, n in sorted(counts.items()):
        if n > TYPE_COPIES[t]:
            raise ParseError(
                f"tile {TYPE_NAMES[t]} is held {n} times in the two hands; "
                f"the set has {TYPE_COPIES[t]}"
            )


def _reveals(rules: TauNgauRules, banker_reveals: str | None) -> str:
    mode = banker_reveals or rules.banker_reveals
    if mode not in TauNgauRules.REVEALS:
        raise BullError(f"banker_reveals is {mode!r}; expected first or last")
    return mode


def _declines(p: TauNgauHand, b: TauNgauHand, rules: TauNgauRules, mode: str) -> bool:
    if not (rules.has_decline and p.has_bull):
        return False
    if mode == "first":
        return rules.declines_first(p.strength, b.strength)
    return p.decision_last is Decision.DECLINE


def _winner(net: int) -> str:
    return "player" if net > 0 else "banker" if net < 0 else "push"


def compare(
    player: HandLike,
    banker: HandLike,
    rules: RulesLike = None,
    *,
    banker_reveals: str | None = None,
    tables: str | os.PathLike[str] | None = None,
) -> Showdown[TauNgauHand]:
    """Who wins ``player`` against ``banker`` and why (see :func:`settle`).

    >>> compare("[6:5][4:1][2:2][3:3][5:4]", "[5:4][2:2][6:6][4:4][1:1]", rules="no-such")
    Traceback (most recent call last):
    ...
    solver.core.errors.ParseError: tile [5:4] is held 2 times in the two hands; the set has 1
    """
    return settle(player, banker, rules, banker_reveals=banker_reveals, tables=tables).showdown


def settle(
    player: HandLike,
    banker: HandLike,
    rules: RulesLike = None,
    *,
    banker_reveals: str | None = None,
    tables: str | os.PathLike[str] | None = None,
) -> Settlement[TauNgauHand]:
    """Settle ``player`` against ``banker`` (one tile set): both nets in stakes.

    ``banker_reveals`` (``first``/``last``; default: the rule set's) decides what the
    player knows when he chooses whether to decline his bull.

    >>> book = {**load_rules("macau").to_data(), "name": "book"}
    >>> settle("[6:5][4:1][6:4][6:4][5:5]", "[5:4][2:2][3:2][5:3][6:1]", rules=book).net
    3
    """
    ph, bh = _parse(player), _parse(banker)
    _check_pair(ph, bh)
    src = _source(rules, tables)
    mode = _reveals(src.rules, banker_reveals)
    p, b = _evaluate_many([ph, bh], src)
    declines = _declines(p, b, src.rules, mode)
    net, banker_net = settle_strengths(p.strength, b.strength, src.rules, declines)
    sides = {"player": {**_side_json(p), "declines": declines}, "banker": _side_json(b)}
    why = settle_reason({**sides, "net": net}, src.rules.settlement)
    show = Showdown(p, b, _winner(net), why, src.rules.name, declines, mode)
    return Settlement(show, net, banker_net)


def settle_batch(
    player: npt.ArrayLike,
    banker: npt.ArrayLike,
    rules: RulesLike = None,
    *,
    banker_reveals: str | None = None,
    tables: str | os.PathLike[str] | None = None,
) -> dict[str, npt.NDArray[Any]]:
    """Vectorised :func:`compare` over (n, 5) id arrays (hands of a row must not share
    a physical tile id). Returns ``net``, ``banker_net``, ``declines`` and ``winner``
    (1 player, -1 banker, 0 push)."""
    pa_, ba_ = item_ids(player, 32, (5,), "tile"), item_ids(banker, 32, (5,), "tile")
    check_paired(len(pa_), len(ba_), ("player", "banker"))
    both = np.concatenate([pa_, ba_], axis=1)
    srt = np.sort(both, axis=1)
    if np.any(srt[:, 1:] == srt[:, :-1]):
        raise ParseError("a row's two hands share a tile id")
    src = _source(rules, tables)
    mode = _reveals(src.rules, banker_reveals)
    p = evaluate_batch(pa_, src.rules, tables=tables)
    b = evaluate_batch(ba_, src.rules, tables=tables)
    r = src.rules
    ps, bs = p["strength"].astype(np.int64), b["strength"].astype(np.int64)
    pay = np.array([r.payoff_value(s) for s in range(11)], dtype=np.int64)
    no_bull = r.no_bull_payments()
    declines = np.zeros(len(ps), dtype=bool)
    if r.has_decline:
        if mode == "first":
            declines = (ps > 0) & (pay[ps] - pay[bs] < -no_bull[bs])
        else:
            declines = p["decision_last"] == Decision.DECLINE
    eff = np.where(declines, 0, ps)
    if r.settlement == "difference":
        net = np.where(eff == 0, -no_bull[bs], pay[eff] - pay[bs])
        banker_net = -net
    else:
        net = np.sign(eff - bs)
        banker_net = np.sign(bs - eff)
    return {"net": net, "banker_net": banker_net, "declines": declines, "winner": np.sign(net)}


# ---------------------------------------------------------------- CLI frontend


def _side_text(role: str, side: dict[str, Any]) -> str:
    hand = "".join(side["hand"])
    if not side["has_bull"]:
        return f"{role} {hand}: no bull"
    vals = "".join(f" {k}={v}" for k, v in (side["values"] or {}).items())
    return (
        f"{role} {hand}: {side['points']} (bull {''.join(side['bull'])} + "
        f"{''.join(side['rest'])}{vals})"
    )


def cli_compare_text(rec: dict[str, Any]) -> str:
    """Three readable lines: each side, then the outcome."""
    p = rec["player"]
    lines = [_side_text("player", p), _side_text("banker", rec["banker"])]
    if p.get("declines"):
        lines[0] += f"; declines the bull (banker reveals {rec['banker_reveals']})"
    outcome = "push" if rec["winner"] == "push" else f"{rec['winner']} wins"
    reason = f" ({rec['reason']})" if rec.get("reason") else ""
    lines.append(f"{outcome}{reason}; player net {rec['net']:+d} [{rec['rules']}]")
    return "\n".join(lines)
