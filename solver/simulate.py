"""A seeded Monte Carlo simulator of whole rounds: an independent check of the exact figures.

Each round shuffles one deck (or tile set), deals the banker/dealer and ``players``
players from it, lets everyone play the stated policy, and settles every player against
the banker. The simulator shares **no evaluation code** with the exact method: its small
per-hand evaluators below are written from RULES.md and read only the rule-set data
(multipliers, specials, tie-break, deng, ...). No table, no game module's evaluator.

The estimate is the mean of the per-round average player net; the confidence interval
is the normal interval over rounds (players of one round are not independent, rounds
are).

>>> r = simulate("niuniu", rules="classic", rounds=2000, players=3, seed=1)
>>> r.rounds, r.players, r.ci_low < r.mean < r.ci_high
(2000, 3, True)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np
import numpy.typing as npt

from .errors import BullError

__all__ = [
    "SimResult",
    "niuniu_hands",
    "pokdeng_classes",
    "simulate",
    "simulate_niuniu",
    "simulate_pokdeng",
    "simulate_taungau",
    "taungau_hands",
]

Arr = npt.NDArray[Any]


@dataclass(frozen=True)
class SimResult:
    """A Monte Carlo estimate of the player's EV per stake, with its interval."""

    game: str
    rules: str
    policy: str
    rounds: int
    players: int
    seed: int
    mean: float
    stderr: float
    confidence: float
    ci_low: float
    ci_high: float

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies inside the confidence interval."""
        return self.ci_low <= float(value) <= self.ci_high

    def to_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _summarise(
    game: str, rules: str, policy: str, per_round: Arr, players: int, seed: int, confidence: float
) -> SimResult:
    n = len(per_round)
    mean = float(per_round.mean())
    se = float(per_round.std(ddof=1) / np.sqrt(n)) if n > 1 else float("inf")
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    return SimResult(
        game, rules, policy, n, players, seed, mean, se, confidence, mean - z * se, mean + z * se
    )


def _deal(rng: np.random.Generator, rounds: int, deck: int, cards: int) -> Arr:
    """``rounds`` shuffled decks of ids 0..deck-1, the first ``cards`` of each."""
    if cards > deck:
        raise BullError(f"a round needs {cards} items but the deck has {deck}")
    keys = rng.random((rounds, deck))
    return np.argsort(keys, axis=1)[:, :cards]


def _check(rounds: int, players: int) -> None:
    if rounds < 2:
        raise BullError(f"rounds must be at least 2, got {rounds}")
    if players < 1:
        raise BullError(f"players must be at least 1, got {players}")


# ---------------------------------------------------------------- Niu Niu


def niuniu_hands(cards: Arr, rules: Any) -> tuple[Arr, Arr]:
    """(category index, comparison key) of hands ``cards`` (shape (n, 5), ids
    ``rank * 4 + suit``, rank 0 = A .. 12 = K, suit 0..3 = S H D C), written from
    RULES §3. Categories: 0 no bull, 1..9 Niu n, 10 Niu Niu, then 11 five faces, 12 four
    faces, 13 four of a kind, 14 straight flush, 15 five small bull.

    >>> cat, _ = niuniu_hands(np.array([[24, 8, 36, 28, 20]]), _nn_rules("classic"))
    >>> cat.tolist()                                  # 7 3 10 8 6: Niu 4
    [4]
    """
    c = np.asarray(cards, dtype=np.int64)
    rank, suit = c // 4, c % 4
    value = np.minimum(rank + 1, 10)
    total = value.sum(axis=1)
    # a bull leaves two cards whose sum has the same last digit as the whole hand
    bull = np.zeros(len(c), dtype=bool)
    for i in range(5):
        for j in range(i + 1, 5):
            bull |= (value[:, i] + value[:, j] - total) % 10 == 0
    points = np.where(bull, np.where(total % 10 == 0, 10, total % 10), 0)
    faces = (rank >= 10).sum(axis=1)
    tens = (rank == 9).sum(axis=1)
    counts = np.stack([(rank == r).sum(axis=1) for r in range(13)], axis=1)
    sd = rules.to_data()["special_definitions"]
    small = total <= 10 if sd["five_small_bull_total"] == "at_most_10" else total < 10
    if sd["five_small_bull_max_rank"] == "4":
        small &= rank.max(axis=1) <= 3
    srank = np.sort(rank, axis=1)
    specials = {
        "five_faces": faces == 5,
        "four_faces": (faces == 4) & ((tens == 1) if sd["four_faces_fifth"] == "ten" else True),
        "four_of_a_kind": counts.max(axis=1) == 4,
        "straight_flush": (suit == suit[:, :1]).all(axis=1)
        & (np.diff(srank, axis=1) == 1).all(axis=1),
        "five_small_bull": small,
    }
    index = {
        "five_faces": 11,
        "four_faces": 12,
        "four_of_a_kind": 13,
        "straight_flush": 14,
        "five_small_bull": 15,
    }
    category = points.copy()
    level = points.copy()  # ranking level under the rules
    for pos, name in enumerate(rules.specials):  # listed low to high
        hit = specials[name]
        category = np.where(hit, index[name], category)
        level = np.where(hit, 11 + pos, level)
    suit_strength = np.zeros(4, dtype=np.int64)
    for pos, s in enumerate(rules.suit_order):  # high to low
        suit_strength[s] = 3 - pos
    card_key = rank * 4 + suit_strength[suit]
    top = card_key.max(axis=1)
    if rules.tie_break == "highest_card":
        tie = top
    elif rules.tie_break == "rank_by_rank":
        desc = -np.sort(-rank, axis=1)
        if rules.quads_first:
            quad = (category == 13) & (desc[:, 1] == desc[:, 4])  # four low, kicker high
            desc = np.where(quad[:, None], np.roll(desc, -1, axis=1), desc)
        tie = np.zeros(len(c), dtype=np.int64)
        for i in range(5):
            tie = tie * 13 + desc[:, i]
        tie = tie * 4 + top % 4
    else:
        tie = np.zeros(len(c), dtype=np.int64)
    return category, level * (13**5 * 4 * 4) + tie


def _nn_rules(spec: Any) -> Any:
    from .niuniu import NiuNiuRules, load_rules

    return spec if isinstance(spec, NiuNiuRules) else load_rules(spec)


def simulate_niuniu(
    rules: Any = None,
    bet: str | None = None,
    commission: float | None = None,
    rounds: int = 100_000,
    players: int = 4,
    seed: int = 0,
    confidence: float = 0.999,
    batch: int = 50_000,
) -> SimResult:
    """The player's net per stake: the winner collects its multiplier for ``bet``; the
    house keeps ``commission`` of a player's winnings (defaults: the rule set's)."""
    _check(rounds, players)
    r = _nn_rules(rules)
    bet_name = r.bet(bet)
    mult = np.asarray(dict(r.multipliers)[bet_name], dtype=np.float64)
    comm = r.commission if commission is None else float(commission)
    rng = np.random.default_rng(seed)
    out = []
    for start in range(0, rounds, batch):
        n = min(batch, rounds - start)
        deck = _deal(rng, n, 52, 5 * (players + 1))
        b_cat, b_key = niuniu_hands(deck[:, :5], r)
        net = np.zeros(n)
        for p in range(1, players + 1):
            p_cat, p_key = niuniu_hands(deck[:, 5 * p : 5 * p + 5], r)
            net += np.where(
                p_key > b_key, mult[p_cat] * (1 - comm), np.where(p_key < b_key, -mult[b_cat], 0.0)
            )
        out.append(net / players)
    return _summarise(
        "niuniu",
        r.name,
        f"bet {bet_name}, commission {comm:g}",
        np.concatenate(out),
        players,
        seed,
        confidence,
    )


# ---------------------------------------------------------------- Tau Ngau

_CIVIL = {(6, 6), (1, 1), (4, 4), (3, 1), (5, 5), (3, 3), (2, 2), (6, 5), (6, 4), (6, 1), (5, 1)}
_TILES = [
    (hi, lo)
    for hi in range(1, 7)
    for lo in range(1, hi + 1)
    for _ in range(2 if (hi, lo) in _CIVIL else 1)
]
_PIPS = np.array([hi + lo for hi, lo in _TILES], dtype=np.int64)
_WILD_A = np.array([t == (2, 1) for t in _TILES])  # [2:1]: 3 or 6
_WILD_B = np.array([t == (4, 2) for t in _TILES])  # [4:2]: 3 or 6


def taungau_hands(tiles: Arr, rules: Any) -> Arr:
    """Best strength of hands of tile indexes into this module's 32-tile list (shape
    (n, 5)), written from RULES §4: 0 no bull, 1..10 worst to best bull. Under
    ``zero_counts_as = 10`` strength = score (a 0 is 10); else strength = score + 1.

    >>> t = [_TILES.index(x) for x in [(6, 6), (6, 5), (4, 3), (4, 2), (2, 2)]]
    >>> taungau_hands(np.array([t]), _tn_rules("macau")).tolist()   # 0 with [4:2] = 6
    [10]
    >>> taungau_hands(np.array([t]), _tn_rules("pagat")).tolist()   # 7 with [4:2] = 3
    [8]
    """
    t = np.asarray(tiles, dtype=np.int64)
    best = np.zeros(len(t), dtype=np.int64)
    for a6 in (False, True):
        for b6 in (False, True):
            v = _PIPS[t] % 10
            v = np.where(_WILD_A[t], 6 if a6 else 3, v)
            v = np.where(_WILD_B[t], 6 if b6 else 3, v)
            total = v.sum(axis=1)
            bull = np.zeros(len(t), dtype=bool)
            for i in range(5):
                for j in range(i + 1, 5):
                    bull |= (v[:, i] + v[:, j] - total) % 10 == 0
            digit = total % 10
            zero_best = rules.zero_counts_as == 10
            strength = np.where(digit == 0, 10, digit) if zero_best else digit + 1
            best = np.maximum(best, np.where(bull, strength, 0))
    return best


def _tn_rules(spec: Any) -> Any:
    from .taungau import TauNgauRules, load_rules

    return spec if isinstance(spec, TauNgauRules) else load_rules(spec)


def simulate_taungau(
    rules: Any = None,
    policy: str = "declare",
    rounds: int = 100_000,
    players: int = 4,
    seed: int = 0,
    confidence: float = 0.999,
    batch: int = 50_000,
) -> SimResult:
    """The player's net per stake. ``policy``: ``declare`` (always set a bull aside) or
    ``first`` (the banker shows first; decline when the bull would lose more than
    declining costs)."""
    _check(rounds, players)
    r = _tn_rules(rules)
    if policy not in ("declare", "first"):
        raise BullError(f"unknown Tau Ngau policy {policy!r} (declare or first)")
    if policy == "first" and not r.decline_allowed:
        raise BullError(f"rule set {r.name} does not allow declining")
    rng = np.random.default_rng(seed)
    out = []

    def score(strength: Arr) -> Arr:  # the number settled, 0 no bull
        return strength if r.zero_counts_as == 10 else np.maximum(strength - 1, 0)

    for start in range(0, rounds, batch):
        n = min(batch, rounds - start)
        deal = _deal(rng, n, 32, 5 * (players + 1))
        b = taungau_hands(deal[:, :5], r)
        net = np.zeros(n)
        for p in range(1, players + 1):
            s = taungau_hands(deal[:, 5 * p : 5 * p + 5], r)
            if r.settlement == "even_money":
                net += np.sign(s - b)
                continue
            pays = r.no_bull_pays
            gain = np.where(s > 0, score(s) - score(b), -pays)
            if policy == "first":
                gain = np.maximum(gain, -pays)
            net += gain
        out.append(net / players)
    return _summarise("taungau", r.name, policy, np.concatenate(out), players, seed, confidence)


# ---------------------------------------------------------------- Pok Deng

_POK, _TONG, _SF, _STRAIGHT, _SAM, _NORMAL = 6, 5, 4, 3, 2, 1


def pokdeng_classes(cards: Arr, rules: Any) -> tuple[Arr, Arr, Arr]:
    """(type level, points, deng) of hands of 2 or 3 card ids, written from RULES §5.
    Levels: 6 Pok > 5 Tong > 4 Straight Flush > 3 Straight > 2 Sam Lueang > 1 Normal.

    >>> pokdeng_classes(np.array([[32, 34]]), _pd_rules("standard"))   # 9S 9D: Pok 8, 2 deng
    (array([6]), array([8]), array([2]))
    """
    c = np.asarray(cards, dtype=np.int64)
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
        return level, points, deng
    srt = np.sort(rank, axis=1)
    same_suit = (suit == suit[:, :1]).all(axis=1)
    tong = srt[:, 0] == srt[:, 2]
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
    deng = np.where(same_suit, d.three_suited, 1)
    level = np.where(sam, _SAM, level)
    deng = np.where(sam, d.sam_lueang, deng)
    level = np.where(straight, np.where(same_suit, _SF, _STRAIGHT), level)
    deng = np.where(straight, np.where(same_suit, d.straight_flush, d.straight), deng)
    level = np.where(tong, _TONG, level)
    deng = np.where(tong, d.tong, deng)
    return level, points, deng


def _pd_rules(spec: Any) -> Any:
    from .pokdeng import PokDengRules, load_rules

    return spec if isinstance(spec, PokDengRules) else load_rules(spec)


def _pd_settle(p: tuple[Arr, Arr, Arr], d: tuple[Arr, Arr, Arr], rules: Any) -> Arr:
    pl, pp, pd = p
    dl, dp, dd = d
    ps, ds = pl * 10 + pp, dl * 10 + dp
    net = np.where(ps > ds, pd, np.where(ps < ds, -dd, pd - dd))
    pays = rules.tong_vs_sam_lueang_pays
    net = np.where((pl == _TONG) & (dl == _SAM), pays, net)
    return np.where((pl == _SAM) & (dl == _TONG), -pays, net)


def _pick(mask: Arr, yes: tuple[Arr, Arr, Arr], no: tuple[Arr, Arr, Arr]) -> tuple[Arr, Arr, Arr]:
    return (
        np.where(mask, yes[0], no[0]),
        np.where(mask, yes[1], no[1]),
        np.where(mask, yes[2], no[2]),
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
    _check(rounds, players)
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
        deck = _deal(rng, n, 52, 2 * (players + 1) + players + 1)
        top = 2 * (players + 1)  # next undealt card per round
        nxt = np.full(n, top)
        dealer2 = deck[:, :2]
        d2 = pokdeng_classes(dealer2, r)
        dealer_pok = d2[0] == _POK
        finals: list[tuple[Arr, Arr, Arr]] = []
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
    return _summarise(
        "pokdeng",
        r.name,
        f"{name}; dealer draws on {k} or less",
        np.concatenate(out),
        players,
        seed,
        confidence,
    )


def simulate(game: str, rules: Any = None, **options: Any) -> SimResult:
    """Dispatch to :func:`simulate_niuniu`, :func:`simulate_taungau` or
    :func:`simulate_pokdeng` with their keyword options."""
    runners: dict[str, Callable[..., SimResult]] = {
        "niuniu": simulate_niuniu,
        "taungau": simulate_taungau,
        "pokdeng": simulate_pokdeng,
    }
    if game not in runners:
        raise BullError(f"unknown game {game!r} (expected one of: {', '.join(runners)})")
    return runners[game](rules, **options)
