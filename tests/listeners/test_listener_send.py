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


def test_a_send_from_a_task_the_listener_left_running_is_refused(mq, make_worker):
    # the task copied the listener's context: its send went into the outbox after the
    # commit had taken the sends, and was lost without a word
    import asyncio

    mq.define_queue(OUT)
    app = make_worker()
    late: list[BaseException] = []

    async def later(body: str) -> None:
        await asyncio.sleep(0)  # runs once the listener's call is over
        try:
            mqjms.send(OUT, f"late {body}")
        except BaseException as exc:  # the test reports it
            late.append(exc)

    @app.listener(IN)
    async def forward(msg: mqjms.Message) -> None:
        mqjms.send(OUT, f"now {msg.body}")
        asyncio.get_running_loop().create_task(later(msg.body))

    mq.send(IN, "1")
    mq.run_until_idle(app)
    assert [m.body for m in mq.browse(OUT)] == ["now 1"]
    assert len(late) == 1 and isinstance(late[0], mqjms.IllegalStateException)


@pytest.mark.parametrize("kind", [SystemExit, KeyboardInterrupt])
def test_an_async_listener_raising_systemexit_fails_only_its_message(mq, make_worker, kind):
    # raised out of its task, it stopped the worker's event loop and every async
    # listener hung; now it is a failure of that message, as for a sync listener
    mq.define_queue(OUT)
    app = make_worker()

    @app.listener(IN, concurrency=2)
    async def forward(msg: mqjms.Message) -> None:
        if msg.body == "bad":
            raise kind()
        mqjms.send(OUT, msg.body)

    mq.send(IN, "a", "bad", "b", "c")
    summary = mq.run_until_idle(app)
    assert sorted(m.body for m in mq.browse(OUT)) == ["a", "b", "c"]
    assert summary.destinations() == {BOQ: 1}


@pytest.mark.embedded_only("a put to an undefined queue fails only where queues are defined")
def test_a_failed_send_waits_retry_wait_before_the_backout(mq, make_worker):
    # listeners.md: retry_wait is waited before a failed message is rolled back; a send
    # that failed (a full queue or disk down the line) skipped it, and good messages
    # reached BOTHRESH within milliseconds
    app = make_worker()
    waits: list[int] = []

    def strategy(retry_state) -> float:
        waits.append(retry_state.attempt_number)
        return 0.0

    @app.listener(IN, retry_wait=strategy)
    def forward(msg: mqjms.Message) -> None:
        mqjms.send("NO.SUCH.QUEUE", msg.body)

    mq.send(IN, "order")
    summary = mq.run_until_idle(app)
    assert summary.destinations() == {BOQ: 1}
    assert waits == [1, 2, 3]  # one wait per failed delivery, BOTHRESH 3
