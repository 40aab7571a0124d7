"""Topic and Subscription: publish/subscribe is not supported by the drop-in yet.

Creating either raises the flavour's MQMIError with MQRC_FUNCTION_NOT_SUPPORTED (2298) and
a sentence saying so, rather than an AttributeError, so that a program that catches
MQMIError reports it as it would any MQ failure. (Publish/subscribe is the next issue on
every transport; these classes then take their place.)
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
