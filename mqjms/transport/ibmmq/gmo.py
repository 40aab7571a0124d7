"""The MQGMO and MQMD of one MQGET, from the transport contract's arguments: the
syncpoint or browse option, MQGMO_WAIT with its WaitInterval, MatchOptions for the ids
given, PROPERTIES_FORCE_MQRFH2 (the contract's bytes carry the RFH2) and
FAIL_IF_QUIESCING."""

from __future__ import annotations

import math
from typing import Any

from mqjms.semantics import Browse

from .library import Library


def get_structures(
    lib: Library,
    sync: int,
    *,
    wait: float | None,
    browse: Browse | None,
    msg_id: bytes | None,
    correl_id: bytes | None,
    group_id: bytes | None,
    under_cursor: bool,
    properties: bool = True,
) -> tuple[Any, Any]:
    """The library's (GMO, MD) for an MQGET with the syncpoint option ``sync`` (ignored
    for a browse). ``properties`` False: MQGMO_PROPERTIES_COMPATIBILITY (a message whose
    only properties are MQ's own, a publication's mqps.Top, comes without an RFH2)."""
    cmqc = lib.CMQC
    gmo = lib.structure("GMO")
    gmo.Version = max(gmo.Version, cmqc.MQGMO_VERSION_2)  # MatchOptions
    options = cmqc.MQGMO_FAIL_IF_QUIESCING
    if properties:
        options |= cmqc.MQGMO_PROPERTIES_FORCE_MQRFH2
    else:
        options |= cmqc.MQGMO_PROPERTIES_COMPATIBILITY
    if browse is not None:
        options |= {
            Browse.FIRST: cmqc.MQGMO_BROWSE_FIRST,
            Browse.NEXT: cmqc.MQGMO_BROWSE_NEXT,
            Browse.CURSOR: cmqc.MQGMO_BROWSE_MSG_UNDER_CURSOR,
        }[browse]
    else:
        options |= sync
    if under_cursor:
        options |= cmqc.MQGMO_MSG_UNDER_CURSOR
    if wait is None or wait != 0:
        options |= cmqc.MQGMO_WAIT
        if wait is None:
            gmo.WaitInterval = cmqc.MQWI_UNLIMITED
        elif wait > 0:
            gmo.WaitInterval = math.ceil(wait * 1000)
        else:  # MQ's 2090 (MQWI_UNLIMITED, -1, is not what a negative wait means)
            gmo.WaitInterval = min(math.floor(wait * 1000), -2)
    gmo.Options = options
    md = lib.structure("MD", Version=cmqc.MQMD_VERSION_2)
    match = cmqc.MQMO_NONE
    for name, value, flag in (
        ("MsgId", msg_id, cmqc.MQMO_MATCH_MSG_ID),
        ("CorrelId", correl_id, cmqc.MQMO_MATCH_CORREL_ID),
        ("GroupId", group_id, cmqc.MQMO_MATCH_GROUP_ID),
    ):
        if value is not None:
            setattr(md, name, value)
            match |= flag
    gmo.MatchOptions = match
    return gmo, md


__all__ = ["get_structures"]
