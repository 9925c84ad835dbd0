"""bull-solver: exhaustive reference solver for Niu Niu, Tau Ngau and Pok Deng.

The package is layered (see the README, "How the code is laid out"): ``solver.core``
(cards, tiles, indexing, rule files, errors), ``solver.store`` and ``solver.kit``
(tables, and the game-blind parts of verify, odds and simulation), one package per
game in ``solver.games``, the registry ``solver.games``, and the faces (``solver.cli``,
``solver.build``, ``solver.report``, ``solver.verify``, ``solver.vectors``).

The module names of the first releases still import, as aliases of their new homes:
``from solver import niuniu_play`` is :mod:`solver.games.niuniu.play`.

>>> from solver import niuniu_play
>>> niuniu_play.__name__
'solver.games.niuniu.play'
>>> import solver.pokdeng_play as pd
>>> pd.advise("7H 5D").action
'draw'
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from types import ModuleType
from typing import Any

__version__ = "0.1.0"

__all__ = ["__version__"]

ALIASES: dict[str, str] = {
    "niuniu_play": "solver.games.niuniu.play",
    "taungau_play": "solver.games.taungau.play",
    "pokdeng_play": "solver.games.pokdeng.play",
    "pokdeng_strategy": "solver.games.pokdeng.strategy",
    "cards": "solver.core.cards",
    "tiles": "solver.core.tiles",
    "errors": "solver.core.errors",
    "indexing": "solver.core.indexing",
    "tables": "solver.store.tables",
}
"""Old module name (``solver.<name>``) → the module it now is."""


class _AliasLoader(importlib.abc.Loader):
    """Loads ``solver.<old name>`` as the module it moved to (the same object)."""

    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(self.target)

    def exec_module(self, module: ModuleType) -> None:
        return None


class _AliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        prefix, _, rest = fullname.partition(".")
        if prefix != "solver" or rest not in ALIASES:
            return None
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(ALIASES[rest]))


if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
    sys.meta_path.append(_AliasFinder())


def __getattr__(name: str) -> ModuleType:
    if name in ALIASES:
        return importlib.import_module(f"solver.{name}")
    raise AttributeError(f"module 'solver' has no attribute {name!r}")
