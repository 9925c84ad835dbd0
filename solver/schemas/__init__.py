"""The JSON Schema of every command's ``--json`` output, and the glossary of field names.

``solver/schemas/<command>.json`` describes one record (one JSON line) of ``bull
<command> --json``; ``glossary.json`` gives every field name used in them its one
meaning and type, so the same name means the same thing in every command and game
(the README's "JSON fields" table is its short form). :func:`validate` checks a record
against a schema with the subset of JSON Schema (draft 2020-12) the schemas use — no
dependency; an unsupported keyword is an error, never silently ignored.

>>> validate({"hand": ["KS"], "points": 7}, {"type": "object", "required": ["hand"],
...     "properties": {"hand": {"type": "array", "items": {"type": "string"}},
...                    "points": {"type": "integer"}}, "additionalProperties": False})
[]
>>> validate({"hand": "KS", "ev_player": 1}, {"type": "object",
...     "properties": {"hand": {"type": "array"}}, "additionalProperties": False})
["$.hand: 'KS' is a string, not array", '$: unexpected field ev_player']
>>> sorted(COMMANDS)[:3]
['advise', 'audit', 'build']
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["COMMANDS", "glossary", "load", "validate"]

COMMANDS = (
    "advise", "audit", "build", "check-tables", "compare", "deal", "drill", "edge", "eval",
    "grab", "odds", "probe", "rank", "report", "risk", "round", "rules", "strategy",
    "vectors", "verify",
)  # fmt: skip
"""The commands whose ``--json`` output has a schema (every command but ``serve``)."""

_TYPES: dict[str, Any] = {
    "null": lambda v: v is None,
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}
_NAMES = {
    type(None): "null", bool: "boolean", int: "integer", float: "number", str: "string",
    list: "array", dict: "object",
}  # fmt: skip
_ANNOTATIONS = {"$schema", "$id", "title", "description", "$comment", "$defs", "examples"}
_KEYWORDS = _ANNOTATIONS | {
    "type", "enum", "const", "properties", "required", "additionalProperties", "items",
    "minItems", "maxItems", "uniqueItems", "minimum", "maximum", "exclusiveMinimum",
    "exclusiveMaximum", "minLength", "pattern",
    "oneOf", "anyOf", "$ref",
}  # fmt: skip


@cache
def load(name: str) -> dict[str, Any]:
    """The schema ``solver/schemas/<name>.json`` (``name``: a command, or ``glossary``)."""
    text = resources.files(__name__).joinpath(f"{name}.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def glossary() -> dict[str, dict[str, Any]]:
    """Every field name of every schema: ``{"name": {"type": ..., "description": ...}}``."""
    return dict(load("glossary")["fields"])


def validate(value: Any, schema: dict[str, Any], root: dict[str, Any] | None = None) -> list[str]:
    """The ways ``value`` breaks ``schema`` (empty: it conforms), each naming its path."""
    errors: list[str] = []
    _check(value, schema, root or schema, "$", errors)
    return errors


def _check(v: Any, s: dict[str, Any], root: dict[str, Any], at: str, errors: list[str]) -> None:
    unknown = set(s) - _KEYWORDS
    if unknown:
        raise ValueError(f"schema at {at}: unsupported keyword(s) {sorted(unknown)}")
    if "$ref" in s:
        _check(v, _resolve(s["$ref"], root), root, at, errors)
    if "type" in s:
        want = s["type"] if isinstance(s["type"], list) else [s["type"]]
        if not any(_TYPES[t](v) for t in want):
            got = _NAMES.get(type(v), type(v).__name__)
            errors.append(f"{at}: {v!r:.60} is a{'n' if got[0] in 'aeiou' else ''} {got}, "
                          f"not {' or '.join(want)}")  # fmt: skip
            return
    if "enum" in s and v not in s["enum"]:
        errors.append(f"{at}: {v!r:.60} is not one of {s['enum']}")
    if "const" in s and v != s["const"]:
        errors.append(f"{at}: {v!r:.60} is not {s['const']!r}")
    if isinstance(v, int | float) and not isinstance(v, bool):
        if "minimum" in s and v < s["minimum"]:
            errors.append(f"{at}: {v} is below the minimum {s['minimum']}")
        if "maximum" in s and v > s["maximum"]:
            errors.append(f"{at}: {v} is above the maximum {s['maximum']}")
        if "exclusiveMinimum" in s and v <= s["exclusiveMinimum"]:
            errors.append(f"{at}: {v} is not above {s['exclusiveMinimum']}")
        if "exclusiveMaximum" in s and v >= s["exclusiveMaximum"]:
            errors.append(f"{at}: {v} is not below {s['exclusiveMaximum']}")
    if isinstance(v, str):
        if "minLength" in s and len(v) < s["minLength"]:
            errors.append(f"{at}: {v!r} is shorter than {s['minLength']}")
        if "pattern" in s and not re.search(s["pattern"], v):
            errors.append(f"{at}: {v!r:.60} does not match {s['pattern']}")
    if isinstance(v, list):
        _check_array(v, s, root, at, errors)
    if isinstance(v, dict):
        _check_object(v, s, root, at, errors)
    for key in ("oneOf", "anyOf"):
        if key in s:
            passing = sum(not validate(v, sub, root) for sub in s[key])
            if passing == 0 or (key == "oneOf" and passing > 1):
                how = "none" if passing == 0 else f"{passing}"
                errors.append(f"{at}: matches {how} of the {key} alternatives")


def _check_array(
    v: list[Any], s: dict[str, Any], root: dict[str, Any], at: str, errors: list[str]
) -> None:
    if "minItems" in s and len(v) < s["minItems"]:
        errors.append(f"{at}: {len(v)} items, fewer than {s['minItems']}")
    if "maxItems" in s and len(v) > s["maxItems"]:
        errors.append(f"{at}: {len(v)} items, more than {s['maxItems']}")
    if s.get("uniqueItems") and len({json.dumps(x, sort_keys=True) for x in v}) < len(v):
        errors.append(f"{at}: items repeat")
    if "items" in s:
        for i, x in enumerate(v):
            _check(x, s["items"], root, f"{at}[{i}]", errors)


def _check_object(
    v: dict[str, Any], s: dict[str, Any], root: dict[str, Any], at: str, errors: list[str]
) -> None:
    props = s.get("properties", {})
    for key in s.get("required", ()):
        if key not in v:
            errors.append(f"{at}: missing field {key}")
    extra = s.get("additionalProperties", True)
    for key, x in v.items():
        if key in props:
            _check(x, props[key], root, f"{at}.{key}", errors)
        elif extra is False:
            errors.append(f"{at}: unexpected field {key}")
        elif isinstance(extra, dict):
            _check(x, extra, root, f"{at}.{key}", errors)


def _resolve(ref: str, root: dict[str, Any]) -> dict[str, Any]:
    """A local reference ``#/$defs/name`` (the only kind the schemas use)."""
    if not ref.startswith("#/"):
        raise ValueError(f"schema reference {ref!r}: only local references (#/...) are read")
    node: Any = root
    for part in ref[2:].split("/"):
        node = node[part]
    return dict(node)
