"""Niu Niu rule files: every house-rule option is read, validated with a one-line error
naming the key and the allowed values, written back by ``to_data`` with its default
filled in, and round-trips; presets keep their content."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from solver.core.errors import RulesError
from solver.games.niuniu.rules import SPECIALS, Category, load_rules

MULTI = """
game = "niuniu"
name = "multi"
base = "classic"
bets = ["equal", "double", "multi"]
default_bet = "multi"

[multipliers.multi]
no_bull = 1
niu_1 = 1
niu_2 = 2
niu_3 = 3
niu_4 = 4
niu_5 = 5
niu_6 = 6
niu_7 = 7
niu_8 = 8
niu_9 = 9
niu_niu = 10
five_faces = 11
"""


def classic() -> dict[str, Any]:
    return load_rules("classic").to_data()


def one_line(exc: pytest.ExceptionInfo[RulesError]) -> str:
    text = str(exc.value)
    assert "\n" not in text
    return text


def test_every_option_is_in_to_data_with_its_default() -> None:
    data = classic()
    for key in ("deck", "on_tie", "bull_from_three_of_a_kind"):
        assert key in data
    assert (data["deck"], data["on_tie"], data["bull_from_three_of_a_kind"]) == (
        "standard",
        "push",
        False,
    )
    assert data["special_definitions"]["four_faces_fifth"] == "ten"
    # a file that leaves them out reads the defaults
    bare = {
        k: v for k, v in data.items() if k not in ("deck", "on_tie", "bull_from_three_of_a_kind")
    }
    assert load_rules(bare).to_data() == {**data, "name": "classic"}


@pytest.mark.parametrize("preset", ["classic", "casino", "no_faces"])
def test_presets_round_trip(preset: str) -> None:
    r = load_rules(preset)
    assert load_rules(r.to_data()) == r
    assert set(r.to_data()) == set(classic())


@pytest.mark.parametrize(
    ("changes", "key", "allowed"),
    [
        ({"on_tie": "coin"}, "on_tie", "push, banker"),
        ({"on_tie": 1}, "on_tie", "string"),
        ({"deck": "pinochle"}, "deck", "standard, no_faces"),
        ({"bull_from_three_of_a_kind": "yes"}, "bull_from_three_of_a_kind", "true or false"),
        ({"tie_break": "coin"}, "tie_break", "highest_card, rank_by_rank, none"),
        ({"specials": ["five_faces", "flush"]}, "specials", "three_of_a_kind, straight"),
        (
            {"special_definitions": {"four_faces_fifth": "nine"}},
            "special_definitions.four_faces_fifth",
            "ten, any, all_ten_valued",
        ),
        (
            {"deck": "no_faces", "specials": ["five_faces"]},
            "specials",
            "four_of_a_kind, straight_flush, five_small_bull, three_of_a_kind, straight",
        ),
        (
            {"deck": "no_faces", "specials": ["four_faces", "four_of_a_kind"]},
            "specials",
            "cannot make",
        ),
        ({"bets": ["equal", "double", "bad name"]}, "bets", "letters, digits"),
        ({"bets": []}, "bets", "at least one bet"),
        ({"bets": ["equal", "double", "multi"]}, "multipliers.multi", "needs a multiplier table"),
        ({"default_bet": "multi"}, "default_bet", "equal, double"),
    ],
)
def test_bad_options_name_the_key_and_the_allowed_values(
    changes: dict[str, Any], key: str, allowed: str
) -> None:
    data = {**classic(), **changes}
    with pytest.raises(RulesError) as exc:
        load_rules(data)
    text = one_line(exc)
    assert f"'{key}'" in text and allowed in text, text


def test_unknown_keys_stay_errors() -> None:
    for data in (
        {**classic(), "on_ties": "push"},
        {**classic(), "special_definitions": {"four_faces_fifh": "any"}},
        {**classic(), "multipliers": {**classic()["multipliers"], "multi": {"niu_11": 3}}},
    ):
        with pytest.raises(RulesError, match=r"unknown field|not a Niu Niu category"):
            load_rules(data)


def test_a_multiplier_table_names_its_category_keys() -> None:
    data = classic()
    data["multipliers"]["double"]["flush"] = 2
    with pytest.raises(RulesError) as exc:
        load_rules(data)
    text = one_line(exc)
    assert "'multipliers.double.flush'" in text and "three_of_a_kind" in text


def test_bets_are_named_by_the_rule_file(tmp_path: Path) -> None:
    path = tmp_path / "multi.toml"
    path.write_text(MULTI, encoding="utf-8")
    r = load_rules(str(path))
    assert r.bets == ("equal", "double", "multi") and r.default_bet == "multi"
    row = r.multiplier_row("multi")
    assert [row[k] for k in range(11)] == [1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    assert row[Category.FIVE_FACES] == 11
    assert load_rules(r.to_data()) == r
    # without a `bets` list, every [multipliers.NAME] table is a bet, in the file's order
    data = tomllib.loads(MULTI)
    del data["base"], data["bets"], data["default_bet"]
    data = {**classic(), "multipliers": {"grab": {"niu_niu": 10}, **data["multipliers"]}}
    del data["bets"], data["default_bet"]
    r = load_rules(data)
    assert r.bets == ("grab", "multi") and r.default_bet == "grab"
    with pytest.raises(RulesError, match="no bet 'double'"):
        r.bet("double")


def test_no_faces_says_its_ranking_as_data() -> None:
    r = load_rules("no_faces")
    assert r.deck == "no_faces" and r.deck_size == 40 and r.hands == 658_008
    assert r.specials == ("three_of_a_kind", "four_of_a_kind")
    rank = r.category_rank
    order = sorted((c for c in Category if rank[c] >= 0), key=lambda c: rank[c])
    assert [c.label for c in order] == [
        "no_bull",
        *(f"niu_{k}" for k in range(1, 10)),
        "niu_niu",
        "three_of_a_kind",
        "four_of_a_kind",
    ]


def test_every_special_can_be_listed_in_any_order() -> None:
    for order in (list(SPECIALS), list(reversed(SPECIALS))):
        r = load_rules({**classic(), "specials": order})
        assert list(r.specials) == order
        assert sorted(r.category_rank)[-7:] == list(range(11, 18))
