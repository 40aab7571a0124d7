"""Seed 004: "the expiry interval of a message put under syncpoint starts when the message
is put, not when the syncpoint is committed. The interval may end before the syncpoint is
committed: the message is then discarded shortly after the commit, and is never returned
to an MQGET" -- without waiting for a get or a scan to meet it."""

from __future__ import annotations

import time

import mqjms
from mqjms.mq import MQMD, C
from mqjms.qmgr import QueueManager
from mqjms.semantics import SyncpointPut

Q, REPLY = "COMMIT.Q", "COMMIT.REPLY"
IN = C.MQOO_INPUT_SHARED
SHORT = 2  # tenths of a second
PAST_SHORT = 0.35  # seconds


def _queues(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", Q)
    qm.define_queue("QLOCAL", REPLY)


def test_a_message_that_expired_before_the_commit_is_discarded_at_the_commit(
    qm: QueueManager,
) -> None:
    # seed 004: discarded shortly after the commit, with the report it asked for (seed
    # 000: "A report is generated when an expired message is discarded"), no get needed
    _queues(qm)
    conn = qm.connect()
    md = MQMD(Expiry=SHORT, Report=C.MQRO_EXPIRATION, ReplyToQ=REPLY)
    conn.put(Q, md, b"late commit", syncpoint=True)
    conn.put(Q, MQMD(), b"lives", syncpoint=True)
    time.sleep(PAST_SHORT)
    assert qm.queue_depth(Q) == 2  # in the unit of work, still counted
    conn.commit()
    assert qm.queue_depth(Q) == 1
    assert qm.queue_depth(REPLY) == 1
    got = conn.get(conn.open(Q, IN))
    assert got is not None and got[1] == b"lives"


def test_a_message_still_unexpired_at_the_commit_stays(qm: QueueManager) -> None:
    # seed 004: only an interval that ended before the commit; one that ends later is
    # discarded as any other (seed 000 note 2: it counts until a get or a scan meets it)
    _queues(qm)
    conn = qm.connect()
    conn.put(Q, MQMD(Expiry=SHORT), b"committed in time", syncpoint=True)
    conn.commit()
    time.sleep(PAST_SHORT)
    assert qm.queue_depth(Q) == 1
    assert conn.get(conn.open(Q, IN)) is None
    assert qm.queue_depth(Q) == 0


def test_a_commit_in_one_step_with_puts_and_a_get_discards_it_too(qm: QueueManager) -> None:
    # seed 004 through MQCMIT's combined step (a consumer's commit_and_get): the message
    # put under syncpoint before it and expired is not got by the step's get
    _queues(qm)
    conn = qm.connect()
    handle = conn.open(Q, IN)
    conn.put(Q, MQMD(Expiry=SHORT), b"late commit", syncpoint=True)
    time.sleep(PAST_SHORT)
    assert conn.commit_and_get(handle, [SyncpointPut(REPLY, MQMD(), b"reply")]) is None
    assert qm.queue_depth(Q) == 0
    assert qm.queue_depth(REPLY) == 1


def test_a_transacted_jms_send_that_expired_before_the_commit_is_discarded(
    qm: QueueManager, embedded_url: str
) -> None:
    # seed 004 through JMS: time_to_live runs from the send, not from Session.commit()
    _queues(qm)
    with mqjms.ConnectionFactory(embedded_url).connect() as connection:
        session = connection.session(transacted=True)
        session.producer(Q).send("late", time_to_live=200)
        time.sleep(PAST_SHORT)
        session.commit()
    assert qm.queue_depth(Q) == 0
