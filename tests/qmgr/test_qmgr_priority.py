"""Message priority on the embedded queue manager: the MQMD keeps the putter's Priority.

IBM's MQMD Priority: a message on a FIFO queue is ordered (and counted for triggering,
seed 003 item 14) at the queue's DEFPRTY; a Priority above MaxPriority (9) is put with
MQCC_WARNING and MQRC_PRIORITY_EXCEEDS_MAXIMUM (2049): "The message is accepted by the
queue manager, but is placed on the queue at the queue manager's maximum priority. The
Priority field in the message descriptor retains the value specified by the application
that put the message."
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import mqjms
from mqjms.cli import main
from mqjms.mq import MQMD, C, MQError
from mqjms.qmgr import QueueManager
from mqjms.transport import Browse, connect, put_warning

IN = C.MQOO_INPUT_SHARED
FIFO, PRIO = "PRI.FIFO", "PRI.PRIO"


def drain(conn: Any, queue: str) -> list[tuple[MQMD, bytes]]:
    handle = conn.open(queue, IN)
    out = []
    while (got := conn.get(handle)) is not None:
        out.append(got)
    conn.close(handle)
    return out


# --------------------------------------------------------------------------- MSGDLVSQ(FIFO)


def test_fifo_queue_keeps_the_putters_priority_in_the_mqmd(qm: QueueManager) -> None:
    # seed 003 item 14 orders a FIFO queue's messages at its default priority; the MQMD
    # (what MQGET returns, what JMSPriority comes from) keeps the Priority that was put.
    qm.define_queue("QLOCAL", FIFO, {"MSGDLVSQ": "FIFO", "DEFPRTY": 2})
    conn = qm.connect()
    assert conn.put(FIFO, MQMD(Priority=9), b"nine").Priority == 9
    conn.put(FIFO, MQMD(Priority=0), b"zero")
    conn.put(FIFO, MQMD(), b"default")  # MQPRI_PRIORITY_AS_Q_DEF: DEFPRTY
    got = drain(conn, FIFO)
    assert [(md.Priority, data) for md, data in got] == [
        (9, b"nine"),
        (0, b"zero"),
        (2, b"default"),
    ]


def test_fifo_browse_shows_the_putters_priority(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", FIFO, {"MSGDLVSQ": "FIFO", "DEFPRTY": 2})
    conn = qm.connect()
    conn.put(FIFO, MQMD(Priority=7), b"seven")
    handle = conn.open(FIFO, C.MQOO_BROWSE)
    md, _ = conn.get(handle, browse=Browse.FIRST)
    assert md.Priority == 7


def test_jms_priority_survives_a_fifo_queue(embedded_url: str, qm: QueueManager) -> None:
    # JMSPriority comes from the MQMD Priority: on MSGDLVSQ(FIFO) DEFPRTY(2) a message
    # sent at JMS's default priority 4 is received with JMSPriority 4, not 2.
    qm.define_queue("QLOCAL", FIFO, {"MSGDLVSQ": "FIFO", "DEFPRTY": 2})
    with mqjms.ConnectionFactory(embedded_url).connect() as connection:
        session = connection.session()
        session.producer(FIFO).send("hello")
        message = session.consumer(FIFO).receive(timeout=1.0)
    assert message is not None and message.jms_priority == 4
    assert message.md.Priority == 4


# --------------------------------------------------------------------------- above MaxPriority


def test_priority_above_nine_warns_2049_and_keeps_the_value(qm: QueueManager) -> None:
    # MQRC_PRIORITY_EXCEEDS_MAXIMUM (2049), MQCC_WARNING: the put succeeds.
    qm.define_queue("QLOCAL", PRIO, {})
    conn = qm.connect()
    put = conn.put(PRIO, MQMD(Priority=12), b"twelve")
    assert put.Priority == 12
    warning = put_warning(conn)
    assert isinstance(warning, MQError)
    assert (warning.comp, warning.reason) == (C.MQCC_WARNING, C.MQRC_PRIORITY_EXCEEDS_MAXIMUM)
    assert "Priority 12" in warning.detail
    md, data = drain(conn, PRIO)[0]
    assert (md.Priority, data) == (12, b"twelve")


def test_the_next_put_clears_the_warning(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", PRIO, {})
    conn = qm.connect()
    conn.put(PRIO, MQMD(Priority=10), b"ten")
    assert put_warning(conn) is not None
    conn.put(PRIO, MQMD(Priority=9), b"nine")
    assert put_warning(conn) is None


def test_priority_above_nine_is_queued_at_nine(qm: QueueManager) -> None:
    # "placed on the queue at the queue manager's maximum priority": it is not ahead of
    # a priority 9 message put before it, and is ahead of priority 8.
    qm.define_queue("QLOCAL", PRIO, {})
    conn = qm.connect()
    conn.put(PRIO, MQMD(Priority=8), b"eight")
    conn.put(PRIO, MQMD(Priority=9), b"nine")
    conn.put(PRIO, MQMD(Priority=77), b"seventy-seven")
    conn.put(PRIO, MQMD(Priority=9), b"nine again")
    got = [data for _, data in drain(conn, PRIO)]
    assert got == [b"nine", b"seventy-seven", b"nine again", b"eight"]


def test_priority_below_minus_one_still_fails_2050(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", PRIO, {})
    conn = qm.connect()
    with pytest.raises(MQError) as err:
        conn.put(PRIO, MQMD(Priority=-2), b"x")
    assert err.value.reason == C.MQRC_PRIORITY_ERROR


# --------------------------------------------------------------------------- the CLI


def test_cli_put_prints_the_2049_warning_and_succeeds(
    embedded_url: str, qm: QueueManager, capsys: pytest.CaptureFixture[str]
) -> None:
    qm.define_queue("QLOCAL", PRIO, {})
    status = main(["put", "--url", embedded_url, PRIO, "--body", "x", "--priority", "12"])
    out, err = capsys.readouterr()
    assert status == 0
    assert len(out.split()) == 1  # the MsgId
    assert "warning: MQRC_PRIORITY_EXCEEDS_MAXIMUM (2049)" in err
    conn = connect(embedded_url)
    try:
        assert drain(conn, PRIO)[0][0].Priority == 12
    finally:
        conn.disconnect()


def test_cli_put_on_a_fifo_queue_keeps_the_priority(
    embedded_url: str, qm: QueueManager, capsys: pytest.CaptureFixture[str]
) -> None:
    # `mqjms put F.Q --priority 9` on MSGDLVSQ(FIFO) DEFPRTY(2) comes back with Priority 9.
    qm.define_queue("QLOCAL", FIFO, {"MSGDLVSQ": "FIFO", "DEFPRTY": 2})
    assert main(["put", "--url", embedded_url, FIFO, "--body", "x", "--priority", "9"]) == 0
    capsys.readouterr()
    assert main(["get", "--url", embedded_url, FIFO, "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["md"]["Priority"] == 9
    assert "warning" not in err
