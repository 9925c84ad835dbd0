"""The Niu Niu rule language (issue 22): today's presets are sugar for it (each preset
expanded, written as TOML, read back, builds its committed table columns byte for byte),
the predicate vocabulary against a brute force written here from its documentation, and
one-line errors for malformed, unreachable and ambiguous categories."""

from __future__ import annotations

import io
import random
import tomllib
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest

from solver.cli import main
from solver.core.errors import RulesError
from solver.games.niuniu.hands import (
    _base_arrays,
    categories,
    compiled_arrays,
    special_flags,
    strength_arrays,
)
from solver.games.niuniu.language import evaluate, features, parse_predicate, show
from solver.games.niuniu.rules import load_rules

REPO = Path(__file__).resolve().parent.parent / "tables"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


# ---------------------------------------------------------------- presets are sugar


@pytest.mark.parametrize(
    "preset,table",
    [
        ("classic", "niuniu"),
        ("casino", "niuniu"),
        ("no_faces", "niuniu_no_faces"),
        pytest.param("shoe6", "niuniu_shoe6", marks=pytest.mark.slow),
    ],
)
def test_expanded_preset_builds_the_committed_columns(
    preset: str, table: str, tmp_path: Path
) -> None:
    code, text, err = run("rules", "niuniu", "--rules", preset, "--expand")
    assert code == 0, err
    data = tomllib.loads(text)
    assert "specials" not in data and len(data["categories"]) >= 11
    path = tmp_path / f"{preset}.toml"
    path.write_text(text, encoding="utf-8")
    full = load_rules(str(path))
    assert full.categories and full.expand() == data  # the full form round-trips
    cols = [f"c{i}" for i in range(5)] + [f"{preset}_category", f"{preset}_strength"]
    t = pq.read_table(REPO / f"{table}.parquet", columns=cols)
    cards = np.stack([t.column(f"c{i}").to_numpy() for i in range(5)], axis=1)
    cat, strength = compiled_arrays(cards, full)
    want_cat = t.column(f"{preset}_category").to_numpy()
    want_strength = t.column(f"{preset}_strength").to_numpy()
    assert cat.dtype == want_cat.dtype and cat.tobytes() == want_cat.tobytes()
    assert strength.dtype == want_strength.dtype
    assert strength.tobytes() == want_strength.tobytes()
    # today's keys, evaluated directly (the diagnosis's own evaluator), agree too
    rules = load_rules(preset)
    base = _base_arrays(cards, rules)
    legacy = categories(base, special_flags(base, rules), rules)
    assert legacy.tobytes() == want_cat.tobytes()
    assert strength_arrays(cards, legacy, rules).tobytes() == want_strength.tobytes()
    # and the expanded file settles like the preset: same multipliers, bets, ties
    assert full.bets == rules.bets and full.default_bet == rules.default_bet
    for bet in rules.bets:
        mine, theirs = full.multiplier_row(bet), rules.multiplier_row(bet)
        assert [mine[k] for k in full.codes] == [theirs[k] for k in full.codes]
    assert full.on_tie == rules.on_tie and full.category_rank[:18] == rules.category_rank


@pytest.mark.parametrize("game", ["niuniu", "pokdeng", "taungau"])
def test_every_game_expands_its_default_rules(game: str, tmp_path: Path) -> None:
    """Each game has the language: its default preset expanded reads back as itself."""
    from solver import games

    code, text, err = run("rules", game, "--expand")
    assert code == 0, err
    path = tmp_path / "full.toml"
    path.write_text(text, encoding="utf-8")
    entry = games.get(game)
    full, rules = entry.load_rules(str(path)), entry.load_rules(None)
    assert full.expand() == rules.expand() == tomllib.loads(text)


# ---------------------------------------------------------------- the vocabulary

VALUE = [min(r + 1, 10) for r in range(13)]


def _brute(cards: list[int]) -> dict[str, Any]:
    """The vocabulary from its documentation, one hand at a time."""
    ranks = [c >> 2 for c in cards]
    suits = [c & 3 for c in cards]
    vals = [VALUE[r] for r in ranks]
    best, bull_pair = 0, False
    for tri in combinations(range(5), 3):
        if sum(vals[i] for i in tri) % 10 == 0:
            x, y = (i for i in range(5) if i not in tri)
            pts = (vals[x] + vals[y]) % 10 or 10
            best = max(best, pts)
    for tri in combinations(range(5), 3):
        x, y = (i for i in range(5) if i not in tri)
        if sum(vals[i] for i in tri) % 10 == 0 and ranks[x] == ranks[y]:
            bull_pair = True
    counts = {r: ranks.count(r) for r in ranks}
    srt = sorted(ranks)
    low = len(counts) == 5 and srt[4] - srt[0] == 4
    high = sorted(ranks) == [0, 9, 10, 11, 12]
    return {
        "bull": best > 0,
        "points": best,
        "bull_pair": bull_pair,
        "faces": sum(r >= 10 for r in ranks),
        "tens": ranks.count(9),
        "ten_valued": sum(r >= 9 for r in ranks),
        "total": sum(vals),
        "kind": max(counts.values()),
        "pairs": sum(v >= 2 for v in counts.values()),
        "flush": len(set(suits)) == 1,
        "straight(low)": low,
        "straight(high)": high,
        "straight(both)": low or high,
        "all_in('A-4')": all(r <= 3 for r in ranks),
        "count_in('10 J Q K')": sum(r >= 9 for r in ranks),
    }


def test_vocabulary_matches_a_brute_force_on_sampled_and_chosen_hands() -> None:
    rng = random.Random(22)
    hands = [sorted(rng.sample(range(52), 5)) for _ in range(3000)]
    hands += [
        [0, 37, 41, 45, 49],  # A 10 J Q K: straight(high)
        [0, 4, 8, 12, 16],  # A-5 of spades: straight flush
        [4, 5, 36, 40, 44],  # 2 2 10 J Q? 10+J+Q = 30 bull, 2+2: a bull pair
        [0, 1, 2, 3, 4],  # four aces
    ]
    arr = np.array([sorted(h) for h in hands], dtype=np.uint8)
    f = features(arr)
    brute = [_brute(h) for h in arr.tolist()]
    for name in brute[0]:
        if "(" in name:  # a call: an int call is read through a comparison that is true
            text = name if name.startswith(("straight", "all_in")) else f"{name} >= 0"
            e = parse_predicate(text)
            got = evaluate(e if text == name else e[2], f)
        else:
            got = np.asarray(f[name])
        want = np.array([b[name] for b in brute])
        assert (np.asarray(got) == want).all(), name
    assert sum(b["bull_pair"] for b in brute) > 50 and sum(b["straight(high)"] for b in brute)


@pytest.mark.parametrize(
    "text",
    [
        "bull and bull_pair",
        "not (faces == 5 or kind >= 4) and points > 7",
        "all_in('A-4') and total <= 10",
        "straight(both) and flush or count_in('J Q K') == 3",
        "not not true",
    ],
)
def test_predicates_print_and_parse_back(text: str) -> None:
    e = parse_predicate(text)
    assert parse_predicate(show(e)) == e


# ---------------------------------------------------------------- one-line errors


def _file(tmp_path: Path, cats: list[dict[str, Any]], **top: Any) -> str:
    from solver.core.rules import to_toml

    data = {"game": "niuniu", "name": "house", "bets": ["standard"], **top, "categories": cats}
    path = tmp_path / "house.toml"
    path.write_text(to_toml(data), encoding="utf-8")
    return str(path)


CATCH_ALL = {"name": "other", "when": "true", "rank": 0}


@pytest.mark.parametrize(
    "cats,words",
    [
        ([{"name": "big", "when": "faces >> 2", "rank": 5}, CATCH_ALL], ["'big'", "malformed"]),
        ([{"name": "big", "when": "faces", "rank": 5}, CATCH_ALL], ["'big'", "not a test"]),
        ([{"name": "big", "when": "facez == 5", "rank": 5}, CATCH_ALL], ["'big'", "facez"]),
        (
            [CATCH_ALL, {"name": "late", "when": "faces == 5", "rank": 5}],
            ["'late'", "unreachable", "above"],
        ),
        (
            [{"name": "six", "when": "faces == 6", "rank": 5}, CATCH_ALL],
            ["'six'", "unreachable", "no hand matches"],
        ),
        (
            [
                {"name": "a", "when": "faces == 5", "rank": 3, "tie": ["highest_card"]},
                {"name": "b", "when": "kind == 4", "rank": 3, "tie": ["rank_by_rank"]},
                CATCH_ALL,
            ],
            ["'b'", "rank 3", "ambiguous"],
        ),
        (
            [
                {"name": "a", "when": "faces == 5", "rank": 3, "tie": ["push"]},
                {"name": "b", "when": "true", "rank": 0, "tie": ["banker"]},
            ],
            ["'a'", "'b'", "ambiguous"],
        ),
        ([{"name": "a", "when": "faces == 5", "rank": 3}, {**CATCH_ALL, "name": "a"}], ["twice"]),
        ([{"name": "a", "when": "bull", "rank": 3}], ["no category takes", "catch-all"]),
        (
            [{"name": "a", "when": "true", "rank": 3, "tie": ["push", "highest_card"]}],
            ["'a'", "last"],
        ),
    ],
)
def test_bad_categories_are_one_line_errors(
    cats: list[dict[str, Any]], words: list[str], tmp_path: Path
) -> None:
    path = _file(tmp_path, cats)
    with pytest.raises(RulesError) as exc:
        load_rules(path)
    msg = str(exc.value)
    assert "\n" not in msg and all(w in msg for w in words), msg
    code, out, err = run("rules", "niuniu", "--rules", path)
    assert code == 2 and out == "" and err.count("\n") == 1


def test_todays_keys_are_refused_beside_categories(tmp_path: Path) -> None:
    path = _file(tmp_path, [CATCH_ALL], specials=["five_faces"])
    with pytest.raises(RulesError, match="'specials' is said per category"):
        load_rules(path)


# ---------------------------------------------------------------- a house of its own


HK = [
    {"name": "bull_pair", "when": "bull and bull_pair", "rank": 11,
     "tie": ["rank_by_rank", "push"], "multipliers": {"standard": 5}},
    {"name": "niu_niu", "when": "points == 10", "rank": 10, "tie": ["rank_by_rank", "push"],
     "multipliers": {"standard": 3}},
    {"name": "bull", "when": "bull", "rank": 1, "by_points": True,
     "tie": ["rank_by_rank", "push"]},
    {"name": "no_bull", "when": "true", "rank": 0,
     "tie": ["number_of_pairs", "pair_rank", "rank_by_rank", "push"]},
]  # fmt: skip


def test_a_house_category_is_answered_from_its_own_exact_table(tmp_path: Path) -> None:
    path = _file(tmp_path, HK, deck="no_faces")  # 40 cards: a small table to build
    tables = tmp_path / "tables"
    tables.mkdir()
    code, out, err = run(
        "eval", "niuniu", "2S 2H 4D 6C 10S", "--rules", path, "--tables", str(tables)
    )
    assert code == 0, err
    assert "bull pair" in out and "building" in err  # 4+6+10 = 20, the other two a pair
    code, out, err = run(
        "eval", "niuniu", "2S 3H 4D 6C 10S", "--rules", path, "--tables", str(tables)
    )
    assert code == 0 and "bull" in out and "building" not in err  # cached: no rebuild
    assert list((tables / "rules").glob("niuniu_no_faces-*.parquet"))
    code, out, err = run(
        "compare", "niuniu", "2D 2C 5H 9D AS", "2S 3H 4D 9C 10S", "--rules", path,
        "--tables", str(tables), "--json",
    )  # fmt: skip
    assert code == 0, err
    import json

    rec = json.loads(out)
    assert rec["winner"] == "player"  # no bull each: one pair beats no pair
    rules = load_rules(path)
    row = rules.multiplier_row(None)
    assert row[rules.codes[0]] == 5 and row[rules.codes[2]] == 1


def test_the_readme_example_is_a_working_rule_file(tmp_path: Path) -> None:
    import re

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("## The rule language", 1)[1].split("\n## ", 1)[0]
    (body,) = re.findall(r"```toml\n(# hk\.toml.*?)```", section, re.S)
    path = tmp_path / "hk.toml"
    path.write_text(body, encoding="utf-8")
    rules = load_rules(str(path))
    assert [c.name for c in rules.compiled] == [
        "five_faces",
        "bull_pair",
        "niu_niu",
        "bull",
        "no_bull",
    ]
    # 2 2 4 6 10: 4+6+10 = 20 is a bull and the other two a pair; 2 3 4 6 10: a plain bull
    hands = np.array([[4, 5, 14, 20, 36], [4, 9, 14, 20, 36]], dtype=np.uint8)
    cat, strength = compiled_arrays(hands, rules)
    assert [rules.labels[c] for c in cat.tolist()] == ["bull_pair", "bull"]
    assert strength[0] > strength[1]
