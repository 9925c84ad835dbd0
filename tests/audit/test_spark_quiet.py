"""``--engine spark`` prints one line on bad input (issue 24): the JVM's start-up lines,
Spark's logging, progress bars and a truncated Parquet file's Java stack trace (90
lines) are kept off the terminal; the error comes back as one line from us."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from solver.audit.deal import deal

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_a_truncated_parquet_log_on_spark_is_one_line(tmp_path: Path) -> None:
    pytest.importorskip("pyspark", reason="pyspark is not installed (pip install '.[spark]')")
    if shutil.which("java") is None:
        pytest.skip("Spark needs Java")
    whole = tmp_path / "log.parquet"
    deal("niuniu", 200, players=2, seed=1, out=str(whole), hand_format="ids")
    cut = tmp_path / "cut.parquet"
    cut.write_bytes(whole.read_bytes()[:1500])
    run = subprocess.run(
        [sys.executable, "-m", "solver", "audit", "niuniu", str(cut), "--engine", "spark"],
        cwd=REPO, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert run.returncode == 2, run.stderr
    assert run.stdout == ""
    assert run.stderr.count("\n") == 1, run.stderr
    assert run.stderr.startswith("bull: error: cannot read the logs as parquet: ")
    assert "cut.parquet" in run.stderr and "\tat " not in run.stderr
