"""Tau Ngau at a whole table: rank several hands, settle a round (``bull rank``,
``bull round``).

Every hand of a table comes from one tile set (32 tiles: a civil type twice, a
military type once); a type held more often is an error naming it. Hands rank by their
best score (RULES.md §4, there is no tie-break: equal scores tie). A round settles each
player against the banker as :func:`~solver.games.taungau.play.compare` does, with the
decline decision (``banker_reveals``); ``banker_net`` sums the banker's side.

>>> r = rank(["[6:5][4:1][3:3][5:5][2:2]", "[6:6][4:4][2:1][3:1][1:1]"], "macau")
>>> r.order, r.reasons[0]
((0, 1), 'score 6 beats score 2')
>>> s = settle_round("[6:6][4:4][3:2][5:3][6:1]",
...                  ["[6:5][4:1][6:4][6:4][5:5]", "[5:4][2:2][3:3][1:1][5:5]"], "macau")
>>> [p.net for p in s.players], s.banker_net
([-4, -9], 13)
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from solver.core.errors import BullError, ParseError
from solver.core.tiles import TILE_NAMES, TYPE_COPIES, TYPE_NAMES, TYPE_OF_TILE, Tile
from solver.games.taungau.commands import _check_options
from solver.games.taungau.play import (
    RulesLike,
    Settlement,
    TauNgauHand,
    _evaluate_many,
    _parse,
    _source,
    evaluate_batch,
    settle,
    settle_batch,
    showdown_json,
)

__all__ = [
    "MAX_HANDS",
    "Ranking",
    "Round",
    "cli_rank",
    "cli_rank_text",
    "cli_round",
    "cli_round_text",
    "drill_deck",
    "rank",
    "round_lines",
    "round_records",
    "settle_round",
]

MAX_HANDS = 32 // 5
"""The most hands one tile set deals."""
Tables = str | os.PathLike[str] | None
_TYPE = np.array(TYPE_OF_TILE, dtype=np.int64)
_COPIES = np.array(TYPE_COPIES, dtype=np.int64)


@dataclass(frozen=True, slots=True)
class Ranking:
    """Hands strongest first: ``order`` holds their input positions (0-based),
    ``reasons[i]`` why ``hands[i]`` beats (or ties) ``hands[i + 1]``."""

    order: tuple[int, ...]
    hands: tuple[TauNgauHand, ...]
    reasons: tuple[str, ...]
    rules: str

    def to_json(self) -> dict[str, Any]:
        hands = []
        for i, (pos, h) in enumerate(zip(self.order, self.hands, strict=True)):
            rec = h.to_json()
            rec = {k: rec[k] for k in ("hand", "has_bull", "points", "bull", "rest", "values")}
            rec |= {"strength": h.strength, "position": pos}
            rec["reason"] = self.reasons[i] if i < len(self.reasons) else None
            hands.append(rec)
        return {"order": list(self.order), "hands": hands, "rules": self.rules}


@dataclass(frozen=True, slots=True)
class Round:
    """A settled round: each player's showdown in input order and the banker's total."""

    banker: TauNgauHand
    players: tuple[Settlement[TauNgauHand], ...]
    banker_net: float  # whole stakes: Tau Ngau pays whole numbers
    banker_reveals: str
    rules: str
    settlement: str

    def to_json(self) -> dict[str, Any]:
        players = []
        for s in self.players:
            rec = showdown_json(s)
            p = rec["player"]
            players.append(
                {
                    "hand": p["hand"],
                    "has_bull": p["has_bull"],
                    "points": p["points"],
                    "declines": s.player_declines,
                    "winner": s.winner,
                    "reason": s.reason,
                    "net": s.net,
                }
            )
        b = showdown_json(self.players[0])["banker"]
        return {
            "banker": b,
            "player_results": players,
            "banker_net": self.banker_net,
            "banker_reveals": self.banker_reveals,
            "rules": self.rules,
        }


def _check_set(hands: Sequence[tuple[Tile, ...]]) -> None:
    """No tile type more often than the set holds it, naming it and its hands."""
    held: dict[int, list[int]] = {}
    for i, tiles in enumerate(hands):
        for t in tiles:
            held.setdefault(TYPE_OF_TILE[t], []).append(i)
    for t, where in sorted(held.items()):
        if len(where) > TYPE_COPIES[t]:
            names = " and ".join(f"hand {i + 1}" for i in sorted(set(where)))
            raise ParseError(
                f"tile {TYPE_NAMES[t]} is held {len(where)} times (in {names}); "
                f"the set has {TYPE_COPIES[t]}"
            )


def _parse_all(hands: Sequence[str]) -> list[tuple[Tile, ...]]:
    out = []
    for i, h in enumerate(hands, 1):
        try:
            out.append(_parse(h))
        except BullError as exc:
            raise ParseError(f"hand {i}: {exc}") from None
    _check_set(out)
    return out


def _beats(a: TauNgauHand, b: TauNgauHand) -> str:
    if a.strength == b.strength:
        return "neither has a bull: a tie" if not a.has_bull else f"both score {a.points}: a tie"
    if not b.has_bull:
        return f"score {a.points} beats no bull"
    return f"score {a.points} beats score {b.points}"


def rank(hands: Sequence[str], rules: RulesLike = None, *, tables: Tables = None) -> Ranking:
    """Order 2 to 6 hands from one tile set by best score, strongest first (equal
    scores tie and keep their input order)."""
    if not 2 <= len(hands) <= MAX_HANDS:
        raise BullError(f"rank takes 2 to {MAX_HANDS} hands (one tile set deals that many)")
    src = _source(rules, tables)
    ev = _evaluate_many(_parse_all(hands), src)
    order = sorted(range(len(ev)), key=lambda i: -ev[i].strength)
    ranked = tuple(ev[i] for i in order)
    reasons = tuple(_beats(a, b) for a, b in itertools.pairwise(ranked))
    return Ranking(tuple(order), ranked, reasons, src.rules.name)


def settle_round(
    banker: str,
    players: Sequence[str],
    rules: RulesLike = None,
    *,
    banker_reveals: str | None = None,
    tables: Tables = None,
) -> Round:
    """Settle every player against the banker, all hands from one tile set; each
    player declines his bull when the rules and ``banker_reveals`` make that right."""
    if not 1 <= len(players) <= MAX_HANDS - 1:
        raise BullError(f"a round has 1 to {MAX_HANDS - 1} players")
    parsed = _parse_all([banker, *players])
    src = _source(rules, tables)
    shows = []
    for p in parsed[1:]:
        shows.append(settle(p, parsed[0], src.rules, banker_reveals=banker_reveals, tables=tables))
    total = sum(s.banker_net for s in shows)
    b = _evaluate_many([parsed[0]], src)[0]
    mode = shows[0].showdown.banker_reveals or src.rules.banker_reveals
    return Round(b, tuple(shows), total, mode, src.rules.name, src.rules.settlement)


# ---------------------------------------------------------------- CLI records


def cli_rank(
    hands: list[str], rules: str | None, options: dict[str, Any], tables: str | None
) -> dict[str, Any]:
    _check_options(options)
    return rank(hands, rules, tables=tables).to_json()


def _score(h: dict[str, Any]) -> str:
    return f"{h['points']}" if h["has_bull"] else "no bull"


def cli_rank_text(rec: dict[str, Any]) -> str:
    lines = []
    for i, h in enumerate(rec["hands"], 1):
        line = f"{i}. {''.join(h['hand'])}: {_score(h)} (hand {h['position'] + 1})"
        if h["reason"]:
            line += f" — {h['reason']}"
        lines.append(line)
    return "\n".join(lines) + f"\n[{rec['rules']}]"


def cli_round(
    banker: str, players: list[str], rules: str | None, options: dict[str, Any], tables: str | None
) -> dict[str, Any]:
    mode = _check_options(options)
    return settle_round(banker, players, rules, banker_reveals=mode, tables=tables).to_json()


def cli_round_text(rec: dict[str, Any]) -> str:
    lines = [f"banker {''.join(rec['banker']['hand'])}: {_score(rec['banker'])}"]
    for i, p in enumerate(rec["player_results"], 1):
        why = f" ({p['reason']})" if p.get("reason") else ""
        dec = "; declines" if p["declines"] else ""
        lines.append(f"player {i} {''.join(p['hand'])}: {_score(p)}{dec}{why}, net {p['net']:+d}")
    lines.append(f"banker net {rec['banker_net']:+d} [{rec['rules']}]")
    return "\n".join(lines)


# ---------------------------------------------------------------- streamed rounds


@dataclass(frozen=True, slots=True)
class _Batch:
    """Many settled rounds as arrays over their hands (each round: banker, then players)."""

    ids: npt.NDArray[np.int64]
    points: npt.NDArray[np.int64]  # 255: no bull
    net: npt.NDArray[np.int64]  # 0 for a banker's row
    declines: npt.NDArray[np.bool_]
    is_player: npt.NDArray[np.bool_]
    start: npt.NDArray[np.int64]
    sizes: npt.NDArray[np.int64]
    banker_net: list[int]
    mode: str
    rules: str


def _settle(
    rounds: Sequence[Sequence[str]], rules: str | None, options: dict[str, Any], tables: str | None
) -> _Batch:
    from solver.kit.parse import parse_tile_hands

    mode = _check_options(options)
    src = _source(rules, tables)
    sizes = np.array([len(x) for x in rounds], dtype=np.int64)
    if np.any(sizes < 2) or np.any(sizes > MAX_HANDS):
        raise BullError(f"a round is a banker and 1 to {MAX_HANDS - 1} players")
    flat = [h for x in rounds for h in x]
    ids = _bracketed(flat)
    if ids is None:
        parsed = parse_tile_hands(pa.array(flat, pa.string()), (5,))
        if parsed.bad.any() or not parsed.stated.all():
            i = int(np.flatnonzero(parsed.bad | ~parsed.stated)[0])
            raise BullError(parsed.messages.get(i, f"hand {flat[i]!r} is not a hand"))
        ids = np.sort(parsed.ids.astype(np.int64), axis=1)
    start = np.cumsum(sizes) - sizes
    round_of = np.repeat(np.arange(len(rounds)), sizes)
    types = _TYPE[ids]
    counts = np.bincount((round_of[:, None] * 21 + types).ravel(), minlength=21 * len(rounds))
    over = counts.reshape(-1, 21) > _COPIES
    if over.any():
        t = int(np.flatnonzero(over.any(axis=0))[0])
        raise ParseError(f"tile {TYPE_NAMES[t]} is held more often than the set has it")
    is_player = np.ones(len(flat), dtype=bool)
    is_player[start] = False
    banker_ids = ids[start][round_of[is_player]]
    player_ids = ids[is_player]
    # the other copy of a civil tile the banker holds too: the pair shares no tile id
    shared = (types[is_player][:, :, None] == _TYPE[banker_ids][:, None, :]).any(axis=2)
    got = settle_batch(
        player_ids + shared, banker_ids, src.rules, banker_reveals=mode, tables=tables
    )
    ev = evaluate_batch(ids, src.rules, tables=tables)
    points = np.where(ev["has_bull"], ev["points"].astype(np.int64), 255)
    net = np.zeros(len(ids), dtype=np.int64)
    net[is_player] = got["net"]
    dec = np.zeros(len(ids), dtype=bool)
    dec[is_player] = got["declines"]
    totals = np.bincount(round_of[is_player], weights=got["banker_net"], minlength=len(sizes))
    return _Batch(
        ids, points, net, dec, is_player, start, sizes, totals.astype(np.int64).tolist(),
        mode or src.rules.banker_reveals, src.rules.name,
    )  # fmt: skip


_WINNER = {1: "player", -1: "banker", 0: "push"}
_TYPE_AT = np.full((10, 10), -1, dtype=np.int64)
for _t, (_hi, _lo) in enumerate((int(n[1]), int(n[3])) for n in TYPE_NAMES):
    _TYPE_AT[_hi, _lo] = _TYPE_AT[_lo, _hi] = _t
_FIRST = np.array([TYPE_OF_TILE.index(t) for t in range(21)], dtype=np.int64)


def _bracketed(flat: Sequence[str]) -> npt.NDArray[np.int64] | None:
    """Canonical sorted ids of hands all written ``[a:b][c:d]...`` (five tiles, 25
    characters), read at once; ``None`` when any hand is spelled otherwise (the general
    parser then reads them and names a bad one). Tiles more often than the set holds
    are left to the round's count check."""
    try:
        raw = "".join(flat).encode("ascii")
    except UnicodeEncodeError:
        return None
    if len(raw) != 25 * len(flat) or not flat:
        return None
    b = np.frombuffer(raw, dtype=np.uint8).reshape(len(flat), 25).astype(np.int64)
    if not (np.all(b[:, 0::5] == 91) and np.all(b[:, 2::5] == 58) and np.all(b[:, 4::5] == 93)):
        return None
    hi, lo = b[:, 1::5] - 48, b[:, 3::5] - 48
    if np.any(hi < 0) or np.any(hi > 9) or np.any(lo < 0) or np.any(lo > 9):
        return None
    types = np.sort(_TYPE_AT[hi, lo], axis=1)
    if np.any(types < 0):
        return None
    second = np.zeros_like(types)
    second[:, 1:] = types[:, 1:] == types[:, :-1]
    ids = _FIRST[types] + second
    if np.any(_TYPE[np.minimum(ids, 31)] != types) or np.any(ids[:, 1:] == ids[:, :-1]):
        return None  # a military tile twice, or a civil one three times
    return ids


def round_records(
    rounds: Sequence[Sequence[str]],
    rules: str | None,
    options: dict[str, Any],
    tables: str | None,
) -> list[dict[str, Any]]:
    """Many rounds at once (each: the banker's hand, then the players'), vectorised.
    A bad round raises :class:`BullError` (the caller retries one by one to name it)."""
    b = _settle(rounds, rules, options, tables)
    tiles = [[TILE_NAMES[t] for t in row] for row in b.ids.tolist()]
    pts: list[int | None] = [None if p == 255 else p for p in b.points.tolist()]
    bull = (b.points != 255).tolist()
    net_l, dec_l = b.net.tolist(), b.declines.tolist()
    out = []
    for k, (s, n) in enumerate(zip(b.start.tolist(), b.sizes.tolist(), strict=True)):
        out.append(
            {
                "banker": {"hand": tiles[s], "has_bull": bull[s], "points": pts[s]},
                "player_results": [
                    {
                        "hand": tiles[j],
                        "has_bull": bull[j],
                        "points": pts[j],
                        "declines": dec_l[j],
                        "winner": _WINNER[(net_l[j] > 0) - (net_l[j] < 0)],
                        "net": net_l[j],
                    }
                    for j in range(s + 1, s + n)
                ],
                "banker_net": b.banker_net[k],
                "banker_reveals": b.mode,
                "rules": b.rules,
            }
        )
    return out


def round_lines(
    rounds: Sequence[Sequence[str]],
    rules: str | None,
    options: dict[str, Any],
    tables: str | None,
    text: bool = False,
) -> list[str]:
    """The JSON lines of :func:`round_records` (``text``: their :func:`cli_round_text`),
    rendered without a dict per player."""
    from solver.kit.rounds import dumps, hand_texts, round_lines, unique_texts

    b = _settle(rounds, rules, options, tables)
    if text:
        return _text_lines(b)
    pts, net, dec, player = b.points, b.net, b.declines, b.is_player

    def tail(i: int) -> str:
        p = int(pts[i])
        text = f', "has_bull": {dumps(p != 255)}, "points": {dumps(None if p == 255 else p)}'
        if not player[i]:
            return text + "}"
        n = int(net[i])
        return (
            text + f', "declines": {dumps(bool(dec[i]))}, '
            f'"winner": "{_WINNER[(n > 0) - (n < 0)]}", "net": {n}}}'
        )

    key = ((pts * 64 + (net + 32)) * 2 + dec) * 2 + player
    tails = unique_texts(key, tail)
    texts = hand_texts(b.ids, TILE_NAMES, prefix='{"hand": ', suffixes=tails)
    same = f', "banker_reveals": {dumps(b.mode)}, "rules": {dumps(b.rules)}'
    rest = [f', "banker_net": {n}{same}' for n in b.banker_net]
    return round_lines(texts, texts, b.start, b.sizes, rest)


def drill_deck(rules: RulesLike = None, tables: Tables = None) -> Any:
    """What ``bull drill`` deals: the 32 tiles, five a hand."""
    from solver.games.taungau.drill import drill_deck_of

    return drill_deck_of(_source(rules, tables).rules)


def _text_lines(b: _Batch) -> list[str]:
    from solver.kit.rounds import hand_texts, text_lines, unique_texts

    pts, net, dec, player = b.points, b.net, b.declines, b.is_player
    pos = np.arange(len(pts)) - np.repeat(b.start, b.sizes)
    heads = ["banker "] + [f"player {i} " for i in range(1, int(b.sizes.max()))]
    prefixes = [heads[i] for i in pos.tolist()]

    def tail(i: int) -> str:
        p = int(pts[i])
        score = "no bull" if p == 255 else str(p)
        if not player[i]:
            return f": {score}"
        return f": {score}{'; declines' if dec[i] else ''}, net {int(net[i]):+d}"

    key = ((pts * 64 + (net + 32)) * 2 + dec) * 2 + player
    tails = unique_texts(key, tail)
    style = (False, "", "", "")
    hands = hand_texts(b.ids, TILE_NAMES, prefix=prefixes, suffixes=tails, style=style)
    ends = [f"banker net {n:+d} [{b.rules}]" for n in b.banker_net]
    return text_lines(hands, b.start, b.sizes, ends)
