"""Looking at the embedded queue manager behind the stand-in, from outside the mq:// path."""

from __future__ import annotations

from mqjms import transport
from mqjms.mq import constants as C
from mqjms.mq.md import MQMD
from mqjms.transport import embedded

from .brokers import StandInBroker


def depth(mq: StandInBroker, queue: str) -> int:
    conn = embedded.connect(mq.backing_url)
    try:
        return int(conn.inquire(queue, [C.MQIA_CURRENT_Q_DEPTH])[C.MQIA_CURRENT_Q_DEPTH])
    finally:
        conn.disconnect()


def browse(mq: StandInBroker, queue: str) -> list[tuple[MQMD, bytes]]:
    conn = embedded.connect(mq.backing_url)
    try:
        handle = conn.open(queue, C.MQOO_BROWSE)
        found = []
        got = conn.get(handle, browse=transport.Browse.FIRST)
        while got is not None:
            found.append(got)
            got = conn.get(handle, browse=transport.Browse.NEXT)
        return found
    finally:
        conn.disconnect()
