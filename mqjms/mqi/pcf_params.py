"""PCF parameter structures as pymqi and ibmmq programs build them: CFIN, CFST, CFIL, CFSL,
CFBS, the 64-bit CFIN64 and CFIL64, the group header CFGR, and the filters CFIF, CFSF, CFBF.

Their length depends on their value, so, as in both libraries, the constructor takes
``String``/``Values``/``Strings`` (and optionally their lengths) and lays the structure out
for them: a string padded with NULs to a multiple of 4, a string list's strings each
padded to the longest one's padded length (which StringLength then says). The byte layout
is :mod:`mqjms.mq.pcf`'s; the same classes serve both flavours (the MQCFH, whose default
Version differs, is in the flavour modules).
"""

from __future__ import annotations

from typing import Any

from mqjms.mq import pcf
from mqjms.mqi.constants import CMQCFC
from mqjms.mqi.structures import MQOpts, as_bytes

MQLONG_TYPE = "i"  # the struct code of an MQLONG (both libraries export it: programs use it)
INTEGER64_TYPE = "q"  # of an MQINT64


def padded_count(count: int, boundary: int = 4) -> int:
    """``count`` rounded up to a multiple of ``boundary``."""
    return count + ((boundary - count & (boundary - 1)) & (boundary - 1))


class CFIN(MQOpts):
    """MQCFIN: an integer parameter."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(
            [
                ["Type", pcf.MQCFT_INTEGER, "i"],
                ["StrucLength", pcf.MQCFIN_STRUC_LENGTH, "i"],
                ["Parameter", 0, "i"],
                ["Value", 0, "i"],
            ],
            **kw,
        )


class CFIN64(MQOpts):
    """MQCFIN64: a 64-bit integer parameter (statistics and accounting counters)."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(
            [
                ["Type", pcf.MQCFT_INTEGER64, MQLONG_TYPE],
                ["StrucLength", pcf.MQCFIN64_STRUC_LENGTH, MQLONG_TYPE],
                ["Parameter", 0, MQLONG_TYPE],
                ["Value", 0, INTEGER64_TYPE],  # after 4 bytes of alignment: IBM's Reserved
            ],
            **kw,
        )


class CFIL64(MQOpts):
    """MQCFIL64: a 64-bit integer-list parameter (``Values``)."""

    def __init__(self, **kw: Any) -> None:
        values = list(kw.pop("Values", []))
        count = kw.pop("Count", len(values))
        super().__init__(
            [
                ["Type", pcf.MQCFT_INTEGER64_LIST, MQLONG_TYPE],
                ["StrucLength", pcf.MQCFIL64_STRUC_LENGTH_FIXED + 8 * count, MQLONG_TYPE],
                ["Parameter", 0, MQLONG_TYPE],
                ["Count", count, MQLONG_TYPE],
                ["Values", values, INTEGER64_TYPE, count],
            ],
            **kw,
        )


class CFGR(MQOpts):
    """MQCFGR: a group header; its ``ParameterCount`` parameters follow it in the message."""

    def __init__(self, **kw: Any) -> None:
        count = kw.pop("ParameterCount", 0)
        super().__init__(
            [
                ["Type", pcf.MQCFT_GROUP, MQLONG_TYPE],
                ["StrucLength", pcf.MQCFGR_STRUC_LENGTH, MQLONG_TYPE],
                ["Parameter", 0, MQLONG_TYPE],
                ["ParameterCount", count, MQLONG_TYPE],
            ],
            **kw,
        )


class CFST(MQOpts):
    """MQCFST: a string parameter (``String``, NUL-padded to a multiple of 4)."""

    def __init__(self, **kw: Any) -> None:
        string = as_bytes(kw.pop("String", b""))
        length = kw.pop("StringLength", len(string))
        padded = padded_count(length)
        super().__init__(
            [
                ["Type", pcf.MQCFT_STRING, "i"],
                ["StrucLength", pcf.MQCFST_STRUC_LENGTH_FIXED + padded, "i"],
                ["Parameter", 0, "i"],
                ["CodedCharSetId", pcf.MQCCSI_DEFAULT, "i"],
                ["StringLength", length, "i"],
                ["String", string, f"{padded}s"],
            ],
            **kw,
        )


class CFIL(MQOpts):
    """MQCFIL: an integer-list parameter (``Values``)."""

    def __init__(self, **kw: Any) -> None:
        values = list(kw.pop("Values", []))
        count = kw.pop("Count", len(values))
        super().__init__(
            [
                ["Type", pcf.MQCFT_INTEGER_LIST, "i"],
                ["StrucLength", pcf.MQCFIL_STRUC_LENGTH_FIXED + 4 * count, "i"],
                ["Parameter", 0, "i"],
                ["Count", count, "i"],
                ["Values", values, "i", count],
            ],
            **kw,
        )


class CFSL(MQOpts):
    """MQCFSL: a string-list parameter (``Strings``, each padded to the same length)."""

    def __init__(self, **kw: Any) -> None:
        strings = [as_bytes(s) for s in kw.pop("Strings", [])]
        length = kw.pop("StringLength", max((len(s) for s in strings), default=0))
        count = kw.pop("Count", len(strings))
        each = padded_count(length) if count else 0
        super().__init__(
            [
                ["Type", pcf.MQCFT_STRING_LIST, "i"],
                ["StrucLength", pcf.MQCFSL_STRUC_LENGTH_FIXED + each * len(strings), "i"],
                ["Parameter", 0, "i"],
                ["CodedCharSetId", pcf.MQCCSI_DEFAULT, "i"],
                ["Count", count, "i"],
                ["StringLength", each, "i"],
                ["Strings", strings or [b""], f"{each}s", count or 1],
            ],
            **kw,
        )


class CFBS(MQOpts):
    """MQCFBS: a byte-string parameter (``String``, NUL-padded to a multiple of 4)."""

    def __init__(self, **kw: Any) -> None:
        string = as_bytes(kw.pop("String", b""))
        length = kw.pop("StringLength", len(string))
        padded = padded_count(length)
        super().__init__(
            [
                ["Type", pcf.MQCFT_BYTE_STRING, "i"],
                ["StrucLength", pcf.MQCFBS_STRUC_LENGTH_FIXED + padded, "i"],
                ["Parameter", 0, "i"],
                ["StringLength", length, "i"],
                ["String", string, f"{padded}s"],
            ],
            **kw,
        )


class CFIF(MQOpts):
    """MQCFIF: an integer filter (``Parameter``, ``Operator``, ``FilterValue``)."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(
            [
                ["Type", CMQCFC.MQCFT_INTEGER_FILTER, "i"],
                ["StrucLength", CMQCFC.MQCFIF_STRUC_LENGTH, "i"],
                ["Parameter", 0, "i"],
                ["Operator", 0, "i"],
                ["FilterValue", 0, "i"],
            ],
            **kw,
        )


class CFSF(MQOpts):
    """MQCFSF: a string filter (``FilterValue`` NUL-padded to a multiple of 4)."""

    def __init__(self, **kw: Any) -> None:
        value = as_bytes(kw.pop("FilterValue", b""))
        length = kw.pop("FilterValueLength", len(value))
        padded = padded_count(length)
        super().__init__(
            [
                ["Type", CMQCFC.MQCFT_STRING_FILTER, "i"],
                ["StrucLength", CMQCFC.MQCFSF_STRUC_LENGTH_FIXED + padded, "i"],
                ["Parameter", 0, "i"],
                ["Operator", 0, "i"],
                ["CodedCharSetId", pcf.MQCCSI_DEFAULT, "i"],
                ["FilterValueLength", length, "i"],
                ["FilterValue", value, f"{padded}s"],
            ],
            **kw,
        )


class CFBF(MQOpts):
    """MQCFBF: a byte-string filter (``FilterValue`` NUL-padded to a multiple of 4)."""

    def __init__(self, **kw: Any) -> None:
        value = as_bytes(kw.pop("FilterValue", b""))
        length = kw.pop("FilterValueLength", len(value))
        padded = padded_count(length)
        super().__init__(
            [
                ["Type", CMQCFC.MQCFT_BYTE_STRING_FILTER, "i"],
                ["StrucLength", CMQCFC.MQCFBF_STRUC_LENGTH_FIXED + padded, "i"],
                ["Parameter", 0, "i"],
                ["Operator", 0, "i"],
                ["FilterValueLength", length, "i"],
                ["FilterValue", value, f"{padded}s"],
            ],
            **kw,
        )
