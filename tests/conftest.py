"""Shared fixtures: the committed tables (built into a temporary directory if absent)."""

from __future__ import annotations

from pathlib import Path

import pytest
from _tables import tables_for


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
