"""Handing a got message to the program: its properties (:mod:`.properties`),
MQGMO_CONVERT (:mod:`.conversion`), truncation to the program's buffer, and the output
fields of its MQMD and MQGMO, written only with a message to return (:mod:`.fields`).
MQGET's truncation warnings are :class:`Truncated`, carrying the data that fit."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from mqjms.mq import constants as C
from mqjms.mq.errors import MQError
from mqjms.mq.gmo import MQGMO
from mqjms.mq.md import MQMD
from mqjms.mqi.constants import CMQC
from mqjms.semantics import TruncatedMessage

from . import browse_marks, conversion, fields, properties
from .get_request import Request
from .hconn import Hconn, Hobj

_GMO_SPECS = {spec.name: spec for spec in MQGMO.SPECS}


class Truncated(MQError):
    """MQGET's truncation warnings (2079 message taken, 2080 left), with the data that
    fit (``message``) and the message's ``original_length``, as both libraries raise."""

    def __init__(
        self,
        reason: int,
        message: bytes,
        original_length: int,
        detail: str,
        md: MQMD | None = None,
    ) -> None:
        super().__init__(C.MQCC_WARNING, reason, detail)
        self.message = message
        self.original_length = original_length
        self.md = md  # 2080: the MQMD MQ fills in though the message stays


@contextmanager
def too_long(obj: Hobj, md: Any, gmo: Any) -> Iterator[None]:
    """A message too long for the program's buffer (the transport's TruncatedMessage):
    MQ's 2080 warning, with the MQMD and MQGMO filled in as MQ does."""
    try:
        yield
    except TruncatedMessage as exc:
        if exc.md is not None:
            fields.round_trip(md)  # the whole MQMD as MQ returned it (a v1 MD's v2 fields too)
            fields.md_into(md, exc.md)
            gmo_into(gmo, obj, len(exc.data), exc.md.MsgFlags)
        raise Truncated(
            C.MQRC_TRUNCATED_MSG_FAILED, exc.data, exc.original_length, exc.detail, exc.md
        ) from None


def deliver(
    hconn: Hconn,
    obj: Hobj,
    ask: Request,
    md_opts: Any,
    gmo_opts: Any,
    md: MQMD,
    data: bytes,
    target: tuple[int, int],
) -> bytes:
    """Hand the message to the program: properties, conversion, truncation, and the
    output fields of its MQMD and MQGMO."""
    browse_marks.note(obj, ask, md)
    if ask.browse is not None:
        obj.browsed = (md.copy(), data)
    elif not ask.browse_under_cursor:
        obj.context = md.copy()
    if ask.properties == "handle":
        folders, data = properties.split_properties(md, data)
        hconn.properties.get(ask.msg_handle).fill_from(folders, md)
    elif ask.properties == "none":
        _, data = properties.split_properties(md, data)
    elif ask.properties == "as_q_def":
        data = properties.without_qmgr_properties(md, data)
    warning: MQError | None = None
    if ask.convert:
        unconverted, as_put = data, (md.CodedCharSetId, md.Encoding)
        data, warning = conversion.converted(md, data, *target)
        limit = ask.max_length
        if limit is not None and len(unconverted) <= limit < len(data) and not ask.accept_truncated:
            # it fitted as it was put (so it was taken) and grew in conversion: IBM MQ
            # returns it whole and unconverted with 2120, never cut short
            warning = MQError(
                C.MQCC_WARNING,
                CMQC.MQRC_CONVERTED_MSG_TOO_BIG,
                f"returned unconverted: {len(unconverted)} bytes as put, {len(data)} in "
                f"CCSID {md.CodedCharSetId}, over the buffer's {limit}",
            )
            data, (md.CodedCharSetId, md.Encoding) = unconverted, as_put
    original = len(data)
    if ask.max_length is not None and original > ask.max_length:
        data = data[: ask.max_length]
        warning = Truncated(
            C.MQRC_TRUNCATED_MSG_ACCEPTED,
            data,
            original,
            f"the message has {original} bytes; {ask.max_length} were returned",
        )
    fields.round_trip(md_opts)  # the whole MQMD as MQ returned it (a v1 MD's v2 fields too)
    fields.md_into(md_opts, md)
    fields.round_trip(gmo_opts)
    gmo_into(gmo_opts, obj, len(data), md.MsgFlags)
    if ask.logical_order and ask.browse is None and not ask.browse_under_cursor:
        in_group = md.MsgFlags & CMQC.MQMF_MSG_IN_GROUP
        last = md.MsgFlags & CMQC.MQMF_LAST_MSG_IN_GROUP
        # a segment before the last: the rest of its logical message comes next
        more_segments = md.MsgFlags & CMQC.MQMF_SEGMENT and not (
            md.MsgFlags & CMQC.MQMF_LAST_SEGMENT
        )
        if ask.syncpoint or (ask.if_persistent and md.Persistence == C.MQPER_PERSISTENT):
            hconn.mark_groups(obj)
        goes_on = (in_group and not last) or more_segments
        obj.get_group = md.GroupId if goes_on else None
    if warning is not None:
        # a warning still delivers the message: it travels with the error, as in both
        # libraries (``e.message``, ``e.original_length``)
        warning.__dict__.setdefault("message", data)
        warning.__dict__.setdefault("original_length", original)
        raise warning
    return data


def gmo_into(gmo: Any, obj: Hobj, returned: int, flags: int = 0) -> None:
    """The MQGMO's output fields, as far as its Version has them: ResolvedQName, the
    group and segment status of the message's ``flags``, and the ``returned`` length."""
    if gmo is None:
        return
    version = fields.option(gmo, "Version", 1)
    values: dict[str, object] = {"ResolvedQName": obj.queue.resolved_name}
    if version >= 2:
        status = (
            CMQC.MQGS_LAST_MSG_IN_GROUP
            if flags & CMQC.MQMF_LAST_MSG_IN_GROUP
            else CMQC.MQGS_MSG_IN_GROUP
            if flags & CMQC.MQMF_MSG_IN_GROUP
            else CMQC.MQGS_NOT_IN_GROUP
        )
        segment = (
            CMQC.MQSS_LAST_SEGMENT
            if flags & CMQC.MQMF_LAST_SEGMENT
            else CMQC.MQSS_SEGMENT
            if flags & CMQC.MQMF_SEGMENT
            else CMQC.MQSS_NOT_A_SEGMENT
        )
        allowed = flags & CMQC.MQMF_SEGMENTATION_ALLOWED
        values.update(
            GroupStatus=chr(status),
            SegmentStatus=chr(segment),
            Segmentation=chr(CMQC.MQSEG_ALLOWED if allowed else CMQC.MQSEG_INHIBITED),
        )
    if version >= 3:
        values["ReturnedLength"] = returned
    for name, value in values.items():
        if hasattr(gmo, name):
            fields.assign(gmo, _GMO_SPECS[name], value)


__all__ = ["Truncated", "deliver", "gmo_into", "too_long"]
