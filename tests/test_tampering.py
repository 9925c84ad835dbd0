"""A tampered table is refused, not believed: shuffled rows with the metadata kept, a
changed value, edited metadata (rule sets, the strategy table's overall EVs), a table
present but missing from the manifest, a manifest of the wrong shape, a symlink loop."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from solver.cli import main
from solver.core.errors import TableError
from solver.store import integrity, sets
from solver.store import tables as tb

ROWS = 3 * tb.ROW_GROUP_SIZE + 17


def _set(tmp_path: Path) -> Path:
    rng = np.random.default_rng(7)
    t = tb.make_table(
        "demo",
        {"a": rng.integers(0, 100, ROWS, dtype=np.int16), "b": rng.random(ROWS) < 0.5},
        {"r": {"k": 1}},
        extra={"overall_ev": {"x": 0.125}},
    )
    sets.write_set({"demo": t}, tmp_path)
    return tb.resolve_set(tmp_path) / "demo.parquet"


def _fresh() -> None:
    tb._LOADED.clear()
    tb._RESOLVED.clear()


def _rewrite(path: Path, table: pa.Table) -> None:
    os.chmod(path, 0o644)
    pq.write_table(table, path, row_group_size=tb.ROW_GROUP_SIZE)
    _fresh()


def test_a_whole_table_reads_and_checks(tmp_path: Path) -> None:
    path = _set(tmp_path)
    _fresh()
    t = tb.open_table("demo", tmp_path)
    assert len(t.column("a")) == ROWS and t.rows([5, ROWS - 1], ["a", "b"])["a"].shape == (2,)
    assert all(c.ok for c in integrity.check_tables(tmp_path)), path


@pytest.mark.parametrize("how", ["shuffle", "swap_groups", "flip_one"])
def test_moved_or_changed_rows_are_refused(tmp_path: Path, how: str) -> None:
    path = _set(tmp_path)
    table = pq.read_table(path)
    a = table.column("a").to_numpy().copy()
    if how == "shuffle":
        order = np.random.default_rng(1).permutation(ROWS)
        table = table.take(pa.array(order))
    elif how == "swap_groups":
        g = tb.ROW_GROUP_SIZE
        order = np.r_[np.arange(g, 2 * g), np.arange(0, g), np.arange(2 * g, ROWS)]
        table = table.take(pa.array(order))
    else:
        a[ROWS - 3] = (a[ROWS - 3] + 1) % 100
        table = table.set_column(0, "a", pa.array(a))
    _rewrite(path, table.replace_schema_metadata(pq.read_schema(path).metadata))
    t = tb.open_table("demo", tmp_path)  # the metadata is intact: opening is fine ...
    with pytest.raises(TableError, match="checksums"):  # ... reading the rows is not
        t.column("a")
    _fresh()
    with pytest.raises(TableError, match="checksums"):
        tb.open_table("demo", tmp_path).rows([5 if how == "swap_groups" else ROWS - 3], ["a"])
    bad = [c for c in integrity.check_tables(tmp_path) if not c.ok]
    assert bad and "checksums" in bad[0].problem


def test_edited_metadata_is_refused(tmp_path: Path) -> None:
    path = _set(tmp_path)
    schema = pq.read_schema(path)
    meta = dict(schema.metadata)
    extra = json.loads(meta[b"bull.extra"])
    extra["overall_ev"]["x"] = 0.5  # a better-looking EV
    meta[b"bull.extra"] = json.dumps(extra, sort_keys=True).encode()
    _rewrite(path, pq.read_table(path).replace_schema_metadata(meta))
    with pytest.raises(TableError, match="does not match its own digest"):
        tb.open_table("demo", tmp_path)
    # the same edit with the file's own digest recomputed still disagrees with the manifest
    raw = {k.decode()[5:]: json.loads(v) for k, v in meta.items() if k.startswith(b"bull.")}
    meta[b"bull.meta_digest"] = json.dumps(tb.meta_digest(raw)).encode()
    _rewrite(path, pq.read_table(path).replace_schema_metadata(meta))
    with pytest.raises(TableError, match="MANIFEST"):
        tb.open_table("demo", tmp_path)
    bad = [c for c in integrity.check_tables(tmp_path) if not c.ok]
    assert bad and "metadata digest differs from MANIFEST.json" in bad[0].problem


def test_a_table_missing_from_the_manifest_is_still_checked(tmp_path: Path) -> None:
    path = _set(tmp_path)
    (path.parent / "ghost.parquet").write_bytes(path.read_bytes()[:100])  # corrupt, unlisted
    results = integrity.check_tables(tmp_path)
    ghost = [r for r in results if r.name == "ghost"]
    assert ghost and not ghost[0].ok and "not listed in MANIFEST.json" in ghost[0].problem
    err = io.StringIO()
    assert main(["check-tables", "--tables", str(tmp_path)], out=io.StringIO(), err=err) == 2
    assert "ghost" in err.getvalue() and err.getvalue().count("\n") == 1


@pytest.mark.parametrize(
    "listing", ['{"tables": ["demo"]}', '{"tables": {"demo": "demo.parquet"}}', "[1, 2]"]
)
def test_a_manifest_of_the_wrong_shape_is_one_line(tmp_path: Path, listing: str) -> None:
    path = _set(tmp_path)
    manifest = path.parent / "MANIFEST.json"
    os.chmod(manifest, 0o644)
    manifest.write_text(listing)
    _fresh()
    err = io.StringIO()
    code = main(["check-tables", "--tables", str(tmp_path)], out=io.StringIO(), err=err)
    assert code == 2 and "MANIFEST.json" in err.getvalue() and err.getvalue().count("\n") == 1
    with pytest.raises(TableError, match=r"MANIFEST\.json"):
        tb.open_table("demo", tmp_path)


def test_a_current_symlink_loop_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "current").symlink_to("current")
    (tmp_path / "niuniu.parquet").symlink_to(Path("current") / "niuniu.parquet")
    _fresh()
    err = io.StringIO()
    code = main(["odds", "niuniu", "--tables", str(tmp_path)], out=io.StringIO(), err=err)
    assert code == 2 and err.getvalue().count("\n") == 1 and "Traceback" not in err.getvalue()


def test_old_tables_without_checksums_are_refused_with_how_to_fix(tmp_path: Path) -> None:
    path = _set(tmp_path)
    meta = dict(pq.read_schema(path).metadata)
    meta[b"bull.schema_version"] = b"1"
    _rewrite(path, pq.read_table(path).replace_schema_metadata(meta))
    with pytest.raises(TableError, match="schema version 1, this solver reads 2; rebuild"):
        tb.open_table("demo", tmp_path)
