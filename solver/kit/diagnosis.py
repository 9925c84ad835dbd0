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
Pok Deng deng compared before points) are small explicit evaluators in the game's
diagnosis module, named by ``mistake``. A mistake may go by what the row claims besides
the answer (a Tau Ngau player who takes a wrong bull and scores it correctly is judged
on the claimed ``bull``): the game's checker hands its evaluator the rows' claims.
Settlement variants (another bet, commission) are ``options``. A mistake that declares
the ``stage`` of the evaluation it changes (``bull``, ``points``, ``tie_break``,
``multiplier``...) composes with a mistake of another stage: the pair applies both
(``mistake="a+b"``, :func:`mistakes_of`) and is scored on every row. A variant scoped to
some rows combines with another (:func:`pairs_of`): off those rows the pair answers as
the other member does. Every pair is listed only when it scores more than both members
alone (and explains more rows than it contradicts).

A variant *explains* a disagreeing row when every claim the row states equals that
variant's answer, and *contradicts* an agreeing row when some claim the row states
differs from it. Both are counted exactly, over every row of the file (no row limit,
no sample): each variant is evaluated for every row, except where the catalogue
declares its ``scope`` — the row kinds in which its answers equal the rules' own
outside the checker's ``interesting`` rows (special-ish hands, equal categories), so
that there it agrees exactly where the rules do. Variants are ranked by explained -
contradicted: one that contradicts agreeing rows never heads the list while one that
contradicts none explains as many.

What the rule-variant diagnosis shares across games: a :class:`Variant`, the
:class:`Catalogue` a game builds its variants in, the rules object of a data variant
(:func:`variant_rules`), and the :class:`Tally` that ranks the variants by the
disagreements they explain (:mod:`solver.kit.scoring` scores them batch by batch).
The games' catalogues and evaluators are in :mod:`solver.games.niuniu.diagnose` (its
evaluators in :mod:`solver.games.niuniu.variant_answers`),
:mod:`solver.games.taungau.diagnose` and :mod:`solver.games.pokdeng.diagnose`.

>>> t = Tally([Variant("a", "A"), Variant("b", "B")])
>>> t.add(np.array([[True, False], [False, True], [True, False]]))
>>> t.headline()
'all 3 disagreements are explained by 2 variants together: A (2); B (1)'
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.kit.rule_merge import merge_list

__all__ = [
    "MAX_PAIRS",
    "Catalogue",
    "Explanation",
    "Tally",
    "Variant",
    "combine",
    "is_mistake_pair",
    "mistake_of",
    "mistake_pairs",
    "mistakes_of",
    "options_of",
    "pairs_of",
    "variant_rules",
    "winner_of_net",
]


@dataclass(frozen=True, eq=False)
class Variant:
    """One alternative reading of the rules.

    ``rules``: the full rule dict (a data variant), ``mistake``: the name of an explicit
    evaluator, ``options``: settlement options such as ``bet`` or ``commission``;
    ``modes``: the row kinds (``hand``, ``showdown``) it can explain; ``scope``: the row
    kinds in which its answers equal the rules' own on every row the checker does not
    mark ``interesting`` (so it is evaluated on those rows only).

    >>> Variant("mistake=x", "X", mistake="x").kind, Variant("a=b", "B").kind
    ('mistake', 'rule')
    """

    key: str
    description: str
    rules: Mapping[str, Any] | None = None
    mistake: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    modes: tuple[str, ...] = ("hand", "showdown")
    scope: tuple[str, ...] = ()
    order: str = ""
    """What the answer depends on in the order the cards were written (``""``: nothing)."""
    stage: str = ""
    """For a mistake: the stage of the evaluation it changes (``bull``, ``points``,
    ``tie_break``, ``settle``...); two mistakes combine only when both have one and the
    stages differ (``""``: the mistake does not compose). A combination's stages are
    joined by ``+``."""

    @property
    def kind(self) -> str:
        """``mistake`` (an explicit evaluator) or ``rule`` (a rule option or setting)."""
        return "mistake" if self.mistake is not None else "rule"


class Catalogue(list[Variant]):
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
        scope: tuple[str, ...] = (),
        order: str = "",
        stage: str = "",
        **options: Any,
    ) -> None:
        if self.mode == "all" or self.mode in modes:
            self.append(Variant(key, desc, data, mistake, options, modes, scope, order, stage))

    def add_mistake(
        self,
        mistake: str,
        desc: str,
        modes: tuple[str, ...] = ("hand", "showdown"),
        key: str | None = None,
        scope: tuple[str, ...] = (),
        order: str = "",
        stage: str = "",
    ) -> None:
        """A mistake (an explicit evaluator), keyed ``mistake=NAME`` unless ``key``;
        ``stage``: the stage it changes, when it can compose with another mistake."""
        self.add(
            key or f"mistake={mistake}",
            desc,
            mistake=mistake,
            modes=modes,
            scope=scope,
            order=order,
            stage=stage,
        )


@dataclass(frozen=True)
class Explanation:
    """How many disagreements a cause explains, and how many agreeing rows it
    contradicts (both exact). ``kind``: ``rule``, ``mistake`` or ``pattern``."""

    key: str
    description: str
    explains: int
    contradicts: int = 0
    kind: str = "rule"
    order: str = ""

    @property
    def score(self) -> int:
        """What ranks causes: explained - contradicted."""
        return self.explains - self.contradicts

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.key,
            "kind": self.kind,
            "description": self.description,
            "explains": self.explains,
            "contradicts": self.contradicts,
            "order_dependent": bool(self.order),
            **({"order": self.order} if self.order else {}),
            "variant": self.description,
            "key": self.key,
        }


class Tally:
    """Accumulates, over batches, which variants explain which disagreeing rows and how
    many agreeing rows each contradicts — over every row, exactly.

    Disagreeing rows are kept as bit patterns over the catalogue (one counter entry per
    distinct pattern), agreeing rows as one counter per variant, so memory does not grow
    with the number of rows.
    """

    def __init__(
        self, variants: Sequence[Variant], members: Mapping[int, tuple[int, int]] | None = None
    ) -> None:
        self.variants = list(variants)
        self.members = dict(members or {})
        """A combination of two causes: its column to its members' columns. It is listed
        only when it scores more than both of them alone, and more than nothing."""
        self.patterns: Counter[bytes] = Counter()
        self.total = 0
        self.contradicts = np.zeros(len(self.variants), dtype=np.int64)
        self.agreeing = 0

    def add(self, explains: npt.NDArray[np.bool_]) -> None:
        """``explains[i, v]``: variant v explains disagreeing row i."""
        m = np.asarray(explains, dtype=bool).reshape(-1, len(self.variants))
        self.total += len(m)
        if not len(m):
            return
        if m.T.flags.c_contiguous:  # a variant's column per row of memory
            packed = _pack_columns(m.T)
        else:
            packed = np.ascontiguousarray(np.packbits(m, axis=1))
        width = packed.shape[1]
        keys = packed.view(np.dtype((np.void, width))).ravel()  # one bytes key per row
        uniq, counts = np.unique(keys, return_counts=True)
        for row, c in zip(uniq.tolist(), counts.tolist(), strict=True):
            self.patterns[bytes(row)] += c

    def add_contradicts(self, contradicts: npt.NDArray[np.bool_]) -> None:
        """``contradicts[i, v]``: variant v disagrees with agreeing row i."""
        m = np.asarray(contradicts, dtype=bool).reshape(-1, len(self.variants))
        self.agreeing += len(m)
        self.contradicts += m.sum(axis=0)

    def add_counts(self, agreeing: int, contradicts: npt.NDArray[np.int64]) -> None:
        """``agreeing`` agreeing rows, of which ``contradicts[v]`` contradict variant v."""
        self.agreeing += agreeing
        self.contradicts += np.asarray(contradicts, dtype=np.int64)

    def _bits(self) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.int64]]:
        if not self.patterns:
            return np.zeros((0, len(self.variants)), dtype=bool), np.zeros(0, dtype=np.int64)
        keys = list(self.patterns)
        packed = np.frombuffer(b"".join(keys), dtype=np.uint8).reshape(len(keys), -1)
        bits = np.unpackbits(packed, axis=1)[:, : len(self.variants)].astype(bool)
        return bits, np.array([self.patterns[k] for k in keys], dtype=np.int64)

    def _order(self, explains: npt.NDArray[np.int64]) -> list[int]:
        """Best first: explained - contradicted, then fewest contradicted, then most
        explained, then catalogue order (single causes before combinations); a
        combination that scores no more than one of its members, or nothing (it
        contradicts as many rows as it explains), is left out."""
        c = self.contradicts
        score = explains - c
        total = self.explains() if self.members else explains
        full = total - c
        keep = [
            v
            for v in range(len(self.variants))
            if v not in self.members or full[v] > max(0, *(full[m] for m in self.members[v]))
        ]
        return sorted(
            keep,
            key=lambda v: (-int(score[v]), int(c[v]), -int(explains[v]), v),
        )

    def _explanation(self, v: int, explains: int) -> Explanation:
        var = self.variants[v]
        return Explanation(
            var.key, var.description, explains, int(self.contradicts[v]), var.kind, var.order
        )

    def explains(self) -> npt.NDArray[np.int64]:
        """Per variant: the disagreeing rows it explains."""
        bits, counts = self._bits()
        if not len(bits):
            return np.zeros(len(self.variants), dtype=np.int64)
        out: npt.NDArray[np.int64] = (bits * counts[:, None]).sum(axis=0)
        return out

    def ranked(self) -> list[Explanation]:
        """Variants explaining at least one disagreement, best first (see :meth:`_order`)."""
        explains = self.explains()
        order = self._order(explains)
        return [self._explanation(v, int(explains[v])) for v in order if explains[v]]

    def _cover(self, limit: int) -> list[tuple[int, int]]:
        bits, counts = self._bits()
        left = np.ones(len(bits), dtype=bool)
        out: list[tuple[int, int]] = []
        while len(out) < limit and left.any():
            gain = (bits[left] * counts[left, None]).sum(axis=0)
            v = self._order(gain)[0]
            if gain[v] <= 0 or gain[v] <= self.contradicts[v]:
                break
            out.append((v, int(gain[v])))
            left &= ~bits[:, v]
        return out

    def cover_columns(self, limit: int = 5) -> list[int]:
        """The variants of the greedy cover (:meth:`cover`), in order."""
        return [v for v, _ in self._cover(limit)]

    def uncovered(self, cover: Sequence[int]) -> int:
        """The disagreeing rows some variant explains but none of ``cover`` does."""
        bits, counts = self._bits()
        if not len(bits):
            return 0
        left = bits.any(axis=1) & ~bits[:, list(cover)].any(axis=1)
        return int(counts[left].sum())

    def cover(self, limit: int = 5) -> list[Explanation]:
        """A greedy cover: the best variant, then the best on what is left, ...
        (``explains`` counts only the newly explained rows; a variant joins only while it
        explains more than it contradicts)."""
        return [self._explanation(v, g) for v, g in self._cover(limit)]

    def order(self) -> list[int]:
        """The variants in the headline's order: the cover, then the rest as ranked."""
        head = self.cover_columns()
        explains = self.explains()
        return head + [v for v in self._order(explains) if explains[v] and v not in head]

    def headline(self) -> str:
        """One sentence naming the variant(s) that explain the disagreements, and what
        the answers depend on in the order the cards were written, if the leading cause
        does."""
        text = self._headline()
        cover = self.cover(1)
        if cover and cover[0].order:
            text += (
                "; the implementation's answers depend on the order the cards were written "
                f"({cover[0].order})"
            )
        return text

    def _headline(self) -> str:
        if self.total == 0:
            return "no disagreements"
        cover = self.cover()
        if not cover:
            return f"none of the {self.total} disagreements is explained by a known rule variant"
        explained = sum(e.explains for e in cover)

        def said(e: Explanation) -> str:
            if not e.contradicts:
                return e.description
            return f"{e.description} (contradicting {e.contradicts:,} agreeing rows)"

        if len(cover) == 1 and explained == self.total:
            noun = "disagreement is" if self.total == 1 else "disagreements are"
            return f"all {self.total} {noun} explained by: {said(cover[0])}"
        parts = "; ".join(f"{said(e)} ({e.explains})" for e in cover)
        if explained == self.total:
            return (
                f"all {self.total} disagreements are explained by {len(cover)} variants "
                f"together: {parts}"
            )
        return (
            f"{explained} of {self.total} disagreements are explained by: {parts}; "
            f"{self.total - explained} unexplained"
        )


def _pack_columns(cols: npt.NDArray[np.bool_]) -> npt.NDArray[np.uint8]:
    """``np.packbits(cols.T, axis=1)`` (C-contiguous) of a C-contiguous ``(k, n)``
    array, fast: eight rows at a time.

    >>> c = np.random.default_rng(0).random((11, 5)) < 0.5
    >>> bool((_pack_columns(c) == np.packbits(c.T, axis=1)).all())
    True
    """
    out = np.zeros(((len(cols) + 7) // 8, cols.shape[1]), dtype=np.uint8)
    for j in range(8):
        part = cols[j::8].view(np.uint8)
        out[: len(part)] |= part << np.uint8(7 - j)
    return np.ascontiguousarray(out.T)


MAX_PAIRS = 200
"""The most two-cause combinations of a scoped cause scored per kind of row."""


def combine(a: Variant, b: Variant, base: Mapping[str, Any]) -> Variant | None:
    """The two causes at once (``None`` when they cannot combine: two mistakes that do
    not both declare a stage, or of one stage; both changing one rule option
    differently). ``base``: the rule data both vary. Two mistakes combine into mistake
    ``"a+b"`` (see :func:`mistakes_of`), stage ``"sa+sb"``.

    >>> base = {"specials": ["x"], "defs": {"t": 1, "u": 1}, "k": 0}
    >>> a = Variant("a", "A", {**base, "specials": ["x", "y"]}, scope=("hand",))
    >>> b = Variant("b", "B", {**base, "defs": {"t": 2, "u": 1}}, scope=("hand",))
    >>> c = combine(a, b, base)
    >>> c.key, c.rules["specials"], c.rules["defs"], c.scope
    ('a+b', ['x', 'y'], {'t': 2, 'u': 1}, ('hand',))
    >>> combine(a, Variant("m", "M", mistake="m"), base).mistake
    'm'
    >>> m1 = Variant("mistake=s", "S", mistake="s", stage="bull")
    >>> m2 = Variant("mistake=t", "T", mistake="t", stage="tie_break")
    >>> c = combine(m1, m2, base)
    >>> c.key, c.mistake, c.stage, sorted(mistakes_of(c))
    ('mistake=s+mistake=t', 's+t', 'bull+tie_break', ['s', 't'])
    >>> combine(m1, Variant("mistake=u", "U", mistake="u", stage="bull"), base) is None
    True
    >>> combine(m1, Variant("mistake=v", "V", mistake="v"), base) is None
    True

    A key one member drops (the other keeping its base value) is dropped:

    >>> even = Variant("s=even", "E", {"s": "even", "k": 0}, scope=("showdown",))
    >>> combine(Variant("k=1", "K", {**base, "k": 1}), even, base).rules
    {'k': 1, 's': 'even'}
    """
    mistake = a.mistake or b.mistake
    stage = a.stage or b.stage
    if a.mistake is not None and b.mistake is not None:
        sa, sb = set(a.stage.split("+")) - {""}, set(b.stage.split("+")) - {""}
        if not sa or not sb or sa & sb or mistakes_of(a) & mistakes_of(b):
            return None
        mistake, stage = f"{a.mistake}+{b.mistake}", f"{a.stage}+{b.stage}"
    if set(a.options) & set(b.options):
        return None
    rules: dict[str, Any] | None = None
    if a.rules is not None or b.rules is not None:
        ra, rb = dict(a.rules or base), dict(b.rules or base)
        rules = dict(base)
        for key in (set(ra) | set(rb)) - {"name", "description"}:
            va, vb, v0 = ra.get(key, _NO), rb.get(key, _NO), base.get(key, _NO)
            if va in (v0, vb) or vb == v0:
                got = vb if va == v0 else va
                if got is _NO:
                    rules.pop(key, None)  # a member drops the key
                else:
                    rules[key] = got
            elif isinstance(v0, dict) and isinstance(va, dict) and isinstance(vb, dict):
                merged = dict(v0)
                for k in set(va) | set(vb):
                    x, y, z = va.get(k), vb.get(k), v0.get(k)
                    if x != z and y != z and x != y:
                        return None
                    merged[k] = x if x != z else y
                rules[key] = merged
            elif isinstance(v0, list) and isinstance(va, list) and isinstance(vb, list):
                got = merge_list(va, vb, v0)
                if got is None:
                    return None
                rules[key] = got
            else:
                return None
        if rules == dict(base) or (rules in (ra, rb) and a.rules is not None is not b.rules):
            return None  # nothing changed, or one member's change holds the other's
    modes = tuple(m for m in a.modes if m in b.modes)
    return Variant(
        f"{a.key}+{b.key}",
        f"{a.description} and {b.description}",
        rules,
        mistake,
        {**a.options, **b.options},
        modes,
        tuple(m for m in a.scope if m in b.scope),
        "; ".join(o for o in (a.order, b.order) if o),
        stage,
    )


_NO: Any = object()
"""A key a rule dict does not hold."""


def pairs_of(
    variants: Sequence[Variant], mode: str, base: Mapping[str, Any], structural: bool
) -> list[tuple[int, int, Variant]]:
    """The two-cause combinations scored for rows of ``mode``: a variant scoped to the
    special-ish rows of ``mode`` with another, such that the combination agrees as the
    other member does off those rows — always when the scope is ``structural`` (a shape
    of the hand, whatever the rules), else only with another scoped variant or a
    settlement option; at most :data:`MAX_PAIRS`, settlement options first. As ``(a, b,
    combined)``, ``b`` the member whose agreement holds off the scope. Then every pair
    of two mistakes that compose (:func:`mistake_pairs`). Kept per content (each verify
    makes its catalogue anew, as the last one's)."""
    try:
        said = [[getattr(v, f.name) for f in fields(v)] for v in variants]
        key = json.dumps([mode, structural, base, said], sort_keys=True)
    except (TypeError, ValueError):  # a value JSON does not say: not kept
        return _pairs_of(variants, mode, base, structural)
    if key not in _PAIRS:
        if len(_PAIRS) >= 64:
            _PAIRS.clear()
        _PAIRS[key] = _pairs_of(variants, mode, base, structural)
    return list(_PAIRS[key])


_PAIRS: dict[str, list[tuple[int, int, Variant]]] = {}
""":func:`pairs_of`'s answers, by the content of its arguments (every variant's fields)."""


def _pairs_of(
    variants: Sequence[Variant], mode: str, base: Mapping[str, Any], structural: bool
) -> list[tuple[int, int, Variant]]:
    found: list[tuple[int, int, int, Variant]] = []
    idx = [i for i, v in enumerate(variants) if mode in v.modes]
    for ai in idx:
        a = variants[ai]
        if mode not in a.scope:
            continue
        for bi in idx:
            b = variants[bi]
            if bi == ai or (mode in b.scope and bi < ai):
                continue
            option = b.rules is None and b.mistake is None
            if not (structural or option or mode in b.scope):
                continue
            c = combine(a, b, base)
            if c is not None:
                found.append((0 if option else 1, ai, bi, c))
    found.sort(key=lambda t: t[:3])
    out = [(ai, bi, c) for _, ai, bi, c in found[:MAX_PAIRS]]
    return out + mistake_pairs(variants, mode)


def mistake_pairs(variants: Sequence[Variant], mode: str) -> list[tuple[int, int, Variant]]:
    """The combinations of two mistakes of rows of ``mode`` that compose (each declares
    a ``stage``, the stages differ: :func:`combine`), as ``(a, b, combined)``. Unlike a
    scoped pair, such a pair changes answers anywhere: it is scored on every row (see
    :func:`is_mistake_pair`).

    >>> vs = [Variant("mistake=s", "S", mistake="s", stage="bull"),
    ...       Variant("mistake=t", "T", mistake="t", stage="tie_break"),
    ...       Variant("mistake=u", "U", mistake="u")]
    >>> [c.key for _, _, c in mistake_pairs(vs, "hand")]
    ['mistake=s+mistake=t']
    """
    idx = [i for i, v in enumerate(variants) if mode in v.modes and v.mistake and v.stage]
    out: list[tuple[int, int, Variant]] = []
    for ai, bi in combinations(idx, 2):
        c = combine(variants[ai], variants[bi], {})
        if c is not None and mode in c.modes:
            out.append((ai, bi, c))
    return out


def is_mistake_pair(variant: Variant) -> bool:
    """Whether a variant applies two mistakes at once (scored on every row, exactly)."""
    return len(mistakes_of(variant)) > 1


def mistake_of(variant: Variant | None) -> str | None:
    """The explicit evaluator a variant names (``None``: the rules, or no variant)."""
    return variant.mistake if variant is not None else None


def mistakes_of(variant: Variant | None) -> frozenset[str]:
    """The names of the explicit evaluators (mistakes) a variant applies, all at once:
    a combination of two mistakes has ``mistake="a+b"``.

    >>> sorted(mistakes_of(Variant("k", "K", mistake="skip+last")))
    ['last', 'skip']
    >>> mistakes_of(None), mistakes_of(Variant("a=b", "B"))
    (frozenset(), frozenset())
    """
    if variant is None or not variant.mistake:
        return frozenset()
    return frozenset(m for m in variant.mistake.split("+") if m)


def options_of(variant: Variant | None) -> Mapping[str, Any]:
    """The settlement options of a variant (none for no variant)."""
    return variant.options if variant is not None else {}


def variant_rules(
    variant: Variant | None, base: Any, make: Callable[[str, Mapping[str, Any]], Any]
) -> Any:
    """The rules object of a data variant, made by ``make(name, data)`` once per variant
    and once per content (each verify makes its catalogue's variants anew, with the same
    rule data as the last one's); ``base`` for no variant or one that is not data."""
    if variant is None or variant.rules is None:
        return base
    hit = _RULES_CACHE.get(id(variant))
    if hit is None or hit[0] is not variant:
        key = (make, base.name, json.dumps(variant.rules, sort_keys=True, default=str))
        made = _MADE.get(key)
        if made is None:
            if len(_MADE) >= 4096:
                _MADE.clear()
            made = _MADE[key] = make(base.name, variant.rules)
        hit = (variant, made)
        if len(_RULES_CACHE) >= 65_536:
            _RULES_CACHE.clear()
        _RULES_CACHE[id(variant)] = hit
    return hit[1]


_RULES_CACHE: dict[int, tuple[Variant, Any]] = {}
_MADE: dict[tuple[Any, str, str], Any] = {}
"""Rules objects made by :func:`variant_rules`, by maker, name and rule data."""


def winner_of_net(net: npt.NDArray[Any]) -> npt.NDArray[np.int64]:
    """``winner`` from the player's ``net``: 0 player (net > 0), 1 banker/dealer, 2 push."""
    return np.where(net > 0, 0, np.where(net < 0, 1, 2))
