"""A task's rows from packed MQMDs are exactly the rows of unpacked ones (no Spark needed).

The source reads staged messages with their MQMD packed (``read_packed``) and takes the
headerless ones' columns straight from the bytes; every kind of message must give the
same values as :func:`mqjms.spark.columns.row` of the unpacked MQMD.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mqjms.jms.destination import Queue
from mqjms.jms.message import TextMessage, to_mq
from mqjms.mq import constants as C
from mqjms.mq.dlh import MQDLH
from mqjms.mq.md import MQMD
from mqjms.qmgr import QueueManager
from mqjms.spark import columns
from mqjms.spark.staging import LogStaging
from mqjms.transport import Connection, connect

Q = "ORDERS.IN"


def _messages() -> list[tuple[MQMD, bytes]]:
    jms = TextMessage("ünïcode over RFH2", {"region": "emea", "attempt": 3})
    jms.jms_reply_to = "queue:///REPLIES"
    rfh2_md, rfh2_data = to_mq(jms, Queue.parse(Q), priority=7)
    dlh = MQDLH(
        Reason=C.MQRC_Q_FULL,
        DestQName=Q,
        DestQMgrName="QM1",
        Encoding=546,
        CodedCharSetId=1208,
        Format="MQSTR",
    )
    return [
        (MQMD(Format=C.MQFMT_STRING, CodedCharSetId=1208, ReplyToQ="R.Q "), b"order 1"),
        (MQMD(Format=C.MQFMT_STRING, CodedCharSetId=37), "ebcdic".encode("cp037")),
        (MQMD(Format=C.MQFMT_STRING, CodedCharSetId=1208), b"\xff\xfe not utf-8"),
        (MQMD(Format=C.MQFMT_STRING, CodedCharSetId=4242), b"unknown ccsid"),
        (MQMD(Format=C.MQFMT_NONE, Persistence=C.MQPER_PERSISTENT, Expiry=6000), b"\x00\x01"),
        (MQMD(Format="CUSTOM", CorrelId=b"c" * 24, Priority=9), b"binary"),
        (rfh2_md, rfh2_data),
        (MQMD(Format=C.MQFMT_DEAD_LETTER_HEADER), dlh.pack(546) + b"undeliverable"),
    ]


def _put_all(conn: Connection) -> None:
    for md, data in _messages():
        conn.put(Q, md, data)


def _without_clock(rows: list[tuple[object, ...]]) -> list[tuple[object, ...]]:
    """The rows without the remaining Expiry of the one message that expires (each read
    computes it at its own moment: a tenth may pass between them), raw MQMD included."""
    return [(*r[:8], None, *r[9:24]) if r[3] == b"\x00\x01" else r for r in rows]


@pytest.mark.parametrize("raw", [False, True])
def test_reserved_packed_rows_equal_unpacked_rows(
    qm: QueueManager, embedded_url: str, raw: bool
) -> None:
    qm.define_queue("QLOCAL", Q)
    conn = connect(embedded_url)
    _put_all(conn)
    handle = conn.open(Q, C.MQOO_INPUT_SHARED)
    count = len(_messages())
    assert conn.reserve(handle, "spark:Q", count) == count
    conn.renumber_reserved("spark:Q", [2], tag=5, backout=2)  # BackoutCount as staged
    slow = [columns.row(s, md, d, Q, raw) for s, _, md, d in conn.reserved("spark:Q", 0, 99)]
    fast = [
        columns.packed_row(s, md, d, Q, raw)
        for s, _, md, d in conn.reserved_packed("spark:Q", 0, 99)
    ]
    assert _without_clock(fast) == _without_clock(slow)
    assert len(fast) == count
    by_body = {r[3]: r for r in fast}
    assert by_body[b"order 1"][4] == "order 1" and by_body[b"order 1"][10] == "R.Q"
    assert by_body["ebcdic".encode("cp037")][4] == "ebcdic"
    assert by_body[b"\xff\xfe not utf-8"][12] is not None  # PERMISSIVE: says why
    assert by_body[b"\x00\x01"][6] is True and 0 < by_body[b"\x00\x01"][8] <= 6000
    assert [r[9] for r in fast].count(2) == 1
    conn.disconnect()


def test_logged_packed_rows_equal_unpacked_rows(tmp_path: Path) -> None:
    staging = LogStaging(tmp_path / "staging", "spark:Q", Q)
    try:
        for n, (md, data) in enumerate(_messages()):
            md.MsgId = n.to_bytes(24, "big")
            staging.db.execute(
                "INSERT INTO staged (msg_id, backout, md, data) VALUES (?,?,?,?)",
                (md.MsgId, n % 3, md.pack(), data),
            )
        slow = [columns.row(s.seq, s.md, s.data, Q) for s in staging.read(0, 99)]
        fast = [columns.packed_row(s, md, d, Q) for s, md, d in staging.read_packed(0, 99)]
        assert fast == slow and len(fast) == len(_messages())
        assert [r[9] for r in fast] == [n % 3 for n in range(len(_messages()))]
    finally:
        staging.close()


def test_an_mqstr_body_behind_a_broker_domain_rfh2_is_text() -> None:
    # the capture's <mcd><Msd>xmlnsc</Msd></mcd> is no JMS text message, but its body is
    # MQSTR: the text column held null although the docs say "the body decoded when text"
    from mqjms.mq import constants as C
    from mqjms.mq.md import MQMD
    from mqjms.spark.columns import decode
    from tests.mqi.mqi_vendor import rfh2_testdata

    data = (rfh2_testdata() / "single_rfh2.dat").read_bytes()
    md = MQMD(Format=C.MQFMT_RF_HEADER_2, Encoding=273, CodedCharSetId=1208)
    body, text, _, error = decode(md, data)
    assert error is None and text == body.decode() and text.startswith("<testData>")
