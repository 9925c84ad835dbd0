"""Readers' leases on table sets: a shared ``flock`` on the set's ``.lease`` file.

A reader holds a shared lock on ``sets/<id>/.lease`` for as long as it reads that set
(the kernel drops it when the process ends, however it ends: no pid files to go stale,
no pid reused by another process). A build deletes a set only while it holds the
exclusive lock, which it cannot get while any reader holds the shared one; it first
renames the set out of the way, so a reader that opened the lease file a moment before
finds, once it has its lock, that the path no longer names that file, and resolves
``current`` again. A set with a reader is therefore never deleted or replaced.

The lease is best effort only where no lock can be taken at all (a read-only install
without a lease file): such a set cannot be deleted by a build either.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import time
from pathlib import Path

__all__ = ["LEASE", "delete_unleased", "release_all_but", "take_lease"]

LEASE = ".lease"
"""The lease file's name inside a set's folder."""

_LEASES: dict[str, int] = {}
"""Set folder → the descriptor holding this process's shared lock on its lease file."""


def _same_file(path: Path, fd: int) -> bool:
    try:
        st = os.stat(path)
    except OSError:
        return False
    fst = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (fst.st_dev, fst.st_ino)


def take_lease(set_dir: Path) -> bool:
    """Hold a shared lease on ``set_dir``; ``False`` if the set was deleted meanwhile
    (the caller resolves ``current`` again)."""
    key = os.fspath(set_dir)
    if key in _LEASES:
        return True
    path = set_dir / LEASE
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except FileNotFoundError:
        return False  # the folder is gone
    except OSError:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            return set_dir.is_dir()  # read-only without a lease file: nobody can delete it
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
    except OSError:
        os.close(fd)
        return set_dir.is_dir()
    if not _same_file(path, fd):  # deleted (or moved aside) before we had the lock
        os.close(fd)
        return False
    _LEASES[key] = fd
    return True


def _release(key: str) -> None:
    fd = _LEASES.pop(key, None)
    if fd is not None:
        os.close(fd)


def release_all_but(keep: set[str]) -> None:
    """Drop this process's leases on every set folder not in ``keep``."""
    for key in [k for k in _LEASES if k not in keep]:
        _release(key)


def delete_unleased(set_dir: Path) -> bool:
    """Delete ``set_dir`` unless a reader holds a lease on it (``True``: deleted).

    This process's own lease on it, if any, is dropped first (a build does not keep
    the sets it read itself)."""
    _release(os.fspath(set_dir))
    try:
        fd = os.open(set_dir / LEASE, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        return False  # cannot tell whether anyone reads it: keep it
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False  # a reader holds it
        trash = set_dir.parent / f".tmp-{os.getpid()}-{time.time_ns()}-old"
        try:
            os.rename(set_dir, trash)
        except OSError:
            return False
    finally:
        os.close(fd)
    shutil.rmtree(trash, ignore_errors=True)
    return True
