"""The contract's calls the pymqi/ibmmq drop-in needs (issue 14): dynamic queues by name,
a get's maximum length (2080), the message under the browse cursor, GroupId matching,
identity context, MQSET, MQDISC that commits, and the queue manager's version. Written
against the transport contract only, so every transport runs them."""

from __future__ import annotations

import pytest

from mqjms.mq import MQMD, C, MQError
from mqjms.semantics import TruncatedMessage
from mqjms.transport import Browse, Connection, Context

IN = C.MQOO_INPUT_SHARED
OUT = C.MQOO_OUTPUT
BROWSE = C.MQOO_BROWSE


def ident(text: str) -> bytes:
    return text.encode().ljust(24, b"\0")


def depth(conn: Connection, queue: str) -> int:
    return int(conn.inquire(queue, [C.MQIA_CURRENT_Q_DEPTH])[C.MQIA_CURRENT_Q_DEPTH])


def bodies(conn: Connection, queue: str) -> list[bytes]:
    handle = conn.open(queue, IN)
    out = []
    while (got := conn.get(handle)) is not None:
        out.append(got[1])
    conn.close(handle)
    return out


# --------------------------------------------------------------------------- dynamic queues


@pytest.mark.requires("model")
def test_opening_a_model_queue_creates_the_dynamic_queue_named(conn: Connection) -> None:
    handle = conn.open("SYSTEM.DEFAULT.MODEL.QUEUE", IN, dynamic_name="MY.REPLIES.*")
    assert handle.name.startswith("MY.REPLIES.") and len(handle.name) > len("MY.REPLIES.")
    assert handle.resolved_name == handle.name
    conn.put(handle.name, MQMD(), b"reply")
    got = conn.get(handle)
    assert got is not None and got[1] == b"reply"
    conn.close(handle)  # a temporary dynamic queue is deleted at close
    with pytest.raises(MQError) as failure:
        conn.open(handle.name, OUT)
    assert failure.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME


@pytest.mark.requires("model")
def test_a_dynamic_name_without_asterisk_is_taken_as_it_is(conn: Connection) -> None:
    handle = conn.open("SYSTEM.DEFAULT.MODEL.QUEUE", IN, dynamic_name="EXACT.REPLY.Q")
    assert handle.name == "EXACT.REPLY.Q"
    conn.close(handle)


# --------------------------------------------------------------------------- max length


def test_a_message_longer_than_max_length_is_not_got(conn: Connection, queue: str) -> None:
    put = conn.put(queue, MQMD(Format=C.MQFMT_STRING), b"0123456789")
    handle = conn.open(queue, IN)
    with pytest.raises(TruncatedMessage) as truncated:
        conn.get(handle, max_length=4)
    error = truncated.value
    assert (error.comp, error.reason) == (C.MQCC_WARNING, C.MQRC_TRUNCATED_MSG_FAILED)
    assert error.original_length == 10
    assert error.data == b"0123"
    assert error.md.MsgId == put.MsgId
    got = conn.get(handle, max_length=10)  # it stayed on the queue
    assert got is not None and got[1] == b"0123456789"
    assert conn.get(handle) is None


def test_max_length_under_syncpoint_leaves_the_message_uncounted(
    conn: Connection, queue: str
) -> None:
    conn.put(queue, MQMD(), b"too long")
    handle = conn.open(queue, IN)
    with pytest.raises(TruncatedMessage):
        conn.get(handle, syncpoint=True, max_length=0)
    conn.backout()  # nothing was got: no backout is counted
    got = conn.get(handle, syncpoint=True)
    assert got is not None and got[0].BackoutCount == 0
    conn.commit()


def test_a_browse_longer_than_max_length_leaves_the_cursor(conn: Connection, queue: str) -> None:
    for body in (b"a", b"long one", b"c"):
        conn.put(queue, MQMD(), body)
    handle = conn.open(queue, BROWSE)
    first = conn.get(handle, browse=Browse.FIRST)
    assert first is not None and first[1] == b"a"
    with pytest.raises(TruncatedMessage) as truncated:
        conn.get(handle, browse=Browse.NEXT, max_length=2)
    assert truncated.value.original_length == 8
    again = conn.get(handle, browse=Browse.NEXT)
    assert again is not None and again[1] == b"long one"
    last = conn.get(handle, browse=Browse.NEXT)
    assert last is not None and last[1] == b"c"
    assert depth(conn, queue) == 3


# --------------------------------------------------------------------------- under cursor


def test_get_under_the_browse_cursor_removes_that_message(conn: Connection, queue: str) -> None:
    for body in (b"first", b"second", b"third"):
        conn.put(queue, MQMD(), body)
    handle = conn.open(queue, IN | BROWSE)
    assert conn.get(handle, browse=Browse.FIRST) is not None
    second = conn.get(handle, browse=Browse.NEXT)
    assert second is not None and second[1] == b"second"
    got = conn.get(handle, under_cursor=True)
    assert got is not None and got[1] == b"second" and got[0].MsgId == second[0].MsgId
    following = conn.get(handle, browse=Browse.NEXT)  # the cursor goes on from there
    assert following is not None and following[1] == b"third"
    assert bodies(conn, queue) == [b"first", b"third"]


def test_get_under_the_cursor_without_a_browse_is_2034(conn: Connection, queue: str) -> None:
    conn.put(queue, MQMD(), b"m")
    handle = conn.open(queue, IN | BROWSE)
    with pytest.raises(MQError) as failure:
        conn.get(handle, under_cursor=True)
    assert failure.value.reason == C.MQRC_NO_MSG_UNDER_CURSOR


def test_get_under_the_cursor_of_a_message_gone_is_2034(connections, queue: str) -> None:
    browser, other = connections(), connections()
    browser.put(queue, MQMD(), b"only")
    handle = browser.open(queue, IN | BROWSE)
    assert browser.get(handle, browse=Browse.FIRST) is not None
    assert bodies(other, queue) == [b"only"]
    with pytest.raises(MQError) as failure:
        browser.get(handle, under_cursor=True)
    assert failure.value.reason == C.MQRC_NO_MSG_UNDER_CURSOR


# --------------------------------------------------------------------------- GroupId


def test_get_matching_a_group_id(conn: Connection, queue: str) -> None:
    conn.put(queue, MQMD(), b"no group")
    conn.put(queue, MQMD(GroupId=ident("G1")), b"g1")
    conn.put(queue, MQMD(GroupId=ident("G2")), b"g2")
    handle = conn.open(queue, IN)
    got = conn.get(handle, group_id=ident("G2"))
    assert got is not None and got[1] == b"g2" and got[0].GroupId == ident("G2")
    assert conn.get(handle, group_id=ident("G2")) is None
    none = conn.get(handle, group_id=C.MQGI_NONE)
    assert none is not None and none[1] == b"no group"
    assert bodies(conn, queue) == [b"g1"]


# --------------------------------------------------------------------------- context


def test_set_identity_context_keeps_the_identity_given(conn: Connection, queue: str) -> None:
    handle = conn.open(queue, OUT | C.MQOO_SET_IDENTITY_CONTEXT)
    md = MQMD(
        UserIdentifier="alice",
        ApplIdentityData="MyApplId",
        AccountingToken=b"\x01" * 32,
        PutApplName="not mine to set",
    )
    put = conn.put(handle, md, b"m", context=Context.SET_IDENTITY)
    assert (put.UserIdentifier, put.ApplIdentityData) == ("alice", "MyApplId")
    got = conn.get(conn.open(queue, IN))
    assert got is not None
    got_md = got[0]
    assert got_md.UserIdentifier == "alice"
    assert got_md.ApplIdentityData == "MyApplId"
    assert got_md.AccountingToken == b"\x01" * 32
    assert got_md.PutApplName != "not mine to set"  # origin context: the queue manager's


@pytest.mark.parametrize(
    ("context", "option", "reason"),
    [
        (Context.SET_IDENTITY, C.MQOO_PASS_ALL_CONTEXT, C.MQRC_NOT_OPEN_FOR_SET_IDENT),
        (Context.PASS_IDENTITY, 0, C.MQRC_NOT_OPEN_FOR_PASS_IDENT),
        (Context.SET_ALL, C.MQOO_SET_IDENTITY_CONTEXT, C.MQRC_NOT_OPEN_FOR_SET_ALL),
        (Context.PASS_ALL, C.MQOO_PASS_IDENTITY_CONTEXT, C.MQRC_NOT_OPEN_FOR_PASS_ALL),
    ],
)
def test_a_context_option_needs_its_open_option(
    conn: Connection, queue: str, context: Context, option: int, reason: int
) -> None:
    handle = conn.open(queue, OUT | option)
    with pytest.raises(MQError) as failure:
        conn.put(handle, MQMD(), b"m", context=context)
    assert failure.value.reason == reason


def test_a_wider_context_option_allows_the_narrower(conn: Connection, queue: str) -> None:
    handle = conn.open(queue, OUT | C.MQOO_SET_ALL_CONTEXT)
    for context in (Context.PASS_IDENTITY, Context.SET_IDENTITY, Context.PASS_ALL):
        conn.put(handle, MQMD(), b"m", context=context)
    assert depth(conn, queue) == 3


# --------------------------------------------------------------------------- MQSET


def test_set_changes_what_inquire_and_put_see(conn: Connection, queue: str) -> None:
    handle = conn.open(queue, OUT | C.MQOO_SET | C.MQOO_INQUIRE)
    conn.set(handle, {C.MQCA_TRIGGER_DATA: "2024-05-01 10:00:00", C.MQIA_TRIGGER_DEPTH: 7})
    values = conn.inquire(handle, [C.MQCA_TRIGGER_DATA, C.MQIA_TRIGGER_DEPTH])
    assert values == {C.MQCA_TRIGGER_DATA: "2024-05-01 10:00:00", C.MQIA_TRIGGER_DEPTH: 7}
    conn.set(handle, {C.MQIA_INHIBIT_PUT: C.MQQA_PUT_INHIBITED})
    with pytest.raises(MQError) as failure:
        conn.put(handle, MQMD(), b"m")
    assert failure.value.reason == C.MQRC_PUT_INHIBITED
    conn.set(handle, {C.MQIA_INHIBIT_PUT: C.MQQA_PUT_ALLOWED})
    conn.put(handle, MQMD(), b"m")


def test_set_needs_mqoo_set(conn: Connection, queue: str) -> None:
    handle = conn.open(queue, C.MQOO_INQUIRE)
    with pytest.raises(MQError) as failure:
        conn.set(handle, {C.MQIA_INHIBIT_GET: C.MQQA_GET_INHIBITED})
    assert failure.value.reason == C.MQRC_NOT_OPEN_FOR_SET


@pytest.mark.parametrize(
    ("values", "reason"),
    [
        ({C.MQIA_MAX_Q_DEPTH: 10}, C.MQRC_SELECTOR_ERROR),  # not settable by MQSET
        ({C.MQIA_INHIBIT_GET: 7}, C.MQRC_INHIBIT_VALUE_ERROR),
        ({C.MQIA_TRIGGER_DEPTH: 0}, C.MQRC_TRIGGER_DEPTH_ERROR),
        ({C.MQCA_TRIGGER_DATA: "x" * 65}, C.MQRC_CHAR_ATTR_LENGTH_ERROR),
    ],
)
def test_set_refuses_what_mqset_refuses(
    conn: Connection, queue: str, values: dict[int, int | str], reason: int
) -> None:
    handle = conn.open(queue, C.MQOO_SET | C.MQOO_INQUIRE)
    with pytest.raises(MQError) as failure:
        conn.set(handle, values)
    assert failure.value.reason == reason
    assert conn.inquire(handle, [C.MQIA_INHIBIT_GET])[C.MQIA_INHIBIT_GET] == C.MQQA_GET_ALLOWED


# --------------------------------------------------------------------------- MQDISC


def test_disconnect_with_commit_commits(connections, queue: str) -> None:
    first = connections()
    first.put(queue, MQMD(), b"kept", syncpoint=True)
    first.disconnect(commit=True)
    assert bodies(connections(), queue) == [b"kept"]


def test_disconnect_with_commit_commits_gets(connections, queue: str) -> None:
    setup = connections()
    setup.put(queue, MQMD(), b"consumed")
    consumer = connections()
    handle = consumer.open(queue, IN)
    assert consumer.get(handle, syncpoint=True) is not None
    consumer.disconnect(commit=True)
    assert bodies(setup, queue) == []


def test_disconnect_without_commit_backs_out(connections, queue: str) -> None:
    first = connections()
    first.put(queue, MQMD(), b"dropped", syncpoint=True)
    first.disconnect()
    assert bodies(connections(), queue) == []


# --------------------------------------------------------------------------- the queue manager


def test_the_queue_manager_reports_its_mq_level(conn: Connection) -> None:
    values = conn.inquire_qmgr([C.MQCA_VERSION, C.MQIA_COMMAND_LEVEL, C.MQIA_PLATFORM])
    assert str(values[C.MQCA_VERSION]).startswith("09")
    assert int(values[C.MQIA_COMMAND_LEVEL]) >= 900
    assert values[C.MQIA_PLATFORM] == C.MQPL_UNIX


def test_the_queue_manager_answers_the_selectors_monitoring_scripts_ask(conn: Connection) -> None:
    # MQINQ's queue manager selectors (IBM: "MQINQ - Inquire object attributes"): a
    # health check reads these; none is 2067 MQRC_SELECTOR_ERROR
    values = conn.inquire_qmgr(
        [
            C.MQIA_MAX_HANDLES,
            C.MQIA_MAX_UNCOMMITTED_MSGS,
            C.MQCA_COMMAND_INPUT_Q_NAME,
            C.MQCA_Q_MGR_IDENTIFIER,
            C.MQCA_DEF_XMIT_Q_NAME,
        ]
    )
    assert int(values[C.MQIA_MAX_HANDLES]) > 0
    assert int(values[C.MQIA_MAX_UNCOMMITTED_MSGS]) > 0
    assert str(values[C.MQCA_COMMAND_INPUT_Q_NAME]).strip() == "SYSTEM.ADMIN.COMMAND.QUEUE"
    assert str(values[C.MQCA_Q_MGR_IDENTIFIER]).startswith(conn.qmgr_name.strip())


def test_a_queue_answers_its_dates_and_property_control(conn: Connection, queue: str) -> None:
    values = conn.inquire(
        queue,
        [
            C.MQCA_CREATION_DATE,
            C.MQCA_CREATION_TIME,
            C.MQCA_ALTERATION_DATE,
            C.MQCA_ALTERATION_TIME,
            C.MQIA_PROPERTY_CONTROL,
        ],
    )
    for selector in (C.MQCA_CREATION_DATE, C.MQCA_ALTERATION_DATE):
        assert isinstance(values[selector], str)
    assert values[C.MQIA_PROPERTY_CONTROL] == C.MQPROP_COMPATIBILITY
