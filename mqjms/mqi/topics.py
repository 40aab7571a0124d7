"""Topic and Subscription: publish/subscribe is not supported by the drop-in yet.

Creating either raises the flavour's MQMIError with MQRC_FUNCTION_NOT_SUPPORTED (2298) and
a sentence saying so, rather than an AttributeError, so that a program that catches
MQMIError reports it as it would any MQ failure.

The seam: publish/subscribe is landing in the transport contract (branch ps1-pubsub,
``mqjms.semantics.pubsub.Subscribes``, declared by ``Capability.PUBLISH_SUBSCRIBE``),
shaped 1:1 on the MQI. Once it is on main, ``Topic(qmgr, topic_name=, topic_string=)``
and ``Topic.open``/``pub`` map onto ``open_topic`` and a put to its handle;
``Subscription.sub`` onto ``subscribe`` (MQSD fields from the flavour's ``SD``) with
``get`` from ``Subscription.handle`` through :mod:`.getting` (so seed 002 screens a
managed queue as any other); ``Subscription.close(sub_close_options=)`` onto
``close_subscription(remove=...)``. Only these two classes change.
"""

from __future__ import annotations

from typing import Any, ClassVar

from mqjms.mq import constants as C

from .flavour import Flavour

DETAIL = "publish/subscribe (Topic, Subscription) is not supported by mqjms's drop-in yet"


class Topic:
    """pymqi's and ibmmq's ``Topic``: not supported (2298)."""

    FLAVOUR: ClassVar[Flavour]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise self.FLAVOUR.MQMIError(C.MQCC_FAILED, C.MQRC_FUNCTION_NOT_SUPPORTED, detail=DETAIL)


class Subscription:
    """pymqi's and ibmmq's ``Subscription``: not supported (2298)."""

    FLAVOUR: ClassVar[Flavour]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise self.FLAVOUR.MQMIError(C.MQCC_FAILED, C.MQRC_FUNCTION_NOT_SUPPORTED, detail=DETAIL)
