"""Confirm-on-arrival and confirm-on-delivery reports on the embedded queue manager, where
the contract's tests cannot reach: a report its ReplyToQ does not take goes to the
dead-letter queue with an MQDLH, as IBM MQ does, and the get or put it reports on
succeeds all the same."""

from __future__ import annotations

import errno
import sqlite3
from typing import Any

import pytest

from mqjms.mq import MQMD, C, MQError
from mqjms.mq.dlh import parse_dlh
from mqjms.qmgr import QueueManager, commits, messages
from mqjms.semantics import commit_and_get

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def drain(qm: QueueManager, queue: str) -> list[tuple[MQMD, bytes]]:
    conn = qm.connect("drain")
    handle = conn.open(queue, C.MQOO_INPUT_SHARED)
    out = []
    while (got := conn.get(handle)) is not None:
        out.append(got)
    conn.disconnect()
    return out


def test_a_cod_report_its_reply_queue_refuses_is_dead_lettered(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", "RP.Q")
    qm.define_queue("QLOCAL", "RP.FULL", {"PUT": "DISABLED"})
    conn = qm.connect("reports")
    sent = conn.put("RP.Q", MQMD(Report=C.MQRO_COD, ReplyToQ="RP.FULL"), b"body")
    handle = conn.open("RP.Q", C.MQOO_INPUT_SHARED)
    got = conn.get(handle)
    assert got is not None and got[1] == b"body"  # the get is not failed by its report
    ((md, data),) = drain(qm, DLQ)
    dlh, _ = parse_dlh(data, md.Encoding)
    assert dlh.Reason == C.MQRC_PUT_INHIBITED and dlh.DestQName.strip() == "RP.FULL"
    assert md.Format.strip() == C.MQFMT_DEAD_LETTER_HEADER.strip()
    assert drain(qm, "RP.Q") == []
    assert sent.Report == C.MQRO_COD


def test_a_coa_report_goes_with_the_put_to_a_missing_reply_queue_too(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", "RP.Q")
    conn = qm.connect("reports")
    conn.put("RP.Q", MQMD(Report=C.MQRO_COA, ReplyToQ="RP.NOWHERE"), b"body")
    ((md, data),) = drain(qm, DLQ)
    assert parse_dlh(data, md.Encoding)[0].Reason == C.MQRC_UNKNOWN_OBJECT_NAME
    assert [body for _, body in drain(qm, "RP.Q")] == [b"body"]


def test_a_cod_report_goes_with_a_get_whose_step_failed_to_sync(
    qm: QueueManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the step's commit stands but its fsync failed: the message its get took is released
    # as if never got, and the COD that get sent is withdrawn with it (else a second COD
    # came when the message was really delivered)
    qm.define_queue("QLOCAL", "RP.Q")
    qm.define_queue("QLOCAL", "RP.REPLY")
    conn = qm.connect("reports")
    handle = conn.open("RP.Q", C.MQOO_INPUT_SHARED)
    md = MQMD(Persistence=C.MQPER_PERSISTENT, Report=C.MQRO_COD, ReplyToQ="RP.REPLY")
    for body in (b"first", b"second"):
        conn.put("RP.Q", md, body)
    assert conn.get(handle, syncpoint=True) is not None
    failing = [True]
    original = commits.GroupSync._fsync

    def fsync(self: commits.GroupSync) -> None:
        if failing and failing.pop():
            raise OSError(errno.EIO, "Input/output error")
        original(self)

    monkeypatch.setattr(commits.GroupSync, "_fsync", fsync)
    with pytest.raises(MQError):
        commit_and_get(conn, handle, wait=0)
    got = conn.get(handle, syncpoint=True)
    assert got is not None and got[1] == b"second" and got[0].BackoutCount == 0
    conn.commit()
    assert [md.Feedback for md, _ in drain(qm, "RP.REPLY")] == [C.MQFB_COD, C.MQFB_COD]


def test_a_report_that_cannot_be_stored_fails_the_get_it_reports_on(
    qm: QueueManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a storage failure writing the report fails the whole get (which a caller retries
    # once room is made): never a get committed with its report silently dropped
    qm.define_queue("QLOCAL", "RP.Q")
    qm.define_queue("QLOCAL", "RP.REPLY")
    conn = qm.connect("reports")
    conn.put("RP.Q", MQMD(Report=C.MQRO_COD, ReplyToQ="RP.REPLY"), b"body")
    original = messages.insert

    def insert(db: sqlite3.Connection, queue: str, *args: Any, **kwargs: Any) -> int:
        if queue == "RP.REPLY":
            raise sqlite3.OperationalError("disk I/O error")
        return original(db, queue, *args, **kwargs)

    monkeypatch.setattr(messages, "insert", insert)
    handle = conn.open("RP.Q", C.MQOO_INPUT_SHARED)
    with pytest.raises(MQError):
        conn.get(handle)
    monkeypatch.setattr(messages, "insert", original)
    assert qm.queue_depth("RP.Q") == 1  # still there, to be got again
    got = conn.get(handle)
    assert got is not None and got[1] == b"body"
    assert [md.Feedback for md, _ in drain(qm, "RP.REPLY")] == [C.MQFB_COD]


def test_a_reserved_message_taken_under_syncpoint_sends_its_cod_with_the_commit(
    qm: QueueManager,
) -> None:
    qm.define_queue("QLOCAL", "RP.Q")
    qm.define_queue("QLOCAL", "RP.REPLY")
    conn = qm.connect("reports")
    handle = conn.open("RP.Q", C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT)
    conn.put(handle, MQMD(Report=C.MQRO_COD, ReplyToQ="RP.REPLY"), b"staged")
    assert conn.reserve(handle, "stager", 10) == 1
    got = conn.get_reserved("stager", 1)
    assert got is not None and got[1] == b"staged"
    assert drain(qm, "RP.REPLY") == []  # not before the commit
    conn.commit()
    assert [md.Feedback for md, _ in drain(qm, "RP.REPLY")] == [C.MQFB_COD]
