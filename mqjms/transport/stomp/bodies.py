"""Java MapMessages and ObjectMessages, which ActiveMQ gives a STOMP client with no body.

Over STOMP, ActiveMQ sends a MapMessage or ObjectMessage as an empty frame that looks
exactly like an empty TextMessage, unless the subscription asks for a transformation.
A transformation cannot be asked for on the transport's own subscriptions: for an
ObjectMessage the broker then deserialises the object, and when it cannot (a class it
does not trust or does not have) it closes the connection, again at every redelivery, so
one such message would stop a consumer for ever.

So an empty frame from another client (no ``content-length``: not a BytesMessage) is
*probed*: a connection of its own browses exactly that message (a selector on its
JMSMessageID) with the ``jms-xml`` transformation, which tells the three apart:

* a MapMessage comes back as ActiveMQ's XStream XML (``transformation:jms-map-xml``),
  turned here into typed entries. XML, not ``jms-map-json``: the JSON form loses the
  types (the string ``"123"`` becomes the number 123, ``"true"`` a boolean);
* an ObjectMessage comes back as the object's XStream XML (``jms-object-xml``) when the
  broker can deserialise it; when it cannot, it closes the probe's connection: the
  message is an ObjectMessage whose object cannot be read over STOMP;
* an empty TextMessage comes back unchanged.

The probe costs a connection, and only empty frames from other clients need one.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import xml.etree.ElementTree as ET
from dataclasses import dataclass

from mqjms.logs import get_logger
from mqjms.mq.jms import UserPropertyValue

from .client import BrokerError, ConnectionLost, Frame, StompClient
from .config import StompParams

log = get_logger("mqjms.transport.stomp")

PROBE_TIMEOUT = 5.0  # seconds for the probe's browse to show the message
MAP = "map"
OBJECT = "object"
TEXT = "text"

_INTEGERS = frozenset({"int", "long", "short", "byte"})
_FLOATS = frozenset({"double", "float"})


@dataclass(frozen=True, slots=True)
class Converted:
    """What a probe found an empty frame to be."""

    kind: str  # MAP, OBJECT or TEXT
    entries: dict[str, UserPropertyValue] | None = None  # a MapMessage's
    text: str | None = None  # an ObjectMessage's XStream XML, when the broker could make it
    problem: str | None = None  # why an ObjectMessage cannot be read


def needs_probe(headers: dict[str, str], body: bytes) -> bool:
    """A frame from another client that may be a MapMessage or an ObjectMessage."""
    return (
        not body
        and "content-length" not in headers
        and "message-id" in headers
        and "mqjms_msg_id" not in headers
    )


def converted(params: StompParams, frame: Frame) -> Converted | None:
    """What an empty frame from another client is (probed once, then kept with the
    frame); None for any other frame."""
    if frame.converted is None and needs_probe(frame.headers, frame.body):
        frame.converted = probe(params, frame.headers.get("destination", ""), frame.message_id)
    found: Converted | None = frame.converted
    return found


def probe(params: StompParams, destination: str, message_id: str) -> Converted:
    """Browse ``message_id`` on ``destination`` with the ``jms-xml`` transformation, on a
    connection of its own (the broker may close it: see the module doc)."""
    try:
        client = StompClient(params)
    except ConnectionLost as exc:
        log.warning("stomp.probe_failed", destination=destination, error=str(exc))
        return Converted(TEXT)
    client.loss_expected = True
    selector = "JMSMessageID = '" + message_id.replace("'", "''") + "'"
    headers = {"browser": "true", "selector": selector, "transformation": "jms-xml"}
    try:
        sub = client.subscribe(destination, headers, "auto")
        frame = client.take(sub, PROBE_TIMEOUT)
    except ConnectionLost:
        problem = (
            "a Java ObjectMessage whose object the broker cannot deserialise (its class is "
            "not trusted, or not on the broker's class path), so it cannot be read over STOMP"
        )
        log.warning("stomp.object_unreadable", destination=destination, message_id=message_id)
        return Converted(OBJECT, problem=problem)
    except BrokerError as exc:
        log.warning("stomp.probe_failed", destination=destination, error=str(exc))
        return Converted(TEXT)
    finally:
        with contextlib.suppress(Exception):
            client.disconnect()
    if frame is None or frame.headers.get("browser") == "end":
        return Converted(TEXT)  # gone meanwhile: nothing to tell
    kind = frame.headers.get("transformation", "")
    text = frame.body.decode("utf-8", "replace")
    if kind == "jms-map-xml":
        try:
            return Converted(MAP, entries=map_entries(text))
        except ValueError as exc:
            log.warning("stomp.map_unreadable", destination=destination, error=str(exc))
            return Converted(OBJECT, problem=f"a MapMessage whose XML cannot be read: {exc}")
    if kind == "jms-object-xml":
        return Converted(OBJECT, text=text)
    return Converted(TEXT)


def map_entries(xml: str) -> dict[str, UserPropertyValue]:
    """The entries of a MapMessage in ActiveMQ's XStream XML (``jms-map-xml``):
    ``<map><entry><string>name</string><int>1</int></entry>...</map>``."""
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as exc:
        raise ValueError(f"not XML: {exc}") from None
    entries: dict[str, UserPropertyValue] = {}
    for entry in root:
        if entry.tag != "entry" or len(entry) != 2:
            raise ValueError(f"<{entry.tag}> with {len(entry)} children is not a map entry")
        key, value = entry
        entries[key.text or ""] = _value(value)
    return entries


def _value(element: ET.Element) -> UserPropertyValue:
    text = element.text or ""
    kind = element.tag
    if kind in ("string", "char"):
        return text
    if kind in _INTEGERS or kind in _FLOATS:
        try:
            return int(text) if kind in _INTEGERS else float(text)
        except ValueError:
            raise ValueError(f"<{kind}>{text[:40]}</{kind}> is not a number") from None
    if kind == "boolean":
        return text.strip() == "true"
    if kind == "byte-array":
        try:
            return base64.b64decode(text, validate=False)
        except binascii.Error:
            raise ValueError("<byte-array> is not base64") from None
    if kind == "null":
        return None
    raise ValueError(f"a map value of type <{kind}>")
