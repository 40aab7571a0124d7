"""Reading a program's structures, and writing MQ's output fields back into them in place.

A pymqi or ibmmq program passes MD, GMO, PMO and OD objects (:mod:`.structures`) and
reads MQ's answers from the same objects afterwards. MQ writes only its *output* fields:
a get fills the MQMD (all but StrucId and Version; only version 1's fields for an MQMD
version 1), the MQGMO's ResolvedQName and, by version, GroupStatus and the rest,
ReturnedLength; MQOPEN fills the MQOD's ObjectName for a dynamic queue and the resolved
names; a put fills MsgId, CorrelId on request and the context fields. Character fields
come back as MQ gives them: bytes of the field's full length, blank-padded.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from typing import Any

from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.mq.md import MQMD, MQMD_LENGTH_1
from mqjms.mq.structure import BYTE, CHAR, FieldSpec

_MD_SPECS = {spec.name: spec for spec in MQMD.SPECS}


def _v1_fields() -> frozenset[str]:
    names: set[str] = set()
    offset = 0
    for spec in MQMD.SPECS:
        if offset < MQMD_LENGTH_1:
            names.add(spec.name)
        offset += spec.length
    return frozenset(names)


MD_V1_FIELDS = _v1_fields()
#: What MQGET writes into the program's MQMD.
MD_GET_OUTPUT = tuple(spec.name for spec in MQMD.SPECS if spec.name not in ("StrucId", "Version"))
#: The MQMD fields a put fills by its context option (identity, then origin).
IDENTITY_FIELDS = ("UserIdentifier", "AccountingToken", "ApplIdentityData")
ORIGIN_FIELDS = ("PutApplType", "PutApplName", "PutDate", "PutTime", "ApplOriginData")


def text(value: object) -> str:
    """A character field's value as text, padding (blanks, NULs) removed."""
    if isinstance(value, bytes | bytearray):
        value = bytes(value).split(b"\x00", 1)[0].decode("latin-1")
    return str(value).rstrip(" \x00") if value is not None else ""


def padded(value: object, length: int) -> bytes:
    """``value`` as MQ returns a character field: bytes, blank-padded to ``length``."""
    raw = value if isinstance(value, bytes) else str(value).encode("latin-1", "replace")
    return raw[:length].ljust(length, b" ")


def option(opts: Any, name: str, default: int = 0) -> int:
    """An integer field of a program's structure (``default`` when it has none)."""
    value = getattr(opts, name, default)
    return int(value) if value is not None else default


def assign(opts: Any, spec: FieldSpec, value: object) -> None:
    """Set one output field as MQ returns it, in the form the program's object holds."""
    current = getattr(opts, spec.name, None)
    if spec.kind == CHAR:
        raw = padded(value, spec.length)
        if spec.length == 1 and isinstance(current, int):  # pymqi/ibmmq hold MQCHAR1 as int
            setattr(opts, spec.name, raw[0])
            return
        setattr(opts, spec.name, raw)
    elif spec.kind == BYTE:
        data = value if isinstance(value, bytes) else bytes(value)  # type: ignore[call-overload]
        setattr(opts, spec.name, data.ljust(spec.length, b"\x00")[: spec.length])
    else:
        setattr(opts, spec.name, value)


# --------------------------------------------------------------------------- MQMD


def md_from(opts: Any) -> MQMD:
    """The program's MD as an MQMD (MQRC_MD_ERROR 2026 when it cannot be read). An MD
    that cannot be packed (a str MsgId) raises the pack's own error, TypeError: both
    libraries pack the MD before the MQI call, so a program sees that, not an MQMIError."""
    raw = opts.pack()
    try:
        md = MQMD.unpack(raw[: MQMD.size()].ljust(MQMD.size(), b"\x00"), C.MQENC_NATIVE)
    except MQError as exc:
        raise failed(C.MQRC_MD_ERROR, exc.detail) from None
    if md.Version not in (1, 2):  # MQMD_VERSION_1, MQMD_VERSION_2
        raise failed(C.MQRC_MD_ERROR, f"MQMD Version {md.Version} is not 1 or 2")
    return md


def round_trip(opts: Any) -> None:
    """Leave the program's structure as both libraries leave it after a call: they unpack
    the whole structure MQ returned, so every field takes its packed form (an id given as
    ``b""`` reads 24 NULs, a name ``b"Q"`` reads 48 blank-padded bytes)."""
    pack, unpack = getattr(opts, "pack", None), getattr(opts, "unpack", None)
    if pack is None or unpack is None:
        return  # pymqi's duck typing: an object of the program's own
    try:
        packed = pack()
    except (TypeError, ValueError, struct.error):
        return  # the call read it already; what it cannot pack is left as it is
    unpack(packed)


def md_into(opts: Any, md: MQMD, names: Iterable[str] = MD_GET_OUTPUT) -> None:
    """Write ``names`` of ``md`` into the program's MD (version 1: its fields only)."""
    version = option(opts, "Version", 2)
    for name in names:
        if version < 2 and name not in MD_V1_FIELDS:
            continue
        if hasattr(opts, name):
            assign(opts, _MD_SPECS[name], getattr(md, name))


def is_none(value: object, length: int) -> bool:
    """Whether an id field (MsgId, CorrelId, GroupId) is all NULs: matches anything."""
    if value is None:
        return True
    raw = value if isinstance(value, bytes | bytearray) else str(value).encode("latin-1")
    return not bytes(raw).ljust(length, b"\x00").strip(b"\x00")


def id_bytes(value: object, length: int = 24) -> bytes:
    raw = value if isinstance(value, bytes | bytearray) else str(value).encode("latin-1")
    return bytes(raw)[:length].ljust(length, b"\x00")
