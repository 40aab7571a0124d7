"""What every listener thread of one running worker shares (:class:`Runtime`), and how a
shutdown deadline ends one (:class:`Abandoned`)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
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


class Runtime:
    """What every listener thread of one running worker shares: set once by the worker,
    then only read. (A plain class, not a frozen dataclass: the one a worker module
    defines with 17 fields cost more to create at import than the rest of the module.)"""

    __slots__ = (
        "appl_name",
        "client_id",
        "connector",
        "failures",
        "get_wait",
        "instance",
        "interruptible_wait",
        "loop",
        "on_connected",
        "on_fatal",
        "poison",
        "poison_hooks",
        "reconnect_wait",
        "stats",
        "stopping",
        "suspects",
        "url",
    )

    def __init__(
        self,
        *,
        url: str,  # may carry a password: never in a repr
        appl_name: str | None,
        connector: Connector,
        poison: PoisonHandler,
        failures: FailureMemory,
        stats: WorkerStats,
        stopping: threading.Event,
        loop: EventLoopThread | None,
        poison_hooks: Sequence[PoisonCallback],
        reconnect_wait: WaitStrategy,
        get_wait: float,
        on_fatal: Callable[[ListenerThread, BaseException], None],
        suspects: SuspectGates | None = None,
        client_id: str | None = None,
        instance: str | None = None,
        on_connected: Callable[[ListenerThread], None] = lambda consumer: None,
        interruptible_wait: float = 60.0,
    ) -> None:
        self.url = url
        self.appl_name = appl_name
        self.connector = connector
        self.poison = poison
        self.failures = failures
        self.stats = stats
        self.stopping = stopping
        self.loop = loop
        self.poison_hooks = poison_hooks
        self.reconnect_wait = reconnect_wait
        #: Each MQGET's wait on a transport whose gets cannot be interrupted.
        self.get_wait = get_wait
        self.on_fatal = on_fatal
        self.suspects = SuspectGates() if suspects is None else suspects
        #: Names topic listeners' durable subscriptions.
        self.client_id = client_id
        #: Tells this worker's shared non-durable subscriptions from another process's.
        self.instance = os.urandom(6).hex() if instance is None else instance
        #: Called once a consumer's first connection is made (the worker logs
        #: ``worker.started`` when every consumer has one).
        self.on_connected = on_connected
        #: Each MQGET's wait on a transport whose waits a stop interrupts
        #: (``Capability.INTERRUPT_WAIT``): an idle consumer sleeps.
        self.interruptible_wait = interruptible_wait

    def wait_for(self, conn: Connection) -> float:
        """How long a get of ``conn`` waits before the consumer looks at the stop flag."""
        if Capability.INTERRUPT_WAIT in conn.capabilities:
            return self.interruptible_wait
        return self.get_wait


class Abandoned(Exception):
    """The in-flight message was backed out by a shutdown deadline: the thread ends."""
