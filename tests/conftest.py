"""Shared fixtures: the committed tables (built into a temporary directory if absent)."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from _tables import REPO_TABLES, committed_tables, tables_for

# The suite starts hundreds of Python processes (the CLI run as a user runs it, the probe
# tests' peers, serve workers, builds killed on purpose). With PYTHONDONTWRITEBYTECODE
# set, as on the machine CI runs on, each of them compiled the package and the tests'
# models from source again. The suite writes bytecode (to the git-ignored __pycache__
# folders) and its children read it.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# The Spark tests' JVMs compile with C1 only: their jobs are small, and the default
# compilers spent half of a job's start-up CPU (29.6 -> 16.7 CPU-s for two small audits;
# on millions of rows the default is faster, so users keep it). See spark_engine.
os.environ.setdefault("BULL_SPARK_JAVA_OPTIONS", "-XX:TieredStopAtLevel=1")

# The suite's user-level caches (the text path's line store, the rule-set tables of a
# tables folder that is not writable) go to a folder of this run, shared by its workers
# (they inherit the variable), not to the user's ~/.cache: a run neither reads what an
# earlier one left there nor leaves anything behind.
_OWN_CACHE = "BULL_SUITE_CACHE" not in os.environ
if _OWN_CACHE:
    os.environ["BULL_SUITE_CACHE"] = tempfile.mkdtemp(prefix="bull-suite-cache-")
os.environ["XDG_CACHE_HOME"] = os.environ["BULL_SUITE_CACHE"]


def pytest_unconfigure(config: pytest.Config) -> None:
    """The run's cache folder removed by the process that made it."""
    if _OWN_CACHE and not hasattr(config, "workerinput"):
        shutil.rmtree(os.environ["BULL_SUITE_CACHE"], ignore_errors=True)


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
    """A tables directory holding the Tau Ngau and Pok Deng tables: the committed ones
    (tests/test_tables.py proves a fresh build reproduces them), else both freshly built
    into one set, as a user's ``bull build --game taungau --game pokdeng`` makes."""
    from solver import games
    from solver.build import build

    if {t for g in ("taungau", "pokdeng") for t in games.get(g).tables} <= committed_tables():
        return REPO_TABLES
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
