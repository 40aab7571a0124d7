"""Seed 003, "Conditions for a trigger event", conditions 1-10 and the unit-of-work rule,
each checked on the embedded queue manager (issue 5)."""

from __future__ import annotations

import pytest

from mqjms.mq import MQMD, C
from mqjms.qmgr import QMConnection, QueueManager
from tests.trigger.trigger_helpers import APPQ, INITQ, Monitor, define_triggered, depth, put

# --------------------------------------------------------------------------- condition 1


def test_condition_1_a_put_creates_the_trigger_message(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 1: a message is put on a queue
    define_triggered(tqm)
    assert monitor.queues() == []  # defining a triggered queue is no trigger event
    put(app)
    assert monitor.queues() == [APPQ]


def test_condition_1_a_put_through_an_alias_triggers_the_local_queue(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 1: the message lands on the application queue, whatever name was used
    define_triggered(tqm)
    tqm.define_queue("QALIAS", "APP.ALIAS", {"TARGET": APPQ})
    put(app, "APP.ALIAS")
    assert monitor.queues() == [APPQ]


# --------------------------------------------------------------------------- condition 2


def test_condition_2_priority_below_trigmpri_does_not_trigger(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 2: priority >= TriggerMsgPriority
    define_triggered(tqm, TRIGMPRI=5)
    put(app, priority=4)
    assert monitor.queues() == []
    put(app, priority=5)
    assert monitor.queues() == [APPQ]


def test_condition_2_trigmpri_zero_any_message_qualifies(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 2: "if it is set to zero, any message qualifies"
    define_triggered(tqm, TRIGMPRI=0, TRIGTYPE="EVERY")
    for priority in (0, 5, 9):
        put(app, priority=priority)
    assert monitor.queues() == [APPQ] * 3


def test_condition_2_every_counts_only_qualifying_messages(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 2 with EVERY: each qualifying put triggers, the others do not
    define_triggered(tqm, "APP.Q", "EVERY", TRIGMPRI=3)
    for priority in (2, 3, 1, 9):
        put(app, priority=priority)
    assert monitor.queues() == [APPQ, APPQ]


# --------------------------------------------------------------------------- condition 3


def test_condition_3_first_needs_zero_qualifying_messages_before(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 3: FIRST triggers when the queue previously held zero messages
    define_triggered(tqm, trigtype="FIRST")
    put(app, n=3)
    assert monitor.queues() == [APPQ]  # only the first of three
    assert depth(tqm, APPQ) == 3


def test_condition_3_first_after_the_queue_was_emptied(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 3: zero again once the server has emptied the queue
    define_triggered(tqm)
    put(app)
    assert monitor.queues() == [APPQ]
    server = tqm.connect("server")
    handle = server.open(APPQ, C.MQOO_INPUT_SHARED)
    assert server.get(handle) is not None
    server.close(handle)  # empty: no item-12 trigger
    assert monitor.queues() == []
    put(app)
    assert monitor.queues() == [APPQ]
    server.disconnect()


def test_condition_3_first_ignores_messages_below_trigmpri(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 3: "the number of messages ... with priority greater than or equal
    # to TriggerMsgPriority was previously zero": low-priority messages do not count
    define_triggered(tqm, TRIGMPRI=5)
    put(app, n=3, priority=1)
    put(app, priority=7)
    assert monitor.queues() == [APPQ]


def test_condition_3_every_triggers_whatever_the_depth(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 3: "any number" for EVERY
    define_triggered(tqm, trigtype="EVERY")
    put(app, n=4)
    assert monitor.queues() == [APPQ] * 4


def test_condition_3_depth_needs_trigdpth_minus_1_before(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 3: DEPTH triggers when TriggerDepth - 1 messages were there before
    define_triggered(tqm, trigtype="DEPTH", TRIGDPTH=3)
    put(app, n=2)
    assert monitor.queues() == []
    put(app)
    assert monitor.queues() == [APPQ]


def test_condition_3_note_1_first_counts_uncommitted_puts(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 3 note 1: committed and uncommitted messages are both counted
    define_triggered(tqm)
    other = tqm.connect("other-app")
    put(other, syncpoint=True)  # uncommitted; its trigger message waits for the unit of work
    put(app)  # the queue was not empty before: no second FIRST trigger
    assert monitor.queues() == []
    other.commit()
    assert monitor.queues() == [APPQ]
    other.disconnect()


def test_condition_3_note_1_first_counts_messages_got_but_not_committed(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 3 note 1: a message got in an uncommitted unit of work is still on
    # the queue for triggering purposes
    define_triggered(tqm)
    put(app)
    assert monitor.queues() == [APPQ]
    server = tqm.connect("server")
    handle = server.open(APPQ, C.MQOO_INPUT_SHARED)
    assert server.get(handle, syncpoint=True) is not None
    server.close(handle)  # it holds the message in its unit of work: no item-12 trigger
    put(app)
    assert monitor.queues() == []
    server.disconnect()


def test_condition_3_note_1_depth_counts_uncommitted_puts(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 3 note 1 with DEPTH: the uncommitted message counts toward TRIGDPTH
    define_triggered(tqm, trigtype="DEPTH", TRIGDPTH=2)
    other = tqm.connect("other-app")
    put(other, syncpoint=True)
    put(app)
    assert monitor.queues() == [APPQ]
    other.backout()
    other.disconnect()


def test_condition_3_note_1_a_server_may_find_nothing_to_get(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 3 note 1: "an application might be started when there are no
    # messages for it to retrieve because the messages on the queue have not been
    # committed" -- the server should get with a wait interval
    define_triggered(tqm, trigtype="DEPTH", TRIGDPTH=2)
    other = tqm.connect("other-app")
    put(other, syncpoint=True)
    put(app)
    assert monitor.queues() == [APPQ]
    server = tqm.connect("server")
    handle = server.open(APPQ, C.MQOO_INPUT_SHARED)
    assert server.get(handle) is not None  # the committed one
    assert server.get(handle) is None  # the other is not committed yet
    other.commit()
    assert server.get(handle, wait=2.0) is not None  # waiting finds it
    server.disconnect()
    other.disconnect()


# --------------------------------------------------------------------------- condition 4


@pytest.mark.parametrize("trigtype", ["FIRST", "DEPTH"])
def test_condition_4_first_and_depth_need_ipprocs_0(
    tqm: QueueManager, monitor: Monitor, app: QMConnection, trigtype: str
) -> None:
    # seed 003 condition 4: FIRST needs IPPROCS 0 (and DEPTH too)
    define_triggered(tqm, trigtype=trigtype, TRIGDPTH=1)
    server = tqm.connect("server")
    handle = server.open(APPQ, C.MQOO_INPUT_SHARED)
    put(app)
    assert monitor.queues() == []
    server.close(handle)  # item 12 may trigger now: the server left a message behind
    server.disconnect()


def test_condition_4_every_triggers_while_the_queue_is_open_for_input(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 4: applies to FIRST and DEPTH only, not EVERY
    define_triggered(tqm, trigtype="EVERY")
    server = tqm.connect("server")
    server.open(APPQ, C.MQOO_INPUT_SHARED)
    put(app, n=2)
    assert monitor.queues() == [APPQ, APPQ]
    server.disconnect()


def test_condition_4_open_for_browse_or_output_is_not_open_for_input(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 4: only opens "for removing messages" (OpenInputCount) count
    define_triggered(tqm)
    other = tqm.connect("browser")
    other.open(APPQ, C.MQOO_BROWSE | C.MQOO_OUTPUT | C.MQOO_INQUIRE)
    put(app)
    assert monitor.queues() == [APPQ]
    other.disconnect()


def test_condition_4_after_the_server_closed(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 4: IPPROCS back to 0 once the only server closed the queue
    define_triggered(tqm)
    server = tqm.connect("server")
    handle = server.open(APPQ, C.MQOO_INPUT_EXCLUSIVE)
    server.close(handle)
    put(app)
    assert monitor.queues() == [APPQ]
    server.disconnect()


# --------------------------------------------------------------------------- condition 5


def test_condition_5_get_inhibited_application_queue_does_not_trigger(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 5: get requests for the application queue are not inhibited
    define_triggered(tqm, GET="DISABLED")
    put(app)
    assert monitor.queues() == []


def test_condition_5_get_inhibited_transmission_queue_does_not_trigger(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 5: "also, if the triggered application queue is one with a Usage
    # attribute of MQUS_XMITQ, get requests for it are not inhibited"
    define_triggered(tqm, "APP.XMITQ", USAGE="XMITQ", PROCESS="", GET="DISABLED")
    put(app, "APP.XMITQ")
    assert monitor.queues() == []


# --------------------------------------------------------------------------- condition 6


def test_condition_6_process_must_be_defined(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 6: ProcessName names a process definition that has been created
    define_triggered(tqm, PROCESS="NO.SUCH.PROC")
    put(app)
    assert monitor.queues() == []


def test_condition_6_process_deleted_then_defined_again(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 6: the check is made at the trigger event, not at DEFINE QLOCAL
    define_triggered(tqm, "APP.Q", "EVERY")
    tqm.delete_process("APP.PROC")
    put(app)
    assert monitor.queues() == []
    tqm.define_process("APP.PROC", {"APPLICID": "/bin/true"})
    put(app)
    [trigger] = monitor.take()
    assert trigger.tm.ApplId == "/bin/true"


def test_condition_6_blank_process_on_a_normal_queue_does_not_trigger(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 6: a blank ProcessName is allowed only for a transmission queue
    define_triggered(tqm, PROCESS="")
    put(app)
    assert monitor.queues() == []


def test_condition_6_transmission_queue_with_blank_process(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 6: a transmission queue with a blank ProcessName triggers, with
    # QName, blank ProcessName, TriggerData, ApplType MQAT_UNKNOWN and blank ApplId,
    # EnvData and UserData
    define_triggered(tqm, "TO.QM2", USAGE="XMITQ", PROCESS="", TRIGDATA="TO.QM2.CHANNEL")
    put(app, "TO.QM2")
    [trigger] = monitor.take()
    tm = trigger.tm
    assert tm.QName == "TO.QM2"
    assert tm.ProcessName == ""
    assert tm.TriggerData == "TO.QM2.CHANNEL"
    assert tm.ApplType == C.MQAT_UNKNOWN
    assert (tm.ApplId, tm.EnvData, tm.UserData) == ("", "", "")
    raw = trigger.data  # blanks, not NULs, in the packed MQTM
    assert raw[56:104] == b" " * 48
    assert raw[172:684] == b" " * 512


def test_condition_6_transmission_queue_with_a_process_uses_it(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 6: "the process definition is optional" -- when given it is used
    define_triggered(tqm, "TO.QM3", USAGE="XMITQ", TRIGDATA="CHL")
    put(app, "TO.QM3")
    [trigger] = monitor.take()
    assert trigger.tm.ProcessName == "APP.PROC"
    assert trigger.tm.ApplType == C.MQAT_UNIX
    assert trigger.tm.TriggerData == "CHL"


# --------------------------------------------------------------------------- condition 7


def test_condition_7_initiation_queue_must_be_named(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 7: an initiation queue specified in InitiationQName
    define_triggered(tqm, INITQ="")
    put(app)
    assert monitor.queues() == []
    assert depth(tqm, INITQ) == 0


def test_condition_7_initiation_queue_must_exist(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 7: the initiation queue has been created
    define_triggered(tqm, INITQ="NO.SUCH.INITQ")
    put(app)  # the application's put still works
    assert depth(tqm, APPQ) == 1
    assert monitor.queues() == []


def test_condition_7_initiation_queue_must_be_local(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 7: an alias is not an initiation queue
    tqm.define_queue("QALIAS", "INITQ.ALIAS", {"TARGET": INITQ})
    define_triggered(tqm, INITQ="INITQ.ALIAS")
    put(app)
    assert monitor.queues() == []


def test_condition_7_initiation_queue_get_inhibited(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 7: get requests are not inhibited for the initiation queue
    define_triggered(tqm)
    tqm.alter_queue(INITQ, {"GET": "DISABLED"})
    put(app)
    assert depth(tqm, INITQ) == 0
    tqm.alter_queue(INITQ, {"GET": "ENABLED"})  # not an item-13 event
    assert monitor.queues() == []


def test_condition_7_initiation_queue_put_inhibited(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 7: put requests are not inhibited for the initiation queue
    define_triggered(tqm)
    tqm.alter_queue(INITQ, {"PUT": "DISABLED"})
    put(app)
    assert depth(tqm, INITQ) == 0
    assert depth(tqm, APPQ) == 1  # the application's put is not affected


def test_condition_7_initiation_queue_usage_must_be_normal(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 7: the Usage attribute of the initiation queue must be MQUS_NORMAL
    define_triggered(tqm)
    tqm.alter_queue(INITQ, {"USAGE": "XMITQ"})
    put(app)
    assert depth(tqm, INITQ) == 0


def test_condition_7_deleted_dynamic_initiation_queue(tqm: QueueManager, app: QMConnection) -> None:
    # seed 003 condition 7: a dynamic initiation queue that has gone (a temporary dynamic
    # queue is deleted when its creator closes it) receives no more trigger messages
    owner = tqm.connect("dyn-owner")
    dyn = owner.open("SYSTEM.DEFAULT.MODEL.QUEUE", C.MQOO_INPUT_EXCLUSIVE, dynamic_name="DYN.*")
    define_triggered(tqm, trigtype="EVERY", INITQ=dyn.name)
    put(app)
    assert depth(tqm, dyn.name) == 1  # while it exists (and is open for input) it works
    owner.close(dyn)
    assert dyn.name not in tqm.queue_names()
    put(app)  # the application's put still works; there is nowhere to write a trigger
    assert depth(tqm, APPQ) == 2
    owner.disconnect()


# --------------------------------------------------------------------------- condition 8


def test_condition_8_no_trigger_monitor_no_trigger_message(
    tqm: QueueManager, app: QMConnection
) -> None:
    # seed 003 condition 8: a trigger monitor has the initiation queue open for input
    define_triggered(tqm)
    put(app)
    assert depth(tqm, INITQ) == 0


def test_condition_8_browsing_the_initiation_queue_is_not_enough(
    tqm: QueueManager, app: QMConnection
) -> None:
    # seed 003 condition 8: open "for removing messages" (OpenInputCount > 0)
    define_triggered(tqm)
    browser = Monitor(tqm, options=C.MQOO_BROWSE)
    put(app)
    assert depth(tqm, INITQ) == 0
    browser.disconnect()


def test_condition_8_after_the_trigger_monitor_ended(tqm: QueueManager, app: QMConnection) -> None:
    # seed 003 condition 8: once the monitor has closed the initiation queue, no more
    define_triggered(tqm, trigtype="EVERY")
    mon = Monitor(tqm)
    put(app)
    assert mon.queues() == [APPQ]
    mon.close()
    put(app)
    assert depth(tqm, INITQ) == 0
    mon.disconnect()


# --------------------------------------------------------------------------- conditions 9, 10


def test_condition_9_notrigger_does_not_trigger(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 9: TriggerControl must be MQTC_ON
    define_triggered(tqm, trigger=False)
    put(app)
    assert monitor.queues() == []
    assert app.inquire(APPQ, [C.MQIA_TRIGGER_CONTROL]) == {C.MQIA_TRIGGER_CONTROL: C.MQTC_OFF}


def test_condition_10_trigtype_none_does_not_trigger(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 condition 10: TriggerType is not MQTT_NONE
    define_triggered(tqm, trigtype="NONE")
    put(app)
    assert monitor.queues() == []
    assert app.inquire(APPQ, [C.MQIA_TRIGGER_TYPE]) == {C.MQIA_TRIGGER_TYPE: C.MQTT_NONE}


# --------------------------------------------------------------------------- units of work


@pytest.mark.parametrize("trigtype", ["FIRST", "EVERY", "DEPTH"])
def test_unit_of_work_trigger_message_released_on_commit(
    tqm: QueueManager, monitor: Monitor, app: QMConnection, trigtype: str
) -> None:
    # seed 003 unit-of-work rule: the trigger message becomes available for retrieval only
    # when the unit of work completes -- committed
    define_triggered(tqm, trigtype=trigtype, TRIGDPTH=1)
    put(app, syncpoint=True)
    assert depth(tqm, INITQ) == 1  # written, but not available
    assert monitor.queues() == []
    app.commit()
    assert monitor.queues() == [APPQ]


@pytest.mark.parametrize("trigtype", ["FIRST", "DEPTH"])
def test_unit_of_work_first_and_depth_released_on_backout(
    tqm: QueueManager, monitor: Monitor, app: QMConnection, trigtype: str
) -> None:
    # seed 003 unit-of-work rule: "or, for trigger type MQTT_FIRST or MQTT_DEPTH, backed out"
    define_triggered(tqm, trigtype=trigtype, TRIGDPTH=1)
    put(app, syncpoint=True)
    assert monitor.queues() == []
    app.backout()
    assert depth(tqm, APPQ) == 0  # the application message is gone
    assert monitor.queues() == [APPQ]  # its trigger message is released


def test_unit_of_work_every_trigger_message_removed_on_backout(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 unit-of-work rule: an EVERY trigger message is not released by a backout
    define_triggered(tqm, trigtype="EVERY")
    put(app, n=2, syncpoint=True)
    assert depth(tqm, INITQ) == 2
    app.backout()
    assert depth(tqm, INITQ) == 0
    assert monitor.queues() == []


def test_unit_of_work_released_when_the_connection_ends_without_commit(
    tqm: QueueManager, monitor: Monitor
) -> None:
    # seed 003 unit-of-work rule: a connection that ends backs its unit of work out, which
    # releases a FIRST trigger message
    define_triggered(tqm)
    conn = tqm.connect("short-lived")
    put(conn, syncpoint=True)
    conn.disconnect()
    assert monitor.queues() == [APPQ]


def test_unit_of_work_mixed_put_outside_syncpoint_is_available_at_once(
    tqm: QueueManager, monitor: Monitor, app: QMConnection
) -> None:
    # seed 003 unit-of-work rule applies to puts in a unit of work only
    define_triggered(tqm, trigtype="EVERY")
    put(app, syncpoint=True)
    app.put(APPQ, MQMD(), b"outside", syncpoint=False)
    assert monitor.queues() == [APPQ]  # the second one's
    app.commit()
    assert monitor.queues() == [APPQ]
