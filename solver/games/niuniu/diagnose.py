"""Rule-variant diagnosis for Niu Niu: the catalogue of variants of a rule set and the
answers (hands, showdowns) under any of them. The data variants run through
:mod:`solver.games.niuniu.hands`'s own evaluator; the mistakes (a bull search that skips the first
card, Niu Niu reported as 0, a tie-break suit taken from the order the cards were
written in, the loser's multiplier, commission on the stake) are evaluated here.

>>> import numpy as np
>>> from solver.games.niuniu.rules import load_rules
>>> from solver.kit.diagnosis import Tally
>>> keys = [v.key for v in niuniu_catalogue(load_rules("casino"), "hand")]
>>> "five_small_bull_total=below_10" in keys, "mistake=bull_skips_first" in keys
(True, True)
>>> t = Tally(niuniu_catalogue(load_rules("casino"), "hand")[:2])
>>> t.add(np.array([[True, False], [True, True]]))
>>> [(e.key, e.explains) for e in t.ranked()]
[('specials_without=five_faces', 2), ('specials_without=four_of_a_kind', 1)]
>>> t.headline()
'all 2 disagreements are explained by: five_faces not counted as a special'
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable, Mapping, Sequence
from itertools import combinations, permutations
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.kit.diagnosis import Catalogue, Variant, mistakes_of, options_of, variant_rules

__all__ = [
    "niuniu_catalogue",
    "niuniu_hand_answers",
    "niuniu_showdown_answers",
    "niuniu_showdown_strengths",
    "sort_rows",
]

SUIT_LETTERS = ("S", "H", "D", "C")

_SPECIAL_ORDER = (
    "three_of_a_kind",
    "straight",
    "four_faces",
    "five_faces",
    "four_of_a_kind",
    "straight_flush",
    "five_small_bull",
)
"""Where a special the rule set does not count is inserted (low to high)."""
_DIAGNOSED = (
    "four_faces",
    "five_faces",
    "four_of_a_kind",
    "straight_flush",
    "five_small_bull",
    "three_of_a_kind",
    "straight",
)
"""The specials whose absence or presence the catalogue tries (in this order): every
special a rule file may list. The verifier's special-ish hands hold every hand that can
qualify for one, under any definition."""
_FACES = ("four_faces", "five_faces")
"""Specials a deck without J/Q/K cannot make: no variant adds them there."""


def _with(data: Mapping[str, Any], **changes: Any) -> dict[str, Any]:
    out = copy.deepcopy(dict(data))
    for k, v in changes.items():
        if k == "special_definitions":
            out["special_definitions"] = {**out.get("special_definitions", {}), **v}
        else:
            out[k] = v
    return out


def _insert_special(specials: Sequence[str], s: str) -> list[str]:
    out = list(specials)
    rank = _SPECIAL_ORDER.index(s)
    pos = sum(1 for x in out if _SPECIAL_ORDER.index(x) < rank)
    out.insert(pos, s)
    return out


_CO_OCCUR = frozenset(
    {
        frozenset(p)
        for p in (
            ("five_faces", "four_of_a_kind"),
            ("four_faces", "four_of_a_kind"),
            ("four_of_a_kind", "five_small_bull"),
            ("three_of_a_kind", "four_of_a_kind"),
            ("three_of_a_kind", "five_faces"),
            ("three_of_a_kind", "four_faces"),
            ("three_of_a_kind", "five_small_bull"),
            ("straight", "straight_flush"),
        )
    }
)
"""Pairs of specials one hand can hold at once (JJJJQ, JJJJ10, AAAA2, AAAAK and AAAKQ,
JJJQK, JJJQ10, AAA23, 23456 of one suit): only their relative order can matter."""


def niuniu_catalogue(rules: Any, mode: str, bet: str | None = None) -> list[Variant]:
    """The Niu Niu variants of ``rules`` (a
    :class:`~solver.games.niuniu.rules.NiuNiuRules`) that can
    explain rows of ``mode`` (``hand``, ``showdown`` or ``all``); ``bet`` is the bet in
    use (no "settled as" variant for it)."""
    base = rules.to_data()
    out = Catalogue(mode)
    add, add_mistake = out.add, out.add_mistake
    if rules.categories:  # the rule language: no keys to vary, the options and mistakes
        _options_and_mistakes(rules, base, bet, out)
        return list(out)
    sd = base["special_definitions"]
    specials = list(rules.specials)
    impossible = _FACES if rules.deck == "no_faces" else ()

    # a variant of the specials the verifier's special-ish hands hold (every card A..6,
    # four faces, four of a kind, a flush) changes no other hand's answer: exact scoring
    # evaluates it on those hands only (``scope``)
    special_ish = ("hand",)
    for s in specials:
        add(
            f"specials_without={s}",
            f"{s} not counted as a special",
            _with(base, specials=[x for x in specials if x != s]),
            scope=special_ish if s in _DIAGNOSED else (),
        )
    for s in _DIAGNOSED:
        if s in specials or s in impossible:
            continue
        add(
            f"specials_with={s}",
            f"{s} counted as a special",
            _with(base, specials=_insert_special(specials, s)),
            scope=special_ish,
        )

    def redefine(special: str, key: str, desc: str, **definitions: str) -> None:
        """A special defined otherwise (and counted, if the preset lacks it)."""
        counted = specials if special in specials else _insert_special(specials, special)
        note = "" if special in specials else f" ({special} counted)"
        add(
            key,
            desc + note,
            _with(base, specials=counted, special_definitions=definitions),
            scope=special_ish,
        )

    if sd["five_small_bull_total"] == "at_most_10":
        redefine(
            "five_small_bull",
            "five_small_bull_total=below_10",
            "five_small_bull uses total < 10",
            five_small_bull_total="below_10",
        )
    else:
        redefine(
            "five_small_bull",
            "five_small_bull_total=at_most_10",
            "five_small_bull uses total <= 10",
            five_small_bull_total="at_most_10",
        )
    if sd["five_small_bull_max_rank"] == "4":
        redefine(
            "five_small_bull",
            "five_small_bull_max_rank=any",
            "five_small_bull without the 'every card A..4' test",
            five_small_bull_max_rank="any",
        )
        redefine(
            "five_small_bull",
            "five_small_bull=below_10,any_rank",
            "five_small_bull uses total < 10 and no 'every card A..4' test",
            five_small_bull_max_rank="any",
            five_small_bull_total="below_10",
        )
    fifths = {
        "ten": "four_faces requires exactly one 10",
        "any": "four_faces without checking for exactly one 10",
        "all_ten_valued": "four_faces as every card 10/J/Q/K (not five faces)",
    }
    for fifth, desc in fifths.items():
        if "four_faces" in impossible:
            break  # no deck without J/Q/K makes four faces, however defined
        if fifth != sd["four_faces_fifth"]:
            redefine("four_faces", f"four_faces_fifth={fifth}", desc, four_faces_fifth=fifth)
    for i, j in combinations(range(len(specials)), 2):
        if frozenset((specials[i], specials[j])) not in _CO_OCCUR:
            continue
        order = list(specials)
        order[i], order[j] = order[j], order[i]
        add(
            f"special_order={'<'.join(order)}",
            f"specials ranked {specials[i]} above {specials[j]}",
            _with(base, specials=order),
            scope=special_ish,
        )
    if len(specials) > 2:
        add(
            "special_order=reversed",
            "specials ranked in reverse order",
            _with(base, specials=specials[::-1]),
            scope=special_ish if set(specials) <= set(_DIAGNOSED) else (),
        )
    trips = not rules.bull_from_three_of_a_kind
    add(
        f"bull_from_three_of_a_kind={str(trips).lower()}",
        "three cards of one rank make a bull (the best bull counts)"
        if trips
        else "three cards of one rank make no bull unless they sum to a multiple of 10",
        _with(base, bull_from_three_of_a_kind=trips),
        scope=special_ish,  # three of a kind is a special-ish hand
    )
    add_mistake(
        "bull_skips_first",
        "bull search skips the first card (as written)",
        order="first-written card left out of the bull search",
        stage="bull",
    )
    add_mistake(
        "niu_niu_as_zero",
        "Niu Niu reported as points 0 (a 0 not counted as 10)",
        modes=("hand",),
        stage="points",
    )
    # showdowns: tie-breaks, suits, settlement
    show = ("showdown",)
    tb = rules.tie_break
    for other, desc in (
        ("highest_card", "tie-break by the highest card (rank, then suit)"),
        ("rank_by_rank", "tie-break rank by rank from the highest card down"),
        ("none", "no tie-break (equal categories push)"),
    ):
        if other != tb:  # tie-breaks and suits decide equal categories only
            add(f"tie_break={other}", desc, _with(base, tie_break=other), modes=show, scope=show)
    if tb != "none":
        suits = base["suit_order"]
        for perm in permutations(SUIT_LETTERS):
            if list(perm) != suits:
                add(
                    f"suit_order={''.join(perm)}",
                    "suit order " + " > ".join(perm),
                    _with(base, suit_order=list(perm)),
                    modes=show,
                    scope=show,
                )
        for which, name in (("first", "suit_from_input_order"), ("last", "suit_from_last_written")):
            add_mistake(
                name,
                f"tie-break suit taken from the {which}-written card of the highest rank "
                "(depends on input order)",
                modes=show,
                scope=show,
                order=f"{which}-written card of the highest rank",
                stage="tie_break",
            )
    # what a tie does: two hands tie only without a tie-break or from a shoe (one deck
    # never deals two equal top cards)
    other_tie = "banker" if rules.on_tie == "push" else "push"
    won = "won by the banker" if other_tie == "banker" else "pushed"
    if tb == "none" or rules.decks > 1:
        add(
            f"on_tie={other_tie}",
            f"equal hands (after the tie-break) {won}",
            _with(base, on_tie=other_tie),
            modes=show,
            scope=show,  # a tie needs equal categories
        )
    else:
        add(
            f"tie_break=none,on_tie={other_tie}",
            f"no tie-break: equal categories {won}",
            _with(base, tie_break="none", on_tie=other_tie),
            modes=show,
            scope=show,
        )
    if tb == "rank_by_rank":
        add(
            f"quads_first={not rules.quads_first}".lower(),
            "four of a kind compared by the quad rank first"
            if not rules.quads_first
            else "four of a kind compared rank by rank (not by the quad rank first)",
            _with(base, quads_first=not rules.quads_first),
            modes=show,
            scope=show,
        )
    _options_and_mistakes(rules, base, bet, out)
    return list(out)


def _options_and_mistakes(rules: Any, base: Mapping[str, Any], bet: str | None, out: Any) -> None:
    """The settlement options and mistakes every rule set's catalogue holds."""
    add, add_mistake = out.add, out.add_mistake
    show = ("showdown",)
    if rules.categories:
        add_mistake(
            "bull_skips_first",
            "bull search skips the first card (as written)",
            order="first-written card left out of the bull search",
            stage="bull",
        )
        add(
            f"bull_from_three_of_a_kind={str(not rules.bull_from_three_of_a_kind).lower()}",
            "three cards of one rank make a bull (the best bull counts)"
            if not rules.bull_from_three_of_a_kind
            else "three cards of one rank make no bull unless they sum to a multiple of 10",
            _with(base, bull_from_three_of_a_kind=not rules.bull_from_three_of_a_kind),
        )
    for c in (0.0, 0.03, 0.05, 0.1):
        if abs(c - rules.commission) > 1e-12:
            add(
                f"commission={c:g}",
                f"commission {c * 100:g}% of the player's winnings",
                mistake=None,
                modes=show,
                commission=c,
            )
    for other in rules.bets:
        if other != (bet or rules.default_bet):
            add(f"bet={other}", f"settled as the {other} bet", modes=show, bet=other)
    add_mistake(
        "loser_multiplier",
        "the loser pays its own hand's multiplier (not the winner's)",
        modes=show,
        stage="multiplier",
    )
    add_mistake(
        "commission_on_stake",
        "commission taken on the stake, not on the winnings",
        modes=show,
        stage="commission",
    )


def _niuniu_rules(variant: Variant | None, base: Any) -> Any:
    from solver.games.niuniu.rules import NiuNiuRules

    return variant_rules(variant, base, NiuNiuRules.from_data)


def niuniu_hand_answers(
    cards: npt.NDArray[np.integer],
    base: Any,
    variant: Variant | None = None,
    known: Mapping[str, npt.NDArray[Any]] | None = None,
) -> dict[str, npt.NDArray[Any]]:
    """Answers for hands written as ``cards`` (n, 5) in input order, under ``base``
    rules or a variant of them: ``has_bull``, ``points``, ``category``, ``strength`` and
    ``forbidden`` (a card a valid bull may not use, 255 = none). ``known``: the hands'
    answers under ``base`` when the caller has them (``sorted``, ``has_bull``, ``points``,
    ``category``, as from the table), used for a variant that keeps ``base``'s rules
    (a mistake, a settlement option) instead of evaluating the hands anew.

    >>> from solver.games.niuniu.rules import load_rules
    >>> from solver.core.cards import parse_cards
    >>> h = np.array([parse_cards("AS 2C 7D 4H 8S")], dtype=np.uint8)
    >>> a = niuniu_hand_answers(h, load_rules("classic"))
    >>> bool(a["has_bull"][0]), int(a["points"][0])
    (True, 2)
    >>> v = Variant("x", "x", mistake="bull_skips_first")
    >>> bool(niuniu_hand_answers(h, load_rules("classic"), v)["has_bull"][0])
    False
    """
    from solver.games.niuniu.hands import _base_arrays, categories, special_flags, strength_arrays

    rules = _niuniu_rules(variant, base)
    c = np.asarray(cards, dtype=np.uint8)
    if known is not None and rules is base and not rules.categories:
        srt = np.asarray(known["sorted"])
        return _mistakes(
            c,
            rules,
            variant,
            np.asarray(known["has_bull"], dtype=bool),
            np.asarray(known["points"]).astype(np.int64),
            np.asarray(known["category"]).astype(np.int64),
            lambda cat: strength_arrays(srt, cat.astype(np.uint8), rules),
        )
    # the bull facts of these very cards (they depend on the bull rule only) are shared
    # by every variant scored on them, and each rule set's categories by its mistakes
    # (the last few are kept; the key is a digest of the cards)
    digest = (c.shape, hashlib.blake2b(c.tobytes(), digest_size=16).digest())
    key = (*digest, rules.bull_from_three_of_a_kind)
    hit = _LAST.get(key)
    if hit is None:
        srt = sort_rows(c)
        hit = (srt, _base_arrays(srt, rules), {})  # evaluate_arrays, strength read lazily
        if len(_LAST) >= _KEEP:
            _LAST.pop(next(iter(_LAST)))
        _LAST[key] = hit
    srt, ev, cats = hit
    got = cats.get(id(rules))
    if got is None or got[0] is not rules:
        if rules.categories:  # a file in the rule language: its compiled categories
            from solver.games.niuniu.hands import compiled_arrays

            code, own = compiled_arrays(srt, rules)
            got = (rules, code.astype(np.int64), own)
        else:
            got = (rules, categories(ev, special_flags(ev, rules), rules).astype(np.int64), None)
        if len(cats) >= _KEEP:
            cats.pop(next(iter(cats)))
        cats[id(rules)] = got
    cat0, own_strength = got[1], got[2]
    return _mistakes(
        c,
        rules,
        variant,
        ev["has_bull"].copy(),
        ev["points"].astype(np.int64),
        cat0.copy(),
        (lambda _: own_strength)
        if own_strength is not None
        else (lambda cat: strength_arrays(srt, cat.astype(np.uint8), rules)),
    )


def _mistakes(
    c: npt.NDArray[np.uint8],
    rules: Any,
    variant: Variant | None,
    has: npt.NDArray[np.bool_],
    points: npt.NDArray[np.int64],
    cat: npt.NDArray[np.int64],
    strength: Callable[[npt.NDArray[np.int64]], npt.NDArray[Any]],
) -> dict[str, npt.NDArray[Any]]:
    """The answers of hands written as ``c`` under ``rules`` (``has``, ``points``,
    ``cat``: the rules' own, owned here), with the variant's mistakes applied."""
    from solver.games.niuniu.rules import Category

    forbidden = np.full(len(c), 255, dtype=np.uint8)
    mistakes = mistakes_of(variant)  # every mistake a variant applies, at once
    if "bull_skips_first" in mistakes:
        points = _skip_first(c, rules.bull_from_three_of_a_kind)
        has = points > 0
        plain = cat <= Category.NIU_NIU
        cat = np.where(plain, points, cat)
        forbidden = c[:, 0].copy()
    if "niu_niu_as_zero" in mistakes:  # after the bull search, whichever it was
        points = np.where(points == 10, 0, points)
    trips = np.array(rules.bull_from_three_of_a_kind)  # the bull rule a claimed bull meets
    return _Answers(
        {
            "has_bull": has,
            "points": points,
            "category": cat,
            "forbidden": forbidden,
            "bull_from_three_of_a_kind": trips,
        },
        lambda: strength(cat),
    )


def _skip_first(c: npt.NDArray[np.uint8], trips: bool) -> npt.NDArray[np.int64]:
    """The points of the best bull among the cards but the first written (0: none); the
    last cards' result is kept (a pair of mistakes asks again for the same cards)."""
    hit = _SKIPPED.get("last")
    if hit is not None and hit[0] is c and hit[1] == trips and np.array_equal(hit[2], c):
        return hit[3].copy()
    # card values (A 1 ... 10/J/Q/K 10) by table, in small integers, a column each
    value = [_VALUE[c[:, j]] for j in range(5)]
    total = value[0] + value[1] + value[2] + value[3] + value[4]
    best = np.zeros(len(c), dtype=np.int16)
    for a, b, d in ((1, 2, 3), (1, 2, 4), (1, 3, 4), (2, 3, 4)):
        bsum = value[a] + value[b] + value[d]
        ok = _TENS[bsum]  # a multiple of 10
        if trips:
            ra, rb, rd = (c[:, j] >> 2 for j in (a, b, d))
            ok = ok | ((ra == rb) & (rb == rd))
        # the other two cards' last digit, 0 as 10
        np.maximum(best, np.where(ok, _LAST_DIGIT[total - bsum], 0), out=best)
    points = best.astype(np.int64)
    _SKIPPED["last"] = (c, trips, c.copy(), points)
    return points.copy()


_SKIPPED: dict[str, tuple[Any, bool, npt.NDArray[np.uint8], npt.NDArray[np.int64]]] = {}

_VALUE = np.array([min(c // 4 + 1, 10) for c in range(256)], dtype=np.int16)
"""A card id's value (ids past 51: unused)."""
_TENS = np.arange(64) % 10 == 0
"""Sums of three values that are a multiple of 10."""
_LAST_DIGIT = ((np.arange(64) - 1) % 10 + 1).astype(np.int16)
"""The points of two cards' total: its last digit, 0 as 10."""

_LAST: dict[tuple[Any, ...], tuple[Any, Any, dict[int, tuple[Any, Any, Any]]]] = {}
"""The last evaluations of :func:`niuniu_hand_answers`, by cards and bull rule: the
sorted cards, the bull facts and, per rule set, the categories."""
_KEEP = 4
"""Entries kept (a showdown evaluates the player's and the banker's hands in turn)."""


class _Answers(dict[str, npt.NDArray[Any]]):
    """Answers whose ``strength`` (showdowns need it, hand claims do not) is computed
    when first read."""

    def __init__(
        self, items: Mapping[str, npt.NDArray[Any]], strength: Callable[[], npt.NDArray[Any]]
    ) -> None:
        super().__init__(items)
        self._strength = strength

    def __missing__(self, key: str) -> npt.NDArray[Any]:
        if key != "strength":
            raise KeyError(key)
        self[key] = value = self._strength()
        return value


_NETWORK5 = ((0, 1), (3, 4), (2, 4), (2, 3), (0, 3), (0, 2), (1, 4), (1, 3), (1, 2))
"""A sorting network for five items (nine compare-exchanges)."""


def sort_rows(cards: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """Each row sorted ascending: rows of five by a sorting network on the columns (much
    faster than ``np.sort(axis=1)`` on millions of short rows), others by ``np.sort``.

    >>> from itertools import product
    >>> every = np.array(list(product(range(2), repeat=5)), dtype=np.uint8)
    >>> bool((sort_rows(every) == np.sort(every, axis=1)).all())
    True
    """
    c = np.asarray(cards, dtype=np.uint8)
    if c.ndim != 2 or c.shape[1] != 5:
        return np.sort(c, axis=1)
    cols = [c[:, j].copy() for j in range(5)]
    for a, b in _NETWORK5:
        lo = np.minimum(cols[a], cols[b])
        np.maximum(cols[a], cols[b], out=cols[b])
        cols[a] = lo
    return np.stack(cols, axis=1)


def niuniu_showdown_strengths(
    cards: npt.NDArray[np.integer], rules: Any, variant: Variant | None
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """``(category, strength)`` of hands written as ``cards`` under a variant."""
    a = niuniu_hand_answers(cards, rules, variant)
    cat, strength = a["category"], a["strength"]
    mistakes = mistakes_of(variant)
    suit_from = mistakes & {"suit_from_input_order", "suit_from_last_written"}
    if suit_from:
        mistake = min(suit_from)
        r = _niuniu_rules(variant, rules)
        c = np.asarray(cards, dtype=np.int64)
        rank = c >> 2
        top = rank.max(axis=1)
        at_top = rank == top[:, None]
        if mistake == "suit_from_input_order":
            first = np.argmax(at_top, axis=1)
        else:  # the last-written card of the top rank
            first = c.shape[1] - 1 - np.argmax(at_top[:, ::-1], axis=1)
        suit = c[np.arange(len(c)), first] & 3
        ss = np.array(r.suit_strength, dtype=np.int64)[suit]
        if r.tie_break in ("highest_card", "rank_by_rank"):
            strength = (strength & ~np.int64(3)) | ss
    return cat, strength


def niuniu_showdown_answers(
    player: npt.NDArray[np.integer],
    banker: npt.NDArray[np.integer],
    bet: npt.NDArray[np.int64],
    commission: npt.NDArray[np.float64],
    base: Any,
    variant: Variant | None = None,
) -> dict[str, npt.NDArray[Any]]:
    """``winner`` (0 player, 1 banker, 2 push) and ``net`` (the player's, in stakes) of
    showdowns, under ``base`` or a variant. ``bet`` indexes ``base.bets`` per row."""
    rules = _niuniu_rules(variant, base)
    pc_, ps = niuniu_showdown_strengths(player, rules, variant)
    bc, bs = niuniu_showdown_strengths(banker, rules, variant)
    tie = 1 if rules.on_tie == "banker" else 2
    winner = np.where(ps > bs, 0, np.where(ps < bs, 1, tie))
    opts = options_of(variant)
    rows = np.array([rules.multiplier_row(b) for b in rules.bets], dtype=np.float64)
    bet_idx = np.asarray(bet, dtype=np.int64)
    if "bet" in opts:
        bet_idx = np.full(len(bet_idx), list(rules.bets).index(opts["bet"]))
    comm = np.asarray(commission, dtype=np.float64)
    if "commission" in opts:
        comm = np.full(len(comm), float(opts["commission"]))
    pm = rows[bet_idx, pc_]
    bm = rows[bet_idx, bc]
    mistakes = mistakes_of(variant)
    if "loser_multiplier" in mistakes:
        pm, bm = bm, pm
    win = pm - comm if "commission_on_stake" in mistakes else pm * (1 - comm)
    net = np.where(winner == 0, win, np.where(winner == 1, -bm, 0.0))
    return {
        "winner": winner,
        "net": np.round(net, 9),
        "player_category": pc_,
        "banker_category": bc,
        "player_strength": ps,
        "banker_strength": bs,
    }
