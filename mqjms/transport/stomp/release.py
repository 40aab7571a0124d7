"""Giving back what a subscription holds unseen, without counting it as a backout.

A prefetch-1 subscription may hold one message that no get has returned. When it ends,
the broker takes that message back marked ``redelivered``, and a consumer in any process
would count a backout that never happened: a cron-style consumer run BOTHRESH times
would move an untouched message to the backout queue.

At MQCLOSE and MQDISC (:func:`give_back`) a *catcher* subscribes before the UNSUBSCRIBE:
a selector naming exactly the held messages and the highest consumer priority
(``activemq.priority:127``), so the broker dispatches them to it, not to another
consumer, when they come back. The catcher acknowledges each and sends a copy with the
BackoutCount it had, in one transaction, and ends (:meth:`StompClient.release`). Nothing
else can reach it, and nothing is acknowledged on the old subscription (which would let
the broker dispatch it one more message first). The copy goes to the back of the queue.

While the handle stays open (an idle handle giving its message back, the extra
subscriptions of a unit of work) the message goes back in its place, marked; the
connection remembers it (this process does not count it) and, at MQCLOSE/MQDISC,
requeues the ones still on the queue with their count (:func:`catch_back`). Another
process that gets one first counts it once.

A subscription that held nothing may still have a message on its way; the connection
waits for it first (``StompConnection._settle``). One that arrives anyway is caught
after the UNSUBSCRIBE, unless another consumer gets it first.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Sequence

from mqjms.logs import get_logger
from mqjms.semantics.publication import with_topic_string

from . import bodies, mapping
from .client import Frame, Replacement, StompClient
from .config import StompParams

log = get_logger("mqjms.transport.stomp")

_CATCH_TIMEOUT = 2.0  # seconds to catch a returned message (another consumer may win)
_CATCH_BACK_TIMEOUT = 0.5  # the same for one seen on the queue by a browse just now
_RETURNED_MAX = 100_000
_TOP_PRIORITY = "127"  # ActiveMQ's highest consumer priority


def copy_of(
    frame: Frame,
    count: int,
    prefix: str,
    params: StompParams,
    *,
    msg_id: bytes | None = None,
    topic_string: str | None = None,
) -> tuple[dict[str, str], bytes]:
    """A frame's message as a new SEND with BackoutCount ``count``: every MQMD field,
    MsgId (or ``msg_id``: a publication's copy has its own) and the absolute expiry kept
    (a Java MapMessage's entries too: see .bodies). ``topic_string``: a publication's, for
    a subscriber that reads it (see :mod:`mqjms.semantics.publication`)."""
    converted = bodies.converted(params, frame)
    md, data = mapping.from_frame(frame.headers, frame.body, prefix=prefix, converted=converted)
    if topic_string is not None:
        md, data = with_topic_string(md, data, topic_string)
    md.BackoutCount = count
    if msg_id is not None:
        md.MsgId = msg_id
    headers, body = mapping.to_frame(md, data, prefix=prefix)
    expires = frame.headers.get("expires", "0")
    if expires not in ("", "0"):
        headers["expires"] = expires
    else:
        headers.pop("expires", None)
    return headers, body


def give_back(client: StompClient, sub: str, prefix: str) -> int:
    """End ``sub``; every message it holds unseen stays on its queue with the
    BackoutCount it had. Returns how many it held."""
    held = client.held(sub)
    if not held:
        left = client.unsubscribe(sub)
        if left:
            note_returned(left)
            _requeue(client, _catcher(client, left), left, prefix)
        return 0
    note_returned(held)
    catcher = _catcher(client, held)  # subscribed first: the broker's order is ours
    left = client.unsubscribe(sub)
    _requeue(client, catcher, held, prefix)
    if left:  # cannot happen with a full prefetch-1 window; caught late if it does
        note_returned(left)
        _requeue(client, _catcher(client, left), left, prefix)
    return len(held)


def catch_back(client: StompClient, destination: str, ids: Sequence[str], prefix: str) -> int:
    """Messages given back in place earlier (marked redelivered, remembered by id): those
    still on ``destination`` are requeued with the count they had. A browse tells which
    are there; a catcher takes them. Returns how many were requeued."""
    selector = "JMSMessageID IN (" + ", ".join(_quoted(i) for i in ids) + ")"
    browser = client.subscribe(destination, {"browser": "true", "selector": selector}, "auto")
    present: list[Frame] = []
    try:
        while (frame := client.take(browser, _CATCH_TIMEOUT)) is not None:
            if frame.headers.get("browser") == "end":
                break
            present.append(frame)
    finally:
        client.unsubscribe(browser)
    if not present:
        return 0
    return _requeue(client, _catcher(client, present), present, prefix, _CATCH_BACK_TIMEOUT)


def _quoted(message_id: str) -> str:
    return "'" + message_id.replace("'", "''") + "'"


def _catcher(client: StompClient, frames: Sequence[Frame]) -> str:
    ids = ", ".join(_quoted(f.message_id) for f in frames)
    headers = {
        "selector": f"JMSMessageID IN ({ids})",
        "activemq.prefetchSize": str(len(frames)),
        "activemq.priority": _TOP_PRIORITY,
    }
    return client.subscribe(frames[0].headers.get("destination", ""), headers, "client-individual")


def _requeue(
    client: StompClient,
    catcher: str,
    frames: Sequence[Frame],
    prefix: str,
    timeout: float = _CATCH_TIMEOUT,
) -> int:
    """Take ``frames`` back on ``catcher`` and requeue each with the count it had."""
    by_id = {f.message_id: f for f in frames}
    got: list[Frame] = []
    deadline = time.monotonic() + timeout
    try:
        while len(got) < len(by_id):
            frame = client.take(catcher, max(0.0, deadline - time.monotonic()))
            if frame is None:
                break  # another consumer has it: it counts one delivery there
            if frame.message_id in by_id:
                got.append(frame)
    finally:
        replacements: list[Replacement] = []
        for frame in got:
            count = count_of(by_id[frame.message_id], prefix)
            headers, body = copy_of(frame, count, prefix, client.params)
            replacements.append((frame.ack_id, frame.headers.get("destination", ""), headers, body))
        client.release(catcher, replacements)
    log.debug(
        "stomp.given_back",
        messages=len(got),
        missed=len(by_id) - len(got),
        destination=frames[0].headers.get("destination"),
    )
    return len(got)


def count_of(frame: Frame, prefix: str) -> int:
    """The BackoutCount a frame's message has: its header's, + 1 when the broker
    redelivers it after a failure (not when this process returned it unseen)."""
    headers = frame.headers
    count = 0
    if mapping.H_BACKOUT in headers and headers.get(mapping.H_DIGEST) == mapping.digest(
        headers, frame.body
    ):  # another client's message, or a changed copy, has no count of ours
        count = int(headers[mapping.H_BACKOUT])
    return count + 1 if was_redelivered(frame) else count


# message-id -> whether it had been redelivered before: messages this process returned
# to their queue unseen (dispatched to a subscription that was then closed).
_returned: OrderedDict[str, bool] = OrderedDict()
_returned_lock = threading.Lock()


def note_returned(frames: Sequence[Frame]) -> None:
    with _returned_lock:
        for frame in frames:
            if frame.message_id and frame.message_id not in _returned:
                # returned again before anyone got it: what it was at first still holds
                _returned[frame.message_id] = frame.headers.get("redelivered") == "true"
        while len(_returned) > _RETURNED_MAX:
            _returned.popitem(last=False)


def returned_peek(message_id: str) -> bool:
    """For a browse: True unless the message was returned unseen (then: as it was)."""
    with _returned_lock:
        return _returned.get(message_id, True)


def was_redelivered(frame: Frame) -> bool:
    """Whether the broker redelivers this message after a failure (count + 1), telling
    apart the ones this process returned unseen."""
    if frame.headers.get("redelivered") != "true":
        return False
    with _returned_lock:
        before = _returned.pop(frame.message_id, None)
    return True if before is None else before
