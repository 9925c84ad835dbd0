"""Rule-variant diagnosis for Tau Ngau: the catalogue of variants of a rule set (the value
of a last digit 0, the other settlement, what a hand without a bull pays, who reveals
first, declining) and the answers under any of them, including the mistakes about the
[2:1]/[4:2] 3/6 choice (set aside in the bull whenever possible, always 3 in the
remaining two, never a choice), taking the first bull found (in canonical order, or in
the order the tiles were written), and taking a wrong bull but
scoring it correctly (judged on the row's claimed ``bull``). A mistake of the ``bull``
stage and one of the ``values`` stage apply at once in a combination (``a+b``).

>>> from solver.games.taungau.rules import load_rules
>>> [v.key for v in taungau_catalogue(load_rules("macau"), "hand")][:2]
['zero_counts_as=0', 'mistake=wild_in_bull']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
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
    "FIRST_WRITTEN",
    "NO_BULL_PAYS_TRIED",
    "WRONG_BULL",
    "claimed_bull_ok",
    "decision_spec",
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


NO_BULL_PAYS_TRIED = (3, 5)
"""Other numbers of stakes a hand without a bull may pay that the catalogue tries (4:
the book), besides the banker's score."""


def taungau_catalogue(rules: Any, mode: str, banker_reveals: str | None = None) -> list[Variant]:
    """The Tau Ngau variants of ``rules`` (a :class:`~solver.games.taungau.rules.TauNgauRules`).

    Every variant is scoped (``scope``): off the checker's interesting hand rows (a
    bull, no [2:1]/[4:2], no reachable 0) its hand answers are the rules' own, and
    every showdown row is interesting. The mistakes have stages (``bull``: which bull is set
    aside; ``values``: what a [2:1]/[4:2] is worth), so two of different stages
    combine."""
    from solver.games.taungau.rules import load_rules

    base = rules.to_data()
    out = Catalogue(mode)
    both, show = ("hand", "showdown"), ("showdown",)

    def add(key: str, desc: str, data: Any = None, modes: Any = both, **options: Any) -> None:
        out.add(key, desc, data, modes=modes, scope=modes, **options)

    def add_mistake(
        name: str, desc: str, stage: str, modes: tuple[str, ...] = both, order: str = ""
    ) -> None:
        out.add_mistake(name, desc, modes=modes, scope=modes, stage=stage, order=order)

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
        "bull",
    )
    add_mistake("first_bull", "the first bull found is taken, not the best one", "bull")
    add_mistake(
        FIRST_WRITTEN,
        "the first bull found searching the tiles as written is taken, not the best one",
        "bull",
        order="the bull searched for in the order the tiles were written",
    )
    add_mistake(
        WRONG_BULL,
        "a bull other than the best is taken (the claimed one) and scored correctly "
        "(the best 3/6 choice that bull allows)",
        "bull",
        modes=("hand",),
    )
    add_mistake(
        "wild_rest_3",
        "a [2:1]/[4:2] in the remaining two always counts 3 "
        "(the 3/6 choice used only to make a bull)",
        "values",
    )
    add_mistake("wild_fixed_3", "[2:1] and [4:2] always count 3 (no 3/6 choice)", "values")
    add_mistake("wild_fixed_6", "[2:1] and [4:2] always count 6 (no 3/6 choice)", "values")
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
        pays_tried: list[Any] = [4] if rules.pays_banker_score else ["banker_score"]
        pays_tried += [p for p in NO_BULL_PAYS_TRIED if p != rules.no_bull_pays]
        for pays in pays_tried:
            add(
                f"no_bull_pays={pays}",
                "a player without a bull (or declining one) pays "
                + (
                    f"{pays} stakes, whatever the banker holds"
                    if pays != "banker_score"
                    else "the banker's score, 4 when the banker has no bull (fixed Macau)"
                ),
                {**base, "no_bull_pays": pays},
                modes=show,
            )
        reveals = banker_reveals or rules.banker_reveals
        if rules.has_decline:
            flip = "first" if reveals == "last" else "last"
            add(
                f"banker_reveals={flip}",
                f"the banker reveals {flip} (the decline decision "
                f"made {'knowing' if flip == 'first' else 'without knowing'} his hand)",
                modes=show,
                banker_reveals=flip,
            )
        # banker last, declining is never right under macau: forbidding it would change
        # nothing, so it is tried only when the banker reveals first
        if not rules.decline_allowed or reveals == "first":
            add(
                f"decline_allowed={str(not rules.decline_allowed).lower()}",
                "a player never declines his bull"
                if rules.decline_allowed
                else "a player may decline his bull (and pay as without one)",
                {**base, "decline_allowed": not rules.decline_allowed},
                modes=show,
            )
    return list(out)


def _taungau_rules(variant: Variant | None, base: Any) -> Any:
    return variant_rules(variant, base, _variant_rules_of)


def _variant_rules_of(name: str, data: Mapping[str, Any]) -> Any:
    """The rule set of a variant's rule data: a combination of two variants may carry a
    key one of them drops (None), or the other member's decline/no-bull keys beside an
    even-money settlement, which has neither (so the combination is that settlement)."""
    from solver.games.taungau.rules import TauNgauRules

    clean = {k: v for k, v in data.items() if v is not None}
    if clean.get("settlement") == "even_money":
        clean.pop("no_bull_pays", None)
        clean["decline_allowed"] = False
    elif clean.get("settlement") == "difference":
        clean.setdefault("no_bull_pays", 4)
        clean.setdefault("decline_allowed", True)
    return TauNgauRules.from_data(name + "-variant", clean)


def decision_spec(rules: Any, base: Any) -> Any:
    """What a variant's decisions are asked of (:func:`~solver.games.taungau.play.evaluate_batch`):
    ``base`` itself when the variant is ``base``, else the variant's rule data, renamed
    only when it carries a preset's name (whose committed columns would answer instead).
    One name per content: each name of the same rules would cost a table build of its own.

    >>> from solver.games.taungau.rules import load_rules
    >>> m = load_rules("macau")
    >>> decision_spec(m, m) is m
    True
    >>> decision_spec(load_rules("pagat"), m)["name"]
    'pagat-variant'
    >>> decision_spec(_variant_rules_of("macau", {**m.to_data(), "zero_counts_as": 0}), m)["name"]
    'macau-variant'
    """
    from solver.games.taungau.rules import PRESETS

    if rules == base:
        return base
    spec = rules.to_data()
    if spec.get("name") in PRESETS:
        spec = {**spec, "name": f"{spec['name']}-variant"}
    return spec


FIRST_WRITTEN = "first_bull_as_written"
"""The mistake of taking the first bull found in the order the tiles were written (the
checker hands its evaluator each row's written order as the claim ``written``); with
no written order to go by, the canonical order (``first_bull``)."""
_BULL_STAGE = ("wild_in_bull", "first_bull", FIRST_WRITTEN, WRONG_BULL)
"""Mistakes of stage ``bull``: which bull the player sets aside."""
_VALUE_STAGE = ("wild_rest_3", "wild_fixed_3", "wild_fixed_6")
"""Mistakes of stage ``values``: what a [2:1]/[4:2] is worth."""
_CHOICES = {"wild_fixed_3": (0,), "wild_fixed_6": (3,)}
"""The 3/6 choices a values mistake allows (all four otherwise)."""


def _stages(mistake: str | None) -> tuple[str | None, str | None]:
    """The bull-stage and values-stage mistakes named in ``mistake`` (``a+b``)."""
    names = set((mistake or "").split("+")) - {""}
    bull = [m for m in names if m in _BULL_STAGE]
    value = [m for m in names if m in _VALUE_STAGE]
    if names - set(bull) - set(value) or len(bull) > 1 or len(value) > 1:
        raise ValueError(f"unknown Tau Ngau mistake {mistake!r}")
    return (bull[0] if bull else None), (value[0] if value else None)


def _claimed_triples(
    hands: npt.NDArray[np.uint8], claimed: npt.NDArray[np.integer]
) -> npt.NDArray[np.bool_]:
    """``match[t, i]``: the tiles at ``TRIPLES[t]`` of sorted hand ``i`` are, by tile
    type, the claimed bull ``claimed[i]`` (:data:`~solver.kit.parse.PAD`: none)."""
    from solver.core.tiles import TYPE_OF_TILE
    from solver.games.taungau.hands import TRIPLES

    tot = np.array(TYPE_OF_TILE + (255,) * (256 - len(TYPE_OF_TILE)), dtype=np.int64)
    ht = tot[hands]  # sorted ids: types sorted too
    ct = np.sort(tot[np.asarray(claimed)], axis=1)
    return np.stack([(ht[:, list(t)] == ct).all(axis=1) & (ct[:, 2] != 255) for t in TRIPLES])


_ANALYSES: dict[bytes, Any] = {}
"""The last few analyses of hands (every variant is scored on the same rows): by a
digest of the tiles."""


def _analysis(tiles: npt.NDArray[np.integer], make: Callable[[], Any] | None = None) -> Any:
    """:func:`~solver.games.taungau.hands.analyse` of ``tiles``, kept for the next
    variants scored on the same hands (the player's and the banker's); ``make()``: the
    same analysis by other means (e.g. gathered from every shape's), if it is needed."""
    import hashlib

    from solver.games.taungau.hands import analyse

    t = np.ascontiguousarray(tiles, dtype=np.uint8)
    key = hashlib.blake2b(t.tobytes() + bytes(str(t.shape), "ascii"), digest_size=16).digest()
    hit = _ANALYSES.get(key)
    if hit is None:
        hit = analyse(t) if make is None else make()
        if len(_ANALYSES) >= 4:
            _ANALYSES.pop(next(iter(_ANALYSES)))
        _ANALYSES[key] = hit
    return hit


def remember_analysis(tiles: npt.NDArray[np.integer], make: Callable[[], Any]) -> None:
    """Have the variants scored next on the sorted hands ``tiles`` read their analysis
    from ``make()`` (rows of an analysis made before) rather than analyse them anew."""
    _analysis(tiles, make)


def _written_triples(written: npt.NDArray[np.integer] | None, n: int) -> npt.NDArray[np.int64]:
    """``out[w, i]``: the index in :data:`~solver.games.taungau.hands.TRIPLES` (of the
    sorted hand) of the ``w``-th triple of hand ``i``'s tiles as written, in the order a
    search over the written positions meets them; ``written[i, j]``: the sorted
    position of the ``j``-th tile written (None: written sorted).

    >>> _written_triples(np.array([[4, 3, 2, 1, 0]]), 1)[:2, 0].tolist()  # (4,3,2), (4,3,1)
    [9, 8]
    """
    from solver.games.taungau.hands import TRIPLES

    if written is None:
        return np.repeat(np.arange(len(TRIPLES))[:, None], n, axis=1)
    index = np.zeros(32, dtype=np.int64)
    for t, tri in enumerate(TRIPLES):
        index[sum(1 << p for p in tri)] = t
    w = np.asarray(written, dtype=np.int64)
    bit = [np.left_shift(1, w[:, j]) for j in range(w.shape[1])]  # a column at a time
    masks = np.stack([bit[a] | bit[b] | bit[c] for a, b, c in TRIPLES])
    return np.asarray(index[masks], dtype=np.int64)


def taungau_candidates(
    tiles: npt.NDArray[np.integer],
    mistake: str | None = None,
    claims: Mapping[str, Any] | None = None,
) -> list[tuple[npt.NDArray[np.bool_], npt.NDArray[np.int64]]]:
    """The plays a (possibly mistaken) player considers, for sorted hands (n, 5): pairs
    ``(bull exists, last digit)`` — one per 3/6 choice (per bull and choice when the
    remaining two are valued apart). ``mistake``: one mistake, or two of different
    stages joined by ``+`` (a bull-stage one: :data:`WRONG_BULL`, ``first_bull``,
    ``wild_in_bull``; a values-stage one: ``wild_fixed_3``, ``wild_fixed_6``,
    ``wild_rest_3``), applied at once. ``claims``: the rows' claims (``bull``: (n, 3)
    tile ids, or ``None`` when the file states none), which :data:`WRONG_BULL` plays.

    >>> from solver.core.tiles import parse_hand
    >>> h = np.array([parse_hand("[1:1][1:1][2:1][2:2][2:2]")])
    >>> sorted({int(d[0]) for ok, d in taungau_candidates(h) if ok[0]})
    [5, 8]
    >>> sorted({int(d[0]) for ok, d in taungau_candidates(h, "wild_fixed_3") if ok[0]})
    [5]
    >>> sorted({int(d[0]) for ok, d in taungau_candidates(h, "first_bull+wild_fixed_6") if ok[0]})
    [8]
    """
    from solver.games.taungau.hands import TRIPLES, WILD_TILES

    a = _analysis(tiles)
    h = a.hands
    if mistake is None:
        return [(a.exists[c], a.digit[c].astype(np.int64)) for c in range(4)]
    bull_m, value_m = _stages(mistake)
    choices = _CHOICES.get(value_m or "", (0, 1, 2, 3))
    n = h.shape[0]
    ok = a.bull_ok[list(choices)]  # (k, 10, n): a bull under an allowed choice
    any_c = np.asarray(ok.any(axis=0))  # (10, n)
    elig = np.ones((len(TRIPLES), n), dtype=bool)  # the bulls the player may take
    t_idx = np.arange(len(TRIPLES))[:, None]
    if bull_m == "wild_in_bull":
        wild = (h == WILD_TILES[0]) | (h == WILD_TILES[1])
        tri = np.stack([wild[:, list(t)].any(axis=1) for t in TRIPLES])  # (10, n)
        use_w = (any_c & tri).any(axis=0)
        elig = np.where(use_w, tri, True)
    elif bull_m == FIRST_WRITTEN:
        order = _written_triples((claims or {}).get("written"), n)  # (10, n)
        first = np.argmax(np.take_along_axis(any_c, order, axis=0), axis=0)
        elig = t_idx == order[first, np.arange(n)][None]
    elif bull_m == "first_bull" or (bull_m == WRONG_BULL and claims is None):
        # the first bull found; or, with no claim to go by, the last one (a wrong bull)
        found = np.argmax(any_c, axis=0).astype(np.int64)
        if bull_m == WRONG_BULL:
            found = len(TRIPLES) - 1 - np.argmax(any_c[::-1], axis=0).astype(np.int64)
        elig = t_idx == found[None]
    elif bull_m == WRONG_BULL:
        claimed = (claims or {}).get("bull")
        if claimed is not None:
            match = _claimed_triples(h, claimed)
            legal = (match & any_c).any(axis=0)  # rows without a legal claim: any bull
            elig = np.where(legal, match, True)
    digits = a.digit.astype(np.int64)
    if value_m != "wild_rest_3":
        return [((ok[k] & elig).any(axis=0), digits[c]) for k, c in enumerate(choices)]
    # the remaining two value a [2:1]/[4:2] as 3 whatever the bull's choice
    bit = np.zeros(h.shape, dtype=np.int64)
    bit[h == WILD_TILES[0]] = 1
    bit[h == WILD_TILES[1]] = 2
    cols = np.arange(n)
    out = []
    for t, triple in enumerate(TRIPLES):
        rest_bits = np.zeros(n, dtype=np.int64)
        for p in range(5):
            if p not in triple:
                rest_bits |= bit[:, p]
        for k, c in enumerate(choices):
            out.append((ok[k, t] & elig[t], digits[c & ~rest_bits, cols]))
    return out


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
    written: tuple[Any, Any] | None = None,
) -> dict[str, npt.NDArray[Any]]:
    """``winner`` (0 player, 1 banker, 2 push) and ``net`` for sorted hands under a
    variant. ``decision_last(rules, player_tiles)`` gives the players' decisions (1 =
    decline) when the banker reveals last. ``written``: the two hands' written orders
    (see :data:`FIRST_WRITTEN`)."""
    rules = _taungau_rules(variant, base)
    opts = options_of(variant)
    mode = opts.get("banker_reveals", banker_reveals)
    pw, bw = ({"written": w} for w in written) if written else (None, None)
    ps = taungau_hand_answers(player, base, variant, pw)["strength"]
    bs = taungau_hand_answers(banker, base, variant, bw)["strength"]
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
