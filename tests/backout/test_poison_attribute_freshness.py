"""How long cached BOTHRESH/BOQNAME live, and DEADQ always current (seed 002).

Seed 002 caches BOTHRESH and BOQNAME only: "IBM MQ classes for JMS query the BOTHRESH and
BOQNAME attributes for the queue the first time ... The values of these attributes are
then cached". The dead-letter queue is "the queue manager's dead letter queue": the
current DEADQ, whatever it was when an earlier poison message was handled. mqjms caches
BOTHRESH/BOQNAME at most for the life of a connection (a JMS Connection; a listener
thread's MQ connection), and re-inquires once when a put to the cached BOQNAME fails with
2085 or 2052, so a long-running process never keeps routing to a deleted backout queue.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
import tenacity

import mqjms
from mqjms.mq import C, MQError

IN = "FRESH.IN"
OLD_DLQ, NEW_DLQ = "FRESH.OLD.DLQ", "FRESH.NEW.DLQ"
OLD_BOQ, NEW_BOQ = "FRESH.OLD.BOQ", "FRESH.NEW.BOQ"


def _poison(env: Any, body: str, backouts: int = 1) -> None:
    env.send(IN, body)
    env.back_out(IN, backouts)


def _worker(env: Any) -> mqjms.Worker:
    """A worker whose listener fails every delivery: each message becomes poison."""
    app = mqjms.Worker(env.url, shutdown_timeout=5.0, reconnect_wait=tenacity.wait_fixed(0.05))
    app.get_wait = 0.1

    @app.listener(IN)
    def fail(message: mqjms.Message) -> None:
        raise RuntimeError(f"cannot process {message.body!r}")

    return app


def _wait(predicate: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.02)


# --------------------------------------------------------------------------- DEADQ


def test_a_new_connection_dead_letters_to_the_current_deadq(env: Any) -> None:
    # seed 002: "try to put the message to the dead letter queue for the queue manager"
    # -- the queue manager's DEADQ now. Before the fix the factory cached the old name: a
    # new connection put to the deleted queue, got 2085 and (non-transacted) discarded it.
    env.define_queue(IN, BOTHRESH=1, MSGDLVSQ="FIFO")  # BOQNAME blank: dead-letter
    env.define_queue(OLD_DLQ)
    env.define_queue(NEW_DLQ)
    env.alter_qmgr(DEADQ=OLD_DLQ)
    factory = env.factory()
    _poison(env, "first")
    with factory.connect() as connection:
        assert connection.session().consumer(IN).receive_no_wait() is None
    assert env.depth(OLD_DLQ) == 1
    env.alter_qmgr(DEADQ=NEW_DLQ)
    env.delete_queue(OLD_DLQ)
    _poison(env, "second")
    with factory.connect() as connection:
        assert connection.session().consumer(IN).receive_no_wait() is None
    assert env.depth(IN) == 0
    assert env.depth(NEW_DLQ) == 1


def test_one_session_dead_letters_to_the_current_deadq(env: Any) -> None:
    # seed 002: DEADQ is not among the cached attributes: even the same session follows
    # an ALTER QMGR DEADQ at once.
    env.define_queue(IN, BOTHRESH=1, MSGDLVSQ="FIFO")
    env.define_queue(OLD_DLQ)
    env.define_queue(NEW_DLQ)
    env.alter_qmgr(DEADQ=OLD_DLQ)
    _poison(env, "first")
    session = env.connect().session(transacted=True)
    consumer = session.consumer(IN)
    assert consumer.receive_no_wait() is None
    session.commit()
    env.alter_qmgr(DEADQ=NEW_DLQ)
    _poison(env, "second")
    assert consumer.receive_no_wait() is None
    session.commit()
    assert (env.depth(OLD_DLQ), env.depth(NEW_DLQ), env.depth(IN)) == (1, 1, 0)


def test_a_running_worker_dead_letters_to_the_current_deadq(env: Any) -> None:
    # seed 002 (asynchronous): a worker that cached the old DEADQ got 2085 from it, backed
    # the message out ("returns the message to the input queue") and was stuck on it for
    # good; it now puts to the queue manager's current DEADQ.
    env.define_queue(IN, BOTHRESH=1)
    env.define_queue(OLD_DLQ)
    env.define_queue(NEW_DLQ)
    env.alter_qmgr(DEADQ=OLD_DLQ)
    with _worker(env):
        env.send(IN, "first")
        _wait(lambda: env.depth(OLD_DLQ) == 1, "'first' on the old dead-letter queue")
        env.alter_qmgr(DEADQ=NEW_DLQ)
        env.delete_queue(OLD_DLQ)
        env.send(IN, "second")
        _wait(lambda: env.depth(NEW_DLQ) == 1, "'second' on the new dead-letter queue")
    assert env.depth(IN) == 0


# --------------------------------------------------------------------------- BOTHRESH/BOQNAME


def test_a_new_connection_of_the_same_factory_inquires_afresh(env: Any, spy: Any) -> None:
    # seed 002: values are cached, at most for the life of a connection: a new connection
    # of the same factory sees an ALTER QLOCAL made since.
    env.define_queue(IN, BOTHRESH=0)
    env.define_queue(NEW_BOQ)
    _poison(env, "x")
    factory = env.factory()
    with factory.connect() as connection:
        session = connection.session(transacted=True)
        assert session.consumer(IN).receive_no_wait() is not None  # BOTHRESH 0: delivered
        session.rollback()
    env.alter_queue(IN, BOTHRESH=1, BOQNAME=NEW_BOQ)
    with factory.connect() as connection:
        assert connection.session().consumer(IN).receive_no_wait() is None
    assert env.depth(NEW_BOQ) == 1
    assert spy.backout_inquiries() == [IN, IN]
    assert factory.poison.cache.inquiries == 2


def test_a_deleted_backout_queue_is_inquired_again_once(env: Any, spy: Any) -> None:
    # seed 002 moves a poison message "to the queue specified by the BOQNAME attribute":
    # when the cached BOQNAME was deleted (2085), BOQNAME is inquired once more and the
    # message goes to the backout queue now named, not to the dead-letter queue.
    env.define_queue(IN, BOTHRESH=1, BOQNAME=OLD_BOQ, MSGDLVSQ="FIFO")
    env.define_queue(OLD_BOQ)
    env.define_queue(NEW_BOQ)
    _poison(env, "first")
    session = env.connect().session()
    consumer = session.consumer(IN)
    assert consumer.receive_no_wait() is None
    assert env.depth(OLD_BOQ) == 1
    env.delete_queue(OLD_BOQ)
    env.alter_queue(IN, BOQNAME=NEW_BOQ)
    _poison(env, "second")
    assert consumer.receive_no_wait() is None
    assert env.depth(NEW_BOQ) == 1
    assert env.depth(env.dead_letter_queue()) == 0
    assert spy.backout_inquiries() == [IN, IN]  # first use, then one refresh
    # and the refreshed value is cached: the next poison message costs no inquiry
    _poison(env, "third")
    assert consumer.receive_no_wait() is None
    assert env.depth(NEW_BOQ) == 2
    assert spy.backout_inquiries() == [IN, IN]


def test_a_backout_queue_still_missing_after_the_refresh_falls_back(env: Any, spy: Any) -> None:
    # seed 002: "If the message cannot be put to the backout queue, then it is either
    # moved to the queue manager's dead letter queue or discarded" -- after one refresh.
    env.define_queue(IN, BOTHRESH=1, BOQNAME=OLD_BOQ, MSGDLVSQ="FIFO")
    env.define_queue(OLD_BOQ)
    _poison(env, "first")
    session = env.connect().session()
    consumer = session.consumer(IN)
    assert consumer.receive_no_wait() is None
    env.delete_queue(OLD_BOQ)
    dlq = env.dead_letter_queue()
    before = env.depth(dlq)
    _poison(env, "second")
    assert consumer.receive_no_wait() is None
    assert env.depth(dlq) == before + 1
    assert spy.backout_inquiries() == [IN, IN]  # re-inquired exactly once


def test_other_put_failures_do_not_re_inquire(env: Any, spy: Any) -> None:
    # Only 2085/2052 suggest a stale BOQNAME; PUT(DISABLED) (2051) falls back at once.
    env.define_queue(IN, BOTHRESH=1, BOQNAME=OLD_BOQ, MSGDLVSQ="FIFO")
    env.define_queue(OLD_BOQ, PUT="DISABLED")
    _poison(env, "x")
    session = env.connect().session()
    assert session.consumer(IN).receive_no_wait() is None
    assert spy.backout_inquiries() == [IN]


def test_a_running_worker_follows_a_new_backout_queue(env: Any) -> None:
    # seed 002 (asynchronous): a long-running worker must not route poison messages to a
    # deleted BOQNAME until it restarts: the 2085 re-inquires BOQNAME.
    env.define_queue(IN, BOTHRESH=1, BOQNAME=OLD_BOQ)
    env.define_queue(OLD_BOQ)
    env.define_queue(NEW_BOQ)
    with _worker(env):
        env.send(IN, "first")
        _wait(lambda: env.depth(OLD_BOQ) == 1, "'first' on the old backout queue")
        env.delete_queue(OLD_BOQ)
        env.alter_queue(IN, BOQNAME=NEW_BOQ)
        env.send(IN, "second")
        _wait(lambda: env.depth(NEW_BOQ) == 1, "'second' on the new backout queue")
    assert env.depth(IN) == 0
    assert env.depth(env.dead_letter_queue()) == 0


def test_a_missing_backout_queue_inquiry_failure_still_falls_back(env: Any, spy: Any) -> None:
    # DESIGN: nothing is lost. When the refresh itself fails (e.g. no inquire authority),
    # the message still goes to the dead-letter queue as seed 002 says.
    env.define_queue(IN, BOTHRESH=1, BOQNAME=OLD_BOQ, MSGDLVSQ="FIFO")
    env.define_queue(OLD_BOQ)
    _poison(env, "first")
    session = env.connect().session()
    consumer = session.consumer(IN)
    assert consumer.receive_no_wait() is None
    env.delete_queue(OLD_BOQ)
    dlq = env.dead_letter_queue()
    before = env.depth(dlq)
    _poison(env, "second")
    spy.fail_inquire.append(MQError(C.MQCC_FAILED, C.MQRC_NOT_AUTHORIZED, "no inquire"))
    assert consumer.receive_no_wait() is None
    assert env.depth(dlq) == before + 1
    assert env.depth(IN) == 0
