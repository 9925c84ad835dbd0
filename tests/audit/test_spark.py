"""DuckDB and Spark give one audit: the same logs through both engines, field for field.

Every Spark test lives here: one file runs on one test worker, so the suite starts one
JVM and one set of Spark's Python workers for all of them (the start-up is most of
their time)."""

from __future__ import annotations

from pathlib import Path

import pytest

from solver.audit.command import cli_audit
from solver.audit.deal import deal


@pytest.mark.slow
def test_duckdb_and_spark_agree(tmp_path: Path) -> None:
    pytest.importorskip("pyspark", reason="pyspark is not installed (pip install '.[spark]')")
    path = str(tmp_path / "log.parquet")
    opts = {"bet": "double"}  # the net test: eight amounts
    deal("niuniu", 3000, players=4, seed=21, out=path, bias={"errors": 0.01, "banker_edge": 0.05},
         options=opts)  # fmt: skip
    duck = cli_audit("niuniu", [path], by=["table"], options=opts)
    spark = cli_audit("niuniu", [path], by=["table"], engine="spark", options=opts)
    for res in (duck, spark):
        res.pop("seconds")
        res.pop("engine")
    assert duck == spark
    assert duck["settlement_check"]["disagree"] > 0
    assert sum(t["name"] == "net" for t in duck["fairness"]) == 5  # all, 4 tables
    # Pok Deng under a stated strategy (outcome and net), and from an 8-deck shoe
    for rules, opts in (
        (None, {"player_strategy": "mirror"}),
        ("shoe8", {"player_strategy": "optimal"}),
    ):
        path = str(tmp_path / f"pokdeng-{rules}.parquet")
        deal("pokdeng", 1500, players=3, seed=22, out=path, rules=rules, options=opts)
        duck = cli_audit("pokdeng", [path], rules=rules, by=["table"], options=opts)
        spark = cli_audit("pokdeng", [path], rules=rules, by=["table"], engine="spark",
                          options=opts)  # fmt: skip
        for res in (duck, spark):
            res.pop("seconds")
            res.pop("engine")
        assert duck == spark
        assert any(t["name"] == "net" for t in duck["fairness"])


@pytest.mark.slow
def test_duckdb_and_spark_agree_on_logs_numbered_from_1_each(tmp_path: Path) -> None:
    pytest.importorskip("pyspark", reason="pyspark is not installed (pip install '.[spark]')")
    a, b = str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet")
    deal("niuniu", 300, players=3, seed=1, out=a)
    deal("niuniu", 200, players=3, seed=2, out=b, bias={"errors": 0.05})
    for key in ((), ["table,round"]):
        duck = cli_audit("niuniu", [a, b], round_key=key)
        spark = cli_audit("niuniu", [a, b], round_key=key, engine="spark")
        for res in (duck, spark):
            res.pop("seconds")
            res.pop("engine")
        assert duck == spark, key
