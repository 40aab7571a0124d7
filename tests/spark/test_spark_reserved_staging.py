"""Staging on the queue in chunks: a large micro-batch is reserved and released in several
queue manager transactions, with exactly the outcome of one (no Spark needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mqjms.mq import constants as C
from mqjms.mq.md import MQMD
from mqjms.qmgr import QueueManager
from mqjms.spark import reserved
from mqjms.spark.reserved import ReservedStaging
from mqjms.transport import connect

Q = "ORDERS.IN"


def test_stage_and_release_in_chunks(
    qm: QueueManager, embedded_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reserved, "RESERVE_CHUNK", 3)
    qm.define_queue("QLOCAL", Q)
    conn = connect(embedded_url)
    for i in range(12):
        conn.put(Q, MQMD(Format=C.MQFMT_STRING), f"m{i}".encode())
    handle = conn.open(Q, C.MQOO_INPUT_SHARED | C.MQOO_INQUIRE)
    staging = ReservedStaging(tmp_path / "staging", "spark:Q", Q, conn)
    try:
        assert staging.stage(conn, handle, 10) == 10  # four reservations: 3 + 3 + 3 + 1
        assert [m.seq for m in staging.metas(0, 99)] == list(range(1, 11))
        assert staging.stage(conn, handle, 10) == 2  # what is left
        assert staging.stage(conn, handle, 10) == 0
        assert staging.last() == 12
        assert [d for _, _, d in staging.read_packed(0, 12)] == [
            f"m{i}".encode() for i in range(12)
        ]
        staging.release(8)  # three releases: <= 3, <= 6, <= 8
        assert staging.count() == 4 and staging.first() == 9
        assert qm.queue_depth(Q) == 4
        staging.release(8)  # again: nothing more
        assert staging.count() == 4
        staging.release(12)
        assert staging.count() == 0 and qm.queue_depth(Q) == 0
    finally:
        staging.close()
        conn.disconnect()
