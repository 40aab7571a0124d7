"""Reading the parameters of the PCF commands the administration answers (:mod:`.admin`
and its ``admin_*`` modules), one way for all of them: a string parameter as text, and
attribute parameters as the MQSC attributes the queue manager's administration takes."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from mqjms.logs import get_logger
from mqjms.mqi.constants import CMQCFC
from mqjms.semantics.attributes import Attr

log = get_logger("mqjms.mqi")

Params = Mapping[int, Any]
Response = dict[int, Any]
#: How a command reads an attribute's string value (bytes as the program packed them).
Decoder = Callable[[str | bytes | bytearray], str]


def text(value: Any, encoding: str = "latin-1", errors: str = "strict") -> str:
    """A string parameter as text: up to its first NUL, without the blanks MQ pads with."""
    if isinstance(value, bytes | bytearray):
        return bytes(value).split(b"\x00", 1)[0].decode(encoding, errors).strip()
    return str(value).strip()


def attributes_asked(params: Params, selector: int) -> set[int] | None:
    """The selectors an attribute-list parameter (MQIACF_TOPIC_ATTRS...) asks for; None:
    all of them (MQIACF_ALL among them, or the parameter absent or empty)."""
    asked = params.get(selector)
    listed = [asked] if isinstance(asked, int) else list(asked or [CMQCFC.MQIACF_ALL])
    return None if CMQCFC.MQIACF_ALL in listed else set(listed)


def mqsc_attrs(
    params: Params, table: Mapping[int, Attr], ignored: set[int], decode: Decoder = text
) -> dict[str, object]:
    """PCF attribute parameters (``table``: the attributes by selector; ``ignored``: the
    command's parameters that are none) as MQSC attributes: strings read by ``decode``,
    MQ's integer values as their MQSC keywords. Ones mqjms does not keep are logged."""
    out: dict[str, object] = {}
    for selector, value in params.items():
        if selector in ignored:
            continue
        attr = table.get(selector)
        if attr is None:
            log.warning("pcf.attribute_ignored", selector=selector, detail="not kept by mqjms")
            continue
        if isinstance(value, str | bytes | bytearray):
            out[attr.name] = decode(value)
            continue
        mqsc: object = value
        for mqsc_value, mq_value in attr.inquire_map:
            if mq_value == value:
                mqsc = mqsc_value
                break
        out[attr.name] = mqsc
    return out


__all__ = ["Decoder", "Params", "Response", "attributes_asked", "mqsc_attrs", "text"]
