"""Shared fixtures: the committed tables (built into a temporary directory if absent)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
REPO_TABLES = REPO / "tables"


def _committed_games() -> set[str]:
    manifest = REPO_TABLES / "MANIFEST.json"
    if not manifest.exists():
        return set()
    return set(json.loads(manifest.read_text())["tables"])


@pytest.fixture(scope="session")
def niuniu_tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tables directory holding the Niu Niu table: the repository's committed one."""
    if "niuniu" in _committed_games():
        return REPO_TABLES
    from solver.build import build

    out = tmp_path_factory.mktemp("niuniu_tables")
    build(["niuniu"], tables=out)
    return out
