"""The exact equilibrium of heads-up Pok Deng as a two-sided game (issue 15).

The player stands or draws per start; the dealer stands or draws per start and view
(the player's card count), under a house constraint (``must_draw_at_most``). The
player's EV is bilinear in the two behaviour strategies over boxes (each side acts at
most once per deal, so behaviour and sequence form coincide), and the game is
suit-symmetric, so an equilibrium exists whose strategies are constant on suit orbits
(average any equilibrium over the suit permutations: the set of equilibria is convex
and symmetric). The solver therefore works with the 169 orbits of starts:

1. The dealer's problem ``min_tau max_sigma`` is the LP ``min sum_o u_o`` with
   ``u_o >= stand_o(tau)`` and ``u_o >= draw_o(tau)`` (the player's best reply per
   orbit), ``0 <= tau <= 1``; the player's problem ``max_sigma min_tau`` likewise. Both
   are solved by the small dense simplex :func:`simplex_max` (float).
2. **Exact polish.** The float solutions name the mixed orbits of each side; the
   indifference equations (the player is indifferent on his mixed orbits, the dealer
   on his mixed decisions) are solved in exact rationals.
3. **Certificate.** With exact Fractions from the best-response tables of
   :mod:`~solver.games.pokdeng.dealer` over all 1,326 starts: the player's best
   response EV against the dealer's equilibrium strategy and the dealer's best
   response against the player's. Equal numbers prove the equilibrium exactly; both
   are reported (``certificate_gap`` is their difference).

Several players
---------------
With selective checking the dealer may settle any player on his two cards before he
decides to draw, then draw one card against the rest. So against each player i he
makes his own stand/draw decision — settling i first *is* standing against i — and
a rule that decides it from his start and what he sees of player i (the card count)
is a heads-up dealer strategy applied per player. Player i's net depends only on his
cards, his decision and the dealer's hand as i is settled against it (D, or D + c).
The other players' cards are seen by neither side and dealt from the same shuffled
deck, so by exchangeability the joint law of (i's start, D, i's draw x, the dealer's
card c) is the heads-up one: x and c are uniform over the cards unseen by i. Hence each
player's EV equals his heads-up EV under the same two strategies, the dealer's total
is the sum of heads-up payoffs, his best reply to each player is the heads-up best
response and the game value per player is the heads-up value. ``tests/pokdeng/
test_equilibrium.py`` checks the EV identity by exact enumeration of every two-player
deal on a 10-card deck. Two limits: without selective checking the one draw is shared
by all players and the decisions no longer separate; and a dealer who also conditions
on the *other* players' card counts learns (through card removal) a little about the
deck, which this per-player reduction does not model.

>>> from solver.games.pokdeng.rules import load_rules
>>> eq = solve_equilibrium(load_rules("standard"), must_draw_at_most=7)
>>> eq.exact, eq.player_best_response_ev == eq.dealer_best_response_ev
(True, True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from solver.core.cards import Card
from solver.games.pokdeng.dealer import (
    DealerGame,
    RationalVector,
    dealer_coefficients,
    dealer_game,
    player_values,
)
from solver.games.pokdeng.rules import PokDengRules

__all__ = ["Equilibrium", "certificate", "simplex_max", "solve_equilibrium"]

FloatArray = npt.NDArray[np.float64]


# ---------------------------------------------------------------- a small dense simplex


def simplex_max(a: FloatArray, b: FloatArray, c: FloatArray, max_iter: int = 100_000) -> FloatArray:
    """Maximise ``c @ z`` subject to ``a @ z <= b``, ``z >= 0``, with ``b >= 0`` (the slack
    basis is feasible): a dense tableau simplex, Dantzig's rule with Bland's rule after a
    run of degenerate pivots. Raises ``RuntimeError`` if unbounded or not converged.

    >>> simplex_max(np.array([[1.0, 1.0], [1.0, 3.0]]), np.array([4.0, 6.0]),
    ...             np.array([1.0, 2.0])).round(6).tolist()
    [3.0, 1.0]
    """
    m, n = a.shape
    if (b < 0).any():
        raise ValueError("simplex_max needs b >= 0")
    tab = np.zeros((m + 1, n + m + 1))
    tab[:m, :n] = a
    tab[:m, n : n + m] = np.eye(m)
    tab[:m, -1] = b
    tab[m, :n] = -c
    basis = np.arange(n, n + m)
    eps = 1e-11
    degenerate = 0
    for _ in range(max_iter):
        red = tab[m, :-1]
        if degenerate > 50:
            cand = np.flatnonzero(red < -eps)
            if len(cand) == 0:
                break
            e = int(cand[0])
        else:
            e = int(np.argmin(red))
            if red[e] >= -eps:
                break
        col = tab[:m, e]
        pos = col > eps
        if not pos.any():
            raise RuntimeError("the LP is unbounded")
        ratio = np.full(m, np.inf)
        ratio[pos] = tab[:m, -1][pos] / col[pos]
        best = ratio.min()
        ties = np.flatnonzero(ratio <= best + 1e-12)
        r = int(ties[np.argmin(basis[ties])])
        degenerate = degenerate + 1 if best <= 1e-12 else 0
        tab[r] /= tab[r, e]
        others = np.flatnonzero(np.abs(tab[:, e]) > 0)
        others = others[others != r]
        tab[others] -= np.outer(tab[others, e], tab[r])
        basis[r] = e
    else:
        raise RuntimeError("the simplex did not converge")
    z = np.zeros(n + m)
    z[basis] = tab[:m, -1]
    out: FloatArray = np.clip(z[:n], 0.0, None)
    return out


def _min_sum_of_max(
    e: FloatArray, alpha: FloatArray, f: FloatArray, beta: FloatArray, g: FloatArray
) -> FloatArray:
    """``argmin_{y in [0,1]^m} e @ y + sum_j max(alpha_j + f_j @ y, beta_j + g_j @ y)``.

    With ``u_j = M_j - w_j`` (``M_j`` an upper bound of the max over the box) the LP is
    ``max sum w - e @ y`` s.t. ``f y + w <= M - alpha``, ``g y + w <= M - beta``, ``y <= 1``.
    """
    n_j, m = f.shape
    big = np.maximum(
        alpha + np.clip(f, 0, None).sum(axis=1), beta + np.clip(g, 0, None).sum(axis=1)
    )
    big = big + 1.0
    eye = np.eye(n_j)
    a = np.block([[f, eye], [g, eye], [np.eye(m), np.zeros((m, n_j))]])
    b = np.r_[big - alpha, big - beta, np.ones(m)]
    c = np.r_[-e, np.ones(n_j)]
    z = simplex_max(a, b, c)
    out: FloatArray = np.clip(z[:m], 0.0, 1.0)
    return out


# ---------------------------------------------------------------- exact linear algebra


def _solve_exact(rows: list[list[Fraction]], rhs: list[Fraction]) -> list[Fraction] | None:
    """Solve ``rows @ x = rhs`` exactly (consistent, full column rank), else ``None``."""
    n = len(rows[0]) if rows else 0
    aug = [[*r, v] for r, v in zip(rows, rhs, strict=True)]
    r = 0
    for col in range(n):
        p = next((i for i in range(r, len(aug)) if aug[i][col] != 0), None)
        if p is None:
            return None
        aug[r], aug[p] = aug[p], aug[r]
        inv = 1 / aug[r][col]
        aug[r] = [v * inv for v in aug[r]]
        for i in range(len(aug)):
            if i != r and aug[i][col] != 0:
                f = aug[i][col]
                aug[i] = [vi - f * vr for vi, vr in zip(aug[i], aug[r], strict=True)]
        r += 1
    if any(aug[i][-1] != 0 for i in range(r, len(aug))):
        return None
    return [aug[i][-1] for i in range(n)]


# ---------------------------------------------------------------- the equilibrium


@dataclass(frozen=True)
class Equilibrium:
    """The solved game: strategies per start (``sigma`` the player's draw probability,
    ``tau2``/``tau3`` the dealer's per view), the exact value per stake (the player's
    EV), the two certificate numbers and timings. ``exact``: the certificate numbers are
    equal as fractions (else ``value`` is their midpoint and the gap is reported)."""

    rules: PokDengRules
    must_draw_at_most: int
    game: DealerGame
    sigma: RationalVector
    tau2: RationalVector
    tau3: RationalVector
    value: Fraction
    player_best_response_ev: Fraction
    dealer_best_response_ev: Fraction
    exact: bool
    seconds: dict[str, float]

    @property
    def certificate_gap(self) -> Fraction:
        return self.player_best_response_ev - self.dealer_best_response_ev

    def mixed_starts(self) -> dict[str, int]:
        """How many starts / dealer decisions mix (not 0 or 1)."""
        return {
            "player": int(((self.sigma.num > 0) & (self.sigma.num < self.sigma.den)).sum()),
            "dealer_sees_2": int(((self.tau2.num > 0) & (self.tau2.num < self.tau2.den)).sum()),
            "dealer_sees_3": int(((self.tau3.num > 0) & (self.tau3.num < self.tau3.den)).sum()),
        }


def _aggregate(game: DealerGame, inv: npt.NDArray[np.int64], r_n: int) -> dict[str, FloatArray]:
    """Orbit x orbit sums of the payoff tables (floats hold these integers exactly)."""
    ind = np.zeros((game.n_starts, r_n))
    ind[np.arange(game.n_starts), inv] = 1.0
    out = {}
    for key in ("a00", "a01", "a10", "a11"):
        out[key] = ind.T @ getattr(game, key).astype(np.float64) @ ind
    return out


def certificate(
    game: DealerGame,
    sigma: RationalVector,
    tau2: RationalVector,
    tau3: RationalVector,
    must_draw_at_most: int,
) -> tuple[Fraction, Fraction]:
    """(player's best response EV against tau, dealer's best response EV against sigma),
    the player's EV per stake, exact, over every start."""
    stand, draw = player_values(game, tau2, tau3)
    p_br = sum((max(s, d) for s, d in zip(stand, draw, strict=True)), Fraction(0))
    p_br /= game.n_starts
    free, forced = game.forced(must_draw_at_most)
    base, c2, c3 = dealer_coefficients(game, sigma)
    tot = base
    for d in range(game.n_starts):
        if forced[d]:
            tot += c2[d] + c3[d]
        elif free[d]:
            tot += min(Fraction(0), c2[d]) + min(Fraction(0), c3[d])
    return p_br, tot / game.den


def solve_equilibrium(
    rules: PokDengRules,
    must_draw_at_most: int = -1,
    cards: tuple[Card, ...] | None = None,
    tol: float = 1e-7,
) -> Equilibrium:
    """Solve the heads-up game exactly (see the module text); ``cards``: a reduced deck."""
    t0 = time.perf_counter()
    game = dealer_game(rules, cards)
    orbits, inv = np.unique(game.orbit, return_inverse=True)
    inv = inv.reshape(-1).astype(np.int64)
    r_n = len(orbits)
    agg = _aggregate(game, inv, r_n)
    rep = orbits  # each orbit's first start is its minimum index
    pok = game.pok[rep]
    free_s, forced_s = game.forced(must_draw_at_most)
    free, forced = free_s[rep], forced_s[rep]
    b2 = agg["a01"] - agg["a00"]
    b3 = agg["a11"] - agg["a10"]
    scale = float(np.abs(np.r_[b2.ravel(), b3.ravel(), agg["a00"].ravel()]).max()) or 1.0
    b2s, b3s = b2 / scale, b3 / scale
    a00s, a10s = agg["a00"] / scale, agg["a10"] / scale
    t1 = time.perf_counter()
    # the dealer's LP: y = (tau2 on free orbits, tau3 on free orbits)
    fq = np.flatnonzero(free)
    po = np.flatnonzero(~pok)
    st_c = a00s[po].sum(1) + b2s[po][:, forced].sum(1)
    dr_c = a10s[po].sum(1) + b3s[po][:, forced].sum(1)
    zero = np.zeros((len(po), len(fq)))
    f = np.hstack([b2s[po][:, fq], zero])
    g = np.hstack([zero, b3s[po][:, fq]])
    y = _min_sum_of_max(np.zeros(2 * len(fq)), st_c, f, dr_c, g)
    tau2_o = forced.astype(np.float64)
    tau3_o = forced.astype(np.float64)
    tau2_o[fq], tau3_o[fq] = y[: len(fq)], y[len(fq) :]
    # the player's LP: x = sigma on non-Pok orbits (minimise minus his payoff)
    c2_0 = b2s[:, fq].sum(0)  # c2 = c2_0 - x @ b2[po]; c3 = x @ b3[po]
    e = -(a10s[po].sum(1) - a00s[po].sum(1))
    e -= -b2s[po][:, forced].sum(1) + b3s[po][:, forced].sum(1)
    zj = np.zeros((2 * len(fq), len(po)))
    gx = np.vstack([b2s[po][:, fq].T, -b3s[po][:, fq].T])
    betas = np.r_[-c2_0, np.zeros(len(fq))]
    x = _min_sum_of_max(e, np.zeros(2 * len(fq)), zj, betas, gx)
    sigma_o = np.zeros(r_n)
    sigma_o[po] = x
    t2 = time.perf_counter()
    # exact polish on the mixed sets
    sig_f, tau2_f, tau3_f = _polish(agg, pok, free, forced, sigma_o, tau2_o, tau3_o, tol)
    polished = sig_f is not None
    if sig_f is None or tau2_f is None or tau3_f is None:
        sig_f = [Fraction(v).limit_denominator(10**12) for v in sigma_o]
        tau2_f = [Fraction(v).limit_denominator(10**12) for v in tau2_o]
        tau3_f = [Fraction(v).limit_denominator(10**12) for v in tau3_o]
    sigma = RationalVector.from_fractions([sig_f[o] for o in inv])
    tau2 = RationalVector.from_fractions([tau2_f[o] for o in inv])
    tau3 = RationalVector.from_fractions([tau3_f[o] for o in inv])
    t3 = time.perf_counter()
    p_br, d_br = certificate(game, sigma, tau2, tau3, must_draw_at_most)
    t4 = time.perf_counter()
    exact = polished and p_br == d_br
    return Equilibrium(
        rules=rules,
        must_draw_at_most=must_draw_at_most,
        game=game,
        sigma=sigma,
        tau2=tau2,
        tau3=tau3,
        value=p_br if p_br == d_br else (p_br + d_br) / 2,
        player_best_response_ev=p_br,
        dealer_best_response_ev=d_br,
        exact=exact,
        seconds={
            "tables": t1 - t0,
            "lp": t2 - t1,
            "polish": t3 - t2,
            "certificate": t4 - t3,
            "total": t4 - t0,
        },
    )


def _polish(
    agg: dict[str, FloatArray],
    pok: npt.NDArray[np.bool_],
    free: npt.NDArray[np.bool_],
    forced: npt.NDArray[np.bool_],
    sigma: FloatArray,
    tau2: FloatArray,
    tau3: FloatArray,
    tol: float,
) -> tuple[list[Fraction] | None, list[Fraction] | None, list[Fraction] | None]:
    """Exact strategies from the float ones: round the pure parts, solve the
    indifference equations on the mixed parts in Fractions (``None`` if that fails)."""
    r_n = len(pok)
    a00 = agg["a00"].round().astype(np.int64)
    a10 = agg["a10"].round().astype(np.int64)
    b2 = (agg["a01"] - agg["a00"]).round().astype(np.int64)
    b3 = (agg["a11"] - agg["a10"]).round().astype(np.int64)

    def snap(v: FloatArray) -> list[Fraction]:
        return [Fraction(round(float(t))) for t in v]

    sig, t2, t3 = snap(sigma), snap(tau2), snap(tau3)
    mp = [o for o in range(r_n) if not pok[o] and tol < sigma[o] < 1 - tol]
    md = [(2, q) for q in range(r_n) if free[q] and tol < tau2[q] < 1 - tol]
    md += [(3, q) for q in range(r_n) if free[q] and tol < tau3[q] < 1 - tol]
    if len(mp) != len(md):
        return None, None, None
    if mp:
        # dealer's mixed values make the player indifferent on his mixed orbits
        rows, rhs = [], []
        for o in mp:
            const = Fraction(int(a10[o].sum() - a00[o].sum()))
            for q in range(r_n):
                if (2, q) not in md:
                    const -= t2[q] * int(b2[o, q])
                if (3, q) not in md:
                    const += t3[q] * int(b3[o, q])
            rows.append([Fraction(-int(b2[o, q]) if v == 2 else int(b3[o, q])) for v, q in md])
            rhs.append(-const)
        sol = _solve_exact(rows, rhs)
        if sol is None or any(not 0 <= s <= 1 for s in sol):
            return None, None, None
        for (v, q), s in zip(md, sol, strict=True):
            (t2 if v == 2 else t3)[q] = s
        # the player's mixed values make the dealer indifferent on his mixed decisions
        rows, rhs = [], []
        for v, q in md:
            if v == 2:  # c2 = sum_o (1 - sigma_o) b2[o, q]
                const = sum(
                    ((1 - sig[o]) * int(b2[o, q]) for o in range(r_n) if o not in mp),
                    Fraction(0),
                ) + sum(int(b2[o, q]) for o in mp)
                rows.append([Fraction(-int(b2[o, q])) for o in mp])
            else:  # c3 = sum_o sigma_o b3[o, q]
                const = sum(
                    (sig[o] * int(b3[o, q]) for o in range(r_n) if o not in mp), Fraction(0)
                )
                rows.append([Fraction(int(b3[o, q])) for o in mp])
            rhs.append(-const)
        sol = _solve_exact(rows, rhs)
        if sol is None or any(not 0 <= s <= 1 for s in sol):
            return None, None, None
        for o, s in zip(mp, sol, strict=True):
            sig[o] = s
    for q in range(r_n):
        if forced[q]:
            t2[q] = t3[q] = Fraction(1)
        elif not free[q]:
            t2[q] = t3[q] = Fraction(0)
    return sig, t2, t3
