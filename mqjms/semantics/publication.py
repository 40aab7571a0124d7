"""What a copy of a publication carries for a subscriber that reads message properties
(IBM MQ classes for JMS): the topic string it was published on, MQTopicString, which IBM
MQ gives every publication and the JMS client reads JMSDestination from. A publication
that came without an RFH2 (a program that is not JMS, ``mqjms publish``) is given one,
with the ``mqps`` folder holding it; every transport makes the same copy."""

from __future__ import annotations

from mqjms.mq import constants as C
from mqjms.mq import jms, rfh2
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
