"""Rule-variant diagnosis for Tau Ngau: the catalogue of variants of a rule set (the value
of a last digit 0, the other settlement, what a hand without a bull pays, who reveals
first, declining) and the answers under any of them, including the mistakes about the
[2:1]/[4:2] 3/6 choice (set aside in the bull whenever possible, always 3 in the
remaining two, never a choice), taking the first bull found, and taking a wrong bull but
scoring it correctly (judged on the row's claimed ``bull``).

>>> from solver.games.taungau.rules import load_rules
>>> [v.key for v in taungau_catalogue(load_rules("macau"), "hand")][:2]
['zero_counts_as=0', 'mistake=wild_in_bull']
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.kit.diagnosis import (
    Catalogue,
    Variant,
    mistake_of,
    options_of,
    variant_rules,
    winner_of_net,
)

__all__ = [
    "WRONG_BULL",
    "claimed_bull_ok",
    "taungau_candidates",
    "taungau_catalogue",
    "taungau_hand_answers",
    "taungau_showdown_answers",
]


WRONG_BULL = "wrong_bull_scored_correctly"
"""The mistake judged on the claimed ``bull``: a legal bull that is not the best one,
scored correctly. Rows without a legal claimed bull get the rules' answers; evaluated
without claims at all (answer vectors), the player takes the last bull found."""


def claimed_bull_ok(
    tiles: npt.NDArray[np.integer], bull: npt.NDArray[np.integer]
) -> npt.NDArray[np.bool_]:
    """``ok[c, i]``: the claimed ``bull[i]`` (3 tile ids, :data:`~solver.kit.parse.PAD`
    for none) is three tiles of hand ``tiles[i]`` (compared by tile type) totalling a
    multiple of 10 under 3/6 choice ``c``.

    >>> from solver.core.tiles import parse_hand
    >>> h = np.array([parse_hand("[6:6][6:5][4:3][4:2][2:2]")], dtype=np.uint8)
    >>> b = np.array([parse_hand("[6:6][6:5][4:3]", 3)], dtype=np.uint8)
    >>> claimed_bull_ok(h, b)[:, 0].tolist()
    [True, True, True, True]
    """
    from solver.core.tiles import TYPE_OF_TILE
    from solver.games.taungau.hands import _VALUES

    tot = np.array(TYPE_OF_TILE + (255,) * (256 - len(TYPE_OF_TILE)), dtype=np.int64)
    ht, bt = tot[np.asarray(tiles)], tot[np.asarray(bull)]
    contained = np.ones(len(ht), dtype=bool)
    for j in range(3):
        in_bull = (bt == bt[:, j : j + 1]).sum(axis=1)
        in_hand = (ht == bt[:, j : j + 1]).sum(axis=1)
        contained &= (in_bull <= in_hand) & (bt[:, j] != 255)
    padded = np.zeros((4, 256), dtype=np.int64)
    padded[:, : _VALUES.shape[1]] = _VALUES
    out: npt.NDArray[np.bool_] = (padded[:, np.asarray(bull)].sum(axis=2) % 10 == 0) & contained
    return out


def taungau_catalogue(rules: Any, mode: str, banker_reveals: str | None = None) -> list[Variant]:
    """The Tau Ngau variants of ``rules`` (a :class:`~solver.games.taungau.rules.TauNgauRules`)."""
    from solver.games.taungau.rules import load_rules

    base = rules.to_data()
    out = Catalogue(mode)
    add, add_mistake = out.add, out.add_mistake

    zero = 0 if rules.zero_counts_as == 10 else 10
    add(
        f"zero_counts_as={zero}",
        f"a last digit of 0 counts as {zero}"
        + (" (the lowest bull)" if zero == 0 else " (the best score)"),
        {**base, "zero_counts_as": zero},
    )
    add_mistake(
        "wild_in_bull",
        "a [2:1]/[4:2] is set aside in the bull whenever it can be, "
        "even when it would score more in the remaining two",
    )
    add_mistake("first_bull", "the first bull found is taken, not the best one")
    add_mistake(
        WRONG_BULL,
        "a bull other than the best is taken (the claimed one) and scored correctly "
        "(the best 3/6 choice that bull allows)",
        modes=("hand",),
    )
    add_mistake(
        "wild_rest_3",
        "a [2:1]/[4:2] in the remaining two always counts 3 "
        "(the 3/6 choice used only to make a bull)",
    )
    add_mistake("wild_fixed_3", "[2:1] and [4:2] always count 3 (no 3/6 choice)")
    add_mistake("wild_fixed_6", "[2:1] and [4:2] always count 6 (no 3/6 choice)")
    show = ("showdown",)
    other = "pagat" if rules.settlement == "difference" else "macau"
    o = load_rules(other).to_data()
    settle_keys = ("settlement", "no_bull_pays", "decline_allowed")
    data = {k: v for k, v in base.items() if k not in settle_keys}
    data |= {k: o[k] for k in settle_keys if k in o}
    add(
        f"settlement={o['settlement']}",
        f"settled as under {other} ({o['settlement']})",
        data,
        modes=show,
    )
    if rules.settlement == "difference":
        pays = 4 if rules.pays_banker_score else "banker_score"
        add(
            f"no_bull_pays={pays}",
            "a player without a bull (or declining one) pays "
            + (
                "4 stakes, whatever the banker holds"
                if pays == 4
                else "the banker's score, 4 when the banker has no bull (fixed Macau)"
            ),
            {**base, "no_bull_pays": pays},
            modes=show,
        )
    if rules.has_decline:
        flip = "first" if (banker_reveals or rules.banker_reveals) == "last" else "last"
        add(
            f"banker_reveals={flip}",
            f"the banker reveals {flip} (the decline decision "
            f"made {'knowing' if flip == 'first' else 'without knowing'} his hand)",
            modes=show,
            banker_reveals=flip,
        )
        if (banker_reveals or rules.banker_reveals) == "first":
            # banker last: declining is never right under macau, so this changes nothing
            add(
                "decline_allowed=false",
                "a player never declines his bull",
                {**base, "decline_allowed": False},
                modes=show,
            )
    return list(out)


def _taungau_rules(variant: Variant | None, base: Any) -> Any:
    from solver.games.taungau.rules import TauNgauRules

    return variant_rules(
        variant, base, lambda name, data: TauNgauRules.from_data(name + "-variant", data)
    )


def taungau_candidates(
    tiles: npt.NDArray[np.integer],
    mistake: str | None = None,
    claims: Mapping[str, Any] | None = None,
) -> list[tuple[npt.NDArray[np.bool_], npt.NDArray[np.int64]]]:
    """The plays a (possibly mistaken) player considers, for sorted hands (n, 5): pairs
    ``(bull exists, last digit)`` — one per 3/6 choice, or fewer for the mistakes.
    ``claims``: the rows' claims (``bull``: (n, 3) tile ids, or ``None`` when the file
    states none), which :data:`WRONG_BULL` plays.

    >>> from solver.core.tiles import parse_hand
    >>> h = np.array([parse_hand("[1:1][1:1][2:1][2:2][2:2]")])
    >>> sorted({int(d[0]) for ok, d in taungau_candidates(h) if ok[0]})
    [5, 8]
    >>> sorted({int(d[0]) for ok, d in taungau_candidates(h, "wild_fixed_3") if ok[0]})
    [5]
    """
    from solver.games.taungau.hands import CHOICE_ORDER, TRIPLES, WILD_TILES, analyse

    a = analyse(tiles)
    h = a.hands
    if mistake is None:
        return [(a.exists[c], a.digit[c].astype(np.int64)) for c in range(4)]
    if mistake == "wild_fixed_3":
        return [(a.exists[0], a.digit[0].astype(np.int64))]
    if mistake == "wild_fixed_6":
        return [(a.exists[3], a.digit[3].astype(np.int64))]
    wild = (h == WILD_TILES[0]) | (h == WILD_TILES[1])
    if mistake == "wild_in_bull":
        tri = np.stack([wild[:, list(t)].any(axis=1) for t in TRIPLES])  # (10, n)
        ok_w = (a.bull_ok & tri[None]).any(axis=1)  # (4, n)
        use_w = ok_w.any(axis=0)
        return [
            (np.where(use_w, ok_w[c], a.exists[c]), a.digit[c].astype(np.int64)) for c in range(4)
        ]
    if mistake == "first_bull" or (mistake == WRONG_BULL and claims is None):
        any_c = np.asarray(a.bull_ok.any(axis=0))  # (10, n)
        # the first bull found; or, with no claim to go by, the last one (a wrong bull)
        found = np.argmax(any_c, axis=0).astype(np.int64)
        if mistake == WRONG_BULL:
            found = len(TRIPLES) - 1 - np.argmax(any_c[::-1], axis=0).astype(np.int64)
        cols = np.arange(h.shape[0])
        return [(a.bull_ok[c, found, cols], a.digit[c].astype(np.int64)) for c in CHOICE_ORDER]
    if mistake == WRONG_BULL:
        claimed = (claims or {}).get("bull")
        if claimed is None:
            return taungau_candidates(tiles)
        ok = claimed_bull_ok(h, claimed)  # (4, n)
        legal = ok.any(axis=0)
        return [
            (np.where(legal, ok[c], a.exists[c]), a.digit[c].astype(np.int64)) for c in range(4)
        ]
    if mistake == "wild_rest_3":
        bit = np.zeros(h.shape, dtype=np.int64)
        bit[h == WILD_TILES[0]] = 1
        bit[h == WILD_TILES[1]] = 2
        out = []
        digits = a.digit.astype(np.int64)
        cols = np.arange(h.shape[0])
        for t, triple in enumerate(TRIPLES):
            rest_bits = np.zeros(h.shape[0], dtype=np.int64)
            for p in range(5):
                if p not in triple:
                    rest_bits |= bit[:, p]
            for c in range(4):
                eff = c & ~rest_bits
                out.append((a.bull_ok[c, t], digits[eff, cols]))
        return out
    raise ValueError(f"unknown Tau Ngau mistake {mistake!r}")


def taungau_hand_answers(
    tiles: npt.NDArray[np.integer],
    base: Any,
    variant: Variant | None = None,
    claims: Mapping[str, Any] | None = None,
) -> dict[str, npt.NDArray[Any]]:
    """Answers for sorted hands (n, 5) under ``base`` rules or a variant: ``has_bull``,
    ``reach`` (bit d: last digit d reachable), ``strength`` (0 no bull, 1..10) and
    ``points`` on the rule set's scale (-1: no score, i.e. no bull under ``pagat``).
    ``claims``: what the rows claim, for the mistakes that go by a claim (see
    :func:`taungau_candidates`)."""
    rules = _taungau_rules(variant, base)
    cands = taungau_candidates(tiles, mistake_of(variant), claims)
    n = len(tiles)
    best = np.zeros(n, dtype=np.int64)
    reach = np.zeros(n, dtype=np.int64)
    has = np.zeros(n, dtype=bool)
    for ok, digit in cands:
        s = rules.strength_of_digits(digit).astype(np.int64)
        best = np.maximum(best, np.where(ok, s, 0))
        reach |= np.where(ok, np.left_shift(1, digit), 0)
        has |= ok
    points = best.copy() if rules.zero_counts_as == 10 else np.where(best > 0, best - 1, -1)
    return {"has_bull": has, "reach": reach, "strength": best, "points": points}


def taungau_showdown_answers(
    player: npt.NDArray[np.integer],
    banker: npt.NDArray[np.integer],
    base: Any,
    banker_reveals: str,
    decision_last: Any,
    variant: Variant | None = None,
) -> dict[str, npt.NDArray[Any]]:
    """``winner`` (0 player, 1 banker, 2 push) and ``net`` for sorted hands under a
    variant. ``decision_last(rules, player_tiles)`` gives the players' decisions (1 =
    decline) when the banker reveals last."""
    rules = _taungau_rules(variant, base)
    opts = options_of(variant)
    mode = opts.get("banker_reveals", banker_reveals)
    ps = taungau_hand_answers(player, base, variant)["strength"]
    bs = taungau_hand_answers(banker, base, variant)["strength"]
    pay = np.array([rules.payoff_value(s) for s in range(11)], dtype=np.int64)
    no_bull = rules.no_bull_payments()
    declines = np.zeros(len(ps), dtype=bool)
    if rules.has_decline:
        if mode == "first":
            declines = (ps > 0) & (pay[ps] - pay[bs] < -no_bull[bs])
        else:
            declines = (ps > 0) & (np.asarray(decision_last(rules, player)) == 1)
    eff = np.where(declines, 0, ps)
    if rules.settlement == "difference":
        net = np.where(eff == 0, -no_bull[bs], pay[eff] - pay[bs])
    else:
        net = np.sign(eff - bs)
    winner = winner_of_net(net)
    return {
        "winner": winner,
        "net": net.astype(np.float64),
        "player_strength": ps,
        "banker_strength": bs,
        "declines": declines,
    }
