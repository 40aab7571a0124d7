"""A MsgId or CorrelId shorter than 24 bytes is padded with nulls, as the packed MQMD
holds it (pymqi packs them so): stored short, the MQMD rebuilt at get was too short and
every get and browse of the queue failed on it with 2026 (found by the load probe)."""

from __future__ import annotations

from mqjms.mq import MQMD, C
from mqjms.qmgr import QueueManager
from mqjms.transport import Browse

Q = "SHORT.IDS"


def test_short_ids_are_stored_padded_and_the_message_reads_back(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", Q, {})
    conn = qm.connect()
    conn.put(Q, MQMD(CorrelId=b"A1", MsgId=b"M1"), b"short", new_msg_id=False)
    handle = conn.open(Q, C.MQOO_BROWSE | C.MQOO_INPUT_SHARED)
    browsed = conn.get(handle, browse=Browse.FIRST)
    assert browsed is not None and browsed[1] == b"short"
    got = conn.get(handle, correl_id=b"A1")
    assert got is not None
    md, data = got
    assert data == b"short"
    assert md.CorrelId == b"A1".ljust(24, b"\0")
    assert md.MsgId == b"M1".ljust(24, b"\0")
    conn.disconnect()
