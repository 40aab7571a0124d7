"""PCF as programs use it beyond PCFExecute's commands, through both flavours on the
embedded queue manager: ``pcf.CMQCFC.MQCMD_X`` chains as in both libraries, an unknown
command is their KeyError, ``reply_queue``/``reply_queue_name`` are a real reply queue, the
command server answers MQCFT_COMMAND_XR (what the libraries send, CFH version 3) with
filters, and ``PCFExecute.unpack`` reads its replies as ``(dict, CFH)``. The real pymqi
and ibmmq PCFExecute (over the stand-in native extension) run against the command server."""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.mqenv import MQEnv

pytestmark = pytest.mark.embedded_only("PCF maps onto the embedded queue manager")


def test_cmqcfc_chained_names_and_unknown_commands(mq: ModuleType, env: MQEnv, qmgr) -> None:
    pcf = mq.PCFExecute(qmgr)
    env.put_raw("DEV.QUEUE.1", b"one")
    [found] = pcf.CMQCFC.MQCMD_INQUIRE_Q({mq.CMQC.MQCA_Q_NAME: b"DEV.QUEUE.1"})
    assert found[mq.CMQC.MQIA_CURRENT_Q_DEPTH] == 1
    with pytest.raises(KeyError, match="MQCMD_NO_SUCH_THING"):  # CMQCFC.__dict__[name]
        pcf.MQCMD_NO_SUCH_THING()
    with pytest.raises(KeyError):
        pcf.OTHER.CMQCFC.MQCMD_PING_Q_MGR()  # only a leading CMQCFC. is dropped


def test_reply_queue_takes_hand_built_command_xr_requests(mq: ModuleType, env: MQEnv, qmgr) -> None:
    cmqc, cmqcfc = mq.CMQC, mq.CMQCFC
    pcf = mq.PCFExecute(qmgr)
    name = pcf.reply_queue_name
    assert isinstance(name, bytes) and name.startswith(b"PYMQPCF.")
    for version in (1, 2, 3):
        request = mq.CFH(Version=version, Type=cmqcfc.MQCFT_COMMAND_XR,
                         Command=cmqcfc.MQCMD_INQUIRE_Q, ParameterCount=2).pack()  # fmt: skip
        request += mq.CFST(Parameter=cmqc.MQCA_Q_NAME, String=b"DEV.QUEUE.*").pack()
        request += mq.CFIF(Parameter=cmqc.MQIA_CURRENT_Q_DEPTH, Operator=cmqcfc.MQCFOP_GREATER,
                           FilterValue=0).pack()  # fmt: skip
        env.put_raw("DEV.QUEUE.2", b"x")
        md = mq.MD(Format=cmqc.MQFMT_ADMIN, MsgType=cmqc.MQMT_REQUEST, ReplyToQ=name)
        qmgr.put1("SYSTEM.ADMIN.COMMAND.QUEUE", request, md, mq.PMO())
        gmo = mq.GMO(Options=cmqc.MQGMO_WAIT, WaitInterval=2000, Version=2,
                     MatchOptions=cmqc.MQMO_MATCH_CORREL_ID)  # fmt: skip
        values, header = mq.PCFExecute.unpack(
            pcf.reply_queue.get(None, mq.MD(CorrelId=md.MsgId), gmo)
        )
        # a distributed command server answers COMMAND_XR with standard responses
        assert (header.Type, header.Control, header.CompCode) == (cmqcfc.MQCFT_RESPONSE, 1, 0)
        assert values[cmqc.MQCA_Q_NAME].rstrip() == b"DEV.QUEUE.2"  # the filter kept one
        assert env.get_raw("DEV.QUEUE.2") is not None
    pcf.disconnect()
    assert pcf.reply_queue is None and pcf.reply_queue_name is None
    assert env.depth("SYSTEM.ADMIN.COMMAND.QUEUE") == 0


@pytest.mark.parametrize("library", ["pymqi", "ibmmq"])
def test_the_real_libraries_pcf_execute_is_answered(library: str, tmp_path: Path) -> None:
    from tests.ibmmq import libraries
    from tests.ibmmq.brokers import StandInBroker

    real = libraries.load(library)  # skips without the sdist
    broker = StandInBroker(tmp_path / "qm", library)
    try:
        broker.define_queue("APP.IN")
        qmgr = real.connect("QM1", "DEV.APP.SVRCONN", "localhost(1414)")
        pcf = real.PCFExecute(qmgr, response_wait_interval=2000)
        assert pcf.MQCMD_PING_Q_MGR() in ([{}], [])  # pymqi lists the empty reply
        [found] = pcf.MQCMD_INQUIRE_Q({real.CMQC.MQCA_Q_NAME: b"APP.IN"})
        assert found[real.CMQC.MQCA_Q_NAME].rstrip() == b"APP.IN"
        pcf.disconnect()
        qmgr.disconnect()
    finally:
        broker.close()


def test_pcf_execute_takes_each_librarys_positional_arguments(env: MQEnv) -> None:
    import mqjms.ibmmq as ibmmq
    import mqjms.pymqi as pymqi

    env.define_queue("MY.PCF.REPLIES")
    # pymqi 1.12: (name, disconnect_on_exit, model_queue_name, dynamic_queue_name, ...)
    qmgr = pymqi.connect("QM1")
    try:
        pcf = pymqi.PCFExecute(qmgr, True, b"SYSTEM.DEFAULT.MODEL.QUEUE", b"MYPCF.*")
        assert pcf.reply_queue_name.startswith(b"MYPCF.")
        assert pcf.MQCMD_PING_Q_MGR() == [{}]  # one response, no parameters
        pcf.disconnect()
    finally:
        qmgr.disconnect()
    # ibmmq 2.x: (name, model_queue_name, reply_queue_name, reply_queue_open_options, ...)
    qmgr = ibmmq.connect("QM1")
    try:
        pcf = ibmmq.PCFExecute(qmgr, None, "MY.PCF.REPLIES")
        assert pcf.reply_queue_name.rstrip() in (b"MY.PCF.REPLIES", "MY.PCF.REPLIES")
        assert pcf.MQCMD_PING_Q_MGR() == []  # ibmmq leaves out an empty response
        with pytest.raises(ibmmq.PYIFError, match="Do not specify both"):
            ibmmq.PCFExecute(qmgr, b"SYSTEM.DEFAULT.MODEL.QUEUE", "MY.PCF.REPLIES")
        pcf.disconnect()
    finally:
        qmgr.disconnect()


def test_a_filter_whose_length_lies_is_answered_with_its_reason(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    # a hand-built MQCFSF claiming a 10**9-byte value in a 28-byte structure: one reply
    # naming the fault (3244), never a gigabyte of filter nor a request left unanswered
    cmqc, cmqcfc = mq.CMQC, mq.CMQCFC
    pcf = mq.PCFExecute(qmgr)
    like = mq.CFSF(Parameter=cmqc.MQCA_Q_NAME, Operator=cmqcfc.MQCFOP_LIKE, FilterValue=b"DEV*")
    string_filter = bytearray(like.pack())
    string_filter[20:24] = (10**9).to_bytes(4, sys.byteorder)  # FilterValueLength
    request = mq.CFH(Version=3, Type=cmqcfc.MQCFT_COMMAND_XR, Command=cmqcfc.MQCMD_INQUIRE_Q,
                     ParameterCount=2).pack()  # fmt: skip
    request += mq.CFST(Parameter=cmqc.MQCA_Q_NAME, String=b"*").pack() + bytes(string_filter)
    md = mq.MD(Format=cmqc.MQFMT_ADMIN, MsgType=cmqc.MQMT_REQUEST, ReplyToQ=pcf.reply_queue_name)
    qmgr.put1("SYSTEM.ADMIN.COMMAND.QUEUE", request, md, mq.PMO())
    gmo = mq.GMO(Options=cmqc.MQGMO_WAIT, WaitInterval=2000, Version=2,
                 MatchOptions=cmqc.MQMO_MATCH_CORREL_ID)  # fmt: skip
    with pytest.raises(mq.MQMIError) as failure:
        mq.PCFExecute.unpack(pcf.reply_queue.get(None, mq.MD(CorrelId=md.MsgId), gmo))
    assert failure.value.reason == cmqcfc.MQRCCF_CFSF_FILTER_VAL_LEN_ERR
    pcf.disconnect()
