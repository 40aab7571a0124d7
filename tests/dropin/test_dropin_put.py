"""put, put1 and message handles as pymqi and ibmmq programs use them (issue 14).

str bodies become UTF-8 MQSTR/1208, bytes go as they are; the MQMD gets MQ's output fields
back (MsgId, the context the queue manager set) and keeps its input-only ones; context
options with their open options; MQPMO_NEW_CORREL_ID; MQPMO_ASYNC_RESPONSE reported at
MQSTAT; message properties through a message handle, carried in an RFH2.
"""

from __future__ import annotations

import os
from types import ModuleType

import pytest

from mqjms.mq import C
from mqjms.mq.jms import parse_jms_folders
from mqjms.mq.rfh2 import parse_chain
from tests.support.mqenv import MQEnv

Q = "DEV.QUEUE.1"


def test_a_str_body_is_put_as_utf8_mqstr(mq: ModuleType, env: MQEnv, qmgr) -> None:
    md = mq.MD()
    mq.Queue(qmgr, Q).put("héllo", md)
    assert md.Format == mq.CMQC.MQFMT_STRING and md.CodedCharSetId == 1208
    [(got, data)] = env.browse(Q)
    assert data == "héllo".encode() and got.Format == C.MQFMT_STRING and got.CodedCharSetId == 1208


def test_bytes_are_put_as_they_are(mq: ModuleType, env: MQEnv, qmgr) -> None:
    mq.Queue(qmgr, Q).put(b"\x00\x01raw")
    [(got, data)] = env.browse(Q)
    assert data == b"\x00\x01raw" and got.Format.strip() == ""


def test_other_bodies_are_a_type_error(mq: ModuleType, env: MQEnv, qmgr) -> None:
    with pytest.raises(TypeError):
        mq.Queue(qmgr, Q).put(12345)


def test_put_fills_msg_id_and_context_and_keeps_input_fields(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    md = mq.MD(BackoutCount=7, Priority=3)
    md.ReplyToQ = b"REPLY.Q"
    mq.Queue(qmgr, Q).put(b"m", md)
    assert md.MsgId != mq.CMQC.MQMI_NONE
    assert md.PutApplName.strip() and md.PutDate.strip() and md.UserIdentifier.strip()
    assert md.ReplyToQMgr.strip() == env.qmgr_name.encode()
    assert md.BackoutCount == 7 and md.Priority == 3  # input only
    [(got, _)] = env.browse(Q)
    assert got.MsgId == md.MsgId and got.BackoutCount == 0


@pytest.mark.embedded_only("STOMP carries identity context only when the putter set it")
def test_a_default_context_put_has_the_unix_accounting_token(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    # IBM MQ on UNIX (MQMD AccountingToken): a length byte, the numeric user id in ASCII,
    # binary zeros, MQACTT_UNIX_NUMERIC_ID last (amqsbcg: X'04313030300000...0006' for 1000)
    uid = str(os.getuid()).encode()
    expected = bytes([len(uid)]) + uid + b"\x00" * (30 - len(uid)) + b"\x06"
    md = mq.MD()
    mq.Queue(qmgr, Q).put(b"m", md)
    assert md.AccountingToken == expected
    [(got, _)] = env.browse(Q)
    assert got.AccountingToken == expected
    no_context = mq.PMO(Options=mq.CMQC.MQPMO_NO_CONTEXT)
    mq.Queue(qmgr, Q).put(b"m", mq.MD(), no_context)
    assert env.browse(Q)[1][0].AccountingToken == mq.CMQC.MQACT_NONE


def test_a_blank_reply_to_qmgr_is_the_local_name_even_without_a_reply_to_queue(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    # IBM MQ: "If you leave the ReplyToQMgr field blank ... the ReplyToQMgr field is set to
    # the name of the queue manager to which your application is connected" (as amqsput's
    # messages show, with ReplyToQ blank)
    md = mq.MD()
    mq.Queue(qmgr, Q).put(b"no reply wanted", md)
    assert md.ReplyToQ.strip(b" \x00") == b""
    assert md.ReplyToQMgr.strip() == env.qmgr_name.encode()
    got = mq.MD()
    assert mq.Queue(qmgr, Q).get(None, got) == b"no reply wanted"
    assert got.ReplyToQ.strip() == b"" and got.ReplyToQMgr.strip() == env.qmgr_name.encode()


def test_the_structures_come_back_whole_as_the_libraries_unpack_them(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    # pymqi and ibmmq unpack the whole MQMD/MQPMO/MQGMO MQ returns: a field the program
    # left b"" reads as MQ's packed value afterwards
    md = mq.MD()
    md.CorrelId = b""
    pmo = mq.PMO()
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_OUTPUT | mq.CMQC.MQOO_INPUT_AS_Q_DEF)
    queue.put(b"m", md, pmo)
    assert md.CorrelId == bytes(24) and len(md.ReplyToQ) == 48 and len(md.Format) == 8
    assert md.Priority == mq.CMQC.MQPRI_PRIORITY_AS_Q_DEF  # an input field keeps its value
    options = mq.GMO()
    if hasattr(options, "MsgToken"):
        options.MsgToken = b""
    got = mq.MD()
    assert queue.get(None, got, options) == b"m"
    assert len(got.CorrelId) == 24 and len(got.ReplyToQ) == 48
    if hasattr(options, "MsgToken"):
        assert len(options.MsgToken) == 16
    queue.close()


def test_put1_and_new_correl_id(mq: ModuleType, env: MQEnv, qmgr) -> None:
    md = mq.MD()
    pmo = mq.PMO(Options=mq.CMQC.MQPMO_NEW_CORREL_ID)
    qmgr.put1(Q, "one shot", md, pmo)
    assert md.CorrelId != mq.CMQC.MQCI_NONE
    assert pmo.ResolvedQName.strip() == Q.encode()
    [(got, data)] = env.browse(Q)
    assert data == b"one shot" and got.CorrelId == md.CorrelId


def test_set_identity_context(mq: ModuleType, env: MQEnv, qmgr) -> None:
    queue = mq.Queue(qmgr)
    od = mq.OD(ObjectName=Q)
    queue.open(od, mq.CMQC.MQOO_OUTPUT | mq.CMQC.MQOO_SET_IDENTITY_CONTEXT)
    md = mq.MD()
    md.ApplIdentityData = b"MyApplId"
    queue.put(b"m", md, mq.PMO(Options=mq.CMQC.MQPMO_SET_IDENTITY_CONTEXT))
    [(got, _)] = env.browse(Q)
    assert got.ApplIdentityData == "MyApplId"


def test_set_identity_context_needs_its_open_option(mq: ModuleType, env: MQEnv, qmgr) -> None:
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_OUTPUT)
    with pytest.raises(mq.MQMIError) as failure:
        queue.put(b"m", mq.MD(), mq.PMO(Options=mq.CMQC.MQPMO_SET_IDENTITY_CONTEXT))
    assert failure.value.reason == C.MQRC_NOT_OPEN_FOR_SET_IDENT


def test_pass_all_context_passes_the_input_messages_context(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    env.put_raw(Q, b"in", ApplIdentityData="ORIGIN")  # identity as the raw putter's default
    source = mq.Queue(qmgr, Q, mq.CMQC.MQOO_INPUT_SHARED | mq.CMQC.MQOO_SAVE_ALL_CONTEXT)
    md = mq.MD()
    source.get(None, md)
    target = mq.Queue(qmgr, "DEV.QUEUE.2", mq.CMQC.MQOO_OUTPUT | mq.CMQC.MQOO_PASS_ALL_CONTEXT)
    pmo = mq.PMO(Options=mq.CMQC.MQPMO_PASS_ALL_CONTEXT)
    pmo.Context = source.get_handle()
    target.put(b"out", mq.MD(), pmo)
    [(got, _)] = env.browse("DEV.QUEUE.2")
    assert got.PutApplName == md.PutApplName.decode().strip()
    assert got.PutDate == md.PutDate.decode() and got.PutTime == md.PutTime.decode()


@pytest.mark.requires("put_warnings")  # a STOMP broker has priorities 0-9 and no warnings
def test_a_priority_above_9_is_put_with_warning_2049(mq: ModuleType, env: MQEnv, qmgr) -> None:
    with pytest.raises(mq.MQMIError) as failure:
        mq.Queue(qmgr, Q).put(b"m", mq.MD(Priority=12))
    assert (failure.value.comp, failure.value.reason) == (C.MQCC_WARNING, 2049)
    assert env.depth(Q) == 1  # a warning: the message was put


def test_async_puts_report_their_failures_at_stat(env: MQEnv) -> None:
    import mqjms.ibmmq as ibmmq

    qmgr = ibmmq.connect("QM1")
    try:
        queue = ibmmq.Queue(qmgr, Q, ibmmq.CMQC.MQOO_SET | ibmmq.CMQC.MQOO_OUTPUT)
        pmo = ibmmq.PMO(Options=ibmmq.CMQC.MQPMO_ASYNC_RESPONSE)
        queue.put(b"ok", ibmmq.MD(), pmo)
        queue.set({ibmmq.CMQC.MQIA_INHIBIT_PUT: ibmmq.CMQC.MQQA_PUT_INHIBITED})
        queue.put(b"refused", ibmmq.MD(), pmo)  # no exception: reported at MQSTAT
        sts = qmgr.stat(ibmmq.CMQC.MQSTAT_TYPE_ASYNC_ERROR)
        assert (sts.PutSuccessCount, sts.PutFailureCount) == (1, 1)
        assert sts.Reason == C.MQRC_PUT_INHIBITED
        again = qmgr.stat(ibmmq.CMQC.MQSTAT_TYPE_ASYNC_ERROR)
        assert (again.PutSuccessCount, again.PutFailureCount) == (0, 0)
        queue.set({ibmmq.CMQC.MQIA_INHIBIT_PUT: ibmmq.CMQC.MQQA_PUT_ALLOWED})
    finally:
        qmgr.disconnect()


def test_stat_of_reconnection_says_nothing_went_wrong(env: MQEnv) -> None:
    """MQSTAT_TYPE_RECONNECTION and _RECONNECTION_ERROR (asked by reconnecting clients)
    return an STS with no failure, where they were 2298; an unknown type is 2430."""
    import mqjms.ibmmq as ibmmq

    qmgr = ibmmq.connect("QM1")
    try:
        for kind in (
            ibmmq.CMQC.MQSTAT_TYPE_RECONNECTION,
            ibmmq.CMQC.MQSTAT_TYPE_RECONNECTION_ERROR,
        ):
            sts = qmgr.stat(kind)
            assert (sts.CompCode, sts.Reason) == (C.MQCC_OK, C.MQRC_NONE)
        with pytest.raises(ibmmq.MQMIError) as failure:
            qmgr.stat(99)
        assert failure.value.reason == ibmmq.CMQC.MQRC_STAT_TYPE_ERROR
    finally:
        qmgr.disconnect()


# --------------------------------------------------------------------------- properties


def _put_with_properties(mq: ModuleType, qmgr: object) -> object:
    handle = mq.MessageHandle(qmgr)
    handle.properties.set("Property_1", "Hello")  # MQTYPE_STRING by default
    handle.properties.set("Count", 42, property_type=mq.CMQC.MQTYPE_INT32)
    handle.properties.set("Ratio", 3.13, property_type=mq.CMQC.MQTYPE_FLOAT64)
    pmo = mq.PMO(Version=mq.CMQC.MQPMO_VERSION_3)
    pmo.OriginalMsgHandle = handle.msg_handle
    mq.Queue(qmgr, Q).put(b"body", mq.MD(Version=mq.CMQC.MQMD_CURRENT_VERSION), pmo)
    return handle


def test_properties_travel_in_an_rfh2_usr_folder(mq: ModuleType, env: MQEnv, qmgr) -> None:
    _put_with_properties(mq, qmgr)
    [(md, data)] = env.browse(Q)
    chain = parse_chain(data, md.Encoding, md.CodedCharSetId, md.Format)
    _, usr = parse_jms_folders(chain.folders)
    assert usr == {"Property_1": "Hello", "Count": 42, "Ratio": 3.13}  # what JMS reads
    assert chain.body == b"body"


def test_a_boolean_property_reads_as_the_mqlong_the_c_layer_returns(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    # pymqe.c (and ibmmq's C layer) build an MQTYPE_BOOLEAN value as an int: 0 or 1
    handle = mq.MessageHandle(qmgr)
    handle.properties.set("Urgent", True, property_type=mq.CMQC.MQTYPE_BOOLEAN)
    value = handle.properties.get("Urgent")
    assert value == 1 and type(value) is int
    handle.dlt()


def test_properties_in_handle(mq: ModuleType, env: MQEnv, qmgr) -> None:
    _put_with_properties(mq, qmgr)
    handle = mq.MessageHandle(qmgr)
    options = mq.GMO(Version=mq.CMQC.MQGMO_CURRENT_VERSION)
    options.Options = mq.CMQC.MQGMO_PROPERTIES_IN_HANDLE
    options.MsgHandle = handle.msg_handle
    md = mq.MD()
    assert mq.Queue(qmgr, Q).get(None, md, options) == b"body"
    assert md.Format.strip() == b""  # the RFH2 went into the handle
    assert handle.properties.get("Property_1") == "Hello"
    assert handle.properties.get("Count") == 42
    assert handle.properties.get("Ratio") == 3.13
    with pytest.raises(mq.MQMIError) as failure:
        handle.properties.get("Missing")
    assert failure.value.reason == C.MQRC_PROPERTY_NOT_AVAILABLE


def _put_strings(mq: ModuleType, qmgr: object, values: dict[str, str]) -> None:
    handle = mq.MessageHandle(qmgr)
    for name, value in values.items():
        handle.properties.set(name, value)
    pmo = mq.PMO(Version=mq.CMQC.MQPMO_VERSION_3)
    pmo.OriginalMsgHandle = handle.msg_handle
    mq.Queue(qmgr, Q).put(b"body", mq.MD(), pmo)


def _get_into_handle(mq: ModuleType, qmgr: object) -> object:
    handle = mq.MessageHandle(qmgr)
    options = mq.GMO(Version=mq.CMQC.MQGMO_CURRENT_VERSION)
    options.Options = mq.CMQC.MQGMO_PROPERTIES_IN_HANDLE | mq.CMQC.MQGMO_NO_WAIT
    options.MsgHandle = handle.msg_handle
    mq.Queue(qmgr, Q).get(None, mq.MD(), options)
    return handle


@pytest.mark.parametrize("value", ["a\x01b", "\x1f", "\ufffe"])
def test_a_string_property_an_rfh2_cannot_carry_fails_the_set(
    mq: ModuleType, env: MQEnv, qmgr, value: str
) -> None:
    # mqjms carries properties in RFH2 (XML) folders, which cannot hold the characters XML
    # 1.0 excludes: the MQSETMP fails with an MQMIError the program can catch (it was a
    # ValueError at the put), and nothing is put
    handle = mq.MessageHandle(qmgr)
    with pytest.raises(mq.MQMIError) as failure:
        handle.properties.set("Ctl", value)
    assert failure.value.reason == mq.CMQC.MQRC_PROP_VALUE_NOT_CONVERTED
    assert "'Ctl'" in failure.value.detail
    _put_strings(mq, qmgr, {"Ctl": "fine"})  # the handle and the connection go on
    assert _get_into_handle(mq, qmgr).properties.get("Ctl") == "fine"


def test_a_string_property_ends_at_its_first_nul(mq: ModuleType, env: MQEnv, qmgr) -> None:
    # both libraries hand MQSETMP the UTF-8 with MQVL_NULL_TERMINATED unless told a length
    _put_strings(mq, qmgr, {"Nul": "x\x00y"})
    assert _get_into_handle(mq, qmgr).properties.get("Nul") == "x"


@pytest.mark.parametrize("version", ["MQGMO_VERSION_1", "MQGMO_VERSION_4"])
def test_properties_in_handle_without_a_handle_is_2460_and_the_message_stays(
    mq: ModuleType, env: MQEnv, qmgr, version: str
) -> None:
    # MQGMO_PROPERTIES_IN_HANDLE: "If no message handle is provided the call fails with
    # reason MQRC_HMSG_ERROR" (a Version 1 MQGMO has no MsgHandle field)
    _put_with_properties(mq, qmgr)
    options = mq.GMO(Version=getattr(mq.CMQC, version))
    options.Options = mq.CMQC.MQGMO_PROPERTIES_IN_HANDLE | mq.CMQC.MQGMO_SYNCPOINT
    options.MsgHandle = mq.MessageHandle(qmgr).msg_handle if version.endswith("1") else 0
    with pytest.raises(mq.MQMIError) as failure:
        mq.Queue(qmgr, Q).get(None, mq.MD(), options)
    assert failure.value.reason == mq.CMQC.MQRC_HMSG_ERROR
    qmgr.backout()
    assert env.depth(Q) == 1


def test_wildcard_properties_and_delete(env: MQEnv) -> None:
    import mqjms.ibmmq as ibmmq

    qmgr = ibmmq.connect("QM1")
    try:
        handle = _put_with_properties(ibmmq, qmgr)
        got = ibmmq.MessageHandle(qmgr)
        options = ibmmq.GMO(Options=ibmmq.CMQC.MQGMO_PROPERTIES_IN_HANDLE)
        options.MsgHandle = got.msg_handle
        ibmmq.Queue(qmgr, Q).get(None, ibmmq.MD(), options)
        got.properties.dlt("Count")
        found, opts = [], ibmmq.CMQC.MQIMPO_INQ_FIRST
        while True:
            try:
                found.append(got.properties.get("usr.%", impo_options=opts))
            except ibmmq.MQMIError as exc:
                assert exc.reason == ibmmq.CMQC.MQRC_PROPERTY_NOT_AVAILABLE
                break
            opts = ibmmq.CMQC.MQIMPO_INQ_NEXT
        assert found == [("Hello", "Property_1"), (3.13, "Ratio")]
        with pytest.raises(ibmmq.MQMIError) as failure:
            got.properties.dlt("Count")  # IBM MQ's MQDLTMP: 2471 is a warning
        assert (failure.value.comp, failure.value.reason) == (
            ibmmq.CMQC.MQCC_WARNING,
            ibmmq.CMQC.MQRC_PROPERTY_NOT_AVAILABLE,
        )
        handle.dlt()
        got.dlt()
    finally:
        qmgr.disconnect()


def test_pymqi_reads_wildcard_properties_as_values_alone(env: MQEnv) -> None:
    # pymqi's MessageHandle._Properties.get returns MQINQMP's value, never the name
    import mqjms.pymqi as pymqi

    qmgr = pymqi.connect("QM1")
    try:
        _put_with_properties(pymqi, qmgr)
        got = pymqi.MessageHandle(qmgr)
        options = pymqi.GMO(Version=pymqi.CMQC.MQGMO_VERSION_4)
        options.Options = pymqi.CMQC.MQGMO_PROPERTIES_IN_HANDLE
        options.MsgHandle = got.msg_handle
        pymqi.Queue(qmgr, Q).get(None, pymqi.MD(), options)
        first = got.properties.get("usr.%", impo_options=pymqi.CMQC.MQIMPO_INQ_FIRST)
        second = got.properties.get("usr.%", impo_options=pymqi.CMQC.MQIMPO_INQ_NEXT)
        assert [first, second] == ["Hello", 42]
    finally:
        qmgr.disconnect()


def test_a_value_longer_than_asked_for_is_2469_with_its_length(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    handle = mq.MessageHandle(qmgr)
    handle.properties.set("Long", "x" * 100)
    with pytest.raises(mq.MQMIError) as failure:
        handle.properties.get("Long")  # default max_value_length 64
    assert failure.value.reason == mq.CMQC.MQRC_PROPERTY_VALUE_TOO_BIG
    length = "dataLength" if mq.__name__.endswith("pymqi") else "data_length"
    assert getattr(failure.value, length) == 100
    # MQ: "the Value parameter contains as much of the value as fits", a warning
    assert failure.value.comp == mq.CMQC.MQCC_WARNING and failure.value.value == "x" * 64
    assert handle.properties.get("Long", max_value_length=100) == "x" * 100


def test_put_appl_name_is_the_process_name_as_ibm_mq_names_it_on_linux(
    mq: ModuleType, env: MQEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    # IBM MQ on Linux: "MQ requests the process name from the operating system", its
    # first 15 bytes ("python3" for a Python program, not its script's name); the
    # MQAPPLNAME environment variable names it instead, MQCNO ApplName before both
    monkeypatch.delenv("MQAPPLNAME", raising=False)
    with open("/proc/self/comm", encoding="utf-8") as comm:
        process = comm.read().strip()[:15]
    cases = [(None, None, process), ("orders-app", None, "orders-app")]
    if hasattr(mq.CNO(), "ApplName"):
        cases.append(("orders-app", b"billing", "billing"))
    for variable, cno_name, expected in cases:
        if variable:
            monkeypatch.setenv("MQAPPLNAME", variable)
        qmgr = mq.QueueManager(None)
        cno = mq.CNO()
        if cno_name:
            cno.ApplName = cno_name
        qmgr.connect_with_options("QM1", cno=cno)
        md = mq.MD()
        mq.Queue(qmgr, Q).put(b"m", md)
        qmgr.disconnect()
        assert md.PutApplName.decode().strip() == expected
    assert [got.PutApplName.strip() for got, _ in env.browse(Q)] == [c[2] for c in cases]


@pytest.mark.parametrize("field", ["MsgId", "CorrelId", "GroupId", "AccountingToken"])
def test_a_str_in_a_binary_md_field_is_the_packs_type_error(
    mq: ModuleType, env: MQEnv, qmgr, field: str
) -> None:
    # both libraries pack the MD before the MQI call: a str id is their pack's TypeError
    # (ibmmq: "MsgId must be a byte array"; pymqi: "Python 3 style string"), which an
    # `except MQMIError` does not catch; nothing is put
    queue = mq.Queue(qmgr, "DEV.QUEUE.1", mq.CMQC.MQOO_OUTPUT | mq.CMQC.MQOO_INQUIRE)
    md = mq.MD(Version=mq.CMQC.MQMD_VERSION_2)
    setattr(md, field, "abc")
    with pytest.raises(TypeError):
        queue.put(b"x", md)
    with pytest.raises(TypeError):
        qmgr.put1("DEV.QUEUE.1", b"x", md)
    assert queue.inquire(mq.CMQC.MQIA_CURRENT_Q_DEPTH) == 0
    queue.close()


@pytest.mark.parametrize("version", [0, 3])
def test_an_md_version_mq_does_not_know_is_2026(
    mq: ModuleType, env: MQEnv, qmgr, version: int
) -> None:
    with pytest.raises(mq.MQMIError) as refused:
        mq.Queue(qmgr, "DEV.QUEUE.1", mq.CMQC.MQOO_OUTPUT).put(b"x", mq.MD(Version=version))
    assert refused.value.reason == mq.CMQC.MQRC_MD_ERROR


@pytest.mark.requires("browse_at_once")
def test_a_buffer_that_fits_the_body_without_its_properties_gets_it(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    # IBM MQ checks the buffer against the data the get returns: with the properties
    # taken off (MQGMO_NO_PROPERTIES, a message handle), a buffer the body's size gets it;
    # a shorter one is 2080 with DataLength the body's length, the message left
    body = bytes(range(256)) + b"x" * 44
    handle = mq.MessageHandle(qmgr)
    handle.properties.set("Property_1", "Hello")
    pmo = mq.PMO(Version=mq.CMQC.MQPMO_VERSION_3)
    pmo.OriginalMsgHandle = handle.msg_handle
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_INPUT_AS_Q_DEF | mq.CMQC.MQOO_OUTPUT)
    for _ in range(2):
        queue.put(body, mq.MD(Version=mq.CMQC.MQMD_CURRENT_VERSION), pmo)
    no_properties = mq.CMQC.MQGMO_NO_PROPERTIES | mq.CMQC.MQGMO_NO_WAIT
    with pytest.raises(mq.MQMIError) as failure:
        queue.get(len(body) - 1, mq.MD(), mq.GMO(Options=no_properties))
    assert failure.value.reason == mq.CMQC.MQRC_TRUNCATED_MSG_FAILED
    assert failure.value.original_length == len(body)
    assert queue.get(len(body), mq.MD(), mq.GMO(Options=no_properties)) == body
    into = mq.MessageHandle(qmgr)
    gmo = mq.GMO(Version=mq.CMQC.MQGMO_CURRENT_VERSION)
    gmo.Options = mq.CMQC.MQGMO_PROPERTIES_IN_HANDLE | mq.CMQC.MQGMO_NO_WAIT
    gmo.MsgHandle = into.msg_handle
    assert queue.get(len(body), mq.MD(), gmo) == body
    assert into.properties.get("Property_1") in ("Hello", b"Hello")
    queue.close()


def test_a_message_handle_of_an_ended_connection_is_2018(mq: ModuleType, env: MQEnv) -> None:
    # both libraries pass MQ the connection handle the MessageHandle kept: MQ no longer
    # knows it (MQRC_HCONN_ERROR), an MQMIError like any other MQI failure
    qmgr = mq.connect("QM1")
    handle = mq.MessageHandle(qmgr)
    qmgr.disconnect()
    for call in (
        lambda: handle.properties.set("Colour", "red"),
        lambda: handle.properties.get("Colour"),
        handle.dlt,
    ):
        with pytest.raises(mq.MQMIError) as failure:
            call()
        assert (failure.value.comp, failure.value.reason) == (
            mq.CMQC.MQCC_FAILED,
            mq.CMQC.MQRC_HCONN_ERROR,
        )


def test_put_rfh2_puts_its_headers_in_front_of_the_body(mq: ModuleType, env: MQEnv, qmgr) -> None:
    """Each header packed in the encoding of what is before it: the MQMD's for the first."""
    md = mq.MD(Format=mq.CMQC.MQFMT_RF_HEADER_2, Encoding=C.MQENC_NORMAL)
    first = mq.RFH2(
        Format=mq.CMQC.MQFMT_RF_HEADER_2, Encoding=C.MQENC_REVERSED, NameValueCCSID=1208
    )
    first.add_folder(b"<usr><colour>blue</colour></usr>")
    second = mq.RFH2(Format=mq.CMQC.MQFMT_STRING, NameValueCCSID=1208)
    second.add_folder(b"<usr><size>9</size></usr>")
    queue = mq.Queue(qmgr, Q)
    queue.put_rfh2(b"body", md, mq.PMO(), [first, None, second])
    queue.put_rfh2(b"plain", mq.MD(), mq.PMO())  # no headers: put as it is
    with pytest.raises(TypeError):
        queue.put_rfh2(b"body", mq.MD(), mq.PMO(), first)
    [(got, data), (_, plain)] = env.browse(Q)
    chain = parse_chain(data, got.Encoding, got.CodedCharSetId, got.Format)
    assert chain.body == b"body" and chain.Format == C.MQFMT_STRING
    # the first in the MQMD's encoding (big-endian), the second in the first's (little)
    assert data[8:12] == (36 + 4 + 32).to_bytes(4, "big")
    assert data[72 + 8 : 72 + 12] == (36 + 4 + 28).to_bytes(4, "little")
    assert chain.folders == ["<usr><colour>blue</colour></usr>", "<usr><size>9</size></usr>"]
    assert plain == b"plain"
