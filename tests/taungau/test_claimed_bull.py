"""Issue 13: the claimed ``bull`` column names a mistake. A Tau Ngau player who takes a
legal bull that is not the best and scores it correctly is diagnosed as
``mistake=wrong_bull_scored_correctly`` (first, contradicting no agreeing row), not as a
3/6 mistake; a player who really makes a 3/6 mistake, claiming the bull he plays, is
still named by that 3/6 mistake.

The implementations are written here from RULES.md §4, vectorised over all
C(32, 5) = 201,376 hands of physical tiles: a tile is worth its pips, [2:1] and [4:2]
3 or 6 each (chosen per tile); a bull is three tiles totalling a multiple of 10; the
score is the last digit of the five tiles' total under the choice (0 counts as 10 under
``macau``, no bull scores 0).
"""

from __future__ import annotations

import io
import json
import random
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from solver.cli import main
from taungau import fixtures as ref

ALL_TRIPLES = list(combinations(range(5), 3))
ORDER = ALL_TRIPLES[:]
random.Random(13).shuffle(ORDER)  # the implementation's own fixed search order
WILD_21, WILD_42 = ref.TILE_TYPE.index((2, 1)), ref.TILE_TYPE.index((4, 2))
KEY = "mistake=wrong_bull_scored_correctly"


def all_hands() -> npt.NDArray[np.int64]:
    """Every 5-subset of the 32 tile indices (``ref.TILE_TYPE`` order: canonical)."""
    flat = np.fromiter(
        (t for h in combinations(range(32), 5) for t in h), dtype=np.int64, count=201_376 * 5
    )
    return flat.reshape(-1, 5)


def values(hands: npt.NDArray[np.int64], fixed: int | None = None) -> npt.NDArray[np.int64]:
    """(4, n, 5): tile values under the four 3/6 choices (bit 0: [2:1] is 6, bit 1:
    [4:2] is 6); ``fixed``: both always that value (no choice)."""
    pips = np.array([hi + lo for hi, lo in ref.TILE_TYPE], dtype=np.int64)[hands]
    out = np.stack([pips] * 4)
    for c in range(4):
        v21 = 6 if c & 1 else 3
        v42 = 6 if c & 2 else 3
        if fixed is not None:
            v21 = v42 = fixed
        out[c][hands == WILD_21] = v21
        out[c][hands == WILD_42] = v42
    return out


def macau(digit: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    return np.where(digit == 0, 10, digit)


def bull_scores(v: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """(10, n): per triple (``ALL_TRIPLES``), the best macau score it leaves over the
    choices under which it is a bull (0: a bull under no choice)."""
    total = macau(v.sum(axis=2) % 10)  # (4, n)
    out = np.zeros((len(ALL_TRIPLES), v.shape[1]), dtype=np.int64)
    for t, tri in enumerate(ALL_TRIPLES):
        ok = v[:, :, list(tri)].sum(axis=2) % 10 == 0
        out[t] = np.where(ok, total, 0).max(axis=0)
    return out


def claims(
    hands: npt.NDArray[np.int64], scores: npt.NDArray[np.int64], pick: npt.NDArray[np.int64]
) -> pa.Table:
    """Rows claiming the bull ``ALL_TRIPLES[pick]`` and its score (0: no bull)."""
    names = np.array(ref.NAMES, dtype=object)
    text = ["".join(h) for h in names[hands]]
    tri = np.array(ALL_TRIPLES)[pick]  # (n, 3)
    bull_tiles = np.take_along_axis(hands, tri, axis=1)
    pts = np.take_along_axis(scores, pick[None], axis=0)[0]
    bull = ["".join(b) if p else "none" for b, p in zip(names[bull_tiles], pts, strict=True)]
    return pa.table(
        {"hand": text, "has_bull": (pts > 0).tolist(), "bull": bull, "points": pts.tolist()}
    )


def verify(path: Path, tables: Path) -> dict[str, Any]:
    out, err = io.StringIO(), io.StringIO()
    code = main(
        ["verify", "taungau", str(path), "--tables", str(tables), "--json"], out=out, err=err
    )
    assert code == 1, err.getvalue()
    s: dict[str, Any] = json.loads(out.getvalue())
    return s


@pytest.fixture(scope="module")
def hands() -> npt.NDArray[np.int64]:
    return all_hands()


@pytest.mark.slow
def test_first_bull_in_own_order_scored_correctly(
    tmp_path: Path, taungau_tables: Path, hands: npt.NDArray[np.int64]
) -> None:
    scores = bull_scores(values(hands))
    best = scores.max(axis=0)
    assert int((best == 0).sum()) == 55_510  # RULES §6
    # the first triple, in the implementation's own order, that is a bull at all
    legal = np.stack([scores[ALL_TRIPLES.index(t)] > 0 for t in ORDER])  # (10, n)
    first = np.array([ALL_TRIPLES.index(t) for t in ORDER])[np.argmax(legal, axis=0)]
    table = claims(hands, scores, first)
    wrong = int((np.take_along_axis(scores, first[None], axis=0)[0] != best).sum())
    assert wrong > 5_000  # only a [2:1]/[4:2] makes two bulls score differently
    pq.write_table(table, tmp_path / "first.parquet")
    s = verify(tmp_path / "first.parquet", taungau_tables)
    assert s["checked"] == len(hands) and s["disagree"] == wrong
    head = s["diagnosis"][0]
    assert (head["id"], head["kind"]) == (KEY, "mistake"), s["diagnosis"][:3]
    assert head["explains"] == wrong and head["contradicts"] == 0
    # the search order is not the canonical one: the "first bull found" mistake is not it
    first_bull = next((d for d in s["diagnosis"] if d["id"] == "mistake=first_bull"), None)
    assert first_bull is None or first_bull["explains"] < wrong
    assert s["fields"]["bull"]["disagree"] == 0  # every claimed bull is a legal one


@pytest.mark.slow
@pytest.mark.parametrize(
    ("fixed", "expected"), [(3, "mistake=wild_fixed_3"), (6, "mistake=wild_fixed_6")]
)
def test_a_3_6_mistake_is_still_named_with_its_bull_claimed(
    tmp_path: Path,
    taungau_tables: Path,
    hands: npt.NDArray[np.int64],
    fixed: int,
    expected: str,
) -> None:
    """[2:1] and [4:2] always worth ``fixed``: the player claims the first bull (in
    lexicographic order) of his best score, scored his way."""
    right = bull_scores(values(hands)).max(axis=0)
    mine = bull_scores(values(hands, fixed))
    pick = np.argmax(mine == mine.max(axis=0)[None], axis=0)
    got = mine.max(axis=0)
    wrong = int((got != right).sum())
    assert wrong > 1_000
    pq.write_table(claims(hands, mine, pick), tmp_path / "fixed.parquet")
    s = verify(tmp_path / "fixed.parquet", taungau_tables)
    assert s["disagree"] == wrong
    head = s["diagnosis"][0]
    assert head["id"] == expected, s["diagnosis"][:3]
    assert head["explains"] == wrong and head["contradicts"] == 0
    ours = next((d for d in s["diagnosis"] if d["id"] == KEY), None)
    assert ours is None or ours["explains"] < wrong


def test_hand_worked_rows(tmp_path: Path, taungau_tables: Path) -> None:
    """[1:1][2:1][3:3][4:4][6:3] = 2, 3|6, 6, 8, 9 has two bulls: [2:1][3:3][4:4] with
    [2:1] as 6 (6+6+8 = 20) leaves [1:1][6:3] = 11, score 1; [2:1][4:4][6:3] with [2:1]
    as 3 (3+8+9 = 20) leaves [1:1][3:3] = 8, the best."""
    hand = "[1:1][2:1][3:3][4:4][6:3]"
    rows = [
        {"hand": hand, "bull": "[2:1][3:3][4:4]", "points": 1},  # the wrong bull, scored right
        {"hand": hand, "bull": "[2:1][4:4][6:3]", "points": 8},  # right
        {"hand": hand, "bull": "[2:1][3:3][4:4]", "points": 8},  # that bull cannot score 8
        {"hand": hand, "bull": None, "points": 1},  # no bull claimed: nothing to go by
        {"hand": hand, "bull": "[2:1][4:4][6:3]", "points": 1},  # the right bull, scored wrong
    ]
    path = tmp_path / "w.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out_file = tmp_path / "out.jsonl"
    out, err = io.StringIO(), io.StringIO()
    args = ["verify", "taungau", str(path), "--tables", str(taungau_tables), "--json"]
    code = main([*args, "--out", str(out_file)], out=out, err=err)
    assert code == 1, err.getvalue()
    s = json.loads(out.getvalue())
    assert s["disagree"] == 4
    by_line = {
        r["line"]: r["explained_by"] for r in map(json.loads, out_file.read_text().splitlines())
    }
    assert set(by_line) == {1, 3, 4, 5}
    assert [line for line, ids in by_line.items() if KEY in ids] == [1]
    ours = next(d for d in s["diagnosis"] if d["id"] == KEY)
    assert (ours["explains"], ours["contradicts"]) == (1, 0)
