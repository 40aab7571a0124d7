"""The sink (idempotent MsgIds, all or nothing per task) and the backout-queue browse."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from mqjms.backout import rewrite
from mqjms.mq import constants as C
from mqjms.mq.md import MQMD
from mqjms.semantics.deadletter import dead_letter_message
from mqjms.transport import Context
from tests.spark.spark_support import Queues


def test_batch_write_derives_msg_ids_from_the_rows(spark: Any, tmp_path: Path) -> None:
    queues = Queues("embedded", tmp_path)
    queues.define("OUT")
    rows = [(f"id{i}", f"text {i}", {"k": str(i)}) for i in range(6)]
    df = spark.createDataFrame(rows, "msg_id STRING, text STRING, properties MAP<STRING,STRING>")
    for _ in range(2):  # written twice: the same MsgIds, so a consumer can drop repeats
        df.write.format("mqjms").option("url", queues.url).option("queue", "OUT").mode(
            "append"
        ).save()
    got = queues.drain("OUT")
    assert len(got) == 12 and len({md.MsgId for md, _ in got}) == 6
    import mqjms.jms.message as jm

    texts = sorted(jm.from_mq(md, data).body for md, data in got)
    assert texts[:2] == ["text 0", "text 0"]
    queues.close()


def test_a_failed_task_leaves_nothing(spark: Any, tmp_path: Path) -> None:
    queues = Queues("embedded", tmp_path)
    queues.define("OUT")
    df = spark.createDataFrame(
        [("a", 4), ("b", 4), ("c", 12)],
        "text STRING, priority INT",  # 12: not a JMS priority
    ).coalesce(1)
    with pytest.raises(Exception, match="priority"):
        df.write.format("mqjms").option("url", queues.url).option("queue", "OUT").mode(
            "append"
        ).save()
    assert queues.browse("OUT") == []
    queues.close()


def test_stream_queue_to_queue(spark: Any, tmp_path: Path) -> None:
    queues = Queues("embedded", tmp_path)
    queues.define("ORDERS.IN")
    queues.define("ORDERS.COPY")
    ids = queues.put_text("ORDERS.IN", *(f"o{i}" for i in range(7)))
    df = (
        spark.readStream.format("mqjms")
        .option("url", queues.url)
        .option("queue", "ORDERS.IN")
        .load()
    )
    query = (
        df.select("msg_id", "text", "correl_id")
        .writeStream.format("mqjms")
        .option("url", queues.url)
        .option("queue", "ORDERS.COPY")
        .option("checkpointLocation", str(tmp_path / "ck"))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination(300)
    got = queues.drain("ORDERS.COPY")
    assert len(got) == 7
    from mqjms.spark.sink import derived_msg_id

    assert {md.MsgId for md, _ in got} == {derived_msg_id("ORDERS.COPY", i.hex()) for i in ids}
    queues.close()


def test_browse_a_dead_letter_queue_and_redrive(spark: Any, tmp_path: Path) -> None:
    queues = Queues("embedded", tmp_path)
    for name in ("ORDERS.IN", "ORDERS.BACKOUT", "SYSTEM.DEAD.LETTER.QUEUE"):
        queues.define(name)
    md = MQMD(Format=C.MQFMT_STRING)
    dl_md, dl_data = dead_letter_message(
        md,
        b"lost order",
        reason=C.MQRC_Q_FULL,
        dest_queue="ORDERS.IN",
        dest_qmgr="QM1",
        appl_name="test",
        now=time.time(),
    )
    queues.conn.put("SYSTEM.DEAD.LETTER.QUEUE", dl_md, dl_data, context=Context.PASS_ALL)
    df = (
        spark.read.format("mqjms")
        .option("url", queues.url)
        .option("queue", "SYSTEM.DEAD.LETTER.QUEUE")
        .load()
    )
    row = df.collect()[0]
    assert row.dlh_reason == C.MQRC_Q_FULL and row.dlh_reason_name == "MQRC_Q_FULL"
    assert row.original_queue == "ORDERS.IN" and row.original_qmgr == "QM1"
    assert row.text == "lost order" and row.dlh_put_time is not None
    assert len(queues.browse("SYSTEM.DEAD.LETTER.QUEUE")) == 1  # browsed, not removed

    # a moved message carries its failure properties as columns; redrive puts it back
    failure = {
        "mqjms_failure_exception": "builtins.TimeoutError",
        "mqjms_failure_queue": "ORDERS.IN",
    }
    bo_md, bo_data = rewrite.for_backout_queue(MQMD(Format=C.MQFMT_STRING), b"retry me", failure)
    queues.conn.put("ORDERS.BACKOUT", bo_md, bo_data)
    from examples.spark import backout_report

    rows = backout_report.report(spark, queues.url, "ORDERS.BACKOUT").collect()
    assert rows[0].failure_exception == "builtins.TimeoutError"
    assert backout_report.redrive(spark, queues.url, "ORDERS.BACKOUT", "builtins.TimeoutError") == 1
    assert queues.browse("ORDERS.BACKOUT") == []
    import mqjms.jms.message as jm

    back = queues.drain("ORDERS.IN")
    assert [jm.from_mq(m, d).body for m, d in back] == ["retry me"]
    queues.close()


def test_two_streams_into_one_queue_give_distinct_msg_ids(spark: Any, tmp_path: Path) -> None:
    # rows without msg_id: the ids came from (sinkId, batch, partition, row) alone, so the
    # first rows of two queries with the default sinkId had one MsgId between them
    queues = Queues("embedded", tmp_path)
    queues.define("OUT")
    for name in ("a", "b"):
        queues.define(f"IN.{name.upper()}")
        queues.put_text(f"IN.{name.upper()}", *(f"{name}-{i}" for i in range(3)))
        stream = (
            spark.readStream.format("mqjms")
            .option("url", queues.url)
            .option("queue", f"IN.{name.upper()}")
            .load()
            .select("text")
            .writeStream.format("mqjms")
            .option("url", queues.url)
            .option("queue", "OUT")
            .option("checkpointLocation", str(tmp_path / f"ck-{name}"))
            .trigger(availableNow=True)
            .start()
        )
        stream.awaitTermination(300)
    got = queues.drain("OUT")
    assert len(got) == 6 and len({md.MsgId for md, _ in got}) == 6
    queues.close()


def test_rows_without_a_text_or_body_column_are_refused_by_name() -> None:
    # a DataFrame whose body column was misspelt put empty messages without a word
    from mqjms.spark.sink import message_for_row

    with pytest.raises(ValueError, match=r'"text".*"body".*rows have queue, txt'):
        message_for_row({"txt": "hello", "queue": "OUT"}, "OUT")
    queue, md, _ = message_for_row({"text": None}, "OUT")  # a null text: a TextMessage
    assert queue == "OUT" and md.Format.strip() == "MQHRF2"


def test_a_row_read_from_a_queue_writes_back_with_its_jms_headers() -> None:
    # the source's properties hold JMS headers; the sink refused them as user properties
    # ("usr property name 'JMSDestination' is reserved"), so a redrive of JMS messages
    # failed; and a persistent=False row was put persistent
    from mqjms.jms.message import NON_PERSISTENT, from_mq
    from mqjms.spark.sink import message_for_row

    properties = {
        "JMSDestination": "queue:///ORDERS.IN",
        "JMSReplyTo": "queue:///ORDERS.REPLY",
        "JMSCorrelationID": "order-7",
        "JMSType": "order",
        "region": "eu",
    }
    row = {"text": "x", "properties": properties, "persistent": False}
    _, md, data = message_for_row(row, "ORDERS.IN")
    message = from_mq(md, data)
    assert message.properties == {"region": "eu"}
    assert (message.jms_reply_to, message.jms_correlation_id, message.jms_type) == (
        "queue:///ORDERS.REPLY",
        "order-7",
        "order",
    )
    assert message.jms_delivery_mode == NON_PERSISTENT


def test_a_read_of_an_unknown_queue_fails_as_it_is_planned_naming_it(
    spark: Any, tmp_path: Path
) -> None:
    # it failed only in a task, under a dozen frames of the queue manager's internals
    queues = Queues("embedded", tmp_path)
    reader = spark.read.format("mqjms").option("url", queues.url).option("queue", "NOPE")
    with pytest.raises(Exception, match="2085") as caught:
        reader.load().collect()
    text = str(caught.value)
    assert "spark.read of 'NOPE'" in text and "mqjms/qmgr/" not in text
    queues.close()


@pytest.mark.parametrize("flag", ["true", "yes"])
def test_a_browse_with_include_raw_has_the_raw_columns(
    spark: Any, tmp_path: Path, flag: str
) -> None:
    # the batch read ignored includeRaw (its rows lacked the columns the schema had, and
    # the task failed in zip), and "yes" was true for the readers but not for the schema
    queues = Queues("embedded", tmp_path)
    queues.define("Q")
    queues.put_text("Q", "hello")
    reader = spark.read.format("mqjms").option("url", queues.url).option("queue", "Q")
    [row] = reader.option("includeRaw", flag).load().collect()
    assert row["text"] == "hello" and MQMD.unpack(bytes(row["mqmd"])).Format.strip() == "MQSTR"
    queues.close()


def test_the_queue_option_wins_over_the_rows_queue_column(spark: Any, tmp_path: Path) -> None:
    # rows read from a queue carry its name in "queue": copied whole to another queue,
    # every message went back onto the queue it was read from and the target got none
    queues = Queues("embedded", tmp_path)
    queues.define("ORDERS.IN")
    queues.define("ORDERS.COPY")
    queues.put_text("ORDERS.IN", "a", "b", "c")
    rows = spark.read.format("mqjms").option("url", queues.url).option("queue", "ORDERS.IN")
    rows.load().write.format("mqjms").option("url", queues.url).option("queue", "ORDERS.COPY").mode(
        "append"
    ).save()
    assert len(queues.browse("ORDERS.IN")) == 3  # the originals only
    copied = queues.drain("ORDERS.COPY")
    assert sorted(data[-1:] for _, data in copied) == [b"a", b"b", b"c"]
    # without the option, the column routes each row (a redrive to its original queue)
    queues.drain("ORDERS.IN")
    routed = spark.createDataFrame(
        [("x", "ORDERS.IN"), ("y", "ORDERS.COPY")], "text STRING, queue STRING"
    )
    routed.write.format("mqjms").option("url", queues.url).mode("append").save()
    assert len(queues.drain("ORDERS.IN")) == 1 and len(queues.drain("ORDERS.COPY")) == 1
    queues.close()


@pytest.mark.parametrize(
    ("ddl", "value", "named"),
    [
        ("persistent STRING", "false", "persistent is string, not BOOLEAN"),
        ("properties STRING", "a=1", "properties is string, not MAP<STRING"),
        ("priority STRING", "high", "priority is string, not INT"),
        ("correl_id INT", 5, "correl_id is int, not STRING"),
    ],
)
def test_a_column_of_a_wrong_type_fails_the_write_as_it_is_planned_naming_it(
    spark: Any, tmp_path: Path, ddl: str, value: object, named: str
) -> None:
    # persistent "false" put persistent messages; a properties string failed in a task
    # with "'str' object has no attribute 'items'"; a correl_id 5 became the CorrelId "5"
    queues = Queues("embedded", tmp_path)
    queues.define("OUT")
    df = spark.createDataFrame([("x", value)], f"text STRING, {ddl}")
    writer = df.write.format("mqjms").option("url", queues.url).option("queue", "OUT")
    with pytest.raises(Exception, match="the mqjms sink cannot write these columns") as caught:
        writer.mode("append").save()
    assert named in str(caught.value)
    assert queues.browse("OUT") == []
    queues.close()


def test_a_binary_correl_id_is_the_correl_id(spark: Any, tmp_path: Path) -> None:
    queues = Queues("embedded", tmp_path)
    queues.define("OUT")
    correl = bytes(range(24))
    df = spark.createDataFrame([("x", bytearray(correl))], "text STRING, correl_id BINARY")
    df.write.format("mqjms").option("url", queues.url).option("queue", "OUT").mode("append").save()
    [(md, _)] = queues.drain("OUT")
    assert md.CorrelId == correl  # it was the text "bytearray(b'...')", cut to 24 bytes
    queues.close()


def test_overwrite_is_refused_and_the_queue_keeps_its_messages(spark: Any, tmp_path: Path) -> None:
    # mode("overwrite") appended, as if the mode were ignored; a sink that replaced a
    # queue's contents would lose messages, so it is refused as Spark's Kafka sink does
    queues = Queues("embedded", tmp_path)
    queues.define("OUT")
    queues.put_text("OUT", "kept")
    df = spark.createDataFrame([("x",)], "text STRING")
    writer = df.write.format("mqjms").option("url", queues.url).option("queue", "OUT")
    with pytest.raises(Exception, match=r'only appends.*mode\("append"\)'):
        writer.mode("overwrite").save()
    assert [data[-4:] for _, data in queues.drain("OUT")] == [b"kept"]
    queues.close()


def test_no_queue_option_and_no_queue_column_fails_before_any_task(
    spark: Any, tmp_path: Path
) -> None:
    # it failed in the first task, under a Python worker's traceback
    queues = Queues("embedded", tmp_path)
    df = spark.createDataFrame([("x",)], "text STRING")
    writer = df.write.format("mqjms").option("url", queues.url).mode("append")
    with pytest.raises(Exception, match="needs a queue") as caught:
        writer.save()
    assert "initialize Python data source writer" in str(caught.value)  # planned, no task
    queues.close()
