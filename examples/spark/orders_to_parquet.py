"""Orders from a queue to Parquet on Spark, with poison isolation.

    python examples/spark/orders_to_parquet.py --url embedded:///var/lib/orders \
        --out /data/orders --checkpoint /data/orders-ck [--available-now]

A message whose JSON does not parse fails its micro-batch: the query is restarted, the
source splits the batch until the message is alone, and after BOTHRESH failures moves it to
BOQNAME (seed 002: RFH2 added, MQMD reset, why it failed in ``mqjms_failure_*``). The good
orders behind it keep flowing; each lands in Parquet exactly once.
"""

from __future__ import annotations

import argparse

from pyspark.errors import StreamingQueryException
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import mqjms.spark

ORDER = "id INT, sku STRING, quantity INT"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="embedded:///")
    parser.add_argument("--queue", default="ORDERS.IN")
    parser.add_argument("--out", required=True)
    parser.add_argument("--checkpoint", required=True)
    parser.add_argument("--available-now", action="store_true")
    args = parser.parse_args()

    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.sql.ansi.enabled", "true")  # a bad order fails, not a null row
        .getOrCreate()
    )
    mqjms.spark.register(spark)
    while True:  # the supervisor: a failed batch restarts the query, which isolates it
        orders = (
            spark.readStream.format("mqjms")
            .option("url", args.url)
            .option("queue", args.queue)
            .option("staging", args.checkpoint + "/staging")
            .option("maxMessagesPerBatch", 10_000)
            .load()
            .select(
                "msg_id",
                "put_time",
                F.from_json("text", ORDER, {"mode": "FAILFAST"}).alias("order"),
            )
            .select("msg_id", "put_time", "order.*")
        )
        writer = (
            orders.writeStream.format("parquet")
            .option("path", args.out)
            .option("checkpointLocation", args.checkpoint + "/query")
        )
        writer = writer.trigger(availableNow=True) if args.available_now else writer
        query = writer.start()
        try:
            query.awaitTermination()
            return
        except StreamingQueryException as exc:
            print("batch failed, restarting:", str(exc).splitlines()[0][:200])


if __name__ == "__main__":
    main()
