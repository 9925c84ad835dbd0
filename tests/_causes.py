"""Shared by the games' cause tests: ``bull verify GAME FILE --json`` as a person runs
it, and the check that a written implementation's cause is named first."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from solver.cli import main


def verify_json(game: str, *args: str) -> tuple[int, dict[str, Any]]:
    """Exit code and ``--json`` summary of ``bull verify GAME ARGS``."""
    out, err = io.StringIO(), io.StringIO()
    code = main(["verify", game, *args, "--json"], out=out, err=err)
    assert code in (0, 1), err.getvalue()
    return code, json.loads(out.getvalue())


def assert_named_first(
    game: str, path: Path, tables: Path, preset: str, key: str, wrong: int, tmp: Path
) -> None:
    """The cause ``key`` heads the diagnosis, explaining all ``wrong`` disagreements and
    contradicting none; a rule option is inferred, and verifying again under the
    inferred rule file leaves no disagreement."""
    is_rule = not key.startswith("mistake=")
    extra = ["--infer", "--infer-out", str(tmp / "r.toml")] if is_rule else []
    code, s = verify_json(game, str(path), "--tables", str(tables), "--rules", preset, *extra)
    assert code == 1 and s["disagree"] == wrong, s["headline"]
    head = s["diagnosis"][0]
    got = (head["id"], head["contradicts"], head["explains"])
    assert got == (key, 0, wrong), s["diagnosis"][:3]
    assert s["headline"].startswith(f"all {wrong} disagreement"), s["headline"]
    if is_rule:
        assert s["inferred"]["steps"][0]["id"] == key
        assert s["inferred"]["disagree_after"] == 0
        again = ["--tables", str(tables), "--rules", str(tmp / "r.toml")]
        code, s2 = verify_json(game, str(path), *again)
        assert code == 0 and s2["disagree"] == 0, s2["headline"]
