"""The pymqi drop-in on mq://: a pymqi program on mqjms, mqjms on IBM MQ through the real
library (here over the stand-in), with seed 002's screening on the queue manager's own
BackoutCount and BOTHRESH."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import mqjms.pymqi as facade
from mqjms.mqi import routing

from .brokers import StandInBroker
from .helpers import browse


@pytest.fixture
def dropin(mq: StandInBroker) -> Iterator[StandInBroker]:
    facade.configure(url=mq.url)
    try:
        yield mq
    finally:
        routing.reset()


def test_a_pymqi_program_on_mq_moves_a_poison_message_to_boqname(dropin: StandInBroker) -> None:
    # seed 002: BackoutCount reached BOTHRESH(2) on the underlying queue: moved to BOQNAME
    qmgr = facade.connect("QM1")
    queue = facade.Queue(qmgr, "APP.IN", facade.CMQC.MQOO_INPUT_AS_Q_DEF | facade.CMQC.MQOO_OUTPUT)
    queue.put(b"poison")
    for _ in range(2):
        gmo = facade.GMO(Options=facade.CMQC.MQGMO_SYNCPOINT)
        assert queue.get(None, facade.MD(), gmo) == b"poison"
        qmgr.backout()
    with pytest.raises(facade.MQMIError) as err:
        queue.get(None, facade.MD(), facade.GMO(Options=facade.CMQC.MQGMO_SYNCPOINT))
    assert err.value.reason == facade.CMQC.MQRC_NO_MSG_AVAILABLE
    qmgr.commit()
    qmgr.disconnect()
    [(moved, data)] = browse(dropin, "APP.BOQ")
    assert moved.BackoutCount == 0 and data.endswith(b"poison")
