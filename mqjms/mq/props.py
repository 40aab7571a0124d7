"""The option structures of message handles and properties (MQCRTMH ... MQDLTMP).

MQCMHO creates a handle, MQDMHO deletes one, MQSMPO and MQPD go with MQSETMP, MQIMPO
with MQINQMP (its ReturnedName is an MQCHARV, so it is 64 bytes on 64-bit), MQDMPO with
MQDLTMP. Each has one version.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mqjms.mq import constants as C
from mqjms.mq.control import ControlBlock, VersionLayout, charv, layouts
from mqjms.mq.structure import CHAR, INT, FieldSpec, spec

MQCMHO_STRUC_ID = "CMHO"
MQDMHO_STRUC_ID = "DMHO"
MQPD_STRUC_ID = "PD  "
MQSMPO_STRUC_ID = "SMPO"
MQIMPO_STRUC_ID = "IMPO"
MQDMPO_STRUC_ID = "DMPO"
MQCMHO_DEFAULT_VALIDATION = 0
MQDMHO_NONE = 0
MQPD_NONE = 0
MQPD_SUPPORT_OPTIONAL = 0x00000001
MQPD_NO_CONTEXT = 0
MQCOPY_DEFAULT = 0x00000016
MQSMPO_SET_FIRST = 0
MQIMPO_INQ_FIRST = 0
MQDMPO_DEL_FIRST = 0


def _options(*more: FieldSpec) -> tuple[VersionLayout, ...]:
    return layouts((spec("StrucId", CHAR, 4), spec("Version", INT), spec("Options", INT), *more))


@dataclass(slots=True, eq=True)
class MQCMHO(ControlBlock):
    """Create-message-handle options."""

    STRUCTURE: ClassVar[str] = "MQCMHO"
    STRUC_ID: ClassVar[str] = MQCMHO_STRUC_ID
    LAYOUTS: ClassVar[tuple[VersionLayout, ...]] = _options()
    SPECS: ClassVar[tuple[FieldSpec, ...]] = LAYOUTS[-1].specs

    StrucId: str = "CMHO"
    Version: int = 1
    Options: int = MQCMHO_DEFAULT_VALIDATION

    @classmethod
    def format_reason(cls) -> int:
        return C.MQRC_CMHO_ERROR


@dataclass(slots=True, eq=True)
class MQDMHO(ControlBlock):
    """Delete-message-handle options."""

    STRUCTURE: ClassVar[str] = "MQDMHO"
    STRUC_ID: ClassVar[str] = MQDMHO_STRUC_ID
    LAYOUTS: ClassVar[tuple[VersionLayout, ...]] = _options()
    SPECS: ClassVar[tuple[FieldSpec, ...]] = LAYOUTS[-1].specs

    StrucId: str = "DMHO"
    Version: int = 1
    Options: int = MQDMHO_NONE

    @classmethod
    def format_reason(cls) -> int:
        return C.MQRC_DMHO_ERROR


@dataclass(slots=True, eq=True)
class MQPD(ControlBlock):
    """The property descriptor: how a property travels (support, context, copy options)."""

    STRUCTURE: ClassVar[str] = "MQPD"
    STRUC_ID: ClassVar[str] = MQPD_STRUC_ID
    LAYOUTS: ClassVar[tuple[VersionLayout, ...]] = _options(
        spec("Support", INT), spec("Context", INT), spec("CopyOptions", INT)
    )
    SPECS: ClassVar[tuple[FieldSpec, ...]] = LAYOUTS[-1].specs

    StrucId: str = "PD"
    Version: int = 1
    Options: int = MQPD_NONE
    Support: int = MQPD_SUPPORT_OPTIONAL
    Context: int = MQPD_NO_CONTEXT
    CopyOptions: int = MQCOPY_DEFAULT

    @classmethod
    def format_reason(cls) -> int:
        return C.MQRC_PD_ERROR


@dataclass(slots=True, eq=True)
class MQSMPO(ControlBlock):
    """Set-message-property options: which property, and the value's encoding and CCSID."""

    STRUCTURE: ClassVar[str] = "MQSMPO"
    STRUC_ID: ClassVar[str] = MQSMPO_STRUC_ID
    LAYOUTS: ClassVar[tuple[VersionLayout, ...]] = _options(
        spec("ValueEncoding", INT), spec("ValueCCSID", INT)
    )
    SPECS: ClassVar[tuple[FieldSpec, ...]] = LAYOUTS[-1].specs

    StrucId: str = "SMPO"
    Version: int = 1
    Options: int = MQSMPO_SET_FIRST
    ValueEncoding: int = C.MQENC_NATIVE
    ValueCCSID: int = C.MQCCSI_APPL

    @classmethod
    def format_reason(cls) -> int:
        return C.MQRC_SMPO_ERROR


@dataclass(slots=True, eq=True)
class MQIMPO(ControlBlock):
    """Inquire-message-property options; MQINQMP returns the name and type found."""

    STRUCTURE: ClassVar[str] = "MQIMPO"
    STRUC_ID: ClassVar[str] = MQIMPO_STRUC_ID
    LAYOUTS: ClassVar[tuple[VersionLayout, ...]] = _options(
        spec("RequestedEncoding", INT),
        spec("RequestedCCSID", INT),
        spec("ReturnedEncoding", INT),
        spec("ReturnedCCSID", INT),
        spec("Reserved1", INT),
        *charv("ReturnedName"),
        spec("TypeString", CHAR, 8),
    )
    SPECS: ClassVar[tuple[FieldSpec, ...]] = LAYOUTS[-1].specs

    StrucId: str = "IMPO"
    Version: int = 1
    Options: int = MQIMPO_INQ_FIRST
    RequestedEncoding: int = C.MQENC_NATIVE
    RequestedCCSID: int = C.MQCCSI_APPL
    ReturnedEncoding: int = C.MQENC_NATIVE
    ReturnedCCSID: int = 0
    Reserved1: int = 0
    ReturnedNameVSPtr: int = 0
    ReturnedNameVSOffset: int = 0
    ReturnedNameVSBufSize: int = 0
    ReturnedNameVSLength: int = 0
    ReturnedNameVSCCSID: int = C.MQCCSI_APPL
    TypeString: str = ""

    @classmethod
    def format_reason(cls) -> int:
        return C.MQRC_IMPO_ERROR


@dataclass(slots=True, eq=True)
class MQDMPO(ControlBlock):
    """Delete-message-property options."""

    STRUCTURE: ClassVar[str] = "MQDMPO"
    STRUC_ID: ClassVar[str] = MQDMPO_STRUC_ID
    LAYOUTS: ClassVar[tuple[VersionLayout, ...]] = _options()
    SPECS: ClassVar[tuple[FieldSpec, ...]] = LAYOUTS[-1].specs

    StrucId: str = "DMPO"
    Version: int = 1
    Options: int = MQDMPO_DEL_FIRST

    @classmethod
    def format_reason(cls) -> int:
        return C.MQRC_DMPO_ERROR
