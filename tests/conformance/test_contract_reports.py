"""Confirm-on-arrival and confirm-on-delivery reports (MQMD Report MQRO_COA*, MQRO_COD*):
the queue manager sends one to the ReplyToQ when the message is placed on its queue, and
when a get removes it; a report of something done under syncpoint comes with the commit.
Written against the transport contract only."""

from __future__ import annotations

import pytest

from mqjms.mq import MQMD, C
from mqjms.transport import Browse, Connection
from tests.conformance.helpers import drain

pytestmark = pytest.mark.requires("confirm_reports")

IN = C.MQOO_INPUT_SHARED
REPLY = "CONF.REPLY"
BODY = b"please confirm " + b"x" * 200


@pytest.fixture
def reply(broker) -> str:  # type: ignore[no-untyped-def]
    broker.define_queue(REPLY)
    return REPLY


def reports(conn: Connection) -> list[tuple[MQMD, bytes]]:
    """The reports on the reply queue, got."""
    return drain(conn, REPLY)


def put(conn: Connection, queue: str, report: int, *, syncpoint: bool = False) -> MQMD:
    md = MQMD(Report=report, ReplyToQ=REPLY, Persistence=C.MQPER_PERSISTENT)
    return conn.put(queue, md, BODY, syncpoint=syncpoint)


def test_coa_is_sent_when_the_message_is_placed_on_its_queue(
    conn: Connection, queue: str, reply: str
) -> None:
    sent = put(conn, queue, C.MQRO_COA)
    ((md, data),) = reports(conn)
    assert (md.MsgType, md.Feedback) == (C.MQMT_REPORT, C.MQFB_COA)
    assert md.CorrelId == sent.MsgId  # MQRO_COPY_MSG_ID_TO_CORREL_ID, the default
    assert md.MsgId != sent.MsgId  # MQRO_NEW_MSG_ID, the default
    assert data == b"" and md.Persistence == C.MQPER_PERSISTENT


@pytest.mark.parametrize(
    ("option", "length"),
    [(C.MQRO_COA_WITH_DATA, 100), (C.MQRO_COA_WITH_FULL_DATA, len(BODY))],
)
def test_coa_with_data_carries_the_first_100_bytes_or_all(
    conn: Connection, queue: str, reply: str, option: int, length: int
) -> None:
    put(conn, queue, option)
    ((_, data),) = reports(conn)
    assert data == BODY[:length]


def test_coa_of_a_put_under_syncpoint_comes_with_the_commit(
    conn: Connection, queue: str, reply: str
) -> None:
    put(conn, queue, C.MQRO_COA, syncpoint=True)
    conn.backout()
    assert reports(conn) == []
    put(conn, queue, C.MQRO_COA, syncpoint=True)
    conn.commit()
    assert [md.Feedback for md, _ in reports(conn)] == [C.MQFB_COA]


def test_cod_is_sent_when_a_get_removes_the_message(
    conn: Connection, queue: str, reply: str
) -> None:
    sent = put(conn, queue, C.MQRO_COD | C.MQRO_PASS_MSG_ID | C.MQRO_PASS_CORREL_ID)
    handle = conn.open(queue, IN | C.MQOO_BROWSE)
    assert conn.get(handle, browse=Browse.FIRST) is not None
    assert reports(conn) == []  # a browse delivers nothing
    assert conn.get(handle) is not None
    ((md, _),) = reports(conn)
    assert (md.MsgType, md.Feedback) == (C.MQMT_REPORT, C.MQFB_COD)
    assert (md.MsgId, md.CorrelId) == (sent.MsgId, sent.CorrelId)  # passed on


def test_cod_of_a_get_under_syncpoint_comes_with_the_commit_only(
    conn: Connection, queue: str, reply: str
) -> None:
    put(conn, queue, C.MQRO_COD_WITH_DATA)
    handle = conn.open(queue, IN)
    assert conn.get(handle, syncpoint=True) is not None
    assert reports(conn) == []  # not before the commit
    conn.backout()  # the message is back; no delivery to confirm
    assert reports(conn) == []
    got = conn.get(handle, syncpoint=True)
    assert got is not None and got[0].BackoutCount == 1
    conn.commit()
    ((md, data),) = reports(conn)
    assert md.Feedback == C.MQFB_COD and data == BODY[:100]
