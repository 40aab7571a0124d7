"""ibmmq's option classes outside the MQI structures: ``EncodingDefault`` (the CCSID and
codecs it starts with) and ``OTelOptions`` (what a get does with OpenTelemetry context).

ibmmq reads EncodingDefault only for default argument values, once, when it is imported,
so a program that changes it later changes nothing there either. OTelOptions is accepted
wherever ibmmq takes ``otel_options=``; mqjms propagates no OpenTelemetry context, as
ibmmq does not without the OpenTelemetry packages.
"""

from __future__ import annotations

from typing import Any


class EncodingDefault:
    """The defaults ibmmq starts with: CCSID 1208, UTF-8 bodies, ASCII MQCHAR fields."""

    ccsid = 1208
    bytes_encoding = "utf8"
    mqi_encoding = "ascii"


class OTelOptions:
    """``OTelOptions(remove_rfh2=True)``: drop an RFH2 that only carried trace context."""

    def __init__(self, **kwargs: Any) -> None:
        self.remove_rfh2 = kwargs.get("remove_rfh2", False)
