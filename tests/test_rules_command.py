"""``bull rules``: every preset prints as a TOML rule file that reads back to the same
rule set; ``--list`` lists the presets; numbers in rule files must be finite."""

from __future__ import annotations

import io
import json
import tomllib
from pathlib import Path

import pytest

from solver import games
from solver.cli import main


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    "game,preset", [(g, p) for g in games.names() for p in games.get(g).presets()]
)
def test_every_preset_round_trips_through_its_toml(game: str, preset: str, tmp_path: Path) -> None:
    code, out, err = run("rules", game, "--rules", preset)
    assert code == 0, err
    data = tomllib.loads(out)
    rules = games.get(game).load_rules(preset)
    assert data == rules.to_data()
    path = tmp_path / "copy.toml"
    path.write_text(out, encoding="utf-8")
    again = games.get(game).load_rules(str(path))
    assert again == rules  # the same rule set, field by field
    code, out, _ = run("rules", game, "--rules", str(path), "--json")
    assert code == 0 and json.loads(out) == rules.to_data()


def test_default_preset_and_list() -> None:
    for g in games.names():
        game = games.get(g)
        code, out, _ = run("rules", g)
        assert code == 0 and tomllib.loads(out)["name"] == game.default_rules
        code, out, _ = run("rules", g, "--list", "--json")
        listing = json.loads(out)
        assert [p["name"] for p in listing["presets"]] == game.presets()
        assert [p["name"] for p in listing["presets"] if p["default"]] == [game.default_rules]
        code, text, _ = run("rules", g, "--list")
        assert code == 0 and f"{game.default_rules} (default)" in text


def test_a_partial_rule_file_prints_with_its_defaults(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text('game = "taungau"\nbase = "macau"\nzero_counts_as = 0\n', encoding="utf-8")
    code, out, err = run("rules", "taungau", "--rules", str(path))
    assert code == 0, err
    data = tomllib.loads(out)
    assert data["name"] == "mine" and data["zero_counts_as"] == 0
    assert set(games.get("taungau").load_rules("macau").to_data()) <= set(data)


@pytest.mark.parametrize("spelling", ["nan", "inf", "-inf"])
def test_non_finite_numbers_are_refused(spelling: str, tmp_path: Path) -> None:
    preset = tomllib.loads(run("rules", "niuniu")[1])
    text = run("rules", "niuniu")[1].replace(
        f"commission = {preset['commission']!r}", f"commission = {spelling}"
    )
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    code, out, err = run("eval", "niuniu", "KS 9H 8C 3D 7S", "--rules", str(path))
    assert code == 2 and out == ""
    assert "'commission'" in err and "finite" in err and err.count("\n") == 1


def test_bad_use_is_one_line() -> None:
    for argv in (("rules", "chess"), ("rules", "niuniu", "--list", "--rules", "casino")):
        code, out, err = run(*argv)
        assert code == 2 and out == "" and err.count("\n") == 1


def test_base_must_name_a_preset_and_tables_merge(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('game = "niuniu"\nbase = "casion"\n', encoding="utf-8")
    code, out, err = run("rules", "niuniu", "--rules", str(path))
    assert code == 2 and "'base'" in err and "casion" in err and "classic" in err
    path = tmp_path / "three.toml"
    path.write_text(
        'game = "niuniu"\nbase = "classic"\ncommission = 0.03\n[multipliers.double]\nniu_9 = 4\n',
        encoding="utf-8",
    )
    code, out, err = run("rules", "niuniu", "--rules", str(path))
    data = tomllib.loads(out)
    assert code == 0 and data["name"] == "three" and data["commission"] == 0.03
    classic = games.get("niuniu").load_rules("classic").to_data()
    assert data["multipliers"]["double"] == {**classic["multipliers"]["double"], "niu_9": 4}
    assert data["multipliers"]["equal"] == classic["multipliers"]["equal"]


@pytest.mark.parametrize("game", ["niuniu", "taungau", "pokdeng"])
def test_an_empty_rule_file_is_refused(game: str, tmp_path: Path) -> None:
    path = tmp_path / "empty.toml"
    path.write_text("")
    code, out, err = run("rules", game, "--rules", str(path))
    assert code == 2 and out == "" and "is empty" in err and err.count("\n") == 1


def test_multipliers_are_bounded(tmp_path: Path) -> None:
    """A multiplier too large for exact sums is refused where the rules are read."""
    path = tmp_path / "huge.toml"
    path.write_text(
        'game = "niuniu"\nbase = "classic"\n[multipliers.double]\nniu_niu = 1000000000000\n'
    )
    code, _, err = run("edge", "niuniu", "--rules", str(path), "--bet", "double")
    assert code == 2 and "'multipliers.double.niu_niu'" in err and "at most 1000" in err
