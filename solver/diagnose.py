"""Rule-variant diagnosis: which rule another implementation gets wrong.

The verifier (:mod:`solver.verify`) re-checks every disagreeing claim against a
**catalogue of variants** of the rule set in use and ranks the variants by how many
disagreements each explains ("all 416 disagreements are explained by:
five_small_bull uses total < 10").

Variants are data where the game module can evaluate them: a rule dict derived from
the preset (``rules``), fed to the game's own vectorised evaluator. The few that are
*mistakes* rather than rule options (a bull search that skips the first card, a
tie-break suit taken from the order the cards were written in, a Tau Ngau player who
sets a [2:1]/[4:2] aside in the bull when it would score more in the remaining two,
Pok Deng deng compared before points) are small explicit evaluators here, named by
``mistake``. Settlement variants (another bet, commission) are ``options``.

A variant *explains* a disagreeing row when every claim the row states equals that
variant's answer. To break ties it is also checked against a sample of agreeing rows
(every row whose hand is special-ish, plus the first rows read): a variant that
would contradict claims which agree with the real rules ranks lower.

>>> from solver.niuniu import load_rules
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
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations, permutations
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "DIAGNOSE_LIMIT",
    "Explanation",
    "Tally",
    "Variant",
    "niuniu_catalogue",
    "niuniu_hand_answers",
    "niuniu_showdown_answers",
    "niuniu_showdown_strengths",
]

DIAGNOSE_LIMIT = 250_000
"""Disagreeing rows re-checked against the catalogue (later ones are counted only)."""

SUIT_LETTERS = ("S", "H", "D", "C")
WINNERS = ("player", "banker", "push")


@dataclass(frozen=True, eq=False)
class Variant:
    """One alternative reading of the rules.

    ``rules``: the full rule dict (a data variant), ``mistake``: the name of an explicit
    evaluator, ``options``: settlement options such as ``bet`` or ``commission``;
    ``modes``: the row kinds (``hand``, ``showdown``) it can explain.
    """

    key: str
    description: str
    rules: Mapping[str, Any] | None = None
    mistake: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    modes: tuple[str, ...] = ("hand", "showdown")


class _Catalogue(list[Variant]):
    """The variants of a catalogue for one ``mode`` (``all``, ``hand``, ``showdown``):
    :meth:`add` keeps those that can explain rows of that mode."""

    def __init__(self, mode: str) -> None:
        super().__init__()
        self.mode = mode

    def add(
        self,
        key: str,
        desc: str,
        data: Mapping[str, Any] | None = None,
        mistake: str | None = None,
        modes: tuple[str, ...] = ("hand", "showdown"),
        **options: Any,
    ) -> None:
        if self.mode == "all" or self.mode in modes:
            self.append(Variant(key, desc, data, mistake, options, modes))


@dataclass(frozen=True)
class Explanation:
    """How many disagreements a variant explains, and how many agreeing rows it would
    contradict."""

    key: str
    description: str
    explains: int
    contradicts: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "variant": self.description,
            "key": self.key,
            "explains": self.explains,
            "contradicts": self.contradicts,
        }


class Tally:
    """Accumulates, over batches, which variants explain which disagreeing rows.

    Rows are kept as bit patterns over the catalogue (one counter entry per distinct
    pattern), so memory does not grow with the number of rows.
    """

    def __init__(self, variants: Sequence[Variant]) -> None:
        self.variants = list(variants)
        self.patterns: Counter[bytes] = Counter()
        self.total = 0
        self.contradicts = np.zeros(len(self.variants), dtype=np.int64)
        self.sampled = 0

    def add(self, explains: npt.NDArray[np.bool_]) -> None:
        """``explains[i, v]``: variant v explains disagreeing row i."""
        m = np.asarray(explains, dtype=bool).reshape(-1, len(self.variants))
        self.total += len(m)
        if not len(m):
            return
        packed = np.packbits(m, axis=1)
        uniq, counts = np.unique(packed, axis=0, return_counts=True)
        for row, c in zip(uniq, counts.tolist(), strict=True):
            self.patterns[row.tobytes()] += c

    def add_contradicts(self, contradicts: npt.NDArray[np.bool_]) -> None:
        """``contradicts[i, v]``: variant v disagrees with agreeing row i."""
        m = np.asarray(contradicts, dtype=bool).reshape(-1, len(self.variants))
        self.sampled += len(m)
        self.contradicts += m.sum(axis=0)

    def _bits(self) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.int64]]:
        if not self.patterns:
            return np.zeros((0, len(self.variants)), dtype=bool), np.zeros(0, dtype=np.int64)
        keys = list(self.patterns)
        packed = np.frombuffer(b"".join(keys), dtype=np.uint8).reshape(len(keys), -1)
        bits = np.unpackbits(packed, axis=1)[:, : len(self.variants)].astype(bool)
        return bits, np.array([self.patterns[k] for k in keys], dtype=np.int64)

    def _order(self, explains: npt.NDArray[np.int64]) -> list[int]:
        return sorted(
            range(len(self.variants)),
            key=lambda v: (-int(explains[v]), int(self.contradicts[v]), v),
        )

    def ranked(self) -> list[Explanation]:
        """Variants explaining at least one disagreement, best first: most explained,
        then fewest contradicted agreeing rows, then catalogue order."""
        bits, counts = self._bits()
        explains = (
            (bits * counts[:, None]).sum(axis=0)
            if len(bits)
            else np.zeros(len(self.variants), dtype=np.int64)
        )
        return [
            Explanation(
                self.variants[v].key,
                self.variants[v].description,
                int(explains[v]),
                int(self.contradicts[v]),
            )
            for v in self._order(explains)
            if explains[v] > 0
        ]

    def cover(self, limit: int = 5) -> list[Explanation]:
        """A greedy cover: the variant explaining most, then the one explaining most of
        what is left, ... (``explains`` counts only the newly explained rows)."""
        bits, counts = self._bits()
        left = np.ones(len(bits), dtype=bool)
        out: list[Explanation] = []
        while len(out) < limit and left.any():
            gain = (bits[left] * counts[left, None]).sum(axis=0)
            if gain.max(initial=0) <= 0:
                break
            v = self._order(gain)[0]
            out.append(
                Explanation(
                    self.variants[v].key,
                    self.variants[v].description,
                    int(gain[v]),
                    int(self.contradicts[v]),
                )
            )
            left &= ~bits[:, v]
        return out

    def headline(self) -> str:
        """One sentence naming the variant(s) that explain the disagreements."""
        if self.total == 0:
            return "no disagreements"
        cover = self.cover()
        if not cover:
            return f"none of the {self.total} disagreements is explained by a known rule variant"
        explained = sum(e.explains for e in cover)
        if len(cover) == 1 and explained == self.total:
            noun = "disagreement is" if self.total == 1 else "disagreements are"
            return f"all {self.total} {noun} explained by: {cover[0].description}"
        parts = "; ".join(f"{e.description} ({e.explains})" for e in cover)
        if explained == self.total:
            return (
                f"all {self.total} disagreements are explained by {len(cover)} variants "
                f"together: {parts}"
            )
        return (
            f"{explained} of {self.total} disagreements are explained by: {parts}; "
            f"{self.total - explained} unexplained"
        )


# ================================================================ Niu Niu

_SPECIAL_ORDER = ("four_faces", "five_faces", "four_of_a_kind", "straight_flush", "five_small_bull")
"""Where a special the rule set does not count is inserted (low to high)."""


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
        )
    }
)
"""Pairs of specials one hand can hold at once (JJJJQ, JJJJ10, AAAA2): only their
relative order can matter."""


def niuniu_catalogue(rules: Any, mode: str, bet: str | None = None) -> list[Variant]:
    """The Niu Niu variants of ``rules`` (a :class:`~solver.niuniu.NiuNiuRules`) that can
    explain rows of ``mode`` (``hand``, ``showdown`` or ``all``); ``bet`` is the bet in
    use (no "settled as" variant for it)."""
    base = rules.to_data()
    sd = base["special_definitions"]
    specials = list(rules.specials)
    out = _Catalogue(mode)
    add = out.add

    for s in specials:
        add(
            f"specials_without={s}",
            f"{s} not counted as a special",
            _with(base, specials=[x for x in specials if x != s]),
        )
    for s in _SPECIAL_ORDER:
        if s in specials:
            continue
        add(
            f"specials_with={s}",
            f"{s} counted as a special",
            _with(base, specials=_insert_special(specials, s)),
        )
    # special definitions (applied with the special counted, if the preset lacks it)
    fsb = (
        specials if "five_small_bull" in specials else _insert_special(specials, "five_small_bull")
    )
    note = "" if "five_small_bull" in specials else " (five_small_bull counted)"
    if sd["five_small_bull_total"] == "at_most_10":
        add(
            "five_small_bull_total=below_10",
            "five_small_bull uses total < 10" + note,
            _with(base, specials=fsb, special_definitions={"five_small_bull_total": "below_10"}),
        )
    else:
        add(
            "five_small_bull_total=at_most_10",
            "five_small_bull uses total <= 10" + note,
            _with(base, specials=fsb, special_definitions={"five_small_bull_total": "at_most_10"}),
        )
    if sd["five_small_bull_max_rank"] == "4":
        add(
            "five_small_bull_max_rank=any",
            "five_small_bull without the 'every card A..4' test" + note,
            _with(base, specials=fsb, special_definitions={"five_small_bull_max_rank": "any"}),
        )
        add(
            "five_small_bull=below_10,any_rank",
            "five_small_bull uses total < 10 and no 'every card A..4' test" + note,
            _with(
                base,
                specials=fsb,
                special_definitions={
                    "five_small_bull_max_rank": "any",
                    "five_small_bull_total": "below_10",
                },
            ),
        )
    ff = specials if "four_faces" in specials else _insert_special(specials, "four_faces")
    note = "" if "four_faces" in specials else " (four_faces counted)"
    if sd["four_faces_fifth"] == "ten":
        add(
            "four_faces_fifth=any",
            "four_faces without checking for exactly one 10" + note,
            _with(base, specials=ff, special_definitions={"four_faces_fifth": "any"}),
        )
    else:
        add(
            "four_faces_fifth=ten",
            "four_faces requires exactly one 10" + note,
            _with(base, specials=ff, special_definitions={"four_faces_fifth": "ten"}),
        )
    for i, j in combinations(range(len(specials)), 2):
        if frozenset((specials[i], specials[j])) not in _CO_OCCUR:
            continue
        order = list(specials)
        order[i], order[j] = order[j], order[i]
        add(
            f"special_order={'<'.join(order)}",
            f"specials ranked {specials[i]} above {specials[j]}",
            _with(base, specials=order),
        )
    if len(specials) > 2:
        add(
            "special_order=reversed",
            "specials ranked in reverse order",
            _with(base, specials=specials[::-1]),
        )
    add(
        "mistake=bull_skips_first",
        "bull search skips the first card (as written)",
        mistake="bull_skips_first",
    )
    add(
        "mistake=niu_niu_as_zero",
        "Niu Niu reported as points 0 (a 0 not counted as 10)",
        mistake="niu_niu_as_zero",
        modes=("hand",),
    )
    # showdowns: tie-breaks, suits, settlement
    show = ("showdown",)
    tb = rules.tie_break
    for other, desc in (
        ("highest_card", "tie-break by the highest card (rank, then suit)"),
        ("rank_by_rank", "tie-break rank by rank from the highest card down"),
        ("none", "no tie-break (equal categories push)"),
    ):
        if other != tb:
            add(f"tie_break={other}", desc, _with(base, tie_break=other), modes=show)
    if tb != "none":
        suits = base["suit_order"]
        for perm in permutations(SUIT_LETTERS):
            if list(perm) != suits:
                add(
                    f"suit_order={''.join(perm)}",
                    "suit order " + " > ".join(perm),
                    _with(base, suit_order=list(perm)),
                    modes=show,
                )
        add(
            "mistake=suit_from_input_order",
            "tie-break suit taken from the first-written card of the highest rank "
            "(depends on input order)",
            mistake="suit_from_input_order",
            modes=show,
        )
    if tb == "rank_by_rank":
        add(
            f"quads_first={not rules.quads_first}".lower(),
            "four of a kind compared by the quad rank first"
            if not rules.quads_first
            else "four of a kind compared rank by rank (not by the quad rank first)",
            _with(base, quads_first=not rules.quads_first),
            modes=show,
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
    add(
        "mistake=loser_multiplier",
        "the loser pays its own hand's multiplier (not the winner's)",
        mistake="loser_multiplier",
        modes=show,
    )
    add(
        "mistake=commission_on_stake",
        "commission taken on the stake, not on the winnings",
        mistake="commission_on_stake",
        modes=show,
    )
    return list(out)


def _variant_rules(
    variant: Variant | None, base: Any, make: Callable[[str, Mapping[str, Any]], Any]
) -> Any:
    """The rules object of a data variant, made once per variant by ``make(name, data)``;
    ``base`` for no variant or one that is not data."""
    if variant is None or variant.rules is None:
        return base
    hit = _RULES_CACHE.get(id(variant))
    if hit is None or hit[0] is not variant:
        hit = (variant, make(base.name, variant.rules))
        _RULES_CACHE[id(variant)] = hit
    return hit[1]


_RULES_CACHE: dict[int, tuple[Variant, Any]] = {}


def _niuniu_rules(variant: Variant | None, base: Any) -> Any:
    from .niuniu import NiuNiuRules

    return _variant_rules(variant, base, NiuNiuRules.from_data)


def niuniu_hand_answers(
    cards: npt.NDArray[np.integer], base: Any, variant: Variant | None = None
) -> dict[str, npt.NDArray[Any]]:
    """Answers for hands written as ``cards`` (n, 5) in input order, under ``base``
    rules or a variant of them: ``has_bull``, ``points``, ``category``, ``strength`` and
    ``forbidden`` (a card a valid bull may not use, 255 = none).

    >>> from solver.niuniu import load_rules
    >>> from solver.cards import parse_cards
    >>> h = np.array([parse_cards("AS 2C 7D 4H 8S")], dtype=np.uint8)
    >>> a = niuniu_hand_answers(h, load_rules("classic"))
    >>> bool(a["has_bull"][0]), int(a["points"][0])
    (True, 2)
    >>> v = Variant("x", "x", mistake="bull_skips_first")
    >>> bool(niuniu_hand_answers(h, load_rules("classic"), v)["has_bull"][0])
    False
    """
    from .niuniu import Category, evaluate_arrays

    rules = _niuniu_rules(variant, base)
    c = np.asarray(cards, dtype=np.uint8)
    srt = np.sort(c, axis=1)
    ev = evaluate_arrays(srt, rules)
    has = ev["has_bull"].copy()
    points = ev["points"].astype(np.int64)
    cat = ev["category"].astype(np.int64)
    forbidden = np.full(len(c), 255, dtype=np.uint8)
    mistake = variant.mistake if variant is not None else None
    if mistake == "bull_skips_first":
        value = np.minimum((c >> 2) + 1, 10).astype(np.int64)
        has = np.zeros(len(c), dtype=bool)
        for a, b, d in ((1, 2, 3), (1, 2, 4), (1, 3, 4), (2, 3, 4)):
            has |= (value[:, a] + value[:, b] + value[:, d]) % 10 == 0
        total = value.sum(axis=1)
        points = np.where(has, (total - 1) % 10 + 1, 0)
        plain = cat <= Category.NIU_NIU
        cat = np.where(plain, points, cat)
        forbidden = c[:, 0].copy()
    elif mistake == "niu_niu_as_zero":
        points = np.where(points == 10, 0, points)
    from .niuniu import strength_arrays

    strength = strength_arrays(srt, cat.astype(np.uint8), rules)
    return {
        "has_bull": has,
        "points": points,
        "category": cat,
        "strength": strength,
        "forbidden": forbidden,
    }


def niuniu_showdown_strengths(
    cards: npt.NDArray[np.integer], rules: Any, variant: Variant | None
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """``(category, strength)`` of hands written as ``cards`` under a variant."""
    a = niuniu_hand_answers(cards, rules, variant)
    cat, strength = a["category"], a["strength"]
    if variant is not None and variant.mistake == "suit_from_input_order":
        r = _niuniu_rules(variant, rules)
        c = np.asarray(cards, dtype=np.int64)
        rank = c >> 2
        top = rank.max(axis=1)
        first = np.argmax(rank == top[:, None], axis=1)
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
    winner = np.where(ps > bs, 0, np.where(ps < bs, 1, 2))
    opts = variant.options if variant is not None else {}
    rows = np.array([rules.multiplier_row(b) for b in rules.bets], dtype=np.float64)
    bet_idx = np.asarray(bet, dtype=np.int64)
    if "bet" in opts:
        bet_idx = np.full(len(bet_idx), list(rules.bets).index(opts["bet"]))
    comm = np.asarray(commission, dtype=np.float64)
    if "commission" in opts:
        comm = np.full(len(comm), float(opts["commission"]))
    pm = rows[bet_idx, pc_]
    bm = rows[bet_idx, bc]
    mistake = variant.mistake if variant is not None else None
    if mistake == "loser_multiplier":
        pm, bm = bm, pm
    win = pm - comm if mistake == "commission_on_stake" else pm * (1 - comm)
    net = np.where(winner == 0, win, np.where(winner == 1, -bm, 0.0))
    return {
        "winner": winner,
        "net": np.round(net, 9),
        "player_category": pc_,
        "banker_category": bc,
        "player_strength": ps,
        "banker_strength": bs,
    }


# ================================================================ Tau Ngau


def taungau_catalogue(rules: Any, mode: str, banker_reveals: str | None = None) -> list[Variant]:
    """The Tau Ngau variants of ``rules`` (a :class:`~solver.taungau.TauNgauRules`)."""
    from .taungau import load_rules

    base = rules.to_data()
    out = _Catalogue(mode)
    add = out.add

    zero = 0 if rules.zero_counts_as == 10 else 10
    add(
        f"zero_counts_as={zero}",
        f"a last digit of 0 counts as {zero}"
        + (" (the lowest bull)" if zero == 0 else " (the best score)"),
        {**base, "zero_counts_as": zero},
    )
    add(
        "mistake=wild_in_bull",
        "a [2:1]/[4:2] is set aside in the bull whenever it can be, "
        "even when it would score more in the remaining two",
        mistake="wild_in_bull",
    )
    add(
        "mistake=first_bull",
        "the first bull found is taken, not the best one",
        mistake="first_bull",
    )
    add(
        "mistake=wild_rest_3",
        "a [2:1]/[4:2] in the remaining two always counts 3 "
        "(the 3/6 choice used only to make a bull)",
        mistake="wild_rest_3",
    )
    add(
        "mistake=wild_fixed_3",
        "[2:1] and [4:2] always count 3 (no 3/6 choice)",
        mistake="wild_fixed_3",
    )
    add(
        "mistake=wild_fixed_6",
        "[2:1] and [4:2] always count 6 (no 3/6 choice)",
        mistake="wild_fixed_6",
    )
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
    from .taungau import TauNgauRules

    return _variant_rules(
        variant, base, lambda name, data: TauNgauRules.from_data(name + "-variant", data)
    )


def taungau_candidates(
    tiles: npt.NDArray[np.integer], mistake: str | None = None
) -> list[tuple[npt.NDArray[np.bool_], npt.NDArray[np.int64]]]:
    """The plays a (possibly mistaken) player considers, for sorted hands (n, 5): pairs
    ``(bull exists, last digit)`` — one per 3/6 choice, or fewer for the mistakes.

    >>> from solver.tiles import parse_hand
    >>> h = np.array([parse_hand("[1:1][1:1][2:1][2:2][2:2]")])
    >>> sorted({int(d[0]) for ok, d in taungau_candidates(h) if ok[0]})
    [5, 8]
    >>> sorted({int(d[0]) for ok, d in taungau_candidates(h, "wild_fixed_3") if ok[0]})
    [5]
    """
    from .taungau import CHOICE_ORDER, TRIPLES, WILD_TILES, analyse

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
    if mistake == "first_bull":
        any_c = a.bull_ok.any(axis=0)  # (10, n)
        first = np.argmax(any_c, axis=0)
        cols = np.arange(h.shape[0])
        return [(a.bull_ok[c, first, cols], a.digit[c].astype(np.int64)) for c in CHOICE_ORDER]
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
    tiles: npt.NDArray[np.integer], base: Any, variant: Variant | None = None
) -> dict[str, npt.NDArray[Any]]:
    """Answers for sorted hands (n, 5) under ``base`` rules or a variant: ``has_bull``,
    ``reach`` (bit d: last digit d reachable), ``strength`` (0 no bull, 1..10) and
    ``points`` on the rule set's scale (-1: no score, i.e. no bull under ``pagat``)."""
    rules = _taungau_rules(variant, base)
    cands = taungau_candidates(tiles, variant.mistake if variant is not None else None)
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
    opts = variant.options if variant is not None else {}
    mode = opts.get("banker_reveals", banker_reveals)
    ps = taungau_hand_answers(player, base, variant)["strength"]
    bs = taungau_hand_answers(banker, base, variant)["strength"]
    pay = np.array([rules.payoff_value(s) for s in range(11)], dtype=np.int64)
    declines = np.zeros(len(ps), dtype=bool)
    if rules.has_decline:
        if mode == "first":
            declines = (ps > 0) & (pay[bs] - pay[ps] > rules.no_bull_pays)
        else:
            declines = (ps > 0) & (np.asarray(decision_last(rules, player)) == 1)
    eff = np.where(declines, 0, ps)
    if rules.settlement == "difference":
        net = np.where(eff == 0, -rules.no_bull_pays, pay[eff] - pay[bs])
    else:
        net = np.sign(eff - bs)
    winner = np.where(net > 0, 0, np.where(net < 0, 1, 2))
    return {
        "winner": winner,
        "net": net.astype(np.float64),
        "player_strength": ps,
        "banker_strength": bs,
        "declines": declines,
    }


# ================================================================ Pok Deng


def pokdeng_catalogue(rules: Any, mode: str) -> list[Variant]:
    """The Pok Deng variants of ``rules`` (a :class:`~solver.pokdeng.PokDengRules`)."""
    base = rules.to_data()
    base.pop("name", None)
    out = _Catalogue(mode)
    add = out.add

    if rules.straights:
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
    for key, value, desc in (
        ("pok_pair", 1, "a paired Pok given 1 deng"),
        ("pok_suited", 1, "a suited Pok given 1 deng"),
        ("two_card_pair", 1, "a two-card pair given 1 deng"),
        ("three_suited", 1, "three cards of one suit given 1 deng"),
        ("tong", 3, "Tong given 3 deng"),
        ("sam_lueang", 1, "Sam Lueang given 1 deng"),
    ):
        if deng.get(key) != value:
            add(f"deng.{key}={value}", desc, {**base, "deng": {**deng, key: value}})
    add("mistake=three_card_pok", "a three-card 8 or 9 counted as Pok", mistake="three_card_pok")
    show = ("showdown",)
    pays = 5 if rules.tong_vs_sam_lueang_pays != 5 else 2
    add(
        f"tong_vs_sam_lueang_pays={pays}",
        f"Tong against Sam Lueang pays {pays}",
        {**base, "tong_vs_sam_lueang_pays": pays},
        modes=show,
    )
    add(
        "mistake=deng_before_points",
        "deng compared before points",
        mistake="deng_before_points",
        modes=show,
    )
    add(
        "mistake=tong_by_rank",
        "Tong against Tong decided by rank, not points",
        mistake="tong_by_rank",
        modes=show,
    )
    add(
        "mistake=equal_pays_winner_deng",
        "equal type and points: the higher deng is paid in full, not the difference",
        mistake="equal_full_deng",
        modes=show,
    )
    return list(out)


def _pokdeng_rules(variant: Variant | None, base: Any) -> Any:
    from .pokdeng import PokDengRules

    return _variant_rules(variant, base, PokDengRules.from_data)


def pokdeng_hand_answers(
    cards: npt.NDArray[np.integer],
    size: npt.NDArray[np.integer],
    base: Any,
    variant: Variant | None = None,
) -> dict[str, npt.NDArray[Any]]:
    """``type``, ``points``, ``deng`` of hands (n, 3; the third card 255 in a two-card
    hand) under ``base`` rules or a variant.

    >>> from solver.pokdeng import load_rules
    >>> from solver.cards import parse_cards
    >>> h = np.array([parse_cards("9S 9D") + [255], parse_cards("6C 4C 5C")], dtype=np.uint8)
    >>> a = pokdeng_hand_answers(h, np.array([2, 3]), load_rules())
    >>> a["type"].tolist(), a["points"].tolist(), a["deng"].tolist()
    ([5, 0], [8, 5], [2, 3])
    """
    from .pokdeng import HandType, classify

    rules = _pokdeng_rules(variant, base)
    c = np.asarray(cards, dtype=np.int64)
    sz = np.asarray(size)
    n = len(c)
    t = np.zeros(n, dtype=np.int64)
    p = np.zeros(n, dtype=np.int64)
    d = np.ones(n, dtype=np.int64)
    for k in (2, 3):
        sel = np.flatnonzero(sz == k)
        if len(sel):
            tt, pp, dd = classify(c[sel, :k], rules)
            t[sel], p[sel], d[sel] = tt, pp, dd
    if variant is not None and variant.mistake == "three_card_pok":
        pok3 = (sz == 3) & (p >= 8) & (t == HandType.NORMAL)
        t[pok3] = HandType.POK
    return {"type": t, "points": p, "deng": d}


def pokdeng_showdown_answers(
    player: npt.NDArray[np.integer],
    p_size: npt.NDArray[np.integer],
    dealer: npt.NDArray[np.integer],
    d_size: npt.NDArray[np.integer],
    base: Any,
    variant: Variant | None = None,
) -> dict[str, npt.NDArray[Any]]:
    """``winner`` (0 player, 1 dealer, 2 push) and ``net`` (the player's) of showdowns."""
    from .pokdeng import HandType, settle

    rules = _pokdeng_rules(variant, base)
    a = pokdeng_hand_answers(player, p_size, base, variant)
    b = pokdeng_hand_answers(dealer, d_size, base, variant)
    mistake = variant.mistake if variant is not None else None
    net = settle(a["type"], a["points"], a["deng"], b["type"], b["points"], b["deng"], rules)
    same_type = a["type"] == b["type"]
    if mistake == "deng_before_points":
        ka = a["type"] * 100 + a["deng"] * 10 + a["points"]
        kb = b["type"] * 100 + b["deng"] * 10 + b["points"]
        net = np.where(ka > kb, a["deng"], np.where(ka < kb, -b["deng"], 0))
        tsl = {int(HandType.TONG), int(HandType.SAM_LUEANG)}
        pair = ~same_type & np.isin(a["type"], list(tsl)) & np.isin(b["type"], list(tsl))
        net = np.where(pair, np.sign(a["type"] - b["type"]) * rules.tong_vs_sam_lueang_pays, net)
    elif mistake == "tong_by_rank":
        both = same_type & (a["type"] == HandType.TONG)
        ra = np.asarray(player, dtype=np.int64)[:, 0] >> 2
        rb = np.asarray(dealer, dtype=np.int64)[:, 0] >> 2
        net = np.where(both, np.where(ra > rb, a["deng"], np.where(ra < rb, -b["deng"], 0)), net)
    elif mistake == "equal_full_deng":
        eq = same_type & (a["points"] == b["points"])
        net = np.where(
            eq,
            np.where(
                a["deng"] > b["deng"], a["deng"], np.where(a["deng"] < b["deng"], -b["deng"], 0)
            ),
            net,
        )
    net = np.asarray(net, dtype=np.int64)
    winner = np.where(net > 0, 0, np.where(net < 0, 1, 2))
    return {
        "winner": winner,
        "net": net.astype(np.float64),
        "player_type": a["type"],
        "dealer_type": b["type"],
    }
