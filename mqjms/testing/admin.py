"""How a test administers its queue manager: define, alter and delete objects.

:class:`Administration` is what :class:`~.harness.TestQueueManager` needs from whatever
stands in for MQSC on a transport. The embedded queue manager's own API is one
(:class:`EmbeddedAdministration`, which also runs MQSC scripts); another transport's test
helper with the same five methods is another (mqjms's own tests pass their STOMP broker
helper, so one test runs on every transport).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from mqjms.mq.errors import MQError
from mqjms.qmgr import QueueManager
from mqjms.qmgr.mqsc import CommandResult
from mqjms.transport import embedded


class Administration(Protocol):
    """MQSC's DEFINE, ALTER and DELETE for queues and the queue manager (and DEFINE
    QMODEL and TOPIC for publish/subscribe), as methods; attributes go by their MQSC
    names (``BOTHRESH=3, BOQNAME="ORDERS.BACKOUT"``)."""

    def define_queue(self, name: str, **attrs: object) -> None: ...

    def define_alias(self, name: str, target: str, **attrs: object) -> None: ...

    def alter_queue(self, name: str, **attrs: object) -> None: ...

    def alter_qmgr(self, **attrs: object) -> None: ...

    def delete_queue(self, name: str) -> None: ...

    def define_model(self, name: str, **attrs: object) -> None: ...

    def define_topic(self, name: str, topic_string: str, **attrs: object) -> None: ...


@runtime_checkable
class ScriptedAdministration(Administration, Protocol):
    """An administration that runs MQSC scripts too."""

    def mqsc(self, script: str) -> list[CommandResult]: ...


class EmbeddedAdministration:
    """The embedded queue manager of one ``embedded:`` URL, administered through its API."""

    def __init__(self, url: str) -> None:
        self.url = url

    @property
    def queue_manager(self) -> QueueManager:
        """This process's QueueManager for the URL (opened again if it was closed)."""
        return embedded.queue_manager(self.url)

    def mqsc(self, script: str) -> list[CommandResult]:
        """Run an MQSC script; an MQError names the first command that failed (the
        commands after it have run too, as runmqsc runs them)."""
        results = self.queue_manager.mqsc(script)
        for result in results:
            if not result.ok:
                error = result.error
                reason = error.reason if error is not None else 0
                comp = error.comp if error is not None else 2
                why = error.detail or str(error) if error is not None else result.message
                raise MQError(
                    comp, reason, f"MQSC command {result.number} failed: {result.command}: {why}"
                )
        return results

    def define_queue(self, name: str, **attrs: object) -> None:
        self.queue_manager.define_queue("QLOCAL", name, attrs)

    def define_alias(self, name: str, target: str, **attrs: object) -> None:
        self.queue_manager.define_queue("QALIAS", name, {"TARGET": target, **attrs})

    def alter_queue(self, name: str, **attrs: object) -> None:
        self.queue_manager.alter_queue(name, attrs)

    def alter_qmgr(self, **attrs: object) -> None:
        self.queue_manager.alter_qmgr(attrs)

    def delete_queue(self, name: str) -> None:
        self.queue_manager.delete_queue(name, purge=True)

    def define_model(self, name: str, **attrs: object) -> None:
        self.queue_manager.define_queue("QMODEL", name, attrs)

    def define_topic(self, name: str, topic_string: str, **attrs: object) -> None:
        self.queue_manager.define_topic(name, {"TOPICSTR": topic_string, **attrs})

    def close(self) -> None:
        """Close the queue manager: threads stopped, files released."""
        self.queue_manager.close()
