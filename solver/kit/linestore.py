"""Finished answer lines kept between runs, in the user's cache: a game whose answer
depends only on a small class of the hand (Tau Ngau: its multiset of tiles, 33,934 of
them) writes each class's line once and stores the lot, so that the next
``bull eval --input`` reads them instead of writing them again.

A stored file is named by a digest of everything its lines depend on (the game, the
rule set's full content, the table's digest, the options, the output format and the
solver's source code) and holds a checksum of its arrays: a file that does not match
is not believed (its lines are written again and the file replaced). Writing is
atomic (a temporary file renamed into place) and best effort: a cache that cannot be
written costs time, never an answer.

>>> import tempfile, os
>>> from solver.kit.textcols import strings
>>> with tempfile.TemporaryDirectory() as d:
...     os.environ["XDG_CACHE_HOME"] = d
...     save("demo", {"a": 1}, np.array([3, 9]), strings(["x\\n", "yy\\n"]))
...     keys, lines = load("demo", {"a": 1})
...     del os.environ["XDG_CACHE_HOME"]
>>> keys.tolist(), lines.to_pylist()
([3, 9], ['x\\n', 'yy\\n'])
"""

from __future__ import annotations

import json
import os
import uuid
import zipfile
import zlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from solver.store.custom import code_digest, rule_digest
from solver.store.tables import user_cache_dir

__all__ = ["kept", "load", "load_arrays", "path_of", "save", "save_arrays"]

_VERSION = 1


def path_of(kind: str, key: Mapping[str, Any]) -> Path:
    """Where the lines of ``kind`` under ``key`` are stored."""
    digest = rule_digest({"key": dict(key), "code": code_digest(), "version": _VERSION})
    return user_cache_dir() / "lines" / f"{kind}-{digest}.npz"


def _sums(arrays: Mapping[str, npt.NDArray[Any]]) -> dict[str, int]:
    return {k: zlib.crc32(np.ascontiguousarray(v).data.cast("B")) for k, v in arrays.items()}


def load_arrays(kind: str, key: Mapping[str, Any]) -> dict[str, npt.NDArray[Any]] | None:
    """The arrays stored for ``kind`` under ``key``, or ``None`` when there are none or
    they do not match their checksums."""
    path = path_of(kind, key)
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files if k != "meta"}
            meta = json.loads(bytes(z["meta"]).decode("utf-8"))
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None
    if meta.get("sums") != _sums(arrays):
        return None
    return arrays


def save_arrays(kind: str, key: Mapping[str, Any], arrays: Mapping[str, npt.NDArray[Any]]) -> None:
    """Store ``arrays`` (with their checksums) for ``kind`` under ``key``; quietly does
    nothing when the cache cannot be written."""
    meta = json.dumps({"sums": _sums(arrays), "key": dict(key)}, default=str).encode("utf-8")
    path = path_of(kind, key)
    tmp = path.with_name(f".tmp-{uuid.uuid4().hex}-{path.name}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as f:
            np.savez(f, meta=np.frombuffer(meta, dtype=np.uint8), **arrays)  # type: ignore[arg-type]
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)


def kept(
    kind: str,
    key: Mapping[str, Any],
    whole: Callable[[Mapping[str, npt.NDArray[Any]]], bool],
    make: Callable[[], dict[str, npt.NDArray[Any]]],
) -> dict[str, npt.NDArray[Any]]:
    """The arrays stored for ``kind`` under ``key`` when they check and ``whole(arrays)``
    holds; else ``make()``'s, stored for the next run.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     os.environ["XDG_CACHE_HOME"] = d
    ...     a = kept("demo", {"a": 1}, lambda a: "x" in a, lambda: {"x": np.arange(3)})
    ...     b = kept("demo", {"a": 1}, lambda a: "x" in a, lambda: {"x": np.zeros(3)})
    ...     del os.environ["XDG_CACHE_HOME"]
    >>> a["x"].tolist(), b["x"].tolist()
    ([0, 1, 2], [0, 1, 2])
    """
    got = load_arrays(kind, key)
    if got is not None and whole(got):
        return got
    made = make()
    save_arrays(kind, key, made)
    return made


def load(kind: str, key: Mapping[str, Any]) -> tuple[npt.NDArray[np.int64], pa.Array] | None:
    """The stored keys and lines (a string array, one line per key), or ``None`` when
    there are none or they do not check."""
    arrays = load_arrays(kind, key)
    if arrays is None or set(arrays) != {"keys", "ends", "data"}:
        return None
    keys, ends, data = arrays["keys"], arrays["ends"], arrays["data"]
    if (
        keys.dtype != np.int64
        or ends.dtype != np.int64
        or data.dtype != np.uint8
        or len(keys) != len(ends)
        or (len(ends) and (int(ends[-1]) != len(data) or (np.diff(ends) <= 0).any()))
        or len(np.unique(keys)) != len(keys)
    ):
        return None
    offsets = np.zeros(len(ends) + 1, dtype=np.int64)
    offsets[1:] = ends
    typ, offs = (
        (pa.large_string(), offsets)
        if len(data) >= 2**31
        else (pa.string(), offsets.astype(np.int32))
    )
    lines = pa.Array.from_buffers(typ, len(keys), [None, pa.py_buffer(offs), pa.py_buffer(data)])
    return keys, lines


def save(kind: str, key: Mapping[str, Any], keys: npt.NDArray[np.int64], lines: pa.Array) -> None:
    """Store ``lines`` (a string array without nulls, one line per key); quietly does
    nothing when the cache cannot be written."""
    bufs = lines.buffers()
    wide = np.int64 if lines.type == pa.large_string() else np.int32
    n = len(lines)
    off = np.frombuffer(bufs[1], dtype=wide)[lines.offset : lines.offset + n + 1].astype(np.int64)
    raw = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None else np.zeros(0, np.uint8)
    arrays = {
        "keys": np.asarray(keys, dtype=np.int64),
        "ends": off[1:] - off[0],
        "data": raw[int(off[0]) : int(off[-1])],
    }
    save_arrays(kind, key, arrays)
