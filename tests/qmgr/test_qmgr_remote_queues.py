"""Remote queues on the embedded queue manager: QREMOTE definitions, ObjectQMgrName,
queue manager aliases and DEFXMITQ, and the MQXQH a put to a remote queue is wrapped in.

Seed 000 note 9, first point: "When an application puts a message on a remote queue, the
queue manager places the message initially on a local transmission queue, and prefixes
the application message data with an MQXQH structure. The queue manager sets the values
of the two Expiry fields to be the same as that specified by the application."
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable

import pytest

from mqjms.mq import MQMD, C, MQError, parse_xqh
from mqjms.mq.mde import MQMDE, MQMDE_LENGTH_2
from mqjms.mq.xqh import MQXQH_LENGTH_1
from mqjms.mqi.constants import CMQC
from mqjms.qmgr import QueueManager
from mqjms.qmgr.connection import QMConnection
from mqjms.qmgr.mqsc import run_script
from mqjms.semantics.pubsub import SubscriptionDescriptor

XMITQ, LOCALQ, REPLY = "QM2", "APP.LOCAL", "APP.REPLY"
IN = C.MQOO_INPUT_SHARED
DATA = b"for the other queue manager"


@pytest.fixture
def conn(qm: QueueManager) -> QMConnection:
    qm.define_queue("QLOCAL", XMITQ, {"USAGE": "XMITQ"})
    qm.define_queue("QLOCAL", LOCALQ, {})
    qm.define_queue("QLOCAL", REPLY, {})
    qm.define_queue("QREMOTE", "ORDERS.REMOTE", {"RNAME": "ORDERS.IN", "RQMNAME": "QM2"})
    return qm.connect()


def take(conn: QMConnection, queue: str) -> tuple[MQMD, bytes]:
    handle = conn.open(queue, IN)
    try:
        got = conn.get(handle)
    finally:
        conn.close(handle)
    assert got is not None, f"nothing on {queue}"
    return got


def reason(call: Callable[..., object], *args: object, **kwargs: object) -> int:
    with pytest.raises(MQError) as caught:
        call(*args, **kwargs)
    return caught.value.reason


# --------------------------------------------------------------------------- the MQXQH


def test_seed_000_note_9_a_put_to_a_remote_queue_goes_on_the_transmission_queue(
    conn: QMConnection,
) -> None:
    # seed 000 note 9: "the queue manager places the message initially on a local
    # transmission queue, and prefixes the application message data with an MQXQH"
    put = conn.put("ORDERS.REMOTE", MQMD(Format=C.MQFMT_STRING, Expiry=6000), DATA)
    md, data = take(conn, XMITQ)
    assert md.Format == C.MQFMT_XMIT_Q_HEADER
    header, rest = parse_xqh(data, md.Encoding)
    assert rest == DATA
    assert (header.RemoteQName, header.RemoteQMgrName) == ("ORDERS.IN", "QM2")
    assert header.MsgDesc.Format == C.MQFMT_STRING  # the application's message descriptor
    assert header.MsgDesc.MsgId == put.MsgId
    # the program sees its own message, not the transmission queue's
    assert put.Format == C.MQFMT_STRING


def test_seed_000_note_9_both_expiry_fields_are_the_applications(conn: QMConnection) -> None:
    # seed 000 note 9: "The queue manager sets the values of the two Expiry fields to be
    # the same as that specified by the application."
    conn.put("ORDERS.REMOTE", MQMD(Expiry=999_999), DATA)
    md, data = take(conn, XMITQ)
    header, _ = parse_xqh(data, md.Encoding)
    # each decremented by the same time on the queue (note 9, third point)
    assert md.Expiry == header.MsgDesc.Expiry
    assert 999_900 < md.Expiry <= 999_999


def test_seed_000_note_9_unlimited_expiry_stays_unlimited_in_both(conn: QMConnection) -> None:
    conn.put("ORDERS.REMOTE", MQMD(), DATA)
    md, data = take(conn, XMITQ)
    header, _ = parse_xqh(data, md.Encoding)
    assert md.Expiry == header.MsgDesc.Expiry == C.MQEI_UNLIMITED


def test_seed_000_note_9_a_message_can_expire_on_the_transmission_queue(
    conn: QMConnection,
) -> None:
    # seed 000: "If a message is put on a remote queue, the message might expire (and be
    # discarded) while it is on an intermediate transmission queue"
    conn.put(
        "ORDERS.REMOTE",
        MQMD(Expiry=1, Report=C.MQRO_EXPIRATION, ReplyToQ=REPLY),
        DATA,
    )
    time.sleep(0.25)
    handle = conn.open(XMITQ, IN)
    assert conn.get(handle) is None
    report, _ = take(conn, REPLY)  # the expiry report goes back to the putter
    assert report.Feedback == C.MQFB_EXPIRATION


def test_the_transmission_queues_mqmd_is_made_as_mq_makes_it(conn: QMConnection) -> None:
    asked = C.MQRO_COA | C.MQRO_COD | C.MQRO_EXCEPTION
    put = conn.put(
        "ORDERS.REMOTE",
        MQMD(
            Report=asked,
            ReplyToQ=REPLY,
            Priority=7,
            Persistence=C.MQPER_PERSISTENT,
            CorrelId=b"C" * 24,
            Encoding=C.MQENC_S390,
            CodedCharSetId=37,
        ),
        DATA,
    )
    md, data = take(conn, XMITQ)
    header, _ = parse_xqh(data, md.Encoding)
    assert md.Report == C.MQRO_EXCEPTION  # no COA or COD: it is not there yet
    assert header.MsgDesc.Report == asked
    assert md.MsgId != put.MsgId  # a message of its own
    assert md.CorrelId == put.MsgId
    assert header.MsgDesc.CorrelId == b"C" * 24
    assert (md.Encoding, md.CodedCharSetId) == (C.MQENC_NATIVE, 1208)
    assert (header.MsgDesc.Encoding, header.MsgDesc.CodedCharSetId) == (C.MQENC_S390, 37)
    assert (md.Priority, md.Persistence) == (7, C.MQPER_PERSISTENT)
    assert md.ReplyToQ.strip() == REPLY
    assert header.MsgDesc.ReplyToQMgr.strip() == conn.qmgr_name
    # the origin context is the queue manager's; the application's travels inside
    assert (md.PutApplType, md.PutApplName.strip()) == (C.MQAT_QMGR, conn.qmgr_name)
    assert header.MsgDesc.PutApplType == put.PutApplType != C.MQAT_QMGR
    # and no COA was made on the way: the transmission queue is not its destination
    assert conn.get(conn.open(REPLY, IN)) is None


def test_group_fields_travel_in_an_mqmde_after_the_mqxqh(conn: QMConnection) -> None:
    group = b"G" * 24
    md = MQMD(
        Format=C.MQFMT_STRING,
        GroupId=group,
        MsgSeqNumber=3,
        MsgFlags=CMQC.MQMF_MSG_IN_GROUP,
    )
    conn.put("ORDERS.REMOTE", md, DATA)
    outer, data = take(conn, XMITQ)
    header, rest = parse_xqh(data, outer.Encoding)
    assert header.MsgDesc.Format == C.MQFMT_MD_EXTENSION
    extension = MQMDE.unpack(rest, C.MQENC_NATIVE)
    assert (extension.GroupId, extension.MsgSeqNumber) == (group, 3)
    assert extension.MsgFlags == CMQC.MQMF_MSG_IN_GROUP
    assert extension.Format == C.MQFMT_STRING
    assert rest[MQMDE_LENGTH_2:] == DATA
    assert (outer.GroupId, outer.MsgSeqNumber) == (group, 3)


def test_the_remote_definitions_defaults_and_put_inhibit_apply(
    qm: QueueManager, conn: QMConnection
) -> None:
    qm.define_queue(
        "QREMOTE", "FAST.REMOTE", {"RNAME": "X", "RQMNAME": "QM2", "DEFPSIST": "YES", "DEFPRTY": 6}
    )
    put = conn.put("FAST.REMOTE", MQMD(), DATA)
    assert (put.Persistence, put.Priority) == (C.MQPER_PERSISTENT, 6)
    md, _ = take(conn, XMITQ)
    assert (md.Persistence, md.Priority) == (C.MQPER_PERSISTENT, 6)
    qm.alter_queue("FAST.REMOTE", {"PUT": "DISABLED"})
    assert reason(lambda: conn.put("FAST.REMOTE", MQMD(), DATA)) == C.MQRC_PUT_INHIBITED
    qm.alter_queue("FAST.REMOTE", {"PUT": "ENABLED"})
    qm.alter_queue(XMITQ, {"PUT": "DISABLED"})
    assert reason(lambda: conn.put("FAST.REMOTE", MQMD(), DATA)) == C.MQRC_PUT_INHIBITED


def test_maxmsgl_of_the_transmission_queue_counts_the_header(
    qm: QueueManager, conn: QMConnection
) -> None:
    qm.alter_queue(XMITQ, {"MAXMSGL": MQXQH_LENGTH_1 + len(DATA)})
    conn.put("ORDERS.REMOTE", MQMD(), DATA)
    too_big = DATA + b"!"
    assert reason(lambda: conn.put("ORDERS.REMOTE", MQMD(), too_big)) == C.MQRC_MSG_TOO_BIG_FOR_Q


def test_under_syncpoint_it_is_on_the_transmission_queue_at_commit(conn: QMConnection) -> None:
    conn.put("ORDERS.REMOTE", MQMD(), DATA, syncpoint=True)
    handle = conn.open(XMITQ, IN)
    assert conn.get(handle) is None
    conn.backout()
    assert conn.get(handle) is None
    conn.put("ORDERS.REMOTE", MQMD(), DATA, syncpoint=True)
    conn.commit()
    assert conn.get(handle) is not None


def test_a_remote_put_fires_the_transmission_queues_trigger(
    qm: QueueManager, conn: QMConnection
) -> None:
    # seed 003: a transmission queue is triggered like any local queue (its TRIGDATA
    # naming the channel to start)
    qm.define_queue("QLOCAL", "XMIT.INITQ", {})
    qm.alter_queue(
        XMITQ,
        {"TRIGGER": True, "TRIGTYPE": "FIRST", "INITQ": "XMIT.INITQ", "TRIGDATA": "TO.QM2"},
    )
    conn.put("ORDERS.REMOTE", MQMD(), DATA)
    md, _ = take(conn, "XMIT.INITQ")
    assert md.Format == C.MQFMT_TRIGGER


# --------------------------------------------------------------------------- resolution


def test_object_qmgr_name_goes_to_the_transmission_queue_named_after_it(
    conn: QMConnection,
) -> None:
    handle = conn.open("PAYMENTS", C.MQOO_OUTPUT, qmgr="QM2")
    assert (handle.resolved_name, handle.resolved_qmgr) == ("PAYMENTS", "QM2")
    conn.put(handle, MQMD(), DATA)
    md, data = take(conn, XMITQ)
    header, _ = parse_xqh(data, md.Encoding)
    assert (header.RemoteQName, header.RemoteQMgrName) == ("PAYMENTS", "QM2")


def test_this_queue_managers_own_name_is_local(conn: QMConnection) -> None:
    handle = conn.open(LOCALQ, C.MQOO_OUTPUT, qmgr=conn.qmgr_name)
    conn.put(handle, MQMD(), DATA)
    assert take(conn, LOCALQ)[1] == DATA


def test_the_default_transmission_queue_takes_any_other_queue_manager(
    qm: QueueManager, conn: QMConnection
) -> None:
    name = "QM3"
    assert reason(lambda: conn.open("Q", C.MQOO_OUTPUT, qmgr=name)) == C.MQRC_UNKNOWN_REMOTE_Q_MGR
    qm.alter_qmgr({"DEFXMITQ": XMITQ})
    conn.put(conn.open("Q", C.MQOO_OUTPUT, qmgr=name), MQMD(), DATA)
    md, data = take(conn, XMITQ)
    assert parse_xqh(data, md.Encoding)[0].RemoteQMgrName == name


def test_a_queue_manager_alias_renames_and_routes(qm: QueueManager, conn: QMConnection) -> None:
    qm.define_queue("QLOCAL", "VIA.HUB", {"USAGE": "XMITQ"})
    qm.define_queue("QREMOTE", "QM.OLD", {"RQMNAME": "QM.NEW", "XMITQ": "VIA.HUB"})
    conn.put(conn.open("Q", C.MQOO_OUTPUT, qmgr="QM.OLD"), MQMD(), DATA)
    md, data = take(conn, "VIA.HUB")
    assert parse_xqh(data, md.Encoding)[0].RemoteQMgrName == "QM.NEW"


def test_a_queue_manager_alias_of_this_one_is_local(qm: QueueManager, conn: QMConnection) -> None:
    qm.define_queue("QREMOTE", "OTHER.NAME", {"RQMNAME": conn.qmgr_name})
    handle = conn.open(LOCALQ, C.MQOO_OUTPUT, qmgr="OTHER.NAME")
    conn.put(handle, MQMD(), DATA)
    assert take(conn, LOCALQ)[1] == DATA
    # named through an alias, it is opened to put to only, as on IBM MQ
    for options in (IN, C.MQOO_BROWSE, C.MQOO_INQUIRE, C.MQOO_SET):
        opened = reason(conn.open, LOCALQ, options, qmgr="OTHER.NAME")
        assert opened == C.MQRC_OPTION_NOT_VALID_FOR_TYPE
    model = "SYSTEM.DEFAULT.MODEL.QUEUE"
    assert reason(conn.open, model, C.MQOO_OUTPUT, qmgr="OTHER.NAME") == C.MQRC_Q_TYPE_ERROR


def test_a_queue_manager_alias_put_disabled_inhibits_puts(
    qm: QueueManager, conn: QMConnection
) -> None:
    # every definition on the way, "including any queue manager alias definitions"
    qm.define_queue("QREMOTE", "HERE.OFF", {"RQMNAME": conn.qmgr_name, "PUT": "DISABLED"})
    qm.define_queue("QREMOTE", "THERE.OFF", {"RQMNAME": "QM2", "PUT": "DISABLED"})
    for alias in ("HERE.OFF", "THERE.OFF"):
        assert reason(conn.open, LOCALQ, C.MQOO_OUTPUT, qmgr=alias) == C.MQRC_PUT_INHIBITED
    assert conn.get(conn.open(LOCALQ, IN)) is None


def test_a_blank_queue_name_on_another_queue_manager_is_2184(conn: QMConnection) -> None:
    assert reason(conn.open, "", C.MQOO_OUTPUT, qmgr="QM2") == C.MQRC_REMOTE_Q_NAME_ERROR


@pytest.mark.parametrize("binding", [C.MQOO_BIND_ON_GROUP, C.MQOO_RESOLVE_NAMES])
def test_binding_and_resolve_names_options_open_a_remote_queue(
    conn: QMConnection, binding: int
) -> None:
    for queue, qmgr in (("ORDERS.REMOTE", ""), ("ORDERS.IN", "QM2")):
        conn.close(conn.open(queue, C.MQOO_OUTPUT | binding, qmgr=qmgr))


@pytest.mark.parametrize("rqmname", ["", "QM"])
def test_a_qremote_must_name_another_queue_manager(
    qm: QueueManager, conn: QMConnection, rqmname: str
) -> None:
    # IBM MQ: RQMNAME "must not be blank or the name of the local queue manager" when the
    # definition is opened; 2087 "even if XmitQName is not blank"
    assert conn.qmgr_name == "QM"
    qm.define_queue("QREMOTE", "BACK.HOME", {"RNAME": LOCALQ, "RQMNAME": rqmname, "XMITQ": XMITQ})
    assert reason(lambda: conn.put("BACK.HOME", MQMD(), DATA)) == C.MQRC_UNKNOWN_REMOTE_Q_MGR
    opening = lambda: conn.open("BACK.HOME", C.MQOO_OUTPUT)  # noqa: E731
    assert reason(opening) == C.MQRC_UNKNOWN_REMOTE_Q_MGR
    assert conn.get(conn.open(LOCALQ, IN)) is None
    assert conn.get(conn.open(XMITQ, IN)) is None


def test_an_alias_can_target_a_remote_queue(qm: QueueManager, conn: QMConnection) -> None:
    qm.define_queue("QALIAS", "ORDERS.ALIAS", {"TARGET": "ORDERS.REMOTE"})
    conn.put("ORDERS.ALIAS", MQMD(), DATA)
    md, data = take(conn, XMITQ)
    assert parse_xqh(data, md.Encoding)[0].RemoteQName == "ORDERS.IN"
    # every definition on the way counts: the remote definition's PUT(DISABLED) too
    qm.alter_queue("ORDERS.REMOTE", {"PUT": "DISABLED"})
    assert reason(lambda: conn.put("ORDERS.ALIAS", MQMD(), DATA)) == C.MQRC_PUT_INHIBITED
    opening = lambda: conn.open("ORDERS.ALIAS", C.MQOO_OUTPUT)  # noqa: E731
    assert reason(opening) == C.MQRC_PUT_INHIBITED


@pytest.mark.parametrize("qtype", ["QREMOTE", "QMODEL", "QALIAS"])
def test_an_object_qmgr_name_that_names_no_route_is_an_unknown_queue_manager(
    qm: QueueManager, conn: QMConnection, qtype: str
) -> None:
    attrs = {"QREMOTE": {"RNAME": "Q", "RQMNAME": "QM2"}, "QALIAS": {"TARGET": LOCALQ}}
    qm.define_queue(qtype, "QM7", attrs.get(qtype, {}))
    opening = lambda: conn.open("Q", C.MQOO_OUTPUT, qmgr="QM7")  # noqa: E731
    assert reason(opening) == C.MQRC_UNKNOWN_REMOTE_Q_MGR


@pytest.mark.parametrize(
    ("definition", "expected"),
    [
        ({"RNAME": "Q", "RQMNAME": "QM2", "XMITQ": "NO.SUCH.XMITQ"}, C.MQRC_UNKNOWN_XMIT_Q),
        ({"RNAME": "Q", "RQMNAME": "QM2", "XMITQ": LOCALQ}, C.MQRC_XMIT_Q_USAGE_ERROR),
        ({"RNAME": "Q", "RQMNAME": "QM2", "XMITQ": "ORDERS.REMOTE"}, C.MQRC_XMIT_Q_TYPE_ERROR),
        ({"RNAME": "Q", "RQMNAME": LOCALQ}, C.MQRC_XMIT_Q_USAGE_ERROR),
        ({"RNAME": "", "RQMNAME": "QM2"}, C.MQRC_REMOTE_Q_NAME_ERROR),
        ({"RNAME": "Q", "RQMNAME": ""}, C.MQRC_UNKNOWN_REMOTE_Q_MGR),
        ({"RNAME": "Q", "RQMNAME": "NOWHERE"}, C.MQRC_UNKNOWN_REMOTE_Q_MGR),
    ],
)
def test_a_definition_that_leads_nowhere_fails_with_mqs_reason(
    qm: QueueManager, conn: QMConnection, definition: dict[str, str], expected: int
) -> None:
    qm.define_queue("QREMOTE", "BROKEN", definition)
    assert reason(lambda: conn.open("BROKEN", C.MQOO_OUTPUT)) == expected
    assert reason(lambda: conn.put("BROKEN", MQMD(), DATA)) == expected
    assert conn.get(conn.open(XMITQ, IN)) is None


@pytest.mark.parametrize(
    ("defxmitq", "expected"),
    [
        ("NO.SUCH.Q", C.MQRC_UNKNOWN_DEF_XMIT_Q),
        (LOCALQ, C.MQRC_DEF_XMIT_Q_USAGE_ERROR),
        ("ORDERS.REMOTE", C.MQRC_DEF_XMIT_Q_TYPE_ERROR),
    ],
)
def test_a_bad_default_transmission_queue_has_its_own_reasons(
    qm: QueueManager, conn: QMConnection, defxmitq: str, expected: int
) -> None:
    qm.alter_qmgr({"DEFXMITQ": defxmitq})
    assert reason(lambda: conn.open("Q", C.MQOO_OUTPUT, qmgr="QM9")) == expected


@pytest.mark.parametrize(
    "options", [IN, C.MQOO_BROWSE, C.MQOO_OUTPUT | C.MQOO_INPUT_EXCLUSIVE, C.MQOO_INPUT_AS_Q_DEF]
)
def test_a_remote_queue_opens_to_put_to(conn: QMConnection, options: int) -> None:
    assert reason(lambda: conn.open("ORDERS.REMOTE", options)) == C.MQRC_OPTION_NOT_VALID_FOR_TYPE
    via_name = lambda: conn.open("ORDERS.IN", options, qmgr="QM2")  # noqa: E731
    assert reason(via_name) == C.MQRC_OPTION_NOT_VALID_FOR_TYPE


def test_a_qremote_definition_is_inquired_and_a_remote_queue_by_name_is_not(
    conn: QMConnection,
) -> None:
    handle = conn.open("ORDERS.REMOTE", C.MQOO_OUTPUT | C.MQOO_INQUIRE)
    found = conn.inquire(
        handle,
        [C.MQIA_Q_TYPE, C.MQCA_REMOTE_Q_NAME, C.MQCA_REMOTE_Q_MGR_NAME, C.MQCA_XMIT_Q_NAME],
    )
    assert found == {
        C.MQIA_Q_TYPE: C.MQQT_REMOTE,
        C.MQCA_REMOTE_Q_NAME: "ORDERS.IN",
        C.MQCA_REMOTE_Q_MGR_NAME: "QM2",
        C.MQCA_XMIT_Q_NAME: "",
    }
    for options in (C.MQOO_INQUIRE, C.MQOO_SET, C.MQOO_OUTPUT | C.MQOO_INQUIRE):
        by_name = reason(conn.open, "ORDERS.IN", options, qmgr="QM2")
        assert by_name == C.MQRC_OPTION_NOT_VALID_FOR_TYPE


def test_a_definition_opened_to_inquire_or_set_needs_no_route(
    qm: QueueManager, conn: QMConnection
) -> None:
    # its route is resolved by an open for output only: a definition whose transmission
    # queue is missing can still be inquired, and repaired with MQSET where it allows
    qm.define_queue("QREMOTE", "NOT.YET", {"RNAME": "Q", "RQMNAME": "QM8", "XMITQ": "MISSING"})
    handle = conn.open("NOT.YET", C.MQOO_INQUIRE | C.MQOO_SET)
    assert conn.inquire(handle, [C.MQCA_XMIT_Q_NAME]) == {C.MQCA_XMIT_Q_NAME: "MISSING"}
    conn.set(handle, {C.MQIA_INHIBIT_PUT: C.MQQA_PUT_INHIBITED})
    assert conn.inquire("NOT.YET", [C.MQIA_INHIBIT_PUT]) == {
        C.MQIA_INHIBIT_PUT: C.MQQA_PUT_INHIBITED
    }
    conn.close(handle)
    assert reason(lambda: conn.open("NOT.YET", C.MQOO_OUTPUT)) == C.MQRC_PUT_INHIBITED
    qm.alter_queue("NOT.YET", {"PUT": "ENABLED"})
    assert reason(lambda: conn.open("NOT.YET", C.MQOO_OUTPUT)) == C.MQRC_UNKNOWN_XMIT_Q


def test_opening_counts_on_the_transmission_queue(conn: QMConnection) -> None:
    handle = conn.open("ORDERS.REMOTE", C.MQOO_OUTPUT)
    assert conn.inquire(XMITQ, [C.MQIA_OPEN_OUTPUT_COUNT]) == {C.MQIA_OPEN_OUTPUT_COUNT: 1}
    conn.close(handle)
    assert conn.inquire(XMITQ, [C.MQIA_OPEN_OUTPUT_COUNT]) == {C.MQIA_OPEN_OUTPUT_COUNT: 0}


# --------------------------------------------------------------------------- MQSC


def test_mqsc_defines_alters_displays_and_deletes_remote_queues(qm: QueueManager) -> None:
    results = list(
        run_script(
            qm,
            """
            DEFINE QLOCAL(QM5) USAGE(XMITQ)
            DEFINE QR(PAY.REMOTE) RNAME(PAY.IN) RQMNAME(QM5) DESCR('payments at QM5')
            ALTER QREMOTE(PAY.REMOTE) XMITQ(QM5)
            DISPLAY QREMOTE(PAY.REMOTE) ALL
            DISPLAY QUEUE(PAY.*) TYPE(QREMOTE)
            ALTER QMGR DEFXMITQ(QM5)
            DISPLAY QMGR DEFXMITQ
            DELETE QREMOTE(PAY.REMOTE)
            """,
        )
    )
    assert all(r.ok for r in results), [r.error for r in results]
    shown = results[3].objects[0]
    assert shown["TYPE"] == "QREMOTE"
    assert (shown["RNAME"], shown["RQMNAME"], shown["XMITQ"]) == ("PAY.IN", "QM5", "QM5")
    assert shown["DESCR"] == "payments at QM5"
    assert "GET" not in shown and "BOTHRESH" not in shown  # a remote queue has neither
    assert [o["QUEUE"] for o in results[4].objects] == ["PAY.REMOTE"]
    assert results[6].objects[0]["DEFXMITQ"] == "QM5"
    assert qm.queue_names("PAY.*") == []


def test_mqsc_refuses_local_attributes_on_a_remote_queue(qm: QueueManager) -> None:
    (result,) = run_script(qm, "DEFINE QREMOTE(R) RNAME(Q) RQMNAME(QM2) BOTHRESH(3)")
    assert not result.ok
    assert "BOTHRESH" in str(result.error)


# ------------------------------------------------------------ the queue manager's own puts


def test_a_report_for_a_remote_requester_goes_to_its_transmission_queue(
    conn: QMConnection,
) -> None:
    # a COA report goes to ReplyToQ at ReplyToQMgr: another queue manager's is routed,
    # never put to a local queue that happens to have the name
    conn.put(
        LOCALQ,
        MQMD(Report=C.MQRO_COA, ReplyToQ=REPLY, ReplyToQMgr="QM2", Format=C.MQFMT_STRING),
        DATA,
    )
    md, data = take(conn, XMITQ)
    header, _ = parse_xqh(data, md.Encoding)
    assert (header.RemoteQName, header.RemoteQMgrName) == (REPLY, "QM2")
    assert header.MsgDesc.Feedback == C.MQFB_COA
    assert conn.get(conn.open(REPLY, IN)) is None


def test_a_report_with_no_route_is_dead_lettered(qm: QueueManager, conn: QMConnection) -> None:
    qm.define_queue("QLOCAL", "DLQ", {})
    qm.alter_qmgr({"DEADQ": "DLQ"})
    conn.put(LOCALQ, MQMD(Report=C.MQRO_COA, ReplyToQ=REPLY, ReplyToQMgr="QM9"), DATA)
    md, data = take(conn, "DLQ")
    assert md.Format == C.MQFMT_DEAD_LETTER_HEADER
    assert data[8:12] == C.MQRC_UNKNOWN_REMOTE_Q_MGR.to_bytes(4, "little")  # MQDLH.Reason
    assert conn.get(conn.open(REPLY, IN)) is None


def test_the_dead_letter_queue_is_never_a_remote_queue(
    qm: QueueManager, conn: QMConnection, events: list[dict[str, object]]
) -> None:
    # the queue manager keeps what it cannot deliver: a DEADQ naming a QREMOTE is not
    # followed off the queue manager
    qm.alter_qmgr({"DEADQ": "ORDERS.REMOTE"})
    conn.put(LOCALQ, MQMD(Report=C.MQRO_COA, ReplyToQ="NO.SUCH.REPLY"), DATA)
    assert conn.get(conn.open(XMITQ, IN)) is None
    lost = [e for e in events if e["event"] == "report.lost"]
    assert lost and lost[0]["reason"] == "MQRC_Q_TYPE_ERROR"


def test_a_subscription_to_a_remote_definition_routes_its_publications(
    conn: QMConnection,
) -> None:
    handle = conn.open("ORDERS.REMOTE", C.MQOO_OUTPUT)
    options = C.MQSO_CREATE | C.MQSO_NON_DURABLE
    sub = conn.subscribe(SubscriptionDescriptor(options=options, object_string="prices/x"), handle)
    publisher = conn.open_topic("prices/x")
    conn.put(publisher, MQMD(Format=C.MQFMT_STRING), DATA)
    md, data = take(conn, XMITQ)
    header, rest = parse_xqh(data, md.Encoding)
    assert (header.RemoteQName, header.RemoteQMgrName, rest) == ("ORDERS.IN", "QM2", DATA)
    conn.close_subscription(sub, remove=True)


def test_a_subscription_to_a_queue_named_with_its_queue_manager_is_refused(
    conn: QMConnection,
) -> None:
    handle = conn.open("ORDERS.IN", C.MQOO_OUTPUT, qmgr="QM2")
    options = C.MQSO_CREATE | C.MQSO_NON_DURABLE
    sd = SubscriptionDescriptor(options=options, object_string="prices/y")
    assert reason(conn.subscribe, sd, handle) == C.MQRC_FUNCTION_NOT_SUPPORTED


def test_a_queue_manager_made_before_remote_queues_gets_their_default_at_start(
    qm: QueueManager,
) -> None:
    # as on an MQ upgrade, the new system object is added at start; one deleted on
    # purpose after it was made stays deleted
    default = "SYSTEM.DEFAULT.REMOTE.QUEUE"
    qm.delete_queue(default)
    with sqlite3.connect(qm.db_file) as db:  # what a queue manager made earlier holds
        db.execute("DELETE FROM meta WHERE key = 'default_objects'")
    db.close()
    qm.restart()
    assert qm.queue_names(default) == [default]
    (result,) = run_script(qm, "DEFINE QREMOTE(MADE.LIKE) LIKE(SYSTEM.DEFAULT.REMOTE.QUEUE)")
    assert result.ok, result.error
    qm.delete_queue(default)
    qm.restart()
    assert qm.queue_names(default) == []


@pytest.mark.parametrize(("rqmname", "resolved"), [("QM2", "QM2"), ("", "QM")])
def test_a_reply_to_queue_alias_is_replaced_at_put(
    qm: QueueManager, conn: QMConnection, rqmname: str, resolved: str
) -> None:
    # IBM MQ: a ReplyToQ naming a QREMOTE, ReplyToQMgr blank, is replaced by its RNAME
    # and RQMNAME, so a reply (or report) goes where the definition says
    qm.define_queue("QREMOTE", "ANSWER.ALIAS", {"RNAME": REPLY, "RQMNAME": rqmname})
    put = conn.put(LOCALQ, MQMD(ReplyToQ="ANSWER.ALIAS", Report=C.MQRO_COA), DATA)
    assert (put.ReplyToQ.strip(), put.ReplyToQMgr.strip()) == (REPLY, resolved)
    stored, _ = take(conn, LOCALQ)
    assert (stored.ReplyToQ.strip(), stored.ReplyToQMgr.strip()) == (REPLY, resolved)
    report_queue = XMITQ if rqmname else REPLY  # the COA went where the alias says
    report, data = take(conn, report_queue)
    if rqmname:
        assert parse_xqh(data, report.Encoding)[0].RemoteQName == REPLY
    else:
        assert report.Feedback == C.MQFB_COA
