"""Niu Niu at a whole table: rank several hands, settle a round (``bull rank``,
``bull round``).

Every hand of a table comes from one deck (or the rule set's shoe): a card used more
often than the deck holds is an error naming it and the hands that hold it. A round is
the banker against each player in turn (RULES.md §3): the winner collects its own
hand's multiplier for the bet; the house keeps ``commission`` of a player's winnings
(none of the banker's), so ``banker_net`` is the banker's gross take.

>>> r = rank(["KS 9H 8C 3D 7S", "JS QS KD 5H 5D", "KH 9S 8D 3C 7H"])
>>> r.order
(1, 0, 2)
>>> r.reasons[1]
'both niu_7; highest card KS beats KH'
>>> s = settle_round("4C 7C 8D JD KH", ["JS QS KS 5H 5D", "AS 2S 3S 4S 6D"], bet="double")
>>> [p.net for p in s.players], s.banker_net, s.house
([2.85, 0.95], -4.0, 0.2)
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

from solver.core.cards import CARD_NAMES, Card, card_name, parse_hand
from solver.core.errors import BullError, ParseError
from solver.games.niuniu.rules import NiuNiuRules
from solver.games.niuniu.runtime import (
    HandLike,
    NiuNiuHand,
    RulesLike,
    _check_commission,
    _evaluate_many,
    _net,
    _source,
    _tie_reason,
    evaluate_batch,
)
from solver.kit.exact import commission_fraction

__all__ = [
    "Ranking",
    "Round",
    "RoundPlayer",
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

Tables = str | os.PathLike[str] | None


@dataclass(frozen=True, slots=True)
class Ranking:
    """Hands strongest first: ``order`` holds their input positions (0-based),
    ``reasons[i]`` why ``hands[i]`` beats (or ties) ``hands[i + 1]``."""

    order: tuple[int, ...]
    hands: tuple[NiuNiuHand, ...]
    reasons: tuple[str, ...]
    rules: str

    def to_json(self) -> dict[str, Any]:
        hands = []
        for i, (pos, h) in enumerate(zip(self.order, self.hands, strict=True)):
            rec = h.to_json()
            rec["position"] = pos
            rec["reason"] = self.reasons[i] if i < len(self.reasons) else None
            hands.append(rec)
        return {"order": list(self.order), "hands": hands, "rules": self.rules}


@dataclass(frozen=True, slots=True)
class RoundPlayer:
    """One player's showdown against the banker; ``net`` after commission."""

    hand: NiuNiuHand
    winner: str
    reason: str
    net: float
    banker_net: float


@dataclass(frozen=True, slots=True)
class Round:
    """A settled round: each player in input order, the banker's total and the
    house's commission."""

    banker: NiuNiuHand
    players: tuple[RoundPlayer, ...]
    banker_net: float
    house: float
    bet: str
    commission: float
    rules: str

    def to_json(self) -> dict[str, Any]:
        return {
            "banker": self.banker.to_json(),
            "player_results": [
                {
                    "hand": p.hand.to_json()["hand"],
                    "category": p.hand.category.label,
                    "winner": p.winner,
                    "reason": p.reason,
                    "net": p.net,
                }
                for p in self.players
            ],
            "banker_net": self.banker_net,
            "house": self.house,
            "bet": self.bet,
            "commission": self.commission,
            "commission_fraction": commission_fraction(self.commission),
            "rules": self.rules,
        }


def _max_hands(rules: NiuNiuRules) -> int:
    return rules.deck_size * rules.decks // 5


def _check_deck(hands: Sequence[tuple[Card, ...]], rules: NiuNiuRules, what: str) -> None:
    """No card more often than the deck (shoe) holds, naming it and its hands."""
    held: dict[Card, list[int]] = {}
    for i, cards in enumerate(hands):
        for c in cards:
            held.setdefault(c, []).append(i)
    for c, where in held.items():
        if len(where) > rules.decks:
            names = " and ".join(f"{what} {i + 1}" for i in sorted(set(where)))
            if rules.decks == 1:
                raise ParseError(f"card {card_name(c)} is used twice: in {names} (one deck)")
            raise ParseError(
                f"card {card_name(c)} appears {len(where)} times in {names}; "
                f"a {rules.decks}-deck shoe holds {rules.decks}"
            )


def _parse_all(hands: Sequence[HandLike], rules: NiuNiuRules, what: str) -> list[tuple[Card, ...]]:
    out = []
    for i, h in enumerate(hands, 1):
        try:
            cards = parse_hand(h, size=5, copies=rules.decks)
            rules.check_cards(cards)
        except BullError as exc:
            raise ParseError(f"{what} {i}: {exc}") from None
        out.append(cards)
    _check_deck(out, rules, what)
    return out


def _beats(a: NiuNiuHand, b: NiuNiuHand, rules: NiuNiuRules) -> str:
    if a.strength == b.strength:
        return f"both {a.category.label}, equal on the tie-break: a tie"
    if a.category != b.category:
        return f"{a.category.label} beats {b.category.label}"
    return _tie_reason(a, b, rules)


def rank(
    hands: Sequence[HandLike],
    rules: RulesLike = None,
    *,
    bet: str | None = None,
    tables: Tables = None,
) -> Ranking:
    """Order 2 or more hands dealt from one deck, strongest first (equal hands, only
    possible from a shoe, keep their input order)."""
    src = _source(rules, tables)
    r = src.rules
    if not 2 <= len(hands) <= _max_hands(r):
        raise BullError(f"rank takes 2 to {_max_hands(r)} hands (one deck deals that many)")
    parsed = _parse_all(hands, r, "hand")
    ev = _evaluate_many(parsed, src, r.bet(bet), few=True)
    order = sorted(range(len(ev)), key=lambda i: -ev[i].strength)
    ranked = tuple(ev[i] for i in order)
    reasons = tuple(_beats(a, b, r) for a, b in itertools.pairwise(ranked))
    return Ranking(tuple(order), ranked, reasons, r.name)


def settle_round(
    banker: str,
    players: Sequence[str],
    rules: RulesLike = None,
    *,
    bet: str | None = None,
    commission: float | None = None,
    tables: Tables = None,
) -> Round:
    """Settle every player against the banker, all hands from one deck."""
    src = _source(rules, tables)
    r = src.rules
    if not 1 <= len(players) <= _max_hands(r) - 1:
        raise BullError(f"a round has 1 to {_max_hands(r) - 1} players")
    bet_name = r.bet(bet)
    comm = r.commission if commission is None else _check_commission(commission)
    row = r.multiplier_row(bet_name)
    parsed = _parse_all([banker, *players], r, "hand")
    b, *ps = _evaluate_many(parsed, src, bet_name, few=True)
    out = []
    for p in ps:
        if p.strength == b.strength:
            winner = "banker" if r.on_tie == "banker" else "push"
        else:
            winner = "player" if p.strength > b.strength else "banker"
        reason = _beats(p, b, r) if winner == "player" else _beats(b, p, r)
        net, bnet = _net(winner, row[p.category], row[b.category], comm)
        out.append(RoundPlayer(p, winner, reason, net, bnet + 0.0))
    banker_net = round(sum(p.banker_net for p in out), 12)
    house = round(-banker_net - sum(p.net for p in out), 12)
    return Round(b, tuple(out), banker_net, house + 0.0, bet_name, comm, r.name)


# ---------------------------------------------------------------- CLI records


def cli_rank(
    hands: list[str], rules: str | None, options: dict[str, Any], tables: str | None
) -> dict[str, Any]:
    return rank(hands, rules, bet=options.get("bet"), tables=tables).to_json()


def cli_rank_text(rec: dict[str, Any]) -> str:
    lines = []
    for i, h in enumerate(rec["hands"], 1):
        label = h["category"].replace("_", " ")
        line = f"{i}. {' '.join(h['hand'])}: {label} (hand {h['position'] + 1})"
        if h["reason"]:
            line += f" — {h['reason']}"
        lines.append(line)
    return "\n".join(lines) + f"\n[{rec['rules']}]"


def cli_round(
    banker: str, players: list[str], rules: str | None, options: dict[str, Any], tables: str | None
) -> dict[str, Any]:
    s = settle_round(
        banker,
        players,
        rules,
        bet=options.get("bet"),
        commission=options.get("commission"),
        tables=tables,
    )
    return s.to_json()


def cli_round_text(rec: dict[str, Any]) -> str:
    b = rec["banker"]
    cat = b.get("category", "")
    lines = [f"banker {' '.join(b['hand'])}: {cat.replace('_', ' ')}"]
    for i, p in enumerate(rec["player_results"], 1):
        why = f" ({p['reason']})" if p.get("reason") else ""
        lines.append(
            f"player {i} {' '.join(p['hand'])}: {p['category'].replace('_', ' ')}, "
            f"{p['winner']}{' wins' if p['winner'] != 'push' else ''}{why}, net {p['net']:+g}"
        )
    lines.append(f"banker net {rec['banker_net']:+g} [{rec['rules']}]")
    return "\n".join(lines)


# ---------------------------------------------------------------- streamed rounds


@dataclass(frozen=True, slots=True)
class _Batch:
    """Many settled rounds as arrays over their hands (each round: banker, then players)."""

    ids: npt.NDArray[np.int64]
    category: npt.NDArray[np.int64]
    net: npt.NDArray[np.float64]
    outcome: npt.NDArray[np.int64]  # per hand: 0 banker's own row, 1 player wins, 2 loses, 3 push
    start: npt.NDArray[np.int64]
    sizes: npt.NDArray[np.int64]
    banker_net: list[float]
    house: list[float]
    bet: str
    rules: str
    labels: tuple[str, ...] = ()
    commission: float = 0.0


_WHO = ("banker", "player", "banker", "push")


def _settle(
    rounds: Sequence[Sequence[str]], rules: str | None, options: dict[str, Any], tables: str | None
) -> _Batch:
    """One parse, one table lookup and one settlement for the whole batch."""
    from solver.kit.parse import parse_card_hands

    src = _source(rules, tables)
    r = src.rules
    bet = r.bet(options.get("bet"))
    comm = r.commission if options.get("commission") is None else options["commission"]
    row = np.array(r.multiplier_row(bet), dtype=np.float64)
    sizes = np.array([len(x) for x in rounds], dtype=np.int64)
    if np.any(sizes < 2) or np.any(sizes > _max_hands(r)):
        raise BullError(f"a round is a banker and 1 to {_max_hands(r) - 1} players")
    flat = [h for x in rounds for h in x]
    parsed = parse_card_hands(pa.array(flat, pa.string()), (5,), copies=r.decks)
    if parsed.bad.any() or not parsed.stated.all():
        i = int(np.flatnonzero(parsed.bad | ~parsed.stated)[0])
        raise BullError(parsed.messages.get(i, f"hand {flat[i]!r} is not a hand"))
    assert parsed.sorted is not None
    ids = parsed.sorted.astype(np.int64)
    start = np.cumsum(sizes) - sizes
    round_of = np.repeat(np.arange(len(rounds)), sizes)
    _check_rounds(ids, round_of, r.decks)
    ev = evaluate_batch(ids, r, tables=tables)
    strength = ev["strength"].astype(np.int64)
    category = ev["category"].astype(np.int64)
    is_player = np.ones(len(flat), dtype=bool)
    is_player[start] = False
    bs = strength[start][round_of]
    bc = category[start][round_of]
    win = is_player & (strength > bs)
    lose = is_player & (strength < bs)
    if r.on_tie == "banker":
        lose |= is_player & (strength == bs)
    gain = row[category] * win
    loss = row[bc] * lose
    net = np.round(gain * (1 - comm), 12) - loss
    outcome = np.where(win, 1, np.where(lose, 2, 3))
    outcome[start] = 0
    banker_net = np.bincount(round_of, weights=loss - gain, minlength=len(rounds))
    house = np.bincount(round_of, weights=gain - net - loss, minlength=len(rounds))
    return _Batch(
        ids, category, net, outcome, start, sizes,
        np.round(banker_net, 12).tolist(), (np.round(house, 12) + 0.0).tolist(), bet, r.name,
        r.labels, float(comm),
    )  # fmt: skip


def _check_rounds(ids: npt.NDArray[np.int64], round_of: npt.NDArray[np.int64], decks: int) -> None:
    """No card more often in a round than the deck (shoe) holds."""
    keys = np.sort((round_of[:, None] * 64 + ids).ravel())
    if len(keys) > decks and np.any(keys[decks:] == keys[:-decks]):
        at = int(np.flatnonzero(keys[decks:] == keys[:-decks])[0])
        card = int(keys[at] % 64)
        raise ParseError(f"card {card_name(card)} is used more often than the deck holds")


def round_records(
    rounds: Sequence[Sequence[str]],
    rules: str | None,
    options: dict[str, Any],
    tables: str | None,
) -> list[dict[str, Any]]:
    """Many rounds at once (each: the banker's hand, then the players'), vectorised.
    A bad round raises :class:`BullError` (the caller retries one by one to name it).
    The players' records carry ``hand``, ``category``, ``winner`` and ``net``."""
    b = _settle(rounds, rules, options, tables)
    cards = [[CARD_NAMES[c] for c in row] for row in b.ids.tolist()]
    cats = [b.labels[c] for c in b.category.tolist()]
    nets, who = b.net.tolist(), b.outcome.tolist()
    out = []
    for k, (s, n) in enumerate(zip(b.start.tolist(), b.sizes.tolist(), strict=True)):
        out.append(
            {
                "banker": {"hand": cards[s], "category": cats[s]},
                "player_results": [
                    {"hand": cards[j], "category": cats[j], "winner": _WHO[who[j]], "net": nets[j]}
                    for j in range(s + 1, s + n)
                ],
                "banker_net": b.banker_net[k],
                "house": b.house[k],
                "bet": b.bet,
                "commission": b.commission,
                "commission_fraction": commission_fraction(b.commission),
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
    cat, out_, net = b.category, b.outcome, b.net

    def tail(i: int) -> str:
        label = dumps(b.labels[int(cat[i])])
        if out_[i] == 0:
            return f', "category": {label}}}'
        who, n = _WHO[int(out_[i])], dumps(float(net[i]))
        return f', "category": {label}, "winner": "{who}", "net": {n}}}'

    banker_at = np.maximum.accumulate(np.where(out_ == 0, np.arange(len(cat)), 0))
    key = (out_ * 256 + cat) * 256 + cat[banker_at]
    tails = unique_texts(key, tail)
    texts = hand_texts(b.ids, CARD_NAMES, prefix='{"hand": ', suffixes=tails)
    same = (
        f', "bet": {dumps(b.bet)}, "commission": {b.commission!r}, '
        f'"commission_fraction": {dumps(commission_fraction(b.commission))}, '
        f'"rules": {dumps(b.rules)}'
    )
    rest = [  # float.__repr__ is how json spells a finite float
        f', "banker_net": {bn!r}, "house": {ho!r}{same}'
        for bn, ho in zip(b.banker_net, b.house, strict=True)
    ]
    return round_lines(texts, texts, b.start, b.sizes, rest)


def drill_deck(rules: RulesLike = None, tables: Tables = None) -> Any:
    """What ``bull drill`` deals: the rule set's deck (or shoe), five cards a hand."""
    from solver.games.niuniu.drill import drill_deck_of

    return drill_deck_of(_source(rules, tables).rules)


def _text_lines(b: _Batch) -> list[str]:
    from solver.kit.rounds import hand_texts, text_lines, unique_texts

    cat, out_, net = b.category, b.outcome, b.net
    pos = np.arange(len(cat)) - np.repeat(b.start, b.sizes)
    heads = ["banker "] + [f"player {i} " for i in range(1, int(b.sizes.max()))]
    prefixes = [heads[i] for i in pos.tolist()]

    def tail(i: int) -> str:
        label = b.labels[int(cat[i])].replace("_", " ")
        if out_[i] == 0:
            return f": {label}"
        who = _WHO[int(out_[i])]
        return f": {label}, {who}{' wins' if who != 'push' else ''}, net {float(net[i]):+g}"

    banker_at = np.maximum.accumulate(np.where(out_ == 0, np.arange(len(cat)), 0))
    tails = unique_texts((out_ * 256 + cat) * 256 + cat[banker_at], tail)
    style = (False, " ", "", "")
    hands = hand_texts(b.ids, CARD_NAMES, prefix=prefixes, suffixes=tails, style=style)
    ends = [f"banker net {bn:+g} [{b.rules}]" for bn in b.banker_net]
    return text_lines(hands, b.start, b.sizes, ends)
