"""Seed 004: "the expiry interval of a message put under syncpoint starts when the message
is put, not when the syncpoint is committed. The interval may end before the syncpoint is
committed: the message is then discarded shortly after the commit, and is never returned
to an MQGET" -- without waiting for a get or a scan to meet it."""

from __future__ import annotations

import contextlib
import sqlite3
import time

import mqjms
from mqjms.mq import MQMD, C
from mqjms.qmgr import QueueManager, expiry
from mqjms.qmgr.connection_state import TRACKED
from mqjms.semantics import SyncpointPut
from mqjms.semantics.pubsub import SubscriptionDescriptor

Q, REPLY, OTHER = "COMMIT.Q", "COMMIT.REPLY", "OTHER.Q"
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
    # put under syncpoint before it and expired is discarded by the commit, with its
    # report, though the step's get is on another queue and never meets it
    _queues(qm)
    qm.define_queue("QLOCAL", OTHER)
    qm.define_queue("QLOCAL", "STEP.IN")
    conn = qm.connect()
    md = MQMD(Expiry=SHORT, Report=C.MQRO_EXPIRATION, ReplyToQ=REPLY)
    conn.put(Q, md, b"late commit", syncpoint=True)
    time.sleep(PAST_SHORT)
    step = [SyncpointPut(OTHER, MQMD(), b"sent by the step")]
    assert conn.commit_and_get(conn.open("STEP.IN", IN), step) is None
    assert qm.queue_depth(Q) == 0
    report = conn.get(conn.open(REPLY, IN))
    assert report is not None and report[0].Feedback == C.MQFB_EXPIRATION
    assert qm.queue_depth(OTHER) == 1


def test_a_unit_of_work_of_many_puts_discards_its_own_expired_messages(
    qm: QueueManager,
) -> None:
    # seed 004 when the unit of work put more messages than it tracks: the ones it put
    # are discarded at the commit, not a batch of older expired messages of other queues
    _queues(qm)
    qm.define_queue("QLOCAL", OTHER)
    old = qm.connect()
    for _ in range(expiry.DISCARD_BATCH + 10):
        old.put(OTHER, MQMD(Expiry=1), b"expired elsewhere, not yet met")
    time.sleep(PAST_SHORT)
    conn = qm.connect()
    for _ in range(TRACKED + 4):
        conn.put(Q, MQMD(Expiry=SHORT), b"late commit", syncpoint=True)
    time.sleep(PAST_SHORT)
    conn.commit()
    assert qm.queue_depth(Q) == 0
    assert qm.queue_depth(OTHER) == expiry.DISCARD_BATCH + 10  # left for a get or scan


def test_a_publication_under_syncpoint_that_expired_before_the_commit_is_discarded(
    qm: QueueManager,
) -> None:
    # seed 004 for a publication put under syncpoint: its subscriber's copy is discarded
    # at the commit as a message put on the queue would be
    _queues(qm)
    conn = qm.connect()
    subscription = SubscriptionDescriptor(
        options=C.MQSO_CREATE | C.MQSO_NON_DURABLE, object_string="late/news"
    )
    conn.subscribe(subscription, conn.open(Q, C.MQOO_OUTPUT))
    conn.put(conn.open_topic("late/news"), MQMD(Expiry=SHORT), b"late news", syncpoint=True)
    time.sleep(PAST_SHORT)
    conn.commit()
    assert qm.queue_depth(Q) == 0


def test_the_expiry_a_unit_of_work_keeps_is_its_stored_messages(qm: QueueManager) -> None:
    # seed 004: "the expiry interval ... starts when the message is put": the unit of
    # work keeps the expiry of the row as stored (the put's transaction time), not one
    # computed from a clock read after the put
    _queues(qm)
    conn = qm.connect()
    conn.put(Q, MQMD(Expiry=SHORT), b"timed", syncpoint=True)
    with contextlib.closing(sqlite3.connect(conn.db_file)) as db:
        (stored,) = db.execute("SELECT expires FROM messages WHERE queue = ?", (Q,)).fetchone()
    assert conn._uow.expires == stored


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
