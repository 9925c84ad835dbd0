"""Rule-variant diagnosis for Niu Niu: the catalogue of variants of a rule set (rule
options, house rules, mistakes); the answers (hands, showdowns) under any of them are
:mod:`solver.games.niuniu.variant_answers`'.

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
from collections.abc import Mapping, Sequence
from itertools import combinations, permutations
from typing import Any

from solver.kit.diagnosis import Catalogue, Variant

__all__ = ["niuniu_catalogue"]

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
