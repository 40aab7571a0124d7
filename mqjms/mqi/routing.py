"""Where a pymqi or ibmmq program's connections go, whatever it names.

Programs name a queue manager, a channel, a host and port, a CCDT and credentials; on
mqjms every one of those is accepted and none decides where the connection goes: the
transport URL does. A queue manager name listed in :func:`configure`'s ``qmgrs`` goes to
its own URL; every other name goes to the ``url`` given to :func:`configure`, else to
``MQJMS_URL``. With neither, connecting fails with a reason that says what to set (the
drop-in never falls back to a directory of its own choosing: a program that meant to
reach IBM MQ must not quietly run against an empty local queue manager).

``embedded:`` URLs name the queue manager they create with ``?qmgr=QM1``, so that
``MQCA_Q_MGR_NAME`` and ReplyToQMgr read as the program expects.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import failed
from mqjms.transport.url import ENV_VAR, redact

log = get_logger("mqjms.mqi")


class PoisonMode:
    """How a destructive get treats a poison message (see :mod:`.screening`)."""

    OFF = "off"  # no screening: IBM MQ's own behaviour, the message is delivered
    HYBRID = "hybrid"  # a move joins the caller's unit of work only when it holds work
    JMS = "jms"  # IBM MQ classes for JMS exactly: a move stays in the caller's unit of work


@dataclass(frozen=True)
class Routes:
    """What :func:`configure` said: the default URL, per-name URLs and the poison mode."""

    url: str | None = None
    qmgrs: Mapping[str, str] = field(default_factory=dict)
    poison: str = PoisonMode.HYBRID

    def url_for(self, qmgr_name: str) -> str:
        """The transport URL for a connection to ``qmgr_name`` (as the program named it).
        ``*QM1`` (any queue manager of the CCDT's group QM1) goes where ``QM1`` does unless
        it is listed itself."""
        name = qmgr_name.strip()
        found = (
            self.qmgrs.get(name)
            or (name.startswith("*") and self.qmgrs.get(name[1:]))
            or self.url
            or os.environ.get(ENV_VAR)
        )
        if found:
            return found
        error = failed(
            C.MQRC_Q_MGR_NOT_AVAILABLE,
            f"no transport URL for queue manager {name or '(default)'!r}: set {ENV_VAR} "
            "(e.g. MQJMS_URL=embedded:///tmp/qm1?qmgr=QM1 or stomp://localhost:61613) or "
            "call configure(url=...) before connecting",
        )
        log.warning("mqi.no_url", qmgr=name, detail=error.detail)  # str(e) will not say
        raise error


_routes = Routes()
_lock = threading.Lock()

_POISON_MODES = {
    False: PoisonMode.OFF,
    True: PoisonMode.HYBRID,
    PoisonMode.OFF: PoisonMode.OFF,
    PoisonMode.HYBRID: PoisonMode.HYBRID,
    PoisonMode.JMS: PoisonMode.JMS,
}


def configure(
    url: str | None = None,
    qmgrs: Mapping[str, str] | None = None,
    *,
    poison: bool | str | None = None,
) -> Routes:
    """Route this process's connections: ``url`` for every queue manager name, ``qmgrs``
    for the names listed (``{"QM1": "embedded:///var/mqjms/qm1?qmgr=QM1"}``); a value not
    given keeps what was configured. ``poison``: True (the default, the drop-in's rule),
    ``"jms"`` (IBM MQ classes for JMS exactly) or False (off: messages are delivered
    whatever their BackoutCount, as plain IBM MQ does). Returns the routes now in force."""
    global _routes
    if poison is not None and poison not in _POISON_MODES:
        raise ValueError(f"poison={poison!r}: give True, False or 'jms'")
    with _lock:
        changes: dict[str, object] = {}
        if url is not None:
            changes["url"] = url or None
        if qmgrs is not None:
            changes["qmgrs"] = {name.strip(): target for name, target in qmgrs.items()}
        if poison is not None:
            changes["poison"] = _POISON_MODES[poison]
        _routes = replace(_routes, **changes)  # type: ignore[arg-type]
        return _routes


def reset() -> None:
    """Forget what :func:`configure` said (``MQJMS_URL`` alone decides again)."""
    global _routes
    with _lock:
        _routes = Routes()


def routes() -> Routes:
    """The routes in force."""
    return _routes


def describe(url: str) -> str:
    """A URL as it may appear in a log line or an error (no password)."""
    return redact(url)


__all__ = ["PoisonMode", "Routes", "configure", "describe", "reset", "routes"]
