"""Report on a backout queue with Spark, and redrive what deserves another try.

    python examples/spark/backout_report.py --url embedded:///var/lib/orders \
        --queue ORDERS.BACKOUT [--redrive-exception builtins.TimeoutError]

The batch read browses (never removes). Redrive = write the chosen messages back to the
queue they failed on (``failure_queue``, or the MQDLH's ``original_queue``), then remove
exactly those from the backout queue, by MsgId, once the write has succeeded.
"""

from __future__ import annotations

import argparse
from typing import Any

import mqjms.spark
from mqjms.mq import constants as C
from mqjms.transport import connect


def report(spark: Any, url: str, queue: str) -> Any:
    df = spark.read.format("mqjms").option("url", url).option("queue", queue).load()
    df.groupBy("failure_exception", "dlh_reason_name", "failure_queue").count().show(truncate=False)
    return df


def redrive(spark: Any, url: str, queue: str, exception_type: str) -> int:
    """Put the messages that failed with ``exception_type`` back on their queue; then
    remove them from ``queue``. Returns how many."""
    df = spark.read.format("mqjms").option("url", url).option("queue", queue).load()
    chosen = df.filter(df.failure_exception == exception_type).selectExpr(
        "msg_id",
        "body",
        "text",
        "correl_id",
        "properties",
        "priority",
        "coalesce(failure_queue, original_queue) AS queue",
    )
    ids = [bytes.fromhex(r.msg_id) for r in chosen.select("msg_id").collect()]
    if not ids:
        return 0
    chosen.write.format("mqjms").option("url", url).option("sinkId", "redrive").mode(
        "append"
    ).save()
    conn = connect(url, "mqjms-redrive")
    try:
        handle = conn.open(queue, C.MQOO_INPUT_SHARED)
        for msg_id in ids:
            conn.get(handle, msg_id=msg_id, syncpoint=True)
        conn.commit()
    finally:
        conn.disconnect()
    return len(ids)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="embedded:///")
    parser.add_argument("--queue", default="ORDERS.BACKOUT")
    parser.add_argument("--redrive-exception")
    args = parser.parse_args()
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.master("local[2]").getOrCreate()
    mqjms.spark.register(spark)
    report(spark, args.url, args.queue)
    if args.redrive_exception:
        print("redriven:", redrive(spark, args.url, args.queue, args.redrive_exception))


if __name__ == "__main__":
    main()
