"""Transmission queues and the two Expiry fields of an MQXMIT message (seeds 000, 001 and
004, note 9), on the embedded queue manager.

Note 9: "A message (normally on a transmission queue) that has a Format name of
MQFMT_XMIT_Q_HEADER has a second message descriptor within the MQXQH. It therefore has
two Expiry fields associated with it."
"""

from __future__ import annotations

import time

import pytest

from mqjms.mq import MQMD, MQXQH, C, MQError, parse_xqh
from mqjms.mq.xqh import EMBEDDED_EXPIRY_END
from mqjms.qmgr import QueueManager
from mqjms.qmgr.connection import QMConnection
from mqjms.qmgr.mqsc import run_script
from mqjms.transport import Browse

XMITQ, NORMAL, REPLY = "TO.QM2", "APP.Q", "APP.REPLY"
IN = C.MQOO_INPUT_SHARED
PAYLOAD = b"application data"


def xmit(inner: int, encoding: int = C.MQENC_NATIVE) -> bytes:
    """An MQXQH whose embedded MQMD has Expiry ``inner``, then the application data."""
    header = MQXQH(
        RemoteQName="ORDERS.IN",
        RemoteQMgrName="QM2",
        MsgDesc=MQMD(Expiry=inner, Format=C.MQFMT_STRING),
    )
    return header.pack(encoding) + PAYLOAD


def put_xmit(
    conn: QMConnection,
    queue: str,
    data: bytes,
    outer: int,
    encoding: int = C.MQENC_NATIVE,
    **md: object,
) -> MQMD:
    fields = {"Format": C.MQFMT_XMIT_Q_HEADER, "Expiry": outer, "Encoding": encoding, **md}
    return conn.put(queue, MQMD(**fields), data)  # type: ignore[arg-type]


def inner_expiry(md: MQMD, data: bytes) -> int:
    header, rest = parse_xqh(data, md.Encoding)
    assert rest == PAYLOAD
    return header.MsgDesc.Expiry


@pytest.fixture
def conn(qm: QueueManager) -> QMConnection:
    qm.define_queue("QLOCAL", XMITQ, {"USAGE": "XMITQ"})
    qm.define_queue("QLOCAL", NORMAL, {})
    qm.define_queue("QLOCAL", REPLY, {})
    return qm.connect()


# --------------------------------------------------------------------------- USAGE(XMITQ)


def test_usage_in_mqsc_define_alter_display_and_mqinq(qm: QueueManager) -> None:
    results = list(
        run_script(
            qm,
            """
            DEFINE QLOCAL(TO.QM3) USAGE(XMITQ)
            DEFINE QLOCAL(PLAIN.Q)
            DISPLAY QLOCAL(TO.QM3) USAGE
            DISPLAY QLOCAL(PLAIN.Q) USAGE
            ALTER QLOCAL(PLAIN.Q) USAGE(XMITQ)
            DISPLAY QLOCAL(PLAIN.Q) USAGE
            """,
        )
    )
    assert all(r.ok for r in results), [r.error for r in results]
    assert results[2].objects[0]["USAGE"] == "XMITQ"
    assert results[3].objects[0]["USAGE"] == "NORMAL"  # USAGE(NORMAL) is the default
    assert results[5].objects[0]["USAGE"] == "XMITQ"
    conn = qm.connect()
    assert conn.inquire("TO.QM3", [C.MQIA_USAGE]) == {C.MQIA_USAGE: C.MQUS_TRANSMISSION}
    qm.define_queue("QLOCAL", "OTHER.Q", {})
    assert conn.inquire("OTHER.Q", [C.MQIA_USAGE]) == {C.MQIA_USAGE: C.MQUS_NORMAL}


# --------------------------------------------------------------------------- put


def test_put_directly_to_a_transmission_queue_with_a_valid_xqh(conn: QMConnection) -> None:
    # note 9: "If an application puts a message directly on a local transmission queue,
    # the message data must already begin with an MQXQH structure ... the application need
    # not set the values of these two Expiry fields to be the same."
    put_xmit(conn, XMITQ, xmit(inner=30), outer=50)
    put_xmit(conn, XMITQ, xmit(inner=50), outer=50)
    put_xmit(conn, XMITQ, xmit(inner=30), outer=C.MQEI_UNLIMITED)
    put_xmit(conn, XMITQ, xmit(inner=C.MQEI_UNLIMITED), outer=C.MQEI_UNLIMITED)
    assert conn.inquire(XMITQ, [C.MQIA_CURRENT_Q_DEPTH])[C.MQIA_CURRENT_Q_DEPTH] == 4


@pytest.mark.parametrize("inner", [0, -2, -100], ids=["zero", "minus-two", "minus-100"])
def test_put_with_an_invalid_embedded_expiry_fails_2013(conn: QMConnection, inner: int) -> None:
    # note 9: "The queue manager checks that the Expiry field within the MQXQH contains a
    # valid value" (note 1: Expiry 0 is not valid; MQEI_UNLIMITED is -1).
    with pytest.raises(MQError) as err:
        put_xmit(conn, XMITQ, xmit(inner), outer=50)
    assert err.value.reason == C.MQRC_EXPIRY_ERROR
    assert f"Expiry {inner}" in err.value.detail


def test_put_with_data_too_short_for_the_embedded_expiry_fails_2013(
    conn: QMConnection,
) -> None:
    # note 9: the queue manager checks "that the message data is long enough to include it"
    data = xmit(50)[: EMBEDDED_EXPIRY_END - 1]
    with pytest.raises(MQError) as err:
        put_xmit(conn, XMITQ, data, outer=50)
    assert err.value.reason == C.MQRC_EXPIRY_ERROR
    assert "too short" in err.value.detail
    put_xmit(conn, XMITQ, xmit(50)[:EMBEDDED_EXPIRY_END], outer=50)  # just long enough


def test_put_of_data_not_beginning_with_an_xqh_fails_2013(conn: QMConnection) -> None:
    # note 9: "the message data must already begin with an MQXQH structure"
    with pytest.raises(MQError) as err:
        put_xmit(conn, XMITQ, b"not a header" * 20, outer=50)
    assert err.value.reason == C.MQRC_EXPIRY_ERROR
    assert "MQXQH" in err.value.detail


@pytest.mark.parametrize(
    ("inner", "outer"), [(60, 50), (C.MQEI_UNLIMITED, 50)], ids=["longer", "unlimited"]
)
def test_put_with_an_inconsistent_embedded_expiry_fails_2013(
    conn: QMConnection, inner: int, outer: int
) -> None:
    # note 9 (seed 000 / 004): "if the expiry value in the message descriptor written to
    # the transmission queue is inconsistent with the value in the embedded message
    # descriptor, an expiry error rejection occurs" -- the embedded message outliving the
    # message that carries it.
    with pytest.raises(MQError) as err:
        put_xmit(conn, XMITQ, xmit(inner), outer=outer)
    assert err.value.reason == C.MQRC_EXPIRY_ERROR
    assert "inconsistent" in err.value.detail


def test_rejected_put_sends_no_report(conn: QMConnection) -> None:
    # note 1: "the MQPUT or MQPUT1 call fails with reason code MQRC_EXPIRY_ERROR; no report
    # message is generated in this case."
    report = C.MQRO_EXCEPTION_WITH_FULL_DATA | C.MQRO_EXPIRATION_WITH_FULL_DATA
    with pytest.raises(MQError):
        put_xmit(conn, XMITQ, xmit(0), outer=50, Report=report, ReplyToQ=REPLY)
    assert conn.inquire(REPLY, [C.MQIA_CURRENT_Q_DEPTH])[C.MQIA_CURRENT_Q_DEPTH] == 0
    assert conn.inquire(XMITQ, [C.MQIA_CURRENT_Q_DEPTH])[C.MQIA_CURRENT_Q_DEPTH] == 0


def test_other_formats_on_a_transmission_queue_are_not_checked(conn: QMConnection) -> None:
    # seed 001 note 9: "the format name must be FMXQH (but the queue manager does not
    # enforce this)" -- a message of another format is put as it is.
    conn.put(XMITQ, MQMD(Format=C.MQFMT_STRING), b"plain text")
    handle = conn.open(XMITQ, IN)
    assert conn.get(handle)[1] == b"plain text"


def test_short_mqxmit_data_on_a_normal_queue_is_put_and_got_unchanged(
    conn: QMConnection,
) -> None:
    # note 9: only a put directly to a transmission queue is checked; a get raises nothing
    # when "the message data is not long enough to include the Expiry field in the MQXQH".
    short = xmit(30)[: EMBEDDED_EXPIRY_END - 1]
    put_xmit(conn, NORMAL, short, outer=50)
    put_xmit(conn, NORMAL, b"XQH", outer=50)
    handle = conn.open(NORMAL, IN)
    assert conn.get(handle)[1] == short
    assert conn.get(handle)[1] == b"XQH"


# --------------------------------------------------------------------------- get


@pytest.mark.parametrize("queue", [XMITQ, NORMAL], ids=["transmission-queue", "normal-queue"])
@pytest.mark.parametrize("encoding", [C.MQENC_NORMAL, C.MQENC_REVERSED])
def test_get_decrements_both_expiry_fields(conn: QMConnection, queue: str, encoding: int) -> None:
    # note 9: "When a message with a Format name of MQFMT_XMIT_Q_HEADER is retrieved from a
    # queue (whether this is a normal or a transmission queue), the queue manager
    # decrements both these Expiry fields with the time spent waiting on the queue."
    put_xmit(conn, queue, xmit(300, encoding), outer=500, encoding=encoding)
    time.sleep(0.35)
    md, data = conn.get(conn.open(queue, IN))
    outer_spent = 500 - md.Expiry
    inner_spent = 300 - inner_expiry(md, data)
    assert outer_spent >= 3 and inner_spent >= 3
    assert abs(outer_spent - inner_spent) <= 1  # the same time on the queue


def test_browse_shows_the_decremented_embedded_expiry(conn: QMConnection) -> None:
    put_xmit(conn, XMITQ, xmit(300), outer=500)
    time.sleep(0.25)
    handle = conn.open(XMITQ, C.MQOO_BROWSE)
    md, data = conn.get(handle, browse=Browse.FIRST)
    assert 0 < inner_expiry(md, data) < 300


def test_elapsed_embedded_expiry_is_set_to_zero(conn: QMConnection) -> None:
    # note 9: "the Expiry time in the separate message descriptor when the message is
    # retrieved might be greater than zero (so the message is not eligible for
    # discarding), while the time according to the Expiry field in the MQXQH has elapsed.
    # In this case the Expiry field in the MQXQH is set to zero."
    put_xmit(conn, XMITQ, xmit(1), outer=600)
    time.sleep(0.25)
    md, data = conn.get(conn.open(XMITQ, IN))
    assert md.Expiry > 0
    assert inner_expiry(md, data) == 0


def test_the_outer_expiry_decides_the_discard(conn: QMConnection) -> None:
    # note 9: "The queue manager uses the Expiry field in the separate message descriptor
    # (that is, not the one in the message descriptor embedded within the MQXQH structure)
    # to test whether the message is eligible for discarding."
    put_xmit(conn, NORMAL, xmit(600), outer=1)  # a normal queue: consistency is not checked
    time.sleep(0.25)
    assert conn.get(conn.open(NORMAL, IN)) is None
    assert conn.inquire(NORMAL, [C.MQIA_CURRENT_Q_DEPTH])[C.MQIA_CURRENT_Q_DEPTH] == 0


def test_unlimited_embedded_expiry_stays_unlimited(conn: QMConnection) -> None:
    put_xmit(conn, XMITQ, xmit(C.MQEI_UNLIMITED), outer=C.MQEI_UNLIMITED)
    md, data = conn.get(conn.open(XMITQ, IN))
    assert (md.Expiry, inner_expiry(md, data)) == (C.MQEI_UNLIMITED, C.MQEI_UNLIMITED)


def test_a_backed_out_message_keeps_counting_from_its_arrival(conn: QMConnection) -> None:
    # the time spent on the queue includes the time it was held by a unit of work that
    # backed out (note 5: it "might become eligible to be discarded before it can be
    # retrieved again")
    put_xmit(conn, XMITQ, xmit(300), outer=500)
    handle = conn.open(XMITQ, IN)
    assert conn.get(handle, syncpoint=True) is not None
    time.sleep(0.3)
    conn.backout()
    md, data = conn.get(handle)
    assert inner_expiry(md, data) <= 300 - 3
