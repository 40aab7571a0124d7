"""DISPLAY QSTATUS and DISPLAY QMSTATUS in MQSC (distributed runmqsc's status commands):
the figures PCF's INQUIRE_Q_STATUS and INQUIRE_Q_MGR_STATUS answer, as runmqsc shows them."""

from __future__ import annotations

import os

from mqjms.mq import constants as C
from mqjms.mq.md import MQMD
from mqjms.qmgr import QueueManager
from mqjms.qmgr.mqsc import CommandResult, run_script


def one(qm: QueueManager, command: str) -> CommandResult:
    [result] = list(run_script(qm, command))
    return result


def shown(qm: QueueManager, command: str) -> list[dict[str, object]]:
    result = one(qm, command)
    assert result.ok, result.error
    return [dict(obj) for obj in result.objects]


def test_qstatus_shows_depth_open_counts_and_uncommitted_messages(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", "ORDERS.IN")
    app = qm.connect("orders-app")
    app.open("ORDERS.IN", C.MQOO_INPUT_SHARED)
    app.put("ORDERS.IN", MQMD(), b"committed")
    app.put("ORDERS.IN", MQMD(), b"in a unit of work", syncpoint=True)
    assert shown(qm, "DIS QS(ORDERS.IN)") == [  # the default: QUEUE, TYPE, CURDEPTH
        {"QUEUE": "ORDERS.IN", "TYPE": "QUEUE", "CURDEPTH": 2}
    ]
    [status] = shown(qm, "DISPLAY QSTATUS(ORDERS.IN) ALL")
    assert status["IPPROCS"] == 1 and status["OPPROCS"] == 0
    assert status["UNCOM"] == "1"  # Multiplatforms: how many uncommitted changes
    assert status["MONQ"] == "OFF" and status["MSGAGE"] == ""  # monitoring off: blank
    # CURDEPTH is always shown ("always returned": queue name, TYPE, CURDEPTH)
    assert shown(qm, "DIS QS(ORDERS.IN) UNCOM IPPROCS") == [
        {"QUEUE": "ORDERS.IN", "TYPE": "QUEUE", "CURDEPTH": 2, "IPPROCS": 1, "UNCOM": "1"}
    ]
    # a handle's field with TYPE(QUEUE) is ignored, as runmqsc ignores it
    assert shown(qm, "DIS QS(ORDERS.IN) PID") == [
        {"QUEUE": "ORDERS.IN", "TYPE": "QUEUE", "CURDEPTH": 2}
    ]
    assert [q["QUEUE"] for q in shown(qm, "DIS QS(*) WHERE(CURDEPTH GT 0)")] == ["ORDERS.IN"]
    assert shown(qm, "DIS QS(*) WHERE(UNCOM NE NO)")[0]["UNCOM"] == "1"
    app.commit()
    assert shown(qm, "DIS QS(ORDERS.IN) UNCOM")[0]["UNCOM"] == "NO"
    lines = one(qm, "DIS QS(ORDERS.IN) QTIME LGETDATE").render(echo=False)
    assert lines == [
        "AMQ8450I: Display queue status details.",
        "   QUEUE(ORDERS.IN)",
        "   TYPE(QUEUE)",
        "   CURDEPTH(2)",
        "   LGETDATE( )",
        "   QTIME( , )",
    ]
    app.disconnect()


def test_qstatus_type_handle_says_who_has_the_queue_open_and_how(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", "ORDERS.IN")
    app = qm.connect("orders-app")
    app.open("ORDERS.IN", C.MQOO_INPUT_EXCLUSIVE | C.MQOO_INQUIRE)
    [handle] = shown(qm, "DIS QSTATUS(ORDERS.IN) TYPE(HANDLE)")
    assert handle["TYPE"] == "HANDLE" and handle["APPLTAG"] == "orders-app"
    assert handle["PID"] == os.getpid() and handle["INPUT"] == "EXCL"
    assert handle["INQUIRE"] == "YES" and handle["OUTPUT"] == "NO"
    assert shown(qm, "DIS QS(ORDERS.IN) TYPE(HANDLE) PID") == [
        {"QUEUE": "ORDERS.IN", "TYPE": "HANDLE", "PID": os.getpid()}
    ]
    app.disconnect()
    assert shown(qm, "DIS QS(ORDERS.IN) TYPE(HANDLE)") == []


def test_qstatus_of_a_generic_name_shows_each_local_queue(qm: QueueManager) -> None:
    for name in ("ORDERS.IN", "ORDERS.OUT"):
        qm.define_queue("QLOCAL", name)
    qm.define_queue("QALIAS", "ORDERS.ALIAS", {"TARGET": "ORDERS.IN"})
    names = [obj["QUEUE"] for obj in shown(qm, "DIS QS(ORDERS.*)")]
    assert names == ["ORDERS.IN", "ORDERS.OUT"]  # only local queues have a status
    assert shown(qm, "DIS QS(ORDERS.ALIAS)") == []  # an alias: no data, not an error


def test_qstatus_errors_name_what_is_wrong(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", "ORDERS.IN")
    missing = one(qm, "DIS QS(NO.SUCH.Q)")
    assert missing.error is not None and missing.error.reason == C.MQRC_UNKNOWN_OBJECT_NAME
    unknown_field = one(qm, "DIS QS(ORDERS.IN) DESCR")  # a queue's attribute, not a status
    assert unknown_field.syntax_error
    assert "DESCR is not a keyword of DISPLAY QSTATUS" in str(unknown_field.error)
    bad_where = one(qm, "DIS QS(ORDERS.IN) WHERE(PID EQ 1)")  # a handle's, TYPE(QUEUE)
    assert bad_where.syntax_error
    unknown = one(qm, "DIS QS(ORDERS.IN) TYPE(CONN)")
    assert unknown.syntax_error and "TYPE must be QUEUE or HANDLE" in str(unknown.error)


def test_qmstatus_shows_the_queue_manager_running_and_its_connections(qm: QueueManager) -> None:
    assert shown(qm, "DISPLAY QMSTATUS") == [{"QMNAME": qm.name, "STATUS": "RUNNING"}]
    app = qm.connect("app")
    [status] = shown(qm, "DIS QMSTATUS ALL")
    assert status["CONNS"] == qm.connection_count() >= 1
    assert str(status["STARTDA"]).count("-") == 2 and str(status["STARTTI"]).count(".") == 2
    assert shown(qm, "DIS QMSTATUS CONNS") == [
        {"QMNAME": qm.name, "STATUS": "RUNNING", "CONNS": qm.connection_count()}
    ]
    app.disconnect()


def test_a_local_queue_shows_how_it_came_to_be(qm: QueueManager) -> None:
    # DISPLAY QLOCAL's DEFTYPE: PREDEFINED, PERMDYN or TEMPDYN (monitoring scripts list
    # WHERE(DEFTYPE EQ PREDEFINED) to leave applications' dynamic queues out)
    qm.define_queue("QLOCAL", "APP.Q")
    app = qm.connect("app")
    app.open("SYSTEM.DEFAULT.MODEL.QUEUE", C.MQOO_INPUT_SHARED, dynamic_name="REPLY.*")
    assert shown(qm, "DIS QLOCAL(APP.Q) DEFTYPE") == [
        {"QUEUE": "APP.Q", "TYPE": "QLOCAL", "DEFTYPE": "PREDEFINED"}
    ]
    [dynamic] = shown(qm, "DIS QL(*) WHERE(DEFTYPE EQ TEMPDYN)")
    assert str(dynamic["QUEUE"]).startswith("REPLY.") and dynamic["DEFTYPE"] == "TEMPDYN"
    predefined = shown(qm, "DIS QL(*) WHERE(DEFTYPE EQ PREDEFINED)")
    assert "APP.Q" in [q["QUEUE"] for q in predefined]
    assert not [q for q in predefined if str(q["QUEUE"]).startswith("REPLY.")]
    refused = one(qm, "DEFINE QLOCAL(NEW.Q) DEFTYPE(PERMDYN)")  # shown, never set
    assert refused.syntax_error
    app.disconnect()
