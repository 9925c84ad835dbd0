"""``bull check-tables``: recompute every table's content digest and check it against
its own metadata and ``MANIFEST.json``, with row counts and schema versions; the
Parquet footer's own copy of the metadata (the one other readers — DuckDB, Spark — see)
against the copy Arrow reads; and the rule cache (``rules/``): every cached rule-set
table checked the same way and against the rule set its file name promises, every
cached figures file against its name.

Loading a table (:func:`solver.store.tables.open_table`) checks only what is cheap; this
reads every byte.
"""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from solver.core.errors import BullError, TableError
from solver.core.files import arrow_source, read_text
from solver.store.tables import (
    SCHEMA_VERSION,
    column_checksums,
    content_digest,
    find_tables_dir,
    read_manifest,
    resolve_set,
    table_meta,
)

__all__ = ["EXPECTED_ROWS", "TableCheck", "check_tables", "cli_check_tables"]

EXPECTED_ROWS: dict[str, int] = {
    "niuniu": 2_598_960,
    "taungau": 201_376,
    "pokdeng": 1_326 + 22_100,
}
"""Row counts fixed by the games themselves (C(52,5), C(32,5), C(52,2) + C(52,3))."""


@dataclass(frozen=True)
class TableCheck:
    """The verdict on one table."""

    name: str
    rows: int
    digest: str
    ok: bool
    problem: str = ""

    def __str__(self) -> str:
        state = "ok" if self.ok else f"FAILED: {self.problem}"
        if not self.digest:  # a cached figures file, or a table that does not read
            return f"{self.name}: {state}"
        return f"{self.name}: {self.rows:,} rows, digest {self.digest[:16]}… {state}"


def _footer_differs(footer: dict[bytes, bytes] | None, meta: dict[str, Any]) -> list[str]:
    """The ``bull.*`` fields where the Parquet footer's key-value copy of the metadata
    (which ``ParquetFile.read``, DuckDB and Spark read) differs from the copy in the
    embedded Arrow schema (which ``ParquetFile.schema_arrow`` and ``read_table`` read)."""
    raw = {k.decode("utf-8", "replace")[5:]: v for k, v in (footer or {}).items()}
    raw = {k: v for k, v in raw.items() if (b"bull." + k.encode()) in (footer or {})}
    out = []
    for key in sorted(set(raw) | set(meta)):
        try:
            same = key in raw and key in meta and json.loads(raw[key]) == meta[key]
        except ValueError:
            same = False
        if not same:
            out.append(key)
    return out


def _check_one(
    name: str, entry: dict[str, Any], set_dir: str | os.PathLike[str], game_rows: bool = True
) -> TableCheck:
    path = os.path.join(set_dir, entry.get("file", f"{name}.parquet"))
    try:
        pf = pq.ParquetFile(arrow_source(path, "table"))
        table = pf.read()
        footer = pf.metadata.metadata
    except (OSError, pa.ArrowException, BullError) as exc:
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return TableCheck(name, 0, "", False, f"unreadable ({msg})")
    try:  # the copy the runtime reads (open_table): the one in the embedded Arrow schema
        meta = table_meta(pf.schema_arrow, path)
    except TableError as exc:
        return TableCheck(name, table.num_rows, "", False, str(exc))
    digest = content_digest(table.replace_schema_metadata(None))
    problems = []
    differs = _footer_differs(footer, meta)
    if differs:
        problems.append(
            "the Parquet footer's copy of the metadata differs from the table's "
            f"({', '.join(differs)}): tampered or corrupt"
        )
    if meta.get("checksums") is not None and column_checksums(table) != meta["checksums"]:
        problems.append("row-group checksums differ from its metadata (rows moved or changed)")
    if entry.get("meta_digest") not in (None, meta.get("meta_digest")):
        problems.append("metadata digest differs from MANIFEST.json (rules or extra facts changed)")
    if meta["schema_version"] != SCHEMA_VERSION:
        problems.append(f"schema version {meta['schema_version']} (expected {SCHEMA_VERSION})")
    if meta["table"] != name:
        problems.append(f"holds table {meta['table']!r}")
    if table.num_rows != meta["rows"]:
        problems.append(f"{table.num_rows} rows, metadata says {meta['rows']}")
    if game_rows and name in EXPECTED_ROWS and table.num_rows != EXPECTED_ROWS[name]:
        problems.append(f"{table.num_rows} rows, the game has {EXPECTED_ROWS[name]}")
    if digest != meta["digest"]:
        problems.append("content digest differs from its metadata (tampered or corrupt)")
    if entry.get("digest") not in (None, digest):
        problems.append("content digest differs from MANIFEST.json")
    if entry.get("rows") not in (None, table.num_rows):
        problems.append("row count differs from MANIFEST.json")
    if isinstance(entry.get("rules"), dict) and entry["rules"] != meta["rules"]:
        problems.append("rule sets differ from MANIFEST.json")
    return TableCheck(name, table.num_rows, digest, not problems, "; ".join(problems))


def check_tables(tables: str | os.PathLike[str] | None = None) -> list[TableCheck]:
    """Check every table of the current set; raises :class:`TableError` if there is
    no readable manifest."""
    directory = find_tables_dir(tables)
    manifest = read_manifest(directory)
    if manifest is None:
        raise TableError(f"{directory} has no MANIFEST.json; rebuild with `bull build`")
    entries = manifest.get("tables")
    if not isinstance(entries, dict) or not entries:
        raise TableError(f"{directory}/MANIFEST.json lists no tables; rebuild with `bull build`")
    set_dir = resolve_set(directory)
    results = [_check_one(name, entry, set_dir) for name, entry in sorted(entries.items())]
    listed = {str(e.get("file", f"{n}.parquet")) for n, e in entries.items()}
    for path in sorted(set_dir.glob("*.parquet")):
        if path.name not in listed:  # present but unlisted: checked, and a failure
            found = _check_one(path.stem, {}, set_dir)
            results.append(
                TableCheck(
                    found.name,
                    found.rows,
                    found.digest,
                    False,
                    "not listed in MANIFEST.json" + (f"; {found.problem}" if found.problem else ""),
                )
            )
    return results + check_rule_cache(directory)


def check_rule_cache(directory: os.PathLike[str]) -> list[TableCheck]:
    """Check every file of the rule cache ``directory/rules``: a rule-set table
    (``TABLE-RULEDIGEST-CODEDIGEST.parquet``) as a table of the set is checked, and its
    one rule set must have the digest its name holds; a figures file
    (``KIND-KEYDIGEST-CODEDIGEST.json``) must be a JSON object whose ``key`` has that
    digest. A file built by other code (another code digest) is checked too: it is
    never read, but it is in the cache."""
    from solver.store.custom import rule_digest

    folder = os.path.join(directory, "rules")
    if not os.path.isdir(folder):
        return []
    out = []
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if entry.name.startswith("."):  # a write in progress (or abandoned): not the cache
            continue
        shown = f"rules/{entry.name}"
        stem, _, suffix = entry.name.rpartition(".")
        parts = stem.rsplit("-", 2)
        if len(parts) != 3 or suffix not in ("parquet", "json"):
            out.append(TableCheck(shown, 0, "", False, "not a file of the rule cache"))
            continue
        kind, want, _code = parts
        if suffix == "json":
            out.append(_check_figures(shown, entry.path, want, rule_digest))
            continue
        found = _check_one(kind, {"file": entry.name}, folder, game_rows=False)
        problems = [found.problem] if found.problem else []
        if found.digest:  # the table read: which rule set does it hold?
            rules = table_meta(pq.read_schema(arrow_source(entry.path, "table")), shown)["rules"]
            if (
                not (isinstance(rules, dict) and len(rules) == 1)
                or rule_digest(next(iter(rules.values()))) != want
            ):
                problems.append(f"holds another rule set than its name says ({want})")
        out.append(TableCheck(shown, found.rows, found.digest, not problems, "; ".join(problems)))
    return out


def _check_figures(shown: str, path: str, want: str, digest: Any) -> TableCheck:
    try:
        stored = json.loads(read_text(path, "cached figures", 1 << 24))
    except (BullError, ValueError, RecursionError) as exc:
        return TableCheck(shown, 0, "", False, f"unreadable ({str(exc).splitlines()[0]})")
    if not isinstance(stored, dict) or "key" not in stored:
        return TableCheck(shown, 0, "", False, "not cached figures (no key)")
    if digest(stored["key"]) != want:
        return TableCheck(
            shown, 0, "", False, f"holds figures of another key than its name ({want})"
        )
    return TableCheck(shown, 0, "", True)


def cli_check_tables(args: argparse.Namespace, out: Any) -> int:
    results = check_tables(args.tables)
    directory = find_tables_dir(args.tables)
    set_dir = resolve_set(directory)
    if args.json:
        out.write(
            json.dumps(
                {
                    "directory": str(directory),
                    "set": set_dir.name,
                    "tables": [r.__dict__ for r in results],
                    "ok": all(r.ok for r in results),
                }
            )
            + "\n"
        )
    else:
        out.write(f"tables in {directory} (set {set_dir.name})\n")
        for r in results:
            out.write(str(r) + "\n")
    bad = [r for r in results if not r.ok]
    if bad:
        raise TableError(
            f"table {bad[0].name} failed its check ({bad[0].problem}); rebuild with `bull build`"
        )
    return 0
