"""The exact Pok Deng drawing strategy from a shoe of N decks (``PokDengRules.decks``).

A start is a **multiset** of two card faces (1,378 of them; row = dense multiset rank),
dealt in ``weight = Π C(N, m_c)`` ways from the full shoe of ``52 N`` cards. The
definition is RULES §5's with card removal in a shoe: the dealer's two cards D come
from the ``52 N - 2`` cards left, then the player's draw x, then the dealer's draw c,
every physical card equally likely. Counting *ordered* physical selections, a final
player hand H (2 or 3 cards) leaves ``n_f = N - h_f`` copies of face f, and an ordered
dealer selection (D0, D1, c) of faces with multiplicities ``j_f`` is dealt in
``Π_f (n_f)_(j_f)`` ways (falling factorials). Writing ``(N - h)_j = (N)_j + δ(h, j)``
and expanding the product over the faces H shares with the selection gives every
H's dealer-class counts at once from per-face, per-pair and per-triple sums over the
140,608 ordered face triples of a full shoe (a multiset inclusion-exclusion; with one
deck it is the one-deck identity ``δ(1, 1) = -1``). Everything is an integer.

Denominators: standing ``(52N - 2)_3``; drawing ``(52N - 2)_4`` (the common one,
:attr:`ShoeSolution.den`). A dealer Pok settles against the player's two cards.

>>> from solver.games.pokdeng.rules import load_rules
>>> sol = solve_shoe(load_rules("shoe8"))
>>> sol.action_of([16, 28]).label, int(sol.weight[sol.rank_of([0, 0])])   # 5S 8S; AS AS
('draw', 28)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.core.cards import Card
from solver.core.indexing import colex_rank_array, multiset_rank, multiset_rank_array
from solver.core.shoe import shoe_weights
from solver.games.pokdeng.hands import (
    all_shoe_hands,
    classify,
    settle,
    two_card_kind,
)
from solver.games.pokdeng.rules import HandType, PokDengRules
from solver.games.pokdeng.strategy import Action, _code, best_actions

__all__ = ["ShoeSolution", "falling", "shoe_overall", "solve_shoe"]


def falling(n: int, j: int) -> int:
    """The falling factorial ``n (n-1) … (n-j+1)`` (ordered picks of j from n).

    >>> falling(8, 3), falling(1, 2), falling(5, 0)
    (336, 0, 1)
    """
    out = 1
    for i in range(j):
        out *= n - i
    return out


@dataclass(frozen=True)
class ShoeSolution:
    """The exact strategy for every multiset start (row = dense multiset rank, 0..1377).

    EV and push numerators are over :attr:`den` = ``(52N - 2)_4``; ``weight`` is the
    number of ways to deal each start from the full shoe (sum ``C(52N, 2)``).
    """

    rules: PokDengRules
    dealer_draws_at_most: int
    decks: int
    den: int
    type: npt.NDArray[np.int8]
    points: npt.NDArray[np.int8]
    deng: npt.NDArray[np.int8]
    weight: npt.NDArray[np.int64]
    ev_stand_num: npt.NDArray[np.int64]
    ev_draw_num: npt.NDArray[np.int64]
    push_stand_num: npt.NDArray[np.int64]
    push_draw_num: npt.NDArray[np.int64]

    @property
    def action(self) -> npt.NDArray[np.int8]:
        """:class:`~solver.games.pokdeng.strategy.Action` per start (ties: stand)."""
        return best_actions(self.type, self.ev_stand_num, self.ev_draw_num)

    @property
    def margin_num(self) -> npt.NDArray[np.int64]:
        """|EV(draw) - EV(stand)| numerators over :attr:`den`."""
        out: npt.NDArray[np.int64] = np.abs(self.ev_draw_num - self.ev_stand_num)
        return out

    @staticmethod
    def rank_of(cards: Sequence[Card]) -> int:
        """The dense multiset rank of a two-card start."""
        return multiset_rank(sorted(cards))

    def ev_stand(self, cards: Sequence[Card]) -> Fraction:
        return Fraction(int(self.ev_stand_num[self.rank_of(cards)]), self.den)

    def ev_draw(self, cards: Sequence[Card]) -> Fraction:
        return Fraction(int(self.ev_draw_num[self.rank_of(cards)]), self.den)

    def action_of(self, cards: Sequence[Card]) -> Action:
        return Action(int(self.action[self.rank_of(cards)]))

    def overall(self) -> dict[str, Any]:
        """Overall EVs (optimal, draw on 4 or less) and P(push), see :func:`shoe_overall`."""
        return shoe_overall(self)


@lru_cache(maxsize=1)
def _triples() -> dict[str, npt.NDArray[np.int64]]:
    """The 52^3 ordered face triples (D0, D1, c) and their distinct faces (up to three
    slots, ascending; a missing slot has face 0 and multiplicity 0)."""
    d0, d1, c = (a.reshape(-1).astype(np.int64) for a in np.indices((52, 52, 52)))
    srt = np.sort(np.stack([d0, d1, c], axis=1), axis=1)
    face, mult = _slots(srt)
    return {
        "drank": multiset_rank_array(np.stack([d0, d1], 1)).astype(np.int64),
        "trank": multiset_rank_array(srt, presorted=True).astype(np.int64),
        "face": face,
        "mult": mult,
    }


def _slots(hands: npt.NDArray[Any]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Distinct faces and their multiplicities of sorted hands (n, k), up to 3 slots."""
    h = np.asarray(hands, dtype=np.int64)
    n, k = h.shape
    face = np.zeros((n, 3), dtype=np.int64)
    mult = np.zeros((n, 3), dtype=np.int64)
    used = np.zeros(n, dtype=np.int64)
    for i in range(k):
        new = np.ones(n, dtype=bool) if i == 0 else h[:, i] != h[:, i - 1]
        rows = np.nonzero(new)[0]
        face[rows, used[rows]] = h[rows, i]
        mult[rows, used[rows]] = 1
        used[rows] += 1
        rows = np.nonzero(~new)[0]
        mult[rows, used[rows] - 1] += 1
    return face, mult


_PAIR_PATTERNS = ((1, 1), (1, 2), (2, 1))


def _class_counts(
    decks: int, inv: npt.NDArray[np.int64], n_cls: int, hands: npt.NDArray[Any]
) -> npt.NDArray[np.int64]:
    """Ordered dealer selections (D0, D1, c) of each class avoiding each hand (n, n_cls)."""
    g = _triples()
    fall = np.array([falling(decks, j) for j in range(4)], dtype=np.int64)
    fj = fall[g["mult"]]  # (T, 3): (N)_j per slot, 1 for a missing slot
    w0 = fj.prod(axis=1)
    face, mult = g["face"], g["mult"]
    total = _wsum(inv, w0, n_cls, 1).reshape(n_cls)
    # per face f and multiplicity j: the product over the other slots
    a1 = np.zeros((52 * 4, n_cls), dtype=np.int64)
    for i in range(3):
        present = mult[:, i] > 0
        others = np.prod(np.delete(fj, i, axis=1), axis=1)
        idx = face[:, i] * 4 + mult[:, i]
        a1 += _wsum(idx[present] * n_cls + inv[present], others[present], n_cls, 52 * 4)
    # per pair of faces (f < g) and pattern (j_f, j_g)
    a2 = np.zeros((1326 * 3, n_cls), dtype=np.int64)
    for i, ii in ((0, 1), (0, 2), (1, 2)):
        present = (mult[:, i] > 0) & (mult[:, ii] > 0)
        third = fj[:, 3 - i - ii]
        pr = colex_rank_array(np.stack([face[:, i], face[:, ii]], 1), presorted=True)
        for p, (ja, jb) in enumerate(_PAIR_PATTERNS):
            m = present & (mult[:, i] == ja) & (mult[:, ii] == jb)
            idx = pr[m].astype(np.int64) * 3 + p
            a2 += _wsum(idx * n_cls + inv[m], third[m], n_cls, 1326 * 3)
    # per triple of distinct faces
    m3 = mult[:, 2] > 0
    tr = colex_rank_array(face[m3], presorted=True).astype(np.int64)
    a3 = _wsum(tr * n_cls + inv[m3], np.ones(int(m3.sum()), np.int64), n_cls, 22100)
    # expand Π (N - h_f)_j = Π ((N)_j + δ(h_f, j)) over the faces of each hand
    delta = np.array(
        [[falling(decks - h, j) - falling(decks, j) for j in range(4)] for h in range(4)],
        dtype=np.int64,
    )
    hf, hm = _slots(hands)
    n = len(hf)
    out = np.broadcast_to(total, (n, n_cls)).copy()
    for i in range(3):
        for j in (1, 2, 3):
            coef = delta[hm[:, i], j]
            if coef.any():
                out += coef[:, None] * a1[hf[:, i] * 4 + j]
    for i, ii in ((0, 1), (0, 2), (1, 2)):
        present = (hm[:, i] > 0) & (hm[:, ii] > 0)
        if not present.any():
            continue
        pr = colex_rank_array(np.stack([hf[:, i], hf[:, ii]], 1), presorted=True).astype(np.int64)
        pr = np.where(present, pr, 0)
        for p, (ja, jb) in enumerate(_PAIR_PATTERNS):
            coef = delta[hm[:, i], ja] * delta[hm[:, ii], jb] * present
            if coef.any():
                out += coef[:, None] * a2[pr * 3 + p]
    three = hm[:, 2] > 0
    if three.any():
        rows = np.nonzero(three)[0]
        tr = colex_rank_array(hf[rows], presorted=True).astype(np.int64)
        out[rows] += (delta[1, 1] ** 3) * a3[tr]
    return out


def _wsum(
    idx: npt.NDArray[np.int64], w: npt.NDArray[np.int64], n_cls: int, rows: int
) -> npt.NDArray[np.int64]:
    """Exact integer weighted bincount, reshaped (rows, n_cls)."""
    size = rows * n_cls
    out = np.zeros(size, dtype=np.int64)
    np.add.at(out, idx, w)
    return out.reshape(rows, n_cls)


def solve_shoe(rules: PokDengRules, dealer_draws_at_most: int | None = None) -> ShoeSolution:
    """Exact EVs of standing and drawing for every multiset start from a shoe of
    ``rules.decks`` decks (one deck works too: starts repeating a card get weight 0)."""
    k = rules.dealer_draws_at_most if dealer_draws_at_most is None else dealer_draws_at_most
    n_dk = rules.decks
    cards = 52 * n_dk
    two = all_shoe_hands(2)
    three = all_shoe_hands(3)
    t2, p2, d2 = classify(two, rules)
    t3, p3, d3 = classify(three, rules)
    k2 = two_card_kind(two) if rules.two_card_order else np.zeros(len(two), np.int8)
    k3 = np.zeros(len(three), dtype=np.int8)
    code2, code3 = _code(t2, p2, d2, k2), _code(t3, p3, d3, k3)
    g = _triples()
    draws = (t2 != HandType.POK) & (p2 <= k)
    final = np.where(draws[g["drank"]], code3[g["trank"]], code2[g["drank"]])
    classes, inv = np.unique(final, return_inverse=True)
    inv = inv.reshape(-1).astype(np.int64)
    n_cls = len(classes)
    ck = (classes % 4).astype(np.int8)
    ct = (classes // 400).astype(np.int8)
    cp = ((classes // 40) % 10).astype(np.int8)
    cd = ((classes // 4) % 10).astype(np.int8)
    n2 = _class_counts(n_dk, inv, n_cls, two)
    n3 = _class_counts(n_dk, inv, n_cls, three)
    assert (n2.sum(axis=1) == falling(cards - 2, 3)).all()
    assert (n3.sum(axis=1) == falling(cards - 3, 3)).all()
    dealer = (ct[None], cp[None], cd[None])
    s2 = settle(t2[:, None], p2[:, None], d2[:, None], *dealer, rules, k2[:, None], ck[None])
    s3 = settle(t3[:, None], p3[:, None], d3[:, None], *dealer, rules, k3[:, None], ck[None])
    dealer_pok = ct == HandType.POK
    # the player's draw x: weight N - m_x(P), final hand P + x
    x = np.arange(52, dtype=np.int64)
    p0 = two[:, :1].astype(np.int64)
    p1 = two[:, 1:].astype(np.int64)
    nx = n_dk - (p0 == x) - (p1 == x)  # (1378, 52)
    ph = np.sort(np.stack(np.broadcast_arrays(p0, p1, x[None]), axis=2), axis=2)
    pxr = multiset_rank_array(ph.reshape(-1, 3), presorted=True).reshape(len(two), 52)
    after = cards - 5  # cards left for x once D and c are out
    out = {}
    for key, s2v, s3v in (("ev", s2, s3), ("push", (s2 == 0), (s3 == 0))):
        s2i = s2v.astype(np.int64)
        s3i = s3v.astype(np.int64)
        stand = (n2 * s2i).sum(axis=1)
        if rules.dealer_pok_first:
            fin3 = (n3 * s3i * ~dealer_pok).sum(axis=1)
            draw = (nx * fin3[pxr]).sum(axis=1) + (n2 * s2i * dealer_pok).sum(axis=1) * after
        else:
            draw = (nx * (n3 * s3i).sum(axis=1)[pxr]).sum(axis=1)
        stand = stand * after
        draw = np.where(t2 == HandType.POK, stand, draw)
        out[key] = (stand.astype(np.int64), draw.astype(np.int64))
    return ShoeSolution(
        rules=rules.with_policy(k),
        dealer_draws_at_most=k,
        decks=n_dk,
        den=falling(cards - 2, 4),
        type=t2,
        points=p2,
        deng=d2,
        weight=shoe_weights(two, n_dk),
        ev_stand_num=out["ev"][0],
        ev_draw_num=out["ev"][1],
        push_stand_num=out["push"][0],
        push_draw_num=out["push"][1],
    )


def shoe_overall(sol: ShoeSolution) -> dict[str, Any]:
    """The player's overall EV per stake, starts weighted by how they are dealt from
    the full shoe: ``ev_optimal`` (best action everywhere), ``ev_simple`` (draw on 4 or
    less), and ``p_push_*`` (the probability of a push under each); floats and exact
    ``*_fraction`` strings; ``draws_optimal`` counts the drawing starts (multisets the
    shoe can deal).

    >>> from solver.games.pokdeng.rules import load_rules
    >>> shoe_overall(solve_shoe(load_rules("shoe8")))["ev_simple_fraction"]
    '0/1'
    """
    pok = sol.type == HandType.POK
    drawing = ~pok & (sol.ev_draw_num > sol.ev_stand_num) & (sol.weight > 0)
    simple_draws = ~pok & (sol.points <= 4)
    w = sol.weight.astype(object)
    den = comb(52 * sol.decks, 2) * sol.den
    rec: dict[str, Any] = {
        "rules": sol.rules.name,
        "decks": sol.decks,
        "dealer_draws_at_most": sol.dealer_draws_at_most,
        "draws_optimal": int(drawing.sum()),
    }
    for name, mask in (("optimal", drawing), ("simple", simple_draws)):
        for key, (stand, draw) in (
            ("ev", (sol.ev_stand_num, sol.ev_draw_num)),
            ("p_push", (sol.push_stand_num, sol.push_draw_num)),
        ):
            num = np.where(mask, draw, stand).astype(object)
            f = Fraction(int((w * num).sum()), den)
            rec[f"{key}_{name}"] = float(f)
            rec[f"{key}_{name}_fraction"] = f"{f.numerator}/{f.denominator}"
    return rec
