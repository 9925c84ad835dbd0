"""`bull vectors` as a Wycheproof-style JSON document: the fields, the shipped JSON
Schema (validated with ``jsonschema`` when installed, else the small validator below),
stable ``tcId``s, honest ``flags`` (checked against an independent evaluator), and
`bull verify` reading the document back."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_vectors import CASINO, nn_category

from solver.cli import main

SCHEMA = Path(__file__).resolve().parent.parent / "solver" / "kit" / "vectors.schema.json"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


_TYPES: dict[str, Any] = {
    "object": dict,
    "array": list,
    "string": str,
    "number": (int, float),
    "boolean": bool,
    "null": type(None),
}


def _is(value: Any, t: str) -> bool:
    if t == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if t in ("number",) and isinstance(value, bool):
        return False
    return isinstance(value, _TYPES[t])


def errors(value: Any, schema: dict[str, Any], where: str = "$") -> Iterator[str]:
    """A small JSON Schema validator: the keywords the shipped schema uses."""
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is(value, t) for t in types):
            yield f"{where}: {value!r} is not of type {types}"
            return
    if "const" in schema and value != schema["const"]:
        yield f"{where}: {value!r} is not {schema['const']!r}"
    if "enum" in schema and value not in schema["enum"]:
        yield f"{where}: {value!r} not in {schema['enum']}"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            yield f"{where}: {value} < {schema['minimum']}"
        if "maximum" in schema and value > schema["maximum"]:
            yield f"{where}: {value} > {schema['maximum']}"
        if "exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"]:
            yield f"{where}: {value} >= {schema['exclusiveMaximum']}"
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            yield f"{where}: too short"
        if "pattern" in schema and not re.search(schema["pattern"], value):
            yield f"{where}: {value!r} does not match {schema['pattern']}"
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0) or len(value) > schema.get("maxItems", 1e9):
            yield f"{where}: {len(value)} items"
        if schema.get("uniqueItems") and len({json.dumps(v) for v in value}) != len(value):
            yield f"{where}: items not unique"
        if "items" in schema:
            for i, v in enumerate(value):
                yield from errors(v, schema["items"], f"{where}[{i}]")
    if isinstance(value, dict):
        for k in schema.get("required", ()):
            if k not in value:
                yield f"{where}: missing {k!r}"
        props = schema.get("properties", {})
        for k, v in value.items():
            if k in props:
                yield from errors(v, props[k], f"{where}.{k}")
            elif isinstance(schema.get("additionalProperties"), dict):
                yield from errors(v, schema["additionalProperties"], f"{where}.{k}")


def validate(doc: dict[str, Any]) -> list[str]:
    schema = json.loads(SCHEMA.read_text())
    found = list(errors(doc, schema))
    try:
        import jsonschema
    except ImportError:
        return found
    jsonschema.Draft202012Validator.check_schema(schema)
    found += [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(doc)]
    return found


def test_the_small_validator_finds_errors() -> None:
    schema = json.loads(SCHEMA.read_text())
    bad = {"schema": "other", "numberOfTests": -1, "testGroups": [{"type": "x", "tests": [{}]}]}
    found = list(errors(bad, schema))
    for text in ("missing 'generatorVersion'", "'other' is not", "-1 < 0", "missing 'tcId'"):
        assert any(text in e for e in found), (text, found)


def document(tmp_path: Path, game: str, *args: str) -> tuple[Path, dict[str, Any]]:
    path = tmp_path / f"{game}.json"
    code, _, err = run("vectors", game, "--out", str(path), *args)
    assert code == 0, err
    doc: dict[str, Any] = json.loads(path.read_text())
    return path, doc


def cases_of(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {**{k: v for k, v in g.items() if k != "tests"}, **t}
        for g in doc["testGroups"]
        for t in g["tests"]
    ]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("game", "rules", "fixture"),
    [
        ("niuniu", "casino", "niuniu_tables"),
        ("taungau", "macau", "taungau_tables"),
        ("pokdeng", "standard", "pokdeng_tables"),
    ],
)
def test_document_fields_schema_and_round_trip(
    tmp_path: Path, request: pytest.FixtureRequest, game: str, rules: str, fixture: str
) -> None:
    tables = str(request.getfixturevalue(fixture))
    path, doc = document(tmp_path, game, "--rules", rules, "--tables", tables, "--sample", "50")
    assert validate(doc) == []
    for key in ("schema", "generatorVersion", "numberOfTests", "header", "notes", "testGroups"):
        assert key in doc
    assert doc["algorithm"] == game and doc["rules"] == rules
    assert re.fullmatch(r"[0-9a-f]{16}", doc["rulesDigest"])
    assert doc["ruleSet"]["name"] == rules
    tests = cases_of(doc)
    assert doc["numberOfTests"] == len(tests)
    assert sorted(t["tcId"] for t in tests) == list(range(1, len(tests) + 1))
    assert all(t["result"] == "valid" and t["comment"] for t in tests)
    # every flag is explained in notes; groups hold one kind and the parameters they name
    assert {f for t in tests for f in t["flags"]} == set(doc["notes"])
    for g in doc["testGroups"]:
        assert g["type"].endswith(f"{g['kind'].capitalize()}Test")
    # the same vectors as the JSON Lines, answer for answer
    jl = tmp_path / f"{game}.jsonl"
    assert run("vectors", game, "--rules", rules, "--tables", tables, "--sample", "50",
               "--out", str(jl))[0] == 0  # fmt: skip
    lines = [json.loads(x) for x in jl.read_text().splitlines()]
    by_id = {t["tcId"]: t for t in tests}
    for n, rec in enumerate(lines, start=1):
        assert rec["id"] == f"{game}-{n:04d}"
        t = by_id[n]
        for k, v in rec.items():
            if k not in ("id", "rules"):
                assert (t["kind"] if k == "kind" else t[k]) == v, (n, k)
    # verify reads the document, names its rule set, numbers rows by tcId
    code, out, _ = run("verify", game, str(path), "--tables", tables, "--json")
    s = json.loads(out)
    assert code == 0 and s["checked"] == len(tests), s["examples"][:3]
    assert s["numbering"] == "tcId"


def test_flags_are_the_house_rules_that_change_the_answer(tmp_path: Path) -> None:
    """Under casino, a hand is flagged ``five_small_bull_total`` exactly when an
    independent evaluator with total < 10 gives another category."""
    _, doc = document(tmp_path, "niuniu", "--rules", "casino", "--sample", "300")
    hands = [t for t in cases_of(doc) if t["kind"] == "hand"]
    flagged = [t for t in hands if "five_small_bull_total" in t["flags"]]
    expected = [
        t for t in hands if nn_category(t["hand"], CASINO, True) != nn_category(t["hand"], CASINO)
    ]
    assert flagged and [t["tcId"] for t in flagged] == [t["tcId"] for t in expected]
    assert "five_small_bull_total" in doc["notes"]
    assert doc["notes"]["five_small_bull_total"]["bugType"] == "HOUSE_RULE"
    # a hand whose answer no house rule changes has no flags (a plain Niu 4)
    plain = next(t for t in hands if t["hand"] == ["7S", "3H", "10D", "8C", "6S"])
    assert plain["flags"] == [] and "worked example" in plain["comment"]


@pytest.mark.slow
def test_tcids_stable_across_seeds_and_jsonl_stays_an_option(tmp_path: Path) -> None:
    a = json.loads(run("vectors", "niuniu", "--sample", "5")[1])
    b = json.loads(run("vectors", "niuniu", "--sample", "9", "--seed", "3")[1])
    fixed_a = [t for t in cases_of(a) if "random" not in t["tags"]]
    fixed_b = [t for t in cases_of(b) if "random" not in t["tags"]]
    assert fixed_a == fixed_b and a["numberOfTests"] + 8 == b["numberOfTests"]
    code, out, _ = run("vectors", "niuniu", "--sample", "5", "--format", "jsonl")
    assert code == 0 and len(out.splitlines()) == a["numberOfTests"]
    # an --out name ending in .jsonl picks JSON Lines; --format overrides the name
    p = tmp_path / "v.jsonl"
    assert run("vectors", "niuniu", "--out", str(p), "--sample", "1")[0] == 0
    assert p.read_text().startswith('{"id":"niuniu-0001"')
    assert run("vectors", "niuniu", "--out", str(p), "--format", "json", "--sample", "1")[0] == 0
    assert json.loads(p.read_text())["schema"] == "bull_vectors_schema_v1.json"


def test_verify_of_a_document_names_failing_tcids(tmp_path: Path, niuniu_tables: Path) -> None:
    """An implementation answering the document with the total < 10 mistake: verify
    reads its answers (a document, as written) and reports the tcIds it fails."""
    _, doc = document(tmp_path, "niuniu", "--rules", "casino", "--sample", "0")
    wrong = []
    for g in doc["testGroups"]:
        for t in g["tests"]:
            if g["kind"] == "hand":
                t["category"] = nn_category(t["hand"], CASINO, fsb_below_10=True)
                for k in ("has_bull", "points", "bull", "n_bulls"):
                    t.pop(k, None)
                if t["category"] != nn_category(t["hand"], CASINO):
                    wrong.append(t["tcId"])
    path = tmp_path / "answers.json"
    path.write_text(json.dumps(doc, indent=2))
    code, out, _ = run("verify", "niuniu", str(path), "--tables", str(niuniu_tables), "--json")
    s = json.loads(out)
    assert code == 1 and wrong and s["disagree"] == len(wrong)
    assert sorted(e["line"] for e in s["examples"]) == wrong[: len(s["examples"])]
    assert s["diagnosis"][0]["key"] == "five_small_bull_total=below_10"


def test_a_broken_document_is_a_one_line_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{\n "schema": "bull_vectors_schema_v1.json",\n "testGroups": [\n')
    code, _, err = run("verify", "niuniu", str(path))
    assert code == 2 and "not a vectors document" in err and "Traceback" not in err
