"""The memory a get of a large body takes: the body SQLite reads and the bytes returned,
no third copy (the load probe: a 40 MB body peaked at 3x its size, read through a scalar
subquery SQLite copies). Measured with the process's resident high-water mark, reset
through /proc/self/clear_refs (Linux)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from mqjms.mq import MQMD, C
from mqjms.qmgr import QueueManager

MIB = 2**20
BODY = 24 * MIB
CLEAR_REFS = Path("/proc/self/clear_refs")


def _status_mib(key: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    raise LookupError(key)


def _peak_while(action: Callable[[], object]) -> float:
    CLEAR_REFS.write_text("5")  # the high-water mark starts again from the current size
    before = _status_mib("VmRSS")
    action()
    return _status_mib("VmHWM") - before


@pytest.mark.skipif(not os.access(CLEAR_REFS, os.W_OK), reason="needs Linux /proc clear_refs")
def test_a_get_of_a_large_body_holds_at_most_two_copies_of_it(tmp_path: Path) -> None:
    qm = QueueManager(tmp_path / "qm")
    qm.alter_qmgr({"MAXMSGL": 100 * MIB})
    qm.define_queue("QLOCAL", "BIG", {"MAXMSGL": 100 * MIB})
    conn = qm.connect()
    try:
        handle = conn.open("BIG", C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT)
        body = os.urandom(BODY)
        conn.put(handle, MQMD(), body)
        got: list[tuple[MQMD, bytes] | None] = []
        peak = _peak_while(lambda: got.append(conn.get(handle)))
        assert got[0] is not None and got[0][1] == body
        assert peak < 2.5 * BODY / MIB, f"a get of {BODY // MIB} MiB peaked at +{peak:.0f} MiB"
    finally:
        conn.disconnect()
        qm.close()
