"""Is the worker alive, and is it consuming? What a health check, an operator and a start
failure need to know, in one place.

* **live**: the worker runs and every consumer thread is alive (a consumer that is
  reconnecting is alive). Not live means: restart the process.
* **ready**: live, not stopping, and every consumer connected with its queue open, so
  messages are being consumed. A worker whose queue manager is down is live but not
  ready: it reconnects by itself (``worker.reconnecting``).

``mqjms run --metrics-port`` serves both over HTTP (``/healthz``, ``/readyz``) and
``--health-file`` keeps a file while ready (:mod:`.exporter`); docs/deployment.md shows
both in a systemd unit and a container.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError
from mqjms.semantics import Connection
from mqjms.transport.url import redact, scheme_of

log = get_logger("mqjms.listeners")


@dataclass(frozen=True, slots=True)
class Health:
    """The worker's health at one moment."""

    live: bool
    ready: bool
    running: bool
    stopping: bool
    consumers: int  # consumer threads started
    alive: int  # of those, still running
    connected: int  # of those, connected with the queue open
    error: str | None  # what stopped the worker, if a listener could not run

    @classmethod
    def of(
        cls,
        *,
        running: bool,
        stopping: bool,
        alive: int,
        connected: int,
        consumers: int,
        error: BaseException | None,
    ) -> Health:
        live = running and error is None and alive == consumers
        ready = live and not stopping and consumers > 0 and connected == consumers
        return cls(
            live=live,
            ready=ready,
            running=running,
            stopping=stopping,
            consumers=consumers,
            alive=alive,
            connected=connected,
            error=None if error is None else str(error),
        )

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}


def queue_depths(
    connect: Callable[[str, str | None], Connection],
    url: str,
    appl_name: str | None,
    queues: Sequence[str],
) -> dict[str, int]:
    """CURDEPTH of ``queues`` on a connection made for the purpose; the queues it could
    inquire (none when the queue manager cannot be reached)."""
    depths: dict[str, int] = {}
    try:
        conn = connect(url, appl_name)
    except MQError as exc:
        log.debug("worker.depth_unavailable", url=redact(url), reason=exc.reason_name)
        return depths
    try:
        for queue in queues:
            try:
                found = conn.inquire(queue, [C.MQIA_CURRENT_Q_DEPTH])
            except MQError as exc:
                log.debug("worker.depth_unavailable", queue=queue, reason=exc.reason_name)
                continue
            value = found.get(C.MQIA_CURRENT_Q_DEPTH)
            if isinstance(value, int):
                depths[queue] = value
    finally:
        with contextlib.suppress(MQError):
            conn.disconnect()
    return depths


def start_error(exc: BaseException, queue: str, url: str) -> BaseException:
    """What stopped a worker from starting, said so that it can be fixed: a queue that is
    not defined names the queue, the (redacted) URL and the definition to make."""
    if not isinstance(exc, MQError) or exc.reason != C.MQRC_UNKNOWN_OBJECT_NAME or not queue:
        return exc
    shown = redact(url)
    try:
        scheme = scheme_of(url)
    except ValueError:
        scheme = ""
    if scheme == "embedded":
        fix = f'define it: echo "DEFINE QLOCAL({queue})" | mqjms mqsc --url {shown}'
    elif scheme.startswith("stomp"):
        fix = (
            f'define it in the STOMP configuration ([queues."{queue}"] in the config=FILE, '
            "or a profile), or leave strict off"
        )
    else:
        fix = f"define it on the queue manager: DEFINE QLOCAL({queue})"
    detail = f"listener queue {queue!r} is not defined on {shown} ({exc.detail}): {fix}"
    return MQError(exc.comp, exc.reason, detail)
