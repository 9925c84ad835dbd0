"""Conformance vectors for Tau Ngau: hand-picked hands (the worked examples, every 3/6
subtlety of [2:1] and [4:2]), one hand of every best score, showdown situations (no
bull, equal scores, a decline, the best score in play) from a seeded pool, a vector that
catches each variant of :func:`~solver.games.taungau.diagnose.taungau_catalogue`, then the seeded
random sample. Showdowns settle with the game's tables (``tables``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.kit.vectors import (
    POOL,
    POOL_SEED,
    deal,
    differs_from,
    find_catches,
    finish,
    mark_differs,
    tag_in,
    tag_pool,
)

__all__ = ["taungau_vectors"]

_TN_HANDS: tuple[tuple[str, str], ...] = (
    ("[6:6][6:5][4:3][4:2][2:2]", "worked_example wild_4_2_as_6_in_rest zero_as_ten_or_7"),
    ("[6:5][4:1][6:4][6:4][5:5]", "worked_example score_6"),
    ("[5:4][1:1][6:4][6:4][5:5]", "worked_example score_1"),
    ("[6:6][4:4][3:1][1:1][5:5]", "worked_example"),
    ("[1:1][1:1][2:1][2:2][2:2]", "wild_2_1_choice_changes_score"),
    ("[1:1][2:1][2:2][2:2][3:1]", "wild_in_rest_scores_more"),
    ("[4:2][2:1][6:6][5:5][3:3]", "both_wild_tiles"),
    ("[4:2][2:1][6:1][5:1][1:1]", "both_wild_tiles"),
    ("[6:6][6:6][5:5][5:5][4:4]", "civil_pairs"),
    ("[6:3][5:4][6:2][5:3][4:3]", "military_only"),
)


def _tn_record(
    rules: Any, tiles: Sequence[int], written: Sequence[int] | None, tags: list[str]
) -> dict[str, Any]:
    from solver.core.tiles import TILE_NAMES, hand_names
    from solver.games.taungau.hands import WILD_TILES, analyse, best_plays

    h = np.array([sorted(tiles)], dtype=np.uint8)
    a = analyse(h)
    play = best_plays(a, rules)
    has = bool(a.has_bull[0])
    mask = int(play.bull_mask[0])
    tl = [int(t) for t in h[0]]
    points = int(play.points[0])
    return {
        "kind": "hand",
        "hand": [TILE_NAMES[t] for t in (written if written is not None else tl)],
        "has_bull": has,
        "points": None if points == 255 else points,
        "bull": hand_names([tl[p] for p in range(5) if mask >> p & 1]) if has else None,
        "values": {
            TILE_NAMES[w]: 6 if int(play.values[0]) >> b & 1 else 3
            for b, w in enumerate(WILD_TILES)
            if w in tl
        }
        if has
        else None,
        "reachable": sorted(rules.score(d) for d in range(10) if int(a.reachable[0]) >> d & 1),
        "tags": tags,
    }


def taungau_vectors(
    rules: Any = None,
    seed: int = 20261129,
    sample: int = 200,
    banker_reveals: str | None = None,
    tables: str | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Tau Ngau vectors under ``rules`` and their coverage summary."""
    from solver.core.indexing import all_subsets
    from solver.core.tiles import TILE_NAMES, canonical_hand, parse_tiles
    from solver.games.taungau.diagnose import (
        decision_spec,
        taungau_catalogue,
        taungau_hand_answers,
        taungau_showdown_answers,
    )
    from solver.games.taungau.play import evaluate_batch, settle_batch
    from solver.games.taungau.rules import load_rules

    r = load_rules(rules)
    reveals = banker_reveals or r.banker_reveals
    records: list[dict[str, Any]] = []
    catches: dict[str, str] = {}
    variants = taungau_catalogue(r, "all", reveals)
    # -- hands: hand-picked, every best score, a catch for every hand variant
    picked = [parse_tiles(h) for h, _ in _TN_HANDS]
    tags = [t.split() for _, t in _TN_HANDS]
    every = all_subsets(32, 5)
    base_all = taungau_hand_answers(every, r)
    chosen: dict[int, list[str]] = {}
    for score in sorted(set(base_all["points"].tolist())):
        j = int(np.flatnonzero(base_all["points"] == score)[0])
        chosen.setdefault(j, []).append(
            "no_bull" if score == -1 or not base_all["has_bull"][j] else f"best_{score}"
        )
    picked_arr = np.array([sorted(canonical_hand(p)) for p in picked], dtype=np.uint8)
    base_picked = taungau_hand_answers(picked_arr, r)

    keys = ("points", "has_bull")
    find_catches(
        variants,
        "hand",
        catches,
        [
            (differs_from(taungau_hand_answers, (picked_arr, r), base_picked, keys), tag_in(tags)),
            (differs_from(taungau_hand_answers, (every, r), base_all, keys), tag_pool(chosen)),
        ],
    )
    for p, t in zip(picked, tags, strict=True):
        records.append(_tn_record(r, canonical_hand(p), p, t))
    for j, t in chosen.items():
        records.append(_tn_record(r, every[j].tolist(), None, t))
    # -- showdowns
    rng = np.random.default_rng(POOL_SEED)
    pool = deal(rng, POOL, 10, deck=32)
    pl, bk = np.sort(pool[:, :5], axis=1), np.sort(pool[:, 5:], axis=1)
    res = settle_batch(pl, bk, r, banker_reveals=reveals, tables=tables)
    ps = evaluate_batch(pl, r, tables=tables)["strength"]
    bs = evaluate_batch(bk, r, tables=tables)["strength"]
    rows: dict[int, list[str]] = {}

    def pick(mask: npt.NDArray[np.bool_], tag: str) -> None:
        hit = np.flatnonzero(mask)
        if len(hit):
            rows.setdefault(int(hit[0]), []).append(tag)

    pick((ps == 0) & (bs == 0), "both_no_bull")
    pick((ps == 0) & (bs > 0), "player_no_bull")
    pick((ps > 0) & (bs == 0), "banker_no_bull")
    pick((ps > 0) & (ps == bs), "equal_scores")
    pick(ps > bs, "player_higher")
    pick((bs > ps) & (ps > 0), "banker_higher")
    pick(res["declines"], "player_declines")
    pick((ps > 0) & (bs - ps > 4) & ~res["declines"], "player_keeps_a_losing_bull")
    pick((ps == r.max_score) | (bs == r.max_score), "max_score_in_play")

    def decision(rr: Any, tiles: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
        out = evaluate_batch(tiles, decision_spec(rr, r), tables=tables)
        return np.asarray(out.get("decision_last", np.zeros(len(tiles), np.uint8)))

    base = {"net": np.asarray(res["net"], dtype=np.float64)}
    settles = differs_from(
        taungau_showdown_answers, (pl, bk, r, reveals, decision), base, (), ("net",)
    )
    find_catches(variants, "showdown", catches, [(settles, tag_pool(rows))])
    srng = np.random.default_rng(seed)
    hands = deal(srng, sample, 5, deck=32)
    for h in hands:
        records.append(_tn_record(r, h.tolist(), h.tolist(), ["random"]))
    deals = deal(srng, sample, 10, deck=32)
    idx = list(rows)
    spl = np.concatenate([pl[idx], np.sort(deals[:, :5], axis=1)])
    sbk = np.concatenate([bk[idx], np.sort(deals[:, 5:], axis=1)])
    stags = [rows[i] for i in idx] + [["random"] for _ in range(sample)]
    res2 = settle_batch(spl, sbk, r, banker_reveals=reveals, tables=tables)
    for i in range(len(spl)):
        net = int(res2["net"][i])
        records.append(
            {
                "kind": "showdown",
                "player": [TILE_NAMES[t] for t in spl[i]],
                "banker": [TILE_NAMES[t] for t in sbk[i]],
                "banker_reveals": reveals,
                "declines": bool(res2["declines"][i]),
                "winner": "player" if net > 0 else "banker" if net < 0 else "push",
                "net": net,
                "tags": stags[i],
            }
        )
    # -- the house rules under which each vector answers differently (its flags)
    n_hands = len(picked) + len(chosen) + sample
    hand_arr = np.concatenate(
        [picked_arr, every[list(chosen)].reshape(-1, 5), np.sort(hands, axis=1)]
    ).astype(np.uint8)
    hand_base = taungau_hand_answers(hand_arr, r)
    mark_differs(
        records,
        range(n_hands),
        variants,
        "hand",
        differs_from(taungau_hand_answers, (hand_arr, r), hand_base, keys),
    )
    show_base = {"net": np.asarray(res2["net"], dtype=np.float64)}
    mark_differs(
        records,
        range(n_hands, len(records)),
        variants,
        "showdown",
        differs_from(
            taungau_showdown_answers, (spl, sbk, r, reveals, decision), show_base, (), ("net",)
        ),
    )
    for rec in records:
        if (
            not any(t.startswith(("best_", "no_bull")) for t in rec["tags"])
            and rec["kind"] == "hand"
        ):
            rec["tags"] = [
                ("no_bull" if not rec["has_bull"] else f"best_{rec['points']}"),
                *rec["tags"],
            ]
    return finish(records, "taungau", r.name, seed, sample, variants, catches)
