"""What several contract tests do alike."""

from __future__ import annotations

from mqjms.mq import MQMD, C
from mqjms.transport import Connection


def drain(conn: Connection, queue: str) -> list[tuple[MQMD, bytes]]:
    """Every message on ``queue``, got (outside syncpoint) in delivery order."""
    handle = conn.open(queue, C.MQOO_INPUT_SHARED)
    out = []
    while (got := conn.get(handle)) is not None:
        out.append(got)
    conn.close(handle)
    return out
