"""Pok Deng's risk figures: the exact edge with the whole distribution of the player's net
drawing optimally (``bull edge``): every deal of the four hands' cards counted
(:func:`solver.games.pokdeng.audit.exact_net`: computed once, then kept next to the
rule-set tables)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.games.pokdeng.audit import exact_net
from solver.games.pokdeng.odds import PokDengEdge, pokdeng_edge
from solver.games.pokdeng.rules import PokDengRules, load_rules
from solver.kit.banker import BankerRisk, Worst
from solver.kit.banker import table_risk as kit_table_risk
from solver.kit.exact import TablesLike
from solver.kit.packing import WorstSearch
from solver.kit.realize import UNUSABLE, Deal, Realizer
from solver.kit.risk import NetDistribution
from solver.kit.table_worst import WorstProblem, worst_figure

__all__ = ["SIM_TABLES", "edge", "table_risk", "worst_problem"]

PAD = 255
"""The third card of a two-card hand."""


def edge(
    rules: Any = None, dealer_draws_at_most: int | None = None, tables: TablesLike = None
) -> PokDengEdge:
    """:func:`~solver.games.pokdeng.odds.pokdeng_edge` with its ``net`` distribution."""
    r = rules if isinstance(rules, PokDengRules) else load_rules(rules)
    res = pokdeng_edge(r, dealer_draws_at_most, tables)
    t = None if tables is None else str(tables)
    net = NetDistribution.of(exact_net(r, "optimal", res.dealer_draws_at_most, t))
    if net.mean != res.ev_optimal:
        raise AssertionError("the net distribution's mean is not the exact edge")
    return replace(res, net=net)


SIM_TABLES = 500_000
"""Tables simulated once per rule set and dealer policy for ``bull risk`` (then cached)."""


def table_risk(
    rules: Any,
    options: Mapping[str, Any],
    tables: str | None,
    players: int,
    rounds: int,
    reserve: Fraction | None = None,
    progress: Callable[[int, int], Any] | None = None,
    sim_tables: int | None = None,
) -> BankerRisk:
    """``bull risk pokdeng``: the dealer against ``players`` players from one deck (or
    the rule set's shoe), every player drawing optimally, the dealer by ``options``'
    ``dealer_draws_at_most`` (default: the rule set's)."""
    from solver.games.pokdeng.audit import audit_spec

    r = rules if isinstance(rules, PokDengRules) else load_rules(rules)
    k = options.get("dealer_draws_at_most")
    k = r.dealer_draws_at_most if k is None else int(k)

    def player() -> NetDistribution:
        net = edge(r, k, tables).net
        assert net is not None
        return net

    key = {"risk": "pokdeng 1", "rules": r.to_data(), "dealer_draws_at_most": k}

    def worst(n: int, bound: Fraction) -> Worst:
        return worst_figure(key, lambda: worst_problem(r, k, tables), n, bound, tables)

    return kit_table_risk(
        game="pokdeng",
        rules=r.name,
        setting={"dealer_draws_at_most": k, "player_strategy": "optimal"},
        key=key,
        player=player,
        spec=lambda: audit_spec(
            rules, {"player_strategy": "optimal", "dealer_draws_at_most": k}, tables
        ),
        max_players=16,
        players=players,
        rounds=rounds,
        reserve=reserve,
        sim_tables=SIM_TABLES if sim_tables is None else sim_tables,
        tables=tables,
        progress=progress,
        worst=worst,
        banker_word="dealer",
        notes=("every player draws optimally against the dealer's policy, as bull edge",),
    )


def worst_problem(
    rules: Any,
    dealer_draws_at_most: int | None,
    tables: str | None,
    strategy: str = "optimal",
    deck: Sequence[int] | None = None,
) -> WorstProblem:
    """The worst round's search (:mod:`solver.kit.packing`) for Pok Deng: every player
    drawing as ``strategy`` says (``optimal`` or ``mirror``, as ``bull audit``), the
    dealer on ``dealer_draws_at_most`` or less, the draw cards from the same deck; no one
    draws against a dealer's Pok (as ``bull deal`` plays). A hand is a final hand (two
    cards, or three when its first two drew); kinds are ranks, a type is a count of each
    and whether the cards share a suit; a player type's weight against a dealer's final
    hand is the most any of its reachable hands nets. ``deck``: the cards dealt from (a
    card as often as the deck holds it; default the rule set's deck or shoe)."""
    from solver.core.cards import CARD_NAMES
    from solver.core.indexing import all_subsets, colex_rank_array, multiset_rank_array
    from solver.games.pokdeng.audit import strategy_draws
    from solver.games.pokdeng.hands import HandClass, all_shoe_hands, classify, two_card_kind
    from solver.games.pokdeng.hands import settle as settle_classes
    from solver.games.pokdeng.rules import HandType, Kind

    r = rules if isinstance(rules, PokDengRules) else load_rules(rules)
    k = r.dealer_draws_at_most if dealer_draws_at_most is None else int(dealer_draws_at_most)
    decks = int(r.decks)
    draws = np.asarray(strategy_draws(r, strategy, k, tables), dtype=bool)
    two = all_subsets(52, 2) if decks == 1 else all_shoe_hands(2)
    three = all_subsets(52, 3) if decks == 1 else all_shoe_hands(3)

    def start_rank(h: npt.NDArray[Any]) -> npt.NDArray[np.int32]:
        s = np.sort(h, axis=1)
        if decks == 1:
            return colex_rank_array(s, presorted=True)
        return multiset_rank_array(s, presorted=True)

    t2, p2, d2 = classify(two, r)
    t3, p3, d3 = classify(three, r)
    pok2 = t2 == int(HandType.POK)
    player_draws = ~pok2 & draws[start_rank(two)]
    dealer_draws = ~pok2 & (p2 <= k)
    p3_ok = np.zeros(len(three), dtype=bool)
    d3_ok = np.zeros(len(three), dtype=bool)
    for a, b in ((0, 1), (0, 2), (1, 2)):  # any two of the three may be the start
        rk = start_rank(three[:, [a, b]])
        p3_ok |= player_draws[rk]
        d3_ok |= dealer_draws[rk]
    hands = np.concatenate([np.pad(two, ((0, 0), (0, 1)), constant_values=PAD), three])
    n2 = len(two)
    ty = np.concatenate([t2, t3]).astype(np.int64)
    pts = np.concatenate([p2, p3]).astype(np.int64)
    deng = np.concatenate([d2, d3]).astype(np.int64)
    kind = np.concatenate([two_card_kind(two), two_card_kind(three)]).astype(np.int64)
    pok = np.concatenate([pok2, np.zeros(len(three), dtype=bool)])
    stands = np.concatenate([~player_draws, p3_ok])  # a player's finals, dealer no Pok
    no_draw = np.concatenate([np.ones(n2, dtype=bool), np.zeros(len(three), dtype=bool)])
    dealer_ok = np.concatenate([~dealer_draws, d3_ok])
    copies = np.full(52, decks, dtype=np.int64)
    if deck is not None:
        copies = np.bincount(np.asarray(deck, dtype=np.int64), minlength=52)
        if len(copies) > 52 or copies.max(initial=0) > decks:
            raise ValueError("the deck holds cards the rule set's deck does not")
        srt = np.where(hands == PAD, -1, hands.astype(np.int64))
        ok = np.ones(len(hands), dtype=bool)
        for i in range(3):
            c = srt[:, i]
            same = (srt == c[:, None]).sum(axis=1)
            ok &= (c < 0) | (same <= copies[np.maximum(c, 0)])
        stands &= ok
        no_draw &= ok
        dealer_ok &= ok
    # classes: what settlement reads of a hand; the net of every pair of classes
    code = ((ty * 10 + pts) * 16 + deng) * 8 + kind
    _, rep, cls = np.unique(code, return_index=True, return_inverse=True)
    cls = cls.reshape(-1)
    net = np.asarray(
        settle_classes(
            ty[rep][:, None], pts[rep][:, None], deng[rep][:, None],
            ty[rep][None, :], pts[rep][None, :], deng[rep][None, :],
            r, kind[rep][:, None], kind[rep][None, :],
        ),
        dtype=np.int64,
    )  # fmt: skip
    # types: the ranks held and whether every card shares one suit
    valid = hands != PAD
    suit = np.where(valid, hands % 4, -1)
    size = valid.sum(axis=1)
    flush = (suit[:, 0] == suit[:, 1]) & ((size == 2) | (suit[:, 1] == suit[:, 2]))
    counts = np.zeros((len(hands), 13), dtype=np.int64)
    for i in range(3):
        rows = np.nonzero(valid[:, i])[0]
        counts[rows, hands[rows, i] // 4] += 1
    tkey = (counts @ (5 ** np.arange(13, dtype=np.int64))) * 2 + flush
    _, first, tid = np.unique(tkey, return_index=True, return_inverse=True)
    tid = tid.reshape(-1)
    n_types = len(first)
    # banker types: a dealer's final hands of one type and one class
    dh = np.nonzero(dealer_ok)[0]
    pair = tid[dh] * len(rep) + cls[dh]
    bkeys = np.unique(pair)
    b_type, b_cls = bkeys // len(rep), bkeys % len(rep)
    levels = np.unique(b_cls).tolist()
    groups = [np.nonzero(b_cls == c)[0] for c in levels]
    weights: dict[int, npt.NDArray[np.int64]] = {}

    def reach(c: int) -> npt.NDArray[np.bool_]:
        """The players' final hands against a dealer hand of class c."""
        return no_draw if pok[rep[c]] else stands

    def class_weights(c: int) -> npt.NDArray[np.int64]:
        if c not in weights:
            ok = reach(c)
            w = np.full(n_types, UNUSABLE, dtype=np.int64)
            np.maximum.at(w, tid[ok], net[cls[ok], c])
            weights[c] = w
        return weights[c]

    real = Realizer(hands, tid, n_types, copies, PAD)

    def realize(
        b: int, types: tuple[int, ...], floor: int, target: int, budget: list[int]
    ) -> Deal | None:
        c = int(b_cls[b])
        mem = real.members(int(b_type[b]))
        mem = mem[dealer_ok[mem] & (cls[mem] == c)]
        ok = reach(c)

        def nets(bh: int, pm: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
            return np.where(ok[pm], net[cls[pm], c], UNUSABLE)

        return real.best(mem.tolist(), types, nets, floor, target, budget)

    def describe(h: int) -> tuple[list[str], str]:
        try:
            label = str(HandClass(HandType(int(ty[h])), int(pts[h]), int(deng[h]), Kind(0)))
        except ValueError:  # a rule file's own type
            label = f"type {int(ty[h])}, {int(pts[h])} points, {int(deng[h])} deng"
        cards = sorted(c for c in hands[h].tolist() if c != PAD)
        return [CARD_NAMES[c] for c in cards], label

    search = WorstSearch(
        supply=np.array([int(copies[4 * i : 4 * i + 4].sum()) for i in range(13)]),
        player_kinds=counts[first],
        banker_kinds=counts[first][b_type],
        groups=groups,
        group_weights=lambda g: class_weights(levels[g]),
        weights=lambda b: None,
        realize=realize,
    )
    return WorstProblem(search, 1, describe)
