"""PCFExecute of the drop-in on mq://: the command goes to the queue manager's command
server (SYSTEM.ADMIN.COMMAND.QUEUE, responses on a temporary dynamic queue), as pymqi's
and ibmmq's own PCFExecute send it. It was refused with 2298 (MQRC_FUNCTION_NOT_SUPPORTED:
"needs the embedded queue manager") for every command but PING_Q_MGR and INQUIRE_Q_MGR,
so a pymqi monitoring or administration program did nothing on IBM MQ. Here the command
server is the embedded queue manager's, behind the stand-in."""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType

import pytest

import mqjms.ibmmq
import mqjms.pymqi
from mqjms.mqi import routing

from .brokers import StandInBroker
from .helpers import depth
from .stand_in import StandIn


@pytest.fixture(params=["pymqi", "ibmmq"])
def facade(request: pytest.FixtureRequest, mq: StandInBroker) -> Iterator[ModuleType]:
    module = mqjms.pymqi if request.param == "pymqi" else mqjms.ibmmq
    module.configure(url=mq.url)
    try:
        yield module
    finally:
        routing.reset()


def test_pcf_administers_the_queue_manager(
    facade: ModuleType, mq: StandInBroker, stand_in: StandIn
) -> None:
    CMQC = facade.CMQC
    qmgr = facade.connect("QM1")
    pcf = facade.PCFExecute(qmgr)
    pcf.MQCMD_CREATE_Q(
        {CMQC.MQCA_Q_NAME: b"PCF.Q", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL, CMQC.MQIA_MAX_Q_DEPTH: 7}
    )
    facade.Queue(qmgr, "PCF.Q").put(b"x")
    assert depth(mq, "PCF.Q") == 1
    [found] = pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"PCF.Q"})
    assert found[CMQC.MQCA_Q_NAME].strip() == b"PCF.Q"
    assert (found[CMQC.MQIA_MAX_Q_DEPTH], found[CMQC.MQIA_CURRENT_Q_DEPTH]) == (7, 1)
    with pytest.raises(facade.MQMIError) as failure:
        pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"NO.SUCH.Q"})
    assert (failure.value.comp, failure.value.reason) == (2, CMQC.MQRC_UNKNOWN_OBJECT_NAME)
    pcf.MQCMD_DELETE_Q({CMQC.MQCA_Q_NAME: b"PCF.Q", facade.CMQCFC.MQIACF_PURGE: 1})
    assert "PCF.Q" not in mq.qm.queue_names("PCF.*")
    # through IBM MQ's command queue, as the libraries' own PCFExecute
    assert ("SYSTEM.DEFAULT.MODEL.QUEUE", facade.CMQC.MQOO_INPUT_EXCLUSIVE) in stand_in.opens
    qmgr.disconnect()


def test_pcf_request_goes_where_and_as_the_library_sends_it(
    facade: ModuleType, mq: StandInBroker, stand_in: StandIn
) -> None:
    """The PCFExecute's command queue and dynamic reply name are used, and the request
    expires (Report: discard) as the library's does: the request was put to
    SYSTEM.ADMIN.COMMAND.QUEUE with no Expiry, so one no server read in time (a
    DELETE_Q) ran later."""
    CMQC = facade.CMQC
    mq.define_queue("APP.CMD.Q")  # no command server reads it
    qmgr = facade.connect("QM1")
    pcf = facade.PCFExecute(
        qmgr,
        command_queue_name=b"APP.CMD.Q",
        dynamic_queue_name=b"APP.PCF.*",
        response_wait_interval=1000,
    )
    with pytest.raises(facade.MQMIError) as failure:
        pcf.MQCMD_PING_Q_MGR()
    assert failure.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    md = facade.MD()
    left = facade.Queue(qmgr, "APP.CMD.Q", CMQC.MQOO_BROWSE)
    browse_first = facade.GMO(Options=CMQC.MQGMO_BROWSE_FIRST)
    if facade is mqjms.pymqi:  # Expiry response_wait_interval: gone when the wait ends
        with pytest.raises(facade.MQMIError) as gone:
            left.get(None, md, browse_first)
        assert gone.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    else:  # ibmmq: three times that
        left.get(None, md, browse_first)
        assert 0 < md.Expiry <= 30
        assert md.Report == CMQC.MQRO_PASS_DISCARD_AND_EXPIRY | CMQC.MQRO_DISCARD_MSG
        assert md.ReplyToQ.startswith(b"APP.PCF.")
    qmgr.disconnect()


def test_pcf_unlimited_response_wait(facade: ModuleType, mq: StandInBroker) -> None:
    """response_wait_interval -1: pymqi passes it to WaitInterval (without limit), ibmmq
    makes it an hour (it was a wait of -0.001 s: 2090 MQRC_WAIT_INTERVAL_ERROR)."""
    qmgr = facade.connect("QM1")
    pcf = facade.PCFExecute(qmgr, response_wait_interval=-1)
    assert pcf.MQCMD_PING_Q_MGR() in ([], [{}])
    assert pcf.response_wait_interval == (3_600_000 if facade.__name__.endswith("ibmmq") else -1)
    qmgr.disconnect()
