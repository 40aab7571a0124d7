"""Seed 003 items 11-14 and note 1: trigger events other than "the queue was empty": the
trigger interval, a server closing with messages left, ALTERs, get/put enabling and a
trigger monitor opening its initiation queue, and MSGDLVSQ against TRIGMPRI."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from mqjms.mq import MQMD, C
from mqjms.qmgr import QMConnection, QueueManager
from mqjms.transport import embedded
from tests.trigger.trigger_helpers import (
    APPQ,
    INITQ,
    PROC,
    Monitor,
    attr,
    define_triggered,
    depth,
    put,
)

IN = C.MQOO_INPUT_SHARED

# --------------------------------------------------------------------------- item 11


def test_item_11_first_on_a_non_empty_queue_waits_for_trigint(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 item 11: FIRST on a queue that was not empty triggers only when TRIGINT has
    # elapsed since the last trigger message for the queue (default 999 999 999 ms)
    define_triggered(tqm)
    assert tqm.display_qmgr(["TRIGINT"])["TRIGINT"] == 999_999_999
    put(app)
    assert monitor.queues() == [APPQ]
    put(app, n=3)  # a server that ended early left messages; no duplicates meanwhile
    assert monitor.queues() == []


def test_item_11_first_on_a_non_empty_queue_after_trigint_elapsed(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 item 11: "a sufficient interval (TriggerInterval queue-manager attribute) has
    # elapsed since the last trigger message was written for this queue"
    tqm.alter_qmgr({"TRIGINT": 2000})
    define_triggered(tqm)
    put(app)
    assert monitor.queues() == [APPQ]
    put(app)
    assert monitor.queues() == []  # within 2000 ms
    time.sleep(2.2)
    put(app)  # the queue was not empty, but the interval has elapsed
    assert monitor.queues() == [APPQ]
    put(app)
    assert monitor.queues() == []  # the interval counts from that trigger message


def test_item_11_trigint_zero_every_put_on_a_non_empty_queue(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 item 11 with TRIGINT(0): the interval has always elapsed
    tqm.alter_qmgr({"TRIGINT": 0})
    define_triggered(tqm)
    put(app, n=3)
    assert monitor.queues() == [APPQ] * 3


def test_item_11_still_needs_the_other_conditions(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 item 11: "conditions 2 through 10 (excluding 3) are satisfied" -- e.g. 2 and 4
    tqm.alter_qmgr({"TRIGINT": 0})
    define_triggered(tqm, TRIGMPRI=5)
    put(app, priority=5)
    assert monitor.queues() == [APPQ]
    put(app, priority=4)  # condition 2
    assert monitor.queues() == []
    server = tqm.connect("server")
    server.open(APPQ, IN)
    put(app, priority=6)  # condition 4
    assert monitor.queues() == []
    server.disconnect()


def test_item_11_depth_with_trigdpth_or_more_messages(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 item 11: DEPTH "had TriggerDepth or more messages": once triggering is on
    # again (IBM MQ turned it off at the trigger), the next put on a deep queue triggers
    define_triggered(tqm, trigtype="DEPTH", TRIGDPTH=2)
    put(app, n=2)
    assert monitor.queues() == [APPQ]
    assert attr(tqm, APPQ, "TRIGGER") is False
    # Turn it on again without an item-13 trigger: condition 6 fails for a moment.
    tqm.delete_process(PROC)
    tqm.alter_queue(APPQ, {"TRIGGER": True})
    tqm.define_process(PROC, {"APPLICID": "/bin/true"})
    assert monitor.queues() == []
    put(app)  # 2 before, TriggerDepth 2: item 11
    assert monitor.queues() == [APPQ]
    assert attr(tqm, APPQ, "TRIGGER") is False


def test_item_11_restart_resets_the_trigger_interval(tqm: QueueManager, embedded_url: str) -> None:
    # seed 003 item 11 note: "If you stop and restart the queue manager, the TriggerInterval
    # timer is reset"
    define_triggered(tqm)
    mon = Monitor(tqm)
    app = tqm.connect("app")
    put(app, persistent=True)
    assert mon.queues() == [APPQ]
    put(app, persistent=True)
    assert mon.queues() == []  # within TRIGINT
    mon.disconnect()
    app.disconnect()
    tqm.restart()
    # Keep item 13 (the monitor opening) out of the way: no process definition meanwhile.
    tqm.delete_process(PROC)
    mon = Monitor(tqm)
    tqm.define_process(PROC, {"APPLICID": "/bin/true"})
    app = tqm.connect("app")
    assert depth(tqm, APPQ) == 2
    put(app, persistent=True)  # not empty before, but the timer was reset
    assert mon.queues() == [APPQ]
    put(app, persistent=True)
    assert mon.queues() == []  # and runs again from that trigger message
    mon.disconnect()
    app.disconnect()


def test_item_11_without_restart_the_trigger_interval_holds(tqm: QueueManager) -> None:
    # seed 003 item 11 note: the same sequence as above without the restart
    define_triggered(tqm)
    mon = Monitor(tqm)
    app = tqm.connect("app")
    put(app, persistent=True)
    assert mon.queues() == [APPQ]
    put(app, persistent=True)
    mon.disconnect()
    tqm.delete_process(PROC)
    mon = Monitor(tqm)
    tqm.define_process(PROC, {"APPLICID": "/bin/true"})
    put(app, persistent=True)
    assert mon.queues() == []
    mon.disconnect()
    app.disconnect()


# --------------------------------------------------------------------------- item 12


def serve(qm: QueueManager, gets: int, *, syncpoint: bool = False) -> tuple[QMConnection, object]:
    conn = qm.connect("server")
    handle = conn.open(APPQ, IN)
    for _ in range(gets):
        assert conn.get(handle, syncpoint=syncpoint) is not None
    return conn, handle


def test_item_12_first_server_closes_with_messages_left(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 item 12: the only application serving the queue closes it with at least one
    # message (FIRST) left
    define_triggered(tqm)
    put(app, n=2)
    assert monitor.queues() == [APPQ]
    server, handle = serve(tqm, 1)
    server.close(handle)  # type: ignore[arg-type]
    assert monitor.queues() == [APPQ]
    server.disconnect()


def test_item_12_no_trigger_when_the_server_emptied_the_queue(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 item 12: nothing left, nothing written
    define_triggered(tqm)
    put(app, n=2)
    monitor.take()
    server, handle = serve(tqm, 2)
    server.close(handle)  # type: ignore[arg-type]
    assert monitor.queues() == []
    server.disconnect()


def test_item_12_message_arrived_between_get_and_close(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 item 12: "a queue server that issues an MQGET call, finds the queue empty,
    # and so ends; however, in the interval between the MQGET and the MQCLOSE calls, one or
    # more messages arrive"
    define_triggered(tqm)
    put(app)
    monitor.take()
    server, handle = serve(tqm, 1)
    assert server.get(handle) is None  # type: ignore[arg-type]  # empty: the server ends
    put(app)  # IPPROCS 1: no trigger at the put
    assert monitor.queues() == []
    server.close(handle)  # type: ignore[arg-type]
    assert monitor.queues() == [APPQ]
    server.disconnect()


def test_item_12_ignores_the_trigger_interval(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 item 12 lists conditions 6-10 and no trigger interval
    define_triggered(tqm)
    put(app, n=3)
    assert monitor.queues() == [APPQ]
    for _ in range(2):
        server, handle = serve(tqm, 1)
        server.close(handle)  # type: ignore[arg-type]
        assert monitor.queues() == [APPQ]
        server.disconnect()


def test_item_12_only_the_last_server_closing(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 item 12: "the only application serving a queue"
    define_triggered(tqm)
    put(app, n=3)
    monitor.take()
    first, h1 = serve(tqm, 0)
    second, h2 = serve(tqm, 1)
    second.close(h2)  # type: ignore[arg-type]
    assert monitor.queues() == []  # another server still has it open
    first.close(h1)  # type: ignore[arg-type]
    assert monitor.queues() == [APPQ]
    first.disconnect()
    second.disconnect()


def test_item_12_depth_needs_trigdpth_messages_left(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 item 12: at least TriggerDepth messages (DEPTH) of sufficient priority left
    define_triggered(tqm, trigtype="DEPTH", TRIGDPTH=2, TRIGMPRI=5)
    server, handle = serve(tqm, 0)  # IPPROCS 1 first: no put-time trigger
    put(app, n=2, priority=5)
    put(app, n=3, priority=1)
    server.get(handle)  # type: ignore[arg-type]  # takes a priority-5 one: 1 qualifying left
    server.close(handle)  # type: ignore[arg-type]
    assert monitor.queues() == []  # 4 messages left, but only 1 of priority 5
    server2, h2 = serve(tqm, 0)
    put(app, priority=5)
    server2.close(h2)  # type: ignore[arg-type]  # two qualifying left
    assert monitor.queues() == [APPQ]
    assert attr(tqm, APPQ, "TRIGGER") is False  # a DEPTH trigger switches triggering off
    server.disconnect()
    server2.disconnect()


def test_item_12_every_is_not_triggered_by_close(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 item 12 is for FIRST and DEPTH
    define_triggered(tqm, trigtype="EVERY")
    put(app, n=2)
    monitor.take()
    server, handle = serve(tqm, 1)
    server.close(handle)  # type: ignore[arg-type]
    assert monitor.queues() == []
    server.disconnect()


def test_item_12_needs_conditions_6_to_10(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 item 12: "conditions 6 through 10 are also satisfied" -- 9 (TRIGGER) and 8
    define_triggered(tqm)
    put(app, n=2)
    monitor.take()
    tqm.alter_queue(APPQ, {"TRIGGER": False})
    server, handle = serve(tqm, 0)
    server.close(handle)  # type: ignore[arg-type]
    assert monitor.queues() == []
    tqm.alter_queue(APPQ, {"TRIGGER": True})  # item 13
    assert monitor.queues() == [APPQ]
    monitor.close()
    handle = server.open(APPQ, IN)
    server.close(handle)  # no trigger monitor: condition 8
    assert depth(tqm, INITQ) == 0
    server.disconnect()


def test_item_12_get_inhibited_queue_still_triggers_on_close(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 item 12 names conditions 6 through 10: condition 5 (get inhibited) is not one
    define_triggered(tqm)
    put(app, n=2)
    monitor.take()
    server, handle = serve(tqm, 1)
    tqm.alter_queue(APPQ, {"GET": "DISABLED"})
    server.close(handle)  # type: ignore[arg-type]
    assert monitor.queues() == [APPQ]
    server.disconnect()


def test_item_12_note_1_a_server_that_retrieves_nothing_loops(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 item 12 note 1: a server that does not retrieve all the messages causes a
    # closed loop: each close creates another trigger message
    define_triggered(tqm)
    put(app)
    assert monitor.queues() == [APPQ]
    counts = []
    for _ in range(3):  # the trigger monitor starts the server again and again
        server, handle = serve(tqm, 0)
        got = server.get(handle, syncpoint=True)  # type: ignore[arg-type]
        assert got is not None
        counts.append(got[0].BackoutCount)
        server.backout()  # note 2: backing out before closing loops the same way
        server.close(handle)  # type: ignore[arg-type]
        assert monitor.queues() == [APPQ]
        server.disconnect()
    assert counts == [0, 1, 2]


def test_item_12_note_2_closing_before_backing_out_leaves_no_trigger(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 item 12 note 2: "if the program closes the queue before backing out the get
    # request, and the queue is otherwise empty, no trigger message is created"
    define_triggered(tqm)
    put(app)
    monitor.take()
    server, handle = serve(tqm, 1, syncpoint=True)
    server.close(handle)  # type: ignore[arg-type]
    assert monitor.queues() == []
    server.backout()
    assert depth(tqm, APPQ) == 1  # the message is back...
    assert monitor.queues() == []  # ...and nothing was triggered
    server.disconnect()


def test_item_12_note_2_closing_before_backing_out_with_other_messages(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 item 12 note 2: "and the queue is otherwise empty" -- not empty: triggered
    define_triggered(tqm)
    put(app, n=2)
    monitor.take()
    server, handle = serve(tqm, 1, syncpoint=True)
    server.close(handle)  # type: ignore[arg-type]
    assert monitor.queues() == [APPQ]
    server.backout()
    server.disconnect()


def test_item_12_note_2_ending_without_closing_backs_out_then_triggers(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 item 12 note 2: a program that ends (MQDISC) with the get uncommitted has it
    # backed out before the queue is closed, so the message triggers a new server
    define_triggered(tqm)
    put(app)
    monitor.take()
    server, _ = serve(tqm, 1, syncpoint=True)
    server.disconnect()
    assert monitor.queues() == [APPQ]
    assert depth(tqm, APPQ) == 1


def test_item_12_note_1_close_trigger_is_not_in_the_unit_of_work(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 note 1: "From step 12 ... the trigger message is not put as part of a unit of
    # work": the closing server's open unit of work does not hold it back
    define_triggered(tqm)
    put(app, n=2)
    monitor.take()
    server, handle = serve(tqm, 1, syncpoint=True)
    server.close(handle)  # type: ignore[arg-type]  # one message left besides its own
    assert monitor.queues() == [APPQ]  # available while the server's unit of work is open
    server.backout()
    assert monitor.queues() == []
    server.disconnect()


ABEND_SERVER = textwrap.dedent(
    """
    import os, sys, time
    from mqjms.mq import C
    from mqjms.qmgr import QueueManager
    qm = QueueManager(sys.argv[1])
    conn = qm.connect("abending-server")
    handle = conn.open(sys.argv[2], C.MQOO_INPUT_SHARED)
    assert conn.get(handle, syncpoint=True) is not None
    print("got", flush=True)
    time.sleep(60)
    """
)


@pytest.mark.slow
def test_item_12_note_2_a_server_that_abends(
    tqm: QueueManager, monitor: Monitor, app: QMConnection, qmgr_dir: Path
) -> None:
    # seed 003 item 12 note 2: "(or if the program abends) before it closes the queue, the
    # same happens": a SIGKILLed server's get is backed out and a trigger message written
    define_triggered(tqm)
    put(app)
    monitor.take()
    proc = subprocess.Popen(
        [sys.executable, "-c", ABEND_SERVER, str(qmgr_dir), APPQ],
        stdout=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "got"
        proc.kill()
        proc.wait(10)
        triggers = monitor.take(wait=15.0)  # the waiting get notices the dead connection
    finally:
        if proc.poll() is None:
            proc.kill()
    assert [t.tm.QName for t in triggers] == [APPQ]
    server, handle = serve(tqm, 0)
    got = server.get(handle)  # type: ignore[arg-type]
    assert got is not None and got[0].BackoutCount == 1
    server.disconnect()


def test_item_12_note_3_backout_count_breaks_the_loop(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 item 12 note 3: a server that checks BackoutCount moves the repeatedly
    # backed-out message aside, and the loop ends
    define_triggered(tqm, BOTHRESH=2, BOQNAME="APP.BACKOUT")
    tqm.define_queue("QLOCAL", "APP.BACKOUT")
    put(app)
    assert monitor.queues() == [APPQ]
    starts = 0
    while True:
        starts += 1
        assert starts < 10, "the loop did not end"
        server, handle = serve(tqm, 0)
        got = server.get(handle, syncpoint=True)  # type: ignore[arg-type]
        assert got is not None
        md, data = got
        if md.BackoutCount >= 2:  # BOTHRESH: poison
            server.put("APP.BACKOUT", md, data, syncpoint=True)
            server.commit()
        else:
            server.backout()  # the processing failed
        server.close(handle)  # type: ignore[arg-type]
        server.disconnect()
        if not monitor.queues():
            break
    assert starts == 3
    assert depth(tqm, APPQ) == 0
    assert depth(tqm, "APP.BACKOUT") == 1


def test_item_12_from_a_worker_listener(
    tqm: QueueManager, monitor: Monitor, app: QMConnection, embedded_url: str
) -> None:
    # seed 003 item 12 note 3 with an mqjms Worker: the listener's failures back the
    # message out, BOTHRESH moves it to BOQNAME, and the closing worker leaves no trigger
    import mqjms

    define_triggered(tqm, BOTHRESH=2, BOQNAME="APP.BACKOUT")
    tqm.define_queue("QLOCAL", "APP.BACKOUT")
    put(app)
    monitor.take()
    worker = mqjms.Worker(embedded_url, shutdown_timeout=5.0)
    worker.get_wait = 0.1

    @worker.listener(APPQ)
    def fail(msg: mqjms.Message) -> None:
        raise RuntimeError("cannot process")

    with worker:
        deadline = time.monotonic() + 20
        while depth(tqm, "APP.BACKOUT") == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
    assert depth(tqm, "APP.BACKOUT") == 1
    assert depth(tqm, APPQ) == 0
    assert monitor.queues() == []


# --------------------------------------------------------------------------- item 13


def test_item_13_alter_trigger_on_with_messages_waiting(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 item 13: TriggerControl changed to MQTC_ON with at least one message
    define_triggered(tqm, trigger=False)
    put(app, n=3)
    tqm.alter_queue(APPQ, {"TRIGGER": True})
    assert monitor.queues() == [APPQ]  # one trigger message for the queue


def test_item_13_define_replace_turning_trigger_on(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 item 13: "TriggerControl is changed to MQTC_ON" by a command -- DEFINE REPLACE
    define_triggered(tqm, trigger=False)
    put(app, n=2)
    tqm.mqsc(
        f"DEFINE QLOCAL({APPQ}) TRIGGER TRIGTYPE(FIRST) INITQ({INITQ}) PROCESS({PROC}) REPLACE"
    )
    assert monitor.queues() == [APPQ]


def test_item_13_alter_trigger_on_an_empty_queue(tqm: QueueManager, monitor: Monitor) -> None:
    # seed 003 item 13: "there is at least one (FIRST or EVERY)" message: none, no trigger
    define_triggered(tqm, trigger=False)
    tqm.alter_queue(APPQ, {"TRIGGER": True})
    assert monitor.queues() == []


def test_item_13_alter_trigger_on_by_mqsc(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 item 13: "using MQSET or a command" -- MQSC ALTER QLOCAL
    define_triggered(tqm, trigger=False)
    put(app)
    [result] = tqm.mqsc(f"ALTER QLOCAL({APPQ}) TRIGGER")
    assert monitor.queues() == [APPQ]
    del result


@pytest.mark.parametrize(
    ("change", "before"),
    [
        ({"TRIGTYPE": "EVERY"}, {}),
        ({"TRIGMPRI": 1}, {}),
        ({"TRIGDPTH": 2}, {"TRIGTYPE": "DEPTH", "TRIGDPTH": 5}),
    ],
    ids=["TRIGTYPE", "TRIGMPRI", "TRIGDPTH-for-DEPTH"],
)
def test_item_13_trigger_criteria_changed_while_on(
    tqm: QueueManager,
    app: QMConnection,
    change: dict[str, object],
    before: dict[str, object],
) -> None:
    # seed 003 item 13: TriggerControl already on and TriggerType, TriggerMsgPriority or
    # TriggerDepth (if relevant) changed, with enough messages waiting
    attrs: dict[str, object] = {"TRIGTYPE": "FIRST"}
    attrs.update(before)
    define_triggered(tqm, **attrs)  # type: ignore[arg-type]
    put(app, n=2, priority=5)  # no monitor yet: nothing triggered
    mon = Monitor(tqm)  # the open itself is an item-13 event (for DEPTH 5: not enough)
    mon.take()
    tqm.alter_queue(APPQ, change)
    assert mon.queues() == [APPQ]
    mon.disconnect()


def test_item_13_trigdpth_changed_on_a_first_queue_is_not_relevant(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 item 13: "the value of either TriggerType, TriggerMsgPriority, or
    # TriggerDepth (if relevant) is changed" -- TriggerDepth is not relevant to FIRST
    define_triggered(tqm)
    put(app, n=2)
    monitor.take()
    tqm.alter_queue(APPQ, {"TRIGDPTH": 7})
    assert monitor.queues() == []


def test_item_13_other_attributes_changed_is_no_event(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 item 13: only the trigger attributes count
    define_triggered(tqm)
    put(app, n=2)
    monitor.take()
    tqm.alter_queue(APPQ, {"DESCR": "changed", "MAXDEPTH": 100})
    tqm.define_queue(
        "QLOCAL",
        APPQ,
        {"TRIGGER": True, "TRIGTYPE": "FIRST", "INITQ": INITQ, "PROCESS": PROC, "DESCR": "x"},
        replace=True,
    )
    assert monitor.queues() == []


def test_item_13_alter_needs_conditions_4_to_10_but_not_8(
    tqm: QueueManager, app: QMConnection
) -> None:
    # seed 003 item 13 (ALTER): "conditions 4 through 10 (excluding 8)": no trigger monitor
    # needed, the message waits on the initiation queue; but condition 4 holds it back
    define_triggered(tqm, trigger=False)
    put(app)
    tqm.alter_queue(APPQ, {"TRIGGER": True})
    assert depth(tqm, INITQ) == 1  # written without a trigger monitor (condition 8 excluded)
    tqm.alter_queue(APPQ, {"TRIGGER": False})
    server = tqm.connect("server")
    server.open(APPQ, IN)
    tqm.alter_queue(APPQ, {"TRIGGER": True})
    assert depth(tqm, INITQ) == 1  # condition 4: a server has the queue open
    server.disconnect()


def test_item_13_note_1_every_gives_one_trigger_message(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 note 1: "if the TriggerType is MQTT_EVERY, and if there are one or more
    # messages on the application queue, only one trigger message is generated"
    define_triggered(tqm, trigtype="EVERY", trigger=False)
    put(app, n=5)
    tqm.alter_queue(APPQ, {"TRIGGER": True})
    assert monitor.queues() == [APPQ]


def test_item_13_depth_needs_trigdpth_messages(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 item 13: "TriggerDepth (MQTT_DEPTH) messages on the queue"
    define_triggered(tqm, trigtype="DEPTH", TRIGDPTH=3, trigger=False)
    put(app, n=2)
    tqm.alter_queue(APPQ, {"TRIGGER": True})
    assert monitor.queues() == []
    tqm.alter_queue(APPQ, {"TRIGGER": False})
    put(app)
    tqm.alter_queue(APPQ, {"TRIGGER": True})
    assert monitor.queues() == [APPQ]


def test_item_13_initiation_queue_put_enabled(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 item 13 (1): the initiation queue's InhibitPut changes to MQQA_PUT_ALLOWED:
    # one trigger message for each queue it serves whose conditions hold
    define_triggered(tqm, "APP.Q1")
    define_triggered(tqm, "APP.Q2", trigtype="EVERY")
    define_triggered(tqm, "APP.Q3")  # stays empty
    define_triggered(tqm, "APP.Q4", trigtype="DEPTH", TRIGDPTH=3)  # not deep enough
    tqm.alter_queue(INITQ, {"PUT": "DISABLED"})
    put(app, "APP.Q1", n=2)
    put(app, "APP.Q2", n=3)
    put(app, "APP.Q4", n=2)
    assert depth(tqm, INITQ) == 0
    tqm.alter_queue(INITQ, {"PUT": "ENABLED"})
    assert sorted(monitor.queues()) == ["APP.Q1", "APP.Q2"]


def test_item_13_initiation_queue_put_enabled_needs_the_monitor(
    tqm: QueueManager, app: QMConnection
) -> None:
    # seed 003 item 13 (1): "conditions 4 through 10 are also satisfied" -- 8 included
    define_triggered(tqm)
    tqm.alter_queue(INITQ, {"PUT": "DISABLED"})
    put(app)
    tqm.alter_queue(INITQ, {"PUT": "ENABLED"})
    assert depth(tqm, INITQ) == 0


def test_item_13_application_queue_get_enabled(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 item 13 (2): the application queue's InhibitGet changes to MQQA_GET_ALLOWED
    define_triggered(tqm, trigtype="EVERY", GET="DISABLED")
    put(app, n=3)
    assert monitor.queues() == []  # condition 5
    tqm.alter_queue(APPQ, {"GET": "ENABLED"})
    assert monitor.queues() == [APPQ]  # one, even for EVERY (note 1)


def test_item_13_application_queue_get_enabled_needs_the_monitor(
    tqm: QueueManager, app: QMConnection
) -> None:
    # seed 003 item 13 (2): "conditions 4 through 10, excluding 5" -- 8 included
    define_triggered(tqm, GET="DISABLED")
    put(app)
    tqm.alter_queue(APPQ, {"GET": "ENABLED"})
    assert depth(tqm, INITQ) == 0


def test_item_13_trigger_monitor_opens_the_initiation_queue(
    tqm: QueueManager, app: QMConnection
) -> None:
    # seed 003 item 13 (3): a trigger monitor opening the initiation queue for input finds
    # messages that arrived while no monitor ran: one trigger message per queue
    define_triggered(tqm, "APP.Q1")
    define_triggered(tqm, "APP.Q2", trigtype="EVERY")
    define_triggered(tqm, "APP.Q3", trigtype="DEPTH", TRIGDPTH=2)
    define_triggered(tqm, "APP.Q4")  # empty
    put(app, "APP.Q1", n=2)
    put(app, "APP.Q2", n=4)
    put(app, "APP.Q3", n=2)
    assert depth(tqm, INITQ) == 0  # condition 8: no monitor
    mon = Monitor(tqm)
    assert sorted(mon.queues()) == ["APP.Q1", "APP.Q2", "APP.Q3"]
    mon.disconnect()


def test_item_13_second_monitor_opening_is_no_event(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 item 13 (3): "and no other application has the initiation queue open for input"
    define_triggered(tqm, trigger=False)
    put(app)
    tqm.alter_queue(APPQ, {"TRIGGER": True})
    monitor.take()
    second = Monitor(tqm)
    assert second.queues() == []
    assert monitor.queues() == []
    second.disconnect()


def test_item_13_monitor_open_respects_condition_4(tqm: QueueManager, app: QMConnection) -> None:
    # seed 003 item 13 (3): conditions 4 through 10 (excluding 8): a server has it open
    define_triggered(tqm)
    server = tqm.connect("server")
    server.open(APPQ, IN)
    put(app)
    mon = Monitor(tqm)
    assert mon.queues() == []
    mon.disconnect()
    server.disconnect()


def test_item_13_note_1_not_part_of_a_unit_of_work(tqm: QueueManager, app: QMConnection) -> None:
    # seed 003 note 1: trigger messages of these events are not put in a unit of work,
    # even when the connection that caused them has one
    define_triggered(tqm)
    put(app)
    monitor_conn = tqm.connect("monitor-with-uow")
    monitor_conn.put("SYSTEM.DEFAULT.LOCAL.QUEUE", MQMD(), b"x", syncpoint=True)
    handle = monitor_conn.open(INITQ, IN)  # item 13 with a unit of work active
    monitor_conn.backout()
    got = monitor_conn.get(handle)
    assert got is not None
    assert got[0].Format.strip() == C.MQFMT_TRIGGER
    monitor_conn.disconnect()


def test_condition_3_expired_messages_still_count(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 3 with seed 000/001 note 2: expired messages not yet discarded "count
    # toward the number of messages on the queue for all purposes, including depth
    # triggering"
    define_triggered(tqm, trigtype="DEPTH", TRIGDPTH=2)
    app.put(APPQ, MQMD(Expiry=1), b"expires in 0.1 s")
    time.sleep(0.3)
    put(app)
    assert monitor.queues() == [APPQ]


# --------------------------------------------------------------------------- item 14


@pytest.mark.parametrize("trigtype", ["FIRST", "EVERY", "DEPTH"])
def test_item_14_fifo_trigmpri_above_defprty_never_triggers(
    tqm: QueueManager, monitor: Monitor, app: QMConnection, trigtype: str
) -> None:
    # seed 003 item 14: MSGDLVSQ(FIFO) assigns the queue's default priority to every
    # message; "If TriggerMsgPriority is set to a higher value than the default priority
    # of the queue, no messages are triggered"
    define_triggered(tqm, trigtype=trigtype, MSGDLVSQ="FIFO", DEFPRTY=3, TRIGMPRI=4, TRIGDPTH=1)
    put(app, priority=9)
    put(app, priority=4)
    assert monitor.queues() == []


@pytest.mark.parametrize("trigtype", ["FIRST", "EVERY", "DEPTH"])
def test_item_14_fifo_trigmpri_at_or_below_defprty_triggers(
    tqm: QueueManager, monitor: Monitor, app: QMConnection, trigtype: str
) -> None:
    # seed 003 item 14: "If TriggerMsgPriority is set equal to or lower than the default
    # priority of the queue, triggering occurs for type FIRST, EVERY, and DEPTH"
    define_triggered(tqm, trigtype=trigtype, MSGDLVSQ="FIFO", DEFPRTY=3, TRIGMPRI=3, TRIGDPTH=1)
    put(app, priority=0)  # below TRIGMPRI, but the queue assigns DEFPRTY 3
    assert monitor.queues() == [APPQ]
    server, handle = serve(tqm, 0)
    got = server.get(handle)  # type: ignore[arg-type]
    # ordered and triggered at DEFPRTY 3; the MQMD keeps the Priority put (IBM's MQMD)
    assert got is not None and got[0].Priority == 0
    server.disconnect()


def test_item_14_priority_sequence_effective_depth(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 item 14: MSGDLVSQ(PRIORITY): "if you put 100 messages of lower priority than
    # the TriggerMsgPriority, the effective queue depth for triggering purposes is still
    # zero. If you then put another message ... greater than or equal to the
    # TriggerMsgPriority, the effective queue depth increases from zero to one and the
    # condition for TriggerType FIRST is satisfied"
    define_triggered(tqm, MSGDLVSQ="PRIORITY", TRIGMPRI=5)
    put(app, n=100, priority=4)
    assert monitor.queues() == []
    put(app, priority=5)
    assert monitor.queues() == [APPQ]


@pytest.mark.parametrize("trigtype", ["EVERY", "DEPTH"])
def test_item_14_priority_sequence_every_and_depth(
    tqm: QueueManager, monitor: Monitor, app: QMConnection, trigtype: str
) -> None:
    # seed 003 item 14: with MSGDLVSQ(PRIORITY) qualifying messages trigger EVERY and DEPTH
    define_triggered(tqm, trigtype=trigtype, MSGDLVSQ="PRIORITY", TRIGMPRI=5, TRIGDPTH=2)
    put(app, n=3, priority=4)
    put(app, n=2, priority=6)
    assert monitor.queues() == ([APPQ, APPQ] if trigtype == "EVERY" else [APPQ])


def test_restart_drops_trigger_messages_and_the_monitor_open_recreates_them(
    tqm: QueueManager, embedded_url: str
) -> None:
    # seed 003 item 13 (3): "for the queue manager restarting and trigger messages (which
    # are nonpersistent) being lost"
    define_triggered(tqm)
    mon = Monitor(tqm)
    app = tqm.connect("app")
    put(app, persistent=True)
    mon.disconnect()  # the monitor ends before taking its trigger message
    app.disconnect()
    assert depth(tqm, INITQ) == 1
    tqm.restart()
    assert depth(tqm, INITQ) == 0  # non-persistent: gone
    assert depth(tqm, APPQ) == 1
    qm = embedded.queue_manager(embedded_url)
    mon = Monitor(qm)
    assert mon.queues() == [APPQ]
    mon.disconnect()
