"""MQ semantics every transport shares, below the transports and the embedded queue manager.

:mod:`.contract` is the MQI-shaped transport contract (Connection, Handle, Browse,
Context) with its declared :mod:`.capabilities`; :mod:`.wrapper` the base class for
connections that wrap another. The rest is IBM MQ's behaviour written once for the
transports that emulate a queue manager (the embedded one and STOMP): object attributes
(:mod:`.attributes`), queue definitions and alias resolution (:mod:`.definitions`), the
argument and open rules (:mod:`.checks`), MQPUT's defaults and context (:mod:`.put`),
MQINQ (:mod:`.inquire`), report and dead-letter messages (:mod:`.reports`,
:mod:`.deadletter`). A transport over a real queue manager (IBM MQ) uses the contract only.

This package imports only :mod:`mqjms.mq` and :mod:`mqjms.logs`.
"""

from typing import TYPE_CHECKING

from mqjms._lazy import exports

if TYPE_CHECKING:
    from .capabilities import Capability
    from .contract import (
        DEFAULT_DYNAMIC_NAME,
        BacksOutAndGets,
        Browse,
        CommitsAndGets,
        Connection,
        Context,
        GetsIfPersistent,
        Handle,
        InterruptsWait,
        LocksMessages,
        PutFailed,
        Reserves,
        ResolvesPuts,
        SyncpointPut,
        TruncatedMessage,
        WarnsOnPut,
        backout_and_get,
        commit_and_get,
        interrupt_wait,
        put_and_commit,
        put_destination,
        put_warning,
    )
    from .wrapper import ConnectionWrapper

#: Where each public name lives; it is imported on first access (PEP 562).
_WHERE: dict[str, tuple[str, ...]] = {
    ".capabilities": ("Capability",),
    ".contract": (
        "DEFAULT_DYNAMIC_NAME",
        "BacksOutAndGets",
        "Browse",
        "CommitsAndGets",
        "Connection",
        "Context",
        "GetsIfPersistent",
        "Handle",
        "InterruptsWait",
        "LocksMessages",
        "PutFailed",
        "Reserves",
        "ResolvesPuts",
        "SyncpointPut",
        "TruncatedMessage",
        "WarnsOnPut",
        "backout_and_get",
        "commit_and_get",
        "interrupt_wait",
        "put_and_commit",
        "put_destination",
        "put_warning",
    ),
    ".wrapper": ("ConnectionWrapper",),
}

if not TYPE_CHECKING:
    __getattr__, __dir__ = exports(__name__, _WHERE)

__all__ = [
    "DEFAULT_DYNAMIC_NAME",
    "BacksOutAndGets",
    "Browse",
    "Capability",
    "CommitsAndGets",
    "Connection",
    "ConnectionWrapper",
    "Context",
    "GetsIfPersistent",
    "Handle",
    "InterruptsWait",
    "LocksMessages",
    "PutFailed",
    "Reserves",
    "ResolvesPuts",
    "SyncpointPut",
    "TruncatedMessage",
    "WarnsOnPut",
    "backout_and_get",
    "commit_and_get",
    "interrupt_wait",
    "put_and_commit",
    "put_destination",
    "put_warning",
]
