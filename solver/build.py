"""``bull build``: build every registered game's tables and install them as one set.

``bull build`` and ``scripts/build_tables.py`` both call :func:`build`; the games come
from the registry, the set is written by :mod:`solver.store.build`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any

from solver import games
from solver.store.build import build_set

__all__ = ["build"]


def build(
    names: Iterable[str] | None = None,
    tables: str | os.PathLike[str] | None = None,
    log: Callable[[str], Any] | None = None,
    progress: Callable[[str], Any] | None = None,
) -> dict[str, Any]:
    """Build the tables of the games ``names`` (default: all) as one new set.

    Returns the summary of :func:`solver.store.build.build_set`.
    """
    chosen = [games.get(n) for n in (list(names) if names else games.names())]
    return build_set(
        {g.name: g.build_tables for g in chosen},
        tables,
        log=log,
        progress=progress,
        headlines=lambda game, name, table: games.get(game).table_headlines(name, table),
    )
