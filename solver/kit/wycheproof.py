"""Conformance vectors as a Wycheproof-style JSON document, its JSON Schema, and the way
back (a document read by ``bull verify`` as the rows it holds).

The document uses Wycheproof's field names: ``algorithm`` (the game), ``schema`` (the
name of the JSON Schema it follows, shipped as ``solver/kit/vectors.schema.json``),
``generatorVersion``, ``numberOfTests``, ``header`` (lines of text), ``notes`` (one entry
per flag: its ``bugType`` and ``description``) and ``testGroups``; each group holds the
rule parameters its tests share (the kind of row, and for showdowns the bet and
commission, or the Tau Ngau ``banker_reveals``) and its ``tests``; each test has a
stable ``tcId`` (its place in the canonical order, the number of the JSON Lines
``id``), a ``comment`` naming what decides it, ``flags`` (the house rules under which a
legitimate rule set answers it differently) and ``result`` (always ``valid``: the
answers hold under the rule set of the header, ``rules`` with its ``rulesDigest``).

>>> recs = [{"id": "g-0001", "kind": "hand", "hand": ["AS"], "points": 1,
...          "tags": ["worked_example", "catches:zero=0"], "differs_under": ["zero=0"]}]
>>> doc = document(recs, "g", "house", {"zero": 10}, "abcd", {}, {"zero=0": "rule"})
>>> doc["numberOfTests"], doc["testGroups"][0]["type"], doc["testGroups"][0]["tests"][0]["flags"]
(1, 'GHandTest', ['zero'])
>>> rows(doc)[0]["hand"], rows(doc)[0]["tcId"]
(['AS'], 1)
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from importlib import resources
from typing import Any

from solver.core.errors import BullError
from solver.core.files import BOM, open_input, read_text

__all__ = [
    "GENERATOR_VERSION",
    "GROUP_KEYS",
    "SCHEMA_NAME",
    "document",
    "document_rows",
    "flag_of",
    "is_document",
    "load_document",
    "named_rules",
    "rows",
    "schema",
]

SCHEMA_NAME = "bull_vectors_schema_v1.json"
"""The ``schema`` a document names (the file shipped is ``vectors.schema.json``)."""
GENERATOR_VERSION = "1"
"""The version of the vector generator: raised whenever a fixed vector changes."""
GROUP_KEYS: dict[str, tuple[str, ...]] = {
    "hand": (),
    "showdown": ("bet", "commission", "banker_reveals"),
}
"""The fields of a record that are rule parameters of its group (per kind of row)."""
_MAX_DOCUMENT = 1 << 30
"""The largest vectors document read whole (bytes)."""


def flag_of(key: str) -> str:
    """The house-rule flag of a rule variant's key: the rule option it changes.

    >>> flag_of("suit_order=HSDC"), flag_of("specials_without=five_faces")
    ('suit_order', 'specials')
    >>> flag_of("straights=true,ace=both"), flag_of("deng.pok_pair=1")
    ('straights', 'deng.pok_pair')
    """
    name = key.split("=", 1)[0]
    return "specials" if name in ("specials_with", "specials_without") else name


def _words(tag: str) -> str:
    return tag.replace("_", " ")


def _comment(rec: Mapping[str, Any], descriptions: Mapping[str, str]) -> str:
    """What decides a vector: its situation (the tags), and the variants it catches."""
    tags = [t for t in rec.get("tags", ()) if not t.startswith("catches:")]
    caught = [t.split(":", 1)[1] for t in rec.get("tags", ()) if t.startswith("catches:")]
    head = "; ".join(_words(t) for t in tags) or rec.get("kind", "vector")
    if caught:
        named = [descriptions.get(k, k) for k in caught[:4]]
        more = f" and {len(caught) - 4} more" if len(caught) > 4 else ""
        head += f" (differs under: {'; '.join(named)}{more})"
    return head


def document(
    records: Sequence[Mapping[str, Any]],
    game: str,
    rules: str,
    rule_data: Mapping[str, Any],
    digest: str,
    coverage: Mapping[str, Any],
    kinds: Mapping[str, str],
    descriptions: Mapping[str, str] | None = None,
    title: str | None = None,
) -> dict[str, Any]:
    """The Wycheproof-style document of ``records`` (numbered ``GAME-0001``... in order).

    A record's ``differs_under`` (the variants under which its answer differs) gives its
    flags; ``kinds``: each variant's key to ``rule`` (a legitimate house rule: a flag) or
    ``mistake``; ``descriptions``: each key's readable description.
    """
    desc = dict(descriptions or {})
    notes: dict[str, dict[str, str]] = {}
    groups: dict[tuple[Any, ...], dict[str, Any]] = {}
    title = title or game
    prefix = "".join(w[:1].upper() + w[1:] for w in title.split())
    for n, rec in enumerate(records, start=1):
        kind = str(rec["kind"])
        params = {k: rec[k] for k in GROUP_KEYS.get(kind, ()) if k in rec}
        gkey = (kind, *(json.dumps(params[k]) for k in sorted(params)))
        group = groups.get(gkey)
        if group is None:
            group = {
                "type": f"{prefix}{kind.capitalize()}Test",
                "kind": kind,
                **params,
                "tests": [],
            }
            groups[gkey] = group
        flags: list[str] = []
        for key in rec.get("differs_under", ()):
            if kinds.get(key, "rule") != "rule":
                continue
            flag = flag_of(key)
            if flag not in flags:
                flags.append(flag)
            note = notes.setdefault(
                flag,
                {
                    "bugType": "HOUSE_RULE",
                    "description": f"The answer depends on the house rule {flag!r}: a rule "
                    f"set that differs in it answers differently (variants:",
                },
            )
            variant = desc.get(key, key)
            if variant not in note["description"]:
                note["description"] += f" {variant};"
        test: dict[str, Any] = {
            "tcId": n,
            "comment": _comment(rec, desc),
            "flags": flags,
            "result": "valid",
        }
        skip = {"id", "kind", "rules", "differs_under", *params}
        test.update({k: v for k, v in rec.items() if k not in skip})
        group["tests"].append(test)
    for note in notes.values():
        note["description"] = note["description"].rstrip(";") + ")."
    return {
        "algorithm": game,
        "schema": SCHEMA_NAME,
        "generatorVersion": GENERATOR_VERSION,
        "numberOfTests": len(records),
        "header": [
            f"Conformance vectors for {title} under the rule set {rules!r} "
            f"(digest {digest}); every answer is exact under it.",
            f"`bull verify {game} FILE --rules {rules}` passes with exit code 0.",
            "A test with flags has an answer that a legitimate house rule (named by the "
            "flag, see notes) changes; a test without flags has the same answer under every "
            "catalogued house-rule variant of this rule set.",
        ],
        "notes": dict(sorted(notes.items())),
        "rules": rules,
        "rulesDigest": digest,
        "ruleSet": dict(rule_data),
        "coverage": dict(coverage),
        "testGroups": list(groups.values()),
    }


def rows(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The rows of a document in ``tcId`` order: each test with its group's parameters
    (so ``bull verify`` reads them as it reads the JSON Lines vectors)."""
    out: list[dict[str, Any]] = []
    for group in doc.get("testGroups", ()):
        params = {k: v for k, v in group.items() if k not in ("type", "kind", "tests")}
        for test in group.get("tests", ()):
            out.append({**params, **test})
    out.sort(key=lambda r: int(r.get("tcId", 0)))
    return out


def is_document(path: str) -> bool:
    """Whether ``path`` holds a vectors document (one JSON object with ``testGroups``),
    not JSON Lines; never raises (an unreadable file is left to the reader)."""
    try:
        with open_input(path, "claims file") as f:
            head = f.read(1 << 16)
    except (OSError, BullError):
        return False
    if head.startswith(BOM):
        head = head[len(BOM) :]
    text = head.lstrip()
    if not text.startswith(b"{"):
        return False
    first = text.splitlines()[0].strip()  # CR, LF or CRLF
    return first == b"{" or b'"testGroups"' in head


def load_document(path: str) -> dict[str, Any]:
    """A vectors document, read whole (a one-line error when it is not one)."""
    text = read_text(path, "vectors document", _MAX_DOCUMENT)
    try:
        doc = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as e:
        raise BullError(f"{path}: not a vectors document: {str(e).splitlines()[0]}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("testGroups"), list):
        raise BullError(f"{path}: not a vectors document: no testGroups")
    return doc


def schema() -> dict[str, Any]:
    """The JSON Schema of a vectors document (``solver/kit/vectors.schema.json``)."""
    text = resources.files("solver.kit").joinpath("vectors.schema.json").read_text("utf-8")
    out: dict[str, Any] = json.loads(text)
    return out


@contextlib.contextmanager
def document_rows(path: str) -> Iterator[tuple[str, str]]:
    """A vectors document's rows as a temporary JSON Lines file (removed afterwards), in
    ``tcId`` order, and the label of its row numbers: ``tcId`` when row n is test n."""
    flat = rows(load_document(path))
    ids = [r.get("tcId") for r in flat]
    label = "tcId" if ids == list(range(1, len(flat) + 1)) else "row"
    fd, tmp = tempfile.mkstemp(suffix=".jsonl", prefix="bull-vectors-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            for r in flat:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        yield tmp, label
    finally:
        os.unlink(tmp)


def named_rules(path: str, fmt: str | None) -> str | None:
    """The rule set a claims file names: a vectors document's ``rules``, or the
    ``rules`` column of its first row."""
    from solver.kit.read import detect_format, peek_rules

    if fmt in (None, "jsonl") and is_document(path):
        named = load_document(path).get("rules")
        return named if isinstance(named, str) else None
    return peek_rules(path, detect_format(path, fmt))
