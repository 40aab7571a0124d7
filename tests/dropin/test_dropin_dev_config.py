"""examples/pymqi/dev-config.mqsc defines what programs written for IBM's developer
configuration open by name: its queues, and DEV.BASE.TOPIC (topic string ``dev/``), the
topic object of IBM's developer pub/sub samples."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from mqjms.mqi import routing
from mqjms.transport import embedded
from tests.dropin.conftest import DEV_CONFIG


@pytest.fixture
def dev_qmgr(tmp_path: Path) -> Iterator[str]:
    url = f"embedded://{tmp_path}/qm?qmgr=QM1"
    results = embedded.queue_manager(url).mqsc(DEV_CONFIG.read_text())
    assert all(result.ok for result in results), [r.render() for r in results if not r.ok]
    routing.configure(url=url)
    try:
        yield url
    finally:
        routing.reset()


def test_a_publication_through_dev_base_topic_is_under_dev(mq: ModuleType, dev_qmgr: str) -> None:
    C = mq.CMQC
    qmgr = mq.connect("QM1", "DEV.APP.SVRCONN", "localhost(1414)")
    try:
        desc = mq.SD(Options=C.MQSO_CREATE | C.MQSO_NON_DURABLE | C.MQSO_MANAGED)
        desc.set_vs("ObjectString", "dev/#")  # MQ joins "dev/" and "prices" as dev//prices
        sub = mq.Subscription(qmgr)
        sub.sub(sub_desc=desc)
        topic = mq.Topic(qmgr, topic_name="DEV.BASE.TOPIC", topic_string="prices")
        topic.open(open_opts=C.MQOO_OUTPUT)
        topic.pub(b"42")
        topic.close()
        got = sub.get(None, mq.MD(), mq.GMO(Options=C.MQGMO_WAIT, WaitInterval=2000))
        assert got == b"42"
        sub.close(close_sub_queue=True)
    finally:
        qmgr.disconnect()
