"""Build a set of tables from given builders and install it atomically (game-blind).

The caller names the builders (the registry's games); this module runs them, reports
what it built and hands the tables to :func:`~solver.store.tables.write_set`.

A build uses two cores when it has them: a builder may start independent work with
:func:`background`, which runs it on a second thread while the builder goes on (numpy
releases the interpreter lock in its array work, so the two threads run at once); a
builder may return such a job's future in place of a table, collected after every
builder has run. Outside a build, or with one core, :func:`background` runs the work at
once. The tables are the same either way.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import pyarrow as pa

from solver.store.sets import write_set
from solver.store.tables import default_build_dir

__all__ = ["Builder", "background", "build_set", "cores", "small_pages"]

Builder = Callable[[], Mapping[str, "pa.Table | Future[pa.Table]"]]
"""A game's builder: enumerates every hand, returns ``{table name: pyarrow.Table}`` (a
table may be a :func:`background` job's future)."""

P = ParamSpec("P")
T = TypeVar("T")


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class _Worker:
    """One daemon thread running jobs in the order given (a Ctrl-C does not wait for
    it: the process exits while it runs)."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[tuple[Future[Any], Callable[[], Any]] | None] = (
            queue.SimpleQueue()
        )
        self._thread = threading.Thread(target=self._run, name="bull-build", daemon=True)
        self._thread.start()

    def submit(self, job: Callable[[], T]) -> Future[T]:
        fut: Future[T] = Future()
        self._jobs.put((fut, job))
        return fut

    def _run(self) -> None:
        while True:
            item = self._jobs.get()
            if item is None:
                return
            fut, job = item
            if not fut.set_running_or_notify_cancel():
                continue
            try:
                got = job()
            except BaseException as exc:  # handed to whoever waits on the future
                fut.set_exception(exc)
            else:
                _ENDED[fut] = time.perf_counter()
                fut.set_result(got)

    def close(self) -> None:
        """Cancel the jobs not started and let the thread end after the running one."""
        while True:
            try:
                item = self._jobs.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                item[0].cancel()
        self._jobs.put(None)


_WORKER: list[_Worker] = []
"""The running build's second thread, if it has one."""
_ENDED: dict[Future[Any], float] = {}
"""When each job the second thread finished ended (until its build reads it)."""


def background(job: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
    """Start ``job(*args, **kwargs)`` on the build's second thread and return its future;
    outside a build with two cores (or called from that thread) it runs now.

    >>> background(sum, [1, 2, 3]).result()
    6
    """
    worker = _WORKER[0] if _WORKER else None
    if worker is not None and threading.current_thread() is not worker._thread:
        return worker.submit(lambda: job(*args, **kwargs))
    fut: Future[T] = Future()
    fut.set_result(job(*args, **kwargs))
    return fut


@contextlib.contextmanager
def small_pages() -> Iterator[None]:
    """Ask numpy not to request huge pages for its large arrays while inside.

    numpy asks the kernel for huge pages for every array of 4 MB or more; where the
    kernel compacts memory to find them at once (Linux's default ``defrag = madvise``)
    every fresh large array stalls on a busy machine. A build makes many (the counting
    core's), and spent about two fifths of its CPU time in the kernel so; with small
    pages, half that (``scripts/bench_builds.py``). No effect where numpy has no such
    switch."""
    import importlib

    switch = None
    for where in ("numpy._core.multiarray", "numpy.core.multiarray"):  # numpy 2, numpy 1
        try:
            switch = getattr(importlib.import_module(where), "_set_madvise_hugepage", None)
        except ImportError:
            continue
        if switch is not None:
            break
    if switch is None:
        yield
        return
    before = switch(False)
    try:
        yield
    finally:
        switch(before)


def build_set(
    builders: Mapping[str, Builder],
    tables: str | os.PathLike[str] | None = None,
    log: Callable[[str], Any] | None = None,
    progress: Callable[[str], Any] | None = None,
    headlines: Callable[[str, str, pa.Table], list[str]] | None = None,
    threads: int | None = None,
) -> dict[str, Any]:
    """Run ``builders`` (game → builder) and install their tables as one new set.

    ``log`` receives the summary lines, ``progress`` what is being done now,
    ``headlines(game, table name, table)`` a few facts per table for the summary;
    ``threads``: 1 builds on this thread alone, 2 (the default with two cores or more)
    lets builders hand work to a second. Returns a summary: per table its rows, digest
    and build seconds (a game's, from its start to its last table), and the set path.
    """
    say = log or (lambda s: None)
    now = progress or (lambda s: None)
    started = time.perf_counter()
    out_dir = default_build_dir(tables)
    want = min(cores(), 2) if threads is None else threads
    mine = want > 1 and not _WORKER
    if mine:
        _WORKER.append(_Worker())
    built: dict[str, pa.Table] = {}
    summary: dict[str, Any] = {"tables": {}, "directory": str(out_dir)}
    try:
        with small_pages():
            _run(builders, built, summary, say, now, headlines)
    finally:
        if mine:
            _WORKER.pop().close()
            _ENDED.clear()
    t0 = time.perf_counter()
    now(f"writing {len(built)} table(s) to {out_dir} ...")
    set_path = write_set(built, out_dir, threads=want)
    summary["write_seconds"] = round(time.perf_counter() - t0, 3)
    summary["set"] = str(Path(set_path))
    summary["total_seconds"] = round(time.perf_counter() - started, 3)
    say(
        f"wrote {len(built)} table(s) to {out_dir} (set {Path(set_path).name}) "
        f"in {summary['write_seconds']:.2f} s; {summary['total_seconds']:.1f} s in all"
    )
    return summary


def _run(
    builders: Mapping[str, Builder],
    built: dict[str, pa.Table],
    summary: dict[str, Any],
    say: Callable[[str], Any],
    now: Callable[[str], Any],
    headlines: Callable[[str, str, pa.Table], list[str]] | None,
) -> None:
    """Call every builder, then collect their tables (waiting for any still being built
    on the second thread) into ``built``, and say what each is."""
    results = []
    for game, builder in builders.items():
        now(f"building {game} ...")
        t0 = time.perf_counter()
        result = dict(builder())
        results.append((game, t0, result, time.perf_counter()))
    for game, t0, result, end in results:
        for name, got in result.items():
            if isinstance(got, Future):
                now(f"building {game}: {name} ...")
                table = got.result()
                end = max(end, _ENDED.pop(got, end))
                got = table
            built[name] = got
        seconds = end - t0
        for name in result:
            table = built[name]
            meta = table.schema.metadata or {}
            digest = meta.get(b"bull.digest", b'""').decode().strip('"')
            summary["tables"][name] = {
                "game": game,
                "rows": table.num_rows,
                "digest": digest,
                "seconds": round(seconds, 3),
            }
            say(f"  {name}: {table.num_rows:,} rows, digest {digest[:16]}…, {seconds:.2f} s")
            for line in headlines(game, name, table) if headlines else []:
                say(f"      {line}")
