"""A large micro-batch is staged and released in steps (several queue manager
transactions) with exactly the outcome of one step (no Spark session needed)."""

from __future__ import annotations

import pytest

from mqjms.mq import constants as C
from mqjms.mq.md import MQMD
from mqjms.qmgr import QueueManager
from mqjms.spark import reserved
from mqjms.spark.options import SourceOptions
from mqjms.transport import connect

Q = "ORDERS.IN"
OWNER = f"spark:{Q}"


def test_a_batch_is_staged_and_released_in_steps(
    qm: QueueManager, embedded_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("pyarrow")
    pytest.importorskip("pyspark")
    from mqjms.spark import source

    monkeypatch.setattr(source, "STEP", 3)
    monkeypatch.setattr(reserved, "STEP", 3)
    qm.define_queue("QLOCAL", Q)
    conn = connect(embedded_url)
    for i in range(12):
        conn.put(Q, MQMD(Format=C.MQFMT_STRING), f"m{i}".encode())
    options = SourceOptions.parse(
        {"url": embedded_url, "queue": Q, "maxMessagesPerBatch": 10}, streaming=True
    )
    reader = source.QueueStreamReader(options, None)  # type: ignore[arg-type]
    try:
        start = reader.initialOffset()
        end = reader.latestOffset(start, None)  # four steps: 3 + 3 + 3 + 1
        assert (start, end) == ({"seq": 0}, {"seq": 10})
        assert conn.reservation_count(OWNER) == 10 and qm.queue_depth(Q) == 12
        assert [(p.lo, p.hi) for p in reader.partitions(start, end)] == [(0, 5), (5, 10)]
        reader.commit(end)  # four releases: <= 3, <= 6, <= 9, <= 10
        assert conn.reservation_count(OWNER) == 0 and qm.queue_depth(Q) == 2
        assert reader.latestOffset(end, None) == {"seq": 12}  # a short step: the queue's end
        assert conn.reservation_count(OWNER) == 2
    finally:
        reader.stop()
    assert conn.reservation_count(OWNER) == 2  # planned: stays staged (one batch at most)
    assert [d for _, _, _, d in conn.reserved(OWNER, 0, 99)] == [b"m10", b"m11"]
    conn.disconnect()
