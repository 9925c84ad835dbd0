"""Exact tables for a user's rule file: built on first use, cached by the rule set's
content digest, reused after (game-blind: the game passes its builder).

A preset's columns live in the tables a build installs; a rule file's rule set has no
such columns. :func:`rule_table` gives it a table of its own, ``rules/<table>-<digest>``
next to the preset tables when that directory is writable (else in the user cache),
written atomically (a temporary file renamed into place), so two processes building
the same rule set at once both end with one whole file. The first use says on stderr
that it is building. A cached file is believed only if it was built by the same code (its name
holds a digest of the solver's source), its metadata names the same rule content and
its row count is right; anything else is rebuilt. A game whose rule sets share their
hands and the hands' facts with a preset table of the same name (Niu Niu: one per deck)
stores only the rule set's own columns and reads the rest from that table
(:class:`OnBase`): a tenth of the file to write, and columns a process often holds already.

>>> rule_digest({"b": 1, "a": [1, 2]}) == rule_digest({"a": [1, 2], "b": 1})
True
>>> len(rule_digest({"a": 1}))
16
"""

from __future__ import annotations

import contextvars
import functools
import hashlib
import json
import os
import sys
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.parquet as pq

from solver.core.errors import BullError, TableError
from solver.core.files import arrow_source, read_text
from solver.store.sets import write_parquet
from solver.store.tables import (
    SCHEMA_VERSION,
    LoadedTable,
    find_tables_dir,
    open_table,
    table_meta,
    user_cache_dir,
)

__all__ = [
    "NOTICES",
    "OnBase",
    "cached_figures",
    "code_digest",
    "rule_digest",
    "rule_table",
    "rule_table_path",
    "store_cached",
    "store_figures",
]

_OPEN: dict[tuple[str, str], LoadedTable] = {}

NOTICES: contextvars.ContextVar[Callable[[str], Any] | None] = contextvars.ContextVar(
    "bull_notices", default=None
)
"""Where "building ..." notices go when the caller passes none: a face sets it (the CLI
to its own error stream); unset, they go to stderr."""


def rule_digest(data: Mapping[str, Any]) -> str:
    """A short, stable digest of a rule set's full content (key order does not count)."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _writable(d: Path) -> bool:
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(d, os.W_OK)


@functools.cache
def code_digest() -> str:
    """A short digest of the solver's own source code: a cached rule-set table is reused
    only by the code that built it (any change to an evaluator means a rebuild)."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:8]


def rule_table_path(
    table: str, data: Mapping[str, Any], tables: str | os.PathLike[str] | None = None
) -> Path:
    """Where the table ``table`` of the rule set ``data`` is cached (the name holds the
    rule set's digest and the code's)."""
    name = f"{table}-{rule_digest(data)}-{code_digest()}.parquet"
    try:
        base = find_tables_dir(tables) / "rules"
    except TableError:
        base = user_cache_dir() / "rules"
    if (base / name).exists() or _writable(base):
        return base / name
    return user_cache_dir() / "rules" / name


def _open(path: Path, table: str, data: Mapping[str, Any], rows: int | None) -> LoadedTable | None:
    """The cached file, if it is whole and was built for exactly ``data``."""
    try:
        pf = pq.ParquetFile(arrow_source(path, "table"))
        meta = table_meta(pf.schema_arrow, str(path))
    except (OSError, pa.ArrowException, BullError):  # TableError, not a regular file
        return None
    rule_sets = meta.get("rules", {})
    if (
        meta["schema_version"] != SCHEMA_VERSION
        or meta["table"] != table
        or pf.metadata.num_rows != meta["rows"]
        or (rows is not None and meta["rows"] != rows)
        or list(rule_sets.values()) != [json.loads(json.dumps(dict(data), default=str))]
    ):
        return None
    return LoadedTable(name=table, path=path, meta=meta, num_rows=meta["rows"], _file=pf)


@dataclass
class OnBase(LoadedTable):
    """A rule-set table holding the rule set's own columns, the columns its metadata
    lists (``extra.from_base``: the hands and their facts) read from ``base``, the
    preset table of the same name (the same hands in the same rows)."""

    base: LoadedTable | None = None

    @functools.cached_property
    def _shared(self) -> tuple[str, ...]:
        return tuple(self.meta["extra"]["from_base"]) if self.base is not None else ()

    @property
    def column_names(self) -> list[str]:
        return [*self._shared, *super().column_names]

    def column(self, name: str) -> npt.NDArray[Any]:
        real = self._alias.get(name, name)
        if self.base is not None and real in self._shared:
            return self.base.column(real)
        return super().column(name)

    def rows(
        self, index: Sequence[int] | npt.NDArray[np.integer], names: Iterable[str]
    ) -> dict[str, npt.NDArray[Any]]:
        asked = list(names)
        real = {n: self._alias.get(n, n) for n in asked}
        wanted = list(dict.fromkeys(real.values()))
        mine = [n for n in wanted if n not in self._shared]
        found = LoadedTable.rows(replace(self, _alias={}), index, mine) if mine else {}
        if self.base is not None and len(mine) < len(wanted):
            found |= self.base.rows(index, [n for n in wanted if n in self._shared])
        return {n: found[real[n]] for n in asked}


def _on_base(t: LoadedTable) -> bool:
    """Whether the table holds only its rule set's own columns (:class:`OnBase`)."""
    extra = t.meta.get("extra")
    return (
        isinstance(extra, dict)
        and extra.get("on_base") == t.name
        and isinstance(extra.get("from_base"), list)
    )


def _base_table(
    table: str, tables: Any, rows: int | None, shared: Sequence[str]
) -> LoadedTable | None:
    """The preset table ``table`` with ``rows`` rows and the columns ``shared``, if
    there is one to read from."""
    try:
        t = open_table(table, tables)
    except TableError:
        return None
    whole = (rows is None or t.num_rows == rows) and set(shared) <= set(t.column_names)
    return t if whole else None


KEEP_BYTES = 64 << 20
"""A rule-set table this process has just built is kept in memory, not read back from
its file, when it is this small (a Tau Ngau one, ~19 MB; a Niu Niu one of its own
columns, ~13 MB; a whole Niu Niu one is read back column by column as it is used)."""


def rule_table(
    table: str,
    data: Mapping[str, Any],
    build: Callable[[], pa.Table],
    tables: str | os.PathLike[str] | None = None,
    rows: int | None = None,
    notice: Callable[[str], Any] | None = None,
    own: tuple[Sequence[str], Callable[[], pa.Table]] | None = None,
) -> LoadedTable:
    """The table ``table`` for the rule set whose full content is ``data``.

    ``build()`` makes it (a table from :func:`~solver.store.tables.make_table` whose
    ``rules`` metadata is ``{name: data}``); it runs only when no cached copy exists.
    ``rows``, when given, is the row count the table must have. ``notice`` receives the
    one line that says a build is happening (default: stderr). ``own``, when given, is
    ``(shared, make)``: ``make()`` makes the rule set's own columns alone (its ``extra``
    metadata ``on_base`` the name ``table``, ``from_base`` the column names ``shared``),
    built instead when the preset table ``table`` is there to read the ``shared``
    columns from (:class:`OnBase`); a cached file of own columns with no such table is
    rebuilt whole.
    """
    path = rule_table_path(table, data, tables)
    key = (str(path), rule_digest(data))
    hit = _OPEN.get(key)
    if hit is not None:
        return hit
    base = _base_table(table, tables, rows, own[0]) if own is not None else None
    loaded = _open(path, table, data, rows) if path.exists() else None
    if loaded is not None and _on_base(loaded) and base is None:
        loaded = None
    if loaded is None:
        say = notice or NOTICES.get() or (lambda s: sys.stderr.write(s + "\n"))
        say(
            f"bull: building the {table} table for rule set {data.get('name', '?')!r} "
            f"(first use; cached in {path.parent})"
        )
        built = own[1]() if own is not None and base is not None else build()
        path.parent.mkdir(parents=True, exist_ok=True)
        for older in path.parent.glob(f"{table}-{rule_digest(data)}-*.parquet"):
            older.unlink(missing_ok=True)  # the same rule set, built by other code
        tmp = path.with_name(f".tmp-{uuid.uuid4().hex}-{path.name}")
        try:
            write_parquet(built, tmp)
            os.replace(tmp, path)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise TableError(f"cannot write the rule-set table {path}: {exc.strerror}") from None
        loaded = _open(path, table, data, rows)
        if loaded is None:
            raise TableError(f"the rule-set table {path} does not read back; delete it and retry")
        if built.nbytes <= KEEP_BYTES:
            loaded.keep(built)
    if _on_base(loaded):
        loaded = OnBase(**{f.name: getattr(loaded, f.name) for f in fields(loaded)}, base=base)
    _OPEN[key] = loaded
    return loaded


def cached_figures(
    name: str, key: Mapping[str, Any], tables: str | os.PathLike[str] | None, limit: int
) -> tuple[Path, dict[str, Any] | None]:
    """Where the figures ``name`` computed for ``key`` (a rule set and options) are
    cached, ``rules/<name>-<digest>-<code>.json`` beside the rule-set tables, and what
    that file holds when it was written for exactly ``key`` (None when it is missing,
    unreadable, larger than ``limit`` bytes or for another key)."""
    path = rule_table_path(name, key, tables).with_suffix(".json")
    try:
        stored = json.loads(read_text(str(path), "cached figures", limit))
    except (OSError, ValueError):  # BullError too
        return path, None
    if not isinstance(stored, dict):
        return path, None
    if stored.get("key") != json.loads(json.dumps(dict(key), default=str)):
        return path, None
    return path, stored


def store_figures(path: Path, key: Mapping[str, Any], figures: Mapping[str, Any]) -> None:
    """``figures`` and their ``key`` written to ``path`` (from :func:`cached_figures`)
    whole or not at all (a temporary file renamed), and the same figures cached by other
    code (another code digest in the name) removed. A cache that cannot be written is
    skipped."""
    text = json.dumps({"key": dict(key), **figures}, default=str)
    store_cached(path, lambda tmp: tmp.write_text(text, "utf-8"))


def store_cached(path: Path, write: Callable[[Path], Any]) -> None:
    """A cache file written to ``path`` whole or not at all (``write`` fills a temporary
    file, then renamed), and the same file cached by other code (another code digest in
    the name, the same suffix) removed. A cache that cannot be written is skipped."""
    tmp = path.with_name(f".tmp-{uuid.uuid4().hex}-{path.name}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write(tmp)
        os.replace(tmp, path)
        for older in path.parent.glob(path.name.rsplit("-", 1)[0] + "-*" + path.suffix):
            if older != path:
                older.unlink(missing_ok=True)
    except OSError:
        tmp.unlink(missing_ok=True)
