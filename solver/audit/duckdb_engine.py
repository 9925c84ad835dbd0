"""The default audit engine: DuckDB, embedded, streaming.

DuckDB scans the logs (Parquet files, folders and globs; CSV; JSON Lines) in parallel
with the mapped columns renamed to the logical fields, and streams Arrow record
batches in file order to :class:`~solver.audit.batch.Auditor`; memory stays bounded
(``memory_limit``) whatever the size of the logs. A log whose rounds are not in order
is read again sorted by round (DuckDB sorts out of core).
"""

from __future__ import annotations

import contextlib
import itertools
import multiprocessing
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import pyarrow as pa

from solver.audit.batch import Auditor, Partial
from solver.audit.columns import EMPTY, RESULT_LABELS, ROLES, NotInRoundOrder
from solver.audit.logs import bad_json_line, map_log_columns
from solver.audit.ranges import arrow_cuts, arrow_types, slices
from solver.audit.spec import AuditSpec
from solver.core.errors import BullError, first_line

__all__ = [
    "BATCH_ROWS",
    "CODED",
    "PARALLEL_ROWS",
    "RANGE_BATCH_ROWS",
    "coded",
    "column_types",
    "columns_of",
    "file_groups",
    "round_cuts",
    "run_duckdb",
    "scan_error",
    "source_sql",
]

BATCH_ROWS = 1 << 18
RANGE_BATCH_ROWS = 1 << 20
"""The rows of a worker's pyarrow batches (a large row group whole): the auditor cuts a
batch in blocks (:data:`~solver.audit.batch.BLOCK_ROWS`) where rounds start, and holds
its last block back until the next batch shows whether its last round goes on there
(then that round is a block of its own, with a block's fixed cost): fewer, larger
batches, fewer such rounds."""
PARALLEL_ROWS = 4_000_000
"""A Parquet log of at least this many rows is audited by worker processes, each reading
its own range of whole rounds (no lock shared: each has a core to itself)."""
_WINDOW = 1_000_000
"""How far past a cut point a round may run on before the cut is dropped."""
WORKERS = min(2, os.cpu_count() or 1)
"""Threads doing the batch work (numpy and Arrow release the GIL), or worker processes
for a large Parquet log (:data:`PARALLEL_ROWS`)."""
CODED: dict[str, tuple[str, ...]] = {
    "role": ("player", "banker", "dealer"),
    "result": ("win", "loss", "push"),
}
"""The text columns read as label codes in SQL (:func:`coded`), and the labels coded
there (the common spellings; any other is parsed by the batch)."""
CODE_VALUES: dict[str, Mapping[str, int]] = {"role": ROLES, "result": RESULT_LABELS}


def _duckdb() -> Any:
    try:
        import duckdb
    except ImportError:  # pragma: no cover - a dependency
        raise BullError("the duckdb engine needs the duckdb package: pip install duckdb") from None
    return duckdb


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def source_sql(files: Sequence[str], fmt: str, filename: bool = False) -> str:
    """The DuckDB table function reading ``files`` (``filename``: with the column
    ``filename``, each row's file)."""
    lst = "[" + ", ".join("'" + f.replace("'", "''") + "'" for f in files) + "]"
    fn = ", filename = true" if filename else ""
    if fmt == "parquet":
        return f"read_parquet({lst}, union_by_name = true{fn})"
    if fmt == "csv":
        return f"read_csv({lst}, header = true, union_by_name = true{fn})"
    return f"read_json({lst}, format = 'newline_delimited', union_by_name = true{fn})"


def scope_sql(per_file: bool, scope: Sequence[str], files: Sequence[str] = ()) -> str | None:
    """The select item of the ``scope`` a round id is unique within: the file (its
    place in ``files``: the scan reads them in that order), or the ``--round-key``
    columns before the last (None: the id alone).

    >>> print(scope_sql(False, ["table"]))
    concat_ws('|', coalesce(CAST("table" AS VARCHAR), '')) AS "scope"
    """
    if per_file:
        lst = "[" + ", ".join(_sql_text(f) for f in files) + "]"
        return f'(list_position({lst}, "filename") - 1)::INTEGER AS "scope"'
    if not scope:
        return None
    parts = ", ".join(f"coalesce(CAST({_quote(c)} AS VARCHAR), '')" for c in scope)
    return f"concat_ws('|', {parts}) AS \"scope\""


def _connect(threads: int | None, memory_limit: str) -> Any:
    duckdb = _duckdb()
    con = duckdb.connect()
    con.execute(f"SET memory_limit = '{memory_limit}'")
    con.execute("SET enable_progress_bar = false")
    if threads:
        con.execute(f"SET threads = {int(threads)}")
    return con


def columns_of(files: Sequence[str], fmt: str) -> list[str]:
    """The column names of the logs (one error line when they cannot be read)."""
    return list(column_types(files, fmt))


def column_types(files: Sequence[str], fmt: str) -> dict[str, str]:
    """The logs' columns and their DuckDB types (one error line when unreadable)."""
    con = _connect(None, "1GB")
    try:
        rows = con.execute(f"DESCRIBE SELECT * FROM {source_sql(files, fmt)}").fetchall()
    except Exception as exc:  # duckdb raises its own error types
        raise scan_error(exc, files, fmt) from None
    finally:
        con.close()
    return {str(r[0]): str(r[1]) for r in rows}


def _sql_text(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def coded(key: str, labels: Sequence[str], values: Mapping[str, int]) -> tuple[str, list[str]]:
    """How the text column ``key`` is read as label codes in SQL: the inner select item,
    ``"<key>#"``, the code of a row written exactly as one of ``labels``, ``EMPTY``
    for a null, NULL otherwise, and the outer ones: that code and ``"<key>"``, the text of the other
    rows only. The batch parses just those, so every row means what
    :func:`~solver.kit.parse.parse_label` makes of it, and the common rows cross to
    Python as one byte each.

    >>> inner, outer = coded("role", ["player"], {"player": 0})
    >>> print(inner.split(" ELSE ")[0])
    CASE "role" WHEN 'player' THEN 0
    >>> print(inner.split(" ELSE ")[1])
    CASE WHEN "role" IS NULL THEN -2 END END::TINYINT AS "role#"
    >>> outer[1]
    'CASE WHEN "role#" IS NULL THEN "role" END AS "role"'
    """
    col, code = _quote(key), _quote(key + "#")
    whens = " ".join(f"WHEN {_sql_text(k)} THEN {int(values[k])}" for k in labels)
    empty = f"ELSE CASE WHEN {col} IS NULL THEN {EMPTY} END"
    return f"CASE {col} {whens} {empty} END::TINYINT AS {code}", [
        code,
        f"CASE WHEN {code} IS NULL THEN {col} END AS {col}",
    ]


def run_duckdb(
    spec: AuditSpec,
    files: Sequence[str],
    fmt: str,
    columns: Mapping[str, str],
    by: Sequence[str],
    *,
    threads: int | None = None,
    memory_limit: str = "1GB",
    batch_rows: int = BATCH_ROWS,
    workers: int = WORKERS,
    parallel_rows: int = PARALLEL_ROWS,
    per_file: bool = False,
    scope: Sequence[str] = (),
    types: Mapping[str, str] | None = None,
    meanwhile: Callable[[], object] | None = None,
) -> Partial:
    """Audit the logs with DuckDB (see the module docstring). ``per_file``: a round is
    identified by its file and its id; ``scope``: by these columns and its id;
    ``types``: the logs' :func:`column_types` when the caller has them (each look
    is a connection and a scan of the files' heads); ``meanwhile``: work this process
    does while worker processes read the logs, if they do (its errors are ignored:
    the caller does it again)."""
    types = column_types(files, fmt) if types is None else types
    mapping = dict(columns) or map_log_columns(list(types), {}, by)
    inner = [f"{_quote(col)} AS {_quote(key)}" for key, col in mapping.items()]
    outer = []
    scoped = scope_sql(per_file, scope, files)
    if scoped is not None:
        inner.append(scoped)
        outer.append('"scope"')
    for key, col in mapping.items():
        if key in CODED and types.get(col) == "VARCHAR":
            item, items = coded(key, CODED[key], CODE_VALUES[key])
            inner.append(item)
            outer += items
        else:
            outer.append(_quote(key))

    def select(source: str, where: str = "") -> str:
        return f"SELECT {', '.join(outer)} FROM (SELECT {', '.join(inner)} FROM {source}{where})"

    base = select(source_sql(files, fmt, per_file))

    def ranges() -> list[Job]:
        """The ranges of whole rounds, one per worker (see :func:`round_cuts`,
        :func:`file_groups`): read with pyarrow where it gives DuckDB's columns
        (:mod:`solver.audit.ranges`), else the selects of the ranges."""
        if scope:
            return []  # the cuts would have to follow the scope: one reader
        same = arrow_types(files, list(mapping.values())) is not None
        if len(files) == 1:
            try:  # read with pyarrow where it can (no DuckDB in this process: its import)
                if not same:
                    raise TypeError("not read with pyarrow")
                cuts = arrow_cuts(files[0], mapping["round"], workers, parallel_rows, _WINDOW)
            except TypeError:
                cuts = round_cuts(files[0], mapping["round"], workers, parallel_rows, memory_limit)
            src = f"read_parquet([{_sql_text(files[0])}], file_row_number = true)"
            rows = " WHERE file_row_number >= {} AND file_row_number < {}"
            pairs = itertools.pairwise(cuts or [])
            if same:
                return [("arrow", [(0, files[0], a, b)]) for a, b in pairs]
            return [("sql", select(src, rows.format(a, b))) for a, b in pairs]
        groups = file_groups(
            files, mapping["round"], workers, parallel_rows, memory_limit, per_file=per_file
        )
        place = {f: i for i, f in enumerate(files)}
        return [
            ("arrow", [(place[f], f, 0, None) for f in g])
            if same
            else ("sql", select(source_sql(g, fmt, per_file)))
            for g in groups or []
        ]

    forks = "fork" in multiprocessing.get_all_start_methods()  # not on Windows
    if forks and workers > 1 and fmt == "parquet" and "round" in mapping:
        read = (mapping, {k: (CODED[k], CODE_VALUES[k]) for k in CODED}, per_file)
        try:
            scope_files = files if per_file else None
            return _run_ranges(
                spec, ranges(), by, batch_rows, memory_limit, scope_files, read, meanwhile
            )
        except _NoRanges:
            pass
        except BullError:
            pass  # out of order, or a range unreadable alone: one reader decides below
    # out of order: sorted by round, each round's rows kept in the order written (the
    # position is numbered on one thread, where the scan follows the files)
    src = source_sql(files, fmt, per_file)
    numbered = f'(SELECT *, row_number() OVER () AS "#row" FROM {src})'
    order = ('"scope", ' if scoped is not None else "") + _quote("round")
    in_order = (
        f'SELECT {", ".join(outer)} FROM (SELECT {", ".join(inner)}, "#row" FROM {numbered})'
        f' ORDER BY {order}, "#row"'
    )
    for sql, n_threads in ((base, threads), (in_order, 1)):
        con = _connect(n_threads, memory_limit)
        try:
            reader = _reader(con, sql, fmt, batch_rows, files)
            auditor = Auditor(spec, by, workers=workers, files=files if per_file else None)
            try:
                return auditor.run(reader)
            except NotInRoundOrder:
                continue
        finally:
            con.close()
    raise BullError("the logs' rounds could not be put in order")  # pragma: no cover


def _reader(
    con: Any, sql: str, fmt: str, batch_rows: int, files: Sequence[str]
) -> Iterator[pa.RecordBatch]:
    """The batches of ``sql``; DuckDB's errors, at the start or in the scan (a bad row
    past the first megabyte), as one line naming the log (:func:`scan_error`)."""
    try:
        reader = con.sql(sql).to_arrow_reader(batch_rows)
    except Exception as exc:
        raise scan_error(exc, files, fmt) from None
    while True:
        try:
            batch = reader.read_next_batch()
        except StopIteration:
            return
        except Exception as exc:  # DuckDB's error, through Arrow's stream as an OSError
            raise scan_error(exc, files, fmt) from None
        yield batch


_CSV_LINE = re.compile(r"CSV Error on Line: (\d+)")
_CSV_FILE = re.compile(r"^\s*file = (.+?)\s*$", re.MULTILINE)
_JSON = re.compile(r'Malformed JSON in file "(.+?)", at byte \d+ in line (\d+): (.+?)[.\s]*$')


def scan_error(exc: BaseException, files: Sequence[str], fmt: str) -> BullError:
    """DuckDB's error reading the logs as one line naming the log and the line (the
    logs' bytes were checked before, by :func:`~solver.audit.logs.check_logs`).

    A CSV row DuckDB cannot read past the rows it sniffed (a column too many, a quote
    not closed, a value not of the column's type) is named by DuckDB's line and reason,
    which follow the first line of its message; a JSON line by the line that does not
    parse (DuckDB's line number is the next line's, so it is found by parsing)."""
    text = str(exc)
    first = first_line(exc, "unreadable")
    if fmt not in ("csv", "jsonl"):
        return BullError(f"cannot read the logs as {fmt}: {first}")
    local = [f for f in files if "://" not in f]
    hit = _CSV_FILE.search(text) if fmt == "csv" else _JSON.search(first)
    named = hit.group(1) if hit and hit.group(1) in local else None
    if named and fmt == "csv" and (at := _CSV_LINE.search(first)):
        reason = _csv_reason(text.splitlines())
        return BullError(f"log {named} line {at.group(1)}: {reason or first}")
    if named and hit and fmt == "jsonl":
        line = bad_json_line(named, int(hit.group(2)))
        return BullError(f"log {named} line {line}: not a JSON object ({hit.group(3)})")
    return BullError(f"cannot read the logs as {fmt}: {first}")


def _csv_reason(lines: Sequence[str]) -> str:
    """What DuckDB says is wrong with a CSV row: the line after the row it quotes (on
    the line of ``Original Line:``, or alone on the next one); "" when not found.

    >>> _csv_reason(["CSV Error on Line: 9", "Original Line: ", "1,2,x", "Bad row", ""])
    'Bad row'
    """
    for i, line in enumerate(lines):
        if line.startswith("Original Line:"):
            rest = [ln.strip() for ln in lines[i + 1 + (not line[14:].strip()) :]]
            return next((ln for ln in rest if ln), "")
    return ""


_SPEC: dict[str, Any] = {}
"""The audit description the forked workers inherit (not pickled: it holds functions)."""


def round_cuts(
    path: str, round_col: str, parts: int, min_rows: int, memory_limit: str
) -> list[int] | None:
    """Row numbers cutting the Parquet file ``path`` into about ``parts`` ranges of whole
    rounds, ``[0, ..., rows]``; None when it is too small to be worth it, or when a cut
    would show the rounds out of order (the caller reads it all, in order).

    A cut is the first row at or after ``rows * k / parts`` whose round differs from the
    row before it; the round before a cut must come before the round at it.
    """
    import pyarrow.compute as pc

    con = _connect(1, memory_limit)
    rc = _quote(round_col)
    lit = _sql_text(path)
    src = f"read_parquet([{lit}], file_row_number = true)"
    try:
        rows = int(con.execute(f"SELECT count(*) FROM read_parquet([{lit}])").fetchall()[0][0])
        if rows < max(min_rows, 2) or parts < 2:
            return None
        cuts = [0]
        for k in range(1, parts):
            r = max(1, rows * k // parts)
            if r <= cuts[-1]:
                continue
            prev = f"(SELECT {rc} FROM {src} WHERE file_row_number = {r - 1})"
            at = con.execute(
                f"SELECT min(file_row_number) FROM {src} WHERE file_row_number >= {r} "
                f"AND file_row_number < {r + _WINDOW} AND {rc} IS DISTINCT FROM {prev}"
            ).fetchall()[0][0]
            if at is None or int(at) <= cuts[-1]:
                continue
            pair = (
                con.sql(
                    f"SELECT {rc} FROM {src} WHERE file_row_number IN ({int(at) - 1}, {int(at)}) "
                    "ORDER BY file_row_number"
                )
                .to_arrow_table()
                .column(0)
            )
            a, b = pair[0], pair[1]
            if a.is_valid and b.is_valid and not pc.less(a, b).as_py():
                return None
            cuts.append(int(at))
    except Exception as exc:  # duckdb raises its own error types
        first = first_line(exc)
        raise BullError(f"cannot read the logs as parquet: {first}") from None
    finally:
        con.close()
    return [*cuts, rows] if len(cuts) > 1 else None


def _edge_round(con: Any, path: str, rc: str, row: int) -> Any:
    src = f"read_parquet([{_sql_text(path)}], file_row_number = true)"
    t = con.sql(f"SELECT {rc} FROM {src} WHERE file_row_number = {row}").to_arrow_table()
    return t.column(0)[0]


def file_groups(
    files: Sequence[str],
    round_col: str,
    parts: int,
    min_rows: int,
    memory_limit: str,
    per_file: bool = False,
) -> list[list[str]] | None:
    """The Parquet ``files`` (in reading order) in about ``parts`` runs of whole files
    and whole rounds: a run ends where the last round of a file comes before the first
    round of the next (a round written across two files is not cut; ``per_file``: a
    round is within its file, any file ends a run). None when the logs
    are too small, a file is empty, or the rounds are out of order at a cut (the caller
    reads them all, in order)."""
    import pyarrow.compute as pc

    con = _connect(1, memory_limit)
    rc = _quote(round_col)
    lst = "[" + ", ".join(_sql_text(f) for f in files) + "]"
    try:
        meta = con.execute(f"SELECT file_name, num_rows FROM parquet_file_metadata({lst})")
        counts = {str(name): int(n) for name, n in meta.fetchall()}
        rows = [counts.get(f, 0) for f in files]
        total = sum(rows)
        if parts < 2 or total < max(min_rows, 2) or min(rows) == 0:
            return None
        groups: list[list[str]] = [[]]
        done, k = 0, 1
        for i, f in enumerate(files):
            if i and done >= total * k // parts and len(groups) < parts and per_file:
                groups.append([])
                k += 1
            elif i and done >= total * k // parts and len(groups) < parts:
                last = _edge_round(con, files[i - 1], rc, rows[i - 1] - 1)
                first = _edge_round(con, f, rc, 0)
                if last.is_valid and first.is_valid:
                    if pc.greater(last, first).as_py():
                        return None
                    if pc.less(last, first).as_py():
                        groups.append([])
                        k += 1
            groups[-1].append(f)
            done += rows[i]
    except Exception as exc:  # duckdb raises its own error types
        msg = first_line(exc)
        raise BullError(f"cannot read the logs as parquet: {msg}") from None
    finally:
        con.close()
    return groups if len(groups) > 1 else None


Job = tuple[str, Any]
"""A worker's range: ``("sql", select)``, or ``("arrow", [Slice, ...])`` (see
:mod:`solver.audit.ranges`)."""


def _audit_range(job: Job, by: Sequence[str], batch_rows: int, memory_limit: str) -> Partial:
    """A worker: audit one range of whole rounds on one thread."""
    auditor = Auditor(_SPEC["spec"], by, workers=1, files=_SPEC.get("files"))
    kind, what = job
    if kind == "arrow":
        mapping, coded_keys, per_file = _SPEC["read"]
        rows = max(batch_rows, RANGE_BATCH_ROWS)
        return auditor.run(slices(what, mapping, coded_keys, rows, per_file))
    con = _connect(1, memory_limit)
    try:
        return auditor.run(_reader(con, what, "parquet", batch_rows, ()))
    finally:
        con.close()


class _NoRanges(Exception):
    """The logs are not worth cutting (or cannot be cut) into ranges."""


def _run_ranges(
    spec: AuditSpec,
    jobs: Sequence[Job],
    by: Sequence[str],
    batch_rows: int,
    memory_limit: str,
    files: Sequence[str] | None = None,
    read: Any = None,
    meanwhile: Callable[[], object] | None = None,
) -> Partial:
    """The partials of the ranges, audited in forked worker processes, added up in row
    order (so the examples listed are those a single reader would list). ``read``: the
    column map, the coded keys and whether a round is per file, for a pyarrow range;
    ``meanwhile``: done here once the workers have their ranges."""
    if len(jobs) < 2:
        raise _NoRanges
    from concurrent.futures import ProcessPoolExecutor

    _SPEC["spec"] = spec
    _SPEC["files"] = files
    _SPEC["read"] = read
    # (pyarrow imports pandas, when installed, on its first pa.array, pa.scalar or
    # np.asarray of an array: ~0.3 s of CPU. The workers' reading and batch work use
    # none of them (Arrow buffers both ways, see columns.arrow_of), so nothing imports
    # pandas before the fork to spare the workers)
    ctx = multiprocessing.get_context("fork")
    try:
        with ProcessPoolExecutor(len(jobs), mp_context=ctx) as pool:
            futures = [
                pool.submit(_audit_range, j, list(by), batch_rows, memory_limit) for j in jobs
            ]
            if meanwhile is not None:
                with contextlib.suppress(Exception):  # the caller does it again, and says
                    meanwhile()
            total = Partial()
            for f in futures:
                total.extend(f.result())  # a worker's error surfaces here
            return total
    finally:
        _SPEC.clear()
