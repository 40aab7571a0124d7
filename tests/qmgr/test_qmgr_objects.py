"""Queue objects of the embedded queue manager: alias and model queues, dynamic queues,
open counts, exclusive input, DELETE rules and name checks (issue 2, objects)."""

from __future__ import annotations

import pytest

from mqjms.mq import MQMD, C, MQError
from mqjms.qmgr import QueueManager

IN = C.MQOO_INPUT_SHARED
OUT = C.MQOO_OUTPUT


def status(qm: QueueManager, name: str) -> dict[str, int | str | bool]:
    [row] = qm.display_queues(name, "QLOCAL", ["CURDEPTH", "IPPROCS", "OPPROCS"])
    return row


# --------------------------------------------------------------------------- model queues


def test_temporary_dynamic_queue_from_the_default_model(qm: QueueManager) -> None:
    conn = qm.connect()
    handle = conn.open("SYSTEM.DEFAULT.MODEL.QUEUE", IN | OUT | C.MQOO_INQUIRE)
    name = handle.name
    assert name.startswith("AMQ.") and len(name) <= 48
    assert name == handle.resolved_name
    assert name in qm.queue_names("AMQ.*", "QLOCAL")
    assert conn.inquire(handle, [C.MQIA_Q_TYPE, C.MQIA_DEFINITION_TYPE]) == {
        C.MQIA_Q_TYPE: C.MQQT_LOCAL,
        C.MQIA_DEFINITION_TYPE: C.MQQDT_TEMPORARY_DYNAMIC,
    }
    conn.put(handle, MQMD(), b"reply")
    assert conn.get(handle)[1] == b"reply"
    conn.put(handle, MQMD(), b"left behind")
    conn.close(handle)  # a temporary dynamic queue is deleted on close, messages and all
    assert name not in qm.queue_names()
    with pytest.raises(MQError) as err:
        conn.open(name, IN)
    assert err.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME


def test_dynamic_queue_name_prefix(qm: QueueManager) -> None:
    conn = qm.connect()
    handle = conn.open("SYSTEM.DEFAULT.MODEL.QUEUE", IN, dynamic_name="REPLY.*")
    assert handle.name.startswith("REPLY.")
    other = conn.open("SYSTEM.DEFAULT.MODEL.QUEUE", IN, dynamic_name="REPLY.*")
    assert other.name != handle.name


def test_dynamic_queue_names_follow_mqs_asterisk_rule(qm: QueueManager) -> None:
    # MQOD DynamicQName: "the asterisk is valid only in positions 1 through 33. There must
    # be no characters other than blanks or a null character following the asterisk";
    # else MQRC_DYNAMIC_Q_NAME_ERROR (an asterisk at 40 was taken)
    conn = qm.connect()
    model = "SYSTEM.DEFAULT.MODEL.QUEUE"
    at_33 = "A" * 32 + "*"
    assert conn.open(model, IN, dynamic_name=at_33).name.startswith("A" * 32)
    assert len(conn.open(model, IN, dynamic_name="*").name) == 32  # all of it generated
    assert conn.open(model, IN, dynamic_name="EXACT.NAME").name == "EXACT.NAME"
    for wrong in ("A" * 33 + "*", "A" * 39 + "*", "REPLY.*.X", "*A", "BAD NAME", "", "  "):
        with pytest.raises(MQError) as failure:
            conn.open(model, IN, dynamic_name=wrong)
        assert failure.value.reason == C.MQRC_DYNAMIC_Q_NAME_ERROR, wrong


def test_temporary_dynamic_queue_deleted_when_its_connection_ends(qm: QueueManager) -> None:
    conn = qm.connect()
    name = conn.open("SYSTEM.DEFAULT.MODEL.QUEUE", IN).name
    conn.disconnect()
    assert name not in qm.queue_names()


def test_temporary_dynamic_queue_is_gone_after_restart(qmgr_dir) -> None:
    first = QueueManager(qmgr_dir)
    conn = first.connect()
    name = conn.open("SYSTEM.DEFAULT.MODEL.QUEUE", IN).name
    first.close()
    with QueueManager(qmgr_dir) as second:
        assert name not in second.queue_names()


def test_permanent_dynamic_queue_survives_close(qm: QueueManager) -> None:
    qm.define_queue("QMODEL", "APP.PERM.MODEL", {"DEFTYPE": "PERMDYN", "BOTHRESH": 2})
    conn = qm.connect()
    handle = conn.open("APP.PERM.MODEL", IN | OUT | C.MQOO_INQUIRE, dynamic_name="APP.PERM.*")
    assert conn.inquire(handle, [C.MQIA_DEFINITION_TYPE, C.MQIA_BACKOUT_THRESHOLD]) == {
        C.MQIA_DEFINITION_TYPE: C.MQQDT_PERMANENT_DYNAMIC,
        C.MQIA_BACKOUT_THRESHOLD: 2,  # attributes come from the model
    }
    conn.put(handle, MQMD(Persistence=C.MQPER_PERSISTENT), b"kept")
    conn.close(handle)
    conn.disconnect()
    assert handle.name in qm.queue_names()
    assert qm.queue_depth(handle.name) == 1


def test_model_queue_cannot_be_put_to_by_name(qm: QueueManager) -> None:
    with pytest.raises(MQError) as err:
        qm.connect().put("SYSTEM.DEFAULT.MODEL.QUEUE", MQMD(), b"x")
    assert err.value.reason == C.MQRC_Q_TYPE_ERROR


# --------------------------------------------------------------------------- alias queues


def test_alias_resolves_to_its_target_and_counts_on_the_base(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", "APP.BASE", {"BOTHRESH": 3})
    qm.define_queue("QALIAS", "APP.ALIAS", {"TARGET": "APP.BASE"})
    conn = qm.connect()
    handle = conn.open("APP.ALIAS", IN | OUT | C.MQOO_INQUIRE)
    assert (handle.name, handle.resolved_name) == ("APP.ALIAS", "APP.BASE")
    assert status(qm, "APP.BASE")["IPPROCS"] == 1
    assert status(qm, "APP.BASE")["OPPROCS"] == 1
    conn.put(handle, MQMD(), b"x")
    assert qm.queue_depth("APP.BASE") == 1
    assert conn.inquire("APP.ALIAS", [C.MQCA_BASE_Q_NAME]) == {C.MQCA_BASE_Q_NAME: "APP.BASE"}
    with pytest.raises(MQError) as err:
        conn.inquire("APP.ALIAS", [C.MQIA_BACKOUT_THRESHOLD])
    assert err.value.reason == C.MQRC_SELECTOR_NOT_FOR_TYPE
    assert err.value.comp == C.MQCC_WARNING  # MQINQ's 2068 is a warning


def test_the_event_and_delivery_attributes_are_kept_and_inquired(qm: QueueManager) -> None:
    # IBM MQ's local-queue selectors programs inquire; mqjms keeps the values, acting on none
    qm.define_queue("QLOCAL", "APP.EVENTS", {"QDEPTHHI": 90, "QDPHIEV": "ENABLED"})
    conn = qm.connect()
    selectors = [
        C.MQIA_Q_DEPTH_HIGH_LIMIT,
        C.MQIA_Q_DEPTH_HIGH_EVENT,
        C.MQIA_Q_DEPTH_LOW_LIMIT,
        C.MQIA_Q_DEPTH_MAX_EVENT,
        C.MQIA_RETENTION_INTERVAL,
        C.MQIA_DIST_LISTS,
        C.MQIA_DEF_PUT_RESPONSE_TYPE,
        C.MQIA_DEF_READ_AHEAD,
    ]
    assert list(conn.inquire("APP.EVENTS", selectors).values()) == [
        90,
        C.MQEVR_ENABLED,
        20,
        C.MQEVR_ENABLED,
        999_999_999,
        C.MQDL_NOT_SUPPORTED,
        C.MQPRT_SYNC_RESPONSE,
        C.MQREADA_NO,
    ]


def test_alias_to_a_non_local_queue_is_an_unknown_alias_base(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", "APP.BASE")
    qm.define_queue("QALIAS", "APP.A1", {"TARGET": "APP.BASE"})
    qm.define_queue("QALIAS", "APP.A2", {"TARGET": "APP.A1"})
    with pytest.raises(MQError) as err:
        qm.connect().open("APP.A2", IN)
    assert err.value.reason == C.MQRC_UNKNOWN_ALIAS_BASE_Q


def test_alias_target_deleted_later_is_an_unknown_alias_base(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", "APP.BASE")
    qm.define_queue("QALIAS", "APP.ALIAS", {"TARGET": "APP.BASE"})
    qm.delete_queue("APP.BASE")
    with pytest.raises(MQError) as err:
        qm.connect().put("APP.ALIAS", MQMD(), b"x")
    assert err.value.reason == C.MQRC_UNKNOWN_ALIAS_BASE_Q


def test_alias_default_priority_applies_to_puts_through_it(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", "APP.BASE", {"DEFPRTY": 1})
    qm.define_queue("QALIAS", "APP.ALIAS", {"TARGET": "APP.BASE", "DEFPRTY": 8})
    conn = qm.connect()
    conn.put("APP.ALIAS", MQMD(), b"x")
    assert conn.get(conn.open("APP.BASE", IN))[0].Priority == 8


def test_alias_default_persistence_applies_to_puts_through_it(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", "APP.BASE", {"DEFPSIST": "NO"})
    qm.define_queue("QALIAS", "APP.ALIAS", {"TARGET": "APP.BASE", "DEFPSIST": "YES"})
    conn = qm.connect()
    conn.put("APP.ALIAS", MQMD(), b"via alias")
    conn.put("APP.BASE", MQMD(), b"direct")
    handle = conn.open("APP.BASE", IN)
    got = [(conn.get(handle)[0].Persistence) for _ in range(2)]
    assert got == [C.MQPER_PERSISTENT, C.MQPER_NOT_PERSISTENT]


def test_message_too_big_for_the_queue_manager(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", "APP.BIG", {"MAXMSGL": 104_857_600})
    qm.alter_qmgr({"MAXMSGL": 32_768})
    conn = qm.connect()
    conn.put("APP.BIG", MQMD(), b"x" * 32_768)
    with pytest.raises(MQError) as err:
        conn.put("APP.BIG", MQMD(), b"x" * 32_769)
    assert err.value.reason == C.MQRC_MSG_TOO_BIG_FOR_Q_MGR == 2031
    assert "raise the queue manager's MAXMSGL" in err.value.detail  # says what to do
    assert qm.queue_depth("APP.BIG") == 1


def test_message_too_big_for_the_queue_says_which_limit(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", "APP.SMALL", {"MAXMSGL": 10})
    with pytest.raises(MQError) as err:
        qm.connect().put("APP.SMALL", MQMD(), b"x" * 11)
    assert err.value.reason == C.MQRC_MSG_TOO_BIG_FOR_Q == 2030
    assert err.value.detail.startswith("11 bytes is more than MAXMSGL(10) of 'APP.SMALL'")
    assert "raise the queue's MAXMSGL" in err.value.detail


# --------------------------------------------------------------------------- open counts


def test_ipprocs_and_opprocs_count_open_handles(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", "APP.Q")
    a, b = qm.connect(), qm.connect()
    assert status(qm, "APP.Q")["IPPROCS"] == 0 and status(qm, "APP.Q")["OPPROCS"] == 0
    h1 = a.open("APP.Q", IN)
    h2 = b.open("APP.Q", IN | OUT)
    h3 = b.open("APP.Q", OUT)
    h4 = a.open("APP.Q", C.MQOO_BROWSE | C.MQOO_INQUIRE)
    row = status(qm, "APP.Q")
    assert (row["IPPROCS"], row["OPPROCS"]) == (2, 2)
    conn_status = a.inquire("APP.Q", [C.MQIA_OPEN_INPUT_COUNT, C.MQIA_OPEN_OUTPUT_COUNT])
    assert conn_status == {C.MQIA_OPEN_INPUT_COUNT: 2, C.MQIA_OPEN_OUTPUT_COUNT: 2}
    b.close(h3)
    a.close(h1)
    row = status(qm, "APP.Q")
    assert (row["IPPROCS"], row["OPPROCS"]) == (1, 1)
    b.disconnect()  # ending a connection closes its handles
    row = status(qm, "APP.Q")
    assert (row["IPPROCS"], row["OPPROCS"]) == (0, 0)
    a.close(h4)
    del h2


# --------------------------------------------------------------------------- exclusive input


def test_exclusive_input_refuses_other_input_opens(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", "APP.Q")
    a, b = qm.connect(), qm.connect()
    excl = a.open("APP.Q", C.MQOO_INPUT_EXCLUSIVE)
    for options in (C.MQOO_INPUT_SHARED, C.MQOO_INPUT_EXCLUSIVE, C.MQOO_INPUT_AS_Q_DEF):
        with pytest.raises(MQError) as err:
            b.open("APP.Q", options)
        assert err.value.reason == C.MQRC_OBJECT_IN_USE == 2042
    b.open("APP.Q", OUT | C.MQOO_BROWSE)  # output and browse are still allowed
    a.close(excl)
    b.open("APP.Q", C.MQOO_INPUT_SHARED)


def test_exclusive_open_refused_while_shared_input_is_open(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", "APP.Q")
    a, b = qm.connect(), qm.connect()
    a.open("APP.Q", C.MQOO_INPUT_SHARED)
    b.open("APP.Q", C.MQOO_INPUT_SHARED)
    with pytest.raises(MQError) as err:
        b.open("APP.Q", C.MQOO_INPUT_EXCLUSIVE)
    assert err.value.reason == C.MQRC_OBJECT_IN_USE


def test_input_as_queue_default_follows_defsopt_and_noshare(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", "APP.EXCL", {"DEFSOPT": "EXCL"})
    qm.define_queue("QLOCAL", "APP.NOSHARE", {"SHARE": False})
    a, b = qm.connect(), qm.connect()
    handle = a.open("APP.EXCL", C.MQOO_INPUT_AS_Q_DEF)
    assert handle.options & C.MQOO_INPUT_EXCLUSIVE
    with pytest.raises(MQError) as err:
        b.open("APP.EXCL", C.MQOO_INPUT_SHARED)
    assert err.value.reason == C.MQRC_OBJECT_IN_USE
    a.open("APP.NOSHARE", C.MQOO_INPUT_SHARED)  # NOSHARE makes any input open exclusive
    with pytest.raises(MQError) as err:
        b.open("APP.NOSHARE", C.MQOO_INPUT_SHARED)
    assert err.value.reason == C.MQRC_OBJECT_IN_USE


def test_exclusive_input_released_when_the_connection_ends(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", "APP.Q")
    a, b = qm.connect(), qm.connect()
    a.open("APP.Q", C.MQOO_INPUT_EXCLUSIVE)
    a.disconnect()
    b.open("APP.Q", C.MQOO_INPUT_EXCLUSIVE)


def test_open_with_no_operation_is_an_options_error(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", "APP.Q")
    with pytest.raises(MQError) as err:
        qm.connect().open("APP.Q", C.MQOO_FAIL_IF_QUIESCING)
    assert err.value.reason == C.MQRC_OPTIONS_ERROR


# --------------------------------------------------------------------------- DELETE


def test_delete_refuses_an_open_queue(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", "APP.Q")
    conn = qm.connect()
    handle = conn.open("APP.Q", OUT)
    with pytest.raises(MQError) as err:
        qm.delete_queue("APP.Q", purge=True)
    assert err.value.reason == C.MQRC_OBJECT_IN_USE
    assert "open" in str(err.value)
    conn.close(handle)
    qm.delete_queue("APP.Q")
    assert "APP.Q" not in qm.queue_names()


def test_delete_refuses_a_non_empty_queue_without_purge(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", "APP.Q")
    qm.connect().put("APP.Q", MQMD(), b"x")
    with pytest.raises(MQError) as err:
        qm.delete_queue("APP.Q")
    assert err.value.reason == C.MQRC_Q_NOT_EMPTY
    assert "PURGE" in str(err.value)
    assert qm.queue_depth("APP.Q") == 1
    qm.delete_queue("APP.Q", purge=True)
    assert "APP.Q" not in qm.queue_names()
    with pytest.raises(MQError) as err:
        qm.connect().open("APP.Q", IN)
    assert err.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME


def test_delete_refuses_a_queue_with_uncommitted_messages_without_purge(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", "APP.Q")
    conn = qm.connect()
    conn.put("APP.Q", MQMD(), b"x", syncpoint=True)
    with pytest.raises(MQError) as err:
        qm.delete_queue("APP.Q")
    assert err.value.reason == C.MQRC_Q_NOT_EMPTY


def test_delete_an_unknown_queue(qm: QueueManager) -> None:
    with pytest.raises(MQError) as err:
        qm.delete_queue("APP.NOT.THERE")
    assert err.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME


# --------------------------------------------------------------------------- names


@pytest.mark.parametrize(
    ("name", "says"),
    [("Q" * 49, "48"), ("HAS SPACE", "' '"), ("HAS-DASH", "-"), ("", "empty")],
    ids=["49-chars", "space", "dash", "empty"],
)
def test_define_rejects_invalid_names_clearly(qm: QueueManager, name: str, says: str) -> None:
    with pytest.raises(MQError) as err:
        qm.define_queue("QLOCAL", name)
    assert says in str(err.value)
    assert name not in qm.queue_names() or name == ""


def test_define_rejects_an_invalid_backout_queue_name(qm: QueueManager) -> None:
    with pytest.raises(MQError) as err:
        qm.define_queue("QLOCAL", "APP.Q", {"BOQNAME": "NOT VALID"})
    assert "BOQNAME" in str(err.value)


def test_define_existing_queue_needs_replace(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", "APP.Q", {"BOTHRESH": 1})
    with pytest.raises(MQError):
        qm.define_queue("QLOCAL", "APP.Q", {"BOTHRESH": 2})
    qm.define_queue("QLOCAL", "APP.Q", {"BOTHRESH": 2}, replace=True)
    assert qm.display_queues("APP.Q", "QLOCAL", ["BOTHRESH"])[0]["BOTHRESH"] == 2


def test_define_like_copies_attributes(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", "APP.TEMPLATE", {"BOTHRESH": 5, "MSGDLVSQ": "FIFO"})
    qm.define_queue("QLOCAL", "APP.COPY", {"BOTHRESH": 6}, like="APP.TEMPLATE")
    row = qm.display_queues("APP.COPY", "QLOCAL", ["BOTHRESH", "MSGDLVSQ"])[0]
    assert (row["BOTHRESH"], row["MSGDLVSQ"]) == (6, "FIFO")
