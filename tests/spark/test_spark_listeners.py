"""Listeners on Spark: the Worker's listener functions, the Worker's poison handling."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import mqjms.spark
from mqjms.mq import jms, rfh2
from tests.spark import listener_apps
from tests.spark.spark_support import Queues

TRANSPORTS = ["embedded", pytest.param("stomp", marks=pytest.mark.stomp)]


def setup_queues(transport: str, tmp_path: Path) -> Queues:
    queues = Queues(transport, tmp_path)
    queues.define("ORDERS.IN", BOTHRESH=3, BOQNAME="ORDERS.BACKOUT")
    queues.define("ORDERS.BACKOUT")
    queues.define("ORDERS.SHIPPED")
    return queues


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_listeners_run_on_spark(spark: Any, tmp_path: Path, transport: str) -> None:
    queues = setup_queues(transport, tmp_path)
    texts = [f"order {i}" for i in range(12)]
    texts[4] = "poison 4"
    ids = queues.put_text("ORDERS.IN", *texts)
    listener_apps.moved.clear()
    mqjms.spark.run(
        listener_apps.app,
        spark,
        checkpoint=str(tmp_path / "ck"),
        available_now=True,
        url=queues.url,
        max_messages_per_batch=5,
    )
    # available_now: returns once every processed message is gone from the input queue
    assert queues.drain("ORDERS.IN") == []
    shipped = queues.drain("ORDERS.SHIPPED")
    assert len(shipped) == 11
    assert len({md.MsgId for md, _ in shipped}) == 11  # derived ids, one per send
    moved = queues.drain("ORDERS.BACKOUT")
    assert [md.MsgId for md, _ in moved] == [ids[4]]
    md, data = moved[0]
    assert md.BackoutCount == 0 and rfh2.is_rfh2(md.Format)
    _, props = jms.parse_jms_folders(
        rfh2.parse_chain(data, md.Encoding, md.CodedCharSetId, md.Format).folders
    )
    # the same failure properties a Worker adds
    assert props["mqjms_failure_exception"] == "builtins.ValueError"
    assert props["mqjms_failure_message"] == "cannot ship poison 4"
    assert props["mqjms_failure_listener"] == "tests.spark.listener_apps.ship"
    assert props["mqjms_failure_queue"] == "ORDERS.IN"
    assert listener_apps.moved == [ids[4].hex()]  # on_poison was called
    queues.close()


def test_move_on_goes_straight_to_the_backout_queue(spark: Any, tmp_path: Path) -> None:
    queues = setup_queues("embedded", tmp_path)
    ids = queues.put_text("ORDERS.IN", "fine", "never shippable")
    mqjms.spark.run(
        listener_apps.move_on_app,
        spark,
        checkpoint=str(tmp_path / "ck"),
        available_now=True,
        url=queues.url,
    )
    moved = queues.drain("ORDERS.BACKOUT")
    assert [md.MsgId for md, _ in moved] == [ids[1]]
    assert len(queues.drain("ORDERS.SHIPPED")) == 1
    queues.close()


def test_the_thresholds_stay_cached_between_batches(spark: Any, tmp_path: Path) -> None:
    """seed 002: BOTHRESH and BOQNAME are queried the first time a message with BackoutCount
    > 0 is met; "the values ... are then cached, and used whenever" another is met. The
    listener lowers BOTHRESH from 4 to 2 while the message's second delivery runs: as with
    a Worker, it is delivered until BOTHRESH 4 (before, each failed batch inquired afresh,
    on the new connection it made, and moved the message at 2)."""
    # seed 002: the attributes are cached once inquired, whatever connection asks
    queues = setup_queues("embedded", tmp_path)
    queues.define("ORDERS.IN", BOTHRESH=4, BOQNAME="ORDERS.BACKOUT")
    log_file = tmp_path / "deliveries.log"
    [msg_id] = queues.put_text("ORDERS.IN", f"{log_file} {queues.url}")
    mqjms.spark.run(
        listener_apps.threshold_app,
        spark,
        checkpoint=str(tmp_path / "ck"),
        available_now=True,
        url=queues.url,
    )
    assert log_file.read_text().split() == ["0", "1", "2", "3"]  # BackoutCount each time
    assert [md.MsgId for md, _ in queues.drain("ORDERS.BACKOUT")] == [msg_id]
    queues.close()


def test_a_replayed_batch_sends_nothing_twice(spark: Any, tmp_path: Path) -> None:
    queues = setup_queues("embedded", tmp_path)
    # one batch of two partitions of five; the crash is in the second, after the first
    # committed its five sends
    texts = [f"order {i}" for i in range(10)]
    texts[7] = f"crash {tmp_path / 'crashed'} {queues.url} 5"
    queues.put_text("ORDERS.IN", *texts)
    mqjms.spark.run(
        listener_apps.crash_app,
        spark,
        checkpoint=str(tmp_path / "ck"),
        available_now=True,
        url=queues.url,
        max_messages_per_batch=10,
    )
    assert (tmp_path / "crashed").exists()  # the batch failed once and was run again
    shipped = queues.drain("ORDERS.SHIPPED")
    assert len(shipped) == 10  # without the commit markers: 15
    assert len({md.MsgId for md, _ in shipped}) == 10
    assert queues.drain("ORDERS.IN") == []
    queues.close()
