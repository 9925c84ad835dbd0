"""The default audit engine: DuckDB, embedded, streaming.

DuckDB scans the logs (Parquet files, folders and globs; CSV; JSON Lines) in parallel
with the mapped columns renamed to the logical fields, and streams Arrow record
batches in file order to :class:`~solver.audit.batch.Auditor`; memory stays bounded
(``memory_limit``) whatever the size of the logs. A log whose rounds are not in order
is read again sorted by round (DuckDB sorts out of core).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from solver.audit.batch import Auditor, Partial
from solver.audit.columns import EMPTY, RESULT_LABELS, ROLES, NotInRoundOrder
from solver.audit.logs import map_log_columns
from solver.audit.spec import AuditSpec
from solver.core.errors import BullError

__all__ = ["BATCH_ROWS", "CODED", "coded", "column_types", "columns_of", "run_duckdb", "source_sql"]

BATCH_ROWS = 1 << 18
WORKERS = min(2, os.cpu_count() or 1)
"""Threads doing the batch work (numpy and Arrow release the GIL)."""
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


def source_sql(files: Sequence[str], fmt: str) -> str:
    """The DuckDB table function reading ``files``."""
    lst = "[" + ", ".join("'" + f.replace("'", "''") + "'" for f in files) + "]"
    if fmt == "parquet":
        return f"read_parquet({lst}, union_by_name = true)"
    if fmt == "csv":
        return f"read_csv({lst}, header = true, union_by_name = true)"
    return f"read_json({lst}, format = 'newline_delimited', union_by_name = true)"


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
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise BullError(f"cannot read the logs as {fmt}: {first}") from None
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
) -> Partial:
    """Audit the logs with DuckDB (see the module docstring)."""
    types = column_types(files, fmt)
    mapping = dict(columns) or map_log_columns(list(types), {}, by)
    inner = [f"{_quote(col)} AS {_quote(key)}" for key, col in mapping.items()]
    outer = []
    for key, col in mapping.items():
        if key in CODED and types.get(col) == "VARCHAR":
            item, items = coded(key, CODED[key], CODE_VALUES[key])
            inner.append(item)
            outer += items
        else:
            outer.append(_quote(key))
    base = (
        f"SELECT {', '.join(outer)} FROM (SELECT {', '.join(inner)} FROM {source_sql(files, fmt)})"
    )
    for sql in (base, f"{base} ORDER BY {_quote('round')}"):
        con = _connect(threads, memory_limit)
        try:
            try:
                reader = con.sql(sql).to_arrow_reader(batch_rows)
            except Exception as exc:
                msg = str(exc).strip().splitlines()[0] if str(exc).strip() else "unreadable"
                raise BullError(f"cannot read the logs as {fmt}: {msg}") from None
            auditor = Auditor(spec, by, workers=workers)
            try:
                return auditor.run(reader)
            except NotInRoundOrder:
                continue
        finally:
            con.close()
    raise BullError("the logs' rounds could not be put in order")  # pragma: no cover
