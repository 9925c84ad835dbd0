"""Shared fixtures: the committed tables (built into a temporary directory if absent)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from _tables import tables_for

# The suite starts hundreds of Python processes (the CLI run as a user runs it, the probe
# tests' peers, serve workers, builds killed on purpose). With PYTHONDONTWRITEBYTECODE
# set, as on the machine CI runs on, each of them compiled the package and the tests'
# models from source again. The suite writes bytecode (to the git-ignored __pycache__
# folders) and its children read it.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


@pytest.fixture(scope="session")
def niuniu_tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tables directory holding the Niu Niu table: the repository's committed one."""
    return tables_for("niuniu", tmp_path_factory)


@pytest.fixture(scope="session")
def taungau_tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tables_for("taungau", tmp_path_factory)


@pytest.fixture(scope="session")
def pokdeng_tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tables_for("pokdeng", tmp_path_factory)


@pytest.fixture(scope="session")
def other_tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Tau Ngau and Pok Deng tables freshly built into a temporary directory (one set
    holding both, as a user's ``bull build --game taungau --game pokdeng`` makes)."""
    from solver.build import build

    out = tmp_path_factory.mktemp("other_tables")
    build(["taungau", "pokdeng"], tables=out)
    return out


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Collect the heaviest test files first (weights measured by
    ``scripts/suite_order.py``): xdist hands files out in this order, so the long ones
    start early and the run ends on short ones instead of one long file running alone.
    The sort is stable and keeps each file's tests together and in their own order."""
    import json

    root = Path(str(config.rootpath))
    try:
        weights = json.loads((root / "tests" / "file_seconds.json").read_text("utf-8"))
    except (OSError, ValueError):
        return

    def weight(item: pytest.Item) -> float:
        try:
            rel = Path(str(item.path)).resolve().relative_to(root).as_posix()
        except ValueError:
            return 0.0
        return -float(weights.get(rel, 0.0))

    items.sort(key=weight)
