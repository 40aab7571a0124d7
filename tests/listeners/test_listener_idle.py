"""An idle worker sleeps (issue 9, target 3): where the transport can interrupt a get's wait
(``Capability.INTERRUPT_WAIT``), consumers wait long and the stop request, or a suspect
that must run alone, interrupts them; elsewhere they return every ``get_wait``."""

from __future__ import annotations

import threading
import time

import pytest

import mqjms
from mqjms.listeners.isolation import SuspectGate
from tests.listeners.helpers import IN, named, wait_for


def test_an_idle_worker_stops_at_once_though_its_gets_wait_long(mq, make_worker, events):
    app = make_worker()
    app.interruptible_wait = 600.0  # never sat out within this test
    seen: list[str] = []

    @app.listener(IN, concurrency=3)
    def handle(msg: mqjms.Message) -> None:
        seen.append(msg.body)

    app.start()
    mq.send(IN, "one")
    wait_for(lambda: app.stats.committed == 1, what="the message")
    time.sleep(0.5)  # idle: every consumer waits in a get or for its turn
    assert app.stop(timeout=30) is True
    assert not named(events, "worker.consumers_not_stopped")
    assert app.health().alive == 0, "a consumer still waits in its get"
    assert seen == ["one"]


class Consumer:
    """A consumer seen by the gate, whose get's wait the gate may interrupt."""

    def __init__(self) -> None:
        self.interrupted = threading.Event()

    def interrupt_get(self) -> None:
        self.interrupted.set()


def test_a_suspect_waiting_to_run_alone_interrupts_the_gets_it_waits_for() -> None:
    # a concurrent consumer may sit in a long get on an empty queue: the suspect that waits
    # for it to let go interrupts that get, and the consumer then leaves
    gate, stopping = SuspectGate(), threading.Event()
    busy, suspect = Consumer(), Consumer()
    with gate.turn(busy, stopping) as mine:
        assert mine and gate.cleared(busy)  # the queue turned concurrent, busy with it
    ran = threading.Event()

    def run_alone() -> None:
        with gate.alone(suspect):
            ran.set()

    thread = threading.Thread(target=run_alone, daemon=True)
    thread.start()
    assert busy.interrupted.wait(10), "the waiting get was not interrupted"
    assert not ran.is_set()  # it still holds the queue: its get has not returned yet
    gate.leave(busy)  # its get returned, without a message
    thread.join(10)
    assert ran.is_set()
    assert not suspect.interrupted.is_set()


@pytest.mark.embedded_only("counts the wake-ups of the embedded queue manager's gets")
def test_idle_consumers_do_not_come_back_from_their_gets(mq, make_worker):
    # every get returning after get_wait is what an idle worker used to spend its CPU on
    app = make_worker()
    app.get_wait = 0.05  # would be seen at once, were it used

    @app.listener(IN, concurrency=2)
    def handle(msg: mqjms.Message) -> None:
        pass

    app.start()
    wait_for(lambda: app.health().ready, what="consumers connected")
    time.sleep(0.3)
    before = [a.empty_gets for a in app.activity()]
    time.sleep(1.0)
    gets = [a.empty_gets for a in app.activity()]
    app.stop()
    assert gets == before, f"idle consumers' gets returned: {before} -> {gets}"
