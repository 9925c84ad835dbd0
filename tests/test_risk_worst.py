"""`bull risk`'s worst round at a full table (issue 25): the exact packing search.

The search (:mod:`solver.kit.packing`, fed by each game's ``worst_problem``) is checked
against brute force written here: on reduced decks, every banker hand and, for it, every
set of disjoint player hands (Pok Deng: every deal of the starts and the draw cards),
each hand settled from the rule text by the tests' own references
(``tests/niuniu/reference.py``, ``tests/taungau/fixtures.py``,
``tests/pokdeng/fixtures.py``). On the full deck: the Niu Niu classic double-bet answer
checked by hand (the printed deal is legal and adds up, and no deal can do better), and
the properties — N = 1 is the heads-up largest win, N players never cost more than N
times it nor less than a deal dealt at random.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Sequence
from fractions import Fraction
from functools import cache, partial
from typing import Any, TypeVar

import numpy as np
import pytest

from solver.kit.packing import pack, worst_round
from solver.kit.realize import Kinds, SearchTooLong
from tests.niuniu import reference as nn_ref
from tests.pokdeng import fixtures as pd_ref
from tests.taungau import fixtures as tn_ref

Hand = tuple[int, ...]


Nets = Callable[[list[Hand]], Callable[[int, np.ndarray], np.ndarray]]
"""From every hand of a reduced deck, the settlement: ``nets(b, players)``, the net of
each player hand (indices) against banker hand b, in 1/20 stakes."""


V = TypeVar("V", int, Fraction)
S = TypeVar("S")
T = TypeVar("T")


def best_disjoint(
    values: Sequence[V],
    hands: Sequence[T],
    players: int,
    start: S,
    fits: Callable[[S, T], bool],
    take: Callable[[S, T], S],
    step: int,
    best: V | None,
) -> V | None:
    """The largest sum of ``players`` of ``values`` (descending; ``hands`` theirs)
    whose hands fit together (``fits(state, hand)``, ``take(state, hand)``; ``step`` 1:
    each hand once, 0: a hand may repeat), or ``best`` if none beats it. Depth first, in
    index order (each set met once), stopping where ``k`` more of the current value
    cannot beat the best."""
    found = [best]

    def dfs(i: int, k: int, state: S, value: V) -> None:
        top = found[0]
        if k == 0:
            if top is None or value > top:
                found[0] = value
            return
        for j in range(i, len(values)):
            v = values[j]
            top = found[0]
            if top is not None and value + k * v <= top:
                return
            if fits(state, hands[j]):
                dfs(j + step, k - 1, take(state, hands[j]), value + v)

    dfs(0, players, start, values[0] - values[0])
    return found[0]


def brute_worst(deck: Sequence[int], size: int, players: int, settle: Nets) -> Fraction:
    """The banker's largest loss over every deal from ``deck`` (a card listed as often
    as the deck holds it): every banker hand, and for it every set of ``players``
    disjoint player hands of the cards left (``settle``: see :data:`Nets`). The sets are
    searched depth first over the hands sorted by net, stopping where the best nets
    left cannot beat the best found."""
    items = sorted(set(deck))
    copies = np.array([deck.count(c) for c in items])
    hands = sorted(set(itertools.combinations(sorted(deck), size)))
    use = np.zeros((len(hands), len(items)), dtype=np.int64)
    for i, h in enumerate(hands):
        for c in h:
            use[i, items.index(c)] += 1
    single = bool((copies == 1).all())  # one deck: a hand is a set of bits
    bits = (use << np.arange(len(items))).sum(axis=1) if single else None
    net_of = settle(hands)
    best: int | None = None  # in 1/20 stakes
    for b in range(len(hands)):
        left = copies - use[b]
        if bits is not None:
            ok = np.nonzero((bits & bits[b]) == 0)[0]
        else:
            ok = np.nonzero((use <= left).all(axis=1))[0]
        nets = np.asarray(net_of(b, ok), dtype=np.int64)
        if len(nets) < players:
            continue
        if best is not None and int(np.sort(nets)[-players:].sum()) <= best:
            continue
        order = np.argsort(-nets, kind="stable")
        values = nets[order].tolist()
        if bits is not None:  # a hand fits when it shares no bit with those dealt
            taken = bits[ok[order]].tolist()
            best = best_disjoint(
                values, taken, players, int(bits[b]), lambda d, h: not h & d,
                lambda d, h: d | h, 1, best,
            )  # fmt: skip
            continue
        rows = list(use[ok[order]])
        best = best_disjoint(
            values, rows, players, left, lambda lf, h: bool((h <= lf).all()),
            lambda lf, h: lf - h, 0, best,
        )  # fmt: skip
    assert best is not None
    return Fraction(best, 20)


def _amount(problem: Any, players: int) -> tuple[Fraction, Any]:
    w = worst_round(problem.search, players)
    return Fraction(w.amount, problem.step), w


# ---------------------------------------------------------------- Niu Niu


def _nn_card(c: int) -> tuple[int, str]:
    """A card id (rank * 4 + suit, suits S H D C) as the reference reads it."""
    return c // 4 + 1, "SHDC"[c % 4]


def _nn_rules(rules: str, bet: str) -> Nets:
    """Niu Niu from the reference: each hand's comparison key and multiplier for
    ``bet``; the winner collects its multiplier (a player's less 5 % commission), a tie
    pushes or, ``on_tie = "banker"``, goes to the banker."""
    from solver.games.niuniu.rules import load_rules

    data = load_rules(rules).to_data()  # the rule text as data: specials, ties, bets
    table = data["multipliers"][bet]
    banker_ties = data.get("on_tie", "push") == "banker"

    def settle(hands: list[Hand]) -> Callable[[int, np.ndarray], np.ndarray]:
        cards = [[_nn_card(c) for c in h] for h in hands]
        keys = [nn_ref.sort_key(h, data) for h in cards]
        order = {k: i for i, k in enumerate(sorted(set(keys)))}
        key = np.array([order[k] for k in keys])
        cats = [nn_ref.category_of(h, data) for h in cards]
        mult = np.array([int(table.get(c, table.get("default", 1))) for c in cats])

        def nets(b: int, p: np.ndarray) -> np.ndarray:
            lose = (key[p] < key[b]) | ((key[p] == key[b]) & banker_ties)
            return np.where(key[p] > key[b], 19 * mult[p], np.where(lose, -20 * mult[b], 0))

        return nets

    return settle


def _nn_net(rules: str, bet: str) -> Callable[[Hand, Hand], Fraction]:
    """The reference's own settlement of one showdown (``nn_ref.net``)."""
    from solver.games.niuniu.rules import load_rules

    data = load_rules(rules).to_data()

    def net(p: Hand, b: Hand) -> Fraction:
        got = nn_ref.net([_nn_card(c) for c in p], [_nn_card(c) for c in b], data, bet,
                         Fraction(1, 20))  # fmt: skip
        return Fraction(got)

    return net


def _cards(text: str) -> list[int]:
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    return [ranks.index(t[:-1]) * 4 + "SHDC".index(t[-1]) for t in text.split()]


NN_DECK15 = _cards("JS JH JD QS QH KS KH 10S 10H 5S 5H 5D 2S 3S 9H")
"""15 cards: two Five Faces cannot both come true with Niu Niu beside them."""


@pytest.mark.parametrize("players", [1, 2])
@pytest.mark.parametrize("bet", ["double", "equal"])
def test_niuniu_classic_against_every_deal_of_15_cards(players: int, bet: str) -> None:
    from solver.games.niuniu.risk import worst_problem

    problem = worst_problem("classic", bet, Fraction(1, 20), None, NN_DECK15)
    got, w = _amount(problem, players)
    assert got == brute_worst(NN_DECK15, 5, players, _nn_rules("classic", bet))
    assert len(w.players) == players


@pytest.mark.slow
def test_niuniu_casino_against_every_deal_of_20_cards() -> None:
    """Straight flushes, four of a kind and five small bulls, three players: 20 cards,
    every card dealt."""
    from solver.games.niuniu.risk import worst_problem

    deck = _cards("AS AH 2S 2H 3S 3H 4S 4H 5S 6S 7S 8S 9S 9H 9D 9C 10S JS QH KD")
    problem = worst_problem("casino", None, Fraction(1, 20), None, deck)
    got, _ = _amount(problem, 3)
    assert got == brute_worst(deck, 5, 3, _nn_rules("casino", "standard"))


def test_niuniu_shoe_against_every_deal() -> None:
    """Classic from a shoe (identical cards; equal hands push): 8 cards twice over."""
    from solver.games.niuniu.risk import worst_problem

    deck = _cards("KS KH QS JS 10S 5S 5H AS") * 2
    problem = worst_problem("shoe6", "double", Fraction(1, 20), None, deck)
    got, w = _amount(problem, 2)
    assert got == brute_worst(deck, 5, 2, _nn_rules("shoe6", "double"))
    used = Counter(c for h in [w.banker, *w.players] for c in problem_hand(problem, h))
    assert all(n <= 2 for n in used.values())


def problem_hand(problem: Any, h: int) -> list[int]:
    names, _ = problem.describe(h)
    return _cards(" ".join(names))


def test_niuniu_classic_full_deck_nine_players_by_hand() -> None:
    """Classic, double bet, 5 % commission, nine players: the answer is 29.45 stakes.

    No deal costs more: only 12 cards are J/Q/K, so at most two players hold Five
    Faces (x5, 4.75 after commission); every other winner is paid at most Niu Niu's x3
    (2.85): 2 x 4.75 + 7 x 2.85 = 29.45. The deal printed reaches it: 50 different
    cards, each player's net by the reference evaluator, adding up."""
    from solver.games.niuniu.risk import worst_problem

    problem = worst_problem("classic", "double", Fraction(1, 20), None)
    got, w = _amount(problem, 9)
    bound = 2 * Fraction(5) * Fraction(19, 20) + 7 * Fraction(3) * Fraction(19, 20)
    assert got == bound == Fraction(589, 20)
    hands = [problem_hand(problem, h) for h in (w.banker, *w.players)]
    assert all(len(h) == 5 for h in hands)
    assert len({c for h in hands for c in h}) == 50  # one deck: no card twice
    net = _nn_net("classic", "double")
    nets = [net(tuple(p), tuple(hands[0])) for p in hands[1:]]
    assert nets == [Fraction(x, problem.step) for x in w.nets]
    assert sum(nets) == got


# ---------------------------------------------------------------- Tau Ngau


def _tn_rules(preset: str, reveals: str) -> Nets:
    """Tau Ngau from RULES §4, each hand's best score by the reference: macau pays the
    difference (a player without a bull, or declining, pays 4; with the banker
    revealing first he declines exactly when the bull would lose more than 4); pagat
    pays 1:1 (both without a bull: push)."""

    def net(ps: Any, bs: Any) -> int:
        if preset == "pagat":
            if ps is None or bs is None:
                return 20 * ((ps is not None) - (bs is not None))
            return 20 * ((ps > bs) - (ps < bs))
        declines = reveals == "first" and ps > 0 and bs - ps > 4
        return 20 * tn_ref.difference_net(ps, bs, declines, 4)

    def settle(hands: list[Hand]) -> Callable[[int, np.ndarray], np.ndarray]:
        if preset == "pagat":
            score = [tn_ref.evaluate(tn_ref.hand_types(h), "pagat")["score"] for h in hands]
        else:
            score = [tn_ref.macau_points(h) for h in hands]
        # the net of every pair of scores met (player's, banker's), looked up per hand
        seen = {s: k for k, s in enumerate(dict.fromkeys(score))}
        code = np.array([seen[s] for s in score], dtype=np.int64)
        table = np.array([[net(p, b) for b in seen] for p in seen], dtype=np.int64)

        def nets(b: int, p: np.ndarray) -> np.ndarray:
            return table[code[p], code[b]]

        return nets

    return settle


TN_DECK15 = [0, 1, 3, 5, 7, 9, 12, 14, 17, 19, 22, 24, 26, 29, 31]
"""15 of the 32 tile ids (both copies of some civil tiles): three hands, every tile dealt."""


@pytest.mark.parametrize(
    "preset, reveals, players", [("macau", "first", 2), ("pagat", None, 2), ("macau", "first", 1)]
)
def test_taungau_against_every_deal_of_15_tiles(
    preset: str, reveals: str | None, players: int
) -> None:
    from solver.games.taungau.risk import worst_problem

    problem = worst_problem(preset, reveals, None, TN_DECK15)
    got, _ = _amount(problem, players)
    assert got == brute_worst(TN_DECK15, 5, players, _tn_rules(preset, reveals or "last"))


# ---------------------------------------------------------------- Pok Deng


def pd_brute_worst(
    deck: Sequence[int], players: int, draws: Callable[[Hand], bool], k: int, straights: bool
) -> Fraction:
    """Every deal from ``deck`` (RULES §5): the dealer's two cards and, when he draws
    (no Pok, a total of k or less), his third; each player's two cards and, when his
    strategy ``draws`` (no Pok, and the dealer shows no Pok: he settles first), his
    third, all from the one deck. The largest total of the players' nets."""

    @cache  # a hand as dealt (the same hands come back for every dealer hand)
    def cls(h: Hand) -> tuple[str, int, int]:
        return pd_ref.ref_class(h, straights)

    best: int | None = None  # whole stakes (the rule text's settlement pays whole deng)
    cards = sorted(deck)
    for d in itertools.combinations(cards, 2):
        dc = cls(d)
        dealer_pok = dc[0] == "pok"
        rest = [c for c in cards if c not in d]
        thirds = [()] if dealer_pok or dc[1] > k else [(c,) for c in rest]
        for x in thirds:
            dealer = (*d, *x)
            dfinal = cls(dealer)
            left = [c for c in rest if c not in x]
            finals = set()
            for s in itertools.combinations(left, 2):
                if dealer_pok or cls(s)[0] == "pok" or not draws(s):
                    finals.add(s)
                else:
                    finals |= {tuple(sorted((*s, c))) for c in left if c not in s}
            cand = sorted(
                ((pd_ref.ref_settle(cls(p), dfinal), p) for p in finals),
                key=lambda v: -v[0],
            )

            if cand:
                best = best_disjoint(
                    [v for v, _ in cand], [p for _, p in cand], players, frozenset[int](),
                    lambda used, h: not used.intersection(h), lambda used, h: used | set(h),
                    1, best,
                )  # fmt: skip
    assert best is not None
    return Fraction(best)


PD_DECK = _cards("AS AH 2S 4S 5S 5H 9S 9H 10S JS QS KS KH 3D")
"""14 cards: Pok, Tong, three of a suit and Sam Lueang can all come true."""


@pytest.mark.parametrize("players", [1, 3])
def test_pokdeng_mirror_against_every_deal(players: int) -> None:
    """The players draw on 4 or less (the mirror strategy, rule text), the dealer on 4
    or less."""
    from solver.games.pokdeng.risk import worst_problem

    problem = worst_problem("standard", 4, None, "mirror", PD_DECK)
    got, _ = _amount(problem, players)

    @cache
    def mirror(s: Hand) -> bool:
        return pd_ref.ref_class(s)[1] <= 4

    assert got == pd_brute_worst(PD_DECK, players, mirror, 4, False)


@pytest.mark.slow
def test_pokdeng_optimal_and_straights_against_every_deal() -> None:
    """The players draw as the exact strategy says (its table of the 1,326 starts is
    the input here), straights on, the dealer on 5 or less."""
    from solver.games.pokdeng.audit import strategy_draws
    from solver.games.pokdeng.risk import worst_problem

    table = np.asarray(strategy_draws(_pd_rules("straights"), "optimal", 5, None))

    def optimal(s: Hand) -> bool:
        a, b = sorted(s)
        return bool(table[b * (b - 1) // 2 + a])  # the start's colex rank

    deck = _cards("AS 2S 3S 4H 5H 6H QS KS QH 9D 9C 7C")
    problem = worst_problem("straights", 5, None, "optimal", deck)
    got, _ = _amount(problem, 3)
    assert got == pd_brute_worst(deck, 3, optimal, 5, True)


def _pd_rules(name: str) -> Any:
    from solver.games.pokdeng.rules import load_rules

    return load_rules(name)


# ---------------------------------------------------------------- properties


@pytest.mark.slow
@pytest.mark.parametrize(
    "game, rules, option, players",
    [
        ("niuniu", "casino", None, 8),
        ("taungau", "macau", "last", 5),
        ("pokdeng", "standard", None, 16),
    ],
)
def test_worst_between_the_simulation_and_the_bound(
    game: str, rules: str, option: Any, players: int
) -> None:
    """N = 1 is the heads-up largest win (the exact distribution's); at N players the
    worst is at most N times it and at least the worst of 20,000 tables dealt at random."""
    from solver import games
    from solver.kit.table_sim import simulate_tables, spec_dealer

    if game == "niuniu":
        from solver.games.niuniu.audit import exact_figures
        from solver.games.niuniu.risk import worst_problem
        from solver.games.niuniu.rules import load_rules
        from solver.kit.risk import NetDistribution

        problem = worst_problem(rules, option, Fraction(1, 20), None)
        fig = exact_figures(load_rules(rules), option, 0.05, None)  # the exact edge's
        net = NetDistribution.of((Fraction(a), Fraction(p)) for a, p in fig["net"])
        spec = games.get(game).audit_spec(rules, {"commission": 0.05}, None)
    elif game == "taungau":
        from solver.games.taungau.risk import edge as t_edge
        from solver.games.taungau.risk import worst_problem as t_problem

        problem = t_problem(rules, option, None)
        net = t_edge(rules, option).net
        spec = games.get(game).audit_spec(rules, {"banker_reveals": option}, None)
    else:
        from solver.games.pokdeng.risk import edge as p_edge
        from solver.games.pokdeng.risk import worst_problem as p_problem

        problem = p_problem(rules, None, None)
        net = p_edge(rules).net
        opts = {"player_strategy": "optimal"}
        spec = games.get(game).audit_spec(rules, opts, None)
    assert net is not None
    one, _ = _amount(problem, 1)
    assert one == net.max_win
    full, _ = _amount(problem, players)
    sample = simulate_tables(spec_dealer(spec, players), players, 20_000, problem.step, 3)
    seen = Fraction(-min(sample.banker[players - 1]), problem.step)
    assert seen <= full <= players * net.max_win


# ---------------------------------------------------------------- the search itself


def test_pack_against_every_multiset() -> None:
    """The kind-level search alone, on random small problems: the best multiset of
    types found equals the best of every multiset that fits (the leaf values exact)."""
    rng = np.random.default_rng(5)
    for _ in range(60):
        kinds = int(rng.integers(2, 5))
        counts = rng.integers(0, 3, size=(int(rng.integers(2, 8)), kinds))
        counts[counts.sum(axis=1) == 0, 0] = 1
        weights = sorted(rng.integers(-3, 8, size=len(counts)).tolist(), reverse=True)
        left = rng.integers(1, 6, size=kinds).tolist()
        players = int(rng.integers(1, 4))
        best = None
        for combo in itertools.combinations_with_replacement(range(len(counts)), players):
            if (counts[list(combo)].sum(axis=0) <= left).all():
                v = sum(weights[t] for t in combo)
                best = v if best is None else max(best, v)
        got = pack(weights, counts, left, players, -(10**9), partial(_total, weights))
        assert got.value == best


def _total(weights: list[int], types: tuple[int, ...], lo: int) -> tuple[int, object]:
    """A leaf worth exactly its types' weights."""
    return sum(weights[t] for t in types), types


def test_kinds_fit_and_copy_counts() -> None:
    enc = Kinds(3)
    left = enc.supply([2, 0, 5])
    assert enc.fits(left, enc.encode([2, 0, 1])) and not enc.fits(left, enc.encode([0, 1, 0]))
    assert enc.copies(left, enc.encode([1, 0, 2]), 9) == 2
    assert enc.decode(left - enc.encode([1, 0, 4])) == [1, 0, 1]
    with pytest.raises(ValueError, match="does not fit"):
        enc.encode([200])


@pytest.mark.parametrize("width", [1, 7, 8, 13, 21])
def test_rows_encode_as_each_row_alone(width: int) -> None:
    """The column-wise encoding (every player type, every banker's leftover) is the
    row-by-row one, field for field, counts up to the largest a field holds."""
    from solver.kit.packing import encode_rows

    enc = Kinds(width)
    rows = np.random.default_rng(width).integers(0, 128, size=(300, width))
    rows[0] = 127
    got = encode_rows(enc, rows)
    assert got == [enc.encode(r) for r in rows]
    assert [enc.decode(e) for e in got[:5]] == rows[:5].tolist()
    assert encode_rows(enc, rows[:0]) == []
    rows[7, width - 1] = -1
    with pytest.raises(ValueError, match="-1 does not fit"):
        encode_rows(enc, rows)


def test_a_search_past_its_budget_says_so() -> None:
    """Past its budget the search gives no answer; ``bull risk`` then shows the bound
    N x the largest win, labelled as a bound, and says why."""
    from solver.games.taungau.risk import worst_problem
    from solver.kit.table_worst import worst_from_row

    problem = worst_problem("macau", "first", None, TN_DECK15)
    with pytest.raises(SearchTooLong):
        worst_round(problem.search, 2, budget=1)
    w = worst_from_row({"players": 3, "exact": False, "nodes": 1}, Fraction(30))
    assert not w.exact and w.amount == 30 and "budget" in w.note and w.deal is None
