"""PCF, programmable command formats: the MQCFH header and its parameter structures.

A PCF message (Format MQADMIN/MQPCF) is an MQCFH then ParameterCount parameters, each
starting with its Type and StrucLength, all integers in the MQMD's Encoding: MQCFIN (an
integer), MQCFST (a string), MQCFIL (integers), MQCFSL (strings of one length),
MQCFBS (bytes), their 64-bit kin MQCFIN64 and MQCFIL64 (statistics and accounting
messages count bytes with them) and MQCFGR, a group of the next ParameterCount
parameters (one object's data in a statistics message). Strings are ``bytes`` in the
parameter's CodedCharSetId, exactly StringLength long (IBM's command server pads names
with blanks: the blanks are kept); each structure is padded with NULs to a multiple of 4
bytes. The parameter structures are :mod:`.pcf_parameters`' (and importable from here).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import ClassVar

from mqjms.mq import constants as C
from mqjms.mq.control import ControlBlock, VersionLayout, layouts
from mqjms.mq.errors import MQFormatError
from mqjms.mq.pcf_parameters import (
    MQCCSI_DEFAULT,
    MQCFBS,
    MQCFBS_STRUC_LENGTH_FIXED,
    MQCFGR,
    MQCFGR_STRUC_LENGTH,
    MQCFIL,
    MQCFIL64,
    MQCFIL64_STRUC_LENGTH_FIXED,
    MQCFIL_STRUC_LENGTH_FIXED,
    MQCFIN,
    MQCFIN64,
    MQCFIN64_STRUC_LENGTH,
    MQCFIN_STRUC_LENGTH,
    MQCFSL,
    MQCFSL_STRUC_LENGTH_FIXED,
    MQCFST,
    MQCFST_STRUC_LENGTH_FIXED,
    MQCFT_BYTE_STRING,
    MQCFT_GROUP,
    MQCFT_INTEGER,
    MQCFT_INTEGER64,
    MQCFT_INTEGER64_LIST,
    MQCFT_INTEGER_LIST,
    MQCFT_STRING,
    MQCFT_STRING_LIST,
    MQRCCF_CFGR_LENGTH_ERROR,
    AnyParameter,
    Buffer,
    Parameter,
    PCFOther,
)
from mqjms.mq.structure import INT, FieldSpec, byte_order, spec

MQCFT_COMMAND = 1
MQCFT_RESPONSE = 2
MQCFT_COMMAND_XR = 16
MQCFH_STRUC_LENGTH = 36
MQCFH_VERSION_1 = 1
MQCFH_CURRENT_VERSION = 3
MQCFC_LAST = 1
MQCMD_NONE = 0
MQRCCF_CFGR_PARM_COUNT_ERROR = 3259


@dataclass(slots=True, eq=True)
class MQCFH(ControlBlock):
    """The PCF header, 36 bytes; Versions 1-3 share one layout (the level of PCF used)."""

    STRUCTURE: ClassVar[str] = "MQCFH"
    STRUC_ID: ClassVar[str] = ""  # the MQCFH starts with Type, not a StrucId
    LAYOUTS: ClassVar[tuple[VersionLayout, ...]] = layouts(
        tuple(
            spec(name, INT)
            for name in (
                "Type",
                "StrucLength",
                "Version",
                "Command",
                "MsgSeqNumber",
                "Control",
                "CompCode",
                "Reason",
                "ParameterCount",
            )
        )
    )
    SPECS: ClassVar[tuple[FieldSpec, ...]] = LAYOUTS[-1].specs

    Type: int = MQCFT_COMMAND
    StrucLength: int = MQCFH_STRUC_LENGTH
    Version: int = MQCFH_VERSION_1
    Command: int = MQCMD_NONE
    MsgSeqNumber: int = 1
    Control: int = MQCFC_LAST
    CompCode: int = C.MQCC_OK
    Reason: int = C.MQRC_NONE
    ParameterCount: int = 0

    @classmethod
    def versions(cls) -> range:
        return range(1, MQCFH_CURRENT_VERSION + 1)

    @classmethod
    def format_reason(cls) -> int:
        return C.MQRCCF_CFH_VERSION_ERROR


_Simple = MQCFIN | MQCFST | MQCFIL | MQCFSL | MQCFBS | MQCFIN64 | MQCFIL64
_BY_TYPE: dict[int, type[_Simple]] = {
    cls.TYPE: cls for cls in (MQCFIN, MQCFST, MQCFIL, MQCFSL, MQCFBS, MQCFIN64, MQCFIL64)
}
MAX_GROUP_DEPTH = 16  # MQ nests groups a few deep (activity reports); more is a bad message


def parse_pcf(data: Buffer, encoding: int = C.MQENC_NATIVE) -> tuple[MQCFH, list[Parameter]]:
    """A PCF message's header and its ParameterCount parameters, in order; a group
    (MQCFGR) holds the parameters that belong to it."""
    header = MQCFH.unpack(data, encoding)
    if header.StrucLength != MQCFH_STRUC_LENGTH:
        raise MQFormatError(
            "MQCFH",
            "StrucLength",
            4,
            f"expected 36, found {header.StrucLength}",
            C.MQRCCF_CFH_LENGTH_ERROR,
        )
    parameters, _end = _parameters(data, encoding, MQCFH_STRUC_LENGTH, header.ParameterCount, 0)
    return header, parameters


def _parameters(
    data: Buffer, encoding: int, offset: int, count: int, depth: int
) -> tuple[list[Parameter], int]:
    """``count`` parameters from ``offset``, and the offset after them."""
    order = byte_order(encoding)
    parameters: list[Parameter] = []
    for _ in range(count):
        if len(data) - offset < 12:
            raise MQFormatError(
                "MQCFGR" if depth else "MQCFH",
                "ParameterCount",
                offset,
                f"{count} parameters, but the message ends at byte {offset}",
                MQRCCF_CFGR_PARM_COUNT_ERROR if depth else C.MQRCCF_CFH_PARM_COUNT_ERROR,
            )
        kind, length, parameter = struct.unpack_from(order + "3i", data, offset)
        decoder = _BY_TYPE.get(kind)
        if kind == MQCFT_GROUP:
            group, offset = _group(data, encoding, offset, depth)
            parameters.append(group)
            continue
        if decoder is not None:
            parameters.append(decoder.unpack(data, encoding, offset))
        elif 12 <= length <= len(data) - offset and length % 4 == 0:
            parameters.append(PCFOther(kind, parameter, bytes(data[offset : offset + length])))
        else:
            raise MQFormatError(
                "PCF parameter",
                "StrucLength",
                offset + 4,
                f"type {kind}: {length} is not a multiple of 4 that fits the message",
                C.MQRCCF_CFH_LENGTH_ERROR,
            )
        offset += length
    return parameters, offset


def _group(data: Buffer, encoding: int, offset: int, depth: int) -> tuple[MQCFGR, int]:
    """The group at ``offset`` with its members, and the offset after them."""
    order, length, parameter = MQCFGR._head(data, encoding, offset)
    if length != MQCFGR_STRUC_LENGTH:
        MQCFGR._fail("StrucLength", offset + 4, f"expected 16, found {length}")
    (count,) = struct.unpack_from(order + "i", data, offset + 12)
    if count < 0 or depth >= MAX_GROUP_DEPTH:
        MQCFGR._fail(
            "ParameterCount",
            offset + 12,
            f"{count} parameters at group depth {depth + 1}",
            MQRCCF_CFGR_PARM_COUNT_ERROR,
        )
    members, end = _parameters(data, encoding, offset + length, count, depth + 1)
    return MQCFGR(parameter, tuple(members)), end


def build_pcf(header: MQCFH, parameters: list[Parameter], encoding: int = C.MQENC_NATIVE) -> bytes:
    """A PCF message: ``header`` (ParameterCount set to the count) then the parameters."""
    head = header.copy(ParameterCount=len(parameters))
    return head.pack(encoding) + b"".join(p.pack(encoding) for p in parameters)


__all__ = [
    "MAX_GROUP_DEPTH",
    "MQCCSI_DEFAULT",
    "MQCFBS",
    "MQCFBS_STRUC_LENGTH_FIXED",
    "MQCFC_LAST",
    "MQCFGR",
    "MQCFGR_STRUC_LENGTH",
    "MQCFH",
    "MQCFH_CURRENT_VERSION",
    "MQCFH_STRUC_LENGTH",
    "MQCFH_VERSION_1",
    "MQCFIL",
    "MQCFIL64",
    "MQCFIL64_STRUC_LENGTH_FIXED",
    "MQCFIL_STRUC_LENGTH_FIXED",
    "MQCFIN",
    "MQCFIN64",
    "MQCFIN64_STRUC_LENGTH",
    "MQCFIN_STRUC_LENGTH",
    "MQCFSL",
    "MQCFSL_STRUC_LENGTH_FIXED",
    "MQCFST",
    "MQCFST_STRUC_LENGTH_FIXED",
    "MQCFT_BYTE_STRING",
    "MQCFT_COMMAND",
    "MQCFT_COMMAND_XR",
    "MQCFT_GROUP",
    "MQCFT_INTEGER",
    "MQCFT_INTEGER64",
    "MQCFT_INTEGER64_LIST",
    "MQCFT_INTEGER_LIST",
    "MQCFT_RESPONSE",
    "MQCFT_STRING",
    "MQCFT_STRING_LIST",
    "MQCMD_NONE",
    "MQRCCF_CFGR_LENGTH_ERROR",
    "MQRCCF_CFGR_PARM_COUNT_ERROR",
    "AnyParameter",
    "Buffer",
    "PCFOther",
    "Parameter",
    "build_pcf",
    "parse_pcf",
]
