"""Failures are MQError with IBM's completion and reason codes and names (issue 2, Errors).
Written against the transport contract only."""

from __future__ import annotations

import pytest

from mqjms.mq import MQMD, C, MQError
from mqjms.transport import Browse, Connection

IN = C.MQOO_INPUT_SHARED
OUT = C.MQOO_OUTPUT


def check(err: pytest.ExceptionInfo[MQError], reason: int, name: str) -> None:
    assert err.value.reason == reason
    assert err.value.comp == C.MQCC_FAILED
    assert err.value.reason_name == name
    assert name in str(err.value) and str(reason) in str(err.value)


def depth(conn: Connection, queue: str) -> int:
    return int(conn.inquire(queue, [C.MQIA_CURRENT_Q_DEPTH])[C.MQIA_CURRENT_Q_DEPTH])


# --------------------------------------------------------------------------- 2085


def test_unknown_object_on_open_put_and_inquire(conn: Connection) -> None:
    for call in (
        lambda: conn.open("NO.SUCH.QUEUE", IN),
        lambda: conn.open("NO.SUCH.QUEUE", OUT),
        lambda: conn.put("NO.SUCH.QUEUE", MQMD(), b"x"),
        lambda: conn.inquire("NO.SUCH.QUEUE", [C.MQIA_CURRENT_Q_DEPTH]),
    ):
        with pytest.raises(MQError) as err:
            call()
        check(err, 2085, "MQRC_UNKNOWN_OBJECT_NAME")
        assert "NO.SUCH.QUEUE" in str(err.value)


# --------------------------------------------------------------------------- inhibited


def test_get_inhibited(conn: Connection, broker) -> None:
    broker.define_queue("CONF.NOGET", GET="DISABLED")
    conn.put("CONF.NOGET", MQMD(), b"x")
    handle = conn.open("CONF.NOGET", IN)  # the open is allowed; the MQGET is not
    with pytest.raises(MQError) as err:
        conn.get(handle)
    check(err, 2016, "MQRC_GET_INHIBITED")
    with pytest.raises(MQError) as err:
        conn.get(handle, wait=0.5)
    check(err, 2016, "MQRC_GET_INHIBITED")
    broker.alter_queue("CONF.NOGET", GET="ENABLED")
    assert conn.get(handle)[1] == b"x"


def test_get_inhibited_after_open(conn: Connection, queue: str, broker) -> None:
    conn.put(queue, MQMD(), b"x")
    handle = conn.open(queue, IN | C.MQOO_BROWSE)
    broker.alter_queue(queue, GET="DISABLED")
    with pytest.raises(MQError) as err:
        conn.get(handle, browse=Browse.FIRST)
    check(err, 2016, "MQRC_GET_INHIBITED")
    assert depth(conn, queue) == 1


def test_put_inhibited(conn: Connection, broker) -> None:
    broker.define_queue("CONF.NOPUT", PUT="DISABLED")
    with pytest.raises(MQError) as err:
        conn.put("CONF.NOPUT", MQMD(), b"x")
    check(err, 2051, "MQRC_PUT_INHIBITED")
    handle = conn.open("CONF.NOPUT", OUT)
    with pytest.raises(MQError) as err:
        conn.put(handle, MQMD(), b"x", syncpoint=True)
    check(err, 2051, "MQRC_PUT_INHIBITED")
    conn.commit()
    assert depth(conn, "CONF.NOPUT") == 0


@pytest.mark.requires("alias")
def test_inhibited_through_an_alias(conn: Connection, queue: str, broker) -> None:
    broker.define_alias("CONF.ALIAS.NOGET", queue, GET="DISABLED", PUT="DISABLED")
    with pytest.raises(MQError) as err:
        conn.put("CONF.ALIAS.NOGET", MQMD(), b"x")
    check(err, 2051, "MQRC_PUT_INHIBITED")
    conn.put(queue, MQMD(), b"x")
    handle = conn.open("CONF.ALIAS.NOGET", IN)
    with pytest.raises(MQError) as err:
        conn.get(handle)
    check(err, 2016, "MQRC_GET_INHIBITED")


# --------------------------------------------------------------------------- limits


def test_queue_full(conn: Connection, broker) -> None:
    broker.define_queue("CONF.SMALL", MAXDEPTH=2)
    conn.put("CONF.SMALL", MQMD(), b"1")
    conn.put("CONF.SMALL", MQMD(), b"2", syncpoint=True)  # uncommitted puts count too
    with pytest.raises(MQError) as err:
        conn.put("CONF.SMALL", MQMD(), b"3")
    check(err, 2053, "MQRC_Q_FULL")
    conn.commit()
    handle = conn.open("CONF.SMALL", IN)
    conn.get(handle)
    conn.put("CONF.SMALL", MQMD(), b"3")  # room again
    assert depth(conn, "CONF.SMALL") == 2


def test_message_too_big_for_queue(conn: Connection, broker) -> None:
    broker.define_queue("CONF.TINY", MAXMSGL=10)
    conn.put("CONF.TINY", MQMD(), b"x" * 10)
    with pytest.raises(MQError) as err:
        conn.put("CONF.TINY", MQMD(), b"x" * 11)
    check(err, 2030, "MQRC_MSG_TOO_BIG_FOR_Q")
    assert depth(conn, "CONF.TINY") == 1


def test_expiry_zero_is_an_expiry_error(conn: Connection, queue: str) -> None:
    # seed 000/001 note 1: Expiry 0 fails with MQRC_EXPIRY_ERROR
    # (that no report is generated is tested in test_contract_expiry)
    with pytest.raises(MQError) as err:
        conn.put(queue, MQMD(Expiry=0), b"x")
    check(err, 2013, "MQRC_EXPIRY_ERROR")


# --------------------------------------------------------------------------- open options


def test_not_open_for_input(conn: Connection, queue: str) -> None:
    handle = conn.open(queue, OUT)
    with pytest.raises(MQError) as err:
        conn.get(handle)
    check(err, 2037, "MQRC_NOT_OPEN_FOR_INPUT")


def test_not_open_for_browse(conn: Connection, queue: str) -> None:
    handle = conn.open(queue, IN)
    with pytest.raises(MQError) as err:
        conn.get(handle, browse=Browse.FIRST)
    check(err, 2036, "MQRC_NOT_OPEN_FOR_BROWSE")


def test_not_open_for_inquire(conn: Connection, queue: str) -> None:
    handle = conn.open(queue, OUT)
    with pytest.raises(MQError) as err:
        conn.inquire(handle, [C.MQIA_CURRENT_Q_DEPTH])
    check(err, 2038, "MQRC_NOT_OPEN_FOR_INQUIRE")


def test_not_open_for_output(conn: Connection, queue: str) -> None:
    handle = conn.open(queue, IN | C.MQOO_INQUIRE)
    with pytest.raises(MQError) as err:
        conn.put(handle, MQMD(), b"x")
    check(err, 2039, "MQRC_NOT_OPEN_FOR_OUTPUT")
    assert depth(conn, queue) == 0


def test_closed_handle_cannot_be_used(conn: Connection, queue: str) -> None:
    handle = conn.open(queue, IN)
    conn.close(handle)
    with pytest.raises(MQError) as err:
        conn.get(handle)
    check(err, 2019, "MQRC_HOBJ_ERROR")


def test_negative_wait_is_a_wait_interval_error(conn: Connection, queue: str) -> None:
    handle = conn.open(queue, IN)
    with pytest.raises(MQError) as err:
        conn.get(handle, wait=-1)
    check(err, 2090, "MQRC_WAIT_INTERVAL_ERROR")


# --------------------------------------------------------------------------- alias base


@pytest.mark.requires("alias")
def test_unknown_alias_base(conn: Connection, broker) -> None:
    broker.define_alias("CONF.DANGLING", "CONF.NOT.DEFINED")
    for call in (
        lambda: conn.open("CONF.DANGLING", IN),
        lambda: conn.put("CONF.DANGLING", MQMD(), b"x"),
    ):
        with pytest.raises(MQError) as err:
            call()
        check(err, 2082, "MQRC_UNKNOWN_ALIAS_BASE_Q")
        if not broker.name.startswith("mq-"):  # IBM MQ does not say which base is missing
            assert "CONF.NOT.DEFINED" in str(err.value)


# --------------------------------------------------------------------------- names


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("Q" * 49, "48"),
        ("BAD NAME", "' '"),
        ("BAD!NAME", "!"),
        ("BAD*NAME", "*"),
        ("", "empty"),
    ],
    ids=["49-chars", "space", "bang", "star", "empty"],
)
def test_invalid_names_are_rejected_with_a_clear_message(
    conn: Connection, name: str, says: str
) -> None:
    for call in (
        lambda: conn.open(name, IN),
        lambda: conn.put(name, MQMD(), b"x"),
    ):
        with pytest.raises(MQError) as err:
            call()
        text = str(err.value)
        assert says in text, text
        assert err.value.comp == C.MQCC_FAILED


def test_48_characters_and_all_allowed_characters_are_fine(conn: Connection, broker) -> None:
    name = ("Ab9._/%" * 7)[:48]
    broker.define_queue(name)
    conn.put(name, MQMD(), b"ok")
    assert conn.get(conn.open(name, IN))[1] == b"ok"


# --------------------------------------------------------------------------- report options


@pytest.mark.parametrize(
    "md",
    [MQMD(Report=C.MQRO_EXPIRATION), MQMD(MsgType=C.MQMT_REQUEST)],
    ids=["expiration-report", "request"],
)
def test_report_or_request_without_reply_to_queue(conn: Connection, queue: str, md: MQMD) -> None:
    with pytest.raises(MQError) as err:
        conn.put(queue, md, b"x")
    check(err, 2027, "MQRC_MISSING_REPLY_TO_Q")
    assert depth(conn, queue) == 0


@pytest.mark.parametrize("feedback", [-5, C.MQFB_APPL_LAST + 1])
def test_a_feedback_outside_mq_s_ranges_is_2014(
    conn: Connection, queue: str, feedback: int
) -> None:
    # MQPUT: Feedback is MQFB_NONE, a system code (1-65535) or an application code
    # (65536-999999999), else MQRC_FEEDBACK_ERROR; a JMS_IBM_Feedback reaches it too
    with pytest.raises(MQError) as err:
        conn.put(queue, MQMD(Feedback=feedback), b"x")
    check(err, 2014, "MQRC_FEEDBACK_ERROR")
    assert depth(conn, queue) == 0
    conn.put(queue, MQMD(Feedback=C.MQFB_APPL_LAST), b"ok")  # the last one is valid
