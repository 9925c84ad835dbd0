"""Unknown patterns: the disagreements no catalogued cause explains, described as short
rules over readable features of the row (``bull verify``'s diagnosis, kind ``pattern``).

Each disagreeing row (a verify record: ``hand`` or ``player``/``banker``, the fields it
gets wrong, ``claimed`` and ``correct``) becomes a set of *atoms* — the number of cards,
one suit, a pair/trips/quads of a rank, an ace, the count of faces (J/Q/K), Tau Ngau's
[2:1]/[4:2] held, the fields wrong, and the claimed and correct value of each — and a
small greedy learner picks the conjunctions of at most four atoms that cover most of the
unexplained rows while matching as few agreeing rows as possible.

Every count is exact, over every row of the file, in bounded memory: the atoms are
categorical, so the verifier streams the rows into two counters keyed by a row's atom
set (:func:`count_atoms`) — one of the unexplained disagreeing rows, one of the agreeing
rows — whose sizes are the number of distinct shapes, not of rows; the learner then
counts each candidate rule over the counters. A game can count its agreeing rows
without a record per row, vectorised: :func:`card_atom_counts`.

>>> recs = [{"row_type": "hand", "hand": ["AS", "5S"], "fields": ["deng"],
...          "claimed": {"deng": 1}, "correct": {"deng": 2}}] * 3
>>> good = count_atoms([{"hand": ["AS", "5H"], "fields": [], "correct": {}}] * 4)
>>> for part in learn(count_atoms(recs), good)[0].description.split("; "):
...     print(part)
3 rows: hands of 2 cards, holding an ace, of one suit
claimed deng 1, correct 2
no agreeing row has this shape
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "Pattern",
    "ShapeCounts",
    "atoms",
    "card_atom_counts",
    "claim_codes",
    "count_atoms",
    "explain_patterns",
    "join_extras",
    "learn",
    "showdown_claim_codes",
    "split_extras",
]

Shapes = Counter[frozenset[str]]
"""Rows counted by their atom set."""

_FACES = ("J", "Q", "K")
_WILD = ("[2:1]", "[4:2]")


@dataclass(frozen=True)
class Pattern:
    """A short rule: the atoms it requires, the unexplained rows it covers and the
    agreeing rows that have the same shape (of ``agreeing_total``), all exact."""

    atoms: tuple[str, ...]
    rows: int
    agreeing: int
    agreeing_total: int
    description: str


def _shape(hand: Sequence[str]) -> list[str]:
    """Readable atoms of a hand (cards or tiles)."""
    out = [f"hands of {len(hand)} cards"]
    if hand and all(h.startswith("[") for h in hand):  # tiles
        out[0] = f"hands of {len(hand)} tiles"
        for w in _WILD:
            if w in hand:
                out.append(f"holding {w}")
        if len(set(hand)) < len(hand):
            out.append("holding a pair of tiles")
        return out
    ranks = [h[:-1] for h in hand]
    suits = {h[-1] for h in hand}
    top = max(Counter(ranks).values(), default=0)
    return out + _card_atoms(len(hand) > 1 and len(suits) == 1, top, "A" in ranks, _faces_of(ranks))


def _faces_of(ranks: Iterable[str]) -> int:
    return sum(r in _FACES for r in ranks)


def _card_atoms(one_suit: bool, top: int, ace: bool, faces: int) -> list[str]:
    """The atoms of a card hand after its size (one spelling for records and codes)."""
    out = ["of one suit"] if one_suit else []
    if top >= 2:
        out.append(
            {2: "holding a pair", 3: "holding three of a kind"}.get(top, "holding four of a kind")
        )
    if ace:
        out.append("holding an ace")
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


def count_atoms(records: Iterable[Mapping[str, Any]]) -> Shapes:
    """Verify records counted by their atom set."""
    return Counter(atoms(r) for r in records)


Extra = tuple[npt.NDArray[np.int64], Sequence[str | None]]
"""Per row a code into atom names (``None``: no atom), e.g. from :func:`claim_codes`."""


def card_atom_counts(
    ids: npt.NDArray[np.integer],
    *,
    showdown: bool = False,
    extras: Sequence[Extra] = (),
    pad: int = 255,
    weights: npt.NDArray[np.int64] | None = None,
) -> Shapes:
    """Rows of card hands (card ids ``rank * 4 + suit``, ``pad`` = no card) counted by
    their atom set, vectorised: the atoms :func:`atoms` reads from the rows' records —
    a hand row's shape, or with ``showdown`` a showdown row's player's — plus, per
    ``(codes, names)`` of ``extras``, the atom ``names[codes[i]]`` of row ``i`` (e.g.
    ``category niu_7``, or a wrong claim: :func:`claim_codes`). ``weights``: row ``i``
    counted ``weights[i]`` times (exact below 2**53 in all).

    >>> ids = np.array([[0, 4, 17, 255, 255], [0, 1, 44, 48, 40]], dtype=np.uint8)
    >>> c = card_atom_counts(ids)
    >>> c == count_atoms([{"hand": ["AS", "2S", "5H"]}, {"hand": ["AS", "AH", "QS", "KS", "JS"]}])
    True
    """
    c = np.asarray(ids, dtype=np.uint8)
    if not len(c):
        return Counter()
    width = c.shape[1]
    held = c != pad
    # a column at a time (reductions along rows of a few cards are slower)
    n = np.zeros(len(c), dtype=np.int64)
    for j in range(width):
        n += held[:, j]
    # ranks, an absent card a distinct value of its own (never equal to another)
    rank = np.where(held, c >> 2, np.arange(100, 100 + width, dtype=np.uint8))
    suit = c & 3
    first_suit = suit[np.arange(len(c)), np.argmax(held, axis=1)]
    one_suit = n > 1
    ace = np.zeros(len(c), dtype=bool)
    faces = np.zeros(len(c), dtype=np.int64)
    for j in range(width):
        one_suit &= (suit[:, j] == first_suit) | ~held[:, j]
        ace |= rank[:, j] == 0
        faces += (rank[:, j] >= 10) & held[:, j]
    ordered = np.ones(len(c), dtype=bool)  # rows of ranks in order already (a sorted hand)
    for j in range(width - 1):
        ordered &= rank[:, j] <= rank[:, j + 1]
    srt = rank if ordered.all() else np.sort(rank, axis=1)
    top = np.ones(len(c), dtype=np.int64)  # the longest run of one rank
    run = np.zeros(len(c), dtype=np.int64)
    for j in range(width - 1):
        run = np.where(srt[:, j + 1] == srt[:, j], run + 1, 0)
        np.maximum(top, run + 1, out=top)
    code = ((((faces * 2 + ace) * 16 + top) * 2 + one_suit) * 16) + n
    code = join_extras(code, extras)
    if int(code.min()) >= 0 and int(code.max()) < max(_DENSE, 4 * len(code)):  # a table
        hit = np.bincount(code)
        uniq = np.flatnonzero(hit)
        counts = hit[uniq]
        if weights is not None:
            counts = np.rint(np.bincount(code, weights=weights)[uniq]).astype(np.int64)
    elif weights is None:
        uniq, counts = np.unique(code, return_counts=True)
    else:
        uniq, inv = np.unique(code, return_inverse=True)
        summed = np.bincount(inv.ravel(), weights=weights, minlength=len(uniq))
        counts = np.rint(summed).astype(np.int64)
    out: Shapes = Counter()
    for k, cnt in zip(uniq.tolist(), counts.tolist(), strict=True):
        k, got = split_extras(k, extras)
        size, k = k % 16, k // 16
        one, k = bool(k % 2), k // 2
        t, k = k % 16, k // 16
        a, f = bool(k % 2), k // 2
        shape = _card_atoms(one, t, a, f)
        if showdown:
            got += ["showdowns", *(f"player {x}" for x in shape)]
        else:
            got += [f"hands of {size} cards", *shape]
        out[frozenset(got)] += cnt
    return out


def join_extras(code: npt.NDArray[np.int64], extras: Sequence[Extra]) -> npt.NDArray[np.int64]:
    """Per row, ``code`` (a shape's) and the codes of ``extras`` as one integer (mixed
    radix), read back by :func:`split_extras`.

    >>> extra = (np.array([1, 0]), [None, "a"])
    >>> [split_extras(k, [extra]) for k in join_extras(np.array([3, 5]), [extra]).tolist()]
    [(3, ['a']), (5, [])]
    """
    for codes, names in extras:
        code = code * len(names) + np.asarray(codes, dtype=np.int64)
    return code


def split_extras(k: int, extras: Sequence[Extra]) -> tuple[int, list[str]]:
    """An integer of :func:`join_extras`: the shape's code and the extras' atoms."""
    got: list[str] = []
    for _, names in reversed(extras):
        k, e = divmod(k, len(names))
        if names[e] is not None:
            got.append(str(names[e]))
    return k, got


_DENSE = 1 << 16
"""Atom-set codes below which (or below four per row) rows are counted in a table of
every code, without a sort."""


def claim_codes(
    field: str, wrong: npt.NDArray[np.bool_], claimed: npt.NDArray[Any], correct: npt.NDArray[Any]
) -> Extra:
    """The atom :func:`atoms` makes of a wrong claim (``claimed F X, correct Y``) per row,
    as codes into names (0: the claim is not wrong); ``claimed``/``correct``: the values
    as the records state them (bool, int, float or text).

    >>> codes, names = claim_codes("deng", np.array([True, False, True]),
    ...                            np.array([1, 2, 1]), np.array([2, 2, 3]))
    >>> [names[k] for k in codes]
    ['claimed deng 1, correct 2', None, 'claimed deng 1, correct 3']
    """
    idx = np.flatnonzero(wrong)
    codes = np.zeros(len(wrong), dtype=np.int64)
    if not len(idx):
        return codes, [None]
    uc, ic = np.unique(np.asarray(claimed)[idx], return_inverse=True)
    uk, ik = np.unique(np.asarray(correct)[idx], return_inverse=True)
    pair, inv = np.unique(ic.ravel() * len(uk) + ik.ravel(), return_inverse=True)
    codes[idx] = inv.ravel() + 1
    names: list[str | None] = [None]
    for p in pair.tolist():
        x, y = uc[p // len(uk)].item(), uk[p % len(uk)].item()
        names.append(f"claimed {field} {_value(x)}, correct {_value(y)}")
    return codes, names


def showdown_claim_codes(
    sel: npt.NDArray[np.int64],
    stated: Mapping[str, npt.NDArray[np.bool_]],
    agree: Mapping[str, npt.NDArray[np.bool_]],
    claimed: Mapping[str, npt.NDArray[Any]],
    correct: Mapping[str, Any],
    winners: Sequence[str],
    int_net: bool = False,
) -> list[Extra]:
    """The wrong ``winner`` and ``net`` claims of showdown rows ``sel`` as the records
    state them (:func:`claim_codes`): a winner by its name (codes into ``winners``), a
    claimed net as a number, ours as a number too (``int_net``: as an integer).

    >>> codes, names = showdown_claim_codes(
    ...     np.array([0, 1]), {"net": np.array([True, True])}, {"net": np.array([False, True])},
    ...     {"net": np.array([2, 1])}, {"net": np.array([1, 1])}, ("player", "dealer", "push"),
    ...     int_net=True)[0]
    >>> [names[k] for k in codes]
    ['claimed net 2.0, correct 1', None]
    """
    extras, names = [], np.array(winners)
    for f in ("winner", "net"):
        if f in stated:
            wrong = stated[f][sel] & ~agree[f][sel]
            got, want = claimed[f][sel], np.asarray(correct[f])[sel]
            if f == "winner":
                got, want = names[np.clip(got, 0, len(names) - 1)], names[want]
            else:
                got = got.astype(np.float64)
                want = want.astype(np.int64 if int_net else np.float64)
            extras.append(claim_codes(f, wrong, got, want))
    return extras


def _is_claim(a: str) -> bool:
    """An atom of what a row gets wrong (no agreeing row has one)."""
    return a.startswith("claimed ") or a.endswith(" wrong")


def _describe(conj: tuple[str, ...], rows: int, agreeing: int, total: int) -> str:
    parts = sorted(conj, key=_order)
    shape = [p for p in parts if _order(p)[0] < 2]
    claims = [p for p in parts if _order(p)[0] == 2]
    text = f"{rows:,} rows: " + ", ".join(shape or ["rows"])
    if claims:
        text += "; " + "; ".join(claims)
    if agreeing == 0:
        text += "; no agreeing row has this shape"
    else:
        text += f"; {agreeing:,} of {total:,} agreeing rows have this shape too"
    return text


def learn(unexplained: Shapes, agreeing: Shapes, limit: int = 3) -> list[Pattern]:
    """At most ``limit`` patterns covering the ``unexplained`` rows, best first, exact
    over both counters (rows by atom set; ``agreeing``: every agreeing row). A pattern
    is a conjunction of at most four atoms: the one covering the most rows less the
    agreeing rows of its shape (its atoms but the claims), then matching the fewest
    agreeing rows, then the most specific; it is described with every atom all its rows
    share, and the agreeing rows of that shape are counted. (The distinct atom sets are
    rows of a boolean matrix over the atoms: a rule is counted with vectorised column
    tests.)"""
    sets = [s for s, c in unexplained.items() if c > 0]
    if not sets:
        return []
    vocab = sorted({a for s in sets for a in s}, key=_order)
    col = {a: i for i, a in enumerate(vocab)}
    um = np.zeros((len(sets), len(vocab)), dtype=bool)
    for i, s in enumerate(sets):
        um[i, [col[a] for a in s]] = True
    uw = np.array([unexplained[s] for s in sets], dtype=np.int64)
    good = [s for s, c in agreeing.items() if c > 0 and s & col.keys()]
    gm = np.zeros((len(good), len(vocab)), dtype=bool)
    for i, s in enumerate(good):
        gm[i, [col[a] for a in s if a in col]] = True
    gw = np.array([agreeing[s] for s in good], dtype=np.int64)
    agreeing_total = sum(agreeing.values())
    shape_col = np.array([not _is_claim(a) for a in vocab], dtype=bool)

    def shape_hits(conj: Sequence[int]) -> int:
        """The agreeing rows having the shape of a rule: its atoms but the claims (an
        agreeing row claims nothing wrong)."""
        cols = [a for a in conj if shape_col[a]]
        if not cols:
            return agreeing_total
        return int(gw[gm[:, cols].all(axis=1)].sum()) if len(good) else 0

    left = np.ones(len(sets), dtype=bool)
    out: list[Pattern] = []
    while left.any() and len(out) < limit:
        seen: Counter[tuple[int, ...]] = Counter()
        by_count = sorted(np.flatnonzero(left).tolist(), key=lambda i: -int(uw[i]))
        for i in by_count[:_CANDIDATE_SETS]:
            items = np.flatnonzero(um[i]).tolist()  # in vocabulary (_order) order
            for k in range(1, min(4, len(items)) + 1):
                for conj in combinations(items, k):
                    seen[conj] += int(uw[i])
        best = None
        n_left = int(uw[left].sum())
        for conj, _ in seen.most_common(_CANDIDATES):
            m = left & um[:, list(conj)].all(axis=1)
            n = int(uw[m].sum())
            hits = shape_hits(conj)
            key = (hits - n, hits, -len(conj))
            if best is None or key < best[0]:
                best = (key, conj, n, hits, m)
        if best is None or best[2] < max(2, n_left // 100):
            break
        _, conj, n, hits, m = best
        shared = np.flatnonzero(um[m].all(axis=0)).tolist()
        every = tuple(sorted({*conj, *shared}))
        hits = shape_hits(every)
        names = tuple(sorted((vocab[a] for a in every), key=_order))
        text = _describe(names, n, hits, agreeing_total)
        out.append(Pattern(names, n, hits, agreeing_total, text))
        left &= ~m
    return out


_CANDIDATE_SETS = 500
"""Distinct atom sets (the most frequent left) the candidate rules are drawn from; each
candidate is then counted over every row."""
_CANDIDATES = 2_000


def explain_patterns(unexplained: Shapes, agreeing: Shapes) -> list[Any]:
    """The learned patterns as diagnosis entries (kind ``pattern``, id ``pattern=N``;
    ``contradicts``: the agreeing rows of the same shape, exact)."""
    from solver.kit.diagnosis import Explanation

    if not unexplained:
        return []
    found = learn(unexplained, agreeing)
    return [
        Explanation(f"pattern={k + 1}", p.description, p.rows, p.agreeing, "pattern")
        for k, p in enumerate(found)
    ]


class ShapeCounts:
    """What a verify run keeps for the pattern learner, exactly over every row: the
    unexplained disagreeing rows and the agreeing rows, counted by atom set (the
    unexplained ones vectorised when ``record`` offers ``lost_counts(rows)``). Agreeing
    rows are counted only from the first group of rows holding an unexplained one
    (before, nothing may need them), vectorised when the game's ``record`` offers
    ``atom_counts(rows)`` (see :func:`card_atom_counts`), else from their records; the
    groups left (those before, or without ``atom_counts``) are counted in a second pass
    over the file, needed only if some row is unexplained."""

    def __init__(self) -> None:
        self.unexplained: Shapes = Counter()
        self.agreeing: Shapes = Counter()
        self.groups = 0
        """Groups of rows seen in the first pass."""
        self.start: int | None = None
        """The first group counted in the first pass (``None``: none yet)."""
        self.by_record = False
        """Whether some group's agreeing rows need their records (the second pass)."""
        self.again = 0
        """Groups seen in the second pass."""

    def add(self, record: Any, lost: npt.NDArray[np.int64], ok: npt.NDArray[np.int64]) -> None:
        """A checked group: ``record(i)`` a row's record, ``lost`` its unexplained
        disagreeing rows, ``ok`` its agreeing rows."""
        self._add_lost(record, lost)
        if self.start is None and len(lost):
            self.start = self.groups
        self.groups += 1
        if self.start is None:
            return
        counts = getattr(record, "atom_counts", None)
        if counts is not None:
            self.agreeing.update(counts(ok))
        else:
            self.by_record = True

    def _add_lost(self, record: Any, lost: npt.NDArray[np.int64]) -> None:
        lost_counts = getattr(record, "lost_counts", None)
        if lost_counts is not None and len(lost):
            self.unexplained.update(lost_counts(lost))
        else:
            self.unexplained.update(atoms(record(int(i))) for i in lost.tolist())

    def restart(self) -> None:
        """Count anew, every group's rows (:meth:`add_all`): a pass over the file for the
        rows the diagnosis's final cover leaves unexplained."""
        self.unexplained, self.agreeing = Counter(), Counter()

    def add_all(self, record: Any, lost: npt.NDArray[np.int64], ok: npt.NDArray[np.int64]) -> None:
        """A group of the pass after :meth:`restart`: its unexplained and agreeing rows."""
        self._add_lost(record, lost)
        counts = getattr(record, "atom_counts", None)
        if counts is not None:
            self.agreeing.update(counts(ok))
        else:
            self.agreeing.update(atoms(record(int(i))) for i in ok.tolist())

    def needs_pass(self) -> bool:
        return bool(self.unexplained) and (self.by_record or bool(self.start))

    def add_agreeing(self, record: Any, ok: npt.NDArray[np.int64]) -> None:
        """The second pass: a group's agreeing rows the first pass did not count."""
        g, self.again = self.again, self.again + 1
        if not self.needs_pass():
            return
        counts = getattr(record, "atom_counts", None)
        if self.start is not None and g >= self.start and counts is not None:
            return  # counted in the first pass
        if counts is not None:
            self.agreeing.update(counts(ok))
        else:
            self.agreeing.update(atoms(record(int(i))) for i in ok.tolist())

    def patterns(self) -> list[Any]:
        """The learned patterns as diagnosis entries (:func:`explain_patterns`)."""
        return explain_patterns(self.unexplained, self.agreeing)
