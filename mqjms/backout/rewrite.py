"""How a poison message is rewritten before it is moved to the backout queue (seed 002).

To the backout queue: an RFH2 is added when the message has none, carrying the original
CodedCharSetId and Encoding so the header chain stays correct, and the MQMD gets Format
MQHRF2, CodedCharSetId 1208, Encoding 273. In every case BackoutCount is reset to 0 and
Expiry is the remaining expiry at the time the message was received (the MQGET already
returned it as remaining, and the queue it moves to keeps decrementing it: seed 000
note 7).

To the dead-letter queue it goes behind an MQDLH instead: see
:func:`mqjms.semantics.deadletter.dead_letter_message`.
"""

from __future__ import annotations

from mqjms.logs import get_logger
from mqjms.mq import jms, rfh2
from mqjms.mq.errors import MQError
from mqjms.mq.md import MQMD

log = get_logger("mqjms.backout")


def for_backout_queue(
    md: MQMD, data: bytes, properties: dict[str, str] | None = None
) -> tuple[MQMD, bytes]:
    """The MQMD and bytes to put to BOQNAME (seed 002: 'What happens to a message when it
    is moved to the backout queue'). ``properties`` are added to the ``usr`` folder."""
    out = md.copy(BackoutCount=0)
    if rfh2.is_rfh2(md.Format):
        if properties:
            try:
                data = _add_properties(md, data, properties)
            except (MQError, ValueError) as exc:
                # A malformed RFH2 is moved as it is: losing the reason beats losing the message.
                log.warning("backout.properties_not_added", msg_id=md.MsgId.hex(), error=str(exc))
        return out, data
    usr = jms.build_usr(properties or {})
    return rfh2.in_front(out, data, [usr] if usr else [])


def _add_properties(md: MQMD, data: bytes, properties: dict[str, str]) -> bytes:
    chain = rfh2.parse_chain(data, md.Encoding, md.CodedCharSetId, md.Format)
    headers = chain.headers
    for header in headers:
        text = header.folder("usr")
        if text is not None:
            index = header.folders.index(text)
            _, existing = jms.parse_jms_folders([text])
            existing.update(properties)
            header.folders[index] = jms.build_usr(existing) or text
            break
    else:
        usr = jms.build_usr(properties)
        if usr:
            headers[0].folders.append(usr)
    return rfh2.build_chain(headers, chain.body, md.Encoding)
