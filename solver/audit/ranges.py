"""A worker's range of a large Parquet log, read with pyarrow into DuckDB's batches.

The DuckDB engine cuts a large Parquet log into ranges of whole rounds, one per core
(:func:`~solver.audit.duckdb_engine.round_cuts` by row numbers,
:func:`~solver.audit.duckdb_engine.file_groups` by whole files). Each worker reads its
range here with pyarrow's Parquet reader, the one DuckDB export the profile found
costly: about half the CPU of DuckDB's scan exported to Arrow (0.31 s against 0.59 s
for 5 M rows of the benchmark log, hands as card ids). The batches are the ones the
engine's select gives (:func:`slices`): the mapped columns under their logical names,
``role`` and ``result`` with their label codes (``<key>#``: the code of a value spelled
exactly as one the SQL codes, ``EMPTY`` for a null, null otherwise, as
:func:`~solver.audit.duckdb_engine.coded` writes it), and the file's place in the
audit's list as ``scope`` when a round is identified per file.

It is used only where both readers give the same columns (:func:`arrow_types`): every
file has every mapped column, with the same type in each, and every type is one both
read alike (integers, floats, text, dictionary-encoded text, lists of integers);
otherwise DuckDB reads the range as before.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from solver.audit.columns import EMPTY, arrow_of, raw_values, text_of, validity
from solver.core.errors import BullError
from solver.core.files import arrow_source

__all__ = ["Slice", "arrow_cuts", "arrow_types", "code_labels", "parquet_types", "slices"]

Slice = tuple[int, str, int, int | None]
"""Part of a range: the file's place in the audit's list, its path, the first row and
the row after the last (None: the file's end)."""


def _same_reading(t: pa.DataType) -> bool:
    """A type DuckDB and pyarrow both read from Parquet into the same values (a list and
    a large list of integers alike: the batch reads both)."""
    if pa.types.is_dictionary(t):
        return bool(pa.types.is_string(t.value_type) and pa.types.is_integer(t.index_type))
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return bool(pa.types.is_integer(t.value_type))
    return bool(pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_string(t))


def arrow_types(files: Sequence[str], columns: Sequence[str]) -> dict[str, pa.DataType] | None:
    """The Arrow types of ``columns``, when every file has them all, alike, of types
    read alike by both readers (see the module docstring); None otherwise."""
    found: dict[str, pa.DataType] | None = None
    for path in files:
        try:
            schema = pq.read_schema(arrow_source(path, "log"))
        except (OSError, pa.ArrowException, BullError):
            return None
        types = {c: schema.field(c).type for c in columns if schema.get_field_index(c) >= 0}
        if len(types) < len(set(columns)) or not all(map(_same_reading, types.values())):
            return None
        if found is not None and types != found:
            return None
        found = types
    return found


def parquet_types(files: Sequence[str]) -> dict[str, str] | None:
    """The logs' columns as :func:`~solver.audit.duckdb_engine.column_types` gives them
    (a text column's type ``VARCHAR``; the others by their Arrow names, which only
    must not be ``VARCHAR``), read from the Parquet footers without DuckDB (its import,
    a connection and a look at the files: a tenth of a second before any row is read).
    None, for DuckDB to tell, unless every file is local with one schema whose column
    names differ in more than case (DuckDB's union by name would have to merge them).

    >>> import tempfile, pyarrow.parquet as pq
    >>> path = tempfile.mkstemp(suffix=".parquet")[1]
    >>> pq.write_table(pa.table({"Round": [1], "role": ["banker"]}), path)
    >>> parquet_types([path])
    {'Round': 'int64', 'role': 'VARCHAR'}
    """
    schema: pa.Schema | None = None
    for path in files:
        if "://" in path:
            return None
        try:
            s = pq.read_schema(arrow_source(path, "log"))
        except (OSError, pa.ArrowException, BullError):
            return None
        if schema is not None and not s.equals(schema):
            return None
        schema = s
    if schema is None or len({n.lower() for n in schema.names}) < len(schema.names):
        return None
    return {f.name: "VARCHAR" if _is_text(f.type) else str(f.type) for f in schema}


def arrow_cuts(
    path: str, round_col: str, parts: int, min_rows: int, window: int
) -> list[int] | None:
    """:func:`~solver.audit.duckdb_engine.round_cuts` of the Parquet log ``path`` read
    with pyarrow (the same cuts, without DuckDB): the first row at or after
    ``rows * k / parts`` (and within ``window`` rows of it) whose round is distinct
    from the row before's (a null is distinct from a value), each cut's round after
    the one before it. For an integer or text round column (raises ``TypeError`` for
    another: DuckDB compares those its own way)."""
    try:
        pf = pq.ParquetFile(arrow_source(path, "log"))
        typ = pf.schema_arrow.field(round_col).type
        if not (pa.types.is_integer(typ) or pa.types.is_string(typ)):
            raise TypeError(f"round column of type {typ}")
        meta = pf.metadata
        rows = meta.num_rows
        if rows < max(min_rows, 2) or parts < 2:
            return None
        ends = np.cumsum([meta.row_group(g).num_rows for g in range(meta.num_row_groups)])
        cuts = [0]
        for k in range(1, parts):
            r = max(1, rows * k // parts)
            if r <= cuts[-1]:
                continue
            rnd = _rows_of(pf, ends, round_col, r - 1, min(r + window, rows))
            prev, rest = rnd[0], rnd.slice(1)
            valid = validity(rest) if rest.null_count else np.ones(len(rest), dtype=bool)
            if prev.is_valid:  # (from the buffers: np.asarray of Arrow imports pandas)
                ne = pc.not_equal(rest, prev)
                bits = np.frombuffer(ne.buffers()[1], dtype=np.uint8)
                ne_v = np.unpackbits(bits, bitorder="little")[ne.offset : ne.offset + len(ne)]
                distinct = ~valid | ne_v.view(bool)
            else:
                distinct = valid
            hit = np.flatnonzero(distinct)
            if not len(hit) or r + int(hit[0]) <= cuts[-1]:
                continue
            a, b = rnd[int(hit[0])], rnd[int(hit[0]) + 1]
            if a.is_valid and b.is_valid and not pc.less(a, b).as_py():
                return None
            cuts.append(r + int(hit[0]))
    except (OSError, pa.ArrowException) as exc:
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise BullError(f"cannot read the logs as parquet: {msg}") from None
    return [*cuts, rows] if len(cuts) > 1 else None


def _rows_of(pf: pq.ParquetFile, ends: Any, col: str, first: int, stop: int) -> pa.Array:
    """Rows ``first..stop-1`` of column ``col`` (``ends``: where each row group ends)."""
    g0 = int(np.searchsorted(ends, first, side="right"))
    g1 = int(np.searchsorted(ends, stop - 1, side="right"))
    start = int(ends[g0 - 1]) if g0 else 0
    t = pf.read_row_groups(list(range(g0, g1 + 1)), columns=[col], use_threads=False)
    return t.column(0).slice(first - start, stop - first).combine_chunks()


_WORDS: dict[tuple[tuple[str, ...], tuple[int, ...]], tuple[pa.Array, npt.NDArray[np.int8]]] = {}
"""The last dictionary coded per set of labels and their codes, and its words' codes."""


def code_labels(arr: pa.Array, labels: Sequence[str], values: Mapping[str, int]) -> pa.Array:
    """The label codes DuckDB's ``CASE`` gives a text column (int8): the value of a row
    spelled exactly as one of ``labels``, ``EMPTY`` for a null, null for any other text
    (the batch parses those).

    >>> code_labels(pa.array(["banker", None, " Player"]), ["player", "banker"],
    ...             {"player": 0, "banker": 1}).to_pylist()
    [1, -2, None]
    >>> code_labels(pa.array(["player", "x", "player"]).dictionary_encode(), ["player"],
    ...             {"player": 0}).to_pylist()
    [0, None, 0]
    """
    other = -3  # not coded: null in the column
    text = arr.dictionary if isinstance(arr, pa.DictionaryArray) else arr
    key = (tuple(labels), tuple(int(values[k]) for k in labels))
    memo = _WORDS.get(key)
    if memo is not None and isinstance(arr, pa.DictionaryArray) and memo[0].equals(text):
        code = memo[1]  # the dictionary of the batch before (a row group's, again)
    else:
        words = text_of(list(labels))
        table = np.array([values[k] for k in labels], dtype=np.int8)
        pos = pc.index_in(text.cast(pa.string()), value_set=words)
        at = raw_values(pos).astype(np.int64)  # (pc.fill_null's scalar imports pandas)
        if pos.null_count:
            at[~validity(pos)] = -1
        code = np.where(at >= 0, table[np.maximum(at, 0)], other).astype(np.int8)
        if isinstance(arr, pa.DictionaryArray):
            _WORDS[key] = (text, code)
    table_of = code  # the code of each word
    if isinstance(arr, pa.DictionaryArray):
        # each row's code by its index, read from the buffers: np.take in "clip" mode
        # reads the int32 indices as they are (fancy indexing widens them to int64 first:
        # twice the time); a null row's slot, which Arrow leaves undefined, is clipped
        # into range, then overwritten with EMPTY
        idx = arr.indices
        if not len(code):  # no words: every row is null
            code = np.full(len(idx), EMPTY, dtype=np.int8)
        else:
            code = np.take(code, raw_values(idx), mode="clip")
            if idx.null_count:
                code = np.where(validity(idx), code, np.int8(EMPTY))
    elif arr.null_count:
        code[np.asarray(arr.is_null())] = EMPTY
    if isinstance(arr, pa.DictionaryArray) and not (table_of == other).any():
        return arrow_of(code)  # every word coded: no row left to the parser
    return arrow_of(code, code == other)


def slices(
    parts: Sequence[Slice],
    mapping: Mapping[str, str],
    coded: Mapping[str, tuple[Sequence[str], Mapping[str, int]]],
    batch_rows: int,
    scope: bool,
) -> Iterator[pa.RecordBatch]:
    """The batches of ``parts`` in order: ``mapping`` (logical field -> column) read and
    renamed, each key of ``coded`` (its labels and their codes) given its code column,
    ``scope`` (int32) the file's place when ``scope``. Errors are one-line
    :class:`BullError` s (the engine then reads the logs with DuckDB)."""
    keys = list(mapping)
    cols = list(dict.fromkeys(mapping[k] for k in keys))
    for index, path, first, end in parts:
        try:
            yield from _file_slice(index, path, first, end, keys, cols, mapping, coded,
                                   batch_rows, scope)  # fmt: skip
        except (OSError, pa.ArrowException) as exc:
            msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise BullError(f"cannot read the log {path} as parquet: {msg}") from None


def _file_slice(
    index: int,
    path: str,
    first: int,
    end: int | None,
    keys: Sequence[str],
    cols: Sequence[str],
    mapping: Mapping[str, str],
    coded: Mapping[str, tuple[Sequence[str], Mapping[str, int]]],
    batch_rows: int,
    scope: bool,
) -> Iterator[pa.RecordBatch]:
    # the coded columns as dictionaries: their few words are looked up, not every row's;
    # no pre-buffering: it read every row group of the range ahead (505 MB against 210
    # MB for 50 M rows, and a quarter more CPU)
    words = [mapping[k] for k in coded if k in mapping]
    pf = pq.ParquetFile(arrow_source(path, "log"), read_dictionary=words, pre_buffer=False)
    meta = pf.metadata
    stop = meta.num_rows if end is None else min(end, meta.num_rows)
    groups, at, start = [], 0, None  # the row groups holding rows first..stop
    for g in range(meta.num_row_groups):
        rows = meta.row_group(g).num_rows
        if at + rows > first and at < stop:
            groups.append(g)
            start = at if start is None else start
        at += rows
    if not groups or start is None:
        return
    row = start
    for batch in pf.iter_batches(batch_rows, row_groups=groups, columns=list(cols),
                                 use_threads=False):  # fmt: skip
        lo, hi = max(first - row, 0), min(stop - row, batch.num_rows)
        row += batch.num_rows
        if hi <= lo:
            if row >= stop:
                return
            continue
        part = batch.slice(lo, hi - lo) if (lo, hi) != (0, batch.num_rows) else batch
        names, arrays = [], []
        if scope:
            names.append("scope")
            arrays.append(arrow_of(np.full(part.num_rows, index, dtype=np.int32)))
        for key in keys:
            arr = part.column(mapping[key])
            if key in coded and _is_text(arr.type):
                names.append(key + "#")
                arrays.append(code_labels(arr, *coded[key]))
            names.append(key)
            arrays.append(arr)
        yield pa.RecordBatch.from_arrays(arrays, names=names)


def _is_text(t: Any) -> bool:
    if pa.types.is_dictionary(t):
        t = t.value_type
    return bool(pa.types.is_string(t) or pa.types.is_large_string(t))
