"""The Tau Ngau rule language (issue 22): categories (a bull compared by score, no bull),
their order and their payouts as data. The presets are sugar for it: expanded by
``bull rules taungau --expand`` and read back, each is the same rule set, and its table
columns are byte for byte the built ``taungau`` table's; a malformed, unreachable or
ambiguous category is a one-line error naming it."""

from __future__ import annotations

import io
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from solver.cli import main
from solver.core.errors import RulesError
from solver.core.rules import to_toml
from solver.games.taungau.hands import HAND_SIZE, NUM_TILES, analyse, rule_set_columns
from solver.games.taungau.rules import load_rules
from solver.store.tables import open_table


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("preset", ["macau", "pagat"])
def test_an_expanded_preset_is_the_preset_and_its_table_byte_for_byte(
    preset: str, tmp_path: Path, taungau_tables: Path
) -> None:
    from solver.core.indexing import all_subsets

    code, text, err = run("rules", "taungau", "--rules", preset, "--expand")
    assert code == 0, err
    data = tomllib.loads(text)
    assert not {"zero_counts_as", "settlement", "no_bull_pays"} & set(data)
    assert [c["name"] for c in data["categories"]] == ["bull", "no_bull"]
    path = tmp_path / f"{preset}.toml"
    path.write_text(text, encoding="utf-8")
    full, rules = load_rules(str(path)), load_rules(preset)
    assert full == rules and full.expand() == data
    t = open_table("taungau", taungau_tables)
    cols = rule_set_columns(analyse(all_subsets(NUM_TILES, HAND_SIZE)), full)
    for key, mine in cols.items():
        theirs = np.asarray(t.column(f"{preset}_{key}"))
        assert mine.dtype == theirs.dtype and mine.tobytes() == theirs.tobytes(), key


def _file(tmp_path: Path, cats: list[dict[str, Any]], **top: Any) -> str:
    data = {"game": "taungau", "name": "house", "decline_allowed": False, **top,
            "categories": cats}  # fmt: skip
    path = tmp_path / "house.toml"
    path.write_text(to_toml(data), encoding="utf-8")
    return str(path)


BULL = {"name": "bull", "when": "bull", "rank": 1, "by_points": True, "zero_scores": 10,
        "pays": "difference"}  # fmt: skip
NONE = {"name": "no_bull", "when": "not bull", "rank": 0, "pays": "banker_score"}


def test_categories_say_what_the_keys_say(tmp_path: Path) -> None:
    """The "fixed Macau" house (RULES §9) in categories, and an even-money house with a
    0 scoring 10: the same rule sets as their keys."""
    fixed = load_rules(_file(tmp_path, [BULL, NONE]))
    keys = {"zero_counts_as": 10, "settlement": "difference", "no_bull_pays": "banker_score",
            "decline_allowed": False}  # fmt: skip
    assert fixed == load_rules({"game": "taungau", "name": "house", **keys})
    assert fixed.no_bull_payment(0) == 4 and fixed.no_bull_payment(7) == 7
    even = load_rules(_file(tmp_path, [{**BULL, "pays": 1}, {**NONE, "pays": 1}]))
    assert (even.settlement, even.zero_counts_as, even.max_score) == ("even_money", 10, 10)


@pytest.mark.parametrize(
    "cats,top,words",
    [
        ([{**BULL, "when": "bull >"}, NONE], {}, ["category 1 ('bull')", "malformed"]),
        ([{**NONE, "when": "true"}, BULL], {}, ["category 2 ('bull')", "unreachable"]),
        ([{**BULL, "when": "not bull"}, {**NONE, "when": "true"}], {}, ["ambiguous"]),
        ([{**BULL, "rank": 0}, NONE], {}, ["'bull'", "rank above"]),
        ([{**BULL, "zero_scores": 5}, NONE], {}, ["zero_scores is 5"]),
        ([BULL, {**NONE, "pays": "all"}], {}, ["category 2 ('no_bull')", "pays is 'all'"]),
        ([{**BULL, "pays": 1}, {**NONE, "pays": 4}], {}, ["even money"]),
        ([BULL, NONE], {"settlement": "difference"}, ["'settlement'", "categories"]),
        ([{**BULL, "colour": 1}, NONE], {}, ["'colour'"]),
        ([BULL, {**NONE, "name": "ten"}], {}, ["categories[2].name"]),
    ],
)
def test_bad_categories_are_one_line_errors(
    cats: list[dict[str, Any]], top: dict[str, Any], words: list[str], tmp_path: Path
) -> None:
    path = _file(tmp_path, cats, **top)
    with pytest.raises(RulesError) as exc:
        load_rules(path)
    msg = str(exc.value)
    assert "\n" not in msg and all(w in msg for w in words), msg
    code, out, err = run("rules", "taungau", "--rules", path)
    assert code == 2 and out == "" and err.count("\n") == 1


def test_the_order_of_testing_is_the_files(tmp_path: Path) -> None:
    """``no_bull when not bull`` may come first: a hand with a bull passes it by."""
    assert load_rules(_file(tmp_path, [NONE, BULL])) == load_rules(_file(tmp_path, [BULL, NONE]))
