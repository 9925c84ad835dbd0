"""Parquet tables: provenance metadata, content digests, where tables live, lazy loading.

Layout of a tables directory (see ``tables/README.md``)::

    tables/
      current -> sets/<set-id>          symlink, swapped atomically by a build
      sets/<set-id>/<name>.parquet      one immutable set of tables + MANIFEST.json
      <name>.parquet -> current/<name>.parquet
      MANIFEST.json  -> current/MANIFEST.json

A build writes a complete new set beside the old one and then repoints ``current``
with one ``rename`` (:mod:`solver.store.sets`): a reader sees every old table or every
new one, never a mix, and a build killed at any moment leaves the previous set intact.
Readers resolve ``current`` once per process and lease the set they read.

A plain directory of ``<name>.parquet`` files (no ``current``) is also readable.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.parquet as pq

from solver import __version__
from solver.core.errors import TableError
from solver.core.files import arrow_source, read_text
from solver.core.inputs import check_tables
from solver.store.leases import release_all_but, take_lease

__all__ = [
    "ROW_GROUP_SIZE",
    "SCHEMA_VERSION",
    "LoadedTable",
    "arrow_array",
    "column_checksums",
    "content_digest",
    "default_build_dir",
    "find_tables_dir",
    "forget_set",
    "make_table",
    "manifest_of",
    "meta_digest",
    "open_table",
    "pid_alive",
    "read_manifest",
    "table_meta",
    "to_numpy",
    "user_cache_dir",
]

SCHEMA_VERSION = 2
"""Bumped whenever a column's meaning or encoding changes, or what the metadata must
hold (2: per-row-group checksums and the metadata digest)."""
ROW_GROUP_SIZE = 65536
"""Fixed row-group size, so a single row is read by opening one row group."""
ENV_VAR = "BULL_TABLES"
_META_PREFIX = "bull."
_REPO_TABLES = Path(__file__).resolve().parent.parent.parent / "tables"


# ---------------------------------------------------------------- digests and metadata


def content_digest(table: pa.Table) -> str:
    """SHA-256 of the logical content: column names, types and values, in order.

    Independent of compression, row grouping and file bytes.
    """
    h = hashlib.sha256()
    h.update(f"rows={table.num_rows}\n".encode())
    for name, column in zip(table.column_names, table.columns, strict=True):
        h.update(f"{name}:{column.type}\n".encode())
        if column.null_count:
            raise TableError(f"column {name!r} has nulls; tables use sentinels instead")
        for chunk in column.chunks:
            h.update(_chunk_bytes(name, chunk))
    return h.hexdigest()


def _is_text(t: pa.DataType) -> bool:
    return bool(pa.types.is_string(t) or pa.types.is_large_string(t))


def _canonical(arr: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """A numeric column's values as hashed: booleans as bytes, little-endian, contiguous
    (the array itself, not a copy, when it already is)."""
    if arr.dtype == np.bool_:
        arr = arr.view(np.uint8)  # numpy's booleans are the bytes 0 and 1
    return np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<"))


def _chunk_bytes(name: str, chunk: pa.Array) -> bytes | memoryview:
    """The canonical bytes of one chunk of a column: numbers as :func:`_canonical`,
    strings as length-prefixed UTF-8, value by value."""
    if _is_text(chunk.type):
        data = [v.encode("utf-8") for v in chunk.to_pylist()]
        return b"".join(len(d).to_bytes(4, "little") + d for d in data)
    if not (
        pa.types.is_integer(chunk.type)
        or pa.types.is_floating(chunk.type)
        or pa.types.is_boolean(chunk.type)
    ):
        raise TableError(f"column {name!r} has type {chunk.type}, which tables do not use")
    return _canonical(to_numpy(chunk)).data.cast("B")


def to_numpy(column: pa.Array | pa.ChunkedArray) -> npt.NDArray[Any]:
    """A column as numpy; numbers and booleans straight from their Arrow buffers.

    pyarrow's own ``to_numpy`` goes through its pandas shim, which imports pandas when it
    is installed: a third of a second on every command that reads a table.

    >>> to_numpy(pa.chunked_array([pa.array([1, 2], pa.uint8()), pa.array([3], pa.uint8())]))
    array([1, 2, 3], dtype=uint8)
    >>> to_numpy(pa.array([True, False, True]).slice(1)).tolist()
    [False, True]
    """
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    parts = []
    for ch in chunks:
        t, n = ch.type, len(ch)
        buf = ch.buffers()[1] if len(ch.buffers()) > 1 else None
        if buf is None or ch.null_count:
            parts.append(np.asarray(ch.to_pylist()))
        elif pa.types.is_boolean(t):
            bits = np.unpackbits(np.frombuffer(buf, np.uint8), bitorder="little")
            parts.append(bits[ch.offset : ch.offset + n].astype(bool))
        elif pa.types.is_integer(t) or pa.types.is_floating(t):
            width = t.bit_width // 8
            kind = "f" if pa.types.is_floating(t) else "i" if pa.types.is_signed_integer(t) else "u"
            dt = np.dtype(f"<{kind}{width}")
            parts.append(np.frombuffer(buf, dt, count=n, offset=ch.offset * width))
        else:
            parts.append(np.asarray(ch.to_pylist()))
    if len(parts) == 1:
        return parts[0]
    if not parts:
        return np.zeros(0, dtype=np.int64)
    return np.concatenate(parts)


def arrow_array(arr: npt.NDArray[Any]) -> pa.Array:
    """A numpy column as Arrow: numbers and booleans straight into Arrow buffers (what
    ``pa.array`` makes of them), anything else by ``pa.array``. ``pa.array`` on a numpy
    array imports pandas when it is installed: a second of CPU in ``bull build``.

    >>> arrow_array(np.array([1, 2, 3], dtype=np.uint8)).equals(pa.array([1, 2, 3], pa.uint8()))
    True
    >>> arrow_array(np.array([True, False, True])).to_pylist()
    [True, False, True]
    """
    kind = arr.dtype.kind
    if arr.ndim != 1 or kind not in "biuf" or arr.dtype.itemsize > 8:
        return pa.array(arr)
    if kind == "b":
        bits = np.packbits(arr, bitorder="little")
        return pa.Array.from_buffers(pa.bool_(), len(arr), [None, pa.py_buffer(bits)])
    data = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("="))
    typ = pa.from_numpy_dtype(data.dtype)
    return pa.Array.from_buffers(typ, len(arr), [None, pa.py_buffer(data)])


def _array_checksums(arr: npt.NDArray[Any]) -> list[int]:
    """CRC-32 of each row group's slice of a numeric column (canonical little-endian)."""
    data = _canonical(arr)
    return [
        zlib.crc32(data[s : s + ROW_GROUP_SIZE].data.cast("B"))
        for s in range(0, max(len(data), 1), ROW_GROUP_SIZE)
    ]


def _group_checksums(name: str, column: pa.Array | pa.ChunkedArray) -> list[int]:
    """CRC-32 of each row group's canonical values of one column (or of the part of a
    column that one row group holds)."""
    if not _is_text(column.type):
        return _array_checksums(to_numpy(column))
    values = column.to_pylist()
    return [
        zlib.crc32(_chunk_bytes(name, pa.array(values[s : s + ROW_GROUP_SIZE], column.type)))
        for s in range(0, max(len(values), 1), ROW_GROUP_SIZE)
    ]


def column_checksums(table: pa.Table) -> dict[str, list[int]]:
    """Per column, the CRC-32 of each row group's values: a reader checks the groups it
    reads, so a shuffled or bit-flipped table is refused, not believed."""
    return {
        name: _group_checksums(name, column)
        for name, column in zip(table.column_names, table.columns, strict=True)
    }


def meta_digest(meta: Mapping[str, Any]) -> str:
    """SHA-256 of everything in a table's metadata but this digest itself: the rule sets,
    the extra facts (e.g. the strategy table's overall EVs), the checksums, the content
    digest. With the content digest it covers everything a reader uses."""
    rest = {k: v for k, v in meta.items() if k != "meta_digest"}
    return hashlib.sha256(json.dumps(rest, sort_keys=True).encode()).hexdigest()


def make_table(
    name: str,
    columns: Mapping[str, npt.ArrayLike],
    rules: Mapping[str, Any],
    extra: Mapping[str, Any] | None = None,
) -> pa.Table:
    """A table of ``columns`` carrying provenance metadata.

    ``rules`` maps each rule-set name used to its full content (a JSON-able dict);
    ``extra`` holds any other JSON-able facts worth keeping (e.g. column notes).
    """
    table = pa.table({k: arrow_array(np.asarray(v)) for k, v in columns.items()})
    meta = {
        "table": name,
        "schema_version": SCHEMA_VERSION,
        "solver_version": __version__,
        "rows": table.num_rows,
        "rules": dict(rules),
        "digest": content_digest(table),
        "checksums": column_checksums(table),
    }
    if extra:
        meta["extra"] = dict(extra)
    meta["meta_digest"] = meta_digest(json.loads(json.dumps(meta, sort_keys=True)))
    encoded = {
        (_META_PREFIX + k).encode(): json.dumps(v, sort_keys=True).encode() for k, v in meta.items()
    }
    return table.replace_schema_metadata(encoded)


def table_meta(schema: pa.Schema, where: str) -> dict[str, Any]:
    """Decode the ``bull.*`` metadata of a schema."""
    raw = schema.metadata or {}
    out: dict[str, Any] = {}
    for k, v in raw.items():
        key = k.decode("utf-8", "replace")
        if key.startswith(_META_PREFIX):
            try:
                out[key[len(_META_PREFIX) :]] = json.loads(v)
            except ValueError:
                raise TableError(f"table {where}: corrupt metadata field {key!r}") from None
    for needed in ("table", "schema_version", "rows", "digest", "rules"):
        if needed not in out:
            raise TableError(f"table {where}: metadata lacks {needed!r}; rebuild with `bull build`")
    if out["schema_version"] != SCHEMA_VERSION:
        return out  # an older or newer layout: the caller names the version
    for needed in ("checksums", "meta_digest"):
        if needed not in out:
            raise TableError(f"table {where}: metadata lacks {needed!r}; rebuild with `bull build`")
    if meta_digest(out) != out["meta_digest"]:
        raise TableError(
            f"table {where}: its metadata does not match its own digest (tampered or "
            "corrupt); rebuild with `bull build`"
        )
    sums = out["checksums"]
    groups = max(-(-int(out["rows"]) // ROW_GROUP_SIZE), 1)
    if not isinstance(sums, dict) or any(
        not isinstance(v, list) or len(v) != groups for v in sums.values()
    ):
        raise TableError(
            f"table {where}: corrupt checksums in its metadata; rebuild with `bull build`"
        )
    return out


# ---------------------------------------------------------------- where tables live


def _has_tables(d: Path) -> bool:
    return (d / "current").exists() or any(d.glob("*.parquet"))


def user_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
    return Path(base) / "bull-solver" / "tables"


def default_build_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """Where ``bull build`` writes: ``--tables``, ``$BULL_TABLES``, the repository's
    ``tables/`` (a source checkout), else the user cache directory."""
    explicit = check_tables(explicit)
    if explicit:
        return Path(explicit)
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR])
    if (_REPO_TABLES.parent / "pyproject.toml").exists():
        return _REPO_TABLES
    return user_cache_dir()


def find_tables_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """Where the runtime reads tables: ``--tables``, ``$BULL_TABLES``, the repository's
    ``tables/``, then the user cache directory. Raises :class:`TableError` with the
    places tried and how to build."""
    explicit = check_tables(explicit)
    if explicit:
        d = Path(explicit)
        if not d.is_dir():
            raise TableError(
                f"tables directory {d} does not exist; build it with `bull build --tables {d}`"
            )
        return d
    tried = []
    env = os.environ.get(ENV_VAR)
    candidates = ([Path(env)] if env else []) + [_REPO_TABLES, user_cache_dir()]
    for d in candidates:
        tried.append(str(d))
        if d.is_dir() and _has_tables(d):
            return d
        if env and d == Path(env):
            raise TableError(f"${ENV_VAR}={env} holds no tables; build them with `bull build`")
    if os.environ.get("BULL_NO_AUTOBUILD"):
        raise TableError(
            f"no tables found (looked in {', '.join(tried)}); build them with `bull build`"
        )
    return _autobuild(tried)


_AUTOBUILDER: list[Callable[[Path], object]] = []


def set_autobuilder(builder: Callable[[Path], object]) -> None:
    """Say how to build every table into a directory when none are found anywhere.

    The game registry registers itself here (the store knows no game)."""
    _AUTOBUILDER[:] = [builder]


def _autobuild(tried: list[str]) -> Path:
    """No tables anywhere (e.g. a fresh non-editable install): build them once where
    ``bull build`` would, saying so on stderr."""
    target = default_build_dir()
    if not _AUTOBUILDER:
        raise TableError(
            f"no tables found (looked in {', '.join(tried)}); build them with `bull build`"
        )
    sys.stderr.write(
        f"bull: no tables found (looked in {', '.join(tried)}); building them "
        f"once into {target} ...\n"
    )
    try:
        _AUTOBUILDER[0](target)
    except OSError as exc:
        raise TableError(
            f"no tables found and cannot build them in {target} "
            f"({exc.strerror}); run `bull build --tables DIR`"
        ) from None
    sys.stderr.write(f"bull: tables built in {target}\n")
    return target


_RESOLVED: dict[str, Path] = {}
"""Tables directory → the set this process reads (``current`` is resolved once)."""


def resolve_set(directory: Path) -> Path:
    """The directory holding the current set's files.

    ``current`` is resolved once per process, so every table a process reads comes from
    one set even when a build swaps ``current`` meanwhile; the process holds a lease on
    the set (:mod:`solver.store.leases`) so that no build deletes it while the process
    lives.
    """
    key = os.fspath(directory)
    hit = _RESOLVED.get(key)
    if hit is not None:
        return hit
    cur = directory / "current"
    if cur.is_symlink() or cur.is_dir():
        for _ in range(1000):  # a set deleted between resolving and leasing: again
            try:
                target = cur.resolve(strict=True)
            except (OSError, RuntimeError):  # a missing target or a symlink loop
                raise TableError(
                    f"{cur} points at a missing set; rebuild with `bull build`"
                ) from None
            if not target.is_dir():
                raise TableError(f"{cur} points at a missing set; rebuild with `bull build`")
            if take_lease(target):
                break
        else:
            raise TableError(f"{cur} keeps pointing at sets that are being deleted")
    else:
        target = directory
    _RESOLVED[key] = target
    return target


def forget_set(directory: Path) -> None:
    """Forget what this process resolved and opened in ``directory`` (after it built a
    new set there itself), and drop its leases on sets it no longer reads."""
    _LOADED.clear()
    _RESOLVED.pop(os.fspath(directory), None)
    release_all_but({os.fspath(p) for p in _RESOLVED.values()})


def read_manifest(directory: Path) -> dict[str, Any] | None:
    """The manifest of the set this process reads in ``directory`` (``None``: none)."""
    return manifest_of(resolve_set(directory))


def manifest_of(set_dir: Path) -> dict[str, Any] | None:
    """The manifest of the set in ``set_dir``, checked for its shape (``None``: none)."""
    path = set_dir / "MANIFEST.json"
    if not path.exists():
        return None
    try:
        data: dict[str, Any] | Any = json.loads(read_text(str(path), "manifest", 1 << 26))
    except (OSError, ValueError, RecursionError):  # BullError (a FIFO, not UTF-8) too
        raise TableError(f"{path} is unreadable or corrupt; rebuild with `bull build`") from None
    if not isinstance(data, dict):
        raise TableError(f"{path} is corrupt; rebuild with `bull build`")
    entries = data.get("tables", {})
    if not isinstance(entries, dict) or not all(
        isinstance(k, str) and isinstance(v, dict) for k, v in entries.items()
    ):
        raise TableError(
            f"{path} is corrupt (its tables are not a listing); rebuild with `bull build`"
        )
    return data


# ---------------------------------------------------------------- writing a set


def pid_alive(pid: int) -> bool:
    """Whether the process ``pid`` exists (whoever owns it)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by someone else
    return True


# ---------------------------------------------------------------- loading


@dataclass
class LoadedTable:
    """A table opened for lookups. Columns are read lazily, once, as numpy arrays."""

    name: str
    path: Path
    meta: dict[str, Any]
    num_rows: int
    _file: pq.ParquetFile
    _columns: dict[str, npt.NDArray[Any]] = field(default_factory=dict)
    _alias: dict[str, str] = field(default_factory=dict)

    def aliased(self, names: Mapping[str, str]) -> LoadedTable:
        """This table, also answering each column ``new`` of ``names`` (new → existing
        column) with the existing one: one file, one cache of read columns."""
        return replace(self, _alias={**self._alias, **names})

    @property
    def rules(self) -> dict[str, Any]:
        """Rule-set name → full rule content used to build the table."""
        return dict(self.meta["rules"])

    @functools.cached_property
    def _names(self) -> tuple[str, ...]:
        return tuple(self._file.schema_arrow.names)  # the schema read once, not per lookup

    @property
    def column_names(self) -> list[str]:
        return [*self._names, *(a for a in self._alias if a not in self._names)]

    def column(self, name: str) -> npt.NDArray[Any]:
        """The whole column as a numpy array (cached)."""
        name = self._alias.get(name, name)
        arr = self._columns.get(name)
        if arr is None:
            if name not in self.column_names:
                raise TableError(
                    f"table {self.name} has no column {name!r}; "
                    "it may be stale: rebuild with `bull build`"
                )
            try:
                col = self._file.read(columns=[name]).column(0)
            except (OSError, pa.ArrowException) as exc:
                raise TableError(
                    f"table {self.path} is corrupt ({exc}); rebuild with `bull build`"
                ) from None
            arr = to_numpy(col)
            if len(arr) != self.num_rows:
                raise TableError(f"table {self.path} is truncated; rebuild with `bull build`")
            sums = _group_checksums(name, col)
            self._check(name, range(len(sums)), sums)
            self._columns[name] = arr
        return arr

    def keep(self, written: pa.Table) -> None:
        """Keep the columns of ``written``, the table this process has just written to
        this file (its checksums were computed from them), instead of reading them back."""
        for name, col in zip(written.column_names, written.columns, strict=True):
            if name in self._names:
                self._columns[name] = to_numpy(col)

    def _check(self, name: str, groups: Iterable[int], sums: Sequence[int]) -> None:
        """Refuse the table if the row groups ``groups`` of column ``name`` do not have
        the checksums its metadata records."""
        want = self.meta["checksums"].get(name)
        if want is None or [want[g] for g in groups] != list(sums):
            raise TableError(
                f"table {self.path}: column {name!r} does not match its checksums "
                "(tampered or corrupt); rebuild with `bull build`"
            )

    def columns(self, names: Iterable[str]) -> dict[str, npt.NDArray[Any]]:
        return {n: self.column(n) for n in names}

    def rows(
        self, index: Sequence[int] | npt.NDArray[np.integer], names: Iterable[str]
    ) -> dict[str, npt.NDArray[Any]]:
        """Values of ``names`` at row ``index`` — reading only the row groups needed
        unless the columns are already loaded (fast for a few rows)."""
        idx = np.asarray(index, dtype=np.int64)
        asked = list(names)
        if self._alias:
            real = {n: self._alias.get(n, n) for n in asked}
            found = replace(self, _alias={}).rows(index, list(dict.fromkeys(real.values())))
            return {n: found[real[n]] for n in asked}
        names = asked
        if idx.size and (idx.min() < 0 or idx.max() >= self.num_rows):
            raise TableError(f"row index out of range for table {self.name}")
        if all(n in self._columns for n in names) or idx.size > 4 * ROW_GROUP_SIZE:
            return {n: self.column(n)[idx] for n in names}
        out: dict[str, npt.NDArray[Any]] = {}
        groups = sorted(set((idx // ROW_GROUP_SIZE).tolist()))  # np.unique: imports np.ma
        for n in names:
            if n not in self.column_names:
                raise TableError(
                    f"table {self.name} has no column {n!r}; "
                    "it may be stale: rebuild with `bull build`"
                )
        parts: dict[int, pa.Table] = {}
        try:
            for g in groups:
                parts[g] = self._file.read_row_group(g, columns=names)
        except (OSError, pa.ArrowException) as exc:
            raise TableError(
                f"table {self.path} is corrupt ({exc}); rebuild with `bull build`"
            ) from None
        for g, part in parts.items():
            for n in names:
                self._check(n, [g], _group_checksums(n, part.column(n)))
        for n in names:
            vals = []
            for i in idx.tolist():
                g, r = divmod(i, ROW_GROUP_SIZE)
                vals.append(parts[g].column(n)[r].as_py())
            out[n] = np.asarray(vals)
        return out


_LOADED: dict[tuple[str, str], LoadedTable] = {}


def open_table(name: str, tables: str | os.PathLike[str] | None = None) -> LoadedTable:
    """Open table ``name`` (cached per directory) and check its provenance cheaply:
    schema version, table name and row count. Full digests: ``bull check-tables``."""
    directory = find_tables_dir(tables)
    set_dir = resolve_set(directory)
    key = (str(set_dir), name)
    hit = _LOADED.get(key)
    if hit is not None:
        return hit
    path = set_dir / f"{name}.parquet"
    if not path.exists():
        raise TableError(
            f"table {name} is missing from {directory}; build it with "
            f"`bull build{' --tables ' + str(tables) if tables else ''}`"
        )
    try:
        pf = pq.ParquetFile(arrow_source(path, "table"))
    except (OSError, pa.ArrowException) as exc:
        raise TableError(
            f"table {path} is corrupt or truncated ({str(exc).splitlines()[0]}); "
            "rebuild with `bull build`"
        ) from None
    meta = table_meta(pf.schema_arrow, str(path))
    if meta["schema_version"] != SCHEMA_VERSION:
        raise TableError(
            f"table {path} has schema version {meta['schema_version']}, this solver "
            f"reads {SCHEMA_VERSION}; rebuild with `bull build`"
        )
    if meta["table"] != name:
        raise TableError(
            f"table {path} holds {meta['table']!r}, not {name!r}; rebuild with `bull build`"
        )
    if pf.metadata.num_rows != meta["rows"]:
        raise TableError(
            f"table {path} has {pf.metadata.num_rows} rows, its metadata says "
            f"{meta['rows']}; rebuild with `bull build`"
        )
    manifest = read_manifest(directory)
    if manifest is not None:
        entry = manifest.get("tables", {}).get(name)
        if entry is not None and (
            entry.get("digest") != meta["digest"]
            or entry.get("meta_digest", meta["meta_digest"]) != meta["meta_digest"]
        ):
            raise TableError(
                f"table {path} does not match MANIFEST.json (digest differs); "
                "rebuild with `bull build`"
            )
    loaded = LoadedTable(name=name, path=path, meta=meta, num_rows=meta["rows"], _file=pf)
    _LOADED[key] = loaded
    return loaded
