"""``bull probe`` against implementations written in the tests (:mod:`_peers`), run as
real child processes: the report names the cause, the faults of a broken peer are
reported in a line and never break the probe."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from _peers import peer

from solver.cli import main


def probe(tmp: Path, *args: str, cmd: list[str]) -> tuple[int, dict[str, Any], str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["probe", *args, "--json", "--", *cmd], out=out, err=err)
    text = out.getvalue()
    assert "Traceback" not in text + err.getvalue()
    return code, (json.loads(text) if text.strip() else {}), err.getvalue()


def test_faithful_peer_agrees(tmp_path: Path) -> None:
    code, rep, _ = probe(tmp_path, "niuniu", "--budget", "300", cmd=peer(tmp_path))
    assert code == 0, rep
    assert rep["disagree"] == 0 and rep["checked"] == rep["answered"] > 7_000
    assert rep["fields"]["points"]["agree"] > 7_000
    assert set(rep["phases"]) >= {"cover", "discriminate", "confirm"}
    assert rep["queries"] == sum(p["questions"] for p in rep["phases"].values())
    assert rep["crashes"] == rep["timeouts"] == 0
    assert rep["coverage"]["exhaustive"] is False and rep["coverage"]["hands"] == 300


def test_planted_mistake_is_named_first(tmp_path: Path) -> None:
    code, rep, _ = probe(tmp_path, "niuniu", "--budget", "200", cmd=peer(tmp_path, skip_first=True))
    assert code == 1
    first = rep["diagnosis"][0]
    assert first["id"] == "mistake=bull_skips_first"
    assert first["contradicts"] == 0 and first["explains"] == rep["disagree"] > 0


def test_uncatalogued_fault_gets_the_pattern(tmp_path: Path) -> None:
    code, rep, _ = probe(tmp_path, "niuniu", "--budget", "100", cmd=peer(tmp_path, face_11=True))
    assert code == 1
    assert rep["disagree"] > 0
    assert not any(
        d["explains"] == rep["disagree"] and d["contradicts"] == 0
        for d in rep["diagnosis"]
        if d["kind"] != "pattern"
    )
