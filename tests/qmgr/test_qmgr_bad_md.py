"""An MQMD that is not one is refused at MQPUT (MQRC_MD_ERROR, 2026), as IBM MQ refuses it:
stored as given, it could not be read back, and every get and browse of its queue failed
on it from then on."""

from __future__ import annotations

import pytest

from mqjms.mq import MQMD, C, MQError
from mqjms.qmgr import QueueManager
from mqjms.transport import Browse

Q = "BAD.MD"


@pytest.mark.parametrize(
    "fields", [{"StrucId": "XXXX"}, {"StrucId": b"XXXX"}, {"Version": 9}], ids=str
)
def test_a_put_of_an_mqmd_that_is_not_one_is_2026_and_the_queue_stays_readable(
    qm: QueueManager, fields: dict[str, object]
) -> None:
    # a fault probe: MQMD(StrucId="XXXX") was put, then every browse of the queue and
    # every JMS receive failed with 2026 on it: the queue was blocked for good
    qm.define_queue("QLOCAL", Q, {})
    conn = qm.connect()
    conn.put(Q, MQMD(), b"before")
    with pytest.raises(MQError) as err:
        conn.put(Q, MQMD(**fields), b"bad")  # type: ignore[arg-type]
    assert err.value.reason == C.MQRC_MD_ERROR
    assert "MQMD" in err.value.detail
    conn.put(Q, MQMD(Version=1), b"after")  # a version 1 MQMD is one
    conn.put(Q, MQMD(StrucId=b"MD  "), b"bytes")  # type: ignore[arg-type]
    handle = conn.open(Q, C.MQOO_BROWSE | C.MQOO_INPUT_SHARED)
    browsed = conn.get(handle, browse=Browse.FIRST)
    assert browsed is not None and browsed[1] == b"before"
    got = [conn.get(handle) for _ in range(4)]
    assert [g[1] if g else None for g in got] == [b"before", b"after", b"bytes", None]
    conn.disconnect()
