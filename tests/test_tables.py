"""Table sets: provenance, digests, atomic replacement, killed builds, tampering."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest

from solver.cli import main
from solver.core.errors import TableError
from solver.store import sets
from solver.store import tables as tb

REPO = Path(__file__).resolve().parent.parent


def small_table(name: str, values: list[int]):  # type: ignore[no-untyped-def]
    return tb.make_table(name, {"x": np.array(values, dtype=np.int32)}, {"demo": {"a": 1}})


def test_digest_is_logical_not_bytes(tmp_path: Path) -> None:
    t = small_table("demo", list(range(100_000)))
    pq.write_table(t, tmp_path / "a.parquet", compression="zstd", row_group_size=1000)
    pq.write_table(t, tmp_path / "b.parquet", compression="none", row_group_size=77_777)
    assert (tmp_path / "a.parquet").read_bytes() != (tmp_path / "b.parquet").read_bytes()
    a = pq.read_table(tmp_path / "a.parquet")
    b = pq.read_table(tmp_path / "b.parquet")
    assert tb.content_digest(a) == tb.content_digest(b)
    assert tb.content_digest(small_table("demo", [1, 2, 3])) != tb.content_digest(
        small_table("demo", [1, 2, 4])
    )


def test_set_swap_and_carry_over(tmp_path: Path) -> None:
    sets.write_set({"one": small_table("one", [1]), "two": small_table("two", [2])}, tmp_path)
    first = tb.resolve_set(tmp_path)
    assert tb.open_table("one", tmp_path).column("x").tolist() == [1]
    sets.write_set({"two": small_table("two", [22])}, tmp_path)
    second = tb.resolve_set(tmp_path)
    assert second != first and first.exists()  # the set it replaced is kept, for readers
    sets.write_set({"two": small_table("two", [222])}, tmp_path)
    assert not first.exists()  # two builds later, with no reader holding it, it is gone
    sets.write_set({"two": small_table("two", [22])}, tmp_path)
    assert tb.resolve_set(tmp_path) == second
    assert tb.open_table("one", tmp_path).column("x").tolist() == [1]  # carried over
    assert tb.open_table("two", tmp_path).column("x").tolist() == [22]
    manifest = json.loads((tmp_path / "MANIFEST.json").read_text())
    assert set(manifest["tables"]) == {"one", "two"}
    # the stable names go through `current`
    assert (tmp_path / "two.parquet").resolve() == second / "two.parquet"
    # rebuilding identical content keeps the same set untouched
    sets.write_set({"two": small_table("two", [22])}, tmp_path)
    assert tb.resolve_set(tmp_path) == second


def test_a_failure_mid_write_leaves_the_old_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sets.write_set({"one": small_table("one", [1]), "two": small_table("two", [2])}, tmp_path)
    before = tb.resolve_set(tmp_path)
    calls = {"n": 0}
    real = sets.write_parquet

    def dying(table, path):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 2:  # after the first new file, before the second
            raise KeyboardInterrupt
        real(table, path)

    monkeypatch.setattr(sets, "write_parquet", dying)
    with pytest.raises(KeyboardInterrupt):
        sets.write_set({"one": small_table("one", [10]), "two": small_table("two", [20])}, tmp_path)
    assert tb.resolve_set(tmp_path) == before
    assert [p.name for p in (tmp_path / "sets").iterdir()] == [before.name]
    tb._LOADED.clear()
    assert tb.open_table("one", tmp_path).column("x").tolist() == [1]
    assert tb.open_table("two", tmp_path).column("x").tolist() == [2]


@pytest.mark.slow
def test_killed_builds_leave_the_previous_tables_intact(tmp_path: Path) -> None:
    """SIGKILL a real `bull build` at several moments; the old set must stay whole.

    Tau Ngau's build (one table, about a second with the interpreter's start) keeps
    the test short; the kills land from start-up to the swap, most near the writes."""
    out = tmp_path / "tables"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    cmd = [sys.executable, "-m", "solver", "build", "--game", "taungau", "--tables", str(out)]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, env=env)
    full = time.perf_counter() - t0
    before = tb.resolve_set(out)
    digest = json.loads((out / "MANIFEST.json").read_text())["tables"]["taungau"]["digest"]
    pf = pq.read_table(out / "taungau.parquet")
    for frac in (0.3, 0.7, 0.85, 0.92, 0.97, 0.99):
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(full * frac)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        now = tb.resolve_set(out)
        # either untouched, or (killed after the swap) the identical new set
        manifest = json.loads((out / "MANIFEST.json").read_text())
        assert manifest["tables"]["taungau"]["digest"] == digest
        assert now == before
        code = main(["check-tables", "--tables", str(out)], out=io.StringIO(), err=io.StringIO())
        assert code == 0
    assert pf.num_rows == 201_376
    # the next build sweeps away what the killed ones left half-written
    subprocess.run(cmd, check=True, capture_output=True, env=env)
    assert [p.name for p in (out / "sets").iterdir()] == [before.name]


def _copy_tables(src: Path, dst: Path) -> Path:
    """The committed tables (not the rule-set cache, which other tests may be writing)."""
    shutil.copytree(
        src, dst, symlinks=True, ignore=shutil.ignore_patterns("rules", ".tmp-*", ".build.lock")
    )
    return dst


def test_tampered_truncated_and_stale_tables_fail_cleanly(
    niuniu_tables: Path, tmp_path: Path
) -> None:
    d = _copy_tables(niuniu_tables, tmp_path / "t")
    set_dir = tb.resolve_set(d)
    path = set_dir / "niuniu.parquet"
    # tamper: rewrite one value, keep the old metadata
    table = pq.read_table(path)
    pts = table.column("points").to_numpy().copy()
    pts[12345] = (pts[12345] + 1) % 11
    idx = table.column_names.index("points")
    import pyarrow as pa

    tampered = table.set_column(idx, "points", pa.array(pts))
    os.chmod(path, 0o644)
    pq.write_table(tampered, path)
    err = io.StringIO()
    code = main(["check-tables", "--tables", str(d)], out=io.StringIO(), err=err)
    assert code == 2 and "niuniu" in err.getvalue() and "digest" in err.getvalue()
    # truncated file
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    tb._LOADED.clear()
    err = io.StringIO()
    code = main(
        ["eval", "niuniu", "KS 9H 8C 3D 7S", "--tables", str(d)], out=io.StringIO(), err=err
    )
    assert code == 2 and "corrupt" in err.getvalue() and err.getvalue().count("\n") == 1
    # stale schema version
    meta = dict(table.schema.metadata)
    meta[b"bull.schema_version"] = b"0"
    pq.write_table(table.replace_schema_metadata(meta), path)
    tb._LOADED.clear()
    with pytest.raises(TableError, match="schema version 0"):
        tb.open_table("niuniu", d)
    # missing table
    path.unlink()
    tb._LOADED.clear()
    err = io.StringIO()
    code = main(
        ["eval", "niuniu", "KS 9H 8C 3D 7S", "--tables", str(d)], out=io.StringIO(), err=err
    )
    assert code == 2 and "missing" in err.getvalue() and "bull build" in err.getvalue()


def test_empty_tables_dir_says_how_to_build(tmp_path: Path) -> None:
    err = io.StringIO()
    code = main(
        ["eval", "niuniu", "KS 9H 8C 3D 7S", "--tables", str(tmp_path)], out=io.StringIO(), err=err
    )
    assert code == 2 and "bull build" in err.getvalue()


def test_metadata_carries_provenance(niuniu_tables: Path) -> None:
    t = tb.open_table("niuniu", niuniu_tables)
    assert t.meta["schema_version"] == tb.SCHEMA_VERSION
    assert t.meta["rows"] == 2_598_960
    assert set(t.rules) >= {"classic", "casino"}
    assert t.rules["classic"]["specials"] == ["five_faces"]
    assert len(t.meta["digest"]) == 64 and "solver_version" in t.meta


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One fresh build of every table serves the two slow tests below: a non-editable
    install has no repository tables/, so its first lookup builds them (the same
    builders as ``bull build``) into the user cache. What the install saw is recorded
    here, with the environment restored before any other test runs."""
    tmp = tmp_path_factory.mktemp("install")
    cache = tmp / "cache" / "bull-solver" / "tables"
    seen: dict[str, Any] = {"cache": cache}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tb, "_REPO_TABLES", tmp / "site-packages" / "tables")
        mp.setenv("XDG_CACHE_HOME", str(tmp / "cache"))
        mp.delenv("BULL_TABLES", raising=False)
        mp.delenv("BULL_NO_AUTOBUILD", raising=False)
        tb._LOADED.clear()
        err = io.StringIO()
        mp.setattr(sys, "stderr", err)
        seen["path"] = tb.open_table("niuniu").path
        seen["stderr"] = err.getvalue()
        seen["found"] = tb.find_tables_dir()
        out, cerr = io.StringIO(), io.StringIO()
        seen["check"] = (main(["check-tables"], out=out, err=cerr), out.getvalue(), cerr.getvalue())
    tb._LOADED.clear()
    return seen


@pytest.mark.slow
def test_a_fresh_build_reproduces_the_committed_tables(installed: dict[str, Any]) -> None:
    manifest_path = REPO / "tables" / "MANIFEST.json"
    if not manifest_path.exists():
        pytest.skip("no committed tables in this checkout")
    committed = json.loads(manifest_path.read_text())["tables"]
    from solver import games

    chosen = [g for g in games.names() if set(games.get(g).tables) & set(committed)]
    wanted = {t for g in chosen for t in games.get(g).tables}
    built = json.loads((installed["cache"] / "MANIFEST.json").read_text())["tables"]
    fresh = {name: entry["digest"] for name, entry in built.items() if name in wanted}
    assert fresh == {name: entry["digest"] for name, entry in committed.items()}
    # the committed set itself: tables/ also holds the rule-set cache, which other tests
    # are writing (and replacing) while this one runs
    code = main(
        ["check-tables", "--tables", str(REPO / "tables" / "current")],
        out=io.StringIO(),
        err=io.StringIO(),
    )
    assert code == 0


@pytest.mark.slow
def test_an_install_without_tables_builds_them_once_in_the_user_cache(
    installed: dict[str, Any],
) -> None:
    """A non-editable install has no repository tables/: the first lookup builds the
    tables into the user cache and says where; later lookups find them there."""
    cache = installed["cache"]
    path = installed["path"]
    assert path.is_relative_to(cache.resolve()) or str(cache) in str(path)
    assert str(cache) in installed["stderr"]
    assert installed["found"] == cache
    code, out, err = installed["check"]
    assert code == 0, err
    assert str(cache) in out


def test_digest_of_string_columns_is_by_value() -> None:
    import pyarrow as pa

    a = pa.table({"s": pa.array(["AS 2H", "", "KC"])})
    b = pa.table({"s": pa.chunked_array([["AS 2H"], ["", "KC"]])})
    c = pa.table({"s": pa.array(["AS 2", "H", "KC"])})
    assert tb.content_digest(a) == tb.content_digest(b)
    assert tb.content_digest(a) != tb.content_digest(c)


def test_a_reader_keeps_its_set_while_builds_swap_current(tmp_path: Path) -> None:
    """A process resolves `current` once and reads every table from that set; a set a
    living reader holds (its lease) survives any number of builds."""
    import subprocess
    import sys
    import textwrap

    sets.write_set({"a": small_table("a", [1]), "b": small_table("b", [1])}, tmp_path)
    reader = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import sys
                from solver.store import sets
                from solver.store import tables as tb
                a = tb.open_table("a", {str(tmp_path)!r}).column("x").tolist()
                print("ready", flush=True)
                sys.stdin.readline()      # builds happen now
                b = tb.open_table("b", {str(tmp_path)!r}).column("x").tolist()
                print(a, b, flush=True)
                """
            ),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert reader.stdout is not None and reader.stdin is not None
    assert reader.stdout.readline().strip() == "ready"
    held = tb.resolve_set(tmp_path)
    for v in (2, 3, 4):
        sets.write_set({"a": small_table("a", [v]), "b": small_table("b", [v])}, tmp_path)
    assert held.exists()
    out, _ = reader.communicate("go\n", timeout=60)
    assert out.strip() == "[1] [1]"  # both tables from the set it resolved first
    sets.write_set({"a": small_table("a", [5]), "b": small_table("b", [5])}, tmp_path)
    assert not held.exists()  # its reader is gone: the set goes


def test_two_builds_at_once_end_with_one_whole_set(tmp_path: Path) -> None:
    import threading

    sets.write_set({"a": small_table("a", [0])}, tmp_path)
    errors: list[BaseException] = []

    def build(v: int) -> None:
        try:
            sets.write_set({"a": small_table("a", [v]), "b": small_table("b", [v])}, tmp_path)
        except BaseException as exc:  # pragma: no cover - a failure is what we look for
            errors.append(exc)

    threads = [threading.Thread(target=build, args=(v,)) for v in (1, 2, 3)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    tb._RESOLVED.clear()
    tb._LOADED.clear()
    a = tb.open_table("a", tmp_path).column("x").tolist()
    b = tb.open_table("b", tmp_path).column("x").tolist()
    assert a == b and a[0] in (1, 2, 3)


def test_a_builder_may_hand_tables_to_the_second_thread(tmp_path: Path) -> None:
    """A builder's job started with ``background`` comes back as a table; the set is the
    same with one thread or two, and a job's error is the build's (no set written)."""
    import threading

    from solver.store.build import background, build_set

    ran: list[str] = []

    def make(name: str, values: list[int]):  # type: ignore[no-untyped-def]
        ran.append(threading.current_thread().name)
        return small_table(name, values)

    def builder():  # type: ignore[no-untyped-def]
        return {"one": small_table("one", [1]), "two": background(make, "two", [2, 3])}

    one = build_set({"demo": builder}, tmp_path / "one", threads=1)
    two = build_set({"demo": builder}, tmp_path / "two", threads=2)
    assert ran == ["MainThread", "bull-build"]
    assert Path(one["set"]).name == Path(two["set"]).name  # the same content
    assert tb.open_table("two", tmp_path / "two").column("x").tolist() == [2, 3]
    assert set(two["tables"]) == {"one", "two"}

    def failing():  # type: ignore[no-untyped-def]
        return {"bad": background(make, "bad", "not numbers")}

    with pytest.raises(ValueError):
        build_set({"demo": failing}, tmp_path / "three", threads=2)
    assert not (tmp_path / "three" / "current").exists()


@pytest.mark.parametrize("kind", ["file", "read_only", "uncreatable"])
def test_a_build_that_cannot_write_is_one_line_and_keeps_the_old_set(
    tmp_path: Path, kind: str
) -> None:
    import os

    from solver.core.errors import TableError

    if kind == "file":
        target = tmp_path / "afile"
        target.write_text("x")
    elif kind == "read_only":
        target = tmp_path / "ro"
        sets.write_set({"a": small_table("a", [1])}, target)
        before = tb.resolve_set(target)
        for d in (target, target / "sets"):
            os.chmod(d, 0o555)
    else:
        target = tmp_path / "afile2" / "below"
        (tmp_path / "afile2").write_text("x")
    try:
        if os.geteuid() == 0 and kind == "read_only":
            pytest.skip("root writes into read-only directories")
        with pytest.raises(TableError) as e:
            sets.write_set({"a": small_table("a", [2])}, target)
        assert "\n" not in str(e.value)
        if kind == "read_only":
            assert tb.resolve_set(target) == before
            assert not list((target / "sets").glob(".tmp-*"))
    finally:
        if kind == "read_only":
            for d in (target, target / "sets"):
                os.chmod(d, 0o755)


def test_a_build_over_the_file_size_limit_is_one_line_and_leaves_no_junk(tmp_path: Path) -> None:
    """RLIMIT_FSIZE makes every write past a few kilobytes fail (EFBIG), as a full disk
    would: the build says so in one line, the old set stays current, no temporary set
    is left behind."""
    import subprocess
    import sys
    import textwrap

    sets.write_set({"a": small_table("a", [1])}, tmp_path)
    before = tb.resolve_set(tmp_path)
    script = textwrap.dedent(
        f"""
        import resource, sys
        import numpy as np
        from solver.core.errors import TableError
        from solver.store import sets
        from solver.store import tables as tb
        big = tb.make_table("a", {{"x": np.arange(2_000_000, dtype=np.int64)}}, {{}})
        resource.setrlimit(resource.RLIMIT_FSIZE, (64_000, 64_000))
        try:
            sets.write_set({{"a": big}}, {str(tmp_path)!r})
        except TableError as exc:
            print("ERROR", exc)
        """
    )
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    assert run.stdout.startswith("ERROR cannot write the tables") and run.stdout.count("\n") == 1
    tb._RESOLVED.clear()
    assert tb.resolve_set(tmp_path) == before
    assert tb.open_table("a", tmp_path).column("x").tolist() == [1]
    assert not list((tmp_path / "sets").glob(".tmp-*"))
