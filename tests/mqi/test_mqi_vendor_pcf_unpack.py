"""``PCFExecute.unpack`` and the PCF structures programs build (CFIN64, CFIL64, CFGR) read
and pack as the real pymqi 1.12 and ibmmq 2.1 do: the same ``(dict, CFH)`` for statistics
messages with groups and 64-bit counters, command replies, filters and errors; and the
module-level names programs import from them. Skipped, saying why, without the sdists."""

from __future__ import annotations

import struct
from types import ModuleType
from typing import Any

import pytest

import mqjms.ibmmq
import mqjms.pymqi
from mqjms.mqi.constants import CMQC, CMQCFC
from tests.mqi import mqi_vendor as vendor

OURS = {"pymqi": mqjms.pymqi, "ibmmq": mqjms.ibmmq}


def real(flavour: str) -> ModuleType:
    return vendor.load_pymqi() if flavour == "pymqi" else vendor.load_ibmmq()


def cfh(count: int, **kw: int) -> bytes:
    fields = {"Type": CMQCFC.MQCFT_STATISTICS, "Version": 3, "Command": 165, "CompCode": 0}
    fields.update(kw)
    return struct.pack(
        "=9i", fields["Type"], 36, fields["Version"], fields["Command"], 1, 1,
        fields["CompCode"], fields.get("Reason", 0), count,
    )  # fmt: skip


def cfin(p: int, v: int) -> bytes:
    return struct.pack("=4i", CMQCFC.MQCFT_INTEGER, 16, p, v)


def cfin64(p: int, v: int) -> bytes:
    return struct.pack("=4iq", CMQCFC.MQCFT_INTEGER64, 24, p, 0, v)


def cfil(p: int, vs: list[int]) -> bytes:
    return struct.pack(
        f"=4i{len(vs)}i", CMQCFC.MQCFT_INTEGER_LIST, 16 + 4 * len(vs), p, len(vs), *vs
    )


def cfil64(p: int, vs: list[int]) -> bytes:
    head = struct.pack("=4i", CMQCFC.MQCFT_INTEGER64_LIST, 16 + 8 * len(vs), p, len(vs))
    return head + struct.pack(f"={len(vs)}q", *vs)


def cfst(p: int, s: bytes) -> bytes:
    padded = s.ljust(-(-len(s) // 4) * 4, b"\x00")
    return struct.pack("=5i", CMQCFC.MQCFT_STRING, 20 + len(padded), p, 1208, len(s)) + padded


def cfsl(p: int, strings: list[bytes]) -> bytes:
    size = len(strings[0])
    head = struct.pack("=6i", CMQCFC.MQCFT_STRING_LIST, 24 + size * len(strings), p, 1208,
                       len(strings), size)  # fmt: skip
    return head + b"".join(strings)


def cfbs(p: int, s: bytes) -> bytes:
    padded = s.ljust(-(-len(s) // 4) * 4, b"\x00")
    return struct.pack("=4i", CMQCFC.MQCFT_BYTE_STRING, 16 + len(padded), p, len(s)) + padded


def cfgr(p: int, count: int) -> bytes:
    return struct.pack("=4i", CMQCFC.MQCFT_GROUP, 16, p, count)


STATISTICS = cfh(4) + b"".join([
    cfst(CMQC.MQCA_Q_MGR_NAME, b"QM1".ljust(48)),
    cfst(CMQCFC.MQCAMO_START_DATE, b"2024-01-01"),
    cfgr(CMQCFC.MQGACF_Q_STATISTICS_DATA, 3),
    cfst(CMQC.MQCA_Q_NAME, b"DEV.QUEUE.1".ljust(48)),
    cfil(CMQCFC.MQIAMO_PUTS, [5, 0]),
    cfil64(CMQCFC.MQIAMO64_PUT_BYTES, [500, 2**40]),
    cfgr(CMQCFC.MQGACF_Q_STATISTICS_DATA, 2),
    cfst(CMQC.MQCA_Q_NAME, b"DEV.QUEUE.2".ljust(48)),
    cfin64(CMQCFC.MQIAMO64_AVG_Q_TIME, -(2**40)),
])  # fmt: skip
REPLY = cfh(6, Type=CMQCFC.MQCFT_RESPONSE, Version=1, Command=CMQCFC.MQCMD_INQUIRE_Q) + b"".join([
    cfst(CMQC.MQCA_Q_NAME, b"ODD"),  # NUL-padded to 4
    cfst(CMQC.MQCA_Q_DESC, b"X"),  # StringLength 1: both libraries read b""
    cfin(CMQC.MQIA_CURRENT_Q_DEPTH, 7),
    cfil(CMQCFC.MQIACF_Q_ATTRS, []),
    cfsl(CMQCFC.MQCACF_Q_NAMES, [b"A".ljust(48), b"B".ljust(48)]),
    cfbs(CMQCFC.MQBACF_CONNECTION_ID, b"\x01\x02\x03"),
])  # fmt: skip


def filters() -> bytes:
    cfif = struct.pack("=5i", CMQCFC.MQCFT_INTEGER_FILTER, 20, 3, CMQCFC.MQCFOP_GREATER, 4)
    value = b"DEV.*"
    cfsf = struct.pack("=6i", CMQCFC.MQCFT_STRING_FILTER, 24 + 8, 2016, CMQCFC.MQCFOP_LIKE, 0,
                       len(value)) + value.ljust(8, b"\x00")  # fmt: skip
    return cfh(2, Type=CMQCFC.MQCFT_COMMAND_XR) + cfif + cfsf


def shown(values: Any) -> Any:
    """A result with its types spelt out (a tuple is not a list here)."""
    if isinstance(values, dict):
        return {k: shown(v) for k, v in values.items()}
    if isinstance(values, list | tuple):
        return (type(values).__name__, [shown(v) for v in values])
    return values


@pytest.mark.parametrize("flavour", OURS)
@pytest.mark.parametrize("message", [STATISTICS, REPLY], ids=["statistics", "reply"])
def test_unpack_returns_what_the_library_returns(flavour: str, message: bytes) -> None:
    theirs, their_cfh = real(flavour).PCFExecute.unpack(message)
    ours, our_cfh = OURS[flavour].PCFExecute.unpack(message)
    assert shown(ours) == shown(theirs)
    assert our_cfh.get() == their_cfh.get()
    assert type(our_cfh).__name__ == "CFH"


@pytest.mark.parametrize("flavour", OURS)
def test_unpack_nests_groups_and_keeps_64_bit_counters(flavour: str) -> None:
    values, header = OURS[flavour].PCFExecute.unpack(STATISTICS)
    assert header.Command == CMQCFC.MQCMD_STATISTICS_Q and header.ParameterCount == 4
    first, second = values[CMQCFC.MQGACF_Q_STATISTICS_DATA]
    assert first[CMQCFC.MQIAMO64_PUT_BYTES] == [500, 2**40]
    assert first[CMQCFC.MQIAMO_PUTS] == [5, 0]
    assert second[CMQCFC.MQIAMO64_AVG_Q_TIME] == -(2**40)
    assert CMQC.MQCA_Q_NAME not in values  # each group's own


@pytest.mark.parametrize("flavour", OURS)
def test_unpack_reads_filters_as_the_library(flavour: str) -> None:
    message = filters()
    assert (
        OURS[flavour].PCFExecute.unpack(message)[0] == real(flavour).PCFExecute.unpack(message)[0]
    )


@pytest.mark.parametrize("flavour", OURS)
def test_unpack_raises_for_an_error_reply_and_an_unknown_type(flavour: str) -> None:
    failed = cfh(0, Type=CMQCFC.MQCFT_RESPONSE, CompCode=2, Reason=CMQC.MQRC_UNKNOWN_OBJECT_NAME)
    ours = OURS[flavour]
    with pytest.raises(ours.MQMIError) as caught:
        ours.PCFExecute.unpack(failed)
    with pytest.raises(real(flavour).MQMIError) as expected:
        real(flavour).PCFExecute.unpack(failed)
    assert (caught.value.comp, caught.value.reason) == (expected.value.comp, expected.value.reason)
    odd = cfh(1) + struct.pack("=4i", 99, 16, 1, 0)
    with pytest.raises(NotImplementedError) as mine:
        ours.PCFExecute.unpack(odd)
    with pytest.raises(NotImplementedError) as theirs:
        real(flavour).PCFExecute.unpack(odd)
    assert str(mine.value) == str(theirs.value) == "Unpack for type ((99,)) not implemented"


PYMQI_NAMES = ["MQLONG_TYPE", "INTEGER64_TYPE", "CFIN64", "CFIL64", "CFGR", "make_q_desc",
               "makeQDesc", "common_q_args", "commonQArgs", "ensure_not_unicode"]  # fmt: skip
IBMMQ_NAMES = ["MQLONG_TYPE", "INTEGER64_TYPE", "CFIN64", "CFIL64", "CFGR", "BNO", "CIH", "IIH",
               "EncodingDefault", "OTelOptions", "common_q_args", "commonQArgs",
               "ensure_not_unicode"]  # fmt: skip


@pytest.mark.parametrize(("flavour", "names"), [("pymqi", PYMQI_NAMES), ("ibmmq", IBMMQ_NAMES)])
def test_module_names_programs_import_exist_in_both(flavour: str, names: list[str]) -> None:
    library = real(flavour)
    for name in names:
        assert hasattr(library, name), name  # the library really exports it
        assert hasattr(OURS[flavour], name), name
    assert OURS[flavour].MQLONG_TYPE == library.MQLONG_TYPE
    assert OURS[flavour].INTEGER64_TYPE == library.INTEGER64_TYPE


@pytest.mark.parametrize("flavour", OURS)
def test_new_structures_pack_and_unpack_as_the_library(flavour: str) -> None:
    library, ours = real(flavour), OURS[flavour]
    cases: list[tuple[str, dict[str, Any]]] = [
        ("CFIN64", {"Parameter": 703, "Value": 2**40}),
        ("CFIL64", {"Parameter": 748, "Values": [1, -(2**50), 3]}),
        ("CFGR", {"Parameter": 8011, "ParameterCount": 3}),
    ]
    if flavour == "ibmmq":
        cases += [("BNO", {"Timeout": 30}), ("CIH", {"Function": b"ABCD"}),
                  ("IIH", {"LTermOverride": b"LTERM1"})]  # fmt: skip
    for name, kw in cases:
        theirs, mine = getattr(library, name)(**kw), getattr(ours, name)(**kw)
        assert mine.get() == theirs.get(), name
        assert mine.pack() == theirs.pack(), name
        again = getattr(ours, name)(**kw)
        assert (
            again.unpack(theirs.pack()).get()
            == getattr(library, name)(**kw).unpack(theirs.pack()).get()
            if flavour == "ibmmq"
            else True
        )
    assert ours.EncodingDefault.ccsid == 1208 if flavour == "ibmmq" else True


@pytest.mark.parametrize("flavour", OURS)
def test_helpers_behave_as_the_library(flavour: str) -> None:
    library, ours = real(flavour), OURS[flavour]
    with pytest.raises(TypeError) as theirs:
        library.ensure_not_unicode("text")
    with pytest.raises(TypeError) as mine:
        ours.ensure_not_unicode("text")
    assert str(mine.value) == str(theirs.value)
    assert ours.ensure_not_unicode(b"bytes") is None
    md, options = ours.common_q_args()
    assert type(md).__name__ == "MD" and options is None
    if flavour == "pymqi":
        assert ours.make_q_desc("Q1").ObjectName.rstrip(b"\x00 ") == b"Q1"
        with pytest.raises(TypeError, match="Too many args"):
            ours.common_q_args(None, None, None)
    else:
        with pytest.raises(TypeError, match="instance of MD"):
            ours.common_q_args(object())
        assert ours.OTelOptions(remove_rfh2=True).remove_rfh2 is True
