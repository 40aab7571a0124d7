"""The trigger message itself (issue 5): Format MQTRIG, an MQTM with the process
definition's fields, non-persistent, Expiry MQEI_UNLIMITED (seed 000/001 note 8); the MQTMC2
a trigger monitor hands on; the trigger attributes under MQINQ; DEPTH switching TRIGGER
off."""

from __future__ import annotations

import struct

import pytest

from mqjms.mq import MQMD, MQTM, MQTMC2, C, parse_tmc2
from mqjms.mq.dlh import MQDLH
from mqjms.qmgr import QMConnection, QueueManager
from mqjms.qmgr.mqsc import CommandResult
from tests.trigger.trigger_helpers import (
    APPLICID,
    APPQ,
    INITQ,
    PROC,
    Monitor,
    attr,
    define_triggered,
    depth,
    put,
)


def mqsc(qm: QueueManager, text: str) -> list[CommandResult]:
    results = qm.mqsc(text)
    assert all(isinstance(r, CommandResult) for r in results)
    return results  # type: ignore[return-value]


def test_trigger_message_descriptor(tqm: QueueManager, monitor: Monitor, app: QMConnection) -> None:
    # issue 5: Format MQTRIG, non-persistent, Expiry MQEI_UNLIMITED (seed 000/001 note 8:
    # "Trigger messages are always generated with MQEI_UNLIMITED")
    tqm.alter_queue(INITQ, {"DEFPSIST": "YES", "DEFPRTY": 4})
    define_triggered(tqm)
    app.put(
        APPQ,
        MQMD(Expiry=50, Persistence=C.MQPER_PERSISTENT, Priority=9),
        b"short-lived",
    )
    [trigger] = monitor.take()
    md = trigger.md
    assert md.Format.strip() == C.MQFMT_TRIGGER == "MQTRIG"
    assert md.Persistence == C.MQPER_NOT_PERSISTENT  # whatever the initiation queue's DEFPSIST
    assert md.Expiry == C.MQEI_UNLIMITED == -1
    assert md.MsgType == C.MQMT_DATAGRAM
    assert md.Priority == 4  # the initiation queue's default priority
    assert md.PutApplType == C.MQAT_QMGR
    assert md.PutApplName == tqm.name[:28]
    assert md.Report == C.MQRO_NONE
    assert md.BackoutCount == 0
    assert len(trigger.data) == 684


def test_trigger_message_mqtm_fields(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # issue 5: an MQTM with QName, ProcessName, TriggerData, ApplType, ApplId, EnvData,
    # UserData (mq-reference 4.1)
    define_triggered(tqm, TRIGDATA="trigger data for the app")
    put(app)
    [trigger] = monitor.take()
    tm = trigger.tm
    assert tm == MQTM(
        QName=APPQ,
        ProcessName=PROC,
        TriggerData="trigger data for the app",
        ApplType=C.MQAT_UNIX,
        ApplId=APPLICID,
        EnvData="--env data",
        UserData="user data",
    )
    order = "<" if trigger.md.Encoding & C.MQENC_INTEGER_MASK == C.MQENC_INTEGER_REVERSED else ">"
    fields = struct.unpack(order + "4si48s48s64si256s128s128s", trigger.data)
    assert fields[0] == b"TM  "
    assert fields[1] == 1  # MQTM_VERSION_1
    assert fields[2] == APPQ.encode().ljust(48)
    assert fields[3] == PROC.encode().ljust(48)
    assert fields[5] == C.MQAT_UNIX
    assert fields[6] == APPLICID.encode().ljust(256)


def test_trigger_message_to_mqtmc2(tqm: QueueManager, monitor: Monitor, app: QMConnection) -> None:
    # mq-reference 4.1: the MQTMC2 a trigger monitor passes on is 732 characters,
    # StrucId 'TMC ', Version '   2', with the queue manager's name at the end
    define_triggered(tqm, TRIGDATA="td")
    put(app)
    [trigger] = monitor.take()
    packed = MQTMC2.from_tm(trigger.tm, tqm.name).pack()
    assert len(packed) == 732
    assert packed[:8] == b"TMC    2"
    assert packed[8:56] == APPQ.encode().ljust(48)
    assert packed[684:732] == tqm.name.encode().ljust(48)
    tmc = parse_tmc2(packed)
    assert (tmc.QName, tmc.ProcessName, tmc.TriggerData, tmc.ApplId) == (
        APPQ,
        PROC,
        "td",
        APPLICID,
    )
    assert tmc.QMgrName == tqm.name


@pytest.mark.parametrize(
    ("appltype", "expected"),
    [("UNIX", C.MQAT_UNIX), ("DEF", C.MQAT_DEFAULT), ("JAVA", C.MQAT_JAVA), (65537, 65537)],
)
def test_trigger_message_appltype(
    tqm: QueueManager, monitor: Monitor, app: QMConnection, appltype: object, expected: int
) -> None:
    # issue 5: ApplType from the process definition's APPLTYPE
    tqm.define_process("TYPED.PROC", {"APPLTYPE": appltype, "APPLICID": "x"})
    define_triggered(tqm, PROCESS="TYPED.PROC")
    put(app)
    [trigger] = monitor.take()
    assert trigger.tm.ApplType == expected


def test_trigger_message_follows_process_changes(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # issue 5: the MQTM carries the process definition as it is at the trigger event
    define_triggered(tqm, trigtype="EVERY")
    mqsc(tqm, f"ALTER PROCESS({PROC}) APPLICID('mqjms run svc:app') ENVRDATA('--idle-timeout 5')")
    put(app)
    [trigger] = monitor.take()
    assert (trigger.tm.ApplId, trigger.tm.EnvData) == ("mqjms run svc:app", "--idle-timeout 5")


def test_trigger_attributes_by_mqinq(tqm: QueueManager, app: QMConnection) -> None:
    # issue 5: the queue attributes under their MQINQ selectors, and the qmgr's TRIGINT
    tqm.alter_qmgr({"TRIGINT": 2500})
    define_triggered(tqm, trigtype="DEPTH", TRIGDPTH=7, TRIGMPRI=2, TRIGDATA="data", USAGE="XMITQ")
    got = app.inquire(
        APPQ,
        [
            C.MQIA_TRIGGER_CONTROL,
            C.MQIA_TRIGGER_TYPE,
            C.MQIA_TRIGGER_DEPTH,
            C.MQIA_TRIGGER_MSG_PRIORITY,
            C.MQCA_TRIGGER_DATA,
            C.MQCA_INITIATION_Q_NAME,
            C.MQCA_PROCESS_NAME,
            C.MQIA_USAGE,
        ],
    )
    assert got == {
        C.MQIA_TRIGGER_CONTROL: C.MQTC_ON,
        C.MQIA_TRIGGER_TYPE: C.MQTT_DEPTH,
        C.MQIA_TRIGGER_DEPTH: 7,
        C.MQIA_TRIGGER_MSG_PRIORITY: 2,
        C.MQCA_TRIGGER_DATA: "data",
        C.MQCA_INITIATION_Q_NAME: INITQ,
        C.MQCA_PROCESS_NAME: PROC,
        C.MQIA_USAGE: C.MQUS_TRANSMISSION,
    }
    assert app.inquire_qmgr([C.MQIA_TRIGGER_INTERVAL]) == {C.MQIA_TRIGGER_INTERVAL: 2500}


def test_mqsc_triggering_definitions(tqm: QueueManager) -> None:
    # issue 5: the attributes and process definitions in MQSC, as docs/triggering.md shows
    results = mqsc(
        tqm,
        """
        DEFINE PROCESS(ORDERS.SERVER) APPLTYPE(UNIX) +
               APPLICID('mqjms run orders_service:app') ENVRDATA('--idle-timeout 10') +
               USERDATA('orders')
        DEFINE QLOCAL(ORDERS.INITQ)
        DEFINE QLOCAL(ORDERS.IN) TRIGGER TRIGTYPE(FIRST) TRIGMPRI(0) TRIGDPTH(1) +
               TRIGDATA('orders') INITQ(ORDERS.INITQ) PROCESS(ORDERS.SERVER)
        ALTER QMGR TRIGINT(60000)
        """,
    )
    assert all(r.ok for r in results), [r.render() for r in results]
    [proc] = tqm.display_processes("ORDERS.SERVER")
    assert proc["APPLICID"] == "mqjms run orders_service:app"
    assert proc["ENVRDATA"] == "--idle-timeout 10"
    assert attr(tqm, "ORDERS.IN", "TRIGGER") is True
    assert attr(tqm, "ORDERS.IN", "INITQ") == "ORDERS.INITQ"
    assert tqm.display_qmgr(["TRIGINT"])["TRIGINT"] == 60000


# --------------------------------------------------------------------------- DEPTH


def test_depth_trigger_switches_trigger_off(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # issue 5: "For DEPTH, the queue manager switches TRIGGER off after writing the trigger
    # message, as IBM MQ documents"; the server switches it back on
    define_triggered(tqm, trigtype="DEPTH", TRIGDPTH=2)
    put(app, n=2)
    assert monitor.queues() == [APPQ]
    assert attr(tqm, APPQ, "TRIGGER") is False
    assert app.inquire(APPQ, [C.MQIA_TRIGGER_CONTROL]) == {C.MQIA_TRIGGER_CONTROL: C.MQTC_OFF}
    [display] = mqsc(tqm, f"DISPLAY QLOCAL({APPQ}) TRIGGER")
    assert "   NOTRIGGER" in display.render(echo=False)
    put(app, n=4)
    assert monitor.queues() == []
    # the server drains the queue and switches triggering on again
    server = tqm.connect("server")
    handle = server.open(APPQ, C.MQOO_INPUT_SHARED)
    while server.get(handle) is not None:
        pass
    tqm.alter_queue(APPQ, {"TRIGGER": True})
    server.close(handle)
    put(app, n=2)
    assert monitor.queues() == [APPQ]
    server.disconnect()


def test_depth_trigger_in_a_unit_of_work_switches_trigger_off_at_once(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # issue 5: the DEPTH trigger message waits for the unit of work; triggering is off
    # from the trigger event on, so no second one is written meanwhile
    define_triggered(tqm, trigtype="DEPTH", TRIGDPTH=1)
    put(app, syncpoint=True)
    assert attr(tqm, APPQ, "TRIGGER") is False
    other = tqm.connect("other")
    put(other)
    assert depth(tqm, INITQ) == 1
    app.commit()
    assert monitor.queues() == [APPQ]
    other.disconnect()


DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def _dead_letters(qm: QueueManager) -> list[tuple[MQDLH, MQMD, MQTM]]:
    """The dead-letter queue's messages: each one's MQDLH, MQMD and the MQTM behind it."""
    conn = qm.connect("dlq-reader")
    try:
        handle = conn.open(DLQ, C.MQOO_INPUT_AS_Q_DEF)
        out = []
        while (got := conn.get(handle)) is not None:
            md, data = got
            dlh = MQDLH.unpack(data, md.Encoding)
            out.append((dlh, md, MQTM.unpack(data, md.Encoding, MQDLH.size())))
        return out
    finally:
        conn.disconnect()


def test_a_trigger_message_the_initiation_queue_refuses_goes_to_the_dead_letter_queue(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # IBM MQ ("When triggering does not work"): "If a trigger message is created but cannot
    # be put on the initiation queue (for example, because the queue is full or the length
    # of the trigger message is greater than the maximum message length specified for the
    # initiation queue), the trigger message is put instead on the dead-letter queue"
    tqm.alter_queue(INITQ, {"MAXDEPTH": 1})
    define_triggered(tqm, trigtype="EVERY")
    put(app, n=3)
    assert depth(tqm, APPQ) == 3 and depth(tqm, INITQ) == 1
    dead = _dead_letters(tqm)
    assert len(dead) == 2
    for dlh, md, tm in dead:
        assert dlh.Reason == C.MQRC_Q_FULL
        assert dlh.DestQName.strip() == INITQ and dlh.DestQMgrName.strip() == tqm.name
        assert dlh.Format.strip() == C.MQFMT_TRIGGER and dlh.PutApplType == C.MQAT_QMGR
        assert md.Format.strip() == C.MQFMT_DEAD_LETTER_HEADER
        assert md.Persistence == C.MQPER_NOT_PERSISTENT
        assert tm.QName.strip() == APPQ and tm.ProcessName.strip() == PROC
    assert monitor.queues() == [APPQ]


def test_a_trigger_message_longer_than_the_initiation_queues_maxmsgl_is_dead_lettered(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    tqm.alter_queue(INITQ, {"MAXMSGL": 100})  # an MQTM is 684 bytes
    define_triggered(tqm)
    put(app)
    assert depth(tqm, INITQ) == 0
    [(dlh, _, tm)] = _dead_letters(tqm)
    assert dlh.Reason == C.MQRC_MSG_TOO_BIG_FOR_Q and tm.QName.strip() == APPQ


def test_the_dead_letter_queues_own_trigger_message_is_discarded_when_it_would_go_there(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # "Putting the trigger message on the dead-letter queue might generate a trigger
    # message for that queue. This second trigger message is discarded if it adds a
    # message to the dead-letter queue."
    tqm.alter_queue(INITQ, {"MAXDEPTH": 1})
    tqm.alter_queue(DLQ, {"TRIGGER": True, "TRIGTYPE": "EVERY", "INITQ": INITQ, "PROCESS": PROC})
    define_triggered(tqm, trigtype="EVERY")
    put(app, n=2)
    assert depth(tqm, INITQ) == 1  # the first put's
    [(dlh, _, tm)] = _dead_letters(tqm)  # the second put's; the DLQ's own was discarded
    assert tm.QName.strip() == APPQ and dlh.Reason == C.MQRC_Q_FULL


def test_a_trigger_message_no_queue_takes_is_dropped_and_the_put_stands(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # "If the put operation to the dead-letter queue cannot complete successfully, the
    # trigger message is discarded" (and logged): the application's put succeeds
    tqm.alter_queue(INITQ, {"MAXDEPTH": 1})
    tqm.alter_queue(DLQ, {"PUT": "DISABLED"})
    define_triggered(tqm, trigtype="EVERY")
    put(app, n=2)
    assert depth(tqm, APPQ) == 2 and depth(tqm, INITQ) == 1 and depth(tqm, DLQ) == 0


def test_full_initiation_queue_does_not_fail_the_application(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # a trigger message that cannot be written is the queue manager's problem, not the
    # putting application's: its put succeeds
    tqm.alter_queue(INITQ, {"MAXDEPTH": 1})
    define_triggered(tqm, trigtype="EVERY")
    put(app, n=3)
    assert depth(tqm, APPQ) == 3
    assert depth(tqm, INITQ) == 1
    assert monitor.queues() == [APPQ]


def test_a_dead_lettered_trigger_message_kept_by_a_backout_keeps_its_own_trigger_message(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 item 10: a backout releases a FIRST or DEPTH trigger message put in the unit
    # of work and removes an EVERY one, as it removes the message that caused it. A FIRST
    # trigger message dead-lettered in the unit of work stays on the dead-letter queue
    # after a backout, so the DLQ's own EVERY trigger message for it must stay too:
    # otherwise its trigger monitor never hears of a message that is there.
    tqm.define_queue("QLOCAL", "DLQ.INITQ", {})
    tqm.alter_queue(DLQ, {"TRIGGER": True, "TRIGTYPE": "EVERY", "INITQ": "DLQ.INITQ"})
    tqm.alter_queue(DLQ, {"PROCESS": PROC})
    dlq_monitor = Monitor(tqm, "DLQ.INITQ")
    try:
        tqm.alter_queue(INITQ, {"MAXDEPTH": 1})
        define_triggered(tqm, "OTHER.Q")
        put(app, "OTHER.Q")  # fills the initiation queue
        define_triggered(tqm)  # FIRST
        put(app, syncpoint=True)
        app.backout()
        assert depth(tqm, APPQ) == 0
        [(dlh, _, tm)] = _dead_letters(tqm)  # kept by the backout: a FIRST trigger message
        assert tm.QName.strip() == APPQ and dlh.Reason == C.MQRC_Q_FULL
        assert dlq_monitor.queues() == [DLQ]  # and the DLQ's own trigger message with it
    finally:
        dlq_monitor.disconnect()


def test_an_every_trigger_message_goes_with_the_backed_out_message_that_caused_it(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 item 10: an EVERY trigger message put in a unit of work is removed by its
    # backout, with the message that caused it
    define_triggered(tqm, trigtype="EVERY")
    put(app, syncpoint=True)
    app.backout()
    assert depth(tqm, APPQ) == 0 and monitor.queues() == []
