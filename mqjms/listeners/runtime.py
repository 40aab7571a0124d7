"""What every listener thread of one running worker shares (:class:`Runtime`), and how a
shutdown deadline ends one (:class:`Abandoned`)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mqjms.backout import FailureMemory, PoisonHandler
from mqjms.mq import constants as C
from mqjms.semantics import Capability, Connection

from .eventloop import EventLoopThread
from .isolation import SuspectGates
from .listener import PoisonCallback
from .reconnect import WaitStrategy
from .stats import WorkerStats

if TYPE_CHECKING:
    from .thread import ListenerThread

Connector = Callable[[str, str | None], Connection]
OPEN_OPTIONS = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_FAIL_IF_QUIESCING


@dataclass(frozen=True, slots=True)
class Runtime:
    """What every listener thread of one running worker shares."""

    url: str = field(repr=False)  # may carry a password
    appl_name: str | None
    connector: Connector
    poison: PoisonHandler
    failures: FailureMemory
    stats: WorkerStats
    stopping: threading.Event
    loop: EventLoopThread | None
    poison_hooks: Sequence[PoisonCallback]
    reconnect_wait: WaitStrategy
    get_wait: float  # each MQGET's wait on a transport whose gets cannot be interrupted
    on_fatal: Callable[[ListenerThread, BaseException], None]
    suspects: SuspectGates = field(default_factory=SuspectGates)
    client_id: str | None = None  # names topic listeners' durable subscriptions
    #: Tells this worker's shared non-durable subscriptions from another process's.
    instance: str = field(default_factory=lambda: os.urandom(6).hex())
    #: Called once a consumer's first connection is made (the worker logs
    #: ``worker.started`` when every consumer has one).
    on_connected: Callable[[ListenerThread], None] = lambda consumer: None
    #: Each MQGET's wait on a transport whose waits a stop interrupts
    #: (``Capability.INTERRUPT_WAIT``): an idle consumer sleeps.
    interruptible_wait: float = 60.0

    def wait_for(self, conn: Connection) -> float:
        """How long a get of ``conn`` waits before the consumer looks at the stop flag."""
        if Capability.INTERRUPT_WAIT in conn.capabilities:
            return self.interruptible_wait
        return self.get_wait


class Abandoned(Exception):
    """The in-flight message was backed out by a shutdown deadline: the thread ends."""
