"""Conformance vectors for Pok Deng: hand-picked hands (the worked examples, Tong, Sam
Lueang, runs with the ace, the deng of every kind) and showdowns (Tong against Sam
Lueang, deng differences), every type and deng from all hands, a vector that catches
each variant of :func:`~solver.games.pokdeng.diagnose.pokdeng_catalogue`, then the seeded random
sample of hands of two and three cards.

>>> recs, cov = pokdeng_vectors("standard", seed=1, sample=0)
>>> cov["uncaught_variants"], recs[0]["id"], recs[0]["hand"]
([], 'pokdeng-0001', ['9S', '9D'])
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from solver.kit.vectors import (
    POOL,
    POOL_SEED,
    Differs,
    deal,
    differs_from,
    find_catches,
    finish,
    mark_differs,
    names,
    parse,
    tag_in,
    tag_pool,
)

__all__ = ["pokdeng_vectors"]

_PD_HANDS: tuple[tuple[str, str], ...] = (
    ("9S 9D", "worked_example pok_8 pair"),
    ("5S 4C", "worked_example pok_9"),
    ("AC 4C 4D", "worked_example three_card_9_is_normal"),
    ("6C 4C 5C", "worked_example run suited"),
    ("KH 2S AC", "worked_example"),
    ("KH 2S 3C", "worked_example"),
    ("2S 3S", "suited"),
    ("4S 4D", "pair"),
    ("8H QH", "pok_8 suited"),
    ("9C 10C", "pok_9 suited"),
    ("3S 3H 3D", "tong tong_points_9"),
    ("KS KH KD", "tong tong_points_0"),
    ("JS QH KD", "sam_lueang run_j_q_k"),
    ("JS JH QD", "sam_lueang"),
    ("QS KS AS", "run_q_k_a suited"),
    ("AH 2D 3C", "run_a_2_3"),
    ("KS AD 2C", "not_a_run_k_a_2"),
    ("4D 5H 6S", "run"),
    ("9D 10D JD", "run suited"),
    ("2C 7C 9C", "three_suited"),
    ("AS 7H", "pok_8"),
    ("KS 8D", "pok_8 ten_values_0"),
)
_PD_SHOWDOWNS: tuple[tuple[str, str, str], ...] = (
    ("9S 9D", "AC 4C 4D", "worked_example"),
    ("5S 4C", "9S 9D", "worked_example"),
    ("6C 4C 5C", "KH 2S AC", "worked_example"),
    ("6C 4C 5C", "KH 2S 3C", "worked_example"),
    ("6C 4C 5C", "2S 3S", "worked_example"),
    ("3S 3H 3D", "JS QH KD", "tong_vs_sam_lueang"),
    ("QC JD KS", "7S 7H 7D", "sam_lueang_vs_tong"),
    ("2S 2H 2D", "JC JD QH", "tong_vs_sam_lueang"),
    ("QS QD KC", "8S 8H 8D", "sam_lueang_vs_tong"),
    ("3S 3H 3D", "KS KH KD", "tong_points"),
    ("JS JH JD", "QS QH QD", "tong_push"),
    ("4D 5H 6S", "7C 7H 7D", "run_vs_tong"),
    ("9D 10D JD", "JS QH KD", "run_vs_sam_lueang"),
    ("2S 3S", "4C 5H 6D", "points_and_deng"),
    ("4S 4D", "2C 6H", "deng_difference"),
    ("AS 7H", "8C 10C", "pok_8_push_on_deng"),
)


def _pad(rows: list[list[int]]) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    """Hands of two or three cards as rows of three (255: no third card), and their sizes."""
    arr = np.full((len(rows), 3), 255, dtype=np.uint8)
    for i, row in enumerate(rows):
        arr[i, : len(row)] = row
    return arr, np.array([len(row) for row in rows], dtype=np.int64)


def _short(cards: npt.NDArray[np.uint8], size: npt.NDArray[np.int64]) -> npt.NDArray[np.uint8]:
    """Three-card rows with the third card dropped (255) where ``size`` is 2."""
    out = cards.copy()
    out[size == 2, 2] = 255
    return out


def pokdeng_vectors(
    rules: Any = None, seed: int = 20261129, sample: int = 200
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Pok Deng vectors under ``rules`` and their coverage summary."""
    from solver.games.pokdeng.diagnose import (
        pokdeng_catalogue,
        pokdeng_hand_answers,
        pokdeng_showdown_answers,
    )
    from solver.games.pokdeng.hands import all_hands
    from solver.games.pokdeng.rules import HandType, load_rules

    r = load_rules(rules)
    records: list[dict[str, Any]] = []
    catches: dict[str, str] = {}
    variants = pokdeng_catalogue(r, "all")
    flagged: list[tuple[list[int], str, Differs]] = []

    def hand_recs(
        cards: npt.NDArray[np.uint8], size: npt.NDArray[np.int64], tags: list[list[str]]
    ) -> None:
        a = pokdeng_hand_answers(cards, size, r)
        at = list(range(len(records), len(records) + len(cards)))
        diff = differs_from(pokdeng_hand_answers, (cards, size, r), a, ("type", "points", "deng"))
        flagged.append((at, "hand", diff))
        for i in range(len(cards)):
            t = HandType(int(a["type"][i]))
            records.append(
                {
                    "kind": "hand",
                    "hand": names(cards[i, : size[i]]),
                    "points": int(a["points"][i]),
                    "type": t.label,
                    "deng": int(a["deng"][i]),
                    "tags": [f"type_{t.label}", *tags[i]],
                }
            )

    picked, psize = _pad([parse(h) for h, _ in _PD_HANDS])
    tags = [t.split() for _, t in _PD_HANDS]
    every, esize = _pad([list(h) for h in all_hands(2)] + [list(h) for h in all_hands(3)])
    base_p = pokdeng_hand_answers(picked, psize, r)
    base_e = pokdeng_hand_answers(every, esize, r)
    extra: dict[int, list[str]] = {}
    seen = {(int(t), int(d)) for t, d in zip(base_p["type"], base_p["deng"], strict=True)}
    for j in range(len(every)):
        key = (int(base_e["type"][j]), int(base_e["deng"][j]))
        if key not in seen:
            seen.add(key)
            extra.setdefault(j, []).append(f"deng_{key[1]}")

    keys = ("type", "points", "deng")
    find_catches(
        variants,
        "hand",
        catches,
        [
            (differs_from(pokdeng_hand_answers, (picked, psize, r), base_p, keys), tag_in(tags)),
            (differs_from(pokdeng_hand_answers, (every, esize, r), base_e, keys), tag_pool(extra)),
        ],
    )
    hand_recs(picked, psize, tags)
    ex = list(extra)
    if ex:
        hand_recs(every[ex], esize[ex], [extra[j] for j in ex])
    # -- showdowns
    sp, sps = _pad([parse(p) for p, _, _ in _PD_SHOWDOWNS])
    sd, sds = _pad([parse(d) for _, d, _ in _PD_SHOWDOWNS])
    stags = [t.split() for _, _, t in _PD_SHOWDOWNS]
    rng = np.random.default_rng(POOL_SEED)
    six = deal(rng, POOL, 6)
    kp = rng.integers(2, 4, POOL)
    kd = rng.integers(2, 4, POOL)
    pp = _short(six[:, :3], kp)
    dd = _short(six[:, 3:], kd)
    base_s = pokdeng_showdown_answers(sp, sps, sd, sds, r)
    base_pool = pokdeng_showdown_answers(pp, kp, dd, kd, r)
    rows: dict[int, list[str]] = {}
    answers = pokdeng_showdown_answers
    find_catches(
        variants,
        "showdown",
        catches,
        [
            (differs_from(answers, (sp, sps, sd, sds, r), base_s, ("net",)), tag_in(stags)),
            (differs_from(answers, (pp, kp, dd, kd, r), base_pool, ("net",)), tag_pool(rows)),
        ],
    )
    srng = np.random.default_rng(seed)
    rh = deal(srng, sample, 3)
    rk = srng.integers(2, 4, sample)
    hand_recs(_short(rh, rk), rk, [["random"] for _ in range(sample)])
    r6 = deal(srng, sample, 6)
    rkp, rkd = srng.integers(2, 4, sample), srng.integers(2, 4, sample)
    rp, rd = _short(r6[:, :3], rkp), _short(r6[:, 3:], rkd)
    idx = list(rows)
    allp = np.concatenate([sp, pp[idx], rp])
    alld = np.concatenate([sd, dd[idx], rd])
    allps = np.concatenate([sps, kp[idx], rkp])
    allds = np.concatenate([sds, kd[idx], rkd])
    alltags = stags + [rows[i] for i in idx] + [["random"] for _ in range(sample)]
    a = pokdeng_showdown_answers(allp, allps, alld, allds, r)
    at = list(range(len(records), len(records) + len(allp)))
    flagged.append(
        (at, "showdown", differs_from(answers, (allp, allps, alld, allds, r), a, ("net",)))
    )
    for i in range(len(allp)):
        net = int(a["net"][i])
        records.append(
            {
                "kind": "showdown",
                "player": names(allp[i, : allps[i]]),
                "dealer": names(alld[i, : allds[i]]),
                "winner": ("player", "dealer", "push")[int(a["winner"][i])],
                "net": net,
                "tags": alltags[i],
            }
        )
    for at, mode, diff in flagged:  # the house rules that change each vector: its flags
        mark_differs(records, at, variants, mode, diff)
    return finish(records, "pokdeng", r.name, seed, sample, variants, catches)
