"""Unknown patterns: the disagreements no catalogued cause explains, described as short
rules over readable features of the row (``bull verify``'s diagnosis, kind ``pattern``).

Each disagreeing row (a verify record: ``hand`` or ``player``/``banker``, the fields it
gets wrong, ``claimed`` and ``correct``) becomes a set of *atoms* — the number of cards,
one suit, a pair/trips/quads of a rank, an ace, the count of faces (J/Q/K), Tau Ngau's
[2:1]/[4:2] held, the fields wrong, and the claimed and correct value of each — and a
small greedy learner picks the conjunctions of at most two atoms that cover most of the
unexplained rows while matching as few agreeing rows as possible (agreeing rows are a
bounded sample, and the text says so). Counts over the unexplained rows are exact when
they all fit in :data:`MAX_ROWS`.

>>> recs = [{"row_type": "hand", "hand": ["AS", "5S"], "fields": ["deng"],
...          "claimed": {"deng": 1}, "correct": {"deng": 2}}] * 3
>>> for part in learn(recs, [], 3)[0].description.split("; "):
...     print(part)
3 rows: hands of 2 cards, holding an ace, of one suit
claimed deng 1, correct 2
no agreeing row has this shape
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

__all__ = ["MAX_ROWS", "MAX_SAMPLE", "Pattern", "atoms", "explain_patterns", "learn"]

MAX_ROWS = 5_000
"""Unexplained disagreeing rows kept for the learner (counts are exact up to this)."""
MAX_SAMPLE = 3_000
"""Agreeing rows kept to check that a pattern singles out the disagreements."""

_FACES = ("J", "Q", "K")
_WILD = ("[2:1]", "[4:2]")


@dataclass(frozen=True)
class Pattern:
    """A short rule: the atoms it requires, the unexplained rows it covers (exact over
    the rows kept) and the sampled agreeing rows that have the same shape."""

    atoms: tuple[str, ...]
    rows: int
    agreeing: int
    sample: int
    description: str


def _shape(hand: Sequence[str]) -> list[str]:
    """Readable atoms of a hand (cards or tiles)."""
    out = [f"hands of {len(hand)} cards"]
    if hand and all(h.startswith("[") for h in hand):
        out[0] = f"hands of {len(hand)} tiles"
        for w in _WILD:
            if w in hand:
                out.append(f"holding {w}")
        if len(set(hand)) < len(hand):
            out.append("holding a pair of tiles")
        return out
    ranks = [h[:-1] for h in hand]
    suits = {h[-1] for h in hand}
    if len(hand) > 1 and len(suits) == 1:
        out.append("of one suit")
    top = max(Counter(ranks).values(), default=0)
    if top >= 2:
        out.append(
            {2: "holding a pair", 3: "holding three of a kind"}.get(top, "holding four of a kind")
        )
    if "A" in ranks:
        out.append("holding an ace")
    faces = sum(r in _FACES for r in ranks)
    if faces:
        out.append(f"with {faces} face{'s' if faces > 1 else ''}")
    return out


def _value(v: Any) -> str:
    if isinstance(v, list):
        return " ".join(str(x) for x in v)
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def atoms(rec: Mapping[str, Any]) -> frozenset[str]:
    """The readable atoms of a verify record."""
    out: list[str] = []
    if rec.get("row_type") == "showdown" or "player" in rec:
        out.append("showdowns")
        out += [f"player {a}" for a in _shape(rec.get("player") or [])[1:]]
    else:
        out += _shape(rec.get("hand") or [])
    claimed, correct = rec.get("claimed") or {}, rec.get("correct") or {}
    for f in rec.get("fields", ()):
        if f in claimed and f in correct and not isinstance(correct[f], (dict, list)):
            out.append(f"claimed {f} {_value(claimed[f])}, correct {_value(correct[f])}")
        else:
            out.append(f"{f} wrong")
    for f in ("category", "type"):
        if f in correct and f not in rec.get("fields", ()):
            out.append(f"{f} {correct[f]}")
    return frozenset(out)


def _order(a: str) -> tuple[int, str]:
    first = a.startswith(("hands of", "showdowns"))
    claims = a.startswith(("claimed", "category", "type")) or a.endswith("wrong")
    return (0 if first else 2 if claims else 1, a)


def _describe(conj: tuple[str, ...], rows: int, agreeing: int, sample: int) -> str:
    parts = sorted(conj, key=_order)
    shape = [p for p in parts if _order(p)[0] < 2]
    claims = [p for p in parts if _order(p)[0] == 2]
    text = f"{rows:,} rows: " + ", ".join(shape or ["rows"])
    if claims:
        text += "; " + "; ".join(claims)
    if agreeing == 0:
        text += "; no agreeing row has this shape"
        if sample:
            text += f" (of {sample:,} agreeing rows sampled)"
    else:
        text += f"; {agreeing:,} of {sample:,} agreeing rows sampled have it too"
    return text


def learn(
    unexplained: Sequence[Mapping[str, Any]],
    agreeing: Sequence[Mapping[str, Any]],
    total: int,
    limit: int = 3,
) -> list[Pattern]:
    """At most ``limit`` patterns covering the ``unexplained`` records (the first of
    ``total`` unexplained rows), best first; ``agreeing``: sampled agreeing records. A
    pattern is a conjunction of at most four atoms: the one matching the fewest agreeing
    rows, then covering the most rows, then the most specific; it is described with
    every atom all its rows share. (Rows are bit masks per atom, so a rule is counted
    with a few big-integer ANDs.)"""
    rows = [atoms(r) for r in unexplained]
    good = [atoms(r) for r in agreeing]
    mask: dict[str, int] = {}
    for i, r in enumerate(rows):
        for a in r:
            mask[a] = mask.get(a, 0) | (1 << i)
    gmask: dict[str, int] = {}
    for i, shape in enumerate(good):
        for a in shape:
            gmask[a] = gmask.get(a, 0) | (1 << i)
    every_good = (1 << len(good)) - 1
    left = (1 << len(rows)) - 1
    out: list[Pattern] = []
    while left and len(out) < limit:
        seen: Counter[tuple[str, ...]] = Counter()
        taken = 0
        for i in range(len(rows)):
            if left >> i & 1:
                items = sorted(rows[i], key=_order)
                for k in range(1, min(4, len(items)) + 1):
                    seen.update(combinations(items, k))
                taken += 1
                if taken >= _CANDIDATE_ROWS:
                    break
        best = None
        n_left = left.bit_count()
        for conj, _ in seen.most_common(_CANDIDATES):
            m, g = left, every_good
            for a in conj:
                m &= mask.get(a, 0)
                g &= gmask.get(a, 0)
            n, hits = m.bit_count(), g.bit_count()
            key = (hits, -n, -len(conj))
            if best is None or key < best[0]:
                best = (key, conj, n, hits, m)
        if best is None or best[2] < max(2, n_left // 100):
            break
        _, conj, n, hits, m = best
        conj = tuple(sorted({*conj, *(a for a, am in mask.items() if am & m == m)}, key=_order))
        text = _describe(conj, n, hits, len(good))
        if len(rows) < total:
            text += f" (counted in the first {len(rows):,} of {total:,} unexplained rows)"
        out.append(Pattern(conj, n, hits, len(good), text))
        left &= ~m
    return out


_CANDIDATE_ROWS = 2_000
"""Rows the candidate rules are drawn from (each is then counted over every row kept)."""
_CANDIDATES = 2_000


def explain_patterns(
    unexplained: Sequence[Mapping[str, Any]], agreeing: Sequence[Mapping[str, Any]], total: int
) -> list[Any]:
    """The learned patterns as diagnosis entries (kind ``pattern``, id ``pattern=N``;
    ``contradicts``: the sampled agreeing rows of the same shape)."""
    from solver.kit.diagnosis import Explanation

    if not unexplained:
        return []
    found = learn(unexplained, agreeing, total)
    return [
        Explanation(f"pattern={k + 1}", p.description, p.rows, p.agreeing, "pattern")
        for k, p in enumerate(found)
    ]
