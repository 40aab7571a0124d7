"""The mq:// transport itself, through the real ibmmq and pymqi Python layers over the
stand-in native extension: what reaches MQCONNX, the options of each MQI verb, the
connect retry policy, broken connections, and seed 002 on the queue manager's own
BackoutCount and attributes."""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import pytest

import mqjms
from mqjms import transport
from mqjms.mq import constants as C
from mqjms.mq.dlh import MQDLH
from mqjms.mq.errors import MQError
from mqjms.mq.md import MQMD
from mqjms.semantics import Capability, TruncatedMessage, put_destination
from mqjms.transport.ibmmq import PASSWORD_VAR, MQConnection

from . import libraries
from .brokers import StandInBroker
from .helpers import browse, depth
from .stand_in import StandIn

IN = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_FAIL_IF_QUIESCING
PASSWORD = "pa55-w0rd-never-logged"


# --------------------------------------------------------------------------- MQCONNX


def test_the_library_named_in_the_url_is_the_one_driven(mq: StandInBroker, library: str) -> None:
    conn = transport.connect(mq.url)
    assert isinstance(conn, MQConnection) and conn.library.name == library
    assert conn.qmgr_name == "QM1"  # inquired from the queue manager (MQCA_Q_MGR_NAME)
    conn.disconnect()


def test_ibmmq_is_preferred_when_both_libraries_are_importable(mq: StandInBroker) -> None:
    with libraries.installed("ibmmq"), libraries.installed("pymqi"):
        conn = transport.connect(mq.url.split("?")[0])
        assert isinstance(conn, MQConnection) and conn.library.name == "ibmmq"
        conn.disconnect()


def test_without_either_library_mq_urls_say_what_to_install() -> None:
    with pytest.raises(MQError) as err:
        transport.connect("mq://QM1@localhost(1414)/DEV.APP.SVRCONN")
    assert err.value.reason == C.MQRC_ENVIRONMENT_ERROR
    assert "mqjms[ibmmq]" in str(err.value) and "IBM MQ client" in str(err.value)


def test_channel_hosts_tls_and_reconnect_reach_mqconnx(
    mq: StandInBroker, library: str, stand_in: StandIn
) -> None:
    url = (
        "mq://QM1@host1(1414),host2(1415)/TLS.APP.SVRCONN?cipher=TLS_AES_256_GCM_SHA384"
        f"&keyrepo=/var/mqm/key&certlabel=appcert&reconnect=yes&library={library}"
    )
    transport.connect(url, "orders").disconnect()
    [connect] = stand_in.connects
    assert connect.qmgr == "QM1" and connect.channel == "TLS.APP.SVRCONN"
    assert connect.connection_name == "host1(1414),host2(1415)"
    assert connect.cipher == "TLS_AES_256_GCM_SHA384"
    assert (connect.key_repository, connect.cert_label) == ("/var/mqm/key", "appcert")
    cmqc = libraries.load(library).CMQC
    assert connect.options & cmqc.MQCNO_RECONNECT and connect.options & cmqc.MQCNO_CLIENT_BINDING
    assert connect.appl_name == "orders"  # ibmmq: MQCNO.ApplName; pymqi: MQAPPLNAME


def test_a_ccdt_reaches_mqconnx(mq: StandInBroker, library: str, stand_in: StandIn) -> None:
    # ibmmq: MQCNO.CCDTUrl; pymqi (no MQCNO): MQCCDTURL, set only while MQCONNX runs
    transport.connect(f"mq://QM1?ccdt=file:///var/mqm/ccdt.json&library={library}").disconnect()
    assert stand_in.connects[-1].ccdt == "file:///var/mqm/ccdt.json"
    assert "MQCCDTURL" not in os.environ


def test_user_and_password_reach_mqcsp_and_the_password_is_never_logged(
    mq: StandInBroker,
    library: str,
    stand_in: StandIn,
    monkeypatch: pytest.MonkeyPatch,
    events: list[dict[str, Any]],
) -> None:
    monkeypatch.setenv(PASSWORD_VAR, PASSWORD)
    conn = transport.connect(f"mq://app@QM1@localhost(1414)/DEV.APP.SVRCONN?library={library}")
    with pytest.raises(MQError) as err:
        conn.open("NO.SUCH.QUEUE", IN)
    conn.disconnect()
    assert (stand_in.connects[-1].user, stand_in.connects[-1].password) == ("app", PASSWORD)
    assert events and any(e["event"] == "mq.connected" for e in events)
    shown = " ".join(repr(e) for e in events) + repr(conn) + str(err.value) + repr(err.value)
    assert PASSWORD not in shown


def test_mqconnx_is_retried_while_the_queue_manager_is_not_there(
    mq: StandInBroker, stand_in: StandIn, events: list[dict[str, Any]]
) -> None:
    backing = stand_in.backing_url
    stand_in.backing_url = ""  # MQCONNX: 2059 MQRC_Q_MGR_NOT_AVAILABLE
    with pytest.raises(MQError) as err:
        transport.connect(mq.url)  # no connect_timeout: one attempt
    assert err.value.reason == C.MQRC_Q_MGR_NOT_AVAILABLE

    timer = threading.Timer(0.5, lambda: setattr(stand_in, "backing_url", backing))
    timer.start()
    conn = transport.connect(f"{mq.url}&connect_timeout=30")
    timer.join()
    conn.disconnect()
    assert any(e["event"] == "mq.connect_retry" for e in events)


# --------------------------------------------------------------------------- MQI verbs


def test_inquiry_opens_for_inquire_and_fail_if_quiescing(
    mq: StandInBroker, stand_in: StandIn
) -> None:
    conn = transport.connect(mq.url)
    values = conn.inquire("APP.IN", [C.MQIA_BACKOUT_THRESHOLD, C.MQCA_BACKOUT_REQ_Q_NAME])
    conn.disconnect()
    assert values == {C.MQIA_BACKOUT_THRESHOLD: 2, C.MQCA_BACKOUT_REQ_Q_NAME: "APP.BOQ"}
    assert ("APP.IN", C.MQOO_INQUIRE | C.MQOO_FAIL_IF_QUIESCING) in stand_in.opens


def test_an_alias_handle_knows_its_underlying_queue(mq: StandInBroker) -> None:
    conn = transport.connect(mq.url)
    handle = conn.open("APP.ALIAS", IN)
    assert (handle.name, handle.resolved_name) == ("APP.ALIAS", "APP.IN")  # MQOD ResolvedQName
    conn.disconnect()


def test_a_handle_opened_to_inquire_finds_its_underlying_queue_by_inquiry(
    mq: StandInBroker,
) -> None:
    # IBM MQ leaves ResolvedQName blank for a queue opened only to inquire: the base queue
    # of an alias is its BASE_Q_NAME, so BOTHRESH is inquired where it is defined
    conn = transport.connect(mq.url)
    for name, base in (("APP.ALIAS", "APP.IN"), ("APP.IN", "APP.IN")):
        handle = conn.open(name, C.MQOO_INQUIRE | C.MQOO_FAIL_IF_QUIESCING)
        assert (handle.name, handle.resolved_name) == (name, base)
        conn.close(handle)
    conn.disconnect()


def test_a_put_says_where_it_went_as_the_pmo_does(mq: StandInBroker) -> None:
    # MQPMO ResolvedQName/ResolvedQMgrName, read back for the drop-in's own MQPMO
    conn = transport.connect(mq.url)
    conn.put("APP.ALIAS", MQMD(), b"resolved")
    assert put_destination(conn) == ("APP.IN", conn.qmgr_name)
    conn.disconnect()


def test_a_message_got_under_syncpoint_and_backed_out_has_the_queue_managers_count(
    mq: StandInBroker,
) -> None:
    conn = transport.connect(mq.url)
    put = conn.put("APP.IN", MQMD(Format=C.MQFMT_STRING), b"hello")
    handle = conn.open("APP.IN", IN)
    for count in range(2):
        md, data = conn.get(handle, wait=1.0, syncpoint=True) or (MQMD(), b"")
        assert (md.MsgId, md.BackoutCount, data) == (put.MsgId, count, b"hello")
        conn.backout()
    conn.disconnect()


def test_syncpoint_if_persistent_is_ibm_mqs_own(mq: StandInBroker) -> None:
    # MQGMO_SYNCPOINT_IF_PERSISTENT goes to IBM MQ as it is: it decides by the message
    conn = transport.connect(mq.url)
    assert Capability.SYNCPOINT_IF_PERSISTENT in conn.capabilities
    conn.put("APP.IN", MQMD(Persistence=C.MQPER_NOT_PERSISTENT), b"gone for good")
    conn.put("APP.IN", MQMD(Persistence=C.MQPER_PERSISTENT), b"in the unit of work")
    handle = conn.open("APP.IN", IN)
    assert isinstance(conn, MQConnection)
    for expected in (b"gone for good", b"in the unit of work"):
        got = conn.get_if_persistent(handle, wait=1.0)
        assert got is not None and got[1] == expected
    conn.backout()
    again = conn.get(handle, wait=1.0)
    assert again is not None and again[1] == b"in the unit of work"
    assert conn.get(handle) is None
    conn.disconnect()


def test_a_longer_message_than_max_length_stays_on_the_queue(mq: StandInBroker) -> None:
    conn = transport.connect(mq.url)
    conn.put("APP.IN", MQMD(), b"x" * 10)
    handle = conn.open("APP.IN", IN)
    with pytest.raises(TruncatedMessage) as err:
        conn.get(handle, max_length=4)
    assert err.value.reason == C.MQRC_TRUNCATED_MSG_FAILED
    assert err.value.original_length == 10
    assert conn.get(handle) is not None  # the whole message, still there
    conn.disconnect()


def test_wait_match_andbrowse(mq: StandInBroker) -> None:
    conn = transport.connect(mq.url)
    first = conn.put("APP.IN", MQMD(), b"one")
    second = conn.put("APP.IN", MQMD(CorrelId=b"C2".ljust(24, b"\0")), b"two")
    handle = conn.open("APP.IN", IN | C.MQOO_BROWSE)
    assert conn.get(handle, browse=transport.Browse.FIRST)[1] == b"one"  # type: ignore[index]
    assert conn.get(handle, browse=transport.Browse.NEXT)[1] == b"two"  # type: ignore[index]
    got = conn.get(handle, correl_id=second.CorrelId)
    assert got is not None and got[0].MsgId == second.MsgId
    got = conn.get(handle, msg_id=first.MsgId)
    assert got is not None and got[1] == b"one"
    start = time.monotonic()
    assert conn.get(handle, wait=0.2) is None  # 2033 after WaitInterval
    assert time.monotonic() - start >= 0.15
    conn.disconnect()


def test_a_move_passes_all_context_from_the_handle_it_was_got_with(mq: StandInBroker) -> None:
    conn = transport.connect(mq.url, "original-app")
    conn.put("APP.IN", MQMD(), b"m")
    conn.disconnect()
    mover = transport.connect(mq.url, "mover")
    handle = mover.open("APP.IN", IN)
    md, data = mover.get(handle, syncpoint=True) or (MQMD(), b"")
    mover.put(
        "APP.BOQ", md, data, syncpoint=True, context=transport.Context.PASS_ALL, new_msg_id=False
    )
    mover.commit()
    mover.disconnect()
    [(moved, _)] = browse(mq, "APP.BOQ")
    assert moved.PutApplName == "original-app" and moved.MsgId == md.MsgId


def test_disconnect_backs_out_as_jms_close_does(mq: StandInBroker) -> None:
    conn = transport.connect(mq.url)
    conn.put("APP.IN", MQMD(), b"m")
    conn.get(conn.open("APP.IN", IN), syncpoint=True)
    conn.disconnect()  # MQBACK, then MQDISC (which would have committed)
    [(md, _)] = browse(mq, "APP.IN")
    assert md.BackoutCount == 1


# --------------------------------------------------------------------------- broken connections


def test_a_broken_connection_is_never_retried_inside_its_unit_of_work(
    mq: StandInBroker, stand_in: StandIn, events: list[dict[str, Any]]
) -> None:
    conn = transport.connect(mq.url)
    conn.put("APP.IN", MQMD(), b"m")
    handle = conn.open("APP.IN", IN)
    assert conn.get(handle, syncpoint=True) is not None
    stand_in.break_connections()
    with pytest.raises(MQError) as err:
        conn.commit()
    assert err.value.reason == C.MQRC_CONNECTION_BROKEN
    with pytest.raises(MQError) as again:
        conn.get(handle, syncpoint=True)  # no reconnect behind the caller's back
    assert again.value.reason == C.MQRC_CONNECTION_BROKEN
    conn.disconnect()  # no error: the connection is gone already
    broken = [e for e in events if e["event"] == "mq.connection_broken"]
    assert broken and broken[0]["in_unit_of_work"] is True
    fresh = transport.connect(mq.url)  # the owner reconnects: the queue manager backed out
    md, _ = fresh.get(fresh.open("APP.IN", IN)) or (MQMD(), b"")
    assert md.BackoutCount == 1
    fresh.disconnect()


# --------------------------------------------------------------------------- seed 002


def test_seed_002_a_poison_message_moves_to_boqname_of_the_underlying_queue(
    mq: StandInBroker, stand_in: StandIn
) -> None:
    # seed 002: BackoutCount >= BOTHRESH of the underlying (alias -> base) queue: BOQNAME
    cf = mqjms.ConnectionFactory(mq.url)
    with cf.connect() as jms, jms.session(transacted=True) as session:
        consumer = session.consumer("APP.ALIAS")
        session.producer("APP.ALIAS").send("poison")
        session.commit()
        for _ in range(2):  # BOTHRESH(2): delivered twice, rolled back twice
            assert consumer.receive(timeout=2.0) is not None
            session.rollback()
        assert consumer.receive(timeout=0.2) is None  # moved, in this unit of work
        session.commit()
    [(moved, data)] = browse(mq, "APP.BOQ")
    assert moved.BackoutCount == 0 and moved.Format == C.MQFMT_RF_HEADER_2 and b"poison" in data
    assert ("APP.IN", C.MQOO_INQUIRE | C.MQOO_FAIL_IF_QUIESCING) in stand_in.opens
    assert depth(mq, "APP.IN") == 0


def test_seed_002_not_authorized_on_the_backout_queue_falls_back_to_the_dead_letter_queue(
    mq: StandInBroker, stand_in: StandIn
) -> None:
    # seed 002: when the message cannot be put to BOQNAME, it goes to the dead-letter queue
    stand_in.denied.add("APP.BOQ")  # no +put on the backout queue: 2035
    cf = mqjms.ConnectionFactory(mq.url)
    with cf.connect() as jms, jms.session(transacted=True) as session:
        consumer = session.consumer("APP.IN")
        session.producer("APP.IN").send("poison")
        session.commit()
        for _ in range(2):
            assert consumer.receive(timeout=2.0) is not None
            session.rollback()
        assert consumer.receive(timeout=0.2) is None
        session.commit()
    assert depth(mq, "APP.BOQ") == 0
    [(md, data)] = browse(mq, "SYSTEM.DEAD.LETTER.QUEUE")
    assert md.Format == C.MQFMT_DEAD_LETTER_HEADER
    assert MQDLH.unpack(data[: MQDLH.size()], md.Encoding).DestQName == "APP.IN"


def test_a_name_longer_than_48_never_reaches_mqopen_cut_short(
    mq: StandInBroker, stand_in: StandIn
) -> None:
    # the libraries pack MQOD.ObjectName into 48 bytes: a 49-character name must not
    # open (or put to) the queue named by its first 48
    conn = transport.connect(mq.url)
    mq.define_queue("Q" * 48)
    for call in (lambda: conn.open("Q" * 49, IN), lambda: conn.put("Q" * 49, MQMD(), b"x")):
        with pytest.raises(MQError) as err:
            call()
        assert err.value.reason == C.MQRC_OBJECT_NAME_ERROR and "49 characters" in str(err.value)
    assert all(len(name) < 49 and name != "Q" * 48 for name, _ in stand_in.opens)
    conn.disconnect()
