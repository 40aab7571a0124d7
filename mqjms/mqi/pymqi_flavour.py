"""The pymqi 1.12 flavour of the facade's structures and errors.

pymqi's defaults: MQMD, MQGMO, MQPMO and MQOD at version 1 (the C headers' initial
versions) but carrying every field of the structure, fields named ``StrucId`` and
``Reserved1``, MQCD version 6, MQSCO version 5, PubLevel and SubLevel 0, MQCHARV CCSIDs 0;
``str(MQMIError)`` is ``'MQI Error. Comp: 2, Reason 2033: FAILED: MQRC_NO_MSG_AVAILABLE'``.
Structures pymqi lacks (CNO, CSP, STS, CBD, CTLO, DMHO, DMPO, DLH, MDE) are here too,
under IBM's names, so a program may use them as with ibmmq.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

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
from mqjms.mqi.constants import CMQC, CMQSTRC
from mqjms.mqi.constants._pymqi_facts import ERROR_NAMES
from mqjms.mqi.pcf_names import ConstantNames
from mqjms.mqi.pcf_params import CFBS, CFIL, CFIN, CFSL, CFST
from mqjms.mqi.structures import MQOpts, Shape, Structure

__all__ = [
    "BO", "CBC", "CBD", "CD", "CFBS", "CFH", "CFIL", "CFIN", "CFSL", "CFST", "CMHO", "CNO", "CSP",
    "CTLO", "DLH", "DMHO", "DMPO", "GMO", "IMPO", "MD", "MDE", "OD", "PD", "PMO", "RFH2", "SCO",
    "SD", "SMPO", "SRO", "STS", "TM", "TMC2", "XQH", "Error", "MQMIError", "MQOpts", "PYIFError",
    "cd", "gmo", "md", "od", "pmo", "sco",
]  # fmt: skip

_NO_CCSID = {"ObjectStringVSCCSID": 0, "SelectionStringVSCCSID": 0, "ResObjectStringVSCCSID": 0}


class Error(errors.Error):
    """Base class for all pymqi exceptions."""


class MQMIError(errors.MQMIError, Error):
    """An MQI call failed: ``'MQI Error. Comp: 2, Reason 2033: FAILED: MQRC_NO_MSG_AVAILABLE'``."""

    COMP_LABEL: ClassVar[str] = "Comp:"
    REASON_NAMES: ClassVar[Mapping[int, str]] = ERROR_NAMES
    # the tables programs read name a reason as str(e) does (pymqi's choice of two names)
    # (pymqi's _MQConst2String, whose has_key older scripts call)
    errStringDicts: ClassVar[tuple[Mapping[int, str], ...]] = (
        ConstantNames(
            {**CMQSTRC.MQRC_DICT, **{k: v for k, v in ERROR_NAMES.items() if v.startswith("MQRC_")}}
        ),
        ConstantNames(
            {
                **CMQSTRC.MQRCCF_DICT,
                **{k: v for k, v in ERROR_NAMES.items() if v.startswith("MQRCCF_")},
            }
        ),
    )


class PYIFError(errors.PYIFError, Error):
    """An error pymqi finds itself: ``'PYMQI Error: ...'``."""

    PREFIX: ClassVar[str] = "PYMQI Error: "


class MD(Structure):
    SHAPE = Shape(MQMD, defaults={"Version": 1})


class GMO(Structure):
    SHAPE = Shape(MQGMO, codes={"Reserved1": "c"})


class PMO(Structure):
    SHAPE = Shape(MQPMO, defaults={"PubLevel": 0})


class OD(Structure):
    SHAPE = Shape(MQOD, defaults={**_NO_CCSID, "ResolvedType": -3}, tail=(("pad", b"", "4s"),))


class CD(Structure):
    SHAPE = Shape(MQCD, defaults={"Version": 6})


class SCO(Structure):
    SHAPE = Shape(MQSCO, version=5, defaults={"Version": 5})


class SD(Structure):
    SHAPE = Shape(
        MQSD,
        defaults={
            "SubLevel": 0,
            "AlternateSecurityId": CMQC.MQSID_NONE,
            "SubCorrelId": CMQC.MQCI_NONE,
            "PubAccountingToken": CMQC.MQACT_NONE,
            **{f"{s}VSCCSID": 0 for s in ("ObjectString", "SubName", "SubUserData")},
            **{f"{s}VSCCSID": 0 for s in ("SelectionString", "ResObjectString")},
        },
    )


class SRO(Structure):
    SHAPE = Shape(MQSRO)


class CMHO(Structure):
    SHAPE = Shape(MQCMHO)


class PD(Structure):
    SHAPE = Shape(MQPD)


class SMPO(Structure):
    SHAPE = Shape(MQSMPO)


class IMPO(Structure):
    SHAPE = Shape(MQIMPO, defaults={"ReturnedNameVSCCSID": 0})


class TM(Structure):
    SHAPE = Shape(MQTM)


class TMC2(Structure):
    SHAPE = Shape(MQTMC2)


class CFH(Structure):
    SHAPE = Shape(MQCFH)


# Not in pymqi 1.12; IBM's names and initial values.
class CNO(Structure):
    SHAPE = Shape(MQCNO)


class CSP(Structure):
    SHAPE = Shape(MQCSP)


class STS(Structure):
    SHAPE = Shape(MQSTS)


class CBD(Structure):
    SHAPE = Shape(MQCBD)


class CBC(Structure):
    SHAPE = Shape(MQCBC)


class CTLO(Structure):
    SHAPE = Shape(MQCTLO)


class BO(Structure):
    SHAPE = Shape(MQBO)


class DMHO(Structure):
    SHAPE = Shape(MQDMHO)


class DMPO(Structure):
    SHAPE = Shape(MQDMPO)


class DLH(headers.HeaderMixin):
    SHAPE = Shape(MQDLH, defaults={"Format": CMQC.MQFMT_NONE})


class XQH(headers.XQHBase):
    SHAPE = Shape(XQHFields)
    MD_CLASS = MD


class MDE(headers.HeaderMixin):
    SHAPE = Shape(MQMDE)


class RFH2(headers.RFH2Base):
    """pymqi's RFH2: ``StrucId``; big-endian for the encodings in pymqi's list (and any
    encoding whose integers are normal, which pymqi's list misses for z/OS's 785)."""

    ERROR: ClassVar[type[errors.PYIFError]] = PYIFError
    STRUC_ID_FIELD: ClassVar[str] = "StrucId"

    @classmethod
    def is_big_endian(cls, encoding: int) -> bool:
        return encoding in headers.PYMQI_BIG_ENDIAN or encoding & 0xF == 1


# pymqi's lower-case names (its tests check them)
md, gmo, pmo, od, cd, sco = MD, GMO, PMO, OD, CD, SCO
_ = (CFBS, CFIL, CFIN, CFSL, CFST, MQOpts)  # re-exported
