"""Queue depth and consumer counts from ActiveMQ's statistics plugin.

A STOMP broker has no MQINQ: CURDEPTH, IPPROCS and OPPROCS come from the
``statisticsBrokerPlugin`` (a request to ``/queue/ActiveMQ.Statistics.Destination.<q>``
answered on a temporary queue in jms-map-json). The subscriptions use the same figures
to tell an empty queue from a dispatch still on its way, and MQPUT to enforce MAXDEPTH.
"""

from __future__ import annotations

import json

from mqjms.mq import constants as C
from mqjms.mq.errors import failed
from mqjms.semantics.definitions import QueueDefinition
from mqjms.semantics.put import check_depth

from . import mapping
from .client import ConnectionLost
from .state import StompState

_STATS_PREFIX = "/queue/ActiveMQ.Statistics.Destination."
_STATS_TIMEOUT = 5.0
#: The plugin's figures under the names of the MQ status attributes they answer.
_STATUS_KEYS = {"CURDEPTH": "size", "IPPROCS": "consumerCount", "OPPROCS": "producerCount"}


class QueueStatistics(StompState):
    """The statistics plugin's figures for the queues of one connection."""

    def _queue_status(self, queue: str) -> dict[str, int]:
        """CURDEPTH (in-flight messages included), IPPROCS and OPPROCS of ``queue``."""
        stats = self._statistics(queue)
        return {name: int(stats.get(key, 0)) for name, key in _STATUS_KEYS.items()}

    def _statistics(self, queue: str) -> dict[str, int]:
        """The statistics plugin's figures for a queue (size = depth, in-flight included)."""
        for _ in range(2):
            try:
                return self._statistics_once(queue)
            except ConnectionLost:
                self._recover()
        raise failed(C.MQRC_CONNECTION_BROKEN, f"connection to {self.params.safe_url} lost")

    def _statistics_once(self, queue: str) -> dict[str, int]:
        client = self._live()
        destination = self.destination(queue)
        if destination not in self._known_destinations:
            # The plugin does not answer for a queue the broker has not created yet:
            # a consumer that matches nothing creates it (as an MQ queue exists when defined).
            sub = client.subscribe(destination, {"selector": "1 = 0"}, "auto")
            client.unsubscribe(sub)
            self._known_destinations.add(destination)
        if self._stats_sub is None:
            reply = f"/temp-queue/mqjms-stats-{client.new_id('q')}"
            self._stats_sub = client.subscribe(
                reply, {"transformation": "jms-map-json", "mqjms_reply": reply}, "auto"
            )
            self._stats_reply = reply
        client.send(
            _STATS_PREFIX + destination[len(mapping.QUEUE_PREFIX) :],
            {"reply-to": self._stats_reply},
            b"",
        )
        frame = client.take(self._stats_sub, _STATS_TIMEOUT)
        if frame is None:
            raise failed(
                C.MQRC_RESOURCE_PROBLEM,
                f"no statistics for {queue!r} from {self.params.safe_url} in "
                f"{_STATS_TIMEOUT:g} s: is <statisticsBrokerPlugin/> configured?",
            )
        return parse_statistics(frame.body)

    def _check_depth(self, base: QueueDefinition, destination: str) -> None:
        """MAXDEPTH, when configured: the broker's depth and this unit of work's puts."""
        try:
            depth = int(self._statistics_once(base.name).get("size", 0))
        except ConnectionLost:
            return  # the put finds out
        check_depth(base, depth + self._uow_puts.get(destination, 0))


def parse_statistics(body: bytes) -> dict[str, int]:
    """The numbers in a statistics-plugin reply (jms-map-json)."""
    try:
        entries = json.loads(body.decode("utf-8"))["map"]["entry"]
    except (ValueError, KeyError, TypeError) as exc:
        raise failed(C.MQRC_RESOURCE_PROBLEM, f"unreadable statistics reply: {exc}") from None
    out: dict[str, int] = {}
    for entry in entries:
        name = entry.get("string")
        if not isinstance(name, str):
            continue
        for kind in ("long", "int"):
            if kind in entry:
                out[name] = int(entry[kind])
    return out
