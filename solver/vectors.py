"""``bull vectors``: conformance test vectors with expected answers, as JSON Lines.

A compact, stable set of hands and showdowns for another implementation to test
itself without our code: every category, every special-hand boundary, every tie-break
situation, every 3/6 subtlety — and, for each rule variant and mistake the verifier
knows (:mod:`solver.diagnose`), at least one vector on which that variant gives a
different answer, so a conforming run proves none of them is present. A seeded random
sample follows. The hand-picked part does not depend on ``--seed``.

Each line is one object: ``id``, ``kind`` (``hand`` or ``showdown``), ``tags`` (why it
is there) and the fields ``bull verify`` checks (hand rows: ``hand``, ``has_bull``,
``points``, ``category``...; showdown rows: ``player``, ``banker``/``dealer``,
``winner``, ``net``, with the ``bet`` and ``commission`` used). Hands are written in a
deliberate order (some mistakes depend on it); answers do not depend on the order.

``bull verify GAME VECTORS.jsonl --rules SAME`` passes with exit code 0.

>>> recs, cov = niuniu_vectors("classic", seed=1, sample=4)
>>> recs[0]["kind"], sorted(recs[0])[:4]
('hand', ['bull', 'category', 'hand', 'has_bull'])
>>> cov["uncaught_variants"]
[]
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["build_vectors", "cli_vectors", "niuniu_vectors", "pokdeng_vectors", "taungau_vectors"]

POOL = 20_000
"""Random hands (and deals) searched, with a fixed seed, for situations and catches."""
_POOL_SEED = 20_260_601


def _names(cards: Sequence[int] | npt.NDArray[Any]) -> list[str]:
    from .cards import CARD_NAMES

    return [CARD_NAMES[int(c)] for c in cards]


def _parse(text: str) -> list[int]:
    from .cards import parse_cards

    return parse_cards(text)


def _deal(rng: np.random.Generator, n: int, k: int) -> npt.NDArray[np.uint8]:
    """``n`` rows of ``k`` distinct cards, in random order."""
    return np.argsort(rng.random((n, 52)), axis=1)[:, :k].astype(np.uint8)


Differs = Callable[[Any], npt.NDArray[np.bool_]]
"""``differs(variant)``: the rows of a set of vectors on which the variant's answer
differs from ours."""
Tag = Callable[[int, str], None]
"""``tag(row, tag)``: mark a row of a set of vectors (adding it to the set written)."""


def _find_catches(
    variants: Sequence[Any],
    mode: str,
    catches: dict[str, str],
    tiers: Sequence[tuple[Differs, Tag]],
) -> None:
    """For every variant of ``mode`` not caught yet, a vector that catches it: the first
    row on which it differs, in the first of the ``tiers`` (hand-picked vectors, then a
    pool) that has one, is tagged ``catches:KEY``; ``catches`` records it."""
    for v in variants:
        if mode not in v.modes or v.key in catches:
            continue
        for differs, tag in tiers:
            hit = np.flatnonzero(differs(v))
            if len(hit):
                tag(int(hit[0]), f"catches:{v.key}")
                catches[v.key] = mode
                break


def _differ(
    a: Mapping[str, Any], base: Mapping[str, Any], exact: Sequence[str], close: Sequence[str] = ()
) -> npt.NDArray[np.bool_]:
    """Rows where the answers ``a`` differ from ``base``: in a key of ``exact``, or by more
    than 1e-9 in a key of ``close``."""
    out = np.zeros(len(base[(*exact, *close)[0]]), dtype=bool)
    for k in exact:
        out |= np.asarray(a[k] != base[k], dtype=bool)
    for k in close:
        out |= np.asarray(np.abs(a[k] - base[k]) > 1e-9, dtype=bool)
    return out


def _tag_in(tags: list[list[str]]) -> Tag:
    """Tag rows that are all written already (hand-picked vectors)."""
    return lambda j, t: tags[j].append(t)


def _tag_pool(chosen: dict[int, list[str]]) -> Tag:
    """Tag rows of a pool, choosing them for writing."""
    return lambda j, t: chosen.setdefault(j, []).append(t)


# ================================================================ Niu Niu

# hand-picked hands: (cards as written, tags)
_NN_HANDS: tuple[tuple[str, str], ...] = (
    ("7S 3H 10D 8C 6S", "worked_example niu_4_total_34"),
    ("JS QH KD 5C 5S", "worked_example niu_niu"),
    ("AS 2C 4D 7H 9S", "worked_example bull_a_2_7"),
    ("4C 7C 8D JD KH", "worked_example no_bull"),
    ("KS 9H 8C 3D 7S", "worked_example"),
    ("AS 2C 7D 4H 8S", "only_bull_uses_first_card"),
    ("8S AS 2C 7D 4H", "first_card_not_in_bull"),
    ("10S JH QD KC 5S", "several_bulls niu_5"),
    ("5S 5H 10D JC QS", "several_bulls niu_niu"),
    ("JS QH KD JC KS", "five_faces"),
    ("JS QH KD JC 10S", "four_faces_with_ten"),
    ("JS QH KD JC 9S", "four_faces_without_ten fifth_9"),
    ("JS QH KD JC AS", "four_faces_without_ten fifth_A"),
    ("JS JH JD JC 10S", "four_of_a_kind four_faces_with_ten"),
    ("JS JH JD JC QS", "four_of_a_kind five_faces"),
    ("7S 7H 7D 7C 3S", "four_of_a_kind niu_niu"),
    ("AS AH AD AC 2S", "four_of_a_kind five_small_bull total_6"),
    ("2S 2H 2D 2C AS", "four_of_a_kind five_small_bull total_9"),
    ("AS 2S 3S 4S 5S", "straight_flush ace_low"),
    ("9H 10H JH QH KH", "straight_flush king_high"),
    ("JS QS KS AS 2S", "no_wraparound_straight"),
    ("4D 5D 6D 7D 8D", "straight_flush"),
    ("4D 5D 6H 7D 8D", "straight_not_flush"),
    ("AS AH 2D 2C 3S", "five_small_bull total_9"),
    ("AS AH 2D 3C 3S", "five_small_bull total_10 boundary"),
    ("AS 2H 2D 3C 3S", "five_small_bull_fails total_11 boundary"),
    ("AS AH AD 2C 5S", "five_small_bull_fails card_5 total_10"),
    ("AS AH AD AC 5S", "five_small_bull_fails card_5 total_9"),
    ("AS AH 2D 2C 4S", "five_small_bull total_10 boundary card_4"),
    ("4S 4H AD AC 3S", "five_small_bull_fails total_13"),
    ("AS 2S 3S 4S 6S", "flush_not_straight"),
)

_NN_SHOWDOWNS: tuple[tuple[str, str, str], ...] = (
    ("KS 9H 8C 3D 7S", "KH 9S 8D 3C 7H", "worked_example tie_suit_S_vs_H"),
    ("JS QS KS 5H 5D", "4C 7C 8D JD KH", "worked_example niu_niu_vs_no_bull"),
    ("AS AH AD AC KS", "2S 2H 2D 2C 3S", "quads_rank_vs_highest_card"),
    ("KD KS 9D 8D 3D", "KH KC 9H 8H 3H", "pair_at_top_written_low_suit_first"),
    ("KS KD 9D 8D 3D", "KC KH 9H 8H 3H", "pair_at_top_written_high_suit_first"),
)


def _suit_pairs() -> list[tuple[str, str, str]]:
    """Equal ranks and categories (K 9 8 7 3, Niu 7); the two kings' suits decide."""
    suits = "SHDC"
    out = []
    for a in range(4):
        for b in range(a + 1, 4):
            x, y = (s for s in suits if s not in (suits[a], suits[b]))
            out.append(
                (
                    f"K{suits[a]} 9{x} 8{x} 7{x} 3{x}",
                    f"K{suits[b]} 9{y} 8{y} 7{y} 3{y}",
                    f"tie_all_ranks_equal_suit_{suits[a]}_vs_{suits[b]}",
                )
            )
            out.append(
                (
                    f"K{suits[b]} 9{x} 8{x} 7{x} 3{x}",
                    f"K{suits[a]} 9{y} 8{y} 7{y} 3{y}",
                    f"tie_all_ranks_equal_suit_{suits[b]}_vs_{suits[a]}",
                )
            )
    return out


def _nn_situations(
    rules: Any,
    p_cat: npt.NDArray[Any],
    b_cat: npt.NDArray[Any],
    pl: npt.NDArray[np.uint8],
    bk: npt.NDArray[np.uint8],
) -> dict[str, npt.NDArray[np.bool_]]:
    """Showdown situations worth a vector each (masks over the pool)."""
    pr = np.sort(pl >> 2, axis=1)[:, ::-1]
    br = np.sort(bk >> 2, axis=1)[:, ::-1]
    same = p_cat == b_cat
    top_p = pl.max(axis=1)
    top_b = bk.max(axis=1)
    out = {
        "categories_differ": ~same,
        "tie_top_rank_differs": same & (pr[:, 0] != br[:, 0]),
        "tie_top_rank_equal_second_differs": same & (pr[:, 0] == br[:, 0]) & (pr[:, 1] != br[:, 1]),
        "tie_all_ranks_equal": same & (pr == br).all(axis=1),
        "tie_no_bull_vs_no_bull": same & (p_cat == 0),
        "tie_niu_niu_vs_niu_niu": same & (p_cat == 10),
    }
    s_p = top_p & 3
    s_b = top_b & 3
    suits = "SHDC"
    for a in range(4):
        for b in range(a + 1, 4):
            out[f"tie_top_suit_{suits[a]}_vs_{suits[b]}"] = (
                same
                & ((top_p >> 2) == (top_b >> 2))
                & (((s_p == a) & (s_b == b)) | ((s_p == b) & (s_b == a)))
            )
    return out


def niuniu_vectors(
    rules: Any = None, seed: int = 20261129, sample: int = 200
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Niu Niu vectors under ``rules`` and their coverage summary."""
    from .diagnose import niuniu_catalogue, niuniu_hand_answers, niuniu_showdown_answers
    from .niuniu import Category, evaluate_arrays, load_rules

    r = load_rules(rules)
    bet_names = list(r.bets)
    records: list[dict[str, Any]] = []

    def hand_records(cards: npt.NDArray[np.uint8], tags: list[list[str]]) -> None:
        srt = np.sort(cards, axis=1)
        ev = evaluate_arrays(srt, r)
        for i in range(len(cards)):
            mask = int(ev["bull_mask"][i])
            bull = [int(srt[i, p]) for p in range(5) if mask >> p & 1]
            records.append(
                {
                    "kind": "hand",
                    "hand": _names(cards[i]),
                    "has_bull": bool(ev["has_bull"][i]),
                    "points": int(ev["points"][i]),
                    "category": Category(int(ev["category"][i])).label,
                    "bull": _names(bull) if bull else None,
                    "n_bulls": int(ev["n_bulls"][i]),
                    "tags": tags[i],
                }
            )

    def showdown_records(
        pl: npt.NDArray[np.uint8],
        bk: npt.NDArray[np.uint8],
        bet: npt.NDArray[np.int64],
        tags: list[list[str]],
    ) -> None:
        comm = np.full(len(pl), r.commission)
        a = niuniu_showdown_answers(pl, bk, bet, comm, r)
        for i in range(len(pl)):
            records.append(
                {
                    "kind": "showdown",
                    "player": _names(pl[i]),
                    "banker": _names(bk[i]),
                    "bet": bet_names[int(bet[i])],
                    "commission": r.commission,
                    "winner": ("player", "banker", "push")[int(a["winner"][i])],
                    "net": float(a["net"][i]),
                    "player_category": Category(int(a["player_category"][i])).label,
                    "banker_category": Category(int(a["banker_category"][i])).label,
                    "tags": tags[i],
                }
            )

    # -- hands: hand-picked, then one of every category from the pool
    picked = np.array([_parse(h) for h, _ in _NN_HANDS], dtype=np.uint8)
    tags = [t.split() for _, t in _NN_HANDS]
    rng = np.random.default_rng(_POOL_SEED)
    pool = _deal(rng, POOL, 5)
    base_pool = niuniu_hand_answers(pool, r)
    base_picked = niuniu_hand_answers(picked, r)
    have = {int(c) for c in base_picked["category"]}
    extra: dict[int, list[str]] = {}
    for c in Category:
        if int(c) in have:
            continue
        hit = np.flatnonzero(base_pool["category"] == c)
        if len(hit):
            extra.setdefault(int(hit[0]), []).append(f"category_{c.label}")
            have.add(int(c))
    # -- a vector that catches each hand variant
    variants = niuniu_catalogue(r, "all", bet=r.default_bet)
    catches: dict[str, str] = {}

    def differs(cards: npt.NDArray[np.uint8], base: dict[str, Any]) -> Differs:
        def on(v: Any) -> npt.NDArray[np.bool_]:
            a = niuniu_hand_answers(cards, r, v)
            return _differ(a, base, ("has_bull", "points", "category"))

        return on

    _find_catches(
        variants,
        "hand",
        catches,
        [
            (differs(picked, base_picked), _tag_in(tags)),
            (differs(pool, base_pool), _tag_pool(extra)),
        ],
    )
    hand_records(picked, tags)
    if extra:
        hand_records(pool[list(extra)], list(extra.values()))
    for rec in records:
        rec["tags"] = (
            [f"category_{rec['category']}", *rec["tags"]]
            if not any(t.startswith("category_") for t in rec["tags"])
            else rec["tags"]
        )
    # -- showdowns: hand-picked, situations, every bet, catches
    shows = list(_NN_SHOWDOWNS) + _suit_pairs()
    sp = np.array([_parse(p) for p, _, _ in shows], dtype=np.uint8)
    sb = np.array([_parse(b) for _, b, _ in shows], dtype=np.uint8)
    s_tags = [t.split() for _, _, t in shows]
    s_bet = np.full(len(sp), bet_names.index(r.default_bet), dtype=np.int64)
    ten = _deal(rng, POOL, 10)
    pp, pb = ten[:, :5], ten[:, 5:]
    d_bet = rng.integers(0, len(bet_names), POOL)
    comm = np.full(POOL, r.commission)
    base_deals = niuniu_showdown_answers(pp, pb, d_bet, comm, r)
    rows: list[int] = []
    row_tags: list[list[str]] = []
    for name, mask in _nn_situations(
        r, base_deals["player_category"], base_deals["banker_category"], pp, pb
    ).items():
        hit = np.flatnonzero(mask)
        if len(hit):
            rows.append(int(hit[0]))
            row_tags.append([name])
    for w, label in ((0, "player_wins"), (1, "banker_wins")):
        for cat in sorted(
            set(base_deals["player_category" if w == 0 else "banker_category"].tolist())
        ):
            hit = np.flatnonzero(
                (base_deals["winner"] == w)
                & (base_deals["player_category" if w == 0 else "banker_category"] == cat)
            )
            if len(hit):
                rows.append(int(hit[0]))
                row_tags.append([f"{label}_with_{Category(int(cat)).label}"])
    s_comm = np.full(len(sp), r.commission)
    base_sp = niuniu_showdown_answers(sp, sb, s_bet, s_comm, r)

    def settles(
        pl: npt.NDArray[np.uint8],
        bk: npt.NDArray[np.uint8],
        bet: npt.NDArray[np.int64],
        cm: npt.NDArray[np.float64],
        base: dict[str, Any],
    ) -> Differs:
        def on(v: Any) -> npt.NDArray[np.bool_]:
            a = niuniu_showdown_answers(pl, bk, bet, cm, r, v)
            return _differ(a, base, ("winner",), ("net",))

        return on

    def add_row(j: int, tag: str) -> None:  # a deal may stand for several situations
        if j in rows:
            row_tags[rows.index(j)].append(tag)
        else:
            rows.append(j)
            row_tags.append([tag])

    _find_catches(
        variants,
        "showdown",
        catches,
        [
            (settles(sp, sb, s_bet, s_comm, base_sp), _tag_in(s_tags)),
            (settles(pp, pb, d_bet, comm, base_deals), add_row),
        ],
    )
    showdown_records(sp, sb, s_bet, s_tags)
    showdown_records(pp[rows], pb[rows], d_bet[rows], row_tags)
    # every bet, with a winning hand of each multiplier the bet pays
    for b, bet in enumerate(bet_names):
        if bet == r.default_bet:
            continue
        sel = [int(np.flatnonzero(base_deals["winner"] == w)[0]) for w in (0, 1)]
        showdown_records(
            pp[sel],
            pb[sel],
            np.full(len(sel), b, dtype=np.int64),
            [[f"bet_{bet}", "player_wins"], [f"bet_{bet}", "banker_wins"]],
        )
    # -- the seeded random sample
    srng = np.random.default_rng(seed)
    hand_records(_deal(srng, sample, 5), [["random"] for _ in range(sample)])
    ten = _deal(srng, sample, 10)
    showdown_records(
        ten[:, :5],
        ten[:, 5:],
        srng.integers(0, len(bet_names), sample),
        [["random"] for _ in range(sample)],
    )
    for i, rec in enumerate(records):
        rec["id"] = f"niuniu-{i + 1:04d}"
    uncaught = [v.key for v in variants if v.key not in catches]
    return records, _coverage(records, "niuniu", r.name, seed, sample, catches, uncaught)


def _coverage(
    records: list[dict[str, Any]],
    game: str,
    rules: str,
    seed: int,
    sample: int,
    catches: dict[str, str],
    uncaught: list[str],
) -> dict[str, Any]:
    tags: Counter[str] = Counter(t for rec in records for t in rec["tags"])
    kinds = Counter(rec["kind"] for rec in records)
    return {
        "game": game,
        "rules": rules,
        "vectors": len(records),
        "hands": kinds["hand"],
        "showdowns": kinds["showdown"],
        "seed": seed,
        "sample": sample,
        "tags": dict(sorted(tags.items())),
        "variants_caught": sorted(catches),
        "uncaught_variants": uncaught,
    }


# ================================================================ Tau Ngau

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
    from .taungau import WILD_TILES, analyse, best_plays
    from .tiles import TILE_NAMES, hand_names

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
    from .diagnose import taungau_catalogue, taungau_hand_answers, taungau_showdown_answers
    from .indexing import all_subsets
    from .taungau import load_rules
    from .taungau_play import evaluate_batch, settle_batch
    from .tiles import TILE_NAMES, canonical_hand, parse_tiles

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

    def scores(tiles: npt.NDArray[np.uint8], base: dict[str, Any]) -> Differs:
        def on(v: Any) -> npt.NDArray[np.bool_]:
            a = taungau_hand_answers(tiles, r, v)
            return _differ(a, base, ("points", "has_bull"))

        return on

    _find_catches(
        variants,
        "hand",
        catches,
        [
            (scores(picked_arr, base_picked), _tag_in(tags)),
            (scores(every, base_all), _tag_pool(chosen)),
        ],
    )
    for p, t in zip(picked, tags, strict=True):
        records.append(_tn_record(r, canonical_hand(p), p, t))
    for j, t in chosen.items():
        records.append(_tn_record(r, every[j].tolist(), None, t))
    # -- showdowns
    rng = np.random.default_rng(_POOL_SEED)
    pool = np.argsort(rng.random((POOL, 32)), axis=1)[:, :10].astype(np.uint8)
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
        spec = rr.to_data() if rr != r else r
        if isinstance(spec, dict):
            spec = {**spec, "name": f"{spec['name']}-variant"}
        out = evaluate_batch(tiles, spec, tables=tables)
        return np.asarray(out.get("decision_last", np.zeros(len(tiles), np.uint8)))

    base_net = np.asarray(res["net"], dtype=np.float64)

    def settles(v: Any) -> npt.NDArray[np.bool_]:
        va = taungau_showdown_answers(pl, bk, r, reveals, decision, v)
        return _differ(va, {"net": base_net}, (), ("net",))

    _find_catches(variants, "showdown", catches, [(settles, _tag_pool(rows))])
    srng = np.random.default_rng(seed)
    hands = np.argsort(srng.random((sample, 32)), axis=1)[:, :5]
    for h in hands:
        records.append(_tn_record(r, h.tolist(), h.tolist(), ["random"]))
    deals = np.argsort(srng.random((sample, 32)), axis=1)[:, :10].astype(np.uint8)
    idx = list(rows)
    spl = (
        np.concatenate([pl[idx], np.sort(deals[:, :5], axis=1)])
        if idx
        else np.sort(deals[:, :5], axis=1)
    )
    sbk = (
        np.concatenate([bk[idx], np.sort(deals[:, 5:], axis=1)])
        if idx
        else np.sort(deals[:, 5:], axis=1)
    )
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
    for i, rec in enumerate(records):
        rec["id"] = f"taungau-{i + 1:04d}"
        if (
            not any(t.startswith(("best_", "no_bull")) for t in rec["tags"])
            and rec["kind"] == "hand"
        ):
            rec["tags"] = [
                ("no_bull" if not rec["has_bull"] else f"best_{rec['points']}"),
                *rec["tags"],
            ]
    uncaught = [v.key for v in variants if v.key not in catches]
    return records, _coverage(records, "taungau", r.name, seed, sample, catches, uncaught)


# ================================================================ Pok Deng

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


def pokdeng_vectors(
    rules: Any = None, seed: int = 20261129, sample: int = 200
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Pok Deng vectors under ``rules`` and their coverage summary."""
    from .diagnose import pokdeng_catalogue, pokdeng_hand_answers, pokdeng_showdown_answers
    from .pokdeng import HandType, all_hands, load_rules

    r = load_rules(rules)
    records: list[dict[str, Any]] = []
    catches: dict[str, str] = {}
    variants = pokdeng_catalogue(r, "all")

    def pad(rows: list[list[int]]) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
        arr = np.full((len(rows), 3), 255, dtype=np.uint8)
        for i, row in enumerate(rows):
            arr[i, : len(row)] = row
        return arr, np.array([len(row) for row in rows], dtype=np.int64)

    def hand_recs(
        cards: npt.NDArray[np.uint8], size: npt.NDArray[np.int64], tags: list[list[str]]
    ) -> None:
        a = pokdeng_hand_answers(cards, size, r)
        for i in range(len(cards)):
            t = HandType(int(a["type"][i]))
            records.append(
                {
                    "kind": "hand",
                    "hand": _names(cards[i, : size[i]]),
                    "points": int(a["points"][i]),
                    "type": t.label,
                    "deng": int(a["deng"][i]),
                    "tags": [f"type_{t.label}", *tags[i]],
                }
            )

    picked, psize = pad([_parse(h) for h, _ in _PD_HANDS])
    tags = [t.split() for _, t in _PD_HANDS]
    every, esize = pad([list(h) for h in all_hands(2)] + [list(h) for h in all_hands(3)])
    base_p = pokdeng_hand_answers(picked, psize, r)
    base_e = pokdeng_hand_answers(every, esize, r)
    extra: dict[int, list[str]] = {}
    seen = {(int(t), int(d)) for t, d in zip(base_p["type"], base_p["deng"], strict=True)}
    for j in range(len(every)):
        key = (int(base_e["type"][j]), int(base_e["deng"][j]))
        if key not in seen:
            seen.add(key)
            extra.setdefault(j, []).append(f"deng_{key[1]}")

    def classes(
        cards: npt.NDArray[np.uint8], size: npt.NDArray[np.int64], base: dict[str, Any]
    ) -> Differs:
        def on(v: Any) -> npt.NDArray[np.bool_]:
            a = pokdeng_hand_answers(cards, size, r, v)
            return _differ(a, base, ("type", "points", "deng"))

        return on

    _find_catches(
        variants,
        "hand",
        catches,
        [
            (classes(picked, psize, base_p), _tag_in(tags)),
            (classes(every, esize, base_e), _tag_pool(extra)),
        ],
    )
    hand_recs(picked, psize, tags)
    ex = list(extra)
    if ex:
        hand_recs(every[ex], esize[ex], [extra[j] for j in ex])
    # -- showdowns
    sp, sps = pad([_parse(p) for p, _, _ in _PD_SHOWDOWNS])
    sd, sds = pad([_parse(d) for _, d, _ in _PD_SHOWDOWNS])
    stags = [t.split() for _, _, t in _PD_SHOWDOWNS]
    rng = np.random.default_rng(_POOL_SEED)
    six = _deal(rng, POOL, 6)
    kp = rng.integers(2, 4, POOL)
    kd = rng.integers(2, 4, POOL)
    pp = six[:, :3].copy()
    pp[kp == 2, 2] = 255
    dd = six[:, 3:].copy()
    dd[kd == 2, 2] = 255
    base_s = pokdeng_showdown_answers(sp, sps, sd, sds, r)
    base_pool = pokdeng_showdown_answers(pp, kp, dd, kd, r)
    rows: dict[int, list[str]] = {}

    def settles(
        pl: npt.NDArray[np.uint8],
        ps: npt.NDArray[np.int64],
        dl: npt.NDArray[np.uint8],
        ds: npt.NDArray[np.int64],
        base: dict[str, Any],
    ) -> Differs:
        def on(v: Any) -> npt.NDArray[np.bool_]:
            return _differ(pokdeng_showdown_answers(pl, ps, dl, ds, r, v), base, ("net",))

        return on

    _find_catches(
        variants,
        "showdown",
        catches,
        [
            (settles(sp, sps, sd, sds, base_s), _tag_in(stags)),
            (settles(pp, kp, dd, kd, base_pool), _tag_pool(rows)),
        ],
    )
    srng = np.random.default_rng(seed)
    rh = _deal(srng, sample, 3)
    rk = srng.integers(2, 4, sample)
    rh[rk == 2, 2] = 255
    hand_recs(rh, rk, [["random"] for _ in range(sample)])
    r6 = _deal(srng, sample, 6)
    rkp, rkd = srng.integers(2, 4, sample), srng.integers(2, 4, sample)
    rp, rd = r6[:, :3].copy(), r6[:, 3:].copy()
    rp[rkp == 2, 2] = 255
    rd[rkd == 2, 2] = 255
    idx = list(rows)
    allp = np.concatenate([sp, pp[idx], rp])
    alld = np.concatenate([sd, dd[idx], rd])
    allps = np.concatenate([sps, kp[idx], rkp])
    allds = np.concatenate([sds, kd[idx], rkd])
    alltags = stags + [rows[i] for i in idx] + [["random"] for _ in range(sample)]
    a = pokdeng_showdown_answers(allp, allps, alld, allds, r)
    for i in range(len(allp)):
        net = int(a["net"][i])
        records.append(
            {
                "kind": "showdown",
                "player": _names(allp[i, : allps[i]]),
                "dealer": _names(alld[i, : allds[i]]),
                "winner": ("player", "dealer", "push")[int(a["winner"][i])],
                "net": net,
                "tags": alltags[i],
            }
        )
    for i, rec in enumerate(records):
        rec["id"] = f"pokdeng-{i + 1:04d}"
    uncaught = [v.key for v in variants if v.key not in catches]
    return records, _coverage(records, "pokdeng", r.name, seed, sample, catches, uncaught)


# ================================================================ CLI


def build_vectors(
    game: str,
    rules: str | None = None,
    seed: int = 20261129,
    sample: int = 200,
    tables: str | None = None,
    banker_reveals: str | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The vectors of ``game`` and their coverage summary."""
    from .errors import BullError

    if sample < 0:
        raise BullError(f"--sample must be at least 0, got {sample}")
    if game == "niuniu":
        return niuniu_vectors(rules, seed, sample)
    if game == "taungau":
        return taungau_vectors(rules, seed, sample, banker_reveals, tables)
    if game == "pokdeng":
        return pokdeng_vectors(rules, seed, sample)
    raise BullError(f"`bull vectors` does not support {game!r}")


def _order(rec: dict[str, Any]) -> dict[str, Any]:
    first = ("id", "kind")
    return {k: rec[k] for k in first} | {k: v for k, v in rec.items() if k not in first}


def cli_vectors(args: Any, out: Any) -> int:
    """``bull vectors``: JSON Lines to ``--out`` (written atomically: the file appears
    only complete) or stdout; the coverage note to stdout, or to ``args.err`` (the CLI's
    stream for notes) when the vectors go to stdout, keeping that pure JSON Lines."""
    from .verify_report import AtomicFile

    records, cov = build_vectors(
        args.game, args.rules, args.seed, args.sample, args.tables, args.banker_reveals
    )
    lines = "".join(
        json.dumps(_order(r), ensure_ascii=False, separators=(",", ":")) + "\n" for r in records
    )
    if args.out:
        with AtomicFile(args.out) as f:
            f.write(lines)
        report = out
    else:
        out.write(lines)
        report = args.err
    if args.json:
        report.write(json.dumps(cov) + "\n")
    else:
        report.write(_coverage_text(cov) + "\n")
    return 0


def _coverage_text(cov: dict[str, Any]) -> str:
    tags = cov["tags"]
    main = sorted(
        (t for t in tags if t.startswith(("category_", "best_", "type_", "no_bull"))),
        key=lambda t: (len(t), t),
    )
    situations = sorted(
        t
        for t in tags
        if not t.startswith(("category_", "best_", "type_", "no_bull", "catches:", "random"))
    )
    text = (
        f"{cov['vectors']} {cov['game']} vectors under {cov['rules']} "
        f"({cov['hands']} hands, {cov['showdowns']} showdowns; random sample "
        f"{cov['sample']} with seed {cov['seed']}); covers: {', '.join(main)}; "
        f"{len(situations)} boundary and tie situations; "
        f"variants caught: {len(cov['variants_caught'])}"
    )
    if cov["uncaught_variants"]:
        text += f"; not caught: {', '.join(cov['uncaught_variants'])}"
    return text
