"""A Spark driver for the sink's kill -9 test: queue -> mqjms sink, small batches.

The first run kills itself (driver, JVM and Python workers) in batch 1, once partition 0
of that batch has committed into the sink; the second run replays batch 1 and drains.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from pyspark.sql import SparkSession
from pyspark.sql.functions import col, udf

import mqjms.spark
from tests.spark.sink_gate import gate

url, base = sys.argv[1], Path(sys.argv[2])
spark = (
    SparkSession.builder.master("local[2]")
    .config("spark.ui.enabled", "false")
    .config("spark.sql.shuffle.partitions", "2")
    .getOrCreate()
)
spark.sparkContext.setLogLevel("ERROR")
mqjms.spark.register(spark)
through = udf(gate(url, "ORDERS.COPY", 1, 15, base / "failed", kill=os.getpgrp()))
query = (
    spark.readStream.format("mqjms")
    .option("url", url)
    .option("queue", "ORDERS.IN")
    .option("maxMessagesPerBatch", 10)
    .load()
    .select("msg_id", through(col("text")).alias("text"))
    .writeStream.format("mqjms")
    .option("url", url)
    .option("queue", "ORDERS.COPY")
    .option("checkpointLocation", str(base / "ck"))
    .trigger(availableNow=True)
    .start()
)
query.awaitTermination()
spark.stop()
