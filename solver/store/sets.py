"""Writing a set of tables: one build at a time, a complete new set beside the old one,
then ``current`` repointed with one rename — a reader sees every old table or every new
one, never a mix, and a build killed at any moment leaves the previous set intact. The
set it replaced, and any set a living reader holds (its lease,
:mod:`solver.store.leases`), are kept; a set folder is never deleted or written over
while a reader holds it (a rebuild of an existing set id reuses that folder only if
its files are the same bytes, else writes beside it)."""

from __future__ import annotations

import contextlib
import fcntl
import filecmp
import hashlib
import json
import os
import shutil
import time
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from solver.core.errors import TableError
from solver.core.files import utf8_name
from solver.store.leases import LEASE, delete_unleased
from solver.store.tables import (
    ROW_GROUP_SIZE,
    SCHEMA_VERSION,
    forget_set,
    manifest_of,
    pid_alive,
    table_meta,
)

__all__ = ["write_parquet", "write_set"]


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_parquet(table: pa.Table, path: Path) -> None:
    """Write one table file the way every set is written (zstd, fixed row groups, synced)."""
    with open(path, "wb") as f:
        # a name Arrow cannot encode (not UTF-8): it writes through the open file
        sink: Any = os.fspath(path) if utf8_name(path) else f
        pq.write_table(
            table,
            sink,
            compression="zstd",
            row_group_size=ROW_GROUP_SIZE,
            use_dictionary=False,
            write_statistics=False,
        )
        f.flush()
        os.fsync(f.fileno())


def _remove_abandoned(sets: Path) -> None:
    """Delete temporary sets left by builds that were killed (their process is gone)."""
    for tmp in sets.glob(".tmp-*"):
        try:
            pid = int(tmp.name.split("-")[1])
        except (IndexError, ValueError):
            continue
        if pid != os.getpid() and not pid_alive(pid):
            shutil.rmtree(tmp, ignore_errors=True)


def write_set(
    tables: Mapping[str, pa.Table],
    directory: str | os.PathLike[str],
    log: Any = None,
    threads: int = 1,
) -> Path:
    """Write ``tables`` as the new current set in ``directory``, atomically.

    Tables of the previous set that are not rebuilt are carried over (hard links),
    so a partial build still yields a complete set. ``threads`` > 1 writes that many
    files at once (Arrow encodes and compresses without the interpreter lock; the
    files are the same). Returns the new set's path.
    """
    root = Path(directory)
    try:
        with _build_lock(root, log):
            return _write_set_locked(tables, root, threads)
    except OSError as exc:
        what = exc.strerror or str(exc)
        where = exc.filename or root
        raise TableError(
            f"cannot write the tables in {root} ({what}: {where}); the previous set, if "
            "any, is untouched"
        ) from None


@contextlib.contextmanager
def _build_lock(root: Path, log: Any = None) -> Iterator[None]:
    """One build at a time per tables directory: a second build waits for the first."""
    if root.exists() and not root.is_dir():
        raise TableError(f"cannot build tables in {root}: it is a file, not a directory")
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".build.lock", "a+") as lock:
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if log:
                log(f"another build is writing to {root}; waiting for it to finish ...")
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


def _write_files(tables: Mapping[str, pa.Table], folder: Path, threads: int) -> None:
    """Write each table's file into ``folder``, the largest first, on up to ``threads``
    threads; every write has ended when this returns (an error: the first one's)."""
    order = sorted(tables, key=lambda name: -tables[name].nbytes)
    if threads <= 1 or len(order) <= 1:
        for name in order:
            write_parquet(tables[name], folder / f"{name}.parquet")
        return
    with ThreadPoolExecutor(min(threads, len(order)), thread_name_prefix="bull-write") as pool:
        jobs = [pool.submit(write_parquet, tables[n], folder / f"{n}.parquet") for n in order]
        try:
            for job in jobs:
                job.result()
        finally:
            for job in jobs:
                job.cancel()


def _write_set_locked(tables: Mapping[str, pa.Table], root: Path, threads: int = 1) -> Path:
    (root / "sets").mkdir(parents=True, exist_ok=True)
    _remove_abandoned(root / "sets")
    cur = root / "current"
    old_set = cur.resolve() if cur.is_symlink() and cur.resolve().is_dir() else None
    tmp = root / "sets" / f".tmp-{os.getpid()}-{time.time_ns()}"
    tmp.mkdir()
    try:
        entries: dict[str, Any] = {}
        if old_set is not None:
            old_manifest = manifest_of(old_set) or {}
            for name, entry in old_manifest.get("tables", {}).items():
                if name in tables:
                    continue
                src = old_set / f"{name}.parquet"
                if src.exists():
                    try:
                        os.link(src, tmp / src.name)
                    except OSError:
                        shutil.copy2(src, tmp / src.name)
                    entries[name] = entry
        _write_files(tables, tmp, threads)
        for name, table in tables.items():
            meta = table_meta(table.schema, name)
            entries[name] = {
                "file": f"{name}.parquet",
                "rows": meta["rows"],
                "digest": meta["digest"],
                "meta_digest": meta["meta_digest"],
                "schema_version": meta["schema_version"],
                "solver_version": meta["solver_version"],
                "rules": meta["rules"],  # full content, as in the file's metadata
            }
        listing = {
            "schema_version": SCHEMA_VERSION,
            "tables": {k: entries[k] for k in sorted(entries)},
        }
        # the set id names everything the manifest says: content digests, versions, rules
        set_id = hashlib.sha256(json.dumps(listing, sort_keys=True).encode()).hexdigest()[:16]
        manifest = {**listing, "set": set_id}
        (tmp / "MANIFEST.json").write_text(
            json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8"
        )
        _fsync_dir(tmp)
        (tmp / LEASE).touch()
        final = _place(tmp, root / "sets", set_id)
        # swap `current` atomically
        link_tmp = root / f".tmp-current-{os.getpid()}"
        if link_tmp.is_symlink() or link_tmp.exists():
            link_tmp.unlink()
        os.symlink(Path("sets") / final.name, link_tmp)
        os.replace(link_tmp, root / "current")
        _fsync_dir(root)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    # stable names pointing through `current`
    for name in [*entries, "MANIFEST"]:
        fname = "MANIFEST.json" if name == "MANIFEST" else f"{name}.parquet"
        link = root / fname
        if not link.is_symlink():
            if link.exists():
                link.unlink()
            os.symlink(Path("current") / fname, link)
    # drop the sets nobody can be reading: not the new one, not the one it replaced (a
    # process that resolved `current` a moment ago may be opening it), none with a lease
    forget_set(root)
    keep = {final.name, old_set.name if old_set is not None else ""}
    for other in (root / "sets").iterdir():
        if other.name in keep or other.name.startswith(".tmp-") or not other.is_dir():
            continue
        delete_unleased(other)
    return final


def _place(tmp: Path, sets: Path, set_id: str) -> Path:
    """Move the finished set ``tmp`` to ``sets/<set_id>``, never over an existing
    folder: a folder of that id already there (a reader may hold it) is reused if its
    files are byte for byte the ones just written, else the set goes beside it
    (``<set_id>-2``, ...)."""
    for n in range(1, 1000):
        final = sets / (set_id if n == 1 else f"{set_id}-{n}")
        if not final.exists() and not final.is_symlink():
            os.rename(tmp, final)
            return final
        if _same_files(tmp, final):
            shutil.rmtree(tmp)
            return final
    raise TableError(f"{sets} holds too many damaged copies of set {set_id}; delete them")


def _same_files(new: Path, old: Path) -> bool:
    """Whether the set folder ``old`` holds exactly the files of ``new`` (leases aside),
    each a regular file with the same bytes."""
    ignore = {LEASE, ".readers"}
    try:
        names = {p.name for p in new.iterdir()} - ignore
        if not old.is_dir() or {p.name for p in old.iterdir()} - ignore != names:
            return False
        return all(
            (old / n).is_file()
            and not (old / n).is_symlink()
            and filecmp.cmp(new / n, old / n, shallow=False)
            for n in names
        )
    except OSError:
        return False
