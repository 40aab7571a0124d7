"""Expired messages are discarded a bounded batch per write transaction (expiry.py's
DISCARD_BATCH and DISCARD_SECONDS), by a get, the periodic scan and REFRESH QMGR
TYPE(EXPIRY) alike, and a scan reads a body only for a report that carries data. Before,
a get that met 100,000 expired messages held the write lock of the whole queue manager for
seconds (a minute with 2 MB bodies: puts to other queues failed with 2059), and a scan
read every expired body into memory at once (864 MB for 400 bodies of 2 MB)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from mqjms.mq import MQMD, C
from mqjms.qmgr import QMConnection, QueueManager, expiry, messages

Q = "BATCH.Q"
REPLY = "BATCH.REPLY"
EXPIRED = 12  # more than two batches of 5
IO = C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT


@pytest.fixture(autouse=True)
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(expiry, "DISCARD_BATCH", 5)


@pytest.fixture
def conn(qm: QueueManager) -> Iterator[QMConnection]:
    qm.define_queue("QLOCAL", Q)
    qm.define_queue("QLOCAL", REPLY)
    connection = qm.connect()
    for n in range(EXPIRED):
        report = C.MQRO_EXPIRATION_WITH_DATA if n == 0 else C.MQRO_NONE
        md = MQMD(Expiry=1, Report=report, ReplyToQ=REPLY if report else "")
        connection.put(Q, md, bytes([n]) * 5000)  # large enough to be stored apart
    time.sleep(0.25)
    yield connection
    connection.disconnect()


def _transactions(connection: QMConnection, call: object) -> tuple[object, list[str]]:
    statements: list[str] = []
    db = connection._db
    db.set_trace_callback(statements.append)
    try:
        result = call()  # type: ignore[operator]
    finally:
        db.set_trace_callback(None)
    return result, statements


@pytest.mark.parametrize("syncpoint", [False, True])
def test_a_get_past_many_expired_messages_discards_them_a_batch_a_transaction(
    qm: QueueManager, conn: QMConnection, syncpoint: bool
) -> None:
    conn.put(Q, MQMD(), b"live")
    handle = conn.open(Q, IO)
    got, statements = _transactions(conn, lambda: conn.get(handle, syncpoint=syncpoint))
    assert got is not None and got[1] == b"live"  # type: ignore[index]
    assert sum(s.startswith("BEGIN") for s in statements) == 3  # 5 + 5 + 2, then the get
    assert qm.queue_depth(Q) == 0
    assert qm.queue_depth(REPLY) == 1  # the report asked for, sent once


def test_a_consumer_step_past_many_expired_messages_goes_on_in_batches(
    qm: QueueManager, conn: QMConnection
) -> None:
    # the Worker's step (MQCMIT + the next MQGET in one transaction) meets them
    qm.define_queue("QLOCAL", "STEP.Q")
    conn.put("STEP.Q", MQMD(), b"first")
    for _ in range(EXPIRED):
        conn.put("STEP.Q", MQMD(Expiry=1), b"old")
    conn.put("STEP.Q", MQMD(), b"live")
    handle = conn.open("STEP.Q", IO)
    first = conn.get(handle, syncpoint=True)
    assert first is not None and first[1] == b"first"
    time.sleep(0.25)
    step, statements = _transactions(conn, lambda: conn.commit_and_get(handle))
    assert step is not None and step[1] == b"live"  # type: ignore[index]
    # the step (its commit and 5 discards), 5 more, then 2 and the get
    assert sum(s.startswith("BEGIN") for s in statements) == 3
    conn.commit()
    assert qm.queue_depth("STEP.Q") == 0


def test_refresh_discards_in_batches_and_reads_a_body_only_for_a_report(
    qm: QueueManager, conn: QMConnection
) -> None:
    db_statements: list[str] = []
    qm._db.set_trace_callback(db_statements.append)  # the queue manager's own connection
    try:
        count = qm.refresh_expiry(Q)
    finally:
        qm._db.set_trace_callback(None)
    assert count == EXPIRED and qm.queue_depth(Q) == 0
    assert sum(s.startswith("BEGIN") for s in db_statements) == 3  # 5 + 5 + 2
    # the body of the one message whose report carries data, and no other
    assert sum("SELECT coalesce" in s for s in db_statements) == 1
    got = conn.get(conn.open(REPLY, C.MQOO_INPUT_SHARED))
    assert got is not None
    report_md, data = got
    assert report_md.Feedback == C.MQFB_EXPIRATION and data == bytes([0]) * 100


def test_a_scan_told_to_stop_ends_after_the_batch_in_hand(
    qm: QueueManager, conn: QMConnection
) -> None:
    # the periodic scanner passes its stop: a queue manager closing mid-scan waited for
    # every batch of expired messages left; the rest goes with the next scan (or a get)
    assert expiry.scan_all(qm._writing, Q, lambda: True) == 5
    assert qm.queue_depth(Q) == EXPIRED - 5
    assert expiry.scan_all(qm._writing, Q) == EXPIRED - 5
    assert qm.queue_depth(Q) == 0


def test_a_reservation_past_many_expired_messages_discards_them_in_batches(
    qm: QueueManager, conn: QMConnection
) -> None:
    # the Spark source's reserve walks the queue once: it discarded every expired message
    # it met in one transaction, each read with its body
    for n in range(3):
        conn.put(Q, MQMD(), f"live {n}".encode())
    handle = conn.open(Q, IO)
    last, statements = _transactions(conn, lambda: conn.reserve(handle, "spark", 10))
    assert last == 3
    assert [data for *_, data in conn.reserved("spark", 0, 3)] == [b"live 0", b"live 1", b"live 2"]
    assert sum(s.startswith("BEGIN") for s in statements) == 3  # 5, 5, then 2 and the 3
    # bodies read: only the one whose expiration report carries data
    assert sum(f"{messages.body_column()}" in s for s in statements) == 1
    assert qm.queue_depth(Q) == 3
    assert qm.queue_depth(REPLY) == 1  # the report asked for, sent once
