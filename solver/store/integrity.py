"""``bull check-tables``: recompute every table's content digest and check it against
its own metadata and ``MANIFEST.json``, with row counts and schema versions.

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

from solver.core.errors import TableError
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
        return f"{self.name}: {self.rows:,} rows, digest {self.digest[:16]}… {state}"


def _check_one(name: str, entry: dict[str, Any], set_dir: os.PathLike[str]) -> TableCheck:
    path = os.path.join(set_dir, entry.get("file", f"{name}.parquet"))
    try:
        table = pq.read_table(path)
    except (OSError, pa.ArrowException) as exc:
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return TableCheck(name, 0, "", False, f"unreadable ({msg})")
    try:
        meta = table_meta(table.schema, path)
    except TableError as exc:
        return TableCheck(name, table.num_rows, "", False, str(exc))
    digest = content_digest(table.replace_schema_metadata(None))
    problems = []
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
    if name in EXPECTED_ROWS and table.num_rows != EXPECTED_ROWS[name]:
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
    return results


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
