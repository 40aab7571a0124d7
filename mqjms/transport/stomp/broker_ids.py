"""The broker's message ids of the requests mqjms sends, so that JMS replies find them.

A Java responder answers a request the standard JMS way: the reply's JMSCorrelationID is
the request's JMSMessageID, which is the id the *broker* gave the request. mqjms knows
its request by its MsgId (``mqjms_msg_id``), and STOMP never tells a sender the broker's
id. ActiveMQ numbers it predictably, though: every SEND on a STOMP connection gets
``<session>:-1:1:<n>``, where ``session`` is the CONNECTED frame's header and ``n`` counts
that connection's SENDs from 1 (a SEND in a transaction that is later aborted counts
too). The client counts its SENDs (:meth:`~.client.StompClient.send`), and the connection
records the id of each request it puts here, with its MsgId; a reply whose
``correlation-id`` is such an id gets the request's MsgId as CorrelId, so
``reply.jms_correlation_id == request.jms_message_id`` holds, and an MQGET matching that
CorrelId finds the reply too.

The record is per process and bounded (the most recent requests): a requester that
restarts before its reply arrives sees the broker's id as the correlation id instead.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

CAPACITY = 100_000


def predicted_id(session: str, sends: int) -> str:
    """The message-id ActiveMQ gives the ``sends``-th SEND of the STOMP connection whose
    CONNECTED frame said ``session``."""
    return f"{session}:-1:1:{sends}"


class BrokerIds:
    """broker message-id <-> MsgId of requests this process sent. Thread-safe."""

    def __init__(self, capacity: int = CAPACITY) -> None:
        self.capacity = capacity
        self._lock = threading.Lock()
        self._msg_ids: OrderedDict[str, bytes] = OrderedDict()
        self._broker_ids: dict[bytes, str] = {}

    def remember(self, broker_id: str, msg_id: bytes) -> None:
        with self._lock:
            self._msg_ids[broker_id] = msg_id
            self._broker_ids[msg_id] = broker_id
            while len(self._msg_ids) > self.capacity:
                _, old = self._msg_ids.popitem(last=False)
                self._broker_ids.pop(old, None)

    def msg_id(self, broker_id: str) -> bytes | None:
        """The MsgId of the request the broker knows as ``broker_id``, if we sent it."""
        if not self._msg_ids:
            return None
        with self._lock:
            return self._msg_ids.get(broker_id)

    def broker_id(self, msg_id: bytes) -> str | None:
        """The broker's id of the request with MsgId ``msg_id``, if we sent it."""
        if not self._broker_ids:
            return None
        with self._lock:
            return self._broker_ids.get(msg_id)


#: The process's record (every connection's requests: replies arrive on any of them).
requests = BrokerIds()
