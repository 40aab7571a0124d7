"""What a copy of a publication carries for a subscriber that reads message properties
(IBM MQ classes for JMS): the topic string it was published on, MQTopicString, which IBM
MQ gives every publication and the JMS client reads JMSDestination from. A publication
that came without an RFH2 (a program that is not JMS, ``mqjms publish``) is given one,
with the ``mqps`` folder holding it; every transport makes the same copy.

A retained publication sent to a subscription (when it is made, or on MQSUBRQ) carries
MQIsRetained (``mqps`` ``Ret``) whoever subscribed: :func:`as_retained`."""

from __future__ import annotations

from dataclasses import replace

from mqjms.mq import constants as C
from mqjms.mq import jms, rfh2
from mqjms.mq.errors import MQError
from mqjms.mq.md import MQMD


def with_topic_string(md: MQMD, data: bytes, topic_string: str) -> tuple[MQMD, bytes]:
    """The copy of ``md``/``data`` for a subscriber that reads properties: unchanged when
    it has an RFH2 already (a JMS publisher's names its destination), else an RFH2 with
    the topic string before the body (the body's Format, CCSID and Encoding in it)."""
    if md.Format == C.MQFMT_RF_HEADER_2:
        return md, data
    try:
        folder = jms.build_mqps(topic_string)
    except ValueError:  # a character XML cannot carry: the copy goes as it was published
        return md, data
    return rfh2.in_front(md, data, [folder])


def as_retained(md: MQMD, data: bytes, topic_string: str) -> tuple[MQMD, bytes]:
    """The copy of a retained publication, marked MQIsRetained: without an RFH2 it gets
    one with the ``mqps`` folder (topic string and ``Ret``); with one, ``Ret`` joins the
    first header's ``mqps`` folder (made if it has none). An RFH2 that does not parse, or
    a topic string XML cannot carry, leaves the copy unmarked: it is delivered as it was
    published rather than not at all."""
    try:
        if md.Format != C.MQFMT_RF_HEADER_2:
            return rfh2.in_front(md, data, [jms.build_mqps(topic_string, retained=True)])
        chain = rfh2.parse_chain(data, md.Encoding, md.CodedCharSetId, md.Format)
        first = chain.headers[0]
        folders = list(first.folders)
        at = next((i for i, f in enumerate(folders) if rfh2.folder_name(f) == "mqps"), None)
        if at is None:
            folders.append(jms.build_mqps(topic_string, retained=True))
        elif "<Ret" not in folders[at]:
            folders[at] = folders[at].replace("</mqps>", jms.RETAINED_ELEMENT + "</mqps>")
        headers = [replace(first, folders=folders), *chain.headers[1:]]
        return md.copy(), rfh2.build_chain(headers, chain.body, md.Encoding)
    except (MQError, ValueError):
        return md, data
