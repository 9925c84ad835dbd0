"""Niu Niu fixtures: a directory for the tables of the tests' own rule files (built once
per session, so the repository's tables/ stays untouched)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def rule_tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the tests' rule files get their tables (``--tables`` for a rule file)."""
    return tmp_path_factory.mktemp("niuniu_rule_tables")
