"""Helpers for the triggering tests (seed 003) on the embedded queue manager.

Names: the application queue ``APP.Q`` is served by process ``APP.PROC`` and triggers to
initiation queue ``APP.INITQ``. :class:`Monitor` plays the trigger monitor: it holds the
initiation queue open for input (condition 8) and takes the trigger messages off it.
"""

from __future__ import annotations

from dataclasses import dataclass

from mqjms.mq import MQMD, MQTM, C, parse_tm
from mqjms.qmgr import QMConnection, QueueManager
from mqjms.semantics import Handle

APPQ = "APP.Q"
INITQ = "APP.INITQ"
PROC = "APP.PROC"
APPLICID = "/usr/local/bin/app-server --serve"
IN = C.MQOO_INPUT_SHARED


@dataclass
class Trigger:
    """One trigger message as the trigger monitor gets it."""

    md: MQMD
    data: bytes
    tm: MQTM


class Monitor:
    """A stand-in trigger monitor: a connection with the initiation queue open for input."""

    def __init__(self, qm: QueueManager, initq: str = INITQ, options: int = IN) -> None:
        self.qm = qm
        self.initq = initq
        self.conn: QMConnection = qm.connect("test-trigger-monitor")
        self.handle: Handle | None = self.conn.open(initq, options)

    def take(self, wait: float = 0.0) -> list[Trigger]:
        """Every trigger message available now (the first may be waited for)."""
        assert self.handle is not None
        out: list[Trigger] = []
        while True:
            got = self.conn.get(self.handle, wait=wait if not out else 0.0)
            if got is None:
                return out
            md, data = got
            out.append(Trigger(md, data, parse_tm(data, md.Encoding)))

    def queues(self, wait: float = 0.0) -> list[str]:
        """The QName of every trigger message available now, in order."""
        return [t.tm.QName for t in self.take(wait)]

    def close(self) -> None:
        if self.handle is not None:
            self.conn.close(self.handle)
            self.handle = None

    def disconnect(self) -> None:
        self.conn.disconnect()


def define_triggered(
    qm: QueueManager,
    name: str = APPQ,
    trigtype: str = "FIRST",
    *,
    trigger: bool = True,
    **attrs: object,
) -> str:
    """A local queue with TRIGGER TRIGTYPE(trigtype) INITQ(APP.INITQ) PROCESS(APP.PROC)."""
    given: dict[str, object] = {
        "TRIGGER": trigger,
        "TRIGTYPE": trigtype,
        "INITQ": INITQ,
        "PROCESS": PROC,
    }
    given.update(attrs)
    qm.define_queue("QLOCAL", name, given)
    return name


def put(
    conn: QMConnection,
    queue: str = APPQ,
    n: int = 1,
    *,
    priority: int = C.MQPRI_PRIORITY_AS_Q_DEF,
    syncpoint: bool = False,
    persistent: bool = False,
    body: bytes = b"work",
) -> None:
    for _ in range(n):
        md = MQMD(
            Priority=priority,
            Persistence=C.MQPER_PERSISTENT if persistent else C.MQPER_NOT_PERSISTENT,
            Format=C.MQFMT_STRING,
        )
        conn.put(queue, md, body, syncpoint=syncpoint)


def depth(qm: QueueManager, queue: str) -> int:
    """CURDEPTH, committed and uncommitted messages alike."""
    return qm.queue_depth(queue)


def attr(qm: QueueManager, queue: str, name: str) -> int | str | bool:
    [row] = qm.display_queues(queue, "QLOCAL", [name])
    return row[name]
