"""``mqjms.send`` from a listener: the send commits with the message it was made for, and
a listener that fails sends nothing (on every transport)."""

from __future__ import annotations

import pytest

import mqjms
from mqjms.semantics import Connection
from mqjms.transport import connect
from tests.listeners.helpers import BOQ, IN

OUT = "APP.OUT"


def test_a_listener_sends_in_the_unit_of_work_of_its_message(mq, make_worker):
    mq.define_queue(OUT)
    app = make_worker()

    @app.listener(IN)
    def forward(msg: mqjms.Message) -> None:
        mqjms.send(OUT, f"shipped {msg.body}", properties={"n": msg.body}, priority=7)

    mq.send(IN, "1", "2")
    summary = mq.run_until_idle(app)
    assert summary.committed == 2
    out = mq.browse(OUT)
    assert [m.body for m in out] == ["shipped 1", "shipped 2"]
    assert out[0].properties["n"] == "1" and out[0].jms_priority == 7


def test_a_listener_that_raises_after_sending_sends_nothing(mq, make_worker):
    mq.define_queue(OUT)
    app = make_worker()
    attempts: list[int] = []

    @app.listener(IN)
    def forward(msg: mqjms.Message) -> None:
        attempts.append(msg.delivery_count)
        mqjms.send(OUT, f"attempt {msg.delivery_count}")
        if msg.delivery_count < 2:
            raise RuntimeError("not yet")

    mq.send(IN, "order")
    summary = mq.run_until_idle(app)
    assert attempts == [1, 2] and summary.backed_out == 1 and summary.committed == 1
    # the failed attempt's send was never put; the successful one's was, once
    assert [m.body for m in mq.browse(OUT)] == ["attempt 2"]


def test_an_async_listener_sends_too(mq, make_worker):
    mq.define_queue(OUT)
    app = make_worker()

    @app.listener(IN)
    async def forward(msg: mqjms.Message) -> None:
        mqjms.send(OUT, msg.body.upper())

    mq.send(IN, "a", "b")
    mq.run_until_idle(app)
    assert sorted(m.body for m in mq.browse(OUT)) == ["A", "B"]


@pytest.mark.embedded_only("a put to an undefined queue fails only where queues are defined")
def test_a_send_that_fails_fails_its_message_with_the_sends_before_it(mq, make_worker):
    mq.define_queue(OUT)
    app = make_worker()

    @app.listener(IN)
    def forward(msg: mqjms.Message) -> None:
        mqjms.send(OUT, "first")
        mqjms.send("NO.SUCH.QUEUE", "second")  # MQRC_UNKNOWN_OBJECT_NAME when it is put

    mq.send(IN, "order")
    summary = mq.run_until_idle(app)
    # backed out each time, with "first": moved at BOTHRESH 3 with why it failed
    assert summary.destinations() == {BOQ: 1}
    assert mq.depth(OUT) == 0
    moved = mq.browse(BOQ)[0]
    assert moved.properties["mqjms_failure_exception"] == "mqjms.mq.errors.MQError"


def test_send_outside_a_listener_is_an_error():
    with pytest.raises(mqjms.IllegalStateException, match="from a listener"):
        mqjms.send("ANY.QUEUE", "body")


@pytest.mark.embedded_only("counts the embedded queue manager's database transactions")
def test_a_messages_sends_its_commit_and_the_next_get_are_one_transaction(mq, make_worker):
    # issue 9, syncpoint puts batched: before, each send was a transaction of its own
    mq.define_queue(OUT)
    app = make_worker()
    begins: list[str] = []

    def connector(url: str, appl_name: str | None) -> Connection:
        conn = connect(url, appl_name)
        conn._db.set_trace_callback(  # type: ignore[attr-defined]
            lambda sql: begins.append(sql) if sql.startswith("BEGIN IMMEDIATE") else None
        )
        return conn

    app.connector = connector

    @app.listener(IN)
    def forward(msg: mqjms.Message) -> None:
        mqjms.send(OUT, f"{msg.body}a")
        mqjms.send(OUT, f"{msg.body}b")

    mq.send(IN, *[str(i) for i in range(10)])
    summary = mq.run_until_idle(app)
    assert summary.committed == 10 and mq.depth(OUT) == 20
    # a step a message, plus connecting, opening, the first get and the last commit
    assert len(begins) <= 10 + 6, begins
