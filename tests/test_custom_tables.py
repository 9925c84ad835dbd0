"""Tables for a user's rule file: built once on first use, cached by the rule set's
digest, reused, and rebuilt when the cached file is not what it claims."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from solver.core.errors import TableError
from solver.store import custom
from solver.store.tables import make_table


def _builder(data: dict[str, object], calls: list[int]):  # type: ignore[no-untyped-def]
    def build():  # type: ignore[no-untyped-def]
        calls.append(1)
        return make_table("demo", {"x": np.arange(10, dtype=np.int16)}, {str(data["name"]): data})

    return build


def test_built_once_then_reused(tmp_path: Path) -> None:
    data = {"game": "demo", "name": "mine", "k": 3}
    calls: list[int] = []
    said = io.StringIO()
    custom._OPEN.clear()
    t = custom.rule_table("demo", data, _builder(data, calls), tmp_path, 10, said.write)
    assert calls == [1] and "building the demo table for rule set 'mine'" in said.getvalue()
    assert t.column("x").tolist() == list(range(10))
    assert t.path.parent == tmp_path / "rules"
    custom._OPEN.clear()  # a new process: the file on disk is reused, silently
    said2 = io.StringIO()
    again = custom.rule_table("demo", data, _builder(data, calls), tmp_path, 10, said2.write)
    assert calls == [1] and said2.getvalue() == "" and again.path == t.path
    # another rule set is another file
    other = {**data, "k": 4}
    custom.rule_table("demo", other, _builder(other, calls), tmp_path, 10, said2.write)
    assert calls == [1, 1] and len(list((tmp_path / "rules").glob("demo-*.parquet"))) == 2


def test_a_table_just_built_is_kept_not_read_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process that builds a small rule-set table keeps its columns (what the file
    holds); a large one, and any table a later process opens, is read from the file."""
    import pyarrow.parquet as pq

    data = {"game": "demo", "name": "mine", "k": 3}
    custom._OPEN.clear()
    real_read = pq.ParquetFile.read
    reads: list[object] = []

    def read(self: pq.ParquetFile, *args: object, **kwargs: object) -> object:
        reads.append(kwargs.get("columns"))
        return real_read(self, *args, **kwargs)

    monkeypatch.setattr(pq.ParquetFile, "read", read)
    t = custom.rule_table("demo", data, _builder(data, []), tmp_path, 10, lambda s: None)
    assert t.column("x").tolist() == list(range(10)) and reads == []
    assert t.column("x").dtype == pq.read_table(t.path).column("x").to_numpy().dtype
    custom._OPEN.clear()  # the next process reads the file
    again = custom.rule_table("demo", data, _builder(data, []), tmp_path, 10, lambda s: None)
    assert again.column("x").tolist() == list(range(10)) and reads == [["x"]]
    custom._OPEN.clear()
    monkeypatch.setattr(custom, "KEEP_BYTES", 0)  # too large to keep: read back
    other = {**data, "k": 4}
    big = custom.rule_table("demo", other, _builder(other, []), tmp_path, 10, lambda s: None)
    assert big.column("x").tolist() == list(range(10)) and reads == [["x"], ["x"]]


def test_a_cached_file_for_other_content_is_rebuilt(tmp_path: Path) -> None:
    data = {"game": "demo", "name": "mine", "k": 3}
    calls: list[int] = []
    custom._OPEN.clear()
    path = custom.rule_table_path("demo", data, tmp_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"not parquet")  # a truncated or foreign file at the right name
    custom.rule_table("demo", data, _builder(data, calls), tmp_path, 10, lambda s: None)
    assert calls == [1]
    custom._OPEN.clear()
    wrong = {**data, "k": 5}  # a table built for other content, renamed into place
    custom.rule_table_path("demo", wrong, tmp_path).unlink(missing_ok=True)
    custom.rule_table("demo", wrong, _builder(wrong, calls), tmp_path, 10, lambda s: None)
    custom.rule_table_path("demo", wrong, tmp_path).replace(path)
    custom._OPEN.clear()
    custom.rule_table("demo", data, _builder(data, calls), tmp_path, 10, lambda s: None)
    assert calls == [1, 1, 1]


def test_wrong_row_count_is_refused(tmp_path: Path) -> None:
    data = {"game": "demo", "name": "mine"}
    custom._OPEN.clear()
    with pytest.raises(TableError, match="does not read back"):
        custom.rule_table("demo", data, _builder(data, []), tmp_path, 11, lambda s: None)
    assert not list((tmp_path / "rules").glob(".tmp-*"))


def test_a_table_built_by_other_code_is_not_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = {"game": "demo", "name": "mine"}
    calls: list[int] = []
    custom._OPEN.clear()
    first = custom.rule_table("demo", data, _builder(data, calls), tmp_path, 10, lambda s: None)
    monkeypatch.setattr(custom, "code_digest", lambda: "0ther000")  # the evaluators changed
    custom._OPEN.clear()
    second = custom.rule_table("demo", data, _builder(data, calls), tmp_path, 10, lambda s: None)
    assert calls == [1, 1] and second.path != first.path
    assert not first.path.exists()  # the stale copy is gone
