"""A Spark driver for the kill -9 test: queue -> parquet, small batches, until killed."""

from __future__ import annotations

import sys

from pyspark.sql import SparkSession

import mqjms.spark

url, out, checkpoint, available_now = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
spark = (
    SparkSession.builder.master("local[2]")
    .config("spark.ui.enabled", "false")
    .config("spark.sql.shuffle.partitions", "2")
    .getOrCreate()
)
spark.sparkContext.setLogLevel("ERROR")
mqjms.spark.register(spark)
df = (
    spark.readStream.format("mqjms")
    .option("url", url)
    .option("queue", "ORDERS.IN")
    .option("maxMessagesPerBatch", 40)
    .load()
)
writer = (
    df.select("msg_id", "text")
    .writeStream.format("parquet")
    .option("path", out)
    .option("checkpointLocation", checkpoint)
)
writer = (
    writer.trigger(availableNow=True)
    if available_now
    else writer.trigger(processingTime="0 seconds")
)
writer.start().awaitTermination()
