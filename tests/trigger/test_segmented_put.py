"""Seed 003 note 2: a message the queue manager segments during MQPUT is one trigger event;
the segments already on a queue are individual messages for triggering."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import mqjms.pymqi as pymqi
from mqjms.mq import MQMD, C
from mqjms.mq.errors import failed
from mqjms.mqi import routing
from mqjms.qmgr import QMConnection, QueueManager
from mqjms.qmgr.syncpoint import UnitOfWork
from mqjms.semantics import Capability, ConnectionWrapper
from mqjms.semantics.contract import one_trigger_event
from tests.trigger.trigger_helpers import APPQ, Monitor, attr, define_triggered, depth

CMQC = pymqi.CMQC
MAXMSGL = 20  # a 70-byte message allowing segmentation is put as 4 segments


@pytest.fixture
def program(tqm: QueueManager, embedded_url: str) -> Iterator[object]:
    """A pymqi program connected to the test's queue manager."""
    routing.configure(url=embedded_url)
    qmgr = pymqi.connect("QM1")
    yield qmgr
    qmgr.disconnect()
    routing.reset()


def put_segmented(program: object, syncpoint: bool = False) -> None:
    queue = pymqi.Queue(program, APPQ, CMQC.MQOO_OUTPUT)
    md = pymqi.MD(Version=CMQC.MQMD_VERSION_2, MsgFlags=CMQC.MQMF_SEGMENTATION_ALLOWED)
    options = CMQC.MQPMO_SYNCPOINT if syncpoint else CMQC.MQPMO_NO_SYNCPOINT
    queue.put(b"x" * 70, md, pymqi.PMO(Options=options))
    queue.close()


@pytest.mark.parametrize("trigtype", ["EVERY", "FIRST", "DEPTH"])
def test_a_message_segmented_by_the_queue_manager_is_one_trigger_event(
    tqm: QueueManager, monitor: Monitor, program: object, trigtype: str
) -> None:
    # seed 003 note 2: "a single logical message split into three pieces causes only one
    # trigger event to be processed when it is first MQPUT and segmented"
    define_triggered(tqm, trigtype=trigtype, MAXMSGL=MAXMSGL, TRIGDPTH=2)
    put_segmented(program)
    assert depth(tqm, APPQ) == 4  # four segments, each a message on the queue
    assert monitor.queues() == [APPQ]


def test_the_trigger_event_of_a_segmented_put_waits_for_its_unit_of_work(
    tqm: QueueManager, monitor: Monitor, program: object
) -> None:
    # seed 003 note 2: "a trigger event will not be processed until all the segments have
    # been successfully placed on the queue" (item 10: under syncpoint, until the commit)
    define_triggered(tqm, trigtype="EVERY", MAXMSGL=MAXMSGL)
    put_segmented(program, syncpoint=True)
    assert monitor.queues() == []
    program.commit()  # type: ignore[attr-defined]
    assert monitor.queues() == [APPQ]


def test_segments_put_by_a_program_are_individual_messages_for_triggering(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 note 2: "once message segments are on the queue, WebSphere MQ treats them as
    # individual messages for triggering purposes": each MQPUT of a segment is an event
    define_triggered(tqm, trigtype="EVERY")
    group = b"G" * 24
    for offset, flags in ((0, CMQC.MQMF_SEGMENT), (4, CMQC.MQMF_LAST_SEGMENT)):
        md = MQMD(Version=2, GroupId=group, Offset=offset, MsgFlags=flags)
        app.put(APPQ, md, b"part")
    assert monitor.queues() == [APPQ, APPQ]


@pytest.mark.parametrize("trigtype", ["EVERY", "FIRST", "DEPTH"])
def test_a_segmented_put_that_fails_part_way_is_no_trigger_event(
    tqm: QueueManager, monitor: Monitor, program: object, trigtype: str
) -> None:
    # seed 003 note 2: "If WebSphere MQ segments a message during MQPUT, a trigger event
    # will not be processed until all the segments have been successfully placed on the
    # queue": the third of four segments finds the queue full, nothing is placed
    define_triggered(tqm, trigtype=trigtype, MAXMSGL=MAXMSGL, TRIGDPTH=2, MAXDEPTH=2)
    with pytest.raises(pymqi.MQMIError) as failure:
        put_segmented(program)
    assert failure.value.reason == CMQC.MQRC_Q_FULL
    assert depth(tqm, APPQ) == 0
    assert monitor.queues() == []
    assert attr(tqm, APPQ, "TRIGGER") is True  # no DEPTH event switched triggering off


def test_one_trigger_event_reaches_through_a_connection_wrapper(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 note 2, as the contract offers it (Capability.ONE_TRIGGER_EVENT): the puts
    # made in the block are one event, also through a wrapper; outside it each is its own
    define_triggered(tqm, trigtype="EVERY")
    wrapped = ConnectionWrapper(app)
    assert Capability.ONE_TRIGGER_EVENT in wrapped.capabilities
    with one_trigger_event(wrapped):
        for _ in range(3):
            wrapped.put(APPQ, MQMD(), b"part", syncpoint=True)
    app.commit()
    assert monitor.queues() == [APPQ]
    wrapped.put(APPQ, MQMD(), b"alone")
    assert monitor.queues() == [APPQ]


@pytest.mark.parametrize("trigtype", ["FIRST", "DEPTH"])
def test_another_connections_put_during_the_event_is_not_triggered_twice(
    tqm: QueueManager, monitor: Monitor, app: QMConnection, trigtype: str
) -> None:
    # seed 003 note 2: the segments' trigger event is decided again once every segment is
    # placed: another connection's put meanwhile wrote the queue's FIRST/DEPTH trigger
    # message (and switched a DEPTH queue's TRIGGER off), so the event writes none
    define_triggered(tqm, trigtype=trigtype, TRIGDPTH=1)
    other = tqm.connect("other")
    try:
        with one_trigger_event(app):
            app.put(APPQ, MQMD(), b"segment 1", syncpoint=True)
            other.put(APPQ, MQMD(), b"another program's message")
            app.put(APPQ, MQMD(), b"segment 2", syncpoint=True)
        app.commit()
    finally:
        other.disconnect()
    assert monitor.queues() == [APPQ]


def test_an_alter_during_the_event_is_kept(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 note 2: the held decision is written from the queue as it is then: an
    # ALTER made during the segmented put stays (a DEPTH trigger switches only TRIGGER
    # off)
    define_triggered(tqm, trigtype="DEPTH", TRIGDPTH=1)
    with one_trigger_event(app):
        app.put(APPQ, MQMD(), b"segment 1", syncpoint=True)
        tqm.alter_queue(APPQ, {"MAXDEPTH": 1234})
        app.put(APPQ, MQMD(), b"segment 2", syncpoint=True)
    app.commit()
    assert monitor.queues() == [APPQ]
    assert attr(tqm, APPQ, "MAXDEPTH") == 1234
    assert attr(tqm, APPQ, "TRIGGER") is False


def test_notrigger_set_during_the_event_means_no_trigger_message(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 note 2: the trigger event is processed once every segment is placed, under
    # the conditions then: NOTRIGGER (condition 9) set meanwhile, no trigger message
    define_triggered(tqm, trigtype="FIRST")
    with one_trigger_event(app):
        app.put(APPQ, MQMD(), b"segment 1", syncpoint=True)
        tqm.alter_queue(APPQ, {"TRIGGER": False})
        app.put(APPQ, MQMD(), b"segment 2", syncpoint=True)
    app.commit()
    assert monitor.queues() == []


@pytest.mark.parametrize("trigtype", ["FIRST", "DEPTH"])
def test_a_segmented_put_whose_commit_fails_is_no_trigger_event(
    tqm: QueueManager,
    monitor: Monitor,
    program: object,
    trigtype: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # seed 003 note 2: "a trigger event will not be processed until all the segments have
    # been successfully placed on the queue": outside syncpoint, the commit that places
    # them must succeed first (a FIRST/DEPTH trigger message put in the unit of work was
    # released by the backout of the failed commit, and TRIGGER of a DEPTH queue left off)
    define_triggered(tqm, trigtype=trigtype, MAXMSGL=MAXMSGL, TRIGDPTH=2)

    def failing_commit(self: QMConnection) -> None:
        raise failed(C.MQRC_RESOURCE_PROBLEM, "the commit fails")

    monkeypatch.setattr(UnitOfWork, "commit", failing_commit)
    with pytest.raises(pymqi.MQMIError):
        put_segmented(program)
    monkeypatch.undo()
    assert depth(tqm, APPQ) == 0
    assert monitor.queues() == []
    assert attr(tqm, APPQ, "TRIGGER") is True
    put_segmented(program)  # the same put, committed: its one trigger event
    assert monitor.queues() == [APPQ]


def test_a_trigger_message_that_cannot_be_written_after_the_commit_does_not_fail_the_put(
    tqm: QueueManager,
    monitor: Monitor,
    program: object,
    monkeypatch: pytest.MonkeyPatch,
    events: list[dict[str, object]],
) -> None:
    # seed 003 note 2: outside syncpoint the segments are committed before their trigger
    # event is processed; a failure writing its trigger message then must not fail an
    # MQPUT whose message is on the queue (a program retrying it would put it twice)
    from mqjms.qmgr import triggers

    define_triggered(tqm, trigtype="FIRST", MAXMSGL=MAXMSGL)

    def failing(*args: object) -> list[object]:
        raise failed(C.MQRC_RESOURCE_PROBLEM, "the trigger message cannot be written")

    monkeypatch.setattr(triggers, "redecide", failing)
    put_segmented(program)  # no error: the message was committed
    assert depth(tqm, APPQ) == 4
    assert monitor.queues() == []
    assert any(e.get("event") == "trigger.event_not_written" for e in events)


@pytest.mark.parametrize(
    "change",
    [{"TRIGMPRI": 9}, {"TRIGTYPE": "DEPTH", "TRIGDPTH": 50}],
    ids=["trigmpri-raised", "depth-not-reached"],
)
def test_conditions_altered_during_the_event_are_those_it_is_decided_under(
    tqm: QueueManager, monitor: Monitor, app: QMConnection, change: dict[str, object]
) -> None:
    # seed 003 note 2 with conditions 1-3: the event is processed once every segment is
    # placed, under the queue's conditions then: a TRIGMPRI above the message's priority,
    # or a TRIGTYPE changed (a DEPTH of 50 with two messages), writes no trigger message
    define_triggered(tqm, trigtype="EVERY")
    with one_trigger_event(app):
        app.put(APPQ, MQMD(Priority=0), b"segment 1", syncpoint=True)
        tqm.alter_queue(APPQ, change)
        app.put(APPQ, MQMD(Priority=0), b"segment 2", syncpoint=True)
    app.commit()
    assert monitor.queues() == []


@pytest.mark.parametrize("trigtype", ["EVERY", "FIRST"])
def test_a_queue_altered_to_depth_during_the_event_is_triggered_when_its_depth_is_reached(
    tqm: QueueManager, monitor: Monitor, app: QMConnection, trigtype: str
) -> None:
    # seed 003 note 2 with condition 3: the ALTER to DEPTH finds one message (TRIGDPTH 2
    # not reached: no trigger message of its own); the event's second segment reaches it,
    # and the event, decided again under DEPTH, writes the trigger message
    define_triggered(tqm, trigtype=trigtype)
    with one_trigger_event(app):
        app.put(APPQ, MQMD(), b"segment 1", syncpoint=True)
        tqm.alter_queue(APPQ, {"TRIGTYPE": "DEPTH", "TRIGDPTH": 2})
        assert monitor.queues() == []
        app.put(APPQ, MQMD(), b"segment 2", syncpoint=True)
    app.commit()
    assert monitor.queues() == [APPQ]
    assert attr(tqm, APPQ, "TRIGGER") is False  # a DEPTH trigger switches it off


def test_trigmpri_raised_during_the_event_is_the_event_messages_condition(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 2 is about the message put: another message of priority 5 on the
    # queue qualifies under a TRIGMPRI raised to 5 (the ALTER's own trigger message, item
    # 13), the event's priority-0 message does not: the event writes none
    define_triggered(tqm, trigtype="EVERY")
    app.put(APPQ, MQMD(Priority=5), b"urgent")
    assert monitor.queues() == [APPQ]
    with one_trigger_event(app):
        app.put(APPQ, MQMD(Priority=0), b"segment 1", syncpoint=True)
        tqm.alter_queue(APPQ, {"TRIGMPRI": 5})
        altered = monitor.queues()
        app.put(APPQ, MQMD(Priority=0), b"segment 2", syncpoint=True)
    app.commit()
    assert altered == [APPQ]
    assert monitor.queues() == []


def test_a_first_queue_is_triggered_whatever_the_clock_said_of_its_last_trigger(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 note 2 (FIRST, condition 4): whether another put triggered the queue during
    # the event is told by a change of its last trigger's record, not by comparing clocks
    # (a record from before a clock step back, or of the same tick, hid a due trigger)
    define_triggered(tqm, trigtype="FIRST")
    with app._session(), app._writing() as tx:
        tx.db.execute(
            "INSERT INTO trigger_times (queue, last) VALUES (?, ?)"
            " ON CONFLICT(queue) DO UPDATE SET last = excluded.last",
            (APPQ, 4_000_000_000.0),  # written when the clock read far ahead
        )
    with one_trigger_event(app):
        app.put(APPQ, MQMD(), b"segment 1", syncpoint=True)
        app.put(APPQ, MQMD(), b"segment 2", syncpoint=True)
    app.commit()
    assert monitor.queues() == [APPQ]
