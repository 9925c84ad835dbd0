"""The README's DuckDB and Polars examples run as written and give RULES.md §6 counts."""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text()

NIUNIU_POINTS = [
    872_128,
    171_304,
    168_096,
    171_304,
    168_096,
    177_424,
    168_096,
    171_304,
    168_096,
    171_304,
    191_808,
]
PAGAT = [10_660, 12_226, 11_916, 14_168, 13_230, 13_864, 16_444, 17_840, 18_220, 17_298]


def block(lang: str, containing: str = "") -> str:
    for m in re.finditer(rf"```{lang}\n(.*?)```", README, re.S):
        if containing in m.group(1):
            return m.group(1)
    raise AssertionError(f"README has no {lang} block with {containing!r}")


@pytest.fixture()
def in_repo():  # type: ignore[no-untyped-def]
    if not (REPO / "tables" / "taungau.parquet").exists():
        pytest.skip("committed tables are absent")
    old = os.getcwd()
    os.chdir(REPO)
    yield
    os.chdir(old)


def test_duckdb_example(in_repo) -> None:  # type: ignore[no-untyped-def]
    duckdb = pytest.importorskip("duckdb")
    rows = duckdb.sql(block("sql")).fetchall()
    assert [r[0] for r in rows] == list(range(11))
    assert [r[1] for r in rows] == NIUNIU_POINTS
    assert abs(sum(r[2] for r in rows) - 1) < 1e-12


def test_polars_example(in_repo) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("polars")
    out = io.StringIO()
    scope: dict[str, object] = {}
    with contextlib.redirect_stdout(out):
        exec(block("python", "import polars"), scope)
    niuniu = scope["niuniu"].group_by("points").len().sort("points")  # type: ignore[attr-defined]
    assert niuniu["len"].to_list() == NIUNIU_POINTS
    pagat = (
        scope["taungau"]
        .group_by("pagat_points")
        .len()
        .sort(  # type: ignore[attr-defined]
            "pagat_points"
        )
    )
    assert pagat["pagat_points"].to_list() == [*range(10), 255]
    assert pagat["len"].to_list() == [*PAGAT, 55_510]
    assert "191808" in out.getvalue()


def test_tables_readme_documents_every_column() -> None:
    import pyarrow.parquet as pq

    doc = (REPO / "tables" / "README.md").read_text()
    missing = []
    for path in sorted((REPO / "tables").glob("*.parquet")):
        for name in pq.ParquetFile(path).schema_arrow.names:
            generic = re.sub(
                r"^(standard|straights_low|straights_high|straights)_", "<config>_", name
            )
            generic = re.sub(r"^macau_banker_\d+$", "macau_banker_0", generic)
            if f"`{name}`" not in doc and f"`{generic}`" not in doc:
                missing.append(f"{path.name}:{name}")
    if not list((REPO / "tables").glob("*.parquet")):
        pytest.skip("committed tables are absent")
    assert missing == []
