"""Which tables the tests read: the repository's committed ones (what users get; a slow
test proves a fresh build reproduces them), or a fresh build into a temporary directory
when this checkout has none."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

REPO_TABLES = Path(__file__).resolve().parent.parent / "tables"
_BUILT: dict[str, Path] = {}


def committed_tables() -> set[str]:
    manifest = REPO_TABLES / "MANIFEST.json"
    if not manifest.exists():
        return set()
    return set(json.loads(manifest.read_text())["tables"])


def tables_for(game: str, factory: Any) -> Path:
    """A tables directory holding ``game``'s tables."""
    from solver import games

    wanted = set(games.get(game).tables)
    if wanted <= committed_tables():
        return REPO_TABLES
    if game not in _BUILT:
        from solver.build import build

        out = factory.mktemp(f"{game}_tables")
        build([game], tables=out)
        _BUILT[game] = out
    return _BUILT[game]
