"""Queries on one queue: each needs its own consumer; a second query as the same
consumer is refused by name instead of sharing the first one's staged messages."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.spark.spark_support import Queues


def _stream(spark: Any, queues: Queues, out: list[str], ck: Path, consumer: str | None) -> Any:
    reader = (
        spark.readStream.format("mqjms")
        .option("url", queues.url)
        .option("queue", "ORDERS.IN")
        .option("maxMessagesPerBatch", 5)
    )
    if consumer is not None:
        reader = reader.option("consumer", consumer)
    return (
        reader.load()
        .writeStream.foreachBatch(lambda frame, _id: out.extend(r.text for r in frame.collect()))
        .option("checkpointLocation", str(ck))
        .trigger(processingTime="200 milliseconds")
        .start()
    )


def _until(condition: Any, limit: float = 120.0) -> None:
    deadline = time.monotonic() + limit
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.2)


def test_a_second_query_as_the_same_consumer_is_refused(spark: Any, tmp_path: Path) -> None:
    from pyspark.errors import StreamingQueryException

    queues = Queues("embedded", tmp_path)
    queues.define("ORDERS.IN", BOTHRESH=3, BOQNAME="ORDERS.BACKOUT")
    queues.define("ORDERS.BACKOUT")
    texts = [f"order {i}" for i in range(40)]
    first: list[str] = []
    second: list[str] = []
    one = _stream(spark, queues, first, tmp_path / "ck1", None)
    try:
        _until(lambda: one.lastProgress is not None)  # its runner is up
        two = _stream(spark, queues, second, tmp_path / "ck2", None)  # the same default
        queues.put_text("ORDERS.IN", *texts)
        with pytest.raises(StreamingQueryException) as failure:
            two.awaitTermination(120)
        message = str(failure.value)
        assert "MQRC_OBJECT_IN_USE" in message and "'spark:ORDERS.IN'" in message
        assert '.option("consumer"' in message
        _until(lambda: len(first) >= len(texts))
    finally:
        one.stop()
    # before, both read the shared staging: 15 of 40 delivered twice, and the batches
    # each left uncommitted counted as failures of the other (BackoutCount + 1)
    assert second == []
    assert sorted(first) == sorted(texts)
    assert queues.browse("ORDERS.BACKOUT") == []
    queues.close()


def test_two_queries_with_their_own_consumers_share_the_queue(spark: Any, tmp_path: Path) -> None:
    queues = Queues("embedded", tmp_path)
    queues.define("ORDERS.IN")
    texts = [f"order {i}" for i in range(40)]
    outs: tuple[list[str], list[str]] = ([], [])
    one = _stream(spark, queues, outs[0], tmp_path / "ck1", "billing")
    two = _stream(spark, queues, outs[1], tmp_path / "ck2", "shipping")
    try:
        queues.put_text("ORDERS.IN", *texts)
        _until(lambda: len(outs[0]) + len(outs[1]) >= len(texts))
        assert one.exception() is None and two.exception() is None
    finally:
        one.stop()
        two.stop()
    assert sorted(outs[0] + outs[1]) == sorted(texts)  # each once, by one of them
    queues.close()
