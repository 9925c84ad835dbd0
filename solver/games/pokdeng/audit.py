"""What ``bull audit`` and ``bull deal`` need to know about Pok Deng (a game-blind face).

A seat is dealt two cards and may draw a third, so the audited hand is the **two-card
start**: the first two cards of the logged hand, which must be written in the order
dealt. Its category is the two-card type and points (``pok_9`` … ``normal_0``) with the
exact probability from the ``odds`` room (a shoe: the ways to deal it from the full
shoe). The settlement of the final hands is ``play.settle_batch``.

The showdown outcome depends on how the players draw, so it is tested only under a
stated strategy, the option ``player_strategy`` (``--player-strategy``): ``mirror``
(draw on 4 or less) or ``optimal`` (the exact strategy against the dealer's rule,
``strategy.solve``); the dealer draws on the rule set's ``dealer_draws_at_most``.
:func:`net_distribution` gives the exact distribution of the player's net (and so who
wins) under it; the figures are kept on disk like Niu Niu's
(``rules/audit-figures-*.json``); from a shoe, :func:`shoe_net_distribution`.
``finish`` completes dealt starts the way ``bull deal`` plays them: a seat without pok
draws as the strategy says (default ``mirror``), the dealer on its rule (nobody draws
against a dealer's pok).

>>> s = audit_spec(None, {}, None)
>>> s["labels"][:2], s["hand_size"], s["sizes"]
(['pok_8', 'pok_9'], 2, (2, 3))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.games.pokdeng.rules import HandType

__all__ = [
    "STRATEGIES", "audit_spec", "exact_net", "hand_space", "net_distribution",
    "shoe_net_distribution", "strategy_draws",
]  # fmt: skip

PAD = 255
PLAYER_DRAWS_AT_MOST = 4
STRATEGIES = ("mirror", "optimal")
"""The player strategies the outcome test can assume (``--player-strategy``)."""
_FIGURES: dict[str, list[tuple[Fraction, Fraction]]] = {}


def net_distribution(
    r: Any,
    draws: npt.NDArray[np.bool_],
    dealer_k: int,
    cards: Sequence[int] | None = None,
) -> list[tuple[Fraction, Fraction]]:
    """The exact distribution of the player's net heads-up, as ``bull deal`` plays:
    (amount, probability) by amount.

    The player's start P and the dealer's D are dealt, then the player's third card x
    and the dealer's c (distinct cards of the rest: every ordered (P, D, x, c) equally
    likely). The player draws when ``draws[P]`` (a start's colex rank over the deck) and
    neither side has a Pok; the dealer draws on a non-Pok total of ``dealer_k`` or less.
    Settlement depends on the final hands' classes only, so every (P, D) is settled
    against the classes of P or P + x and of D or D + c; starts are taken one per suit
    orbit (the game and the strategy are suit-symmetric) weighted by the orbit's size.
    ``cards``: a reduced deck (for tests), default the 52 cards.
    """
    from solver.core.indexing import all_subsets

    deck = list(range(52)) if cards is None else sorted(set(int(c) for c in cards))
    n = len(deck)
    gid = np.array(deck, dtype=np.int64)
    two = all_subsets(n, 2).astype(np.int64)
    three = all_subsets(n, 3).astype(np.int64)
    n2 = len(two)
    draws = np.asarray(draws, dtype=bool)
    if draws.shape != (n2,):
        raise ValueError(f"need one draw decision per start ({n2}), got {draws.shape}")
    c2, c3, st_idx, amounts, t2, p2 = _classes(gid[two], gid[three], r)
    n_amt = len(amounts)
    pok = t2 == int(HandType.POK)
    dealer_draws = ~pok & (p2 <= dealer_k)
    allc = np.arange(n, dtype=np.int64)
    in_d = (allc[None] == two[:, :1]) | (allc[None] == two[:, 1:])  # (n2, n)
    dc = c3[np.where(in_d, 0, _colex3(two[:, :1], two[:, 1:], allc[None]))]  # class of D + c
    reps, weight = _orbits(deck, two, draws)
    # per dealer start D: how many cards c not in D make D + c each class
    n3c = int(c3.max()) + 1
    dc_hist = np.zeros((n2, n3c), dtype=np.int64)
    np.add.at(dc_hist, (np.repeat(np.arange(n2), n), dc.ravel()), (~in_d).ravel().astype(np.int64))
    counts = np.zeros(n_amt, dtype=np.int64)
    for rep, w in zip(reps.tolist(), weight.tolist(), strict=True):
        a, b = int(two[rep, 0]), int(two[rep, 1])
        free = (allc != a) & (allc != b)  # (n,) cards not in P
        disjoint = ~(in_d[:, a] | in_d[:, b])  # (n2,) dealer starts
        px = c3[np.where(free, _colex3(np.int64(a), np.int64(b), allc), 0)]  # class of P + x
        pd = disjoint & ~pok & bool(draws[rep] and not pok[rep])  # the player draws
        rest = free[None, :] & ~in_d  # (n2, n): cards left after P and D
        cp2 = int(c2[rep])
        local = np.zeros(n_amt, dtype=np.int64)
        sel = disjoint & ~pd & ~dealer_draws  # nobody draws
        local += np.bincount(st_idx[cp2, c2[sel]], minlength=n_amt) * ((n - 4) * (n - 5))
        sel = disjoint & ~pd & dealer_draws  # the dealer draws c
        m = rest[sel]
        local += np.bincount(st_idx[cp2, dc[sel]][m], minlength=n_amt) * (n - 5)
        sel = pd & ~dealer_draws  # the player draws x
        m = rest[sel]
        v = st_idx[px[None, :], c2[sel][:, None]]
        local += np.bincount(v[m], minlength=n_amt) * (n - 5)
        sel = np.flatnonzero(pd & dealer_draws)  # both draw: x, then c != x
        if len(sel):
            local += _both_draw(sel, two, a, b, free, px, dc, dc_hist, st_idx, n_amt, rest)
        counts += w * local
    total = n2 * (n - 2) * (n - 3) // 2 * (n - 4) * (n - 5)
    if int(counts.sum()) != total:
        raise AssertionError("the deal counts do not add up to every deal")
    return [
        (Fraction(int(a)), Fraction(int(c), total))
        for a, c in zip(amounts, counts, strict=True)
        if c
    ]


def _both_draw(
    sel: npt.NDArray[np.int64],
    two: npt.NDArray[np.int64],
    a: int,
    b: int,
    free: npt.NDArray[np.bool_],
    px: npt.NDArray[np.int64],
    dc: npt.NDArray[np.int64],
    dc_hist: npt.NDArray[np.int64],
    st_idx: npt.NDArray[np.int64],
    n_amt: int,
    rest: npt.NDArray[np.bool_],
) -> npt.NDArray[np.int64]:
    """The deals (x, c), x != c, both from the cards R left after the player's start
    {a, b} and each dealer start D in ``sel``, counted by the player's net, without the
    (x, c) grid: Σ_{x≠c∈R} = Σ_{x∈A} Σ_{c∈R} - Σ_{x∈D} Σ_{c∈R} - Σ_{x=c∈R}, with A the
    cards not in {a, b}; the first term is (the classes D + c takes over c ∈ R) times
    (the nets of P + x over x ∈ A against each dealer class)."""
    # m_p[j, amt]: over x in A, how many P + x settle as amt against a dealer class j
    nd = dc_hist.shape[1]
    cell = np.arange(nd)[None, :] * n_amt + st_idx[px[np.flatnonzero(free)]][:, :nd]
    m_p = np.bincount(cell.ravel(), minlength=nd * n_amt).reshape(nd, n_amt)
    hist = dc_hist[sel].sum(axis=0)  # c ∉ D, every D in sel
    for card in (a, b):  # c ∈ P is not in R
        hist -= np.bincount(dc[sel, card], minlength=dc_hist.shape[1])
    out: npt.NDArray[np.int64] = np.asarray(hist @ m_p, dtype=np.int64)
    d1, d2 = two[sel, 0], two[sel, 1]
    ok = rest[sel]  # (len(sel), n): c in R
    for dcard in (d1, d2):  # x in D
        v = st_idx[px[dcard][:, None], dc[sel]]
        out -= np.bincount(v[ok], minlength=n_amt)
    v = st_idx[px[None, :], dc[sel]]  # x = c in R
    out -= np.bincount(v[ok], minlength=n_amt)
    return out


def shoe_net_distribution(
    r: Any,
    draws: npt.NDArray[np.bool_],
    dealer_k: int,
    faces: Sequence[int] | None = None,
) -> list[tuple[Fraction, Fraction]]:
    """:func:`net_distribution` from a shoe of ``r.decks`` decks: every physical card
    ``decks`` times, the ordered deal (P, D, x, c) of distinct physical cards uniform.
    ``draws`` is per multiset start (dense multiset rank over ``faces``, default the
    52). A deal of faces is weighted by its ways: P in ``Π C(N, m_P)``, D from what P
    leaves in ``Π C(N - m_P, m_D)``, then x and c one copy each of what is left.
    """
    from math import comb

    from solver.core.indexing import all_multisets, multiset_rank_array

    big_n = int(r.decks)
    face = list(range(52)) if faces is None else sorted(set(int(c) for c in faces))
    n = len(face)
    gid = np.array(face, dtype=np.int64)
    two = all_multisets(n, 2).astype(np.int64)
    three = all_multisets(n, 3).astype(np.int64)
    n2 = len(two)
    draws = np.asarray(draws, dtype=bool)
    if draws.shape != (n2,):
        raise ValueError(f"need one draw decision per start ({n2}), got {draws.shape}")
    c2, c3, st_idx, amounts, t2, p2 = _classes(gid[two], gid[three], r)
    n_amt = len(amounts)
    pok = t2 == int(HandType.POK)
    dealer_draws = ~pok & (p2 <= dealer_k)
    allc = np.arange(n, dtype=np.int64)
    m2 = (two[:, :1] == allc[None]).astype(np.int64) + (two[:, 1:] == allc[None])  # (n2, n)
    plus = np.stack([np.broadcast_to(two[:, 0:1], (n2, n)), np.broadcast_to(two[:, 1:2], (n2, n)),
                     np.broadcast_to(allc[None], (n2, n))], axis=2).reshape(-1, 3)  # fmt: skip
    dc = c3[multiset_rank_array(plus)].reshape(n2, n)  # class of start + one more face
    binom = np.array([[comb(a, b) for b in range(3)] for a in range(big_n + 1)], dtype=np.int64)
    reps, orbit_size = _orbits(face, two, draws, multiset=True)
    cards = n * big_n
    counts = [0] * n_amt
    for rep, size in zip(reps.tolist(), orbit_size.tolist(), strict=True):
        mp = m2[rep]
        if (mp > big_n).any():
            continue
        w_p = int(np.prod(binom[big_n, mp]))
        left_p = big_n - mp  # (n,)
        ok_d = (m2 <= left_p[None]).all(axis=1)
        w_d = np.where(
            ok_d, np.prod(binom[np.maximum(left_p, 0)[None], np.minimum(m2, 2)], axis=1), 0
        )
        left = np.maximum(left_p[None] - m2, 0)  # (n2, n): copies left after P and D
        pd = ok_d & ~pok & bool(draws[rep] and not pok[rep])  # the player draws
        cp2 = int(c2[rep])
        local = np.zeros(n_amt, dtype=np.int64)

        sel = ok_d & ~pd & ~dealer_draws  # nobody draws
        local += _binned(n_amt, st_idx[cp2, c2[sel]], w_d[sel] * ((cards - 4) * (cards - 5)))
        sel = ok_d & ~pd & dealer_draws  # the dealer draws c
        local += _binned(
            n_amt, st_idx[cp2, dc[sel]].ravel(), (w_d[sel, None] * left[sel] * (cards - 5)).ravel()
        )
        px = dc[rep]  # class of P + x
        sel = pd & ~dealer_draws  # the player draws x
        local += _binned(n_amt, st_idx[px[None, :], c2[sel][:, None]].ravel(),
            (w_d[sel, None] * left[sel] * (cards - 5)).ravel())  # fmt: skip
        both = np.flatnonzero(pd & dealer_draws)  # x, then c from what x leaves
        eye = np.eye(n, dtype=np.int64)
        for lo in range(0, len(both), 32):
            s = both[lo : lo + 32]
            lf = left[s]
            w = w_d[s, None, None] * lf[:, :, None] * np.maximum(lf[:, None, :] - eye[None], 0)
            local += _binned(n_amt, st_idx[px[None, :, None], dc[s][:, None, :]].ravel(), w.ravel())
        for j in range(n_amt):
            counts[j] += size * w_p * int(local[j])
    total = comb(cards, 2) * comb(cards - 2, 2) * (cards - 4) * (cards - 5)
    if sum(counts) != total:
        raise AssertionError("the deal counts do not add up to every deal")
    return [
        (Fraction(int(a)), Fraction(c, total)) for a, c in zip(amounts, counts, strict=True) if c
    ]


def _classes(two: Any, three: Any, r: Any) -> tuple[Any, ...]:
    """The settlement classes of two- and three-card hands (card ids, one hand a row):
    ``(c2, c3, st_idx, amounts, t2, p2)`` — each hand's class (type, points, deng and
    two-card kind, densely), the index into ``amounts`` of the player's net for every
    (player class, dealer class), and the two-card hands' types and points."""
    from solver.games.pokdeng.hands import classify, settle, two_card_kind

    t2, p2, d2 = classify(two, r)
    t3, p3, d3 = classify(three, r)
    k2 = two_card_kind(two) if r.two_card_order else np.zeros(len(two), np.int8)
    k3 = two_card_kind(three) if r.two_card_order else np.zeros(len(three), np.int8)
    code = np.r_[
        ((t2.astype(np.int64) * 10 + p2) * 10 + d2) * 4 + k2,
        ((t3.astype(np.int64) * 10 + p3) * 10 + d3) * 4 + k3,
    ]
    classes, cid = np.unique(code, return_inverse=True)
    cid = cid.reshape(-1).astype(np.int64)
    ct, cp, cd, ck = classes // 400, (classes // 40) % 10, (classes // 4) % 10, classes % 4
    st = settle(ct[:, None], cp[:, None], cd[:, None], ct[None], cp[None], cd[None], r,
                ck[:, None], ck[None])  # fmt: skip
    amounts, st_idx = np.unique(st, return_inverse=True)
    st_idx = st_idx.reshape(st.shape).astype(np.int64)
    return cid[: len(two)], cid[len(two) :], st_idx, amounts, t2, p2


def _binned(n: int, idx: Any, weight: Any) -> npt.NDArray[np.int64]:
    """Exact integer sums of ``weight`` per bin 0..n-1 (float sums below 2**53)."""
    out: npt.NDArray[np.int64] = np.rint(np.bincount(idx, weights=weight, minlength=n)).astype(
        np.int64
    )
    return out


def _colex3(a: Any, b: Any, c: Any) -> npt.NDArray[np.int64]:
    s = np.sort(np.stack(np.broadcast_arrays(a, b, c)), axis=0)
    out: npt.NDArray[np.int64] = s[2] * (s[2] - 1) * (s[2] - 2) // 6 + s[1] * (s[1] - 1) // 2 + s[0]
    return out


def _orbits(
    deck: Sequence[int],
    two: npt.NDArray[np.int64],
    draws: npt.NDArray[np.bool_],
    multiset: bool = False,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """One start per orbit of the suit permutations that keep the deck, and the orbit's
    size; every start on its own when the strategy is not constant on an orbit
    (``two``: the starts in colex order, or with ``multiset`` in dense multiset order)."""
    import itertools

    pos = {c: i for i, c in enumerate(deck)}
    orbit = np.arange(len(two), dtype=np.int64)
    for perm in itertools.permutations(range(4)):
        image = [(c >> 2) * 4 + perm[c & 3] for c in deck]
        if not all(c in pos for c in image):
            continue
        m = np.array([pos[c] for c in image], dtype=np.int64)
        a, b = m[two[:, 0]], m[two[:, 1]]
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        orbit = np.minimum(orbit, (hi * (hi + 1) if multiset else hi * (hi - 1)) // 2 + lo)
    if (draws != draws[orbit]).any():
        return np.arange(len(two), dtype=np.int64), np.ones(len(two), dtype=np.int64)
    reps, weight = np.unique(orbit, return_counts=True)
    return reps.astype(np.int64), weight.astype(np.int64)


def strategy_draws(r: Any, strategy: str, dealer_k: int, tables: str | None) -> Any:
    """Which of the 1,326 starts (colex rank; a shoe: the 1,378 multiset starts by dense
    multiset rank) draw under ``strategy``: ``mirror`` on a non-Pok total of 4 or less,
    ``optimal`` as the exact strategy against a dealer drawing on ``dealer_k`` or less
    says (a tie stands)."""
    from solver.games.pokdeng.hands import all_hands, all_shoe_hands, classify
    from solver.games.pokdeng.rulefile import rule_solution, shoe_rule_solution
    from solver.games.pokdeng.strategy import CONFIGS, Action, config_rules, solve

    if strategy == "mirror":
        t, p, _d = classify(all_hands(2) if r.decks == 1 else all_shoe_hands(2), r)
        return (t != int(HandType.POK)) & (p <= PLAYER_DRAWS_AT_MOST)
    if r.decks > 1:
        return np.asarray(shoe_rule_solution(r, dealer_k, tables).action == Action.DRAW)
    preset = r.name in CONFIGS and r.with_policy(dealer_k) == config_rules(r.name).with_policy(
        dealer_k
    )
    sol = solve(r, dealer_k) if preset else rule_solution(r, dealer_k, tables)
    return np.asarray(sol.action == Action.DRAW)


def exact_net(
    r: Any, strategy: str, dealer_k: int, tables: str | None
) -> list[tuple[Fraction, Fraction]]:
    """:func:`net_distribution` under ``strategy``, computed once, then read from the
    cache next to the rule-set tables."""
    from solver.store.custom import cached_figures, rule_digest, store_figures

    key = {"figures": "pokdeng audit net", "rules": r.to_data(), "strategy": strategy,
           "dealer_draws_at_most": dealer_k}  # fmt: skip
    memo = rule_digest(key) + (tables or "")
    if memo in _FIGURES:
        return _FIGURES[memo]
    path, stored = cached_figures("audit-figures", key, tables, 1 << 24)
    net: list[tuple[Fraction, Fraction]] | None = None
    try:
        if stored is not None:
            net = [(Fraction(a), Fraction(p)) for a, p in stored["net"]]
            if sum(p for _, p in net) != 1:
                net = None
    except (ValueError, AttributeError, KeyError, TypeError, ZeroDivisionError):
        net = None
    if net is None:
        draws = strategy_draws(r, strategy, dealer_k, tables)
        compute = net_distribution if r.decks == 1 else shoe_net_distribution
        net = compute(r, draws, dealer_k)
        store_figures(path, key, {"net": [[str(a), str(p)] for a, p in net]})
    _FIGURES[memo] = net
    return net


def hand_space(rules: Any) -> dict[str, Any]:
    """What Pok Deng deals under ``rules``: the part of :func:`audit_spec` that reads no
    table and no figure (``bull probe`` asks its questions from it).

    >>> s = hand_space("standard")
    >>> s["kind"], s["sizes"], len(s["deck"]), int(s["copies"][0])
    ('card', (2, 3), 52, 1)
    """
    from solver.core.cards import CARD_NAMES
    from solver.games.pokdeng.rules import PokDengRules, load_rules

    r = rules if isinstance(rules, PokDengRules) else load_rules(rules)
    decks = int(r.decks)
    return {
        "kind": "card",
        "hand_size": 2,
        "sizes": (2, 3),
        "deck": np.repeat(np.arange(52, dtype=np.uint8), decks),
        "unit": np.arange(52, dtype=np.int64),
        "unit_names": list(CARD_NAMES),
        "copies": np.full(52, decks, dtype=np.int64),
    }


def audit_spec(
    rules: Any,
    options: Mapping[str, Any],
    tables: str | None,
    arrays: Mapping[str, npt.NDArray[Any]] | None = None,
) -> dict[str, Any]:
    """The audit description of Pok Deng under ``rules`` (see the module docstring)."""
    from solver.core.errors import BullError
    from solver.core.indexing import all_subsets, colex_rank_array, multiset_rank_array
    from solver.games.pokdeng.hands import all_shoe_hands
    from solver.games.pokdeng.odds import odds
    from solver.games.pokdeng.play import evaluate_batch, settle_batch
    from solver.games.pokdeng.rules import load_rules
    from solver.kit.parse import parse_card_hands

    r = load_rules(rules)
    decks = int(r.decks)
    strategy = options.get("player_strategy")
    if strategy is not None and strategy not in STRATEGIES:
        raise BullError(f"--player-strategy {strategy!r}: expected {' or '.join(STRATEGIES)}")
    res = odds(r, tables)
    rows = res.sections["2_card_type_points"]
    labels = [lb for lb, _ in rows]
    expected = [Fraction(n, res.totals["2_card_type_points"]) for _, n in rows]
    index = {lb: i for i, lb in enumerate(labels)}
    dealer_k = options.get("dealer_draws_at_most")
    dealer_k = r.dealer_draws_at_most if dealer_k is None else int(dealer_k)
    driver = arrays is None  # an executor (arrays broadcast) only counts
    if arrays is None:
        starts = all_subsets(52, 2) if decks == 1 else all_shoe_hands(2)
        ev = evaluate_batch(starts, r, tables)
        pairs = zip(ev["type"].tolist(), ev["points"].tolist(), strict=True)
        names = [f"{HandType(t).label}_{p}" for t, p in pairs]
        arrays = {
            "category": np.array([index[n] for n in names], dtype=np.int8),
            "strength": np.asarray(ev["strength"], dtype=np.int16),
            "points": np.asarray(ev["points"], dtype=np.int8),
            "pok": np.asarray(ev["type"] == int(HandType.POK)),
        }
        pok_s = np.asarray(arrays["pok"])
        if strategy == "optimal":
            arrays["draws"] = np.asarray(strategy_draws(r, "optimal", dealer_k, tables))
        else:
            arrays["draws"] = ~pok_s & (np.asarray(arrays["points"]) <= PLAYER_DRAWS_AT_MOST)
    cat_col, str_col = arrays["category"], arrays["strength"]
    pts_col, pok_col, draws_col = arrays["points"], arrays["pok"], arrays["draws"]
    net: list[tuple[Fraction, Fraction]] | None = None
    outcome: list[Fraction] | None = None
    if strategy is None:
        note = (
            "the outcome of Pok Deng depends on how the players draw: give "
            "--player-strategy mirror|optimal to test it under that strategy"
        )
    else:
        note = (
            f"players draw {'on 4 or less' if strategy == 'mirror' else 'optimally'} "
            f"(--player-strategy {strategy}), the dealer on {dealer_k} or less"
            + (f"; from a {decks}-deck shoe" if decks > 1 else "")
        )
        if driver:
            net = exact_net(r, strategy, dealer_k, tables)
            outcome = [sum((p for a, p in net if a > 0), Fraction(0)),
                       sum((p for a, p in net if a < 0), Fraction(0)),
                       sum((p for a, p in net if a == 0), Fraction(0))]  # fmt: skip

    def rank(ids: npt.NDArray[np.uint8]) -> npt.NDArray[np.int32]:
        srt = np.sort(ids[:, :2], axis=1)
        if decks > 1:
            return multiset_rank_array(srt, presorted=True)
        return colex_rank_array(srt, presorted=True)

    def category(ids: npt.NDArray[np.uint8]) -> npt.NDArray[np.int64]:
        return cat_col[rank(ids)].astype(np.int64)

    def strength(ids: npt.NDArray[np.uint8]) -> npt.NDArray[np.int64]:
        return str_col[rank(ids)].astype(np.int64)

    def finish(
        start: npt.NDArray[np.uint8],
        extra: npt.NDArray[np.uint8],
        dealer_pok: npt.NDArray[np.bool_],
    ) -> npt.NDArray[np.uint8]:
        """Final hands (n, 3), PAD when standing: ``extra`` the next card for each."""
        rk = rank(start)
        draws = draws_col[rk] & ~pok_col[rk] & ~dealer_pok
        out = np.full((len(start), 3), PAD, dtype=np.uint8)
        out[:, :2] = start[:, :2]
        out[draws, 2] = extra[draws]
        return out

    def finish_dealer(
        start: npt.NDArray[np.uint8], extra: npt.NDArray[np.uint8]
    ) -> npt.NDArray[np.uint8]:
        rk = rank(start)
        draws = ~pok_col[rk] & (pts_col[rk] <= dealer_k)
        out = np.full((len(start), 3), PAD, dtype=np.uint8)
        out[:, :2] = start[:, :2]
        out[draws, 2] = extra[draws]
        return out

    def settle(
        player: npt.NDArray[np.uint8], banker: npt.NDArray[np.uint8]
    ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float64]]:
        net = np.zeros(len(player), dtype=np.float64)
        for sp in (2, 3):
            for sb in (2, 3):
                sel = ((player[:, 2] != PAD) == (sp == 3)) & ((banker[:, 2] != PAD) == (sb == 3))
                if sel.any():
                    net[sel] = settle_batch(player[sel, :sp], banker[sel, :sb], r, tables)
        winner = np.where(net > 0, 0, np.where(net < 0, 1, 2)).astype(np.int8)
        return winner, net

    return {
        "game": "pokdeng",
        "rules": r.name,
        **hand_space(r),
        "parse": lambda arr: parse_card_hands(arr, (2, 3), copies=decks),
        "labels": labels,
        "expected": expected,
        "bull": [lb.startswith("pok") for lb in labels],
        "category": category,
        "strength": strength,
        "outcome": outcome,
        "net": net,
        "outcome_note": note,
        "decks": decks,
        "settle": settle,
        "finish": finish,
        "finish_dealer": finish_dealer,
        "pok": lambda ids: pok_col[rank(ids)],
        "banker_word": "dealer",
        "arrays": dict(arrays),
    }
