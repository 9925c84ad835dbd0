"""Learning the Pok Deng rule language from hand claims (issue 22): the second stage of
``bull verify pokdeng FILE --infer``, after the search over the catalogue's rule
variants.

A hand row claims a type (``category``) and a ``deng``; the rule set gives each hand
the first of its types (:mod:`~solver.games.pokdeng.language`) whose predicate holds.
Where the claims disagree, the learner adds a **type** — a name, a predicate and a deng —
at a place in the list:

- The disagreeing hands are grouped by the type they claim, and within it by the deng:
  one group paid by kind (``deng = "kind"``) when every hand of the type claims its
  kind's deng, else one group per deng claimed. Larger groups (by rows) go first.
- For a group, the predicate is searched smallest first — single conditions, then
  conjunctions of two, then three — among the conditions every hand of the group
  satisfies (a number's tightest bounds, a test that holds on all of them, the range of
  ranks they hold). A conjunction **fits** when, placed just before the first type that
  takes a hand of the group now (the lowest precedence that gives the group the new
  type), it changes no agreeing row; among the fits of the smallest size, the one that
  matches the fewest classes of hands. The place is the precedence: "J-Q-K tested as
  pictures before the straight test" is ``sam_lueang when faces == 3`` placed before the
  straights.
- A type no hand of the deck takes any more is dropped (it changes no hand).

Every learned type passes the significance gate of :mod:`solver.kit.lesson`: 0
contradictions and a description-length saving, less ``log2`` of how many candidates
the search could have picked, of at least :data:`~solver.kit.infer.THRESHOLD_BITS` (20
bits); one that fails is *rejected* with its support, and an adopted one carries its
``support`` into the inferred rule file.

Everything a predicate looks at (points, faces, kind, pair, suited, straights, the rank
set) is a function of a hand's ranks and whether it is of one suit, so rows are counted
per such class of hands: 169 classes of two cards, 741 of three.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from math import comb
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.core.errors import RulesError
from solver.games.pokdeng.language import (
    TYPE_NAMES,
    TypeDef,
    classify_types,
    evaluate,
    expand_keys,
    features,
    parse_type_predicate,
    show,
)
from solver.games.pokdeng.rules import PokDengRules, load_rules
from solver.kit.lesson import Item, Lesson, gate
from solver.kit.predicate import RANKS

__all__ = ["MAX_CONDITIONS", "HandRows", "learn", "learn_types", "read_hand_rows"]

MAX_CONDITIONS = 3
"""The most conditions a learned predicate joins with ``and``."""
_NO_DENG = 10
"""The deng index of a claim no rule set pays (0: not claimed; 1..9 a deng)."""


@dataclass(frozen=True)
class HandRows:
    """A claims file's hand rows as the learner needs them: the rows whose every claim
    parses and whose points (when claimed) are right (a type cannot change points)."""

    cards: npt.NDArray[np.uint8]
    """(n, 3) card ids, the third 255 for two cards."""
    size: npt.NDArray[np.int8]
    type: npt.NDArray[np.int64]
    """The claimed type's code (:data:`TYPE_NAMES` index), -1 when not claimed."""
    deng: npt.NDArray[np.int64]
    """The claimed deng, -1 when not claimed."""


def read_hand_rows(
    path: str, fmt: str, columns: Mapping[str, str], batch_size: int, rules: PokDengRules
) -> HandRows:
    """The hand rows of a claims file (the same readers as ``bull verify``)."""
    from solver.games.pokdeng.hands import classify
    from solver.games.pokdeng.verify import _pd_labels
    from solver.kit.parse import parse_card_hands, parse_int, parse_label
    from solver.kit.read import read_chunks

    _, _, chunks = read_chunks(path, fmt, columns, batch_size)
    labels = _pd_labels()
    parts: list[tuple[Any, ...]] = []
    for chunk in chunks:
        cols = chunk.columns
        if "hand" not in cols:
            continue
        n = len(cols["hand"])
        h = parse_card_hands(cols["hand"], (2, 3), copies=rules.decks)
        ok = h.stated & ~h.bad
        claims: dict[str, npt.NDArray[np.int64]] = {}
        for key in ("category", "deng", "points"):
            if key in cols:
                arr = cols[key]
                p = parse_label(arr, "type", labels) if key == "category" else parse_int(arr, key)
                ok &= ~p.bad
                claims[key] = np.where(p.stated, np.asarray(p.value, dtype=np.int64), -1)
            else:
                claims[key] = np.full(n, -1, dtype=np.int64)
        if "points" in cols:  # a row whose points are wrong never agrees: left out
            for k in (2, 3):
                sel = np.flatnonzero(ok & (h.size == k) & (claims["points"] >= 0))
                if len(sel):
                    pts = classify(h.ids[sel, :k], rules)[1].astype(np.int64)
                    ok[sel[pts != claims["points"][sel]]] = False
        parts.append((h.ids[ok], h.size[ok], claims["category"][ok], claims["deng"][ok]))
    if not parts:
        z = np.zeros(0, dtype=np.int64)
        return HandRows(np.zeros((0, 3), dtype=np.uint8), z.astype(np.int8), z, z)
    return HandRows(
        np.concatenate([p[0] for p in parts]).astype(np.uint8),
        np.concatenate([p[1] for p in parts]).astype(np.int8),
        np.concatenate([p[2] for p in parts]),
        np.concatenate([p[3] for p in parts]),
    )


# ---------------------------------------------------------------- classes of hands


@dataclass(frozen=True)
class _Classes:
    """The classes of hands (ranks and one suit or not): a representative of each, by
    size, and the features the vocabulary reads."""

    reps: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]
    """Representatives of two and of three cards (class ids: two-card ones first)."""
    feats: tuple[dict[str, npt.NDArray[Any]], dict[str, npt.NDArray[Any]]]

    @property
    def k(self) -> int:
        return len(self.reps[0]) + len(self.reps[1])

    def truth(self, text: str) -> npt.NDArray[np.bool_]:
        """A predicate over every class."""
        e = parse_type_predicate(text)
        return np.concatenate([np.asarray(evaluate(e, f), dtype=bool) for f in self.feats])

    def number(self, word: str) -> npt.NDArray[np.int64]:
        return np.concatenate([np.asarray(f[word], dtype=np.int64) for f in self.feats])

    def answers(
        self, types: Sequence[TypeDef], rules: PokDengRules
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Each class's type code, deng and the index of the type that takes it
        (``len(types)``: none)."""
        t, d, at = [], [], []
        for reps in self.reps:
            code, _, deng = classify_types(reps, types, rules.deng, rules.flush_with_identical)
            t.append(code.astype(np.int64))
            d.append(deng.astype(np.int64))
            f = features(reps)
            pos = np.full(len(reps), len(types), dtype=np.int64)
            for i in reversed(range(len(types))):
                pos[np.asarray(evaluate(parse_type_predicate(types[i].when), f), dtype=bool)] = i
            at.append(pos)
        return np.concatenate(t), np.concatenate(d), np.concatenate(at)


def _keys(cards: npt.NDArray[np.integer], size: int) -> npt.NDArray[np.int64]:
    c = np.asarray(cards, dtype=np.int64)[:, :size]
    r = np.sort(c >> 2, axis=1)
    suited = ((c & 3) == (c[:, :1] & 3)).all(axis=1)
    key = np.zeros(len(c), dtype=np.int64)
    for j in range(size):
        key = key * 13 + r[:, j]
    return np.asarray(key * 2 + suited, dtype=np.int64)


def _classes(rows: HandRows, rules: PokDengRules) -> tuple[_Classes, npt.NDArray[np.int64]]:
    """The classes of every hand of the deck (one deck or a shoe), and each row's."""
    from solver.games.pokdeng.hands import all_hands, all_shoe_hands

    reps, feats, cls = [], [], np.zeros(len(rows.size), dtype=np.int64)
    offset = 0
    for size in (2, 3):
        every = all_shoe_hands(size) if rules.decks > 1 else all_hands(size)
        keys, first = np.unique(_keys(every, size), return_index=True)
        rep = np.asarray(every[first], dtype=np.int64)
        sel = np.flatnonzero(rows.size == size)
        cls[sel] = offset + np.searchsorted(keys, _keys(rows.cards[sel], size))
        reps.append(rep)
        feats.append(features(rep))
        offset += len(rep)
    return _Classes((reps[0], reps[1]), (feats[0], feats[1])), cls


def _atoms(c: _Classes, on: npt.NDArray[np.bool_]) -> list[tuple[str, npt.NDArray[np.bool_]]]:
    """The conditions of the vocabulary every class in ``on`` satisfies, in the
    vocabulary's order."""
    out: list[tuple[str, npt.NDArray[np.bool_]]] = []
    for v in ("pair", "suited"):
        x = c.truth(v)
        if x[on].all():
            out.append((v, x))
        elif not x[on].any():
            out.append((f"not {v}", ~x))
    for ace in ("low", "high", "both"):
        x = c.truth(f"straight({ace})")
        if x[on].all():
            out.append((f"straight({ace})", x))
    ranks = np.concatenate([f["rank"].min(axis=1) for f in c.feats])
    tops = np.concatenate([f["rank"].max(axis=1) for f in c.feats])
    lo, hi = int(ranks[on].min()), int(tops[on].max())
    if (lo, hi) != (0, 12):
        text = f'all_in("{RANKS[lo]}-{RANKS[hi]}")'
        out.append((text, c.truth(text)))
    for v in ("cards", "points", "faces", "kind"):
        num = c.number(v)
        a, b = int(num[on].min()), int(num[on].max())
        if a == b:
            out.append((f"{v} == {a}", num == a))
            continue
        if a > int(num.min()):
            out.append((f"{v} >= {a}", num >= a))
        if b < int(num.max()):
            out.append((f"{v} <= {b}", num <= b))
    return out


# ---------------------------------------------------------------- learning types


class _Claims:
    """Rows counted per class by the (type, deng) they claim."""

    def __init__(self, rows: HandRows, cls: npt.NDArray[np.int64], k: int) -> None:
        t = rows.type + 1  # 0: not claimed
        d = np.where(rows.deng < 0, 0, np.where(rows.deng <= 9, rows.deng, _NO_DENG))
        flat = (cls * 7 + t) * 11 + d
        self.counts = np.bincount(flat, minlength=k * 77).reshape(k, 7, 11)
        self.total = self.counts.sum(axis=(1, 2))
        self.n = len(rows.size)

    def agree(self, t: npt.NDArray[np.int64], d: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """Per class, the rows that agree with type ``t`` and deng ``d``."""
        c, i = self.counts, np.arange(len(t))
        tt, dd = t + 1, np.clip(d, 1, 9)
        out = c[i, 0, 0] + c[i, tt, 0] + c[i, 0, dd] + c[i, tt, dd]
        return np.asarray(out, dtype=np.int64)

    def target(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Per class, the one type and the one deng all its rows claim (-1: none claimed,
        -2: rows of the class claim different ones)."""

        def one(per: npt.NDArray[np.int64], first: int) -> npt.NDArray[np.int64]:
            said = per[:, 1:] > 0
            value = np.argmax(said, axis=1) + first
            many = said.sum(axis=1)
            return np.asarray(np.where(many == 0, -1, np.where(many > 1, -2, value)), np.int64)

        return one(self.counts.sum(axis=2), 0), one(self.counts.sum(axis=1), 1)


def _by_kind(c: _Classes, rules: PokDengRules) -> tuple[npt.NDArray[np.int64], ...]:
    """Each class's deng by kind as a Pok and as any other type."""
    pok = c.answers((TypeDef("pok", "true"),), rules)[1]
    other = c.answers((TypeDef("normal", "true"),), rules)[1]
    return pok, other


def learn_types(
    rows: HandRows, rules: PokDengRules, types: Sequence[TypeDef]
) -> tuple[list[TypeDef], list[Item]]:
    """The types the hand rows claim that ``types`` does not give them, learned one
    group at a time (most rows first) and gated (see the module docstring); returns the
    list with the adopted types, and every item."""
    out = list(types)
    items: list[Item] = []
    if not len(rows.size):
        return out, items
    c, cls = _classes(rows, rules)
    claims = _Claims(rows, cls, c.k)
    want_t, want_d = claims.target()
    kind_pok, kind_other = _by_kind(c, rules)
    tried: set[str] = set()
    while True:
        t, d, pos = c.answers(out, rules)
        agree = claims.agree(t, d)
        wrong = claims.total - agree
        ok = (want_t != -2) & (want_d != -2)
        target_t = np.where(want_t >= 0, want_t, t)
        target_d = np.where(want_d >= 0, want_d, d)
        open_ = (wrong > 0) & ok & (target_d >= 1) & (target_d <= 9)
        groups = _groups(open_, target_t, target_d, wrong, kind_pok, kind_other, tried)
        if not groups:
            break
        key, name, deng, on = groups[0]
        tried.add(key)
        support = int(wrong[on].sum())
        n, disagree = claims.n, int(wrong.sum())
        fit = _fit(c, on, pos, claims, agree, name, deng, kind_pok, kind_other)
        if fit is None:
            items.append(Item(key, f"type {name} (deng {_deng_text(deng)}): no predicate of at "
                              f"most {MAX_CONDITIONS} conditions fits its hands with 0 "
                              "contradictions (unexplained)", support, 0, 0.0))  # fmt: skip
            continue
        when, at, explains, contradicts, m = fit
        before = out[at].name if at < len(out) else "nothing"
        item = gate(key, f"type {name} when {when}, deng {_deng_text(deng)} (before {before})",
                    explains, contradicts, n, disagree, m)  # fmt: skip
        items.append(item)
        if item.adopted:
            out.insert(at, TypeDef(name, when, deng, item.explains))
    if any(i.adopted for i in items):
        _, _, pos = c.answers(out, rules)
        hit = np.bincount(pos, minlength=len(out) + 1)
        out = [x for i, x in enumerate(out) if hit[i]]
    return out, items


def _deng_text(deng: int | None) -> str:
    return "by kind" if deng is None else str(deng)


def _groups(
    open_: npt.NDArray[np.bool_],
    target_t: npt.NDArray[np.int64],
    target_d: npt.NDArray[np.int64],
    wrong: npt.NDArray[np.int64],
    kind_pok: npt.NDArray[np.int64],
    kind_other: npt.NDArray[np.int64],
    tried: set[str],
) -> list[tuple[str, str, int | None, npt.NDArray[np.bool_]]]:
    """The groups of disagreeing classes not yet tried, most rows first: per type, one
    paid by kind if every class claims its kind's deng, else one per deng."""
    out = []
    for code in np.unique(target_t[open_]).tolist():
        name = TYPE_NAMES[code]
        of = open_ & (target_t == code)
        kind = kind_pok if name == "pok" else kind_other
        if (target_d[of] == kind[of]).all():
            parts: list[tuple[int | None, npt.NDArray[np.bool_]]] = [(None, of)]
        else:
            parts = [(v, of & (target_d == v)) for v in np.unique(target_d[of]).tolist()]
        for deng, on in parts:
            key = f"type:{name}:{_deng_text(deng).replace(' ', '_')}"
            if key not in tried:
                out.append((key, name, deng, on))
    out.sort(key=lambda g: (-int(wrong[g[3]].sum()), g[0]))
    return out


def _fit(
    c: _Classes,
    on: npt.NDArray[np.bool_],
    pos: npt.NDArray[np.int64],
    claims: _Claims,
    agree: npt.NDArray[np.int64],
    name: str,
    deng: int | None,
    kind_pok: npt.NDArray[np.int64],
    kind_other: npt.NDArray[np.int64],
) -> tuple[str, int, int, int, int] | None:
    """The smallest conjunction that, placed before the first type taking a class of
    ``on``, gives those classes the type and changes no agreeing row: ``(predicate,
    place, rows explained, rows contradicted, candidates)``."""
    atoms = _atoms(c, on)
    at = int(pos[on].min())
    code = np.full(c.k, TYPE_NAMES.index(name), dtype=np.int64)
    by_kind = kind_pok if name == "pok" else kind_other
    new_d = by_kind if deng is None else np.full(c.k, deng, dtype=np.int64)
    new_agree = claims.agree(code, new_d)
    below = pos >= at
    tried = 0
    m = sum(comb(len(atoms), s) for s in range(1, MAX_CONDITIONS + 1))
    for size in range(1, MAX_CONDITIONS + 1):
        best: tuple[int, int, int, tuple[int, ...]] | None = None
        for combo in combinations(range(len(atoms)), size):
            tried += 1
            mask = atoms[combo[0]][1]
            for j in combo[1:]:
                mask = mask & atoms[j][1]
            took = mask & below
            after = np.where(took, new_agree, agree)
            lost = int(np.maximum(agree - after, 0).sum())
            if lost:
                continue
            gained = int(np.maximum(after - agree, 0).sum())
            cand = (int(mask.sum()), -gained, gained, combo)
            if best is None or cand[:2] < best[:2]:
                best = cand
        if best is not None:
            text = " and ".join(atoms[j][0] for j in best[3])
            return show(parse_type_predicate(text)), at, best[2], 0, max(m, tried)
    return None


# ---------------------------------------------------------------- the whole lesson


def learn(
    path: str,
    data: Mapping[str, Any],
    *,
    fmt: str,
    columns: Mapping[str, str],
    batch_size: int,
    options: Mapping[str, Any],
) -> Lesson:
    """Learn types, their precedence and deng from a claims file's hand rows, starting
    from the rule set ``data`` (see the module docstring)."""
    rules = load_rules(dict(data))
    rows = read_hand_rows(path, fmt, columns, batch_size, rules)
    start = rules.types or expand_keys(rules.straights, rules.ace, rules.deng)
    types, items = learn_types(rows, rules, start)
    if not any(i.adopted for i in items):
        return Lesson(None, tuple(items))
    out = rules.expand()
    out["types"] = [t.to_data() for t in types]
    try:  # what the rule file will say must read back
        load_rules({**out, "name": "learned"})
    except RulesError as exc:
        why = Item("language", f"the learned rule set does not read back: {exc}", 0, 0, 0.0)
        return Lesson(None, (*(replace(i, bits=0.0) for i in items), why))
    return Lesson(out, tuple(items))
