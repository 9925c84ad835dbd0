"""Rule-variant diagnosis for Pok Deng: the catalogue of variants of a rule set (straights
and the ace, the deng of each kind of hand, Tong against Sam Lueang, what equal type
and points pay, a house order of two-card kinds) and the answers under any of them,
including the mistakes (a three-card 8 or 9 counted as Pok, deng compared before
points, Tong against Tong by rank).

Equal hands paid the higher deng in full is a house rule (``equal_points =
"higher_deng"``), so its variant is that rule: key ``equal_points=higher_deng``.

>>> from solver.games.pokdeng.rules import load_rules
>>> keys = [v.key for v in pokdeng_catalogue(load_rules("standard"), "showdown")]
>>> [k for k in keys if k.startswith(("equal_points", "two_card_order"))][:3]
['equal_points=push', 'equal_points=higher_deng', 'two_card_order=suited>pair>plain']
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.kit.diagnosis import Catalogue, Variant, mistakes_of, variant_rules, winner_of_net

__all__ = [
    "pokdeng_catalogue",
    "pokdeng_hand_answers",
    "pokdeng_showdown_answers",
]


def pokdeng_catalogue(rules: Any, mode: str) -> list[Variant]:
    """The Pok Deng variants of ``rules`` (a :class:`~solver.games.pokdeng.rules.PokDengRules`).

    Every variant is scoped (``scope``): off the checker's interesting hand rows (three
    cards, or two suited or paired) its hand answers are the rules' own, and every
    showdown row is interesting. The mistakes have stages (``type``: how a hand is
    classified; ``compare``: what decides a showdown; ``tong``: Tong against Tong), so
    two of different stages combine.

    >>> from solver.games.pokdeng.rules import load_rules
    >>> keys = [v.key for v in pokdeng_catalogue(load_rules("standard"), "showdown")]
    >>> [k for k in keys if k.startswith("two_card_order")][:2]
    ['two_card_order=suited>pair>plain', 'two_card_order=suited>plain>pair']
    """
    from itertools import permutations

    from solver.games.pokdeng.rules import EQUAL_POINTS, TWO_CARD_KINDS

    base = rules.to_data()
    base.pop("name", None)
    out = Catalogue(mode)
    both, show = ("hand", "showdown"), ("showdown",)

    def add(key: str, desc: str, data: Any, modes: tuple[str, ...] = both) -> None:
        out.add(key, desc, data, modes=modes, scope=modes)

    def add_mistake(name: str, desc: str, stage: str, modes: tuple[str, ...] = both) -> None:
        out.add_mistake(name, desc, modes=modes, scope=modes, stage=stage)

    if rules.types:  # the rule language: the same variants, said as types
        from solver.games.pokdeng.language import straight_variants

        for key, desc, types in straight_variants(rules.types, rules.deng):
            add(key, desc, {**base, "types": [t.to_data() for t in types]})
    elif rules.straights:
        add("straights=false", "no straights (Riang not counted)", {**base, "straights": False})
        for ace in ("low", "high", "both"):
            if ace != rules.ace:
                add(
                    f"ace={ace}",
                    f"straights with the ace {ace}"
                    + {"low": " (A-2-3 only)", "high": " (Q-K-A only)", "both": ""}[ace],
                    {**base, "ace": ace},
                )
    else:
        for ace in ("both", "low", "high"):
            add(
                f"straights=true,ace={ace}",
                f"straights counted (ace {ace})",
                {**base, "straights": True, "ace": ace},
            )
    deng = dict(base["deng"])
    pair3 = 2 if deng["three_card_pair"] == 1 else 1
    tried = [
        ("pok_pair", 1, "a paired Pok given 1 deng"),
        ("pok_suited", 1, "a suited Pok given 1 deng"),
        ("two_card_pair", 1, "a two-card pair given 1 deng"),
        ("three_suited", 1, "three cards of one suit given 1 deng"),
        ("three_card_pair", pair3, f"a three-card pair given {pair3} deng"),
        ("tong", 3, "Tong given 3 deng"),
        ("sam_lueang", 1, "Sam Lueang given 1 deng"),
    ]
    if rules.types:  # a type's deng is said per type, the [deng] table only by kind
        per_type = [
            *tried[5:],
            ("straight", 1, "a straight given 1 deng"),
            ("straight_flush", 3, "a straight flush given 3 deng"),
        ]
        tried = [t for t in tried if t[0] in deng]
        for name, value, desc in per_type:
            said = [t.deng for t in rules.types if t.name == name and t.deng is not None]
            if said and any(v != value for v in said):
                moved = [
                    (replace(t, deng=value) if t.name == name and t.deng is not None else t)
                    for t in rules.types
                ]
                add(f"deng.{name}={value}", desc, {**base, "types": [t.to_data() for t in moved]})
    elif rules.straights:
        tried += [
            ("straight", 1, "a straight given 1 deng"),
            ("straight_flush", 3, "a straight flush given 3 deng"),
        ]
    for key, value, desc in tried:
        if deng.get(key) != value:
            add(f"deng.{key}={value}", desc, {**base, "deng": {**deng, key: value}})
    if rules.decks > 1:  # a shoe: one suit holding two identical cards
        flush = not rules.flush_with_identical
        add(
            f"flush_with_identical={str(flush).lower()}",
            "three cards of one suit holding two identical cards paid "
            + ("three-suited deng" if flush else "as a three-card pair"),
            {**base, "flush_with_identical": flush},
        )
    add_mistake("three_card_pok", "a three-card 8 or 9 counted as Pok", "type")
    pays = 5 if rules.tong_vs_sam_lueang_pays != 5 else 2
    add(
        f"tong_vs_sam_lueang_pays={pays}",
        f"Tong against Sam Lueang pays {pays}",
        {**base, "tong_vs_sam_lueang_pays": pays},
        modes=show,
    )
    add_mistake("deng_before_points", "deng compared before points", "compare", modes=show)
    add_mistake("tong_by_rank", "Tong against Tong decided by rank, not points", "tong", modes=show)
    paid = {
        "deng_difference": "the higher deng wins the deng difference",
        "push": "a push",
        "higher_deng": "the higher deng is paid in full, not the difference",
    }
    for equal in EQUAL_POINTS:
        if equal != rules.equal_points:
            add(
                f"equal_points={equal}",
                f"equal type and points: {paid[equal]}",
                {**base, "equal_points": equal},
                modes=show,
            )
    if rules.two_card_order:
        add(
            "two_card_order=none",
            "no order of two-card kinds (equal two-card hands settle by equal_points)",
            {**base, "two_card_order": []},
            modes=show,
        )
    for perm in permutations(TWO_CARD_KINDS):
        order = list(perm)
        if order != list(rules.two_card_order):
            add(
                f"two_card_order={'>'.join(order)}",
                "equal two-card hands ranked " + " > ".join(order) + ", the higher paid in full",
                {**base, "two_card_order": order},
                modes=show,
            )
    return list(out)


def _pokdeng_rules(variant: Variant | None, base: Any) -> Any:
    from solver.games.pokdeng.rules import PokDengRules

    return variant_rules(variant, base, PokDengRules.from_data)


def _classified(
    c: npt.NDArray[np.int64], sz: npt.NDArray[Any], rules: Any
) -> tuple[npt.NDArray[np.int64], ...]:
    """Type, points, deng and kind of the hands ``c`` (sizes ``sz``) under ``rules``:
    kept for the next variant that classifies the same hands alike (a variant of the
    settlement, a payout order or a mistake shares its rule set's)."""
    from solver.games.pokdeng.hands import classify, two_card_kind

    key: tuple[Any, ...] | None = None
    if not rules.types and len(c) <= _SMALL:  # today's keys: what classify reads
        digest = hashlib.blake2b(c.tobytes() + sz.tobytes(), digest_size=16).digest()
        key = (digest, c.shape, rules.deng, rules.straights, rules.ace)
        key += (rules.flush_with_identical,)
        hit = _CLASSIFIED.get(key)
        if hit is not None:
            return hit
    n = len(c)
    t = np.zeros(n, dtype=np.int64)
    p = np.zeros(n, dtype=np.int64)
    d = np.ones(n, dtype=np.int64)
    kind = np.zeros(n, dtype=np.int64)
    for k in (2, 3):
        sel = np.flatnonzero(sz == k)
        if len(sel):
            tt, pp, dd = classify(c[sel, :k], rules)
            t[sel], p[sel], d[sel] = tt, pp, dd
            kind[sel] = two_card_kind(c[sel, :k])
    got = (t, p, d, kind)
    for a in got:
        a.flags.writeable = False
    if key is not None:
        if len(_CLASSIFIED) >= 8:
            _CLASSIFIED.pop(next(iter(_CLASSIFIED)))
        _CLASSIFIED[key] = got
    return got


_SMALL = 1 << 16
"""Hands kept only in batches of at most this many (the rows a diagnosis scores its
variants on; a whole file's batch is classified once anyway)."""
_CLASSIFIED: dict[tuple[Any, ...], tuple[npt.NDArray[np.int64], ...]] = {}
"""The last hands classified, by their cards and what classify reads of the rules."""


def pokdeng_hand_answers(
    cards: npt.NDArray[np.integer],
    size: npt.NDArray[np.integer],
    base: Any,
    variant: Variant | None = None,
) -> dict[str, npt.NDArray[Any]]:
    """``type``, ``points``, ``deng`` and ``kind`` (:class:`~solver.games.pokdeng.rules.Kind`)
    of hands (n, 3; the third card 255 in a two-card hand) under ``base`` rules or a
    variant.

    >>> from solver.games.pokdeng.rules import load_rules
    >>> from solver.core.cards import parse_cards
    >>> h = np.array([parse_cards("9S 9D") + [255], parse_cards("6C 4C 5C")], dtype=np.uint8)
    >>> a = pokdeng_hand_answers(h, np.array([2, 3]), load_rules())
    >>> a["type"].tolist(), a["points"].tolist(), a["deng"].tolist()
    ([5, 0], [8, 5], [2, 3])
    """
    from solver.games.pokdeng.rules import HandType

    rules = _pokdeng_rules(variant, base)
    c = np.ascontiguousarray(cards, dtype=np.int64)
    sz = np.ascontiguousarray(size)
    t, p, d, kind = _classified(c, sz, rules)
    if "three_card_pok" in mistakes_of(variant):
        pok3 = (sz == 3) & (p >= 8) & (t == HandType.NORMAL)
        t = t.copy()
        t[pok3] = HandType.POK
    return {"type": t, "points": p, "deng": d, "kind": kind}


def pokdeng_showdown_answers(
    player: npt.NDArray[np.integer],
    p_size: npt.NDArray[np.integer],
    dealer: npt.NDArray[np.integer],
    d_size: npt.NDArray[np.integer],
    base: Any,
    variant: Variant | None = None,
) -> dict[str, npt.NDArray[Any]]:
    """``winner`` (0 player, 1 dealer, 2 push) and ``net`` (the player's) of showdowns."""
    from solver.games.pokdeng.hands import settle
    from solver.games.pokdeng.rules import HandType

    rules = _pokdeng_rules(variant, base)
    a = pokdeng_hand_answers(player, p_size, base, variant)
    b = pokdeng_hand_answers(dealer, d_size, base, variant)
    mistakes = mistakes_of(variant)
    net = settle(
        a["type"], a["points"], a["deng"], b["type"], b["points"], b["deng"], rules,
        a["kind"], b["kind"],
    )  # fmt: skip
    same_type = a["type"] == b["type"]
    if "deng_before_points" in mistakes:
        ka = a["type"] * 100 + a["deng"] * 10 + a["points"]
        kb = b["type"] * 100 + b["deng"] * 10 + b["points"]
        net = np.where(ka > kb, a["deng"], np.where(ka < kb, -b["deng"], 0))
        tsl = {int(HandType.TONG), int(HandType.SAM_LUEANG)}
        pair = ~same_type & np.isin(a["type"], list(tsl)) & np.isin(b["type"], list(tsl))
        net = np.where(pair, np.sign(a["type"] - b["type"]) * rules.tong_vs_sam_lueang_pays, net)
    if "tong_by_rank" in mistakes:  # applied last: it decides Tong against Tong
        both = same_type & (a["type"] == HandType.TONG)
        ra = np.asarray(player, dtype=np.int64)[:, 0] >> 2
        rb = np.asarray(dealer, dtype=np.int64)[:, 0] >> 2
        net = np.where(both, np.where(ra > rb, a["deng"], np.where(ra < rb, -b["deng"], 0)), net)
    net = np.asarray(net, dtype=np.int64)
    winner = winner_of_net(net)
    return {
        "winner": winner,
        "net": net.astype(np.float64),
        "player_type": a["type"],
        "dealer_type": b["type"],
    }
