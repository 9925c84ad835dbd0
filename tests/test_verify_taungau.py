"""`bull verify` on Tau Ngau claims: clean files, planted mistakes (caught on the right
rows and named), claimed bulls, showdowns and malformed rows; the mistakes planted with
an independent evaluator written here from RULES.md §4, never with the code under test."""

from __future__ import annotations

import json
import random
from functools import cache, partial
from itertools import combinations, product
from pathlib import Path

import pytest
from test_verify import assert_planted, verify_json, write_csv, write_jsonl

CIVIL = {(6, 6), (1, 1), (4, 4), (3, 1), (5, 5), (3, 3), (2, 2), (6, 5), (6, 4), (6, 1), (5, 1)}
TILE_SET = [
    (hi, lo)
    for hi in range(1, 7)
    for lo in range(1, hi + 1)
    for _ in range(2 if (hi, lo) in CIVIL else 1)
]
WILD = {(2, 1), (4, 2)}


def tile_text(tiles: list[tuple[int, int]]) -> str:
    return "".join(f"[{hi}:{lo}]" for hi, lo in tiles)


def tn_digits(tiles: list[tuple[int, int]], mistake: str | None = None) -> set[int]:
    """Last digits some bull reaches (RULES §4), trying every per-tile 3/6 choice; or
    the mistakes: no choice (3 only), or a wild tile kept in the bull whenever it can be."""
    return set(_tn_digits(tuple(tiles), mistake))


@cache
def _tn_digits(tiles: tuple[tuple[int, int], ...], mistake: str | None) -> frozenset[int]:
    if mistake == "first_bull":  # searched in sorted order (the values follow the tiles)
        tiles = tuple(sorted(tiles))
    options = [
        ((3,) if mistake == "fixed_3" else (3, 6)) if t in WILD else (t[0] + t[1],) for t in tiles
    ]
    if mistake in ("first_bull", "first_bull_written"):
        # the first triple that makes a bull: of the sorted hand, or of the hand as written
        first = next(
            (
                tri
                for tri in combinations(range(5), 3)
                for vals in product(*options)
                if sum(vals[i] for i in tri) % 10 == 0
            ),
            None,
        )
        return frozenset(
            sum(vals) % 10
            for vals in product(*options)
            if first and sum(vals[i] for i in first) % 10 == 0
        )
    plain, with_wild = set(), set()
    for vals in product(*options):
        for tri in combinations(range(5), 3):
            if sum(vals[i] for i in tri) % 10 == 0:
                rest = [
                    3 if mistake == "rest_3" and tiles[i] in WILD else vals[i]
                    for i in range(5)
                    if i not in tri
                ]
                d = (sum(vals[i] for i in tri) + sum(rest)) % 10
                plain.add(d)
                if any(tiles[i] in WILD for i in tri):
                    with_wild.add(d)
    return frozenset(with_wild if mistake == "in_bull" and with_wild else plain)


def tn_best(digits: set[int], zero_as: int = 10) -> int | None:
    if not digits:
        return 0 if zero_as == 10 else None
    return max((zero_as if d == 0 else d) for d in digits) if zero_as == 10 else max(digits)


def tn_hands(n: int, seed: int) -> list[list[tuple[int, int]]]:
    rng = random.Random(seed)
    fixed = [
        [(6, 6), (6, 5), (4, 3), (4, 2), (2, 2)],
        [(1, 1), (1, 1), (2, 1), (2, 2), (2, 2)],
        [(1, 1), (2, 1), (2, 2), (2, 2), (3, 1)],
        [(6, 5), (4, 1), (6, 4), (6, 4), (5, 5)],
        [(4, 2), (2, 1), (6, 6), (5, 5), (3, 3)],
    ]
    return fixed + [sorted(rng.sample(TILE_SET, 5)) for _ in range(n)]


tn_verify = partial(verify_json, game="taungau")


def test_taungau_clean_and_kinds(tmp_path: Path, taungau_tables: Path) -> None:
    hands = tn_hands(800, 5)
    rows = [
        {"hand": tile_text(h), "has_bull": bool(tn_digits(h)), "points": tn_best(tn_digits(h))}
        for h in hands
    ]
    code, s = tn_verify(write_jsonl(tmp_path / "c.jsonl", rows), taungau_tables)
    assert code == 0 and s["checked"] == len(rows)
    # pagat: no bull is null (empty: not stated), 0 the lowest bull
    rows = [{"hand": tile_text(h), "points": tn_best(tn_digits(h), 0)} for h in hands]
    code, s = tn_verify(write_csv(tmp_path / "p.csv", rows), taungau_tables, "--rules", "pagat")
    assert code == 0
    # every legal score that is not the best is `suboptimal`, every other one `illegal`
    rows, kinds = [], {"suboptimal": 0, "illegal": 0}
    for h in hands[:300]:
        d = tn_digits(h)
        best = tn_best(d)
        for p in range(11):
            if p == best:
                continue
            rows.append({"hand": tile_text(h), "points": p})
            legal = p != 0 and p % 10 in d
            kinds["suboptimal" if legal else "illegal"] += 1
    out = tmp_path / "bad.jsonl"
    code, s = tn_verify(write_jsonl(tmp_path / "k.jsonl", rows), taungau_tables, "--out", str(out))
    assert code == 1 and s["disagree"] == len(rows)
    assert s["fields"]["points"]["kinds"] == kinds
    written = [json.loads(x) for x in out.read_text().splitlines()]
    assert {k: sum(r["kind"] == k for r in written) for k in kinds} == kinds
    assert all(r["reason"].startswith("claimed points") for r in written)


@pytest.mark.parametrize(
    ("mistake", "expected"),
    [
        ("zero", "zero_counts_as=0"),
        ("fixed_3", "mistake=wild_fixed_3"),
        ("in_bull", "mistake=wild_in_bull"),
        ("rest_3", "mistake=wild_rest_3"),
        ("first_bull", "mistake=first_bull"),
        ("first_bull_written", "mistake=first_bull_as_written"),
    ],
)
def test_taungau_planted(tmp_path: Path, taungau_tables: Path, mistake: str, expected: str) -> None:
    rows, wrong = [], set()
    rng = random.Random(7)
    for i, h in enumerate(tn_hands(2500, 6)):
        if mistake == "first_bull_written":  # written in a random order, searched so
            h = rng.sample(h, len(h))
        good = tn_best(tn_digits(h))
        if mistake == "zero":
            bad = tn_best(tn_digits(h), 0)
            bad = "none" if bad is None else bad
        else:
            bad = tn_best(tn_digits(h, mistake))
        rows.append({"hand": tile_text(h), "points": bad})
        if bad != good:
            wrong.add(i + 1)
    out = tmp_path / "bad.jsonl"
    code, s = tn_verify(write_jsonl(tmp_path / "t.jsonl", rows), taungau_tables, "--out", str(out))
    assert_planted(code, s, out, wrong, expected)
    assert s["diagnosis"][0]["contradicts"] == 0
    if mistake == "first_bull_written":  # the sorted search does not explain it
        assert "order the cards were written" in s["headline"], s["headline"]
        canonical = [d for d in s["diagnosis"] if d["key"] == "mistake=first_bull"]
        assert not canonical or canonical[0]["explains"] < len(wrong), canonical


def test_taungau_bull_claims(tmp_path: Path, taungau_tables: Path) -> None:
    """A claimed bull is right when it is a real bull (with stated 3/6 values, if any)
    that reaches the claimed score; any such bull, not only ours."""
    hand = [(6, 6), (6, 5), (4, 3), (4, 2), (2, 2)]  # 12 11 7 3|6 4
    rows = [
        ({"bull": "[6:6][6:5][4:3]", "points": 10}, True),  # 30; rest 4+6 = 10
        ({"bull": "[6:6][6:5][4:3]", "points": 7}, True),  # 30; rest 4+3 = 7, legal
        ({"bull": "[6:6][6:5][4:3]", "points": 10, "values": "[4:2]=3"}, False),
        ({"bull": "[6:6][4:3][4:2]", "points": 10}, False),  # 12+7+3|6: no bull
        ({"bull": "[6:6][4:4][2:2]", "points": 10}, False),  # [4:4] is not in the hand
        ({"bull": "none", "points": 10}, False),
    ]
    data = [{"hand": tile_text(hand), **r} for r, _ in rows]
    out = tmp_path / "bad.jsonl"
    _, s = tn_verify(write_jsonl(tmp_path / "b.jsonl", data), taungau_tables, "--out", str(out))
    bad_bull = {
        json.loads(x)["line"]
        for x in out.read_text().splitlines()
        if "bull" in json.loads(x)["fields"]
    }
    assert bad_bull == {i + 1 for i, (_, ok) in enumerate(rows) if not ok}
    assert s["fields"]["points"]["kinds"] == {"suboptimal": 1}


def tn_net_macau_first(p: int | None, b: int | None) -> int:
    """macau, banker reveals first: p, b are scores (None = no bull)."""
    if p is None:
        return -4
    bb = b or 0
    return -4 if bb - p > 4 else p - bb


def test_taungau_showdowns(tmp_path: Path, taungau_tables: Path) -> None:
    rng = random.Random(9)
    rows, bad_rows, wrong = [], [], set()
    for i in range(1200):
        ten = rng.sample(TILE_SET, 10)
        p, b = sorted(ten[:5]), sorted(ten[5:])
        ps, bs = tn_digits(p), tn_digits(b)
        pv = tn_best(ps) if ps else None
        bv = tn_best(bs) if bs else None
        net = tn_net_macau_first(pv, bv)
        win = "player" if net > 0 else "banker" if net < 0 else "push"
        rows.append({"player": tile_text(p), "banker": tile_text(b), "winner": win, "net": net})
        # even money (pagat's settlement), scores still on the macau scale
        em = (
            0
            if pv is None and bv is None
            else 1
            if bv is None
            else -1
            if pv is None
            else (pv > bv) - (pv < bv)
        )
        bad_rows.append(
            {
                **rows[-1],
                "net": em,
                "winner": "player" if em > 0 else "banker" if em < 0 else "push",
            }
        )
        if em != net:
            wrong.add(i + 1)
    code, s = tn_verify(
        write_jsonl(tmp_path / "s.jsonl", rows), taungau_tables, "--banker-reveals", "first"
    )
    assert code == 0 and s["checked"] == len(rows)
    code, s = tn_verify(
        write_jsonl(tmp_path / "e.jsonl", bad_rows), taungau_tables, "--banker-reveals", "first"
    )
    assert code == 1 and s["disagree"] == len(wrong)
    assert s["diagnosis"][0]["key"] == "settlement=even_money"
    assert s["diagnosis"][0]["explains"] == len(wrong)


def test_taungau_malformed(tmp_path: Path, taungau_tables: Path) -> None:
    path = tmp_path / "m.csv"
    path.write_text(
        "hand,points\n[6:6][6:5][4:3][4:2][2:2],10\n[7:1][6:5][4:3][4:2][2:2],1\n"
        "[6:6][6:6][6:6][4:2][2:2],1\n[6:6][6:5],1\n"
    )
    code, s = tn_verify(path, taungau_tables)
    assert code == 1 and s["checked"] == 1
    assert [m["line"] for m in s["malformed_rows"]] == [3, 4, 5]
    assert "too many copies" in s["malformed_rows"][1]["message"]
    path = tmp_path / "s.csv"
    path.write_text(
        "player,banker,net\n[6:6][6:6][4:3][4:2][2:2],[6:6][1:1][5:5][3:3][5:4],1\n"
        "[6:6][6:5][4:3][4:2][2:2],[6:6][1:1][5:5][3:3][5:4],\n"
    )
    code, s = tn_verify(path, taungau_tables)
    assert s["malformed"] == 1 and "held 3 times" in s["malformed_rows"][0]["message"]
