"""Poison isolation: the batch that fails is split until the poison is alone, then moved
to BOQNAME with seed 002's rewrite; the good messages are delivered once; no stall."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from mqjms.mq import constants as C
from mqjms.mq import jms, rfh2
from tests.spark.spark_support import Queues


def finished(query: Any) -> bool:
    """Wait for an AvailableNow query; False when a batch failed."""
    from pyspark.errors import StreamingQueryException

    try:
        query.awaitTermination(300)
    except StreamingQueryException:
        return False
    return query.exception() is None


TRANSPORTS = ["embedded", pytest.param("stomp", marks=pytest.mark.stomp)]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_poison_is_isolated_and_moved(spark: Any, tmp_path: Path, transport: str) -> None:
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType

    queues = Queues(transport, tmp_path)
    queues.define("ORDERS.IN", BOTHRESH=3, BOQNAME="ORDERS.BACKOUT")
    queues.define("ORDERS.BACKOUT")
    texts = [f"order {i}" for i in range(20)]
    texts[5] = "POISON"
    ids = queues.put_text("ORDERS.IN", *texts)

    def check(text: str | None) -> str | None:
        if text == "POISON":
            raise ValueError("cannot process POISON")
        return text

    checked = F.udf(check, StringType())
    restarts = 0
    while True:  # the supervisor a pipeline has: restart the query after a failure
        df = (
            spark.readStream.format("mqjms")
            .option("url", queues.url)
            .option("queue", "ORDERS.IN")
            .option("staging", str(tmp_path / "staging"))
            .option("maxMessagesPerBatch", 8)
            .load()
        )
        query = (
            df.select("msg_id", checked("text").alias("text"))
            .writeStream.format("parquet")
            .option("path", str(tmp_path / "out"))
            .option("checkpointLocation", str(tmp_path / "ck"))
            .trigger(availableNow=True)
            .start()
        )
        if finished(query):
            break
        restarts += 1
        assert restarts < 15, "the stream stalled on the poison message"
    # seed 002: moved once BackoutCount reached BOTHRESH 3: the failed batch of 8 was
    # first replayed unchanged (a failure may be a crash, not the data's fault), then
    # counted 1, two failures alone 2 and 3; the splits of the suspects (8 -> 4 -> 2 -> 1)
    # count nothing, so no innocent neighbour was pushed towards BOTHRESH
    assert restarts == 6
    out = spark.read.parquet(str(tmp_path / "out"))
    assert out.count() == 19 and out.select("msg_id").distinct().count() == 19
    assert ids[5].hex() not in {r.msg_id for r in out.collect()}
    moved = queues.drain("ORDERS.BACKOUT")
    assert len(moved) == 1
    md, data = moved[0]
    # seed 002: moved with an RFH2 added, MQMD reset (BackoutCount 0, MQHRF2, 1208, 273)
    assert md.MsgId == ids[5] and md.BackoutCount == 0
    assert rfh2.is_rfh2(md.Format) and md.CodedCharSetId == 1208 and md.Encoding == 273
    chain = rfh2.parse_chain(data, md.Encoding, md.CodedCharSetId, md.Format)
    assert chain.body == b"POISON" and chain.Format == C.MQFMT_STRING
    _, props = jms.parse_jms_folders(chain.folders)
    assert props["mqjms_failure_exception"] == "mqjms.spark.BatchFailed"
    assert props["mqjms_failure_queue"] == "ORDERS.IN"
    queues.close()


def test_bothresh_zero_keeps_retrying_without_moving(spark: Any, tmp_path: Path) -> None:
    """seed 002: BOTHRESH 0 disables poison handling: nothing is ever moved."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType

    queues = Queues("embedded", tmp_path)
    queues.define("ORDERS.IN", BOTHRESH=0, BOQNAME="ORDERS.BACKOUT")
    queues.define("ORDERS.BACKOUT")
    queues.put_text("ORDERS.IN", "ok 1", "POISON", "ok 2")

    def check(text: str | None) -> str | None:
        if text == "POISON":
            raise ValueError("no")
        return text

    checked = F.udf(check, StringType())
    for _ in range(5):
        df = (
            spark.readStream.format("mqjms")
            .option("url", queues.url)
            .option("queue", "ORDERS.IN")
            .load()
        )
        query = (
            df.select("msg_id", checked("text").alias("text"))
            .writeStream.format("parquet")
            .option("path", str(tmp_path / "out"))
            .option("checkpointLocation", str(tmp_path / "ck"))
            .trigger(availableNow=True)
            .start()
        )
        finished(query)
    texts = sorted(r.text for r in spark.read.parquet(str(tmp_path / "out")).collect())
    assert texts == ["ok 1", "ok 2"]  # the good ones were not held back by the poison
    assert queues.browse("ORDERS.BACKOUT") == []
    queues.close()


def test_attributes_are_inquired_when_a_backed_out_message_is_first_seen(
    spark: Any, tmp_path: Path
) -> None:
    """seed 002: BOTHRESH and BOQNAME are queried 'the first time they detect a message that
    has a BackoutCount greater than zero', then cached. Batches of messages never backed
    out inquire nothing, so a threshold set after them still applies to the first backed
    out message (it was delivered: BOTHRESH 0 had been cached with the first batch)."""
    # seed 002: the attributes are inquired when a BackoutCount > 0 is first detected
    queues = Queues("embedded", tmp_path)
    queues.define("ORDERS.IN")  # BOTHRESH 0 while the stream starts
    queues.define("ORDERS.BACKOUT")
    queues.put_text("ORDERS.IN", "ok 1")
    seen: list[tuple[str, int]] = []

    def each(frame: Any, _batch: int) -> None:
        rows = frame.collect()
        seen.extend((r.text, r.backout_count) for r in rows)
        if [text for text, _ in seen] == ["ok 1"]:
            queues.define("ORDERS.IN", BOTHRESH=1, BOQNAME="ORDERS.BACKOUT")
            queues.put_text("ORDERS.IN", "POISON")
            handle = queues.conn.open("ORDERS.IN", C.MQOO_INPUT_SHARED)
            assert queues.conn.get(handle, syncpoint=True) is not None
            queues.conn.backout()  # BackoutCount 1: at BOTHRESH
            queues.conn.close(handle)

    df = (
        spark.readStream.format("mqjms")
        .option("url", queues.url)
        .option("queue", "ORDERS.IN")
        .option("staging", str(tmp_path / "staging"))
        .load()
    )
    query = (
        df.writeStream.foreachBatch(each)
        .option("checkpointLocation", str(tmp_path / "ck"))
        .trigger(processingTime="0.5 seconds")
        .start()
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(seen) < 2 and not queues.browse("ORDERS.BACKOUT"):
        time.sleep(0.2)
    query.stop()
    assert seen == [("ok 1", 0)]
    [(md, _)] = queues.browse("ORDERS.BACKOUT")
    assert md.BackoutCount == 0
    queues.close()
