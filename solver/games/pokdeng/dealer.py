"""The dealer's side of Pok Deng heads-up: the exact payoff tables of the two-sided game
and the dealer's best response to a player strategy (issue 15; RULES.md §5 and §9).

**The game.** The player's start P (two cards) and the dealer's D (two of the rest) are
dealt; the player sees P and stands or draws one card x; the dealer sees D and the
player's card count (2 or 3: whether he drew) and stands or draws one card c. A Pok on
either side settles with two cards; a player's Pok is shown at once, so the dealer's
"sees 2" decision is against players who *stood* without Pok. A dealer Pok has no
choice, nor does a player Pok. Behaviour strategies: the player's draw probability
``sigma[P]`` per start, the dealer's ``tau2[D]`` / ``tau3[D]`` per start and view. The
player's EV is bilinear in them; for every disjoint (P, D) four integers give it,
all over the common denominator ``L = (n-4)(n-5)`` (n cards in the deck; 2,256 for 52)::

    a00 = L * s(P, D)                 player stands, dealer stands
    a01 = (n-5) * sum_c s(P, D + c)   player stands, dealer draws   (c from the n-4 left)
    a10 = (n-5) * sum_x s(P + x, D)   player draws,  dealer stands  (x from the n-4 left)
    a11 = sum_x sum_c s(P + x, D + c) both draw (x, then c from the n-5 left)

and the player's EV is the mean over (P, D) of ``(1-sigma)(a00 + tau2 (a01-a00)) +
sigma (a10 + tau3 (a11-a10))`` over L. The double sum a11 is counted through classes:
``sum_{c not in D} s(T, D+c)`` depends on T only through its class (one matrix
product), minus the three terms with c in T. Rows are computed for one start per suit
orbit and spread to every start by the suit permutations (the game is suit-symmetric).

**House constraint** ``must_draw_at_most K``: a non-Pok dealer total <= K must draw; above
it the dealer chooses (K = -1: always free; K = 7: never free).

A reduced deck (any subset of the 52 cards, e.g. fewer ranks) is accepted everywhere so
that tests can check the tables by brute force.

>>> from solver.games.pokdeng.rules import load_rules
>>> br = best_response(load_rules(), mirror_strategy(load_rules()), must_draw_at_most=-1)
>>> br.action_of(parse_hand("5S 2H"), 3), br.action_of(parse_hand("AS 2H"), 2)
('stand', 'draw')
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import comb, gcd
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.core.cards import CARD_NAMES, Card, parse_hand
from solver.core.errors import ParseError, RulesError
from solver.core.files import read_text
from solver.core.indexing import all_subsets
from solver.games.pokdeng.hands import classify, settle, two_card_kind
from solver.games.pokdeng.rules import HandType, PokDengRules

__all__ = [
    "MAX_PLAYER_FILE",
    "BestResponse",
    "DealerGame",
    "RationalVector",
    "best_response",
    "card_names",
    "dealer_coefficients",
    "dealer_game",
    "load_player_file",
    "mirror_strategy",
    "optimal_strategy",
    "player_ev",
    "player_values",
]

IntArray = npt.NDArray[np.int64]


# ---------------------------------------------------------------- rational vectors


@dataclass(frozen=True)
class RationalVector:
    """Probabilities ``num / den`` (exact): a behaviour strategy, one entry per start."""

    num: IntArray
    den: int

    @staticmethod
    def pure(draws: npt.ArrayLike) -> RationalVector:
        """A pure strategy from a boolean/0-1 array (1 = draw)."""
        return RationalVector(np.asarray(draws, dtype=np.int64).copy(), 1)

    @staticmethod
    def from_fractions(values: Sequence[Fraction]) -> RationalVector:
        den = 1
        for v in values:
            den = den * v.denominator // gcd(den, v.denominator)
        return RationalVector(
            np.array([int(v * den) for v in values], dtype=object).astype(np.int64)
            if den < 2**40
            else np.array([int(v * den) for v in values], dtype=object),
            den,
        )

    def fraction(self, i: int) -> Fraction:
        return Fraction(int(self.num[i]), self.den)

    def floats(self) -> npt.NDArray[np.float64]:
        return np.asarray(self.num, dtype=np.float64) / self.den

    def complement(self) -> RationalVector:
        """``1 - self``."""
        return RationalVector(self.den - self.num, self.den)

    @property
    def is_pure(self) -> bool:
        return bool(np.isin(self.num, (0, self.den)).all())


def _weighted_sum(matrix: IntArray, v: RationalVector) -> list[Fraction]:
    """``sum_i v[i] * matrix[i, j]`` per column j, exactly."""
    num = v.num
    big = int(abs(num).max(initial=0)) * int(abs(matrix).max(initial=0)) * len(num)
    if num.dtype != object and big < 2**62:
        tot = num.astype(np.int64) @ matrix
        return [Fraction(int(t), v.den) for t in tot]
    tot_o = np.asarray(num, dtype=object) @ matrix.astype(object)
    return [Fraction(int(t), v.den) for t in tot_o]


# ---------------------------------------------------------------- the payoff tables


@dataclass(frozen=True)
class DealerGame:
    """The exact payoff tables of the heads-up game for one rule set and deck.

    ``two`` lists the starts (card ids, colex order over the deck; for the full deck the
    order of :func:`~solver.games.pokdeng.hands.all_hands`). ``a00 .. a11`` are
    (starts x starts) integer tables indexed [player start, dealer start], zero where
    the starts share a card (see the module text); ``den`` is the EV denominator of a
    sum over all (P, D): starts x dealer starts per P x L.
    """

    rules: PokDengRules
    cards: tuple[Card, ...]
    two: npt.NDArray[np.int64]
    type: npt.NDArray[np.int8]
    points: npt.NDArray[np.int8]
    deng: npt.NDArray[np.int8]
    orbit: IntArray
    a00: IntArray
    a01: IntArray
    a10: IntArray
    a11: IntArray
    big_l: int
    den: int

    @property
    def n_starts(self) -> int:
        return len(self.two)

    @property
    def pok(self) -> npt.NDArray[np.bool_]:
        out: npt.NDArray[np.bool_] = self.type == HandType.POK
        return out

    def index(self, cards: Sequence[Card]) -> int:
        """The row of a two-card start (a ParseError if not in this deck)."""
        pos = {c: i for i, c in enumerate(self.cards)}
        try:
            a, b = sorted(pos[c] for c in cards)
        except KeyError:
            raise ParseError("card not in this deck") from None
        return b * (b - 1) // 2 + a

    def forced(self, must_draw_at_most: int) -> tuple[npt.NDArray[np.bool_], ...]:
        """(free, forced_draw) masks of dealer starts under the house constraint."""
        if not -1 <= must_draw_at_most <= 7:
            raise RulesError(f"--must-draw-at-most must be -1..7, not {must_draw_at_most}")
        free = ~self.pok & (self.points > must_draw_at_most)
        forced = ~self.pok & (self.points <= must_draw_at_most)
        return free, forced


def _colex2(a: IntArray, b: IntArray) -> IntArray:
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    out: IntArray = hi * (hi - 1) // 2 + lo
    return out


def _colex3(a: IntArray, b: IntArray, c: IntArray) -> IntArray:
    s = np.sort(np.stack(np.broadcast_arrays(a, b, c)), axis=0)
    out: IntArray = s[2] * (s[2] - 1) * (s[2] - 2) // 6 + s[1] * (s[1] - 1) // 2 + s[0]
    return out


def _suit_maps(cards: tuple[Card, ...]) -> list[IntArray]:
    """Local card maps of the suit permutations that keep the deck."""
    pos = {c: i for i, c in enumerate(cards)}
    maps = []
    for perm in itertools.permutations(range(4)):
        image = [(c >> 2) * 4 + perm[c & 3] for c in cards]
        if all(c in pos for c in image):
            maps.append(np.array([pos[c] for c in image], dtype=np.int64))
    return maps


@lru_cache(maxsize=4)
def dealer_game(rules: PokDengRules, cards: tuple[Card, ...] | None = None) -> DealerGame:
    """Build the payoff tables (full deck unless ``cards`` names a reduced deck)."""
    if rules.decks != 1:
        raise RulesError("the dealer's game is solved for one deck (decks = 1) only")
    deck = tuple(range(52)) if cards is None else tuple(sorted(set(cards)))
    n = len(deck)
    if n < 6:
        raise RulesError("a reduced deck needs at least 6 cards")
    gid = np.array(deck, dtype=np.int64)
    two_l = all_subsets(n, 2).astype(np.int64)
    three_l = all_subsets(n, 3).astype(np.int64)
    n2 = len(two_l)
    two, three = gid[two_l], gid[three_l]
    t2, p2, d2 = classify(two, rules)
    t3, p3, d3 = classify(three, rules)
    k2 = two_card_kind(two) if rules.two_card_order else np.zeros(n2, np.int8)
    k3 = two_card_kind(three) if rules.two_card_order else np.zeros(len(three), np.int8)
    code = np.r_[
        ((t2.astype(np.int64) * 10 + p2) * 10 + d2) * 4 + k2,
        ((t3.astype(np.int64) * 10 + p3) * 10 + d3) * 4 + k3,
    ]
    classes, cid = np.unique(code, return_inverse=True)
    cid = cid.reshape(-1).astype(np.int64)
    c2, c3 = cid[:n2], cid[n2:]
    ct, cp = classes // 400, (classes // 40) % 10
    cd, ck = (classes // 4) % 10, classes % 4
    st = settle(
        ct[:, None],
        cp[:, None],
        cd[:, None],
        ct[None],
        cp[None],
        cd[None],
        rules,
        ck[:, None],
        ck[None],
    )
    # class of D + c for every dealer start D and card c (garbage where c is in D)
    allc = np.arange(n, dtype=np.int64)
    in_d = (allc[None] == two_l[:, :1]) | (allc[None] == two_l[:, 1:])
    dc = c3[np.where(in_d, 0, _colex3(two_l[:, :1], two_l[:, 1:], allc[None]))]  # (n2, n)
    n_cls = len(classes)
    cnt = np.zeros((n2, n_cls), dtype=np.int64)  # classes of D + c over the c not in D
    np.add.at(cnt, (np.repeat(np.arange(n2), n), dc.reshape(-1)), (~in_d).reshape(-1))
    q = (st.astype(np.float64) @ cnt.T.astype(np.float64)).round().astype(np.int64)
    # one representative start per suit orbit
    maps = _suit_maps(deck)
    hmaps = np.stack([_colex2(m[two_l[:, 0]], m[two_l[:, 1]]) for m in maps])  # (g, n2)
    orbit = hmaps.min(axis=0)
    reps = np.unique(orbit)
    a, b = two_l[reps, 0], two_l[reps, 1]
    r_n = len(reps)
    in_p = (allc[None] == a[:, None]) | (allc[None] == b[:, None])
    px = c3[np.where(in_p, 0, _colex3(a[:, None], b[:, None], allc[None]))]  # (R, n): P + x
    disjoint = ~(in_d[:, a].T | in_d[:, b].T)  # (R, n2)
    sp = st[c2[reps]]  # (R, n_cls): the player's two cards against each dealer class
    s0 = sp[np.arange(r_n)[:, None], c2[None, :]]
    da, db = dc[:, a].T, dc[:, b].T  # (R, n2): class of D + a, D + b
    s1 = np.zeros((r_n, n2), dtype=np.int64)
    h = np.zeros((r_n, n2), dtype=np.int64)
    h3 = np.zeros((r_n, n2), dtype=np.int64)
    for x in range(n):  # x: the player's draw, or the dealer's c in s1
        okx = disjoint & ~in_d[None, :, x] & ~in_p[:, x][:, None]
        tx = px[:, x][:, None]  # (R, 1) class of P + x
        s1 += np.where(okx, sp[np.arange(r_n)[:, None], dc[None, :, x]], 0)
        h += np.where(okx, st[tx, c2[None, :]], 0)
        # sum over c not in D, P, x of s(P + x, D + c)
        term = q[tx, np.arange(n2)[None, :]] - st[tx, da] - st[tx, db] - st[tx, dc[None, :, x]]
        h3 += np.where(okx, term, 0)
    big_l = (n - 4) * (n - 5)
    rows = {
        "a00": np.where(disjoint, big_l * s0, 0),
        "a01": np.where(disjoint, (n - 5) * s1, 0),
        "a10": np.where(disjoint, (n - 5) * h, 0),
        "a11": np.where(disjoint, h3, 0),
    }
    # spread to every start: P = g(rep) gives M[P, D] = M[rep, g^-1(D)]
    rep_of = np.searchsorted(reps, orbit)
    inv = np.stack([np.argsort(hm) for hm in hmaps])  # g^-1 as a start map
    g_of = np.full(n2, -1, dtype=np.int64)
    for gi, hm in enumerate(hmaps):
        hit = g_of[hm[reps]] < 0
        g_of[hm[reps][hit]] = gi
    full = {k: v[rep_of[:, None], inv[g_of]] for k, v in rows.items()}
    return DealerGame(
        rules=rules,
        cards=deck,
        two=two,
        type=t2,
        points=p2,
        deng=d2,
        orbit=orbit.astype(np.int64),
        a00=full["a00"],
        a01=full["a01"],
        a10=full["a10"],
        a11=full["a11"],
        big_l=big_l,
        den=n2 * comb(n - 2, 2) * big_l,
    )


# ---------------------------------------------------------------- player strategies


def _check_player(game: DealerGame, sigma: RationalVector) -> RationalVector:
    num = np.asarray(sigma.num)
    if len(num) != game.n_starts or (num < 0).any() or (num > sigma.den).any():
        raise RulesError("a player strategy needs one draw probability in [0, 1] per start")
    if (num[game.pok] != 0).any():
        raise RulesError("a Pok start cannot draw")
    return sigma


def mirror_strategy(game_or_rules: DealerGame | PokDengRules) -> RationalVector:
    """The player draws on 4 or less (the dealer's usual rule, mirrored)."""
    game = game_or_rules if isinstance(game_or_rules, DealerGame) else dealer_game(game_or_rules)
    return RationalVector.pure(~game.pok & (game.points <= 4))


def optimal_strategy(
    rules: PokDengRules, dealer_draws_at_most: int | None = None
) -> RationalVector:
    """The player's optimum against the fixed dealer rule (``strategy.solve``; full deck)."""
    from solver.games.pokdeng.strategy import Action, solve

    return RationalVector.pure(solve(rules, dealer_draws_at_most).action == Action.DRAW)


MAX_PLAYER_FILE = 1 << 20
"""The largest player strategy file read (bytes); one lists at most 1,326 starts."""


def load_player_file(path: str, game: DealerGame) -> RationalVector:
    """A player strategy from a CSV file: one ``HAND,ACTION`` line per start listed
    (``7H 5D,draw``; ACTION ``stand``, ``draw`` or ``pok``); an optional ``hand,action``
    header, blank lines and ``#`` comments are allowed; starts not listed draw on 4 or
    less. Errors name the file and line.
    """
    text = read_text(path, "player strategy", MAX_PLAYER_FILE, error=ParseError)
    lines = text.split("\n")
    draws = (~game.pok & (game.points <= 4)).astype(np.int64)
    seen: dict[int, int] = {}
    for no, raw in enumerate(lines, 1):
        line = raw.split("#", 1)[0].strip()
        if not line or (no == 1 and line.replace(" ", "").lower() == "hand,action"):
            continue
        where = f"{path} line {no}"
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != 2:
            raise ParseError(f"{where}: expected HAND,ACTION, got {raw.strip()!r}")
        try:
            i = game.index(parse_hand(parts[0], size=2))
        except ParseError as exc:
            raise ParseError(f"{where}: bad hand {parts[0]!r} ({exc})") from None
        if i in seen:
            raise ParseError(f"{where}: start {parts[0]} already given on line {seen[i]}")
        seen[i] = no
        act = parts[1].lower()
        if act not in ("stand", "draw", "pok"):
            raise ParseError(f"{where}: action must be stand, draw or pok, not {parts[1]!r}")
        if (act == "pok") != bool(game.pok[i]) and not (act == "stand" and game.pok[i]):
            raise ParseError(f"{where}: {parts[0]} is {'a' if game.pok[i] else 'not a'} Pok")
        draws[i] = 1 if act == "draw" else 0
    return RationalVector.pure(draws)


# ---------------------------------------------------------------- payoff coefficients


def _sum_over_starts(game: DealerGame) -> int:
    """Dealer starts per player start times L: a start's EV denominator."""
    return game.den // game.n_starts


def dealer_coefficients(
    game: DealerGame, sigma: RationalVector
) -> tuple[Fraction, list[Fraction], list[Fraction]]:
    """``(base, c2, c3)``: the player's summed payoff (over ``game.den``) is
    ``base + sum_D tau2[D] c2[D] + tau3[D] c3[D]`` for any dealer strategy."""
    _check_player(game, sigma)
    stand = sigma.complement()
    base = sum(_weighted_sum(game.a00.sum(axis=1, keepdims=True), stand), Fraction(0))
    base += sum(_weighted_sum(game.a10.sum(axis=1, keepdims=True), sigma), Fraction(0))
    c2 = _weighted_sum(game.a01 - game.a00, stand)
    c3 = _weighted_sum(game.a11 - game.a10, sigma)
    return base, c2, c3


def player_values(
    game: DealerGame, tau2: RationalVector, tau3: RationalVector
) -> tuple[list[Fraction], list[Fraction]]:
    """Exact EV per stake of standing and of drawing for every player start against a
    dealer strategy (a Pok start: both its EV)."""
    per = _sum_over_starts(game)
    st0 = game.a00.sum(axis=1)
    dr0 = game.a10.sum(axis=1)
    st = _weighted_sum((game.a01 - game.a00).T, tau2)
    dr = _weighted_sum((game.a11 - game.a10).T, tau3)
    stand = [(int(st0[i]) + st[i]) / per for i in range(game.n_starts)]
    draw = [stand[i] if game.pok[i] else (int(dr0[i]) + dr[i]) / per for i in range(game.n_starts)]
    return stand, draw


def player_ev(
    game: DealerGame, sigma: RationalVector, tau2: RationalVector, tau3: RationalVector
) -> Fraction:
    """The player's exact EV per stake when both sides follow the given strategies."""
    base, c2, c3 = dealer_coefficients(game, sigma)
    tot = base + sum((tau2.fraction(d) * c2[d] for d in range(game.n_starts)), Fraction(0))
    tot += sum((tau3.fraction(d) * c3[d] for d in range(game.n_starts)), Fraction(0))
    return tot / game.den


# ---------------------------------------------------------------- the dealer's best response


@dataclass(frozen=True)
class BestResponse:
    """The dealer's best decision per dealer start and view (the player's card count
    2 or 3) against one player strategy, with the dealer's exact EV per stake of
    standing and drawing in that view (``None`` where the player never arrives there:
    the dealer then stands unless forced). ``action2``/``action3``: ``stand``, ``draw``
    or ``pok``; ``forced``: the house made him draw. ``player_ev``: the player's exact EV
    against this response."""

    rules: PokDengRules
    must_draw_at_most: int
    game: DealerGame
    action2: tuple[str, ...]
    action3: tuple[str, ...]
    forced: tuple[bool, ...]
    ev_stand2: tuple[Fraction | None, ...]
    ev_draw2: tuple[Fraction | None, ...]
    ev_stand3: tuple[Fraction | None, ...]
    ev_draw3: tuple[Fraction | None, ...]
    tau2: RationalVector
    tau3: RationalVector
    player_ev: Fraction

    def action_of(self, cards: Sequence[Card], sees: int) -> str:
        """The dealer's action holding ``cards`` when the player shows ``sees`` cards."""
        i = self.game.index(cards)
        if sees not in (2, 3):
            raise RulesError(f"--dealer-sees must be 2 or 3, not {sees}")
        return self.action2[i] if sees == 2 else self.action3[i]


def _disjoint(game: DealerGame) -> IntArray:
    t = game.two
    share = (
        (t[:, 0, None] == t[None, :, 0])
        | (t[:, 0, None] == t[None, :, 1])
        | (t[:, 1, None] == t[None, :, 0])
        | (t[:, 1, None] == t[None, :, 1])
    )
    out: IntArray = (~share).astype(np.int64)
    return out


def best_response(
    rules_or_game: PokDengRules | DealerGame, sigma: RationalVector, must_draw_at_most: int = -1
) -> BestResponse:
    """The dealer's exact best response to the player strategy ``sigma`` (ties: stand)."""
    game = rules_or_game if isinstance(rules_or_game, DealerGame) else dealer_game(rules_or_game)
    free, forced = game.forced(must_draw_at_most)
    base, c2, c3 = dealer_coefficients(game, sigma)
    n = game.n_starts
    draw2 = [bool(forced[d] or (free[d] and c2[d] < 0)) for d in range(n)]
    draw3 = [bool(forced[d] or (free[d] and c3[d] < 0)) for d in range(n)]
    tau2 = RationalVector.pure(draw2)
    tau3 = RationalVector.pure(draw3)
    value = base + sum((c2[d] for d in range(n) if draw2[d]), Fraction(0))
    value += sum((c3[d] for d in range(n) if draw3[d]), Fraction(0))
    disj = _disjoint(game)
    stood = RationalVector(np.where(game.pok, 0, sigma.den - sigma.num), sigma.den)
    big_l = game.big_l

    def view(w: RationalVector, ms: IntArray, md: IntArray) -> tuple[list[Any], list[Any]]:
        reach = _weighted_sum(disj, w)
        s_ = _weighted_sum(ms, w)
        d_ = _weighted_sum(md, w)
        es = [None if reach[d] == 0 else -s_[d] / (big_l * reach[d]) for d in range(n)]
        ed = [None if reach[d] == 0 else -d_[d] / (big_l * reach[d]) for d in range(n)]
        return es, ed

    es2, ed2 = view(stood, game.a00, game.a01)
    es3, ed3 = view(sigma, game.a10, game.a11)
    for d in np.flatnonzero(game.pok):  # a Pok has no choice: both EVs are its own
        ed2[d], ed3[d] = es2[d], es3[d]

    def label(d: int, draws: bool) -> str:
        return "pok" if game.pok[d] else "draw" if draws else "stand"

    return BestResponse(
        rules=game.rules,
        must_draw_at_most=must_draw_at_most,
        game=game,
        action2=tuple(label(d, draw2[d]) for d in range(n)),
        action3=tuple(label(d, draw3[d]) for d in range(n)),
        forced=tuple(bool(f) for f in forced),
        ev_stand2=tuple(es2),
        ev_draw2=tuple(ed2),
        ev_stand3=tuple(es3),
        ev_draw3=tuple(ed3),
        tau2=tau2,
        tau3=tau3,
        player_ev=value / game.den,
    )


def card_names(cards: Sequence[Card]) -> list[str]:
    """``['5S', '2H']`` (a hand in JSON is a list of names, RULES.md §8)."""
    return [CARD_NAMES[c] for c in cards]
