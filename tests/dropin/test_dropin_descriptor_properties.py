"""MQINQMP of ``Root.MQMD.<Field>`` on a message handle a get filled: the field of the
message's MQMD, as IBM MQ's "Message descriptor fields as properties" says. It was 2471
MQRC_PROPERTY_NOT_AVAILABLE, so a program reading the descriptor through the handle (as
a get that passes no MQMD of its own must) found nothing.
"""

from __future__ import annotations

from types import ModuleType

import pytest

from tests.support.mqenv import MQEnv

Q = "DEV.QUEUE.1"


def _got_handle(mq: ModuleType, qmgr: object, md: object) -> object:
    handle = mq.MessageHandle(qmgr)
    gmo = mq.GMO(Version=mq.CMQC.MQGMO_VERSION_4, Options=mq.CMQC.MQGMO_PROPERTIES_IN_HANDLE)
    gmo.MsgHandle = handle.msg_handle
    assert mq.Queue(qmgr, Q).get(None, md, gmo) == b"body"
    return handle


def test_the_mqmd_fields_read_as_properties(mq: ModuleType, env: MQEnv, qmgr) -> None:
    put_md = mq.MD(Format=mq.CMQC.MQFMT_STRING, Priority=7, CorrelId=b"C" * 24)
    put_md.ReplyToQ = b"DEV.QUEUE.2"
    mq.Queue(qmgr, Q).put(b"body", put_md)
    md = mq.MD()
    handle = _got_handle(mq, qmgr, md)
    props = handle.properties
    assert props.get(b"Root.MQMD.Priority") == 7
    assert props.get(b"Root.MQMD.BackoutCount") == 0
    assert props.get(b"Root.MQMD.MsgId") == md.MsgId
    assert props.get(b"Root.MQMD.CorrelId") == b"C" * 24
    assert props.get(b"Root.MQMD.Format") == "MQSTR   "  # the MQCHAR8 as the MQMD holds it
    assert props.get(b"Root.MQMD.ReplyToQ", max_value_length=48).rstrip() == "DEV.QUEUE.2"


def test_the_descriptor_is_that_of_the_last_message_got(mq: ModuleType, env: MQEnv, qmgr) -> None:
    queue = mq.Queue(qmgr, Q)
    queue.put(b"body", mq.MD(Priority=2))  # got first: the higher priority
    queue.put(b"body", mq.MD(Priority=1))
    handle = _got_handle(mq, qmgr, mq.MD())
    assert handle.properties.get(b"Root.MQMD.Priority") == 2
    gmo = mq.GMO(Version=mq.CMQC.MQGMO_VERSION_4, Options=mq.CMQC.MQGMO_PROPERTIES_IN_HANDLE)
    gmo.MsgHandle = handle.msg_handle
    mq.Queue(qmgr, Q).get(None, mq.MD(), gmo)
    assert handle.properties.get(b"Root.MQMD.Priority") == 1


@pytest.mark.parametrize("name", [b"Root.MQMD.StrucId", b"Root.MQMD.Version", b"Root.MQMD.Nope"])
def test_no_such_descriptor_property(mq: ModuleType, env: MQEnv, qmgr, name: bytes) -> None:
    mq.Queue(qmgr, Q).put(b"body")
    handle = _got_handle(mq, qmgr, mq.MD())
    with pytest.raises(mq.MQMIError) as failure:
        handle.properties.get(name)
    assert failure.value.reason == mq.CMQC.MQRC_PROPERTY_NOT_AVAILABLE
