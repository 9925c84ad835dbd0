"""Learning how Niu Niu hands compare and pay from showdown rows (issue 22): where a
learned category ranks, each category's tie chain, the multiplier table and the
commission. Part of ``bull verify --infer``'s language stage
(:mod:`~solver.games.niuniu.induce`; every item passes the gate of
:mod:`~solver.games.niuniu.lesson`).

- **Ranks.** A showdown between a learned category and another says which ranks higher;
  the learned category moves to the lowest rank above every category it beats, if the
  rank it was given contradicts a row.
- **Tie chains.** Per rank, the showdowns of two hands of it: the shortest chain of the
  language's steps (none, then one, two, three; ends ``push`` or ``banker``, one end for
  the whole file) that gives every claimed winner; the chain in force is kept when it
  already does.
- **Multipliers and commission.** Every decided row whose winner we agree with says the
  winning category's multiplier for its bet: ``-net`` when the banker wins,
  ``net / (1 - commission)`` when the player does. A category is learned when all its
  rows say one whole number; the commission, when the banker's wins fix a multiplier and
  the player's wins of it say the same commission.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from itertools import permutations

import numpy as np
import numpy.typing as npt

from solver.games.niuniu.categories import (
    CategoryDef,
    category_codes,
    compile_hands,
    hand_classes,
    step_values,
)
from solver.games.niuniu.language import ENDS, STEPS
from solver.games.niuniu.lesson import Item, Rows, gate
from solver.games.niuniu.rules import LABELS, MAX_MULTIPLIER, NiuNiuRules

__all__ = ["MAX_STEPS", "learn_play", "winners"]

MAX_STEPS = 3
"""The most steps a learned tie chain takes (before its end)."""
_POOL = tuple(s for s in STEPS if s not in ENDS)
_SUITED = ("highest_card", "suit_of_highest")


def _compiled(
    hands: npt.NDArray[np.uint8], cats: Sequence[CategoryDef], rules: NiuNiuRules
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Each hand's category index in ``cats`` and its strength."""
    codes = category_codes(cats, LABELS)
    code, strength = compile_hands(
        hands, cats, codes, rules.suit_strength, rules.deck_size, rules.decks,
        rules.bull_from_three_of_a_kind,
    )  # fmt: skip
    index = np.zeros(max(codes) + 1, dtype=np.int64)
    index[list(codes)] = np.arange(len(codes))
    return index[code.astype(np.int64)], strength.astype(np.int64)


def winners(
    rows: Rows, rules: NiuNiuRules, cats: Sequence[CategoryDef]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Our winner of every showdown row (0 player, 1 banker, 2 push) under ``cats``, and
    each side's category index."""
    pi, ps = _compiled(rows.player, cats, rules)
    bi, bs = _compiled(rows.banker, cats, rules)
    end = 1 if any(c.tie and c.tie[-1] == "banker" for c in cats) else 2
    w = np.where(ps > bs, 0, np.where(bs > ps, 1, end))
    return w, pi, bi


def _ranks(
    rows: Rows, rules: NiuNiuRules, cats: list[CategoryDef], fresh: Sequence[str]
) -> tuple[list[CategoryDef], list[Item]]:
    items: list[Item] = []
    n = len(rows.winner)
    for name in fresh:
        at = next(i for i, c in enumerate(cats) if c.name == name)
        w, pi, bi = winners(rows, rules, cats)
        decided = rows.winner >= 0
        d = int((decided & (w != rows.winner)).sum())
        rank = np.array([c.rank for c in cats])
        mine_p, mine_b = (pi == at) & (bi != at), (bi == at) & (pi != at)
        other = np.where(mine_p, rank[bi], rank[pi])
        says = (mine_p | mine_b) & ((rows.winner == 0) | (rows.winner == 1))
        won = says & (np.where(mine_p, 0, 1) == rows.winner)
        lost = says & ~won
        if not says.any():
            continue
        lower = int(other[won].max()) if won.any() else -1
        upper = int(other[lost].min()) if lost.any() else 1 << 30
        r = cats[at].rank
        if lower < r < upper:
            continue
        if lower >= upper:
            items.append(
                Item(
                    f"rank:{name}",
                    f"rank of {name}: its showdowns contradict each other",
                    0,
                    int(says.sum()),
                    0.0,
                )
            )
            continue
        moved = [
            replace(c, rank=c.rank + 1) if i != at and c.rank > lower else c
            for i, c in enumerate(cats)
        ]
        moved[at] = replace(cats[at], rank=lower + 1)
        w2, _, _ = winners(rows, rules, moved)
        explains = int((says & (w != rows.winner) & (w2 == rows.winner)).sum())
        contradicts = int((decided & (w == rows.winner) & (w2 != rows.winner)).sum())
        below = max((c for c in cats if c.rank <= lower), key=lambda c: c.rank, default=None)
        item = gate(
            f"rank:{name}",
            f"{name} ranks just above {below.name if below else 'nothing'}",
            explains, contradicts, n, d, len(cats),
        )  # fmt: skip
        items.append(item)
        if item.adopted:
            cats = moved
    return cats, items


def _step_table(
    hands: npt.NDArray[np.uint8], rules: NiuNiuRules
) -> dict[str, npt.NDArray[np.int64]]:
    cls, f = hand_classes(hands, rules.deck_size, rules.decks, rules.bull_from_three_of_a_kind)
    c16 = hands.astype(np.int16)
    per_hand = {"rank": c16 >> 2, "suit": c16 & 3}
    ss = rules.suit_strength
    out = {}
    for s in _POOL:
        if s in _SUITED:
            out[s] = step_values(s, per_hand, ss).astype(np.int64)
        else:
            out[s] = step_values(s, f, ss).astype(np.int64)[cls]
    return out


def _decide(
    chain: Sequence[str],
    end: int,
    vp: dict[str, npt.NDArray[np.int64]],
    vb: dict[str, npt.NDArray[np.int64]],
    n: int,
) -> npt.NDArray[np.int64]:
    out = np.full(n, end, dtype=np.int64)
    open_ = np.ones(n, dtype=bool)
    for s in chain:
        a, b = vp[s], vb[s]
        out[open_ & (a > b)] = 0
        out[open_ & (a < b)] = 1
        open_ &= a == b
    return out


def _chains() -> list[tuple[str, ...]]:
    return [c for k in range(MAX_STEPS + 1) for c in permutations(_POOL, k)]


def _ties(
    rows: Rows, rules: NiuNiuRules, cats: list[CategoryDef]
) -> tuple[list[CategoryDef], list[Item]]:
    w, pi, bi = winners(rows, rules, cats)
    rank = np.array([c.rank for c in cats])
    same = (rank[pi] == rank[bi]) & (rows.winner >= 0)
    if not same.any():
        return cats, []
    sel = np.flatnonzero(same)
    vp = _step_table(rows.player[sel], rules)
    vb = _step_table(rows.banker[sel], rules)
    claim, group = rows.winner[sel], rank[pi[sel]]
    chains = _chains()
    cur_end = next((c.tie[-1] for c in cats if c.tie and c.tie[-1] in ENDS), "push")
    groups = sorted(set(group.tolist()))

    def current(g: int) -> tuple[str, ...]:
        c = next(c for c in cats if c.rank == g)
        return tuple(s for s in c.tie if s not in ENDS)

    def best(g: int, end: str) -> tuple[str, ...] | None:
        m = group == g
        sub_p = {k: v[m] for k, v in vp.items()}
        sub_b = {k: v[m] for k, v in vb.items()}
        e = 1 if end == "banker" else 2
        want = claim[m]
        cur = current(g)
        if (_decide(cur, e, sub_p, sub_b, int(m.sum())) == want).all():
            return cur
        for ch in chains:
            if (_decide(ch, e, sub_p, sub_b, int(m.sum())) == want).all():
                return ch
        return None

    plans = []
    for end in (cur_end, *(e for e in ENDS if e != cur_end)):
        plan = {g: best(g, end) for g in groups}
        plans.append((sum(v is not None for v in plan.values()), end == cur_end, end, plan))
    _, _, end, plan = max(plans, key=lambda p: (p[0], p[1]))
    n, d = len(rows.winner), int(((rows.winner >= 0) & (w != rows.winner)).sum())
    items: list[Item] = []
    out = list(cats)
    e = 1 if end == "banker" else 2
    for g in groups:
        chain = plan[g]
        if chain is None or (chain == current(g) and end == cur_end):
            continue
        m = group == g
        before = w[sel][m] == claim[m]
        after = _decide(chain, e, {k: v[m] for k, v in vp.items()},
                        {k: v[m] for k, v in vb.items()}, int(m.sum())) == claim[m]  # fmt: skip
        names = [c.name for c in cats if c.rank == g]
        tie = [*chain, end]
        item = gate(
            f"tie:{names[0]}",
            f"{' / '.join(names)} ties: {', '.join(tie)}",
            int((after & ~before).sum()), int((before & ~after).sum()), n, d,
            2 * len(chains),
        )  # fmt: skip
        items.append(item)
        if item.adopted:
            out = [replace(c, tie=tuple(tie)) if c.rank == g else c for c in out]
            d -= item.explains
    if end != cur_end and any(i.adopted for i in items):  # one end for the whole file
        out = [replace(c, tie=(*(s for s in c.tie if s not in ENDS), end)) for c in out]
    return out, items


def _implied(rows: Rows, w: npt.NDArray[np.int64], commission: float) -> npt.NDArray[np.float64]:
    """The multiplier each row says: ``net / (1 - commission)`` for the player's win,
    ``-net`` for the banker's."""
    comm = np.where(np.isnan(rows.commission), commission, rows.commission)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(w == 0, rows.net / (1 - comm), -rows.net)


def _multipliers(
    rows: Rows, rules: NiuNiuRules, cats: list[CategoryDef], commission: float | None
) -> tuple[list[CategoryDef], float | None, list[Item]]:
    w, pi, bi = winners(rows, rules, cats)
    decided = (rows.winner == w) & (w < 2) & ~np.isnan(rows.net)
    if not decided.any():
        return cats, commission, []
    win_cat = np.where(w == 0, pi, bi)
    n_cats = len(cats)
    grp = rows.bet * n_cats + win_cat
    cur = np.array([[dict(c.multipliers)[b] for c in cats] for b in rules.bets]).reshape(-1)
    base = rules.commission if commission is None else commission

    def groups(comm: float) -> dict[int, int]:
        """Per (bet, category): the one whole multiplier all its rows say (or none)."""
        x = _implied(rows, w, comm)
        whole = decided & np.isfinite(x) & (np.abs(x - np.round(x)) < 1e-6) & (x > -0.5)
        out = {}
        for g in np.unique(grp[decided]).tolist():
            m = decided & (grp == g)
            vals = np.unique(np.round(x[m & whole]))
            if (m & ~whole).any() or len(vals) != 1:
                continue
            out[g] = int(vals[0])
        return out

    def agree(comm: float, table: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
        c = np.where(np.isnan(rows.commission), comm, rows.commission)
        mult = table[grp]
        net = np.where(w == 0, mult * (1 - c), np.where(w == 1, -mult, 0.0))
        return np.asarray(decided & (np.abs(net - rows.net) < 1e-6), dtype=bool)

    n = len(rows.winner)
    items: list[Item] = []
    comm = base
    if commission is not None and np.isnan(rows.commission).any():
        banker = decided & (w == 1)
        fixed = {
            g: -float(np.median(rows.net[banker & (grp == g)]))
            for g in np.unique(grp[banker]).tolist()
        }
        player = decided & (w == 0) & np.isnan(rows.commission)
        said = [
            round(1 - rows.net[i] / fixed[int(grp[i])], 6)
            for i in np.flatnonzero(player).tolist()
            if fixed.get(int(grp[i]), 0) > 0
        ]
        if said:
            vals, cnt = np.unique(said, return_counts=True)
            cand = float(vals[np.argmax(cnt)])
            if 0 <= cand < 1 and abs(cand - base) > 1e-9:
                t0, t1 = cur.copy(), cur.copy()
                for g, v in groups(cand).items():
                    t1[g] = v
                before, after = agree(base, t0), agree(cand, t1)
                d = int((~agree(base, t0) & decided).sum())
                item = gate(
                    "commission", f"commission {cand:g}",
                    int((after & ~before & (w == 0)).sum()),
                    int((before & ~after & (w == 0)).sum()), n, d, max(1, len(vals)),
                )  # fmt: skip
                items.append(item)
                if item.adopted:
                    comm = cand
    table = cur.copy()
    found = groups(comm)
    d = int((~agree(comm, table) & decided).sum())
    for g, v in sorted(found.items()):
        if v == cur[g] or v > MAX_MULTIPLIER:
            continue
        t1 = table.copy()
        t1[g] = v
        before, after = agree(comm, table), agree(comm, t1)
        m = grp == g
        bet, cat = rules.bets[g // n_cats], cats[g % n_cats].name
        item = gate(
            f"multiplier:{bet}:{cat}", f"{cat} pays {v} on the {bet} bet",
            int((after & ~before & m).sum()), int((before & ~after).sum()), n, d,
            MAX_MULTIPLIER + 1,
        )  # fmt: skip
        items.append(item)
        if item.adopted:
            table = t1
            d -= item.explains
    out = []
    for i, c in enumerate(cats):
        mult = tuple((b, int(table[j * n_cats + i])) for j, b in enumerate(rules.bets))
        out.append(replace(c, multipliers=mult) if mult != c.multipliers else c)
    return out, (comm if commission is not None else None), items


def learn_play(
    rows: Rows,
    rules: NiuNiuRules,
    cats: list[CategoryDef],
    commission: float | None,
) -> tuple[list[CategoryDef], float | None, list[Item]]:
    """Ranks of learned categories, tie chains, then multipliers and commission
    (``commission``: the rule set's, ``None`` when a command option fixes it)."""
    if not len(rows.winner):
        return cats, commission, []
    fresh = [c.name for c in cats if c.support is not None and c.name not in rules.labels]
    cats, items = _ranks(rows, rules, list(cats), fresh)
    cats, more = _ties(rows, rules, cats)
    items += more
    cats, commission, more = _multipliers(rows, rules, cats, commission)
    items += more
    return cats, commission, items
