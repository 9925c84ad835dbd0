"""The DuckDB engine reads the ``role`` and ``result`` text columns as label codes in
SQL (only rows not written exactly as a common label cross to Python as text): every
row must mean what the batch's own parser makes of it. The reference here is the same
log fed to the batch function as plain Arrow rows, as the Spark engine feeds it."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from solver.audit.batch import Auditor
from solver.audit.duckdb_engine import run_duckdb
from solver.audit.partial import Partial
from solver.audit.spec import load_spec

ROLES = ["player", "Banker", " dealer ", "PLAYER", "croupier", "", None, "banker", "player"]
RESULTS = ["win", "Loss", "push", " won", "perhaps", "", None, "DRAW", "lose", "loss", "win"]


def _log(tmp_path: Path) -> Path:
    rows: list[dict[str, Any]] = []
    ids = iter(range(10**6))
    for r in range(60):
        hands = [[(5 * s + j + r) % 52 for j in range(5)] for s in range(4)]
        for seat, hand in enumerate(hands):
            k = next(ids)
            role = "banker" if seat == 0 else "player"
            if k % 7 == 3:
                role = ROLES[k % len(ROLES)]
            rows.append({
                "round": r, "seat": seat, "role": role, "hand": hand,
                "result": None if seat == 0 else RESULTS[k % len(RESULTS)],
                "net": None if seat == 0 else float(k % 5 - 2),
            })  # fmt: skip
    path = tmp_path / "odd.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def _said(p: Partial) -> dict[str, Any]:
    q = Partial()
    q.merge(p)
    g = q.groups[""]
    return {
        "counts": (q.rows, q.rounds, q.malformed, q.impossible, q.settled, q.disagree),
        "fields": q.fields,
        "malformed_rows": q.malformed_rows,
        "disagree_rows": q.disagree_rows,
        "cells": (g.banker.tolist(), g.player.tolist(), g.outcome.tolist()),
    }


def test_codes_read_in_sql_mean_what_the_parser_says(tmp_path: Path) -> None:
    path = _log(tmp_path)
    spec = load_spec("niuniu", None, {}, None)
    cols = {k: k for k in ("round", "role", "hand", "result", "net")}
    coded = run_duckdb(spec, [str(path)], "parquet", cols, [], workers=1)
    plain = Auditor(spec, [])
    table = pq.read_table(path).select(list(cols))
    reference = plain.run(table.to_batches(max_chunksize=37))
    got, want = _said(coded), _said(reference)
    assert got == want
    # the odd spellings are there: some rows malformed, some claims read as stated
    assert want["counts"][2] > 0 and want["fields"]["winner"][0] > 0
    assert any("croupier" in m for _, m in want["malformed_rows"])
    assert any(m == "result: not readable" for _, m in want["malformed_rows"])


def test_the_audits_one_gather_settlement_is_the_games_own(
    monkeypatch: Any, tmp_path: Path
) -> None:
    """The audit settles Niu Niu from one small code per hand (and one gather in the grid
    of every pair of codes): the same winner and net as ``play.settle_batch``, for rule
    sets with and without the grid, bets, a commission and ties to the banker (the
    preset's hand table, settled otherwise). The codes are made once per rule set and
    kept on disk (and in the process): a second round of the rule sets in a new process
    makes none anew and still settles every deal right; a damaged file is made again."""
    import numpy as np

    from solver.games.niuniu import audit
    from solver.games.niuniu.play import settle_batch
    from solver.store import custom

    made: list[int] = []
    make = audit._make_codes

    def counted(*args: Any) -> Any:
        made.append(1)
        return make(*args)

    real_path = custom.rule_table_path

    def kept_here(name: str, key: Any, tables: Any = None) -> Path:
        if name != "audit-codes":
            return real_path(name, key, tables)
        return tmp_path / f"{name}-{custom.rule_digest(key)}-code.parquet"

    monkeypatch.setattr(custom, "rule_table_path", kept_here)
    monkeypatch.setattr(audit, "_CODES", {})
    monkeypatch.setattr(audit, "_make_codes", counted)
    banker = {"game": "niuniu", "base": "classic", "name": "ties_banker", "on_tie": "banker"}
    rng = np.random.default_rng(3)
    cases: list[tuple[Any, dict[str, Any]]] = [
        ("classic", {}), ("classic", {"bet": "double", "commission": 0.1}), ("casino", {}),
        (banker, {}), ("no_faces", {}),
    ]  # fmt: skip

    def settles_right(n: int) -> None:
        for rules, opts in cases:
            spec = load_spec("niuniu", rules, opts, None)
            deals = np.array([rng.choice(spec.deck, 10, replace=False) for _ in range(n)])
            p, b = deals[:, :5].astype(np.uint8), deals[:, 5:].astype(np.uint8)
            winner, net = spec.hooks["settle_values"](spec.hooks["evaluate"](p),
                                                      spec.hooks["evaluate"](b))  # fmt: skip
            want = settle_batch(p, b, rules, bet=opts.get("bet"),
                                commission=opts.get("commission"))  # fmt: skip
            assert np.array_equal(net, want), rules
            assert np.array_equal(winner, np.where(want > 0, 0, np.where(want < 0, 1, 2))), rules

    settles_right(20_000)
    # classic's two bets share codes, the other rule sets do not
    files = sorted(tmp_path.glob("audit-codes-*.npz"))
    assert len(made) == len(files) == 4  # (no_faces: values that do not pack, kept so)
    monkeypatch.setattr(audit, "_CODES", {})  # a new process: only the files are left
    settles_right(4_000)
    assert len(made) == 4
    files[0].write_bytes(files[0].read_bytes()[:-100])  # cut short: made again
    monkeypatch.setattr(audit, "_CODES", {})
    settles_right(4_000)
    assert len(made) == 5


def test_ranges_of_whole_rounds_in_worker_processes_give_the_single_readers_result(
    tmp_path: Path,
) -> None:
    """A large Parquet log is cut into ranges of whole rounds, audited in forked worker
    processes: the same partial as one reader (the examples listed too), whether a cut
    lands inside a round (it moves to the round's end), the logs are out of round order
    (read again sorted) or hold malformed rows."""
    from solver.audit.duckdb_engine import round_cuts

    path = _log(tmp_path)
    spec = load_spec("niuniu", None, {}, None)
    cols = {k: k for k in ("round", "role", "hand", "result", "net")}
    one = run_duckdb(spec, [str(path)], "parquet", cols, [], workers=1)
    rows = pq.read_metadata(path).num_rows  # 60 rounds of 4 rows
    cuts = round_cuts(str(path), "round", 3, 1, "1GB")
    assert cuts is not None and cuts[0] == 0 and cuts[-1] == rows and len(cuts) == 4
    assert all(c % 4 == 0 for c in cuts)  # 80 and 160 are round starts; 81 would not be
    assert round_cuts(str(path), "round", 2, rows + 1, "1GB") is None  # too small
    calls: list[int] = []

    def meanwhile() -> None:  # the parent's own work while the workers read: its error
        calls.append(1)  # is left to the caller
        raise RuntimeError("not now")

    many = run_duckdb(spec, [str(path)], "parquet", cols, [], workers=3, parallel_rows=1,
                      meanwhile=meanwhile)  # fmt: skip
    assert _said(many) == _said(one) and calls == [1]
    # rounds of 1 to 5 rows, cut anywhere: the cuts move to round starts
    t = pq.read_table(path)
    ragged = t.filter(pa.array([(i * 7) % 11 != 3 for i in range(t.num_rows)]))
    rpath = tmp_path / "ragged.parquet"
    pq.write_table(ragged, rpath)
    want = _said(run_duckdb(spec, [str(rpath)], "parquet", cols, [], workers=1))
    for parts in (2, 5, 7):
        got = run_duckdb(spec, [str(rpath)], "parquet", cols, [], workers=parts, parallel_rows=1)
        assert _said(got) == want, parts
    # out of order across a cut: read again, sorted by round
    back = pa.concat_tables([t.slice(120), t.slice(0, 120)])
    bpath = tmp_path / "back.parquet"
    pq.write_table(back, bpath)
    assert round_cuts(str(bpath), "round", 2, 1, "1GB") is None
    got = run_duckdb(spec, [str(bpath)], "parquet", cols, [], workers=2, parallel_rows=1)
    assert _said(got) == _said(one)
    # in order at the cuts, not inside a range: the worker says so, and all is read sorted
    assert round_cuts(str(bpath), "round", 3, 1, "1GB") == [0, 80, 160, rows]
    got = run_duckdb(spec, [str(bpath)], "parquet", cols, [], workers=3, parallel_rows=1)
    assert _said(got) == _said(one)


def test_cuts_read_with_pyarrow_are_duckdbs(tmp_path: Path) -> None:
    """The cuts and column types read from the Parquet files with pyarrow (no DuckDB in
    the parent process) are the ones DuckDB's SQL finds: rounds of 1 to 4 rows, null
    rounds, integer and text ids, small row groups, windows that see no round end,
    rounds out of order at a cut."""
    from solver.audit.duckdb_engine import column_types, round_cuts
    from solver.audit.ranges import arrow_cuts, parquet_types

    ids = [1, 1, None, None, 2, 2, 2, None, 3, 3, 4, 4, 4, 4, 5, 6, 6, 7]
    back = [3, 3, 1, 1, 2, 2, 5, 5, 4]
    for typ, order in itertools.product((pa.int16(), pa.string()), (ids, back)):
        vals = [None if v is None else str(v) if typ == pa.string() else v for v in order]
        path = str(tmp_path / "r.parquet")
        pq.write_table(pa.table({"round": pa.array(vals, typ), "x": vals}), path,
                       row_group_size=4)  # fmt: skip
        mine, duck = parquet_types([path]) or {}, column_types([path], "parquet")
        assert list(mine) == list(duck) == ["round", "x"]  # text where DuckDB reads VARCHAR
        assert [t == "VARCHAR" for t in mine.values()] == [t == "VARCHAR" for t in duck.values()]
        assert (mine["round"] == "VARCHAR") == (typ == pa.string())
        for parts, window in itertools.product((2, 3, 7), (1, 100)):
            import solver.audit.duckdb_engine as engine

            was, engine._WINDOW = engine._WINDOW, window
            try:
                want = round_cuts(path, "round", parts, 2, "1GB")
            finally:
                engine._WINDOW = was
            assert arrow_cuts(path, "round", parts, 2, window) == want, (typ, parts, window)


def test_runs_of_whole_files_in_worker_processes_give_the_single_readers_result(
    tmp_path: Path,
) -> None:
    """Logs in many Parquet files are cut into runs of whole files, never inside a round
    written across two files: the same partial as one reader; files out of round order
    are read by one reader, sorted."""
    from solver.audit.duckdb_engine import file_groups

    t = pq.read_table(_log(tmp_path))  # 60 rounds of 4 rows
    spec = load_spec("niuniu", None, {}, None)
    cols = {k: k for k in ("round", "role", "hand", "result", "net")}
    folder = tmp_path / "logs"
    folder.mkdir()
    bounds = [0, 40, 82, 120, 160, 199, 240]  # 82 and 199 fall inside rounds
    files = []
    for i, (a, b) in enumerate(itertools.pairwise(bounds)):
        files.append(str(folder / f"part-{i}.parquet"))
        pq.write_table(t.slice(a, b - a), files[-1])
    one = _said(run_duckdb(spec, files, "parquet", cols, [], workers=1))
    for parts in (2, 3, 6):
        groups = file_groups(files, "round", parts, 1, "1GB")
        assert groups is not None and [f for g in groups for f in g] == files
        starts = [files.index(g[0]) for g in groups[1:]]
        assert not {2, 5} & set(starts), starts  # not after a file that ends mid-round
        got = run_duckdb(spec, files, "parquet", cols, [], workers=parts, parallel_rows=1)
        assert _said(got) == one, parts
    backwards = files[3:] + files[:3]
    assert file_groups(backwards, "round", 2, 1, "1GB") is None
    got = run_duckdb(spec, backwards, "parquet", cols, [], workers=2, parallel_rows=1)
    assert _said(got) == one


def test_worker_ranges_read_with_pyarrow_are_duckdbs_batches(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """The workers read their ranges with pyarrow where both readers give the same
    columns (solver.audit.ranges): the same partial as the ranges read by DuckDB and as
    one reader, with the odd spellings and nulls, a --by column, rounds per file (the
    examples name the file); a column of a type read otherwise (a decimal net) has its
    ranges read by DuckDB."""
    import decimal

    from solver.audit import duckdb_engine

    path = _log(tmp_path)
    spec = load_spec("niuniu", None, {}, None)
    cols = {k: k for k in ("round", "role", "hand", "result", "net")} | {"by:seat": "seat"}
    marks = tmp_path / "marks"
    marks.mkdir()
    real = duckdb_engine.slices

    def spy(parts: Any, *rest: Any) -> Any:  # runs in the forked workers: leaves a file
        (marks / f"{parts[0][0]}-{parts[0][2]}").touch()
        return real(parts, *rest)

    monkeypatch.setattr(duckdb_engine, "slices", spy)
    t = pq.read_table(path)
    halves = [str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet")]
    pq.write_table(t.slice(0, 120), halves[0])
    pq.write_table(t.slice(120), halves[1])
    decimal_net = tmp_path / "decimal.parquet"
    nets = [None if v is None else decimal.Decimal(str(v)) for v in t.column("net").to_pylist()]
    pq.write_table(t.set_column(t.schema.get_field_index("net"), "net",
                                pa.array(nets, pa.decimal128(9, 2))), decimal_net)  # fmt: skip
    for files, per_file, arrow in (([str(path)], False, True), (halves, True, True),
                                   ([str(decimal_net)], False, False)):  # fmt: skip
        one_p = run_duckdb(spec, files, "parquet", cols, ["seat"], workers=1, per_file=per_file)
        one = _said(one_p)
        for p in marks.iterdir():
            p.unlink()
        got = run_duckdb(spec, files, "parquet", cols, ["seat"], workers=2, parallel_rows=1,
                         per_file=per_file)  # fmt: skip
        assert len(list(marks.iterdir())) == (2 if arrow else 0), files
        assert _groups(got) == _groups(one_p) and _said(got) == one, files
        with monkeypatch.context() as m:  # the same ranges read by DuckDB
            m.setattr(duckdb_engine, "arrow_types", lambda *a: None)
            sql = run_duckdb(spec, files, "parquet", cols, ["seat"], workers=2,
                             parallel_rows=1, per_file=per_file)  # fmt: skip
        assert _groups(sql) == _groups(one_p) and _said(sql) == one, files
        assert one["counts"][2] > 0 and one["malformed_rows"]  # odd rows are in each
        if per_file:
            assert all(":" in r for r, _ in one["malformed_rows"])  # named by file


def _groups(p: Partial) -> dict[str, Any]:
    """Every group's counts (overall and per --by value), as plain values."""
    q = Partial()
    q.merge(p)
    return {
        name: (g.rows, g.rounds, g.banker.tolist(), g.player.tolist(), g.unit.tolist(),
               g.outcome.tolist(), g.held_rows, g.held_pairs, g.held_micro)
        for name, g in q.groups.items()
    }  # fmt: skip


def test_the_audits_arrow_gathers_are_numpys() -> None:
    """The audit's hand lookup by Arrow's take (niuniu/audit_gather.py) gives the store's
    batch lookup on every row (random hands in any order, the first and last colex
    ranks, chunks cut anywhere), and a gather by any integer type numpy's take."""
    import numpy as np

    from solver.core.indexing import batch_lookup
    from solver.games.niuniu.audit_gather import arrow, gather, hand_values

    rng = np.random.default_rng(7)
    table = rng.integers(0, 1 << 16, 2598960).astype(np.uint16)
    hands = np.array([rng.permutation(52)[:5] for _ in range(70_000)], dtype=np.uint8)
    hands[:2] = [[4, 3, 2, 1, 0], [47, 51, 49, 50, 48]]
    want = batch_lookup(hands, [table], check=False)[0]
    assert np.array_equal(hand_values(hands, arrow(table)), want)
    assert want[0] == table[0] and want[1] == table[-1]
    small = rng.normal(size=25)
    for dtype in (np.uint8, np.int32, np.int64):
        at = rng.integers(0, 25, (300, 4)).astype(dtype)
        assert np.array_equal(gather(arrow(small), at), np.take(small, at))
