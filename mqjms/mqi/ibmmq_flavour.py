"""The ibmmq 2.x flavour of the facade's structures and errors.

ibmmq's defaults: MQMD version 2, MQGMO 4, MQPMO 3, MQOD 4, MQCNO 5, MQCD 11, MQSCO 5,
MQSTS 2; reserved fields and the structure id hidden behind a ``_`` (``_StrucId``);
pointer fields that hold a string (``CSPUserId``, ``CCDTUrl``) without their ``Ptr``,
their offset and length hidden (``_CSPUserIdLength``); MQCHARV CCSIDs 0;
``str(MQMIError)`` is ``'MQI Error. Comp 2, Reason 2033: FAILED: MQRC_NO_MSG_AVAILABLE'``
with ``error_as_string()``, ``errorAsString()`` and ``get(name)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from mqjms.mq.bo import MQBO
from mqjms.mq.callback import MQCBC, MQCBD, MQCTLO
from mqjms.mq.cd import MQCD
from mqjms.mq.cno import MQCNO
from mqjms.mq.csp import MQCSP
from mqjms.mq.dlh import MQDLH
from mqjms.mq.gmo import MQGMO
from mqjms.mq.md import MQMD
from mqjms.mq.mde import MQMDE
from mqjms.mq.od import MQOD
from mqjms.mq.pcf import MQCFH
from mqjms.mq.pmo import MQPMO
from mqjms.mq.props import MQCMHO, MQDMHO, MQDMPO, MQIMPO, MQPD, MQSMPO
from mqjms.mq.sco import MQSCO
from mqjms.mq.sts import MQSTS
from mqjms.mq.sub import MQSD, MQSRO
from mqjms.mq.tm import MQTM, MQTMC2
from mqjms.mq.xqh import XQHFields
from mqjms.mqi import errors, headers
from mqjms.mqi.constants import CMQC, CMQXC
from mqjms.mqi.pcf_params import CFBS, CFIL, CFIN, CFSL, CFST
from mqjms.mqi.structures import MQOpts, Shape, Structure

__all__ = [
    "BNO", "BO", "CBC", "CBD", "CD", "CFBS", "CFH", "CFIL", "CFIN", "CFSL", "CFST", "CMHO", "CNO",
    "CSP", "CTLO", "DLH", "DMHO", "DMPO", "GMO", "IMPO", "MD", "MDE", "OD", "PD", "PMO", "RFH2",
    "SCO", "SD", "SMPO", "SRO", "STS", "TM", "TMC2", "XQH", "Error", "MQMIError", "MQOpts",
    "PYIFError", "cd", "gmo", "md", "od", "pmo", "sco", "to_string",
]  # fmt: skip


def _shape(block: Any, hidden: tuple[str, ...] = (), **kw: Any) -> Shape:
    """A Shape with ibmmq's names: ``_StrucId`` and the ``hidden`` fields behind a ``_``."""
    renames = {"StrucId": "_StrucId", **{name: "_" + name for name in hidden}}
    renames.update(kw.pop("renames", {}))
    return Shape(block, renames=renames, **kw)


def _pointer(base: str) -> dict[str, str]:
    """``xxPtr`` shown as ``xx``, ``xxOffset`` and ``xxLength`` hidden, as ibmmq names them."""
    return {
        f"{base}Ptr": base,
        f"{base}Offset": f"_{base}Offset",
        f"{base}Length": f"_{base}Length",
    }


def _no_ccsid(*names: str) -> dict[str, int]:
    return {f"{name}VSCCSID": 0 for name in names}


class Error(errors.Error):
    """Base class for all exceptions from this library."""


class MQMIError(errors.MQMIError, Error):
    """An MQI call failed: ``'MQI Error. Comp 2, Reason 2033: FAILED: MQRC_NO_MSG_AVAILABLE'``."""

    COMP_LABEL: ClassVar[str] = "Comp"
    REASON_NAMES: ClassVar[Mapping[int, str]] = {}


class PYIFError(errors.PYIFError, Error):
    """An error ibmmq finds itself: ``'PYIBMMQ Error: ...'``."""

    PREFIX: ClassVar[str] = "PYIBMMQ Error: "


class MD(Structure):
    SHAPE = _shape(MQMD)


class GMO(Structure):
    SHAPE = _shape(
        MQGMO, ("Reserved1", "Reserved2"), defaults={"Version": 4}, codes={"_Reserved1": "c"}
    )


class PMO(Structure):
    SHAPE = _shape(MQPMO, defaults={"Version": 3})


class OD(Structure):
    SHAPE = _shape(
        MQOD,
        defaults={
            "Version": 4,
            "ResolvedType": -3,
            **_no_ccsid("ObjectString", "SelectionString", "ResObjectString"),
        },
        tail=(("pad", b"", "4s"),),
    )


class CNO(Structure):
    SHAPE = _shape(
        MQCNO,
        ("ClientConnOffset", "ClientConnPtr", "SSLConfigPtr", "SSLConfigOffset"),
        renames={
            "SecurityParmsOffset": "_SecurityParmsOffset",
            "SecurityParmsPtr": "_SecurityParmsPtr",
            **_pointer("CCDTUrl"),
            "Reserved": "_Reserved",
            "Reserved2": "_Reserved2",
            "BalanceParmsPtr": "_BalanceParmsPtr",
            "BalanceParmsOffset": "_BalanceParmsOffset",
            "Reserved3": "_Reserved3",
        },
        defaults={
            "Version": 5,
            "ApplName": CMQC.MQAN_NONE,
            "_Reserved": 0,
            "_Reserved2": 0,
            "_Reserved3": 0,
        },
        codes={"_Reserved": "q", "_Reserved2": "i", "_Reserved3": "i"},
    )


class CSP(Structure):
    SHAPE = _shape(
        MQCSP,
        ("Reserved1", "Reserved2", "Reserved3", "Reserved4"),
        renames={**_pointer("CSPUserId"), **_pointer("CSPPassword")}
        | _pointer("InitialKey")
        | _pointer("Token"),
        defaults={f"_Reserved{n}": 0 for n in (1, 2, 3, 4)},
        codes={"_Reserved1": "i", "_Reserved2": "q", "_Reserved3": "q", "_Reserved4": "q"},
    )


class CD(Structure):
    SHAPE = Shape(
        MQCD,
        defaults={"Version": 11, "StrucLength": CMQXC.MQCD_CURRENT_LENGTH},
        tail=(
            ("__pad", b"", "4s"),
            ("QuantumSafeAlgorithm", 0, "i"),
            ("QuantumSafeRequired", 0, "i"),
        ),
    )


class SCO(Structure):
    SHAPE = _shape(
        MQSCO,
        renames=_pointer("KeyRepoPassword") | _pointer("HTTPSKeyStore"),
        defaults={"Version": 5},
    )


class SD(Structure):
    SHAPE = _shape(
        MQSD,
        defaults={
            "AlternateSecurityId": CMQC.MQSID_NONE,
            "SubCorrelId": CMQC.MQCI_NONE,
            "PubAccountingToken": CMQC.MQACT_NONE,
            **_no_ccsid("ObjectString", "SubName", "SubUserData", "SelectionString"),
            **_no_ccsid("ResObjectString"),
        },
    )


class SRO(Structure):
    SHAPE = _shape(MQSRO)


class STS(Structure):
    SHAPE = _shape(MQSTS, defaults={"Version": 2, **_no_ccsid("ObjectString", "SubName")})


class BNO(MQOpts):
    """MQBNO: how a uniform cluster balances this connection (``connect(bno=...)``)."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(
            [
                ["_StrucId", CMQC.MQBNO_STRUC_ID, "4s"],
                ["Version", CMQC.MQBNO_VERSION_1, "i"],
                ["ApplType", CMQC.MQBNO_BALTYPE_SIMPLE, "i"],
                ["Timeout", CMQC.MQBNO_TIMEOUT_AS_DEFAULT, "i"],
                ["Options", CMQC.MQBNO_OPTIONS_NONE, "i"],
            ],
            **kw,
        )


class CBD(Structure):
    SHAPE = _shape(MQCBD, tail=(("_Reserved1", 0, "i"),))


class CBC(Structure):
    SHAPE = _shape(MQCBC)


class CTLO(Structure):
    SHAPE = _shape(MQCTLO, ("Reserved",))


class BO(Structure):
    SHAPE = _shape(MQBO)


class CMHO(Structure):
    SHAPE = _shape(MQCMHO)


class DMHO(Structure):
    SHAPE = _shape(MQDMHO)


class PD(Structure):
    SHAPE = _shape(MQPD)


class SMPO(Structure):
    SHAPE = _shape(MQSMPO)


class IMPO(Structure):
    SHAPE = _shape(MQIMPO, ("Reserved1",), defaults={"ReturnedNameVSCCSID": 0})


class DMPO(Structure):
    SHAPE = _shape(MQDMPO)


class TM(Structure):
    SHAPE = _shape(MQTM)


class TMC2(Structure):
    SHAPE = _shape(MQTMC2)


class CFH(Structure):
    SHAPE = Shape(MQCFH, defaults={"Version": 3})


class DLH(headers.HeaderMixin):
    SHAPE = _shape(MQDLH, defaults={"Format": CMQC.MQFMT_NONE})


class XQH(headers.XQHBase):
    SHAPE = _shape(XQHFields)
    MD_CLASS = MD


class MDE(headers.HeaderMixin):
    SHAPE = _shape(MQMDE)


class RFH2(headers.RFH2Base):
    """ibmmq's RFH2: ``_StrucId``; big-endian when the integer encoding's low bit is set;
    folders Java programs write that are not well-formed XML are kept; a folder ends at a NUL."""

    ERROR: ClassVar[type[errors.PYIFError]] = PYIFError
    STRUC_ID_FIELD: ClassVar[str] = "_StrucId"
    STRUC_IDS: ClassVar[tuple[bytes, ...]] = (b"RFH ", b"\xd9\xc6\xc8\x40")  # ASCII, EBCDIC
    TOLERANT_FOLDERS: ClassVar[bool] = True
    TRUNCATE_AT_NUL: ClassVar[bool] = True

    @staticmethod
    def get_folder_name(folder_data: bytes | str) -> str:
        """ibmmq's name of :meth:`folder_name` (a folder's root element name)."""
        data = folder_data.encode("utf-8") if isinstance(folder_data, str) else folder_data
        return RFH2.folder_name(bytes(data))

    @classmethod
    def is_big_endian(cls, encoding: int) -> bool:
        if encoding > 0x0000FFFF:  # byte-swapped, as read from the other platform
            encoding = int.from_bytes(encoding.to_bytes(4, "big"), "little")
        return encoding & 0x00000001 != 0


def to_string(v: Any, encoding: str = "utf8") -> Any:
    """MQCHAR bytes as a stripped str (up to a NUL); anything else, or undecodable bytes, as is."""
    if isinstance(v, bytes):
        try:
            return v.split(b"\x00", 1)[0].decode(encoding).strip()
        except UnicodeError:
            pass
    return v


class MQObject:
    """ibmmq 2.x's superclass of QueueManager, Queue, Topic and Subscription: its
    ``to_string`` is the module's."""

    def __init__(self, name: Any = None) -> None:
        self._name = name

    def to_string(self, v: Any, encoding: str = "utf8") -> Any:
        return to_string(v, encoding)


md, gmo, pmo, od, cd, sco = MD, GMO, PMO, OD, CD, SCO
_ = (CFBS, CFIL, CFIN, CFSL, CFST, MQOpts)  # re-exported
