"""An MQOD's ObjectQMgrName. Blank or this queue manager's name (or the one the program
connected with) is local. Any other names a remote queue, opened to put to: the embedded
queue manager routes it as IBM MQ does, to a transmission queue behind an MQXQH (a queue
manager alias, the transmission queue named after it, else DEFXMITQ; see
mqjms/qmgr/remote.py), and with no route it is 2087 MQRC_UNKNOWN_REMOTE_Q_MGR on MQOPEN
and MQPUT1, as on a broker, which has no other queue manager. A reply meant for a remote
requester never lands on a local queue of the same name."""

from __future__ import annotations

from types import ModuleType

import pytest

from mqjms.mq import C, parse_xqh
from tests.support.mqenv import MQEnv

Q = "DEV.QUEUE.3"
ROUTES = "transmission queues are the embedded queue manager's"


def test_another_queue_manager_is_2087_and_nothing_is_put(mq: ModuleType, env: MQEnv, qmgr) -> None:
    od = mq.OD(ObjectName=Q, ObjectQMgrName="QM_ELSEWHERE")
    with pytest.raises(mq.MQMIError) as caught:
        qmgr.put1(od, b"for elsewhere", mq.MD())
    assert caught.value.reason == mq.CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR
    with pytest.raises(mq.MQMIError) as caught:
        mq.Queue(qmgr, mq.OD(ObjectName=Q, ObjectQMgrName="QM_ELSEWHERE"), mq.CMQC.MQOO_OUTPUT)
    assert caught.value.reason == mq.CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR
    assert env.depth(Q) == 0


def test_this_queue_manager_by_name_or_blank_is_local(mq: ModuleType, env: MQEnv, qmgr) -> None:
    own = qmgr.inquire(mq.CMQC.MQCA_Q_MGR_NAME)
    own = (own.decode() if isinstance(own, bytes) else own).strip()
    for name in (own, ""):
        qmgr.put1(mq.OD(ObjectName=Q, ObjectQMgrName=name), b"here", mq.MD())
    assert env.depth(Q) == 2


def test_a_name_routed_to_the_same_url_is_local(mq: ModuleType, env: MQEnv, qmgr) -> None:
    # configure(qmgrs=...) sending two names to one queue manager makes both local
    from mqjms.mqi import routing

    saved = routing.routes()
    hconn_url = saved.url_for("QM1")
    try:
        routing.configure(qmgrs={"QM_ALIAS": hconn_url})
        qmgr.put1(mq.OD(ObjectName=Q, ObjectQMgrName="QM_ALIAS"), b"routed here", mq.MD())
    finally:
        routing.configure(qmgrs=dict(saved.qmgrs))
    assert env.depth(Q) == 1


def _on_xmitq(env: MQEnv, xmitq: str) -> tuple[str, str, bytes]:
    got = env.get_raw(xmitq)
    assert got is not None, f"nothing on {xmitq}"
    md, data = got
    assert md.Format == C.MQFMT_XMIT_Q_HEADER
    header, rest = parse_xqh(data, md.Encoding)
    return header.RemoteQName, header.RemoteQMgrName, rest


@pytest.mark.embedded_only(ROUTES)
def test_a_reply_to_a_remote_requester_goes_to_its_transmission_queue(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    # the responder's MQPUT1 to the request's ReplyToQ at its ReplyToQMgr
    env.define_queue("QM_REQUESTER", USAGE="XMITQ")
    md = mq.MD(Expiry=3000)
    od = mq.OD(ObjectName="REQUESTER.REPLY", ObjectQMgrName="QM_REQUESTER")
    qmgr.put1(od, b"the reply", md)
    assert _on_xmitq(env, "QM_REQUESTER") == ("REQUESTER.REPLY", "QM_REQUESTER", b"the reply")
    assert md.MsgId != b"\0" * 24  # the MsgId of the program's own message, as put


@pytest.mark.embedded_only(ROUTES)
def test_mqopen_of_a_remote_queue_resolves_and_puts(mq: ModuleType, env: MQEnv, qmgr) -> None:
    env.define_queue("QM_FAR", USAGE="XMITQ")
    od = mq.OD(ObjectName="FAR.ORDERS", ObjectQMgrName="QM_FAR", Version=mq.CMQC.MQOD_VERSION_3)
    queue = mq.Queue(qmgr, od, mq.CMQC.MQOO_OUTPUT)
    try:
        queue.put(b"order 1")
    finally:
        queue.close()
    text = lambda value: (value.decode() if isinstance(value, bytes) else value).strip(" \x00")  # noqa: E731
    assert (text(od.ResolvedQName), text(od.ResolvedQMgrName)) == ("FAR.ORDERS", "QM_FAR")
    assert _on_xmitq(env, "QM_FAR") == ("FAR.ORDERS", "QM_FAR", b"order 1")
    with pytest.raises(mq.MQMIError) as caught:
        options = mq.CMQC.MQOO_INPUT_AS_Q_DEF
        mq.Queue(qmgr, mq.OD(ObjectName="FAR.ORDERS", ObjectQMgrName="QM_FAR"), options)
    assert caught.value.reason == mq.CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE


@pytest.mark.embedded_only(ROUTES)
def test_mqclose_delete_of_a_remote_queue_is_2045_whatever_is_here(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    # a permanent dynamic queue here with the remote queue's name is not the one closed
    env.define_queue("QM_FAR", USAGE="XMITQ")
    env.define_model("PERM.MODEL", DEFTYPE="PERMDYN")
    local = mq.Queue(
        qmgr, mq.OD(ObjectName="PERM.MODEL", DynamicQName="FAR.ORDERS"), mq.CMQC.MQOO_OUTPUT
    )
    local.put(b"stays here")
    local.close()
    od = mq.OD(ObjectName="FAR.ORDERS", ObjectQMgrName="QM_FAR")
    far = mq.Queue(qmgr, od, mq.CMQC.MQOO_OUTPUT)
    with pytest.raises(mq.MQMIError) as caught:
        far.close(mq.CMQC.MQCO_DELETE_PURGE)
    assert caught.value.reason == mq.CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE
    far.close()
    assert env.depth("FAR.ORDERS") == 1


@pytest.mark.embedded_only("reports are the embedded queue manager's")
def test_a_reply_to_qmgr_naming_the_connection_finds_the_queue_here(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    # the program connected as QM1 names QM1 its ReplyToQMgr: on IBM MQ that is the
    # queue manager it is on, so its COA report comes back here, not down a route
    reply = env.define_queue("DEV.REPLY.COA")
    md = mq.MD(Report=mq.CMQC.MQRO_COA, ReplyToQ=reply, ReplyToQMgr="QM1")
    qmgr.put1(mq.OD(ObjectName=Q), b"confirm it", md)
    text = lambda value: (value.decode() if isinstance(value, bytes) else value).strip(" \x00")  # noqa: E731
    assert text(md.ReplyToQMgr) == "QM1"  # the program's own, as MQ leaves a set one
    got = env.get_raw(reply)
    assert got is not None and got[0].Feedback == C.MQFB_COA
    stored = env.browse_one(Q)[0]
    assert stored.ReplyToQMgr.strip() == env.qmgr_name


@pytest.mark.embedded_only(ROUTES)
def test_a_blank_object_name_on_another_queue_manager_is_2184(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    env.define_queue("QM_FAR", USAGE="XMITQ")
    with pytest.raises(mq.MQMIError) as caught:
        qmgr.put1(mq.OD(ObjectName="", ObjectQMgrName="QM_FAR"), b"where?", mq.MD())
    assert caught.value.reason == mq.CMQC.MQRC_REMOTE_Q_NAME_ERROR
    assert env.depth("QM_FAR") == 0


@pytest.mark.embedded_only(ROUTES)
def test_mqput1_fills_the_pmo_with_where_the_message_went(mq: ModuleType, env: MQEnv, qmgr) -> None:
    # MQ returns the resolved names in the MQPMO: a QREMOTE's RNAME and RQMNAME (an
    # "unknown" destination), an alias's base queue
    env.define_queue("QM_FAR", USAGE="XMITQ")
    env.broker.qm.define_queue("QREMOTE", "FAR.DEF", {"RNAME": "FAR.ORDERS", "RQMNAME": "QM_FAR"})
    env.define_alias("DEV.ALIAS.3", Q)
    text = lambda value: (value.decode() if isinstance(value, bytes) else value).strip(" \x00")  # noqa: E731
    own = env.qmgr_name
    for name, expected in (
        ("FAR.DEF", ("FAR.ORDERS", "QM_FAR", 0, 1)),
        ("DEV.ALIAS.3", (Q, own, 1, 0)),
        (Q, (Q, own, 1, 0)),
    ):
        pmo = mq.PMO()
        qmgr.put1(mq.OD(ObjectName=name), b"where", mq.MD(), pmo)
        went = (text(pmo.ResolvedQName), text(pmo.ResolvedQMgrName))
        assert (*went, pmo.KnownDestCount, pmo.UnknownDestCount) == expected, name
