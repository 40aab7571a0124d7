"""The streaming source: stage-then-ack, every message once, on every transport."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from spark_support import Queues

from mqjms.mq import constants as C
from mqjms.mq.md import MQMD

TRANSPORTS = ["embedded", pytest.param("stomp", marks=pytest.mark.stomp)]


@pytest.fixture(params=TRANSPORTS)
def queues(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Queues]:
    found = Queues(request.param, tmp_path)
    found.define("ORDERS.IN", BOTHRESH=3, BOQNAME="ORDERS.BACKOUT")
    found.define("ORDERS.BACKOUT")
    yield found
    found.close()


def drain_to_parquet(spark: Any, queues: Queues, tmp_path: Path, batch: int = 10) -> None:
    df = (
        spark.readStream.format("mqjms")
        .option("url", queues.url)
        .option("queue", "ORDERS.IN")
        .option("staging", str(tmp_path / "staging"))
        .option("maxMessagesPerBatch", batch)
        .load()
    )
    query = (
        df.writeStream.format("parquet")
        .option("path", str(tmp_path / "out"))
        .option("checkpointLocation", str(tmp_path / "ck"))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination(300)
    assert query.exception() is None


def test_each_message_once_and_the_queue_emptied(
    spark: Any, queues: Queues, tmp_path: Path
) -> None:
    ids = queues.put_text("ORDERS.IN", *(f"order {i}" for i in range(25)))
    drain_to_parquet(spark, queues, tmp_path)
    out = spark.read.parquet(str(tmp_path / "out"))
    assert out.count() == 25
    assert {r.msg_id for r in out.select("msg_id").collect()} == {i.hex() for i in ids}
    assert sorted(r.text for r in out.select("text").collect()) == sorted(
        f"order {i}" for i in range(25)
    )
    # Spark commits a range one batch late: the next run commits the last, and the
    # queue keeps nothing (no message lost, none delivered twice)
    more = queues.put_text("ORDERS.IN", "late 1", "late 2")
    drain_to_parquet(spark, queues, tmp_path)
    out = spark.read.parquet(str(tmp_path / "out"))
    assert out.count() == 27
    assert out.select("msg_id").distinct().count() == 27
    assert {i.hex() for i in more} <= {r.msg_id for r in out.select("msg_id").collect()}
    assert queues.drain("ORDERS.IN") == []


def test_columns(spark: Any, queues: Queues, tmp_path: Path) -> None:
    import mqjms

    cf = mqjms.ConnectionFactory(queues.url)
    with cf.connect() as conn, conn.session() as session:
        session.producer("ORDERS.IN").send(
            "hello",
            properties={"region": "EU", "count": 3},
            priority=7,
            correlation_id="ORDER-1",
            reply_to="ORDERS.REPLY",
        )
    drain_to_parquet(spark, queues, tmp_path)
    row = spark.read.parquet(str(tmp_path / "out")).collect()[0]
    assert row.text == "hello" and bytes(row.body) == b"hello"
    assert row.priority == 7 and row.persistent is True and row.backout_count == 0
    assert row.properties["region"] == "EU" and row.properties["count"] == "3"
    assert row.correl_id == b"ORDER-1".ljust(24, b"\0").hex()
    assert row.reply_to == "ORDERS.REPLY"
    assert row.put_time is not None and row.error is None and row.queue == "ORDERS.IN"


def test_a_message_that_does_not_decode_is_a_row_with_an_error(spark: Any, tmp_path: Path) -> None:
    queues = Queues("embedded", tmp_path)
    queues.define("ORDERS.IN")
    queues.conn.put("ORDERS.IN", MQMD(Format=C.MQFMT_RF_HEADER_2), b"RFH \x00\x00\x00\x02junk")
    queues.put_text("ORDERS.IN", "fine")
    drain_to_parquet(spark, queues, tmp_path)
    rows = {r.text: r for r in spark.read.parquet(str(tmp_path / "out")).collect()}
    assert rows["fine"].error is None
    bad = rows[None]
    assert bad.error and "RFH" in bad.error  # PERMISSIVE: the batch did not fail
    assert bytes(bad.body) == b"RFH \x00\x00\x00\x02junk"
    queues.close()


def test_max_messages_per_batch(spark: Any, tmp_path: Path) -> None:
    queues = Queues("embedded", tmp_path)
    queues.define("ORDERS.IN")
    queues.put_text("ORDERS.IN", *(f"m{i}" for i in range(20)))
    df = (
        spark.readStream.format("mqjms")
        .option("url", queues.url)
        .option("queue", "ORDERS.IN")
        .option("maxMessagesPerBatch", 6)
        .load()
    )
    sizes: list[int] = []
    query = (
        df.writeStream.foreachBatch(lambda frame, _id: sizes.append(frame.count()))
        .option("checkpointLocation", str(tmp_path / "ck"))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination(300)
    assert sorted((s for s in sizes if s), reverse=True) == [6, 6, 6, 2]
    progress = query.lastProgress["sources"][0]
    assert "latestOffset" in progress  # reportLatestOffset: lag metrics
    queues.close()
