"""Exactly once into the mqjms sink: a replayed batch, and a kill -9 of the driver mid-batch,
put no message twice (commit markers, spark.md 6.4)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mqjms.spark import markers
from tests.spark.sink_gate import gate
from tests.spark.spark_support import Queues

HERE = Path(__file__).resolve().parent
TRANSPORTS = ["embedded", pytest.param("stomp", marks=pytest.mark.stomp)]
TOTAL, PER_BATCH = 30, 10  # three batches of two partitions of five


@pytest.fixture(params=TRANSPORTS)
def queues(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Queues]:
    found = Queues(request.param, tmp_path)
    found.define("ORDERS.IN")
    found.define("ORDERS.COPY")
    found.define(markers.MARKER_QUEUE)
    yield found
    found.close()


def copy_query(spark: Any, queues: Queues, tmp_path: Path) -> Any:
    from pyspark.sql.functions import col, udf

    through = udf(gate(queues.url, "ORDERS.COPY", 1, PER_BATCH + 5, tmp_path / "failed"))
    df = (
        spark.readStream.format("mqjms")
        .option("url", queues.url)
        .option("queue", "ORDERS.IN")
        .option("staging", str(tmp_path / "staging"))
        .option("maxMessagesPerBatch", PER_BATCH)
        .load()
    )
    return (
        df.select("msg_id", through(col("text")).alias("text"))
        .writeStream.format("mqjms")
        .option("url", queues.url)
        .option("queue", "ORDERS.COPY")
        .option("checkpointLocation", str(tmp_path / "ck"))
        .trigger(availableNow=True)
        .start()
    )


def test_a_replayed_batch_puts_nothing_twice(spark: Any, queues: Queues, tmp_path: Path) -> None:
    ids = queues.put_text("ORDERS.IN", *(f"order {i}" for i in range(TOTAL)))
    query = copy_query(spark, queues, tmp_path)
    with pytest.raises(Exception, match="injected"):
        query.awaitTermination(300)  # batch 1 failed after its partition 0 committed
    assert (tmp_path / "failed").exists()
    query = copy_query(spark, queues, tmp_path)  # replays batch 1, then goes on
    query.awaitTermination(300)
    assert query.exception() is None
    got = queues.drain("ORDERS.COPY")
    from mqjms.spark.sink import derived_msg_id

    assert len(got) == TOTAL  # without the markers: TOTAL + 5 (partition 0 of batch 1 again)
    assert {md.MsgId for md, _ in got} == {derived_msg_id("ORDERS.COPY", i.hex()) for i in ids}
    # the markers of the batches before the last one are gone
    left = [json_batch(data) for _, data in queues.browse(markers.MARKER_QUEUE)]
    assert left and set(left) == {2}


def json_batch(data: bytes) -> int:
    import json

    return int(json.loads(data)["batch"])


def test_kill_minus_nine_mid_batch_puts_nothing_twice(spark: Any, tmp_path: Path) -> None:
    queues = Queues("embedded", tmp_path)
    queues.define("ORDERS.IN")
    queues.define("ORDERS.COPY")
    ids = queues.put_text("ORDERS.IN", *(f"order {i}" for i in range(TOTAL)))
    env = dict(os.environ, PYTHONPATH=str(HERE.parents[1]))  # the checkout: tests, mqjms
    command = [sys.executable, "-m", "tests.spark.kill_sink_driver", queues.url, str(tmp_path)]
    killed = subprocess.run(command, env=env, start_new_session=True, check=False)
    assert killed.returncode == -9  # the gate killed the driver's process group mid-batch
    assert (tmp_path / "failed").exists()
    assert subprocess.run(command, env=env, start_new_session=True, timeout=300).returncode == 0
    got = queues.drain("ORDERS.COPY")
    assert len(got) == TOTAL
    from mqjms.spark.sink import derived_msg_id

    assert {md.MsgId for md, _ in got} == {derived_msg_id("ORDERS.COPY", i.hex()) for i in ids}
    assert queues.browse("ORDERS.IN") == []
    queues.close()
