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
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from solver.audit.columns import EMPTY, arrow_of, raw_values, text_of, validity
from solver.core.errors import BullError
from solver.core.files import arrow_source

__all__ = ["Slice", "arrow_types", "code_labels", "slices"]

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
    words = text_of(list(labels))
    table = np.array([values[k] for k in labels], dtype=np.int8)
    text = arr.dictionary if isinstance(arr, pa.DictionaryArray) else arr
    pos = pc.index_in(text.cast(pa.string()), value_set=words)
    at = raw_values(pos).astype(np.int64)  # (pc.fill_null's scalar imports pandas)
    if pos.null_count:
        at[~validity(pos)] = -1
    code = np.where(at >= 0, table[np.maximum(at, 0)], other).astype(np.int8)
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
    missing = code == other
    return arrow_of(code.astype(np.int8), missing)


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
    return bool(
        pa.types.is_string(t) or (pa.types.is_dictionary(t) and pa.types.is_string(t.value_type))
    )
