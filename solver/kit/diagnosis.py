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
diagnosis module, named by ``mistake``. Settlement variants (another bet, commission)
are ``options``.

A variant *explains* a disagreeing row when every claim the row states equals that
variant's answer. To break ties it is also checked against a sample of agreeing rows
(every row whose hand is special-ish, plus the first rows read): a variant that
would contradict claims which agree with the real rules ranks lower.

What the rule-variant diagnosis shares across games: a :class:`Variant`, the
:class:`Catalogue` a game builds its variants in, the rules object of a data variant
(:func:`variant_rules`), and the :class:`Tally` that ranks the variants by the
disagreements they explain. The games' catalogues and evaluators are in
:mod:`solver.games.niuniu.diagnose`, :mod:`solver.games.taungau.diagnose` and
:mod:`solver.games.pokdeng.diagnose`.

>>> t = Tally([Variant("a", "A"), Variant("b", "B")])
>>> t.add(np.array([[True, False], [False, True], [True, False]]))
>>> t.headline()
'all 3 disagreements are explained by 2 variants together: A (2); B (1)'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "DIAGNOSE_LIMIT",
    "Catalogue",
    "Explanation",
    "Tally",
    "Variant",
    "mistake_of",
    "options_of",
    "variant_rules",
    "winner_of_net",
]

DIAGNOSE_LIMIT = 250_000
"""Disagreeing rows re-checked against the catalogue (later ones are counted only)."""


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
        **options: Any,
    ) -> None:
        if self.mode == "all" or self.mode in modes:
            self.append(Variant(key, desc, data, mistake, options, modes))

    def add_mistake(
        self,
        mistake: str,
        desc: str,
        modes: tuple[str, ...] = ("hand", "showdown"),
        key: str | None = None,
    ) -> None:
        """A mistake (an explicit evaluator), keyed ``mistake=NAME`` unless ``key``."""
        self.add(key or f"mistake={mistake}", desc, mistake=mistake, modes=modes)


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


def mistake_of(variant: Variant | None) -> str | None:
    """The explicit evaluator a variant names (``None``: the rules, or no variant)."""
    return variant.mistake if variant is not None else None


def options_of(variant: Variant | None) -> Mapping[str, Any]:
    """The settlement options of a variant (none for no variant)."""
    return variant.options if variant is not None else {}


def variant_rules(
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


def winner_of_net(net: npt.NDArray[Any]) -> npt.NDArray[np.int64]:
    """``winner`` from the player's ``net``: 0 player (net > 0), 1 banker/dealer, 2 push."""
    return np.where(net > 0, 0, np.where(net < 0, 1, 2))
