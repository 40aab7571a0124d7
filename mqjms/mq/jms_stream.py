"""The body of a JMS StreamMessage (``mcd.Msd`` ``jms_stream``) as IBM MQ classes for JMS
write it: an XML document of ``elt`` elements, one per value in order, typed by a
single-quoted ``dt`` with the same vocabulary as ``usr`` properties (strings carry none)::

    <stream><elt dt='i4'>42</elt><elt>TEA-GREEN</elt><elt dt='boolean'>1</elt></stream>
"""

from __future__ import annotations

from collections.abc import Sequence

from mqjms.mq import constants as C
from mqjms.mq.errors import MQFormatError
from mqjms.mq.jms import UserPropertyValue, property_element, property_value
from mqjms.mq.jms_map import body_root

StreamBody = list[UserPropertyValue]


def build_stream(values: Sequence[UserPropertyValue]) -> str:
    """The ``jms_stream`` body text for ``values`` (ValueError/TypeError for a bad one)."""
    parts = []
    for index, value in enumerate(values):
        # typed and escaped exactly as a usr property; its errors name the value's place
        try:
            parts.append(property_element("elt", value))
        except (TypeError, ValueError) as exc:
            detail = str(exc).replace("usr property 'elt'", f"StreamMessage value {index}")
            raise type(exc)(detail) from None
    return "<stream>" + "".join(parts) + "</stream>"


def parse_stream(text: str) -> StreamBody:
    """The values of a ``jms_stream`` body, in order (MQFormatError MQRC_JMS_FORMAT_ERROR
    if malformed)."""
    root = body_root(text, "jms_stream", "stream")
    values: StreamBody = []
    for element in root:
        if element.tag != "elt":
            raise MQFormatError(
                "jms_stream",
                f"stream.{element.tag}",
                0,
                "each value is <elt>",
                C.MQRC_JMS_FORMAT_ERROR,
            )
        values.append(property_value(element))
    return values
