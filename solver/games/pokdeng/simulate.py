"""A seeded Monte Carlo simulator of Pok Deng rounds, an independent check of the exact
figures: its small classifier is written from RULES.md and shares no code with
:mod:`solver.games.pokdeng.hands`; a rule file listing its own ``[[types]]`` is read by
its own evaluator of the rule language's documented words (only the parser is shared).
A rule set with ``decks = N`` deals each round from a freshly shuffled shoe of ``52 N``
physical cards (physical card ``i`` has face ``i % 52``), so hands may hold identical
cards."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from solver.core.errors import BullError
from solver.kit.simulation import Arr, SimResult, check_round, deal, summarise

__all__ = ["pokdeng_classes", "simulate_pokdeng"]

_POK, _TONG, _SF, _STRAIGHT, _SAM, _NORMAL = 6, 5, 4, 3, 2, 1


Classes = tuple[Arr, Arr, Arr, Arr]
"""(type level, points, deng, rank of the two-card kind in the house order)."""


def pokdeng_classes(cards: Arr, rules: Any) -> Classes:
    """(type level, points, deng, order) of hands of 2 or 3 card ids, written from RULES
    §5 and §9. Levels: 6 Pok > 5 Tong > 4 Straight Flush > 3 Straight > 2 Sam Lueang > 1
    Normal. ``order``: where a two-card hand's kind (suited, pair or plain) stands in
    the house ``two_card_order`` (3 highest; 0 for three cards or no order).

    >>> pokdeng_classes(np.array([[32, 34]]), _pd_rules("standard"))   # 9S 9D: Pok 8, 2 deng
    (array([6]), array([8]), array([2]), array([0]))
    """
    c = np.asarray(cards, dtype=np.int64)
    if getattr(rules, "types", ()):
        return _typed_classes(c, rules)
    rank, suit = c // 4, c % 4
    value = np.where(rank < 9, rank + 1, 0)
    points = value.sum(axis=1) % 10
    d = rules.deng
    n = len(c)
    if c.shape[1] == 2:
        pair = rank[:, 0] == rank[:, 1]
        suited = suit[:, 0] == suit[:, 1]
        pok = points >= 8
        level = np.where(pok, _POK, _NORMAL)
        deng = np.ones(n, dtype=np.int64)
        deng = np.where(suited, np.where(pok, d.pok_suited, d.two_card_suited), deng)
        deng = np.where(pair, np.where(pok, d.pok_pair, d.two_card_pair), deng)
        house = list(rules.two_card_order)

        def place(kind: str) -> int:
            return len(house) - house.index(kind) if house else 0

        # two identical cards (a shoe) are a pair
        order = np.where(pair, place("pair"), np.where(suited, place("suited"), place("plain")))
        return level, points, deng, order
    srt = np.sort(rank, axis=1)
    same_suit = (suit == suit[:, :1]).all(axis=1)
    tong = srt[:, 0] == srt[:, 2]
    one_pair = ~tong & ((srt[:, 0] == srt[:, 1]) | (srt[:, 1] == srt[:, 2]))
    sam = srt[:, 0] >= 10
    straight = np.zeros(n, dtype=bool)
    if rules.straights:
        run = (srt[:, 1] == srt[:, 0] + 1) & (srt[:, 2] == srt[:, 1] + 1)
        ace_low = run & (srt[:, 0] == 0)
        ace_high = (srt[:, 0] == 0) & (srt[:, 1] == 11) & (srt[:, 2] == 12)
        straight = run & ~ace_low
        if rules.ace in ("low", "both"):
            straight |= ace_low
        if rules.ace in ("high", "both"):
            straight |= ace_high
    level = np.full(n, _NORMAL)
    deng = np.where(same_suit, d.three_suited, np.where(one_pair, d.three_card_pair, 1))
    if not getattr(rules, "flush_with_identical", True):  # one suit with two identical
        deng = np.where(one_pair, d.three_card_pair, deng)
    level = np.where(sam, _SAM, level)
    deng = np.where(sam, d.sam_lueang, deng)
    level = np.where(straight, np.where(same_suit, _SF, _STRAIGHT), level)
    deng = np.where(straight, np.where(same_suit, d.straight_flush, d.straight), deng)
    level = np.where(tong, _TONG, level)
    deng = np.where(tong, d.tong, deng)
    return level, points, deng, np.zeros(n, dtype=np.int64)


_LEVELS = {"normal": _NORMAL, "sam_lueang": _SAM, "straight": _STRAIGHT,
           "straight_flush": _SF, "tong": _TONG, "pok": _POK}  # fmt: skip


def _words(c: Arr) -> dict[str, Arr]:
    """The rule language's words for hands of card ids (its documented meaning)."""
    rank, suit = c // 4, c % 4
    n, size = c.shape
    top = np.zeros(n, dtype=np.int64)
    for j in range(size):
        top = np.maximum(top, (rank == rank[:, j : j + 1]).sum(axis=1))
    return {
        "rank": rank,
        "cards": np.full(n, size),
        "points": np.where(rank < 9, rank + 1, 0).sum(axis=1) % 10,
        "faces": (rank >= 10).sum(axis=1),
        "kind": top,
        "pair": top == 2,
        "suited": (suit == suit[:, :1]).all(axis=1),
    }


def _holds(e: Any, w: dict[str, Arr]) -> Arr:
    """A parsed type predicate (or a number in it) over :func:`_words`."""
    head, n = e[0], len(w["rank"])
    if head == "lit":
        return np.full(n, e[1])
    if head == "var":
        return w[e[1]] if e[1] in w else np.full(n, e[1] == "true")
    if head == "not":
        return ~_holds(e[1], w)
    if head in ("and", "or"):
        parts = [_holds(x, w) for x in e[1:]]
        out = parts[0]
        for x in parts[1:]:
            out = (out & x) if head == "and" else (out | x)
        return out
    if head == "cmp":
        a, b = _holds(e[2], w), _holds(e[3], w)
        got = {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b,
               ">=": a >= b}[e[1]]  # fmt: skip
        return np.asarray(got)
    if e[1] == "all_in":
        return np.asarray(np.isin(w["rank"], list(e[2])).all(axis=1))
    r = np.sort(w["rank"], axis=1)  # straight(low | high | both), three cards
    if r.shape[1] != 3:
        return np.zeros(n, dtype=bool)
    low = (r[:, 1] == r[:, 0] + 1) & (r[:, 2] == r[:, 1] + 1)  # A-2-3 .. J-Q-K
    high = (r[:, 0] == 0) & (r[:, 1] == 11) & (r[:, 2] == 12)  # Q-K-A
    run: Arr = {"low": low, "high": (low & (r[:, 0] != 0)) | high, "both": low | high}[e[2]]
    return run


def _typed_classes(c: Arr, rules: Any) -> Classes:
    """:func:`pokdeng_classes` of a rule file listing its own ``[[types]]``: the first
    type whose predicate holds, its level, its deng (``kind``: as a hand of no type is
    paid, a Pok's two cards by ``pok_pair``/``pok_suited``)."""
    from solver.games.pokdeng.language import parse_type_predicate

    w = _words(c)
    n = len(c)
    level = np.full(n, _NORMAL)
    fixed = np.zeros(n, dtype=np.int64)
    left = np.ones(n, dtype=bool)
    for t in rules.types:
        hit = left & _holds(parse_type_predicate(t.when), w)
        level[hit] = _LEVELS[t.name]
        fixed[hit] = 0 if t.deng is None else t.deng
        left &= ~hit
    d = rules.deng
    rank = c // 4
    if c.shape[1] == 2:
        pair, suited, pok = w["pair"], w["suited"], level == _POK
        paired = np.where(pok, d.pok_pair, d.two_card_pair)
        kind = np.where(
            pair, paired, np.where(suited, np.where(pok, d.pok_suited, d.two_card_suited), 1)
        )
        house = list(rules.two_card_order)

        def place(k: str) -> int:
            return len(house) - house.index(k) if house else 0

        order = np.where(pair, place("pair"), np.where(suited, place("suited"), place("plain")))
    else:
        one_pair = (w["kind"] == 2) & (rank.shape[1] == 3)
        pay_pair = one_pair if not rules.flush_with_identical else one_pair & ~w["suited"]
        kind = np.where(pay_pair, d.three_card_pair, np.where(w["suited"], d.three_suited, 1))
        order = np.zeros(n, dtype=np.int64)
    return level, w["points"], np.where(fixed > 0, fixed, kind), order


def _pd_rules(spec: Any) -> Any:
    from solver.games.pokdeng.rules import PokDengRules, load_rules

    return spec if isinstance(spec, PokDengRules) else load_rules(spec)


def _pd_settle(p: Classes, d: Classes, rules: Any) -> Arr:
    pl, pp, pd, po = p
    dl, dp, dd, do = d
    ps, ds = pl * 10 + pp, dl * 10 + dp
    # equal type and points: the house order of two two-card kinds, else equal_points
    if rules.equal_points == "push":
        tie = np.zeros_like(pd)
    elif rules.equal_points == "higher_deng":
        tie = np.where(pd > dd, pd, np.where(dd > pd, -dd, 0))
    else:
        tie = pd - dd
    tie = np.where((po > 0) & (do > 0) & (po > do), pd, tie)
    tie = np.where((po > 0) & (do > 0) & (po < do), -dd, tie)
    net = np.where(ps > ds, pd, np.where(ps < ds, -dd, tie))
    pays = rules.tong_vs_sam_lueang_pays
    net = np.where((pl == _TONG) & (dl == _SAM), pays, net)
    return np.where((pl == _SAM) & (dl == _TONG), -pays, net)


def _deal_shoe(rng: np.random.Generator, rounds: int, decks: int, cards: int) -> Arr:
    """The first ``cards`` faces of ``rounds`` shuffled shoes of ``52 decks`` cards: the
    ``cards`` smallest of uniform keys, in key order (a uniform random ordered pick)."""
    keys = rng.random((rounds, 52 * decks))
    first = np.argpartition(keys, cards - 1, axis=1)[:, :cards]
    order = np.argsort(np.take_along_axis(keys, first, axis=1), axis=1)
    return np.take_along_axis(first, order, axis=1) % 52


def _pick(mask: Arr, yes: Classes, no: Classes) -> Classes:
    return (
        np.where(mask, yes[0], no[0]),
        np.where(mask, yes[1], no[1]),
        np.where(mask, yes[2], no[2]),
        np.where(mask, yes[3], no[3]),
    )


def simulate_pokdeng(
    rules: Any = None,
    policy: str | Callable[[Arr], Arr] = "simple",
    dealer_draws_at_most: int | None = None,
    rounds: int = 100_000,
    players: int = 4,
    seed: int = 0,
    confidence: float = 0.999,
    batch: int = 50_000,
) -> SimResult:
    """The player's net per stake. ``policy``: ``simple`` (draw on 4 or less) or a
    function from an (n, 2) array of a non-Pok player's cards to booleans (draw?), e.g.
    a strategy table. The dealer draws on ``dealer_draws_at_most`` or less (default: the
    rule set's); a Pok on either side settles with two cards; with ``dealer_pok_first``
    a dealer Pok settles every hand before anyone draws."""
    check_round(rounds, players)
    r = _pd_rules(rules)
    k = r.dealer_draws_at_most if dealer_draws_at_most is None else dealer_draws_at_most
    wants: Callable[[Arr], Arr]
    if policy == "simple":

        def simple(cards: Arr) -> Arr:
            return np.asarray(pokdeng_classes(cards, r)[1] <= 4)

        wants = simple
        name = "draw on 4 or less"
    elif callable(policy):
        wants = policy
        name = getattr(policy, "__name__", "custom")
    else:
        raise BullError(f"unknown Pok Deng policy {policy!r} (simple or a function)")
    rng = np.random.default_rng(seed)
    out = []
    for start in range(0, rounds, batch):
        n = min(batch, rounds - start)
        need = 2 * (players + 1) + players + 1
        decks = getattr(r, "decks", 1)
        deck = deal(rng, n, 52, need) if decks == 1 else _deal_shoe(rng, n, decks, need)
        top = 2 * (players + 1)  # next undealt card per round
        nxt = np.full(n, top)
        dealer2 = deck[:, :2]
        d2 = pokdeng_classes(dealer2, r)
        dealer_pok = d2[0] == _POK
        finals: list[Classes] = []
        for p in range(1, players + 1):
            hand2 = deck[:, 2 * p : 2 * p + 2]
            c2 = pokdeng_classes(hand2, r)
            can = (c2[0] != _POK) & ~(dealer_pok & r.dealer_pok_first)
            draw = can & np.asarray(wants(hand2), dtype=bool)
            third = deck[np.arange(n), nxt]
            nxt = nxt + draw
            c3 = pokdeng_classes(np.concatenate([hand2, third[:, None]], axis=1), r)
            finals.append(_pick(draw, c3, c2))
        d_draw = ~dealer_pok & (d2[1] <= k)
        d_third = deck[np.arange(n), nxt]
        d3 = pokdeng_classes(np.concatenate([dealer2, d_third[:, None]], axis=1), r)
        dfinal = _pick(d_draw, d3, d2)
        net = np.zeros(n)
        for fin in finals:
            net += _pd_settle(fin, dfinal, r)
        out.append(net / players)
    return summarise(
        "pokdeng",
        r.name,
        f"{name}; dealer draws on {k} or less",
        np.concatenate(out),
        players,
        seed,
        confidence,
    )
