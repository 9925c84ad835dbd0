"""Pok Deng at a whole table: rank several hands, settle a round (``bull rank``,
``bull round``).

Every hand of a table (2 or 3 cards each) comes from one deck (or the rule set's
shoe): a card used more often is an error naming it. Hands rank by type, then points,
then as equal points settle (deng, a house ``two_card_order``); a round settles each
player against the dealer (RULES.md §5), the winner paid its own deng. With
``dealer_pok_first`` a dealer's Pok settles every hand at once, before anyone draws,
so a player of three cards against a dealer's Pok is an error. The dealer's net is
minus the players' sum (no commission in Pok Deng).

>>> r = rank(["6C 4C 5C", "KH 2S 3C", "9S 9D"], "standard")
>>> r.order, r.reasons
((2, 0, 1), ('Pok beats Normal', 'both Normal 5: 3 deng vs 1'))
>>> s = settle_round("KH 2S 3C", ["6C 4C 5C", "9S 9D", "AS 2H"], "standard")
>>> [p.net for p in s.players], s.banker_net
([2, 2, -1], -3)
"""

from __future__ import annotations

import functools
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
from solver.games.pokdeng.commands import _check_options, _eval_record
from solver.games.pokdeng.hands import HandClass, settle_classes, two_card_kind
from solver.games.pokdeng.hands import settle as settle_arrays
from solver.games.pokdeng.play import HandEval, RulesSpec, _resolve, evaluate_batch, evaluate_many
from solver.games.pokdeng.rules import HandType, PokDengRules

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
_TYPE_LABELS = [t.label for t in HandType]


@dataclass(frozen=True, slots=True)
class Ranking:
    """Hands strongest first: ``order`` holds their input positions (0-based),
    ``reasons[i]`` why ``hands[i]`` beats (or ties) ``hands[i + 1]``."""

    order: tuple[int, ...]
    hands: tuple[HandEval, ...]
    reasons: tuple[str, ...]
    rules: str

    def to_json(self) -> dict[str, Any]:
        hands = []
        for i, (pos, h) in enumerate(zip(self.order, self.hands, strict=True)):
            rec = _eval_record(h)
            rec["position"] = pos
            rec["reason"] = self.reasons[i] if i < len(self.reasons) else None
            hands.append(rec)
        return {"order": list(self.order), "hands": hands, "rules": self.rules}


@dataclass(frozen=True, slots=True)
class RoundPlayer:
    """One player's showdown against the dealer; ``net`` in stakes."""

    hand: HandEval
    winner: str
    reason: str
    net: int


@dataclass(frozen=True, slots=True)
class Round:
    """A settled round: each player in input order and the dealer's total."""

    banker: HandEval
    players: tuple[RoundPlayer, ...]
    banker_net: int
    dealer_pok: bool
    rules: str

    def to_json(self) -> dict[str, Any]:
        players = []
        for p in self.players:
            rec = _eval_record(p.hand)
            del rec["rules"]
            rec |= {"winner": p.winner, "reason": p.reason, "net": p.net}
            players.append(rec)
        return {  # Pok Deng names the house side the dealer (RULES.md §8)
            "dealer": _eval_record(self.banker),
            "player_results": players,
            "dealer_net": self.banker_net,
            "dealer_pok": self.dealer_pok,
            "rules": self.rules,
        }


def _max_hands(rules: PokDengRules) -> int:
    return 52 * rules.decks // 2


def _parse_all(hands: Sequence[str], rules: PokDengRules) -> list[tuple[Card, ...]]:
    out = []
    for i, h in enumerate(hands, 1):
        try:
            out.append(parse_hand(h, size=(2, 3), copies=rules.decks))
        except BullError as exc:
            raise ParseError(f"hand {i}: {exc}") from None
    held: dict[Card, list[int]] = {}
    for i, cards in enumerate(out):
        for c in cards:
            held.setdefault(c, []).append(i)
    for c, where in held.items():
        if len(where) > rules.decks:
            names = " and ".join(f"hand {i + 1}" for i in sorted(set(where)))
            if rules.decks == 1:
                raise ParseError(f"card {card_name(c)} is used twice: in {names} (one deck)")
            raise ParseError(
                f"card {card_name(c)} appears {len(where)} times in {names}; "
                f"a {rules.decks}-deck shoe holds {rules.decks}"
            )
    return out


def _net(a: HandEval, b: HandEval, rules: PokDengRules) -> int:
    """``a``'s net against ``b`` (as a player against the dealer)."""
    return settle_classes(a.hand_class, b.hand_class, rules).net


def _beats(a: HandEval, b: HandEval, rules: PokDengRules) -> str:
    ca, cb = a.hand_class, b.hand_class
    if ca.type != cb.type:
        return f"{ca.type.title} beats {cb.type.title}"
    if ca.points != cb.points:
        return f"{ca.type.title} {ca.points} beats {cb.type.title} {cb.points}"
    both = f"both {ca.type.title} {ca.points}"
    if _net(a, b, rules) == 0:
        return f"{both}: a tie"
    if ca.deng != cb.deng:
        return f"{both}: {ca.deng} deng vs {cb.deng}"
    return f"{both}: {settle_classes(ca, cb, rules).reason}"


def rank(hands: Sequence[str], rules: RulesSpec = None, *, tables: Tables = None) -> Ranking:
    """Order 2 or more hands dealt from one deck, strongest first: the stronger hand is
    the one that would collect against the other; equal hands keep their input order."""
    rs = _resolve(rules)
    r = rs.rules
    if not 2 <= len(hands) <= _max_hands(r):
        raise BullError(f"rank takes 2 to {_max_hands(r)} hands (one deck deals that many)")
    ev = evaluate_many(_parse_all(hands, r), r if rs.config is None else rs.config, tables)

    def cmp(i: int, j: int) -> int:
        return -_net(ev[i], ev[j], r)

    order = sorted(range(len(ev)), key=functools.cmp_to_key(cmp))
    ranked = tuple(ev[i] for i in order)
    reasons = tuple(_beats(a, b, r) for a, b in itertools.pairwise(ranked))
    return Ranking(tuple(order), ranked, reasons, r.name)


def settle_round(
    banker: str, players: Sequence[str], rules: RulesSpec = None, *, tables: Tables = None
) -> Round:
    """Settle every player against the dealer (``banker``), all hands from one deck."""
    rs = _resolve(rules)
    r = rs.rules
    if not 1 <= len(players) <= _max_hands(r) - 1:
        raise BullError(f"a round has 1 to {_max_hands(r) - 1} players")
    parsed = _parse_all([banker, *players], r)
    d, *ps = evaluate_many(parsed, r if rs.config is None else rs.config, tables)
    pok = d.type == HandType.POK and r.dealer_pok_first
    for i, p in enumerate(ps, 1):
        if pok and len(p.hand) == 3:
            raise ParseError(
                f"player {i} holds three cards, but the dealer's Pok settles every hand at "
                "once, before anyone draws (dealer_pok_first)"
            )
    out = []
    for p in ps:
        s = settle_classes(p.hand_class, d.hand_class, r)
        out.append(RoundPlayer(p, s.winner, s.reason, s.net))
    return Round(d, tuple(out), -sum(p.net for p in out), pok, r.name)


# ---------------------------------------------------------------- CLI records


def cli_rank(
    hands: list[str], rules: str | None, options: dict[str, Any], tables: str | None
) -> dict[str, Any]:
    _check_options(options, policy_ok=False)
    return rank(hands, rules, tables=tables).to_json()


def _class(h: dict[str, Any]) -> str:
    return str(HandClass(HandType.from_label(h["type"]), h["points"], h["deng"]))


def cli_rank_text(rec: dict[str, Any]) -> str:
    lines = []
    for i, h in enumerate(rec["hands"], 1):
        line = f"{i}. {' '.join(h['hand'])}: {_class(h)} (hand {h['position'] + 1})"
        if h["reason"]:
            line += f" — {h['reason']}"
        lines.append(line)
    return "\n".join(lines) + f"\n[{rec['rules']}]"


def cli_round(
    banker: str, players: list[str], rules: str | None, options: dict[str, Any], tables: str | None
) -> dict[str, Any]:
    _check_options(options, policy_ok=False)
    return settle_round(banker, players, rules, tables=tables).to_json()


def cli_round_text(rec: dict[str, Any]) -> str:
    b = rec["dealer"]
    pok = " (Pok: settles every hand at once)" if rec.get("dealer_pok") else ""
    lines = [f"dealer {' '.join(b['hand'])}: {_class(b)}{pok}"]
    for i, p in enumerate(rec["player_results"], 1):
        why = f" ({p['reason']})" if p.get("reason") else ""
        lines.append(f"player {i} {' '.join(p['hand'])}: {_class(p)}{why}, net {p['net']:+d}")
    lines.append(f"dealer net {rec['dealer_net']:+d} [{rec['rules']}]")
    return "\n".join(lines)


# ---------------------------------------------------------------- streamed rounds


def _settle(
    rounds: Sequence[Sequence[str]], rules: str | None, options: dict[str, Any], tables: str | None
) -> _Batch:
    from solver.kit.parse import PAD, parse_card_hands

    _check_options(options, policy_ok=False)
    rs = _resolve(rules)
    r = rs.rules
    sizes = np.array([len(x) for x in rounds], dtype=np.int64)
    if np.any(sizes < 2) or np.any(sizes > _max_hands(r)):
        raise BullError(f"a round is a dealer and 1 to {_max_hands(r) - 1} players")
    flat = [h for x in rounds for h in x]
    parsed = parse_card_hands(pa.array(flat, pa.string()), (2, 3), copies=r.decks)
    if parsed.bad.any() or not parsed.stated.all():
        i = int(np.flatnonzero(parsed.bad | ~parsed.stated)[0])
        raise BullError(parsed.messages.get(i, f"hand {flat[i]!r} is not a hand"))
    assert parsed.sorted is not None
    ids = parsed.sorted.astype(np.int64)
    n_cards = parsed.size.astype(np.int64)
    start = np.cumsum(sizes) - sizes
    round_of = np.repeat(np.arange(len(rounds)), sizes)
    keys = np.where(ids == PAD, -1, round_of[:, None] * 64 + ids).ravel()
    keys = np.sort(keys[keys >= 0])
    k = r.decks
    if len(keys) > k and np.any(keys[k:] == keys[:-k]):
        card = int(keys[k:][keys[k:] == keys[:-k]][0] % 64)
        raise ParseError(f"card {card_name(card)} is used more often than the deck holds")
    cols = {name: np.zeros(len(flat), dtype=np.int64) for name in ("type", "points", "deng")}
    kind = np.zeros(len(flat), dtype=np.int64)
    spec: RulesSpec = r if rs.config is None else rs.config
    for size in (2, 3):
        rows = np.flatnonzero(n_cards == size)
        if len(rows):
            got = evaluate_batch(ids[rows, :size], spec, tables)
            for name, col in cols.items():
                col[rows] = got[name]
            kind[rows] = two_card_kind(ids[rows, :size])
    is_player = np.ones(len(flat), dtype=bool)
    is_player[start] = False
    d = start[round_of]  # each hand's dealer
    pok = (cols["type"][start] == HandType.POK) & r.dealer_pok_first
    drew = np.bincount(round_of[is_player & (n_cards == 3)], minlength=len(rounds)) > 0
    if np.any(pok & drew):
        raise ParseError(
            "a player holds three cards, but the dealer's Pok settles every hand at once, "
            "before anyone draws (dealer_pok_first)"
        )
    c = cols
    net = settle_arrays(
        c["type"], c["points"], c["deng"], c["type"][d], c["points"][d], c["deng"][d],
        r, kind, kind[d],
    )  # fmt: skip
    net = np.where(is_player, net, 0).astype(np.int64)
    totals = -np.bincount(round_of, weights=net, minlength=len(rounds))
    return _Batch(
        ids, n_cards, cols, net, is_player, start, sizes, totals.astype(np.int64).tolist(),
        pok.tolist(), r.name,
    )  # fmt: skip


@dataclass(frozen=True, slots=True)
class _Batch:
    """Many settled rounds as arrays over their hands (each round: dealer, then players)."""

    ids: npt.NDArray[np.int64]
    n_cards: npt.NDArray[np.int64]
    cols: dict[str, npt.NDArray[np.int64]]
    net: npt.NDArray[np.int64]
    is_player: npt.NDArray[np.bool_]
    start: npt.NDArray[np.int64]
    sizes: npt.NDArray[np.int64]
    banker_net: list[int]
    pok: list[bool]
    rules: str


_WINNER = {1: "player", -1: "dealer", 0: "push"}


def round_records(
    rounds: Sequence[Sequence[str]],
    rules: str | None,
    options: dict[str, Any],
    tables: str | None,
) -> list[dict[str, Any]]:
    """Many rounds at once (each: the dealer's hand, then the players'), vectorised.
    A bad round raises :class:`BullError` (the caller retries one by one to name it)."""
    b = _settle(rounds, rules, options, tables)
    rows = zip(b.ids.tolist(), b.n_cards.tolist(), strict=True)
    cards = [[CARD_NAMES[x] for x in row[:n]] for row, n in rows]
    types = [_TYPE_LABELS[t] for t in b.cols["type"].tolist()]
    pts, deng, nets = b.cols["points"].tolist(), b.cols["deng"].tolist(), b.net.tolist()

    def side(j: int) -> dict[str, Any]:
        return {"hand": cards[j], "type": types[j], "points": pts[j], "deng": deng[j]}

    out = []
    for k, (s, n) in enumerate(zip(b.start.tolist(), b.sizes.tolist(), strict=True)):
        players = []
        for j in range(s + 1, s + n):
            rec = side(j)
            rec |= {"winner": _WINNER[(nets[j] > 0) - (nets[j] < 0)], "net": nets[j]}
            players.append(rec)
        out.append(
            {
                "dealer": side(s),
                "player_results": players,
                "dealer_net": b.banker_net[k],
                "dealer_pok": b.pok[k],
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
    t, p, d, net, player = b.cols["type"], b.cols["points"], b.cols["deng"], b.net, b.is_player

    def tail(i: int) -> str:
        text = f', "type": "{_TYPE_LABELS[int(t[i])]}", "points": {int(p[i])}, "deng": {int(d[i])}'
        if not player[i]:
            return text + "}"
        n = int(net[i])
        return text + f', "winner": "{_WINNER[(n > 0) - (n < 0)]}", "net": {n}}}'

    key = (((t * 10 + p) * 256 + d) * 1024 + (net + 512)) * 2 + player
    tails = unique_texts(key, tail)
    texts = hand_texts(b.ids, CARD_NAMES, b.n_cards, prefix='{"hand": ', suffixes=tails)
    rest = [
        f', "dealer_net": {n}, "dealer_pok": {dumps(k)}, "rules": {dumps(b.rules)}'
        for n, k in zip(b.banker_net, b.pok, strict=True)
    ]
    return round_lines(texts, texts, b.start, b.sizes, rest, house="dealer")


def drill_deck(rules: RulesSpec = None, tables: Tables = None) -> Any:
    """What ``bull drill`` deals: two cards a hand (no drawing), points only."""
    from solver.games.pokdeng.drill import drill_deck_of

    return drill_deck_of(_resolve(rules).rules.decks)


def _text_lines(b: _Batch) -> list[str]:
    from solver.kit.rounds import hand_texts, text_lines, unique_texts

    t, p, d, net, player = b.cols["type"], b.cols["points"], b.cols["deng"], b.net, b.is_player
    pos = np.arange(len(t)) - np.repeat(b.start, b.sizes)
    heads = ["dealer "] + [f"player {i} " for i in range(1, int(b.sizes.max()))]
    prefixes = [heads[i] for i in pos.tolist()]
    pok = np.repeat(np.array(b.pok, dtype=np.int64), b.sizes)

    def tail(i: int) -> str:
        c = str(HandClass(HandType(int(t[i])), int(p[i]), int(d[i])))
        if not player[i]:
            return f": {c}" + (" (Pok: settles every hand at once)" if pok[i] else "")
        return f": {c}, net {int(net[i]):+d}"

    key = ((((t * 10 + p) * 256 + d) * 1024 + (net + 512)) * 2 + player) * 2 + pok
    tails = unique_texts(key, tail)
    style = (False, " ", "", "")
    hands = hand_texts(b.ids, CARD_NAMES, b.n_cards, prefix=prefixes, suffixes=tails, style=style)
    ends = [f"dealer net {n:+d} [{b.rules}]" for n in b.banker_net]
    return text_lines(hands, b.start, b.sizes, ends)
