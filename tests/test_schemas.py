"""One glossary of JSON field names (issue 28, "One vocabulary"): every command of every
game run with ``--json`` writes records that conform to ``solver/schemas/<command>.json``,
every field name in a schema has one meaning and one type in ``glossary.json``, the
README's table says what the glossary says, and the old names are gone."""

from __future__ import annotations

import argparse
import io
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from _json_runs import NOT_RUN, prepare, probe_run, records, runs

from solver.cli import _parser, main
from solver.schemas import COMMANDS, glossary, load, validate

REPO = Path(__file__).resolve().parent.parent

OWN_VOCABULARY = {"rules"}
"""Schemas whose fields are another vocabulary: ``bull rules --json`` prints a rule file,
whose keys are the rule-file options (the README's "House rules" table)."""

OLD_NAMES = ("player_ev", "banker_ev", "ev_exact", "player_best_response_ev", "p_fraction")
"""Field names issue 28 retired: one name for one thing (``ev_player`` ...)."""


def _subcommands() -> set[str]:
    sub = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    return set(sub.choices)


def test_every_command_has_a_schema_and_a_run() -> None:
    assert _subcommands() - {"serve"} == set(COMMANDS)
    ran = {command for command, _, _ in runs(Path("/tmp"))} | {"probe"}
    assert set(COMMANDS) == ran | set(NOT_RUN) - {"serve"}
    for command in COMMANDS:
        assert load(command)["type"] == "object", command


@pytest.mark.slow
def test_every_command_of_every_game_writes_its_schema(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each ``--json`` line of each command of each game validates (every game: the
    runs of :mod:`_json_runs`, small inputs, about 30 s in all)."""
    peer = prepare(tmp_path)
    seen: dict[str, set[str]] = {}
    for command, argv, stdin in [*runs(tmp_path), probe_run(tmp_path, peer)]:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
        out, err = io.StringIO(), io.StringIO()
        code = main(argv, out=out, err=err)
        assert code in (0, 1), (argv, err.getvalue())  # 1: verify found the planted errors
        recs = records(out.getvalue())
        assert recs, argv
        for rec in recs:
            problems = validate(rec, load(command))
            assert problems == [], (argv, problems[:5])
        seen.setdefault(command, set()).add(argv[1])
    for command in ("eval", "compare", "rank", "round", "odds", "edge", "verify", "vectors"):
        assert seen[command] >= {"niuniu", "taungau", "pokdeng"}, command
    vectors = json.loads((REPO / "solver" / "kit" / "vectors.schema.json").read_text())
    for game in ("niuniu", "taungau", "pokdeng"):
        doc = json.loads((tmp_path / f"v-{game}.json").read_text())
        assert validate(doc, vectors) == [], game


def _properties(schema: Any, at: str = "$") -> list[tuple[str, str, Any]]:
    """Every ``(path, name, property schema)`` of a schema, nested ones included."""
    found: list[tuple[str, str, Any]] = []
    if not isinstance(schema, dict):
        return found
    for name, sub in schema.get("properties", {}).items():
        found.append((at, name, sub))
        found += _properties(sub, f"{at}.{name}")
    for key in ("items", "additionalProperties"):
        found += _properties(schema.get(key), f"{at}[]")
    for alt in schema.get("oneOf", []) + schema.get("anyOf", []):
        found += _properties(alt, at)
    return found


def _types(schema: dict[str, Any]) -> set[str]:
    t = schema.get("type", [])
    return {t} if isinstance(t, str) else set(t)


def test_one_name_one_meaning_one_type() -> None:
    """A field name means one thing: each is in the glossary, with a type that covers
    what every schema says of it."""
    words = glossary()
    for name, entry in words.items():
        assert entry["description"] and _types(entry), name
    for command in COMMANDS:
        if command in OWN_VOCABULARY:
            continue
        for at, name, sub in _properties(load(command)):
            assert name in words, f"{command} {at}.{name}: not in solver/schemas/glossary.json"
            assert _types(sub) <= _types(words[name]), f"{command} {at}.{name}: {sub['type']}"
            for alt in sub.get("oneOf", []):
                assert "required" in alt


TWO_SHAPES = {"tables": "the same tables: build keys them by name, check-tables lists them"}
"""Glossary names allowed two kinds of value, and why (one meaning in two shapes)."""


def test_one_name_one_kind_of_value() -> None:
    """A name whose value is a count in one command and a list or an object in another
    has two meanings (issue 28: ``players`` was round's player records and deal's count,
    ``hands`` vectors' count, ``settlement`` audit's counts and edge's rule): each name
    has one kind of value, ``null`` aside."""
    for name, entry in glossary().items():
        kinds = _types(entry) - {"null"}
        assert len(kinds) == 1 or name in TWO_SHAPES, f"{name}: {sorted(kinds)}"
    assert {"player_results", "hand_vectors", "settlement_check"} <= set(glossary())


def test_fractions_are_twins_of_numbers() -> None:
    """``X_fraction`` is always the exact twin of a number ``X`` (or of a map of numbers)."""
    words = glossary()
    for command in COMMANDS:
        for at, name, _ in _properties(load(command)):
            if name.endswith("_fraction"):
                base = _types(words[name.removesuffix("_fraction")])
                twin = _types(words[name])
                if base == {"object"}:  # a map of numbers, twinned by a map of fractions
                    assert twin == {"object"}, (command, at, name)
                else:
                    assert "number" in base and "string" in twin, (command, at, name)
    for name in words:
        assert name not in OLD_NAMES


def test_old_names_are_nowhere() -> None:
    """No source file writes or reads a retired field name (``"player_ev": ...``,
    ``rec["player_ev"]``)."""
    pattern = re.compile("|".join(rf"[\"']{n}(_fraction)?[\"']\s*[:\]]" for n in OLD_NAMES))
    for path in [*(REPO / "solver").rglob("*.py"), *(REPO / "scripts").rglob("*.py")]:
        hits = [ln for ln in path.read_text().splitlines() if pattern.search(ln)]
        assert not hits, (path, hits)


def test_the_validator_rejects() -> None:
    """The checker can fail: wrong type, missing or unexpected field, enum, oneOf."""
    schema = load("compare")
    hand = {"hand": ["QS"], "points": 0, "strength": 0, "has_bull": False, "bull": None}
    good = {"player": {"hand": ["KS"], "points": 1, "strength": 1}, "winner": "player",
            "reason": "r", "net": 1, "rules": "x", "banker": {**hand, "rest": None},
            "banker_net": -1}  # fmt: skip
    assert validate(good, schema) == []
    assert validate({**good, "net": "1"}, schema) == ["$.net: '1' is a string, not number"]
    assert validate({**good, "winner": "house"}, schema)[0].startswith("$.winner: 'house' is not")
    assert validate({**good, "player_ev": 1}, schema) == ["$: unexpected field player_ev"]
    del good["banker_net"]
    assert validate(good, schema) == ["$: matches none of the oneOf alternatives"]
    assert validate({"hand": "KS 9H"}, {"properties": {"hand": load("glossary")["fields"]["hand"]}})
    with pytest.raises(ValueError, match="unsupported keyword"):
        validate(1, {"if": {}})


def test_readme_table_is_the_glossary() -> None:
    """The README's "JSON fields" table: each row's type and meaning as the glossary
    gives them."""
    readme = (REPO / "README.md").read_text()
    section = readme.split("### JSON fields", 1)[1].split("\n#", 1)[0]
    rows = re.findall(r"^\| `([a-z_0-9]+)` \| ([^|]+) \| ([^|]+) \|$", section, re.M)
    assert len(rows) >= 15
    words = glossary()
    for name, meaning, kind in rows:
        assert name in words, name
        assert set(kind.split()) - {"or"} == _types(words[name]), name
        assert meaning.strip() == words[name]["description"], name
