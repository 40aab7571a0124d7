"""The transport contract on ActiveMQ over STOMP: what maps to what, and what the
transport keeps itself (BackoutCount, BOTHRESH/BOQNAME/DEADQ).

Where a test expects something different from the embedded queue manager, the test says
so and why (the broker, not the transport, decides it)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from activemq_support import RawStomp, StompBroker

import mqjms
from mqjms.mq import MQMD, C, MQError, parse_dlh
from mqjms.semantics.deadletter import dead_letter_message
from mqjms.transport import Browse, Context, connect
from mqjms.transport.stomp import StompConfig, parse_url, register_profile, unregister_profile

IN = C.MQOO_INPUT_SHARED
REPO = Path(__file__).resolve().parents[2]


def ident(text: str) -> bytes:
    return text.encode().ljust(24, b"\0")


def drain(conn, queue: str) -> list[tuple[MQMD, bytes]]:
    handle = conn.open(queue, IN)
    out = []
    while (got := conn.get(handle)) is not None:
        out.append(got)
    conn.close(handle)
    return out


# --------------------------------------------------------------------------- mapping


def test_every_mqmd_field_survives_a_round_trip(sconnect, amq: StompBroker) -> None:
    amq.define_queue("RT.Q")
    conn = sconnect()
    md = MQMD(
        Report=C.MQRO_EXCEPTION,
        MsgType=C.MQMT_REQUEST,
        Feedback=7,
        Encoding=273,
        CodedCharSetId=819,
        Format="MYFMT",
        Priority=6,
        Persistence=C.MQPER_PERSISTENT,
        MsgId=ident("mine"),
        CorrelId=bytes(range(24)),
        ReplyToQ="REPLY.Q",
        ReplyToQMgr="QM2",
        UserIdentifier="alice",
        AccountingToken=b"\x01" * 32,
        ApplIdentityData="ident",
        PutApplType=C.MQAT_JAVA,
        PutApplName="app",
        PutDate="20240102",
        PutTime="03040506",
        ApplOriginData="orig",
        GroupId=ident("group"),
        MsgSeqNumber=3,
        Offset=0,
        MsgFlags=0,
    )
    data = bytes(range(256)) * 4  # binary, NULs included
    put = conn.put("RT.Q", md, data, context=Context.PASS_ALL, new_msg_id=False)
    got_md, got = conn.get(conn.open("RT.Q", IN))
    assert got == data
    assert got_md == put.copy(Expiry=C.MQEI_UNLIMITED, BackoutCount=0)


def test_a_jms_message_reads_naturally_to_a_plain_stomp_client(
    amq: StompBroker,
) -> None:
    """Headers a STOMP or JMS client knows; the RFH2 travels aside (mqjms_chain)."""
    amq.define_queue("JMS.OUT")
    factory = mqjms.ConnectionFactory(amq.url)
    before = time.time()
    with factory.connect() as jconn, jconn.session() as session:
        session.producer("JMS.OUT").send(
            "hello",
            properties={"colour": "red", "count": 3},
            correlation_id="order-1",
            priority=7,
            time_to_live=60_000,
            reply_to="REPLIES",
        )
    raw = RawStomp(amq.base_url)
    try:
        headers, body = raw.receive_one(amq.destination("JMS.OUT"))
    finally:
        raw.close()
    assert body == b"hello"
    assert headers["persistent"] == "true"
    assert headers["priority"] == "7"
    assert headers["correlation-id"] == "order-1"
    assert headers["reply-to"] == amq.destination("REPLIES")
    assert headers["colour"] == "red" and headers["count"] == "3"
    assert headers["content-type"].startswith("text/plain")
    assert before * 1000 + 59_000 < int(headers["expires"]) < time.time() * 1000 + 61_000
    assert "JMSXDeliveryCount" not in headers  # ActiveMQ swallows JMSX*: never used


def test_a_plain_stomp_message_is_a_jms_message_with_properties(amq: StompBroker) -> None:
    amq.define_queue("NATIVE.IN")
    raw = RawStomp(amq.base_url)
    try:
        raw.send(
            amq.destination("NATIVE.IN"),
            b"from stomp",
            **{
                "colour": "blue",
                "type": "Order",
                "correlation-id": "c-9",
                "persistent": "true",
                "content-type": "text/plain",
            },
        )
    finally:
        raw.close()
    with mqjms.ConnectionFactory(amq.url).connect() as jconn, jconn.session() as session:
        message = session.consumer("NATIVE.IN").receive(timeout=10)
    assert isinstance(message, mqjms.TextMessage)
    assert message.body == "from stomp"
    assert message.properties == {"colour": "blue"}
    assert message.jms_type == "Order"
    assert message.jms_correlation_id == "c-9"
    assert message.jms_delivery_mode == 2


def test_expiry_is_absolute_on_the_broker_and_remaining_tenths_on_get(
    sconnect, amq: StompBroker
) -> None:
    amq.define_queue("EXP.Q")
    conn = sconnect()
    conn.put("EXP.Q", MQMD(Expiry=600), b"60 s")  # tenths of a second
    time.sleep(0.3)
    handle = conn.open("EXP.Q", IN | C.MQOO_BROWSE)
    md, _ = conn.get(handle, browse=Browse.FIRST)
    assert 590 <= md.Expiry <= 598  # counts down while on the queue (seed 000)
    conn.put("EXP.Q", MQMD(Expiry=2), b"gone")  # 0.2 s
    time.sleep(0.6)
    assert [d for _, d in drain(conn, "EXP.Q")] == [b"60 s"]  # the expired one never


def test_dead_letter_header_travels_in_headers_and_comes_back_byte_exact(
    sconnect, amq: StompBroker
) -> None:
    amq.define_queue("DLH.Q")
    conn = sconnect()
    original = MQMD(Format=C.MQFMT_STRING, CodedCharSetId=1208, Encoding=546, MsgId=ident("m"))
    md, data = dead_letter_message(
        original,
        b"poison",
        reason=C.MQRC_BACKOUT_THRESHOLD_REACHED,
        dest_queue="ORDERS.IN",
        dest_qmgr=conn.qmgr_name,
        appl_name="mqjms",
        now=time.time(),
    )
    conn.put("DLH.Q", md, data, context=Context.PASS_ALL, new_msg_id=False)
    got_md, got = conn.get(conn.open("DLH.Q", IN | C.MQOO_BROWSE), browse=Browse.FIRST)
    assert got == data and got_md.Format.strip() == C.MQFMT_DEAD_LETTER_HEADER.strip()
    dlh, rest = parse_dlh(got, got_md.Encoding)
    assert (dlh.Reason, dlh.DestQName, rest) == (2362, "ORDERS.IN", b"poison")
    raw = RawStomp(amq.base_url)
    try:
        headers, body = raw.receive_one(amq.destination("DLH.Q"))
    finally:
        raw.close()
    assert body == b"poison"  # a STOMP client sees the message itself ...
    assert headers["mqjms_dlh_reason"] == "2362"  # ... and why and from where, in headers
    assert headers["mqjms_dlh_reason_name"] == "MQRC_BACKOUT_THRESHOLD_REACHED"
    assert headers["original-destination"] == amq.destination("ORDERS.IN")


def test_priority_order(sconnect, amq: StompBroker) -> None:
    amq.define_queue("PRI.Q")
    conn = sconnect()
    for body, priority in ((b"low", 1), (b"high", 8), (b"mid", 4), (b"high2", 8)):
        conn.put("PRI.Q", MQMD(Priority=priority), body)
    assert [d for _, d in drain(conn, "PRI.Q")] == [b"high", b"high2", b"mid", b"low"]


def test_get_matching_correl_id(sconnect, amq: StompBroker) -> None:
    amq.define_queue("COR.Q")
    conn = sconnect()
    for body, correl in ((b"a1", "A"), (b"b1", "B"), (b"a2", "A")):
        conn.put("COR.Q", MQMD(CorrelId=ident(correl)), body)
    handle = conn.open("COR.Q", IN)
    assert conn.get(handle, correl_id=ident("B"), syncpoint=True)[1] == b"b1"
    conn.commit()
    assert [d for _, d in drain(conn, "COR.Q")] == [b"a1", b"a2"]


# --------------------------------------------------------------------------- BackoutCount


def test_backout_raises_the_count_durably_and_keeps_the_msg_id(sconnect, amq: StompBroker) -> None:
    """Differs from the embedded queue manager: the message returns to the *back* of the
    queue (ActiveMQ cannot put a message back where it was; the transport re-sends it
    with its new count in one transaction with the ACK of the original)."""
    amq.define_queue("BO.Q")
    conn = sconnect()
    put = conn.put("BO.Q", MQMD(), b"poison")
    conn.put("BO.Q", MQMD(), b"next")
    handle = conn.open("BO.Q", IN)
    for expected in range(3):
        md, data = conn.get(handle, syncpoint=True)
        if data == b"next":  # the backed-out copy went behind it
            conn.commit()
            md, data = conn.get(handle, syncpoint=True)
        assert (data, md.BackoutCount, md.MsgId) == (b"poison", expected, put.MsgId)
        conn.backout()
    conn.close(handle)
    later = sconnect()  # another connection: the count is in the message, not in memory
    got = drain(later, "BO.Q")
    assert [(md.BackoutCount, md.MsgId, d) for md, d in got] == [(3, put.MsgId, b"poison")]


def test_a_crashed_consumer_raises_the_count_and_a_crash_loop_keeps_raising_it(
    sconnect, amq: StompBroker
) -> None:
    amq.define_queue("CRASH.Q")
    conn = sconnect()
    conn.put("CRASH.Q", MQMD(), b"kills its consumer")
    child = textwrap.dedent(
        f"""
        import os, signal, sys
        sys.path.insert(0, {str(REPO / "tests" / "stomp")!r})
        from mqjms.transport import connect
        from mqjms.mq import C
        conn = connect(sys.argv[1])
        handle = conn.open("CRASH.Q", C.MQOO_INPUT_SHARED)
        md, data = conn.get(handle, wait=10, syncpoint=True)
        print(md.BackoutCount, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    seen = []
    for _ in range(3):
        result = subprocess.run(
            [sys.executable, "-c", child, amq.child_url()],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == -signal.SIGKILL, result.stderr
        seen.append(int(result.stdout.strip()))
    assert seen == [0, 1, 2]
    md, _ = drain(conn, "CRASH.Q")[0]
    assert md.BackoutCount == 3


def test_closing_a_consumer_does_not_count_as_a_backout(sconnect, amq: StompBroker) -> None:
    """The message a prefetch-1 subscription holds unseen is not counted when it closes."""
    amq.define_queue("CLOSE.Q")
    conn = sconnect()
    for body in (b"1", b"2", b"3"):
        conn.put("CLOSE.Q", MQMD(), body)
    for _ in range(3):  # each consumer takes one message and leaves
        consumer = sconnect()
        handle = consumer.open("CLOSE.Q", IN)
        assert consumer.get(handle, syncpoint=True) is not None
        consumer.commit()
        consumer.close(handle)
        consumer.disconnect()
        break
    got = drain(sconnect(), "CLOSE.Q")
    assert sorted(d for _, d in got) == [b"2", b"3"]
    assert [md.BackoutCount for md, _ in got] == [0, 0]


# --------------------------------------------------------------------------- MQINQ


def test_inquire_answers_from_the_url(amq: StompBroker, stomp_conns) -> None:
    url = f"{amq.base_url}?bothresh=4&boqname=BO.Q&deadq=MY.DLQ&qmgr=BROKER1&prefix={amq.prefix}"
    conn = connect(url)
    stomp_conns.append(conn)
    handle = conn.open("ANY.Q", C.MQOO_INQUIRE)
    got = conn.inquire(
        handle,
        [
            C.MQIA_BACKOUT_THRESHOLD,
            C.MQCA_BACKOUT_REQ_Q_NAME,
            C.MQIA_Q_TYPE,
            C.MQIA_CURRENT_Q_DEPTH,
        ],
    )
    assert got == {
        C.MQIA_BACKOUT_THRESHOLD: 4,
        C.MQCA_BACKOUT_REQ_Q_NAME: "BO.Q",
        C.MQIA_Q_TYPE: C.MQQT_LOCAL,
        C.MQIA_CURRENT_Q_DEPTH: 0,
    }
    assert conn.inquire_qmgr([C.MQCA_DEAD_LETTER_Q_NAME, C.MQCA_Q_MGR_NAME]) == {
        C.MQCA_DEAD_LETTER_Q_NAME: "MY.DLQ",
        C.MQCA_Q_MGR_NAME: "BROKER1",
    }


def test_inquire_defaults_and_dead_letter_queue(sconnect, amq: StompBroker) -> None:
    conn = sconnect()
    amq.define_queue("PLAIN.Q")
    assert conn.inquire("PLAIN.Q", [C.MQIA_BACKOUT_THRESHOLD, C.MQCA_BACKOUT_REQ_Q_NAME]) == {
        C.MQIA_BACKOUT_THRESHOLD: 0,
        C.MQCA_BACKOUT_REQ_Q_NAME: "",
    }
    assert conn.inquire_qmgr([C.MQCA_DEAD_LETTER_Q_NAME]) == {
        C.MQCA_DEAD_LETTER_Q_NAME: "ActiveMQ.DLQ"
    }


def test_inquire_from_a_file_and_the_api(tmp_path: Path, amq: StompBroker, stomp_conns) -> None:
    config = tmp_path / "stomp.toml"
    config.write_text(
        textwrap.dedent(
            """
        qmgr_name = "FROM.FILE"
        strict = true
        [defaults]
        BOTHRESH = 2
        [queues."ORDERS.IN"]
        BOTHRESH = 3
        BOQNAME = "ORDERS.BO"
        [queues."ORDERS.ALIAS"]
        type = "QALIAS"
        TARGET = "ORDERS.IN"
        """
        )
    )
    conn = connect(f"{amq.base_url}?config={config}&prefix={amq.prefix}")
    stomp_conns.append(conn)
    handle = conn.open("ORDERS.ALIAS", C.MQOO_INPUT_SHARED | C.MQOO_INQUIRE)
    assert (handle.name, handle.resolved_name) == ("ORDERS.ALIAS", "ORDERS.IN")
    assert conn.inquire(handle, [C.MQIA_Q_TYPE, C.MQCA_BASE_Q_NAME]) == {
        C.MQIA_Q_TYPE: C.MQQT_ALIAS,
        C.MQCA_BASE_Q_NAME: "ORDERS.IN",
    }
    assert conn.inquire("ORDERS.IN", [C.MQIA_BACKOUT_THRESHOLD, C.MQCA_BACKOUT_REQ_Q_NAME]) == {
        C.MQIA_BACKOUT_THRESHOLD: 3,
        C.MQCA_BACKOUT_REQ_Q_NAME: "ORDERS.BO",
    }
    assert conn.qmgr_name == "FROM.FILE"
    with pytest.raises(MQError) as err:
        conn.open("NOT.DEFINED", C.MQOO_OUTPUT)  # strict: only configured queues exist
    assert err.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME
    api = register_profile("api-test", StompConfig(prefix=amq.prefix, defaults={"BOTHRESH": 9}))
    try:
        conn2 = connect(f"{amq.base_url}?profile=api-test")
        stomp_conns.append(conn2)
        api.define_queue("SPECIAL", BOTHRESH=1)
        assert conn2.inquire("OTHER", [C.MQIA_BACKOUT_THRESHOLD]) == {C.MQIA_BACKOUT_THRESHOLD: 9}
        assert conn2.inquire("SPECIAL", [C.MQIA_BACKOUT_THRESHOLD]) == {C.MQIA_BACKOUT_THRESHOLD: 1}
    finally:
        unregister_profile("api-test")


# --------------------------------------------------------------------------- connecting


def test_password_never_appears_in_errors_logs_or_repr(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], amq: StompBroker
) -> None:
    params = parse_url("stomp://bob:s3cret-pw@127.0.0.1:1/?reconnect=0")
    assert params.password == "s3cret-pw"
    assert "s3cret" not in repr(params) and "s3cret" not in params.safe_url
    with pytest.raises(MQError) as err:
        connect("stomp://bob:s3cret-pw@127.0.0.1:1")  # nothing listens on port 1
    assert err.value.reason == C.MQRC_HOST_NOT_AVAILABLE
    assert "s3cret" not in str(err.value)
    monkeypatch.setenv("MQJMS_STOMP_PASSWORD", "from-env")
    assert parse_url("stomp://bob@127.0.0.1:61613").password == "from-env"
    conn = connect(amq.url)
    assert "from-env" not in repr(conn)
    conn.disconnect()
    captured = capsys.readouterr()
    assert "s3cret" not in captured.out + captured.err
    assert "from-env" not in captured.out + captured.err


def test_tcp_nodelay_is_set(sconnect) -> None:
    conn = sconnect()
    sock = conn._client._conn.transport.socket
    assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)


def test_connect_to_a_closed_port_is_host_not_available() -> None:
    with pytest.raises(MQError) as err:
        connect("stomp://127.0.0.1:1")
    assert err.value.reason == C.MQRC_HOST_NOT_AVAILABLE
    assert os.environ.get("MQJMS_STOMP_PASSWORD") is None or True
