"""Readers' leases: no reader loses its table set to a build, whatever was installed
before it (issue 24: an older set re-installed, then two builds at once, deleted and
replaced the set a reader held)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from solver.store import sets
from solver.store import tables as tb

REPO = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(REPO), "BULL_NO_AUTOBUILD": "1"}

READER = """
import json, sys, time
from pathlib import Path
from solver.core.errors import TableError
from solver.store import tables as tb
d, stop = Path(sys.argv[1]), Path(sys.argv[2])
reads, errors, first, n = 0, 0, "", 0
print("ready", flush=True)
while not stop.exists():
    tb._LOADED.clear()  # open the files again, from the set this process resolved first
    for name in ("pokdeng", "pokdeng_strategy"):
        reads += 1
        try:
            tb.open_table(name, d)
        except TableError as exc:
            errors += 1
            first = first or str(exc)
    time.sleep(0.05)  # leave the builds the cores
print(json.dumps({"reads": reads, "errors": errors, "first": first}), flush=True)
"""


def _old_release(new: Path) -> dict[str, pa.Table]:
    """The same tables as an older release wrote them: another solver version in their
    metadata, so another set id (a real older set, complete and consistent)."""
    tables = {}
    for name in ("pokdeng", "pokdeng_strategy"):
        table = pq.read_table(new / f"{name}.parquet")
        meta = tb.table_meta(table.schema, name)
        meta["solver_version"] = "0.0-old"
        meta["meta_digest"] = tb.meta_digest(meta)
        encoded = {
            f"bull.{k}".encode(): json.dumps(v, sort_keys=True).encode() for k, v in meta.items()
        }
        tables[name] = table.replace_schema_metadata(encoded)
    return tables


@pytest.mark.slow
def test_readers_keep_their_sets_while_an_old_set_is_installed_and_built_over(
    tmp_path: Path,
) -> None:
    from solver.build import build

    root = tmp_path / "tables"
    build(["pokdeng"], tables=root)
    new_set = tb.resolve_set(root)
    old = _old_release(new_set)
    tb.forget_set(root)
    stop = tmp_path / "stop"
    readers: list[subprocess.Popen[str]] = []

    def start_reader() -> None:
        """A reader that stays on the set it resolves now, for the rest of the test."""
        reader = subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(READER), str(root), str(stop)],
            stdout=subprocess.PIPE,
            text=True,
            env=ENV,
        )
        readers.append(reader)
        assert reader.stdout is not None
        assert reader.stdout.readline().strip() == "ready"

    cmd = [sys.executable, "-m", "solver", "build", "--game", "pokdeng", "--tables", str(root)]
    try:
        start_reader()  # on the new set
        for cycle in range(2):
            # the older release installed again (in the second cycle its set id is
            # still there, kept for the reader that holds it), then two builds at once
            old_set = sets.write_set(old, root)
            assert old_set.name != new_set.name
            if cycle == 0:
                start_reader()  # on the old set
            builds = [
                subprocess.Popen(cmd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                for _ in range(2)
            ]
            for b in builds:
                _, err = b.communicate(timeout=120)
                assert b.returncode == 0, err
        # the rebuilt sets are the same bytes as the ones kept for their readers:
        # reused, never copied beside them or replaced
        current = (root / "current").resolve()
        listing = sorted(p.name for p in (root / "sets").iterdir())
    finally:
        stop.touch()
        results = [json.loads(r.communicate(timeout=60)[0]) for r in readers]
    assert all(r["reads"] > 0 for r in results)
    assert [r["errors"] for r in results] == [0, 0], results
    assert current == new_set
    assert listing == sorted([new_set.name, old_set.name])
    tb.forget_set(root)
    for name in ("pokdeng", "pokdeng_strategy"):
        column = tb.open_table(name, root).column(tb.open_table(name, root).column_names[0])
        assert isinstance(column, np.ndarray) and len(column)


def small_table(name: str, values: list[int]):  # type: ignore[no-untyped-def]
    return tb.make_table(name, {"x": np.array(values, dtype=np.int32)}, {"demo": {"a": 1}})


def test_a_damaged_set_of_the_same_id_is_not_reused_and_not_written_over(
    tmp_path: Path,
) -> None:
    """A set folder of the id a build would write, whose files are not the ones the
    build wrote, is neither believed nor replaced in place: the set goes beside it."""
    first = sets.write_set({"a": small_table("a", [1])}, tmp_path)
    sets.write_set({"a": small_table("a", [2])}, tmp_path)
    tb.forget_set(tmp_path)
    assert first.exists()  # the set the second build replaced is kept
    (first / "a.parquet").write_bytes(b"damaged")
    again = sets.write_set({"a": small_table("a", [1])}, tmp_path)
    assert again.name == f"{first.name}-2"
    assert json.loads((again / "MANIFEST.json").read_text())["set"] == first.name
    tb.forget_set(tmp_path)
    assert tb.open_table("a", tmp_path).column("x").tolist() == [1]


def test_a_set_this_process_reads_is_dropped_by_its_own_build_but_not_anothers(
    tmp_path: Path,
) -> None:
    """A lease is a shared lock: the kernel drops it when the reader ends, however it
    ends (no pid files to go stale)."""
    held = sets.write_set({"a": small_table("a", [1])}, tmp_path)
    reader = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from solver.store import tables as tb; "
            f"tb.open_table('a', {str(tmp_path)!r}); print('ready', flush=True); "
            "sys.stdin.readline()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    assert reader.stdout is not None and reader.stdin is not None
    assert reader.stdout.readline().strip() == "ready"
    tb.open_table("a", tmp_path)  # this process reads it too
    for v in (2, 3):
        sets.write_set({"a": small_table("a", [v])}, tmp_path)
    assert held.exists()  # the other reader holds it
    reader.kill()
    reader.wait()
    sets.write_set({"a": small_table("a", [4])}, tmp_path)
    assert not held.exists()  # killed: its lease went with it
