"""The MQPMO context option of a put (``Context`` in the transport contract). A message
being moved (seed 002) passes the context of the message got, as IBM MQ classes for JMS
move it: MQPMO_PASS_ALL_CONTEXT from the handle it was got with. An MQMD whose context is
not that message's is put with MQPMO_SET_ALL_CONTEXT where the open options allow it."""

from __future__ import annotations

from typing import Any

from mqjms.mq import constants as C
from mqjms.mq.md import MQMD
from mqjms.semantics import Context, Handle

#: The MQMD fields MQPMO_PASS_ALL_CONTEXT passes (identity, then origin context).
CONTEXT_FIELDS = (
    "UserIdentifier",
    "AccountingToken",
    "ApplIdentityData",
    "PutApplType",
    "PutApplName",
    "PutDate",
    "PutTime",
    "ApplOriginData",
)


def context_option(
    cmqc: Any,
    pmo: Any,
    md: MQMD,
    context: Context,
    target: str | Handle,
    source: tuple[Any, MQMD] | None,
) -> int:
    """The MQPMO context option for ``context``. PASS_* passes the context of ``source``,
    the last message got on the connection and the library queue it was got from (MQ's
    way: ``pmo.Context`` is set to that queue's handle); an MQMD that is not that
    message's is put with SET_* where the open options allow it (MQPUT1 always)."""
    if context in (Context.PASS_ALL, Context.PASS_IDENTITY):
        pass_all = context is Context.PASS_ALL
        if source is not None and _same_context(source[1], md, context):
            pmo.Context = int(source[0].get_handle())
        elif not isinstance(target, Handle) or target.options & (
            C.MQOO_SET_ALL_CONTEXT
            if pass_all
            else C.MQOO_SET_ALL_CONTEXT | C.MQOO_SET_IDENTITY_CONTEXT
        ):
            return int(cmqc.MQPMO_SET_ALL_CONTEXT if pass_all else cmqc.MQPMO_SET_IDENTITY_CONTEXT)
        return int(cmqc.MQPMO_PASS_ALL_CONTEXT if pass_all else cmqc.MQPMO_PASS_IDENTITY_CONTEXT)
    return int(
        {
            Context.DEFAULT: 0,
            Context.SET_ALL: cmqc.MQPMO_SET_ALL_CONTEXT,
            Context.SET_IDENTITY: cmqc.MQPMO_SET_IDENTITY_CONTEXT,
            Context.NONE: cmqc.MQPMO_NO_CONTEXT,
        }[context]
    )


def _same_context(got: MQMD, md: MQMD, context: Context) -> bool:
    names = CONTEXT_FIELDS if context is Context.PASS_ALL else CONTEXT_FIELDS[:3]
    return all(getattr(got, name) == getattr(md, name) for name in names)


__all__ = ["CONTEXT_FIELDS", "context_option"]
