"""A MsgId or CorrelId shorter than 24 bytes is padded with nulls, as the packed MQMD
holds it (pymqi packs them so): stored short, the MQMD rebuilt at get was too short and
every get and browse of the queue failed on it with 2026 (found by the load probe)."""

from __future__ import annotations

import sqlite3

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


def test_a_row_an_older_version_stored_with_short_ids_still_reads(qm: QueueManager) -> None:
    # rows written before the ids were padded at insert: the get pads them back
    qm.define_queue("QLOCAL", Q, {})
    conn = qm.connect()
    conn.put(Q, MQMD(CorrelId=b"A1", MsgId=b"M1"), b"old row", new_msg_id=False)
    db = sqlite3.connect(qm.db_file, isolation_level=None)
    db.execute("UPDATE messages SET msg_id = ?, correl_id = ?", (b"M1", b"A1"))
    db.close()
    got = conn.get(conn.open(Q, C.MQOO_INPUT_SHARED))
    assert got is not None and got[1] == b"old row"
    assert got[0].CorrelId == b"A1".ljust(24, b"\0")
    conn.disconnect()
