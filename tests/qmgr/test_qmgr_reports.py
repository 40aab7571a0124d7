"""Confirm-on-arrival and confirm-on-delivery reports on the embedded queue manager, where
the contract's tests cannot reach: a report its ReplyToQ does not take goes to the
dead-letter queue with an MQDLH, as IBM MQ does, and the get or put it reports on
succeeds all the same."""

from __future__ import annotations

from mqjms.mq import MQMD, C
from mqjms.mq.dlh import parse_dlh
from mqjms.qmgr import QueueManager

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
