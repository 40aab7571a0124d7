"""Discarding expired messages without a get: the periodic scan (EXPRYINT) and REFRESH QMGR
TYPE(EXPIRY) (seed 000, "Expired messages on z/OS"), plus the embedded-only parts of the
expiry rules."""

from __future__ import annotations

import time

import pytest

from mqjms.mq import MQMD, C, MQError
from mqjms.qmgr import QueueManager

IN = C.MQOO_INPUT_SHARED


def wait_for_depth(qm: QueueManager, queue: str, wanted: int, timeout: float) -> int:
    deadline = time.monotonic() + timeout
    while (current := qm.queue_depth(queue)) != wanted and time.monotonic() < deadline:
        time.sleep(0.05)
    return current


def test_periodic_scan_discards_expired_messages_without_a_get(qm: QueueManager) -> None:
    # seed 000, "Periodic scan": with EXPRYINT set, the queue manager scans queues and
    # discards expired messages; expiration reports are sent (note 3: at discard time)
    qm.define_queue("QLOCAL", "SCAN.Q")
    qm.define_queue("QLOCAL", "SCAN.REPLY")
    conn = qm.connect()
    conn.put("SCAN.Q", MQMD(Expiry=1, Report=C.MQRO_EXPIRATION, ReplyToQ="SCAN.REPLY"), b"e")
    conn.put("SCAN.Q", MQMD(Expiry=2), b"e2")
    conn.put("SCAN.Q", MQMD(), b"unlimited")
    conn.put("SCAN.Q", MQMD(Expiry=600), b"minute")
    qm.alter_qmgr({"EXPRYINT": 1})
    assert qm.display_qmgr(["EXPRYINT"])["EXPRYINT"] == 1
    assert wait_for_depth(qm, "SCAN.Q", 2, timeout=2.5) == 2
    assert qm.queue_depth("SCAN.REPLY") == 1
    handle = conn.open("SCAN.Q", IN)
    assert [conn.get(handle)[1] for _ in range(2)] == [b"unlimited", b"minute"]


def test_the_periodic_scan_goes_on_after_a_sqlite_error(
    qm: QueueManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a read the scanner makes outside a transaction fails once (a busy or damaged file):
    # it is logged, and the next tick scans (it ended the scanner's thread for good)
    import sqlite3

    from mqjms.qmgr import expiry

    original, failed = expiry.meta.get, []

    def get(db: sqlite3.Connection, key: str) -> str | None:
        if key == "last_expiry_scan" and not failed:
            failed.append(key)
            raise sqlite3.OperationalError("disk I/O error")
        return original(db, key)

    monkeypatch.setattr(expiry.meta, "get", get)
    qm.define_queue("QLOCAL", "SCAN.Q")
    qm.connect().put("SCAN.Q", MQMD(Expiry=1), b"e")
    qm.alter_qmgr({"EXPRYINT": 1})
    assert wait_for_depth(qm, "SCAN.Q", 0, timeout=4.5) == 0
    assert failed


def test_no_periodic_scan_when_expryint_is_off(qm: QueueManager) -> None:
    # seed 000 note 2: without a get or a scan, expired messages stay and count
    qm.define_queue("QLOCAL", "SCAN.Q")
    qm.alter_qmgr({"EXPRYINT": "OFF"})
    qm.connect().put("SCAN.Q", MQMD(Expiry=1), b"e")
    time.sleep(1.3)  # longer than one scanner tick
    assert qm.queue_depth("SCAN.Q") == 1


def test_refresh_expiry_discards_expired_messages_now(qm: QueueManager) -> None:
    # seed 000, "Explicit request": REFRESH QMGR TYPE(EXPIRY) for the queues named
    qm.define_queue("QLOCAL", "APP.ONE")
    qm.define_queue("QLOCAL", "APP.TWO")
    qm.define_queue("QLOCAL", "OTHER.Q")
    qm.define_queue("QLOCAL", "APP.REPLY")
    conn = qm.connect()
    for queue in ("APP.ONE", "APP.TWO", "OTHER.Q"):
        conn.put(
            queue,
            MQMD(Expiry=1, Report=C.MQRO_EXPIRATION_WITH_DATA, ReplyToQ="APP.REPLY"),
            b"old " + queue.encode(),
        )
        conn.put(queue, MQMD(), b"live")
    time.sleep(0.2)
    assert qm.refresh_expiry("APP.*") == 2
    assert (qm.queue_depth("APP.ONE"), qm.queue_depth("APP.TWO")) == (1, 1)
    assert qm.queue_depth("OTHER.Q") == 2  # not named
    reports = conn.open("APP.REPLY", IN)
    got = sorted(conn.get(reports)[1] for _ in range(2))
    assert got == [b"old APP.ONE", b"old APP.TWO"]
    assert qm.refresh_expiry("OTHER.Q") == 1
    assert qm.refresh_expiry() == 0


def test_scan_leaves_messages_in_a_unit_of_work_alone(qm: QueueManager) -> None:
    # seed 000 note 5: a message got under syncpoint is discarded only after a backout
    qm.define_queue("QLOCAL", "SCAN.Q")
    conn = qm.connect()
    conn.put("SCAN.Q", MQMD(Expiry=2), b"nearly")
    handle = conn.open("SCAN.Q", IN)
    assert conn.get(handle, syncpoint=True)[1] == b"nearly"
    time.sleep(0.3)
    assert qm.refresh_expiry("SCAN.Q") == 0
    assert qm.uncommitted_messages("SCAN.Q") == 1  # left alone (out of CURDEPTH meanwhile)
    conn.backout()
    assert qm.queue_depth("SCAN.Q") == 1
    assert qm.refresh_expiry("SCAN.Q") == 1
    assert qm.queue_depth("SCAN.Q") == 0


def test_scan_report_is_sent_even_when_a_unit_of_work_is_open(qm: QueueManager) -> None:
    # seed 000 note 4: discards and reports are not part of anyone's unit of work
    qm.define_queue("QLOCAL", "SCAN.Q")
    qm.define_queue("QLOCAL", "SCAN.REPLY")
    conn = qm.connect()
    conn.put("SCAN.Q", MQMD(Expiry=1, Report=C.MQRO_EXPIRATION, ReplyToQ="SCAN.REPLY"), b"x")
    conn.put("SCAN.Q", MQMD(), b"live", syncpoint=True)  # an open unit of work
    time.sleep(0.2)
    assert qm.refresh_expiry("SCAN.*") == 1
    conn.backout()
    assert qm.queue_depth("SCAN.REPLY") == 1
    assert qm.queue_depth("SCAN.Q") == 0


def test_expiry_of_999999999_is_accepted_by_default(qm: QueueManager, monkeypatch) -> None:
    monkeypatch.delenv("AMQ_ENFORCE_MAX_EXPIRY_ERROR", raising=False)
    qm.define_queue("QLOCAL", "EXP.Q")
    conn = qm.connect()
    conn.put("EXP.Q", MQMD(Expiry=999_999_999), b"max")
    conn.put("EXP.Q", MQMD(Expiry=1_000_000_000), b"beyond")  # not enforced by default
    md, _ = conn.get(conn.open("EXP.Q", IN))
    assert 999_999_000 < md.Expiry <= 999_999_999


def test_expiry_above_999999999_fails_when_enforced(qm: QueueManager, monkeypatch) -> None:
    # seed 004 note 1: Expiry zero or greater than 999 999 999 fails with MQRC_EXPIRY_ERROR
    # (the upper limit when AMQ_ENFORCE_MAX_EXPIRY_ERROR is exported); no report either
    monkeypatch.setenv("AMQ_ENFORCE_MAX_EXPIRY_ERROR", "True")
    qm.define_queue("QLOCAL", "EXP.Q")
    qm.define_queue("QLOCAL", "EXP.REPLY")
    conn = qm.connect()
    conn.put("EXP.Q", MQMD(Expiry=999_999_999), b"max is fine")
    with pytest.raises(MQError) as err:
        conn.put(
            "EXP.Q",
            MQMD(Expiry=1_000_000_000, Report=C.MQRO_EXPIRATION, ReplyToQ="EXP.REPLY"),
            b"x",
        )
    assert err.value.reason == C.MQRC_EXPIRY_ERROR
    assert qm.queue_depth("EXP.Q") == 1
    assert qm.queue_depth("EXP.REPLY") == 0


def test_expired_messages_count_toward_depth_and_maxdepth(qm: QueueManager) -> None:
    # seed 000 note 2: expired messages "count toward the number of messages on the queue
    # for all purposes" - MAXDEPTH included, until they are discarded
    qm.define_queue("QLOCAL", "EXP.Q", {"MAXDEPTH": 1})
    conn = qm.connect()
    conn.put("EXP.Q", MQMD(Expiry=1), b"old")
    time.sleep(0.2)
    with pytest.raises(MQError) as err:
        conn.put("EXP.Q", MQMD(), b"new")
    assert err.value.reason == C.MQRC_Q_FULL
    assert [r["CURDEPTH"] for r in qm.display_queues("EXP.Q", "QLOCAL", ["CURDEPTH"])] == [1]
    qm.refresh_expiry("EXP.Q")
    conn.put("EXP.Q", MQMD(), b"new")
