"""Delivery order (MSGDLVSQ PRIORITY vs FIFO, seed 003 item 14) and MQINQ on queues and
the queue manager. Written against the transport contract only."""

from __future__ import annotations

import pytest

from mqjms.mq import MQMD, C
from mqjms.transport import Browse, Connection
from tests.conformance.helpers import drain

IN = C.MQOO_INPUT_SHARED


def put_priorities(conn: Connection, queue: str, priorities: list[int]) -> None:
    for i, prio in enumerate(priorities):
        conn.put(queue, MQMD(Priority=prio), f"{i}:p{prio}".encode())


# --------------------------------------------------------------------------- order


@pytest.mark.requires("priority")
def test_priority_queue_delivers_highest_priority_first_then_fifo(conn: Connection, broker) -> None:
    broker.define_queue("CONF.PRIO", MSGDLVSQ="PRIORITY")
    put_priorities(conn, "CONF.PRIO", [1, 5, 9, 5, 0, 9])
    got = [data for _, data in drain(conn, "CONF.PRIO")]
    assert got == [b"2:p9", b"5:p9", b"1:p5", b"3:p5", b"0:p1", b"4:p0"]


@pytest.mark.requires("priority")
def test_priority_queue_browse_follows_priority_order(conn: Connection, broker) -> None:
    broker.define_queue("CONF.PRIO", MSGDLVSQ="PRIORITY")
    put_priorities(conn, "CONF.PRIO", [3, 7, 3])
    handle = conn.open("CONF.PRIO", C.MQOO_BROWSE)
    seen = [conn.get(handle, browse=Browse.FIRST)[1]]
    while (got := conn.get(handle, browse=Browse.NEXT)) is not None:
        seen.append(got[1])
    assert seen == [b"1:p7", b"0:p3", b"2:p3"]


@pytest.mark.requires("priority")
def test_priority_as_queue_default_takes_defprty(conn: Connection, broker) -> None:
    broker.define_queue("CONF.PRIO", DEFPRTY=6)
    conn.put("CONF.PRIO", MQMD(), b"default")  # Priority MQPRI_PRIORITY_AS_Q_DEF
    conn.put("CONF.PRIO", MQMD(Priority=7), b"seven")
    got = drain(conn, "CONF.PRIO")
    assert [(md.Priority, data) for md, data in got] == [(7, b"seven"), (6, b"default")]


@pytest.mark.requires("fifo")
def test_fifo_queue_ignores_priority_for_order(conn: Connection, broker) -> None:
    # seed 003 item 14: MSGDLVSQ=FIFO delivers first in, first out; priority is ignored
    broker.define_queue("CONF.FIFO", MSGDLVSQ="FIFO")
    put_priorities(conn, "CONF.FIFO", [1, 9, 0, 5, 9])
    got = [data for _, data in drain(conn, "CONF.FIFO")]
    assert got == [b"0:p1", b"1:p9", b"2:p0", b"3:p5", b"4:p9"]


@pytest.mark.requires("fifo")
def test_fifo_browse_ignores_priority(conn: Connection, broker) -> None:
    # seed 003 item 14: FIFO order for browse as well
    broker.define_queue("CONF.FIFO", MSGDLVSQ="FIFO")
    put_priorities(conn, "CONF.FIFO", [0, 9, 4])
    handle = conn.open("CONF.FIFO", C.MQOO_BROWSE)
    seen = [conn.get(handle, browse=Browse.FIRST)[1]]
    while (got := conn.get(handle, browse=Browse.NEXT)) is not None:
        seen.append(got[1])
    assert seen == [b"0:p0", b"1:p9", b"2:p4"]


@pytest.mark.requires("fifo")
def test_fifo_queue_keeps_the_putters_priority_in_the_mqmd(conn: Connection, broker) -> None:
    # seed 003 item 14: "The priority of the message is ignored and the default priority
    # of the queue is assigned to the message" -- for ordering and trigger conditions; the
    # MQMD keeps the Priority the putter gave (IBM's MQMD Priority), so JMSPriority and a
    # moved poison message keep it too.
    broker.define_queue("CONF.FIFO", MSGDLVSQ="FIFO", DEFPRTY=4)
    put_priorities(conn, "CONF.FIFO", [9, 0])
    got = drain(conn, "CONF.FIFO")
    assert [md.Priority for md, _ in got] == [9, 0]


@pytest.mark.requires("fifo", "priority")
def test_backed_out_message_returns_to_its_place_in_either_order(conn: Connection, broker) -> None:
    broker.define_queue("CONF.FIFO", MSGDLVSQ="FIFO")
    put_priorities(conn, "CONF.FIFO", [0, 9])
    handle = conn.open("CONF.FIFO", IN)
    assert conn.get(handle, syncpoint=True)[1] == b"0:p0"
    conn.backout()
    assert [d for _, d in drain(conn, "CONF.FIFO")] == [b"0:p0", b"1:p9"]


# --------------------------------------------------------------------------- inquire


def test_inquire_backout_attributes_and_type(conn: Connection, broker) -> None:
    broker.define_queue("CONF.BOQ")
    broker.define_queue("CONF.IN", BOTHRESH=3, BOQNAME="CONF.BOQ")
    got = conn.inquire(
        "CONF.IN",
        [
            C.MQIA_BACKOUT_THRESHOLD,
            C.MQCA_BACKOUT_REQ_Q_NAME,
            C.MQIA_Q_TYPE,
            C.MQIA_CURRENT_Q_DEPTH,
        ],
    )
    assert got == {
        C.MQIA_BACKOUT_THRESHOLD: 3,
        C.MQCA_BACKOUT_REQ_Q_NAME: "CONF.BOQ",
        C.MQIA_Q_TYPE: C.MQQT_LOCAL,
        C.MQIA_CURRENT_Q_DEPTH: 0,
    }


def test_inquire_defaults(conn: Connection, queue: str) -> None:
    got = conn.inquire(queue, [C.MQIA_BACKOUT_THRESHOLD, C.MQCA_BACKOUT_REQ_Q_NAME])
    assert got == {C.MQIA_BACKOUT_THRESHOLD: 0, C.MQCA_BACKOUT_REQ_Q_NAME: ""}


def test_inquire_curdepth_follows_puts_and_gets(conn: Connection, queue: str) -> None:
    for i in range(4):
        conn.put(queue, MQMD(), b"%d" % i)
    assert conn.inquire(queue, [C.MQIA_CURRENT_Q_DEPTH]) == {C.MQIA_CURRENT_Q_DEPTH: 4}
    handle = conn.open(queue, IN)
    conn.get(handle)
    assert conn.inquire(queue, [C.MQIA_CURRENT_Q_DEPTH]) == {C.MQIA_CURRENT_Q_DEPTH: 3}


def test_inquire_through_a_handle(conn: Connection, broker) -> None:
    broker.define_queue("CONF.IN", BOTHRESH=5)
    handle = conn.open("CONF.IN", C.MQOO_INQUIRE | IN)
    assert conn.inquire(handle, [C.MQIA_BACKOUT_THRESHOLD]) == {C.MQIA_BACKOUT_THRESHOLD: 5}


@pytest.mark.requires("alias")
def test_inquire_alias_type_and_base_queue(conn: Connection, broker) -> None:
    broker.define_queue("CONF.BASE", BOTHRESH=2, BOQNAME="CONF.BOQ")
    broker.define_alias("CONF.ALIAS", "CONF.BASE")
    got = conn.inquire("CONF.ALIAS", [C.MQIA_Q_TYPE, C.MQCA_BASE_Q_NAME])
    assert got == {C.MQIA_Q_TYPE: C.MQQT_ALIAS, C.MQCA_BASE_Q_NAME: "CONF.BASE"}
    # seed 002: the JMS client inquires BOTHRESH/BOQNAME on the base queue
    base = str(got[C.MQCA_BASE_Q_NAME])
    assert conn.inquire(base, [C.MQIA_BACKOUT_THRESHOLD, C.MQCA_BACKOUT_REQ_Q_NAME]) == {
        C.MQIA_BACKOUT_THRESHOLD: 2,
        C.MQCA_BACKOUT_REQ_Q_NAME: "CONF.BOQ",
    }


def test_inquire_qmgr_deadq(conn: Connection, broker) -> None:
    got = conn.inquire_qmgr([C.MQCA_DEAD_LETTER_Q_NAME])
    # ActiveMQ's dead-letter queue is ActiveMQ.DLQ; the embedded one SYSTEM.DEAD.LETTER.QUEUE
    assert got == {C.MQCA_DEAD_LETTER_Q_NAME: broker.default_deadq}
    broker.define_queue("CONF.DLQ")
    broker.alter_qmgr(DEADQ="CONF.DLQ")
    assert conn.inquire_qmgr([C.MQCA_DEAD_LETTER_Q_NAME]) == {C.MQCA_DEAD_LETTER_Q_NAME: "CONF.DLQ"}


def test_qmgr_name_is_known(conn: Connection) -> None:
    name = conn.qmgr_name
    assert isinstance(name, str) and name.strip()
    assert conn.inquire_qmgr([C.MQCA_Q_MGR_NAME]) == {C.MQCA_Q_MGR_NAME: name}
