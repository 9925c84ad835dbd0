"""The records of disagreeing Niu Niu rows for ``bull verify``: what the row claims, the
correct answer, and the reason in words (``claimed no_bull; A+2+7 = 10 is a bull, 4+9 =
13, points 3``), for hand rows and showdown rows (:mod:`solver.games.niuniu.verify`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.games.niuniu import explain
from solver.kit.check import differing, showdown_claims
from solver.kit.parse import PAD

__all__ = ["hand_record", "showdown_record"]

SUIT_NAMES_ = ("S", "H", "D", "C")
WINNERS = ("player", "banker", "push")


def hand_record(
    rules: Any,
    i: int,
    ans: Mapping[str, npt.NDArray[Any]],
    cv: Mapping[str, Any],
    stated: Mapping[str, npt.NDArray[np.bool_]],
    agree: Mapping[str, npt.NDArray[np.bool_]],
    bull_ids: npt.NDArray[np.uint8] | None,
) -> dict[str, Any]:
    from solver.core.cards import hand_names
    from solver.games.niuniu.rules import N_CATEGORIES, Category

    srt = [int(c) for c in ans["sorted"][i]]
    mask = int(ans["bull_mask"][i])
    has = bool(ans["has_bull"][i])
    pts = int(ans["points"][i])
    cat = int(ans["category"][i])
    correct = {
        "has_bull": has,
        "points": pts,
        "category": rules.labels[cat],
        "bull": hand_names([srt[p] for p in range(5) if mask >> p & 1]) if has else None,
    }
    claimed: dict[str, Any] = {}
    fields = differing(stated, agree, i)
    bull_text = explain.bull_text(srt, mask) if has else ""
    names = " ".join(explain.value_names(srt))
    for f in stated:
        if not stated[f][i]:
            continue
        if f == "bull" and bull_ids is not None:
            b = [int(c) for c in bull_ids[i] if c != PAD]
            claimed[f] = hand_names(b) if b else None
        else:
            v = cv[f][i]
            claimed[f] = (
                bool(v)
                if f == "has_bull"
                else rules.labels[int(v)]
                if f == "category" and 0 <= v < len(rules.labels)
                else int(v)
            )
    said: list[str] = []
    for f in fields:
        if f == "has_bull":
            said.append("no_bull" if not claimed[f] else "a bull")
        elif f == "points":
            said.append(f"points {claimed[f]}")
        elif f == "category":
            c = int(cv["category"][i])
            text = f"category {claimed[f]}"
            if Category.FIVE_FACES <= c < N_CATEGORIES and c != cat:
                special = Category(c).label
                if special in rules.specials and _qualifies(rules, special, srt):
                    above = rules.labels[cat]
                    text += f" ({above} ranks above it under {rules.name})"
                else:
                    text += f" ({explain.special_why_not(special, srt, rules)})"
            said.append(text)
        elif f == "bull":
            cb = claimed.get("bull")
            if cb is None:
                said.append("bull none")
                continue
            b = sorted(int(c) for c in bull_ids[i] if c != PAD) if bull_ids is not None else []
            missing = [c for c in b if c not in srt]
            if missing:
                said.append(f"bull {' '.join(cb)} ({hand_names(missing)[0]} is not in the hand)")
            else:
                s = sum(explain.card_value(c) for c in b)
                said.append(
                    f"bull {' '.join(cb)} ({'+'.join(explain.value_names(b))} = {s} is "
                    "not a multiple of 10)"
                )
    ours: list[str] = []
    if any(f in fields for f in ("has_bull", "points", "bull")) or (
        "category" in fields and cat <= Category.NIU_NIU
    ):
        ours.append(bull_text if has else f"no three of {names} sum to a multiple of 10, points 0")
    if "category" in fields and (
        cat > Category.NIU_NIU or int(cv["category"][i]) > Category.NIU_NIU
    ):
        ours.append("it is " + explain.why(cat, srt, mask, rules))
    elif "category" in fields:
        ours.append(f"category {rules.labels[cat]}")
    return {
        "hand": hand_names(srt),
        "fields": fields,
        "claimed": claimed,
        "correct": correct,
        "reason": f"claimed {', '.join(said)}; {'; '.join(ours)}",
    }


def _qualifies(rules: Any, special: str, srt: Sequence[int]) -> bool:
    from solver.games.niuniu.hands import evaluate_arrays

    ev = evaluate_arrays(np.array([srt], dtype=np.uint8), rules)
    return bool(ev[special][0])


def showdown_record(
    rules: Any,
    i: int,
    pl: npt.NDArray[np.uint8],
    bk: npt.NDArray[np.uint8],
    bet: npt.NDArray[np.int64],
    comm: npt.NDArray[np.float64],
    ans: Mapping[str, npt.NDArray[Any]],
    cv: Mapping[str, Any],
    stated: Mapping[str, npt.NDArray[np.bool_]],
    agree: Mapping[str, npt.NDArray[np.bool_]],
) -> dict[str, Any]:
    from solver.core.cards import card_name, hand_names

    w = int(ans["winner"][i])
    net = float(ans["net"][i])
    pcat, bcat = (
        rules.category(int(ans["player_category"][i])),
        rules.category(int(ans["banker_category"][i])),
    )
    bet_name = rules.bets[int(bet[i])]
    correct = {
        "winner": WINNERS[w],
        "net": net,
        "player_category": pcat.label,
        "banker_category": bcat.label,
    }
    claimed, fields, said = showdown_claims(i, stated, cv, agree, WINNERS)
    if pcat != bcat:
        hi, lo = (
            (("player", pcat), ("banker", bcat)) if w == 0 else (("banker", bcat), ("player", pcat))
        )
        why = f"{hi[0]}'s {hi[1].label} beats {lo[0]}'s {lo[1].label}"
    elif w == 2:
        why = f"both {pcat.label}, equal on the tie-break ({rules.tie_break}): push"
    elif int(ans["player_strength"][i]) == int(ans["banker_strength"][i]):
        why = (
            f"both {pcat.label}, equal on the tie-break ({rules.tie_break}): ties go to the banker"
        )
    else:
        r = rules
        ss = r.suit_strength

        def top(h: npt.NDArray[np.uint8]) -> int:
            return int(max(h.tolist(), key=lambda c: (c >> 2, ss[c & 3])))

        tp, tb = top(pl[i]), top(bk[i])
        if r.tie_break == "highest_card" or (tp >> 2) == (tb >> 2):
            why = (
                f"both {pcat.label}; highest card {card_name(tp if w == 0 else tb)} "
                f"beats {card_name(tb if w == 0 else tp)} (suits "
                f"{' > '.join(SUIT_NAMES_[s] for s in r.suit_order)})"
            )
        else:
            why = f"both {pcat.label}; {WINNERS[w]} wins rank by rank"
    m = rules.multiplier_row(bet_name)
    if w == 0:
        pay = f"{m[pcat]} x stake ({bet_name} bet) less {comm[i] * 100:g}% commission"
    elif w == 1:
        pay = f"the player pays {m[bcat]} ({bet_name} bet)"
    else:
        pay = "nobody pays"
    outcome = f"{WINNERS[w]} wins: {why}" if w != 2 else why
    return {
        "player": hand_names(pl[i].tolist()),
        "banker": hand_names(bk[i].tolist()),
        "fields": fields,
        "claimed": claimed,
        "correct": correct,
        "reason": f"claimed {said}; {outcome}; player net {net:+g}: {pay}",
    }
