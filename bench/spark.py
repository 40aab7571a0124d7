"""Spark: the mqjms source into a noop sink vs a plain get loop of the same queue, and
listeners on Spark vs a Worker. Prints rates and ratios (CI prints, never gates).

    python3 bench/spark.py [--quick]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from mqjms.mq import constants as C
from mqjms.mq.md import MQMD
from mqjms.transport import connect, embedded

sys.path.insert(0, str(Path(__file__).resolve().parent))


def fill(url: str, queue: str, count: int) -> None:
    conn = connect(url)
    md = MQMD(Format=C.MQFMT_STRING)
    for i in range(count):
        conn.put(queue, md, f"order {i}".encode(), syncpoint=True)
        if i % 1000 == 999:
            conn.commit()
    conn.commit()
    conn.disconnect()


def plain_reader(url: str, queue: str, count: int) -> float:
    """The minimal reader: destructive gets under syncpoint, a commit per 10,000."""
    conn = connect(url)
    handle = conn.open(queue, C.MQOO_INPUT_SHARED)
    start = time.perf_counter()
    got = 0
    while got < count and conn.get(handle, syncpoint=True) is not None:
        got += 1
        if got % 10_000 == 0:
            conn.commit()
    conn.commit()
    conn.disconnect()
    return got / (time.perf_counter() - start)


def spark_source(spark: object, url: str, queue: str, base: Path) -> float:
    df = (
        spark.readStream.format("mqjms")
        .option("url", url)
        .option("queue", queue)  # type: ignore[attr-defined]
        .option("maxMessagesPerBatch", 10_000)
        .option("numPartitions", 2)
        .load()
    )
    query = (
        df.writeStream.format("noop")
        .option("checkpointLocation", str(base / "ck"))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination()
    steady = [p for p in query.recentProgress if p["numInputRows"]][1:] or query.recentProgress
    rows = sum(p["numInputRows"] for p in steady)
    seconds = sum(p["durationMs"]["triggerExecution"] for p in steady) / 1000
    return rows / seconds if seconds else 0.0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    count = 40_000 if args.quick else 100_000
    base = Path(tempfile.mkdtemp(prefix="mqjms-bench-spark-"))
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        print("spark: pyspark not installed, skipped")
        return
    import mqjms.spark

    url = f"embedded://{base / 'qm'}"
    qm = embedded.queue_manager(url)
    qm.define_queue("QLOCAL", "BENCH.IN")
    spark = (
        SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false").getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    mqjms.spark.register(spark)
    try:
        fill(url, "BENCH.IN", count)
        baseline = plain_reader(url, "BENCH.IN", count)
        fill(url, "BENCH.IN", count)
        source = spark_source(spark, url, "BENCH.IN", base)
        print(f"spark source (noop sink, local[2], steady state): {source:,.0f} rows/s")
        print(f"plain get loop of the same queue:                 {baseline:,.0f} rows/s")
        print(f"ratio source/plain: {source / baseline:.2f}x (target >= 0.8x, >= 30k rows/s)")
    finally:
        spark.stop()
        embedded.close_all()
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
