"""Learning the Niu Niu rule language from claims (issue 22): the second stage of
``bull verify --infer``, after the search over the catalogue's rule variants.

From **hand rows** it learns the categories a file claims that the rule set lacks: for
each such name (most rows first), the predicate is searched in the vocabulary of
:mod:`~solver.games.niuniu.language` smallest first — single conditions, then
conjunctions of two, then three — among the conditions every hand claimed with that name
satisfies (a bound of a number the vocabulary counts, a test that holds on all of them, the
range of ranks they hold). A conjunction *fits* when a precedence exists that gives
every claimed hand the new category and no agreeing hand of another: the hands that fall
in two say which of the two comes first (the new category goes just below the lowest
category that keeps its hands, as high as the claims allow). The first fitting size wins;
among its fits, the one matching the fewest classes of hands (the most cautious). From **showdown
rows** (:mod:`~solver.games.niuniu.induce_play`) it learns where a new category ranks,
the tie chain per category, and the multiplier table and commission.

Every learned item passes the significance gate of :mod:`solver.kit.infer`: it explains
its rows with **0 contradictions**, and its description-length saving, less
``log2`` of how many candidates the search could have picked, is at least
:data:`~solver.kit.infer.THRESHOLD_BITS` (20 bits). An item that fails is *rejected*,
with its support; an adopted one carries its support into the inferred rule file
(``support`` of its category, and the file's description).

Everything a predicate looks at is a function of the hand's class (rank multiset and
flush), so hand rows are counted per class: the search costs the same on 2,598,960 rows
as on a few thousand.
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
from solver.games.niuniu.categories import _NAME, CategoryDef, classify, hand_classes
from solver.games.niuniu.induce_play import learn_play
from solver.games.niuniu.language import RANKS, Arrays, evaluate, parse_predicate, show
from solver.games.niuniu.lesson import Item, Lesson, Rows, gate, read_rows
from solver.games.niuniu.rules import NiuNiuRules, load_rules

__all__ = ["MAX_CONDITIONS", "learn", "learn_categories"]

MAX_CONDITIONS = 3
"""The most conditions a learned predicate joins with ``and``."""


# ---------------------------------------------------------------- categories


def _atoms(f: Arrays, on: npt.NDArray[np.bool_]) -> list[tuple[str, npt.NDArray[np.bool_]]]:
    """The conditions of the vocabulary that every class in ``on`` satisfies, in the
    vocabulary's order (a number's tightest bounds, a test that always holds, the range
    of ranks)."""
    out: list[tuple[str, npt.NDArray[np.bool_]]] = []
    for v in ("bull", "bull_pair", "flush"):
        x = np.asarray(f[v], dtype=bool)
        if x[on].all():
            out.append((v, x))
        elif not x[on].any():
            out.append((f"not {v}", ~x))
    for ace in ("low", "high", "both"):
        x = np.asarray(evaluate(("call", "straight", ace), f), dtype=bool)
        if bool(x[on].all()):
            out.append((f"straight({ace})", x))
    rank = f["rank"]
    lo, hi = int(rank[on].min()), int(rank[on].max())
    if (lo, hi) != (0, 12):
        inside = np.asarray(((rank >= lo) & (rank <= hi)).all(axis=1), dtype=bool)
        out.append((f'all_in("{RANKS[lo]}-{RANKS[hi]}")', inside))
    for v in ("points", "faces", "tens", "ten_valued", "total", "kind", "pairs"):
        x = np.asarray(f[v])
        a, b = int(x[on].min()), int(x[on].max())
        if a == b:
            out.append((f"{v} == {a}", np.asarray(x == a, dtype=bool)))
            continue
        if a > int(x.min()):
            out.append((f"{v} >= {a}", np.asarray(x >= a, dtype=bool)))
        if b < int(x.max()):
            out.append((f"{v} <= {b}", np.asarray(x <= b, dtype=bool)))
    return out


@dataclass(frozen=True)
class _Fit:
    when: str
    at: int
    """Its place in the list (precedence): before the category now at this index."""
    tried: int
    """Candidates the search could have picked (every conjunction of its size or less)."""


def _fit(
    f: Arrays,
    on: npt.NDArray[np.bool_],
    pos: npt.NDArray[np.int64],
    keeps: npt.NDArray[np.bool_],
) -> _Fit | None:
    """The smallest conjunction true on every class in ``on`` for which a precedence
    exists: above every class's current category (``pos``) in ``on``, below every
    category whose agreeing hands (``keeps``) it also matches."""
    atoms = _atoms(f, on)
    hi = int(pos[on].min())
    tried = 0
    for size in range(1, MAX_CONDITIONS + 1):
        best: tuple[int, int, tuple[int, ...]] | None = None
        for combo in combinations(range(len(atoms)), size):
            tried += 1
            mask = atoms[combo[0]][1]
            for j in combo[1:]:
                mask = mask & atoms[j][1]
            held = mask & keeps
            lo = int(pos[held].max()) + 1 if held.any() else 0
            if lo <= hi:
                cand = (int(mask.sum()), lo, combo)
                if best is None or cand[0] < best[0]:
                    best = cand
        if best is not None:
            text = " and ".join(atoms[j][0] for j in best[2])
            return _Fit(show(parse_predicate(text)), best[1], tried)
    return None


def _insert(cats: list[CategoryDef], at: int, new: CategoryDef) -> list[CategoryDef]:
    """``new`` placed before ``cats[at]`` and ranked just above it (every rank from there
    up moves one up)."""
    below = cats[at] if at < len(cats) else None
    rank = below.rank + 1 if below is not None else 0
    moved = [replace(c, rank=c.rank + 1) if c.rank >= rank else c for c in cats]
    return [*moved[:at], replace(new, rank=rank), *moved[at:]]


def learn_categories(
    rows: Rows, rules: NiuNiuRules, cats: Sequence[CategoryDef]
) -> tuple[list[CategoryDef], list[Item], dict[str, int]]:
    """The categories the hand rows claim that ``cats`` lacks, learned one by one (most
    rows first) and gated; returns the list with the adopted ones, every item, and the
    adopted names with their support."""
    out = list(cats)
    items: list[Item] = []
    support: dict[str, int] = {}
    if not len(rows.hands) or not rows.names:
        return out, items, support
    cls, f = hand_classes(rows.hands, rules.deck_size, rules.decks, rules.bull_from_three_of_a_kind)
    k, n_names = len(f["rank"]), len(rows.names)
    stated = rows.claim >= 0
    counts = np.bincount(
        cls[stated].astype(np.int64) * n_names + rows.claim[stated], minlength=k * n_names
    ).reshape(k, n_names)
    n = int(stated.sum())
    for _ in range(len(rows.names)):
        known = {c.name for c in out}
        got, _m = classify(f, out, tuple(range(len(out))))
        pos = got.astype(np.int64)
        name_of = np.array([rows.names.index(c.name) if c.name in rows.names else -1 for c in out])
        agree = np.where(name_of[pos] >= 0, counts[np.arange(k), np.maximum(name_of[pos], 0)], 0)
        d = n - int(agree.sum())
        new = [
            (int(counts[:, j].sum()), rows.names[j], j)
            for j, nm in enumerate(rows.names)
            if nm not in known and nm not in support and counts[:, j].any()
        ]
        tried = {i.key.split(":", 1)[1] for i in items}
        new = [x for x in new if x[1] not in tried]
        if not new:
            break
        total, name, j = max(new, key=lambda x: (x[0], x[1]))
        on = counts[:, j] > 0
        fit = _fit(f, on, pos, agree > 0) if _NAME.match(name) else None
        if fit is None:
            items.append(
                Item(
                    f"category:{name}",
                    f"category {name!r}: no predicate of at most {MAX_CONDITIONS} "
                    "conditions fits its hands with 0 contradictions (unexplained)",
                    total,
                    0,
                    0.0,
                )
            )
            continue
        m = sum(comb(len(_atoms(f, on)), s) for s in range(1, MAX_CONDITIONS + 1))
        above = out[fit.at].name if fit.at < len(out) else "nothing"
        item = gate(
            f"category:{name}",
            f"category {name} when {fit.when} (before {above})",
            total,
            0,
            n,
            d,
            max(m, fit.tried),
        )
        items.append(item)
        if item.adopted:
            base = out[min(fit.at, len(out) - 1)]
            new_cat = CategoryDef(
                name,
                fit.when,
                0,
                tie=base.tie,
                multipliers=base.multipliers,
                support=total,
            )
            out = _insert(out, fit.at, new_cat)
            support[name] = total
    return out, items, support


def _reachable(cats: Sequence[CategoryDef], rules: NiuNiuRules) -> list[CategoryDef]:
    """``cats`` without those no hand of the deck reaches any more (a learned category
    above took every hand they held: dropping them changes no hand)."""
    from solver.games.niuniu.categories import representatives
    from solver.games.niuniu.language import features

    reps = representatives(rules.deck_size, rules.decks)
    got, _ = classify(features(reps, rules.bull_from_three_of_a_kind), cats, range(len(cats)))
    hit = np.bincount(got, minlength=len(cats))
    return [c for i, c in enumerate(cats) if hit[i]]


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
    """Learn categories, their ranks, tie chains and multipliers from a claims file,
    starting from the rule set ``data`` (see the module docstring)."""
    rules = load_rules(dict(data))
    rows = read_rows(
        path, fmt, columns, batch_size, rules, options.get("bet"), options.get("commission")
    )
    cats, items, support = learn_categories(rows, rules, rules.compiled)
    if support:
        cats = _reachable(cats, rules)
    commission = rules.commission if options.get("commission") is None else None
    cats, commission, more = learn_play(rows, rules, cats, commission)
    items += more
    adopted = [i for i in items if i.adopted]
    if not adopted:
        return Lesson(None, tuple(items))
    out = rules.expand()
    out["categories"] = [c.to_data() for c in cats]
    if commission is not None:
        out["commission"] = commission
    try:  # what the rule file will say must read back (ranks fit beside the tie keys ...)
        load_rules({**out, "name": "learned"})
    except RulesError as exc:
        why = Item("language", f"the learned rule set does not read back: {exc}", 0, 0, 0.0)
        return Lesson(None, (*(replace(i, bits=0.0) for i in items), why))
    return Lesson(out, tuple(items))
