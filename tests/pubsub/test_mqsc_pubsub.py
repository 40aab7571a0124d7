"""MQSC for topics and subscriptions, and ``mqjms publish``, on the embedded queue manager."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

import pytest

from mqjms.cli import main
from mqjms.mq import MQMD, C, MQError
from mqjms.qmgr import QueueManager, subscriptions, topics
from mqjms.qmgr.mqsc import CommandResult, run_script
from mqjms.semantics.pubsub import SubscriptionDescriptor
from mqjms.transport import connect


def mqsc(qm: QueueManager, script: str) -> list[CommandResult]:
    return list(run_script(qm, script))


def ok(qm: QueueManager, script: str) -> list[CommandResult]:
    results = mqsc(qm, script)
    failed = [(r.command, r.error) for r in results if not r.ok]
    assert not failed, failed
    return results


def test_define_display_alter_delete_topic(qm: QueueManager) -> None:
    ok(
        qm,
        """
        DEFINE QMODEL(ORDERS.MODEL) DEFTYPE(PERMDYN) BOTHRESH(3) BOQNAME(ORDERS.BO)
        DEF TOPIC(ORDERS) TOPICSTR('orders') MDURMDL(ORDERS.MODEL) DEFPSIST(YES) +
            DESCR('all orders')
        DEFINE TOPIC(ORDERS.EU) TOPICSTR('orders/eu') PUB(DISABLED) DEFPRTY(5)
        """,
    )
    [shown] = ok(qm, "DISPLAY TOPIC(ORDERS) ALL")
    assert shown.objects == [
        {
            "TOPIC": "ORDERS",
            "TYPE": "LOCAL",
            "TOPICSTR": "orders",
            "DESCR": "all orders",
            "MDURMDL": "ORDERS.MODEL",
            "MNDURMDL": "",
            "DEFPSIST": "YES",
            "DEFPRTY": "ASPARENT",
            "PUB": "ASPARENT",
            "SUB": "ASPARENT",
            "DURSUB": "ASPARENT",
        }
    ]
    assert "   MNDURMDL( )" in shown.render()
    [filtered] = ok(qm, "DISPLAY TOPIC(*) WHERE(PUB EQ DISABLED)")
    assert [o["TOPIC"] for o in filtered.objects] == ["ORDERS.EU"]
    ok(qm, "ALTER TOPIC(ORDERS.EU) PUB(ASPARENT)")
    assert qm.display_topics("ORDERS.EU", ["PUB"])[0]["PUB"] == "ASPARENT"
    ok(qm, "DELETE TOPIC(ORDERS.EU)")
    assert [t["TOPIC"] for t in qm.display_topics("*")] == ["ORDERS", "SYSTEM.BASE.TOPIC"]


def test_topic_errors_say_what_was_wrong(qm: QueueManager) -> None:
    ok(qm, "DEFINE TOPIC(T1) TOPICSTR('t')")
    cases = {
        "DEFINE TOPIC(T2) TOPICSTR('t')": C.MQRCCF_TOPICSTR_ALREADY_EXISTS,
        "DEFINE TOPIC(T1) TOPICSTR('t')": C.MQRCCF_OBJECT_ALREADY_EXISTS,
        "DEFINE TOPIC(T3)": C.MQRCCF_ATTR_VALUE_ERROR,  # TOPICSTR is required
        "ALTER TOPIC(T1) TOPICSTR('u')": C.MQRCCF_PARM_CONFLICT,
        "DELETE TOPIC(SYSTEM.BASE.TOPIC)": C.MQRCCF_OBJECT_IN_USE,
        "ALTER TOPIC(SYSTEM.BASE.TOPIC) MDURMDL(' ')": C.MQRCCF_ATTR_VALUE_ERROR,
        "DEFINE TOPIC(T4) TOPICSTR('x') DEFPSIST(MAYBE)": C.MQRCCF_ATTR_VALUE_ERROR,
        "DEFINE TOPIC(T5) TOPICSTR('x') NOSUCH(1)": C.MQRCCF_PARM_SYNTAX_ERROR,
        "DISPLAY TOPIC(NONE)": C.MQRC_UNKNOWN_OBJECT_NAME,
    }
    for command, reason in cases.items():
        [result] = mqsc(qm, command)
        assert result.error is not None and result.error.reason == reason, command


def test_system_base_topic_holds_the_defaults(qm: QueueManager) -> None:
    # seed 002: MDURMDL defaults to SYSTEM.DURABLE.MODEL.QUEUE, MNDURMDL to
    # SYSTEM.NDURABLE.MODEL.QUEUE
    [base] = qm.display_topics("SYSTEM.BASE.TOPIC")
    assert base["TOPICSTR"] == ""
    assert base["MDURMDL"] == "SYSTEM.DURABLE.MODEL.QUEUE"
    assert base["MNDURMDL"] == "SYSTEM.NDURABLE.MODEL.QUEUE"


def test_define_display_delete_sub_and_tpstatus(qm: QueueManager) -> None:
    ok(
        qm,
        """
        DEFINE QLOCAL(WATCH.Q)
        DEFINE TOPIC(PRICES) TOPICSTR('prices') DEFPSIST(YES)
        DEFINE SUB('JMS:svc:watch') TOPICSTR('prices/#') DESTCLAS(MANAGED)
        DEFINE SUB(PROVIDED) TOPICOBJ(PRICES) TOPICSTR('eu') DEST(WATCH.Q) USERDATA('mine')
        """,
    )
    [shown] = ok(qm, "DISPLAY SUB(*) DEST DURABLE DESTCLAS TOPICSTR")
    by_name = {o["SUBNAME"]: o for o in shown.objects}
    assert by_name["PROVIDED"]["DEST"] == "WATCH.Q"
    assert by_name["PROVIDED"]["TOPICSTR"] == "prices/eu"
    assert by_name["PROVIDED"]["DESTCLAS"] == "PROVIDED"
    managed = str(by_name["JMS:svc:watch"]["DEST"])
    assert managed.startswith("SYSTEM.MANAGED.DURABLE.")
    assert by_name["JMS:svc:watch"]["DURABLE"] == "YES"  # administrative ones are durable
    [status] = ok(qm, "DISPLAY TPSTATUS('prices/eu')")
    assert status.objects[0]["ADMIN"] == ""
    assert status.objects[0]["DEFPSIST"] == "YES"  # inherited from PRICES
    assert status.objects[0]["SUBCOUNT"] == 1
    [tree] = ok(qm, "DISPLAY TPSTATUS('#')")
    assert {o["TOPICSTR"] for o in tree.objects} >= {"", "prices", "prices/#", "prices/eu"}
    [error] = mqsc(qm, "DEFINE SUB(PROVIDED) TOPICSTR('x') DEST(WATCH.Q)")
    assert error.error is not None and error.error.reason == C.MQRCCF_SUB_ALREADY_EXISTS
    ok(qm, "DELETE SUB('JMS:svc:watch')")
    assert managed not in qm.queue_names()  # the managed queue goes with it
    [error] = mqsc(qm, "DELETE SUB('JMS:svc:watch')")
    assert error.error is not None and error.error.reason == C.MQRC_NO_SUBSCRIPTION


def test_mqjms_publish_reaches_an_administered_subscription(
    qm: QueueManager, embedded_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    ok(qm, "DEFINE QLOCAL(WATCH.Q)\nDEFINE SUB(W) TOPICSTR('prices/#') DEST(WATCH.Q)")
    assert main(["publish", "--url", embedded_url, "prices/eu", "--body", "EUR 1.08"]) == 0
    msg_id = capsys.readouterr().out.strip()
    assert len(bytes.fromhex(msg_id)) == 24
    assert main(["publish", "--url", embedded_url, "prices/us", "--body", "x", "--count", "3"]) == 0
    assert qm.queue_depth("WATCH.Q") == 4
    assert main(["publish", "--url", embedded_url, "prices/#", "--body", "x"]) == 2
    assert "MQRC_TOPIC_STRING_ERROR" in capsys.readouterr().err
    # a publication nobody subscribes to is no warning unless asked for (MQPMO option)
    assert main(["publish", "--url", embedded_url, "nobody/listens", "--body", "x"]) == 0
    assert "warning" not in capsys.readouterr().err


@pytest.mark.parametrize(
    ("module", "display"),
    [
        (topics, lambda qm: qm.display_topics("*")),
        (topics, lambda qm: qm.topic_status("#")),
        (subscriptions, lambda qm: qm.display_subscriptions("*")),
    ],
    ids=["DISPLAY TOPIC", "DISPLAY TPSTATUS", "DISPLAY SUB"],
)
def test_a_storage_failure_in_a_topic_or_subscription_display_is_an_mq_reason(
    qm: QueueManager,
    monkeypatch: pytest.MonkeyPatch,
    module: Any,
    display: Callable[[QueueManager], object],
) -> None:
    # the reads of topic administration fail as every other administrative call does:
    # an MQ reason naming the database, never a raw sqlite3 error
    def broken(db: sqlite3.Connection) -> list[object]:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(module, "every", broken)
    with pytest.raises(MQError) as raised:
        display(qm)
    assert raised.value.reason == C.MQRC_RESOURCE_PROBLEM
    assert "qmgr.db" in str(raised.value)


def test_display_sbstatus_shows_each_subscriptions_run_time_status(
    qm: QueueManager, embedded_url: str
) -> None:
    # IBM MQ, DISPLAY SBSTATUS: ACTCONN (the connection holding it, zeros for none),
    # NUMMSGS (messages put to its destination since it was made or the queue manager
    # started), LMSGDATE/LMSGTIME (the last one), RESMDATE/RESMTIME (the last MQSUB)
    ok(qm, "DEFINE QLOCAL(SB.Q)\nDEFINE SUB(ADMIN.SUB) TOPICSTR('sb/#') DEST(SB.Q)")
    conn = connect(embedded_url)
    try:
        options = C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_DURABLE
        sub = conn.subscribe(
            SubscriptionDescriptor(options=options, object_string="sb/a", sub_name="api.sub")
        )
        for _ in range(2):
            handle = conn.open_topic("sb/a", C.MQOO_OUTPUT)
            conn.put(handle, MQMD(Format=C.MQFMT_STRING), b"x")
            conn.close(handle)
        [shown] = ok(qm, "DISPLAY SBSTATUS(*)")
        by_name = {o["SUB"]: o for o in shown.objects}
        api, admin = by_name["api.sub"], by_name["ADMIN.SUB"]
        assert api["NUMMSGS"] == 2 and admin["NUMMSGS"] == 2
        assert api["LMSGDATE"] != "" and api["LMSGTIME"] != "" and api["RESMDATE"] != ""
        assert (api["DURABLE"], api["SUBTYPE"], api["TOPICSTR"]) == ("YES", "API", "sb/a")
        assert admin["SUBTYPE"] == "ADMIN"
        assert admin["ACTCONN"] == "0" * 48  # nobody holds an administrative one
        assert str(api["ACTCONN"]).endswith(conn.id.upper()) and len(str(api["ACTCONN"])) == 48
        [one] = ok(qm, "DISPLAY SBSTATUS('api.sub') NUMMSGS")
        assert one.objects == [{"SUB": "api.sub", "SUBID": api["SUBID"], "NUMMSGS": 2}]
        assert "   SUB(api.sub)" in one.render()
        [filtered] = ok(qm, "DISPLAY SBSTATUS(*) SUBTYPE(ADMIN)")
        assert [o["SUB"] for o in filtered.objects] == ["ADMIN.SUB"]
        [error] = mqsc(qm, "DISPLAY SBSTATUS(NOPE)")
        assert error.error is not None and error.error.reason == C.MQRC_NO_SUBSCRIPTION
        conn.close_subscription(sub)
        [after] = ok(qm, "DISPLAY SBSTATUS('api.sub') ACTCONN")
        assert after.objects[0]["ACTCONN"] == "0" * 48
    finally:
        conn.disconnect()
    qm.restart()  # NUMMSGS counts from the queue manager's start
    assert {o["SUB"]: o["NUMMSGS"] for o in qm.subscription_status()} == {
        "ADMIN.SUB": 0,
        "api.sub": 0,
    }


def test_display_sub_filters_by_durable_subtype_subid_and_where(qm: QueueManager) -> None:
    ok(
        qm,
        """
        DEFINE QLOCAL(F.Q)
        DEFINE SUB(F.ONE) TOPICSTR('f/1') DEST(F.Q)
        DEFINE SUB(F.TWO) TOPICSTR('f/2') DEST(F.Q)
        """,
    )
    [durable] = ok(qm, "DISPLAY SUB(F.*) DURABLE(YES) SUBTYPE(ADMIN)")
    assert [o["SUBNAME"] for o in durable.objects] == ["F.ONE", "F.TWO"]
    [error] = mqsc(qm, "DISPLAY SUB(F.*) DURABLE(NO)")
    assert error.error is not None and error.error.reason == C.MQRC_NO_SUBSCRIPTION
    [where] = ok(qm, "DISPLAY SUB(*) WHERE(TOPICSTR EQ 'f/2')")
    assert where.objects == [
        {"SUBNAME": "F.TWO", "SUBID": where.objects[0]["SUBID"], "TOPICSTR": "f/2"}
    ]
    [by_id] = ok(qm, f"DISPLAY SUB(*) SUBID({where.objects[0]['SUBID']}) DEST")
    assert [(o["SUBNAME"], o["DEST"]) for o in by_id.objects] == [("F.TWO", "F.Q")]


def test_define_sub_takes_wschema_char_and_pubprty(qm: QueueManager, embedded_url: str) -> None:
    # DEFINE SUB WSCHEMA(CHAR): character-based wildcards; PUBPRTY(n | ASQDEF | ASPUB): the
    # priority of its copies (both were syntax errors)
    ok(
        qm,
        """
        DEFINE QLOCAL(CH.Q) DEFPRTY(4)
        DEFINE SUB(CH.CHAR) TOPICSTR('ch/*/eu') DEST(CH.Q) WSCHEMA(CHAR) PUBPRTY(7)
        DEFINE SUB(CH.QDEF) TOPICSTR('ch/x/eu') DEST(CH.Q) PUBPRTY(ASQDEF)
        """,
    )
    [shown] = ok(qm, "DISPLAY SUB(CH.*) WSCHEMA PUBPRTY")
    assert [(o["SUBNAME"], o["WSCHEMA"], o["PUBPRTY"]) for o in shown.objects] == [
        ("CH.CHAR", "CHAR", 7),
        ("CH.QDEF", "TOPIC", "ASQDEF"),
    ]
    conn = connect(embedded_url)
    try:
        for topic_string in ("ch/x/eu", "ch/a/b/eu", "ch/x/us"):
            handle = conn.open_topic(topic_string, C.MQOO_OUTPUT)
            conn.put(handle, MQMD(Format=C.MQFMT_STRING, Priority=1), topic_string.encode())
            conn.close(handle)
        queue = conn.open("CH.Q", C.MQOO_INPUT_SHARED)
        got = []
        while (message := conn.get(queue)) is not None:
            got.append((message[1], message[0].Priority))
    finally:
        conn.disconnect()
    assert sorted(got) == [(b"ch/a/b/eu", 7), (b"ch/x/eu", 4), (b"ch/x/eu", 7)]
    [error] = mqsc(qm, "DEFINE SUB(CH.BAD) TOPICSTR('a') DEST(CH.Q) WSCHEMA(FOO)")
    assert error.error is not None


def test_alter_sub_changes_what_ibm_mq_lets_one_change(qm: QueueManager, embedded_url: str) -> None:
    # ALTER SUB (it was not a command): DEST of a provided one, USERDATA, PUBPRTY; TOPICSTR
    # and the like are fixed, a managed subscription's DEST is its own
    ok(
        qm,
        """
        DEFINE QLOCAL(AL.OLD)
        DEFINE QLOCAL(AL.NEW)
        DEFINE SUB(AL.SUB) TOPICSTR('al/x') DEST(AL.OLD)
        DEFINE SUB(AL.MANAGED) TOPICSTR('al/x') DESTCLAS(MANAGED)
        ALTER SUB(AL.SUB) DEST(AL.NEW) USERDATA('moved') PUBPRTY(8)
        """,
    )
    [shown] = ok(qm, "DISPLAY SUB(AL.SUB) DEST USERDATA PUBPRTY")
    assert {k: shown.objects[0][k] for k in ("DEST", "USERDATA", "PUBPRTY")} == {
        "DEST": "AL.NEW",
        "USERDATA": "moved",
        "PUBPRTY": 8,
    }
    conn = connect(embedded_url)
    try:
        handle = conn.open_topic("al/x", C.MQOO_OUTPUT)
        conn.put(handle, MQMD(Format=C.MQFMT_STRING), b"after")
        new = conn.open("AL.NEW", C.MQOO_INPUT_SHARED)
        got = conn.get(new)
        assert got is not None and got[1] == b"after" and got[0].Priority == 8
        assert conn.get(conn.open("AL.OLD", C.MQOO_INPUT_SHARED)) is None
    finally:
        conn.disconnect()
    fixed = mqsc(
        qm,
        """
        ALTER SUB(AL.SUB) TOPICSTR('al/y')
        ALTER SUB(AL.MANAGED) DEST(AL.OLD)
        ALTER SUB(AL.NONE) USERDATA('x')
        """,
    )
    assert [r.error.reason if r.error else None for r in fixed] == [
        C.MQRCCF_ATTR_VALUE_FIXED,
        C.MQRCCF_ATTR_VALUE_FIXED,
        C.MQRC_NO_SUBSCRIPTION,
    ]


def test_define_sub_selector_selects_what_reaches_its_queue(
    qm: QueueManager, embedded_url: str
) -> None:
    # DEFINE SUB SELECTOR('...') (a syntax error before): IBM MQ's SelectionString; a
    # selector that is not one is 2459; ALTER SUB cannot change it
    ok(
        qm,
        """
        DEFINE QLOCAL(SE.Q)
        DEFINE SUB(SE.SUB) TOPICSTR('se/#') DEST(SE.Q) SELECTOR('JMSPriority >= 5')
        """,
    )
    [shown] = ok(qm, "DISPLAY SUB(SE.SUB) SELECTOR")
    assert shown.objects[0]["SELECTOR"] == "JMSPriority >= 5"
    conn = connect(embedded_url)
    try:
        for priority in (1, 7):
            handle = conn.open_topic("se/x", C.MQOO_OUTPUT)
            conn.put(handle, MQMD(Format=C.MQFMT_STRING, Priority=priority), b"%d" % priority)
            conn.close(handle)
        queue = conn.open("SE.Q", C.MQOO_INPUT_SHARED)
        bodies = []
        while (message := conn.get(queue)) is not None:
            bodies.append(message[1])
    finally:
        conn.disconnect()
    assert bodies == [b"7"]
    errors = mqsc(
        qm,
        """
        DEFINE SUB(SE.BAD) TOPICSTR('se/#') DEST(SE.Q) SELECTOR('JMSPriority >=')
        ALTER SUB(SE.SUB) SELECTOR('x = 1')
        """,
    )
    assert [r.error.reason if r.error else None for r in errors] == [
        C.MQRC_SELECTOR_SYNTAX_ERROR,
        C.MQRCCF_ATTR_VALUE_FIXED,
    ]


def test_display_sub_shows_the_name_as_runmqsc_does(qm: QueueManager) -> None:
    # runmqsc: "SUBID(...)  SUB(ORANGE)  TOPICSTR(ORANGE)"; the objects keep SUBNAME
    ok(qm, "DEFINE QLOCAL(SH.Q)\nDEFINE SUB(ORANGE) TOPICSTR('ORANGE') DEST(SH.Q)")
    [shown] = ok(qm, "DISPLAY SUB(ORANGE) TOPICSTR")
    assert shown.objects[0]["SUBNAME"] == "ORANGE"
    lines = shown.render()
    assert "   SUB(ORANGE)" in lines and "   TOPICSTR(ORANGE)" in lines
    assert not any("SUBNAME" in line for line in lines)


def test_display_tpstatus_type_sub_lists_each_nodes_subscriptions(qm: QueueManager) -> None:
    # IBM MQ, DISPLAY TPSTATUS TYPE(SUB) (it was a syntax error): a subscription's status
    # per node it is on
    ok(
        qm,
        """
        DEFINE QLOCAL(TS.Q)
        DEFINE SUB(TS.ONE) TOPICSTR('ts/a') DEST(TS.Q)
        DEFINE SUB(TS.ALL) TOPICSTR('ts/#') DEST(TS.Q)
        """,
    )
    [one] = ok(qm, "DISPLAY TPSTATUS('ts/a') TYPE(SUB)")
    subid = qm.display_subscriptions("TS.ONE")[0]["SUBID"]
    assert [(o["TOPICSTR"], o["SUBID"], o["DURABLE"]) for o in one.objects] == [
        ("ts/a", subid, "YES")
    ]
    assert set(one.objects[0]) >= {"ACTCONN", "NUMMSGS", "RESMDATE", "LMSGDATE", "SUBTYPE"}
    [tree] = ok(qm, "DISPLAY TPSTATUS('ts/#') TYPE(SUB)")
    assert sorted(str(o["TOPICSTR"]) for o in tree.objects) == ["ts/#", "ts/a"]
