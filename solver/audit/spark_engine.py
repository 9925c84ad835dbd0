"""The cluster audit engine: the same audit as a PySpark job.

The logs are read by Spark (Parquet, CSV, JSON Lines), the mapped columns renamed to
the logical fields, repartitioned by round and sorted within partitions (so a round's
rows are together), and each partition's Arrow batches go through the very same
:class:`~solver.audit.batch.Auditor` via ``mapInArrow``. The game's lookup tables
(the audit spec's ``arrays``) are broadcast explicitly with ``SparkContext.broadcast``;
each partition returns its :class:`~solver.audit.batch.Partial` (pickled), and the
driver adds them up — integer counts, so the result is identical to DuckDB's.

``pip install 'bull-solver[spark]'`` adds pyspark; Spark needs Java 17. Without a
running session the engine starts one on ``$BULL_SPARK_MASTER`` (default
``local[2]``); under ``spark-submit`` the submitted session is used.
``$BULL_SPARK_JAVA_OPTIONS`` adds options to the JVMs it starts (the test suite's
``-XX:TieredStopAtLevel=1`` halves a small job's start-up CPU; on millions of rows the
default compilers are faster), ``$BULL_SPARK_DRIVER_MEMORY`` sets the driver's memory
(default 2g). Run on a cluster:
``spark-submit --master yarn $(python -c 'import solver.audit.spark_engine as m;
print(m.__file__)') niuniu s3://bucket/logs/ --json`` (this module is a script that
runs ``bull audit --engine spark``).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import re
import warnings
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pyarrow as pa

from solver.audit.batch import Auditor, Partial
from solver.audit.spec import AuditSpec, load_spec
from solver.core.errors import BullError, first_line

__all__ = ["run_spark", "session", "spark_columns", "spark_message"]

BATCH_ROWS = 262_144


def _pyspark() -> Any:
    try:
        import pyspark
    except ImportError:
        raise BullError(
            "--engine spark needs pyspark: pip install 'bull-solver[spark]' (and Java 17)"
        ) from None
    return pyspark


def session() -> Any:
    """The active Spark session, or a new local one (``$BULL_SPARK_MASTER``)."""
    _pyspark()
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    master = os.environ.get("BULL_SPARK_MASTER", "local[2]")
    import sys

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # workers: this interpreter
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    quiet = f"-Dlog4j2.configurationFile=file:{_log4j_file()}"
    warnings.filterwarnings("ignore", category=FutureWarning, module=r"pyspark\..*")
    with _quiet_stderr():  # the JVM inherits it: its start-up lines and logs go nowhere
        spark = _build(SparkSession, master, quiet)
    spark.sparkContext.setLogLevel("OFF")  # errors reach the user as one line, from us
    return spark


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """File descriptor 2 on /dev/null while the JVM starts (it keeps it; Python's own
    ``sys.stderr`` is back afterwards)."""
    import sys

    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no real stderr (a notebook): nothing to quiet
        yield
        return
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _build(SparkSession: Any, master: str, quiet: str) -> Any:
    java = " ".join([quiet, *os.environ.get("BULL_SPARK_JAVA_OPTIONS", "").split()])
    return (
        SparkSession.builder.master(master)
        .appName("bull-audit")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", str(BATCH_ROWS))
        .config("spark.sql.shuffle.partitions", "8")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")  # no progress bars on stderr
        .config("spark.driver.extraJavaOptions", java)
        .config("spark.executor.extraJavaOptions", java)
        .config("spark.driver.memory", os.environ.get("BULL_SPARK_DRIVER_MEMORY", "2g"))
        .getOrCreate()
    )


LOG4J = """\
# bull audit --engine spark: Spark's own logging off (errors come back as one line)
rootLogger.level = off
rootLogger.appenderRef.console.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %m%n
"""


def _log4j_file() -> str:
    """A log4j2 configuration that turns the JVM's logging off (start-up lines, task
    failures' stack traces), written once per user in the temporary folder."""
    import tempfile

    path = os.path.join(tempfile.gettempdir(), f"bull-spark-log4j2-{os.getuid()}.properties")
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == LOG4J:
                return path
    except OSError:
        pass
    tmp = f"{path}.{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(LOG4J)
    os.replace(tmp, path)
    return path


_JAVA = re.compile(r"^:?\s*(?:[\w$]+\.)+[\w$]*(?:Exception|Error):\s*(.+)$")


def spark_message(exc: BaseException) -> str:
    """One line from a Py4J / Spark error: our own error raised in a worker, else the
    Java exception's message (its first sentences; no stack trace).

    >>> spark_message(Exception("An error occurred while calling o40.parquet.\\n: "
    ...     "org.apache.spark.SparkException: [X] Bad file f. Could not read footer. "
    ...     "Please ensure it is Parquet.\\n\\tat org.apache.Foo(Foo.scala:1)"))
    '[X] Bad file f. Could not read footer.'
    """
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    for ln in lines:
        if "BullError: " in ln:
            return ln.split("BullError: ", 1)[1][:300]
    for ln in lines:
        m = _JAVA.match(ln)
        if m:
            msg = m.group(1).split(" Please ", 1)[0].split(" SQLSTATE", 1)[0]
            return msg.strip()[:300]
    for ln in lines:
        if "Error:" in ln:
            return ln[:300]
    return first_line(exc)[:300]


def _read(spark: Any, files: Sequence[str], fmt: str) -> Any:
    try:
        if fmt == "parquet":
            return spark.read.parquet(*files)
        if fmt == "csv":
            return (
                spark.read.option("header", "true").option("inferSchema", "true").csv(list(files))
            )
        return spark.read.json(list(files))
    except Exception as exc:  # Spark's own error types
        raise BullError(f"cannot read the logs as {fmt}: {spark_message(exc)}") from None


def spark_columns(files: Sequence[str], fmt: str) -> list[str]:
    """The column names Spark reads from the logs."""
    return list(_read(session(), files, fmt).columns)


def _partition_worker(payload: Any, by: Sequence[str]) -> Any:
    """The ``mapInArrow`` function: one partition's batches → one pickled Partial."""

    def work(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        info = payload.value
        spec = load_spec(
            info["game"], info["rules"], info["options"], info["tables"], arrays=info["arrays"]
        )
        auditor = Auditor(spec, by, files=info.get("files"))
        for b in batches:
            auditor.feed(b)
        part = auditor.finish()
        yield pa.RecordBatch.from_pydict({"partial": [pickle.dumps(part)]})

    return work


def run_spark(
    spec: AuditSpec,
    files: Sequence[str],
    fmt: str,
    columns: Mapping[str, str],
    by: Sequence[str],
    *,
    rules: str | None,
    options: Mapping[str, Any],
    tables: str | None,
    partitions: int | None = None,
    per_file: bool = False,
    scope: Sequence[str] = (),
) -> Partial:
    """Audit the logs with Spark (see the module docstring). ``per_file``: a round is
    identified by its file and its id; ``scope``: by these columns and its id."""
    spark = session()
    from pyspark.sql import functions as F

    df = _read(spark, files, fmt)
    items = [F.col(f"`{col}`").alias(key) for key, col in columns.items()]
    keys = ["round"]
    if per_file:
        items.append(F.input_file_name().alias("scope"))
    elif scope:
        parts = [F.coalesce(F.col(f"`{c}`").cast("string"), F.lit("")) for c in scope]
        items.append(F.concat_ws("|", *parts).alias("scope"))
    if per_file or scope:
        keys = ["scope", "round"]
    # the order the rows were read in breaks ties: a round's rows stay in written order
    items.append(F.monotonically_increasing_id().alias("#row"))
    df = df.select(*items)
    n = partitions or max(1, spark.sparkContext.defaultParallelism)
    df = df.repartition(n, *keys).sortWithinPartitions(*keys, "#row").drop("#row")
    payload = spark.sparkContext.broadcast(
        {
            "game": spec.game,
            "rules": rules,
            "options": dict(options),
            "tables": tables,
            "arrays": dict(spec.arrays),
            "files": list(files) if per_file else None,
        }
    )
    try:
        rows = df.mapInArrow(_partition_worker(payload, list(by)), "partial binary").collect()
    except Exception as exc:  # a Py4J / Spark error: one line
        raise BullError(f"the Spark job failed: {spark_message(exc)}") from None
    finally:
        payload.unpersist()
    total = Partial()
    for r in rows:
        total.merge(pickle.loads(r["partial"]))
    return total


if __name__ == "__main__":  # pragma: no cover - run by spark-submit
    import sys

    from solver.cli import main

    sys.exit(main(["audit", *sys.argv[1:], "--engine", "spark"]))
