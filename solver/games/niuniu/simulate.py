"""A seeded Monte Carlo simulator of Niu Niu rounds, an independent check of the exact
figures: its small evaluator is written from RULES.md and reads only the rule-set data
(multipliers, specials, tie-break, deck and shoe); it shares no code with
:mod:`solver.games.niuniu.hands`. A shoe of N decks is shuffled as its 52N physical cards.

>>> r = simulate_niuniu(rules="classic", rounds=2000, players=3, seed=1)
>>> r.rounds, r.players, r.ci_low < r.mean < r.ci_high
(2000, 3, True)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from solver.core.inputs import check_commission
from solver.kit.simulation import Arr, SimResult, check_round, deal, summarise

__all__ = ["niuniu_hands", "simulate_niuniu"]


def niuniu_hands(cards: Arr, rules: Any) -> tuple[Arr, Arr]:
    """(category index, comparison key) of hands ``cards`` (shape (n, 5), ids
    ``rank * 4 + suit``, rank 0 = A .. 12 = K, suit 0..3 = S H D C), written from
    RULES §3 and §9. Categories: 0 no bull, 1..9 Niu n, 10 Niu Niu, then 11 five faces,
    12 four faces, 13 four of a kind, 14 straight flush, 15 five small bull, 16 three of
    a kind, 17 straight.

    >>> cat, _ = niuniu_hands(np.array([[24, 8, 36, 28, 20]]), _nn_rules("classic"))
    >>> cat.tolist()                                  # 7 3 10 8 6: Niu 4
    [4]
    """
    c = np.asarray(cards, dtype=np.int64)
    rank, suit = c // 4, c % 4
    value = np.minimum(rank + 1, 10)
    total = value.sum(axis=1)
    data = rules.to_data()
    counts = np.stack([(rank == r).sum(axis=1) for r in range(13)], axis=1)
    # a bull leaves two cards (i, j): the other three sum to a multiple of 10 or (a house
    # option) are three of one rank; the two cards' last digit scores, 0 as 10, best kept
    points = np.zeros(len(c), dtype=np.int64)
    for i in range(5):
        for j in range(i + 1, 5):
            two = value[:, i] + value[:, j]
            bull = (total - two) % 10 == 0
            if data["bull_from_three_of_a_kind"]:
                others = [k for k in range(5) if k not in (i, j)]
                bull |= (rank[:, others[0]] == rank[:, others[1]]) & (
                    rank[:, others[1]] == rank[:, others[2]]
                )
            points = np.maximum(points, np.where(bull, np.where(two % 10 == 0, 10, two % 10), 0))
    faces = (rank >= 10).sum(axis=1)
    tens = (rank == 9).sum(axis=1)
    sd = data["special_definitions"]
    small = total <= 10 if sd["five_small_bull_total"] == "at_most_10" else total < 10
    if sd["five_small_bull_max_rank"] == "4":
        small &= rank.max(axis=1) <= 3
    srank = np.sort(rank, axis=1)
    run = (np.diff(srank, axis=1) == 1).all(axis=1)
    four_faces = {
        "ten": (faces == 4) & (tens == 1),
        "any": faces == 4,
        "all_ten_valued": (faces + tens == 5) & (faces < 5),
    }[sd["four_faces_fifth"]]
    specials = {
        "five_faces": faces == 5,
        "four_faces": four_faces,
        "four_of_a_kind": counts.max(axis=1) >= 4,  # five of a kind (a shoe) holds four
        "straight_flush": (suit == suit[:, :1]).all(axis=1) & run,
        "five_small_bull": small,
        "three_of_a_kind": counts.max(axis=1) >= 3,
        "straight": run,
    }
    index = {
        "five_faces": 11,
        "four_faces": 12,
        "four_of_a_kind": 13,
        "straight_flush": 14,
        "five_small_bull": 15,
        "three_of_a_kind": 16,
        "straight": 17,
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
    from solver.games.niuniu.rules import NiuNiuRules, load_rules

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
    check_round(rounds, players)
    r = _nn_rules(rules)
    bet_name = r.bet(bet)
    mult = np.asarray(dict(r.multipliers)[bet_name], dtype=np.float64)
    comm = r.commission if commission is None else float(check_commission(commission))
    data = r.to_data()
    size = {"standard": 52, "no_faces": 40}[data["deck"]]  # ids 0..39: A..10
    decks = int(data.get("decks", 1))  # a shoe: physical card i is face i % size
    tie = -1.0 if data["on_tie"] == "banker" else 0.0  # times the banker's multiplier
    rng = np.random.default_rng(seed)
    out = []
    for start in range(0, rounds, batch):
        n = min(batch, rounds - start)
        deck = deal(rng, n, size * decks, 5 * (players + 1)) % size
        b_cat, b_key = niuniu_hands(deck[:, :5], r)
        net = np.zeros(n)
        for p in range(1, players + 1):
            p_cat, p_key = niuniu_hands(deck[:, 5 * p : 5 * p + 5], r)
            net += np.where(
                p_key > b_key,
                mult[p_cat] * (1 - comm),
                np.where(p_key < b_key, -mult[b_cat], tie * mult[b_cat]),
            )
        out.append(net / players)
    return summarise(
        "niuniu",
        r.name,
        f"bet {bet_name}, commission {comm:g}",
        np.concatenate(out),
        players,
        seed,
        confidence,
    )
