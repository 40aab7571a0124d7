"""MQINQ: selectors answered from a queue definition or the queue manager's attributes.

One table (:mod:`.attributes`) maps MQIA_*/MQCA_* selectors to MQSC attributes; this module
answers an inquiry from it over any :class:`~.definitions.QueueDefinition`, so every
emulating transport answers alike: 2067 for a selector MQ does not know, 2068 for one
that does not apply to the queue's type, MQSC values turned into MQINQ values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from mqjms.mq import constants as C
from mqjms.mq.errors import failed

from .attributes import (
    LOCAL,
    QMGR_ATTR_BY_SELECTOR,
    QTYPE_CODES,
    QUEUE_ATTR_BY_SELECTOR,
    inquire_value,
)
from .definitions import AttrValue, QueueDefinition

#: The read-only status attributes (CURDEPTH, IPPROCS, OPPROCS) of a local queue, asked
#: for only when a selector needs one (it may cost a round trip).
Status = Callable[[], Mapping[str, int]]

_DEFINITION_TYPES = {
    None: C.MQQDT_PREDEFINED,
    "TEMPDYN": C.MQQDT_TEMPORARY_DYNAMIC,
    "PERMDYN": C.MQQDT_PERMANENT_DYNAMIC,
}


def inquire_queue(
    queue: QueueDefinition,
    selectors: Sequence[int],
    status: Status,
    *,
    dynamic: str | None = None,
) -> dict[int, int | str]:
    """MQINQ on ``queue``. ``dynamic`` is TEMPDYN or PERMDYN for a dynamic queue."""
    out: dict[int, int | str] = {}
    current: Mapping[str, int] | None = None
    for selector in selectors:
        if selector == C.MQIA_Q_TYPE:
            out[selector] = QTYPE_CODES[queue.qtype]
        elif selector == C.MQCA_Q_NAME:
            out[selector] = queue.name
        elif selector == C.MQIA_DEFINITION_TYPE and queue.qtype == LOCAL:
            out[selector] = _DEFINITION_TYPES[dynamic]
        else:
            attr = QUEUE_ATTR_BY_SELECTOR.get(selector)
            if attr is None:
                raise failed(C.MQRC_SELECTOR_ERROR, f"selector {selector} is not known")
            if queue.qtype not in attr.types:
                raise failed(
                    C.MQRC_SELECTOR_NOT_FOR_TYPE,
                    f"{attr.name} (selector {selector}) does not apply to "
                    f"{queue.qtype} {queue.name!r}",
                )
            if attr.readonly:
                if current is None:
                    current = status()
                value: AttrValue = int(current.get(attr.name, 0))
            else:
                value = queue.attrs.get(attr.name, attr.default)
            out[selector] = inquire_value(attr, value)
    return out


def inquire_qmgr(
    qmgr_name: str, attrs: Mapping[str, AttrValue], selectors: Sequence[int]
) -> dict[int, int | str]:
    """MQINQ on the queue manager; attributes not in ``attrs`` have MQ's defaults."""
    out: dict[int, int | str] = {}
    for selector in selectors:
        if selector == C.MQCA_Q_MGR_NAME:
            out[selector] = qmgr_name
            continue
        attr = QMGR_ATTR_BY_SELECTOR.get(selector)
        if attr is None:
            raise failed(
                C.MQRC_SELECTOR_ERROR, f"selector {selector} is not a queue manager attribute"
            )
        out[selector] = inquire_value(attr, attrs.get(attr.name, attr.default))
    return out
