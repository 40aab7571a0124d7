"""The body of a JMS MapMessage (``mcd.Msd`` ``jms_map``) as IBM MQ classes for JMS write it.

An XML document of ``elt`` elements, one per entry, named by a double-quoted ``name``
attribute and typed by a single-quoted ``dt`` with the same vocabulary as ``usr``
properties (strings carry none)::

    <map><elt name="count" dt='i4'>42</elt><elt name="sku">TEA-GREEN</elt></map>

Names may be any string (the standard encoding since WebSphere MQ 6), so they live in an
attribute, not in the element name.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from mqjms.mq import constants as C
from mqjms.mq.errors import MQFormatError
from mqjms.mq.jms import UserPropertyValue, property_element, property_value
from mqjms.mq.rfh2 import parse_folder

if TYPE_CHECKING:
    import xml.etree.ElementTree as ET

MapBody = dict[str, UserPropertyValue]


def build_map(entries: Mapping[str, UserPropertyValue]) -> str:
    """The ``jms_map`` body text for ``entries`` (ValueError/TypeError for a bad one)."""
    parts = []
    for name, value in entries.items():
        if not isinstance(name, str):
            raise TypeError(f"a MapMessage name must be str, not {type(name).__name__}")
        # property_element types and escapes the value exactly as the usr folder does;
        # its errors name the element, so they are said again of the map entry
        try:
            element = property_element("elt", value)
        except (TypeError, ValueError) as exc:
            detail = str(exc).replace("usr property 'elt'", f"MapMessage entry {name!r}")
            raise type(exc)(detail) from None
        parts.append(f"<elt name={_attribute(name)}{element[len('<elt') :]}")
    return "<map>" + "".join(parts) + "</map>"


def _attribute(name: str) -> str:
    # imported here: xml.sax.saxutils loads urllib.request (http, email, ssl) with it
    from xml.sax.saxutils import quoteattr

    quoted = quoteattr(name)
    if quoted.startswith("'"):  # IBM writes the name in double quotes
        quoted = '"' + quoted[1:-1].replace('"', "&quot;").replace("&apos;", "'") + '"'
    return quoted


def body_root(text: str, domain: str, tag: str) -> ET.Element:
    """The root element of a ``jms_map`` or ``jms_stream`` body, which must be ``tag``
    (MQFormatError MQRC_JMS_FORMAT_ERROR naming ``domain`` if not)."""
    try:
        root = parse_folder(text.strip())
    except ValueError as exc:
        raise MQFormatError(domain, "body", 0, str(exc), C.MQRC_JMS_FORMAT_ERROR) from None
    if root.tag != tag:
        raise MQFormatError(
            domain, "body", 0, f"root element <{root.tag}>, not <{tag}>", C.MQRC_JMS_FORMAT_ERROR
        )
    return root


def parse_map(text: str) -> MapBody:
    """The entries of a ``jms_map`` body (MQFormatError MQRC_JMS_FORMAT_ERROR if malformed)."""
    root = body_root(text, "jms_map", "map")
    entries: MapBody = {}
    for element in root:
        name = element.get("name")
        if element.tag != "elt" or name is None:
            raise MQFormatError(
                "jms_map",
                f"map.{element.tag}",
                0,
                'each entry is <elt name="...">',
                C.MQRC_JMS_FORMAT_ERROR,
            )
        entries[name] = property_value(element)
    return entries
