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


STYLES = {  # (BOM, line end)
    "bom+cr": (b"\xef\xbb\xbf", b"\r"),
    "bom+crlf": (b"\xef\xbb\xbf", b"\r\n"),
    "bom": (b"\xef\xbb\xbf", b"\n"),
    "cr": (b"", b"\r"),
    "crlf": (b"", b"\r\n"),
    "lf": (b"", b"\n"),
}


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_spark_reads_every_line_end_and_a_bom_as_the_lf_log(tmp_path: Path, fmt: str) -> None:
    """One small log written in six styles (CR-only, CRLF, LF, each with and without a
    UTF-8 BOM) is audited by Spark exactly as DuckDB audits six LF copies of it (issue 24).
    One Spark job reads all six (a round is per file), so a style Spark misread (a CR-only
    log as one line, a BOM glued to the first column or record) changes the result; the
    header a CSV's columns are named from is read with a BOM on its own."""
    pytest.importorskip("pyspark", reason="pyspark is not installed (pip install '.[spark]')")
    from solver.audit.spark_engine import spark_columns

    base = tmp_path / f"base.{fmt}"
    deal("niuniu", 40, players=3, seed=7, out=str(base), bias={"errors": 0.05})
    text = base.read_bytes().replace(b"\r\n", b"\n")
    assert text.count(b"\r") == 0 and text.count(b"\n") == 160 + (fmt == "csv")
    styled, copies = [], []
    for style, (bom, end) in STYLES.items():
        path = tmp_path / style / f"log.{fmt}"
        copy = tmp_path / f"lf-{style}" / f"log.{fmt}"
        for p, raw in ((path, bom + text.replace(b"\n", end)), (copy, text)):
            p.parent.mkdir()
            p.write_bytes(raw)
        styled.append(str(path))
        copies.append(str(copy))
    lf = cli_audit("niuniu", copies)
    spark = cli_audit("niuniu", styled, engine="spark")
    for res in (lf, spark):
        res.pop("seconds")
        res.pop("engine")
    assert lf["rows"] == 6 * 160 and lf["rounds"] == 6 * 40 and lf["malformed"] == 0
    assert lf["settlement_check"]["disagree"] > 0  # the planted errors are found in each
    assert spark == lf
    if fmt == "csv":  # the header's first column named without the BOM
        names = text.split(b"\n", 1)[0].decode().replace('"', "").split(",")
        assert names[:3] == ["round", "seat", "role"]
        assert spark_columns(styled[:1], fmt) == names


def test_java_options_reach_both_jvms(monkeypatch: pytest.MonkeyPatch) -> None:
    """``$BULL_SPARK_JAVA_OPTIONS`` is added to the driver's and the executors' JVM
    options, after the logging switch (a builder that records what it is given)."""
    from solver.audit import spark_engine

    class Builder:
        def __init__(self) -> None:
            self.conf: dict[str, str] = {}

        def master(self, _: str) -> Builder:
            return self

        appName = master

        def config(self, key: str, value: str) -> Builder:
            self.conf[key] = value
            return self

        def getOrCreate(self) -> dict[str, str]:
            return self.conf

    class Session:
        builder = Builder()  # pyspark's SparkSession.builder: one, reused

    monkeypatch.setenv("BULL_SPARK_JAVA_OPTIONS", " -Xss4m  -XX:TieredStopAtLevel=1 ")
    conf = spark_engine._build(Session, "local[1]", "-Dquiet")
    for side in ("driver", "executor"):
        assert conf[f"spark.{side}.extraJavaOptions"] == "-Dquiet -Xss4m -XX:TieredStopAtLevel=1"
    monkeypatch.delenv("BULL_SPARK_JAVA_OPTIONS")
    assert spark_engine._build(Session, "local[1]", "-Dquiet")["spark.driver.extraJavaOptions"] == (
        "-Dquiet"
    )
