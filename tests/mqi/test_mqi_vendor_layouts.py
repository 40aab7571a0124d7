"""The MQI control blocks are byte-exact with what the real pymqi and ibmmq pack.

In a later phase the real pymqi/ibmmq Python layers pack these structures and mqjms
unpacks them (a stand-in for their native extension), so every version of every
structure must lay out as IBM's C headers do on 64-bit Linux, which both libraries
reproduce with native struct formats. Skipped, saying why, without the sdists
(tests/mqi/mqi_vendor.py).
"""

from __future__ import annotations

import itertools
from types import ModuleType
from typing import Any

import pytest

from mqjms.mq.bo import MQBO
from mqjms.mq.callback import MQCBD, MQCTLO
from mqjms.mq.cd import MQCD
from mqjms.mq.cno import MQCNO
from mqjms.mq.control import INT64, LONGS, PTR, ControlBlock
from mqjms.mq.csp import MQCSP
from mqjms.mq.gmo import MQGMO
from mqjms.mq.od import MQOD
from mqjms.mq.pcf import MQCFBS, MQCFH, MQCFIL, MQCFIN, MQCFSL, MQCFST
from mqjms.mq.pmo import MQPMO
from mqjms.mq.props import MQCMHO, MQDMHO, MQDMPO, MQIMPO, MQPD, MQSMPO
from mqjms.mq.sco import MQSCO
from mqjms.mq.structure import BYTE, CHAR, INT
from mqjms.mq.sts import MQSTS
from mqjms.mq.sub import MQSD, MQSRO
from tests.mqi import mqi_vendor as vendor

# (our class, the library's class name): which libraries have which structure
PYMQI_STRUCTURES = [
    (MQOD, "OD"),
    (MQGMO, "GMO"),
    (MQPMO, "PMO"),
    (MQCD, "CD"),
    (MQSCO, "SCO"),
    (MQSD, "SD"),
    (MQSRO, "SRO"),
    (MQCMHO, "CMHO"),
    (MQPD, "PD"),
    (MQSMPO, "SMPO"),
    (MQIMPO, "IMPO"),
    (MQCFH, "CFH"),
]
IBMMQ_STRUCTURES = [
    *PYMQI_STRUCTURES,
    (MQCNO, "CNO"),
    (MQCSP, "CSP"),
    (MQSTS, "STS"),
    (MQCBD, "CBD"),
    (MQCTLO, "CTLO"),
    (MQDMHO, "DMHO"),
    (MQDMPO, "DMPO"),
]
_ = MQBO  # neither library has MQBO; its layout is checked against IBM's length in test_mqi_control


def our_name(cls: type[ControlBlock], theirs: str) -> str | None:
    """Our (IBM's C) name for a library field: ibmmq hides some behind '_' or drops 'Ptr'."""
    names = {spec.name for spec in cls.SPECS}
    bare = theirs.lstrip("_")
    for candidate in (bare, bare + "Ptr"):
        if candidate in names:
            return candidate
    if bare in ("pad", "Reserved1") and "Reserved1" not in names:
        return None  # alignment padding the library spells out
    raise AssertionError(f"{cls.STRUCTURE}: no field for the library's {theirs!r}")


def library_fields(obj: Any) -> list[tuple[str, Any, str, int]]:
    """(name, default, struct format, count) for each field, in order."""
    return [(f[0], f[1], f[2], f[3] if len(f) > 3 else 1) for f in obj._MQOpts__list]


def sample(fmt: str, count: int, seed: int) -> Any:
    """A distinctive value for a field of ``fmt``: every byte of the structure then differs."""
    if fmt.endswith("s"):
        size = int(fmt[:-1])
        letters = bytes(65 + (seed + i) % 26 for i in range(size))
        return letters
    if fmt == "P":
        return 0x7F00_0000_0000 + seed * 16
    if fmt == "q":
        return -(2**40) - seed
    if fmt == "b":
        return 33 + seed % 90
    if fmt == "c":
        return bytes([33 + seed % 90])
    if fmt.endswith("i") and count == 1 and fmt != "i":  # e.g. '16i' in one field
        return [1000 + seed + i for i in range(int(fmt[:-1]))]
    if count > 1:
        return [1000 + seed + i for i in range(count)]
    return 1000 + seed


def ours_value(cls: type[ControlBlock], name: str, value: Any) -> Any:
    """The library's value of a field as our dataclass holds it."""
    spec = next(s for s in cls.SPECS if s.name == name)
    if spec.kind == CHAR:
        raw = value if isinstance(value, bytes) else bytes([value])
        return raw.rstrip(b" \x00").decode("latin-1")
    if spec.kind == BYTE:
        if isinstance(value, bytes):
            return value
        return int(value).to_bytes(spec.length, "little", signed=True)
    if spec.kind == LONGS:
        return tuple(value)
    assert spec.kind in (INT, INT64, PTR), spec
    return value


def fill(cls: type[ControlBlock], lib_obj: Any, version: int | None) -> ControlBlock:
    """Give both the library's structure and ours the same distinctive values."""
    ours = cls()
    for seed, (name, _default, fmt, count) in enumerate(library_fields(lib_obj)):
        mine = our_name(cls, name)
        if mine is None:
            continue
        if mine in ("StrucId", "Version"):  # kept valid
            setattr(ours, mine, ours_value(cls, mine, getattr(lib_obj, name)))
            continue
        value = sample(fmt, count, seed)
        setattr(lib_obj, name, value)
        setattr(ours, mine, ours_value(cls, mine, value))
    if version is not None:
        lib_obj.Version = version
        ours.Version = version  # type: ignore[attr-defined]
    return ours


def assert_same_bytes(ours: bytes, theirs: bytes, end: int, what: str) -> None:
    """Equal up to the version's last field; after it ours has only NUL padding.

    (The library packs its every field, so where our version ends its next fields go on.)
    """
    assert ours[:end] == theirs[:end], what
    assert set(ours[end:]) <= {0}, what


def blank_padded(cls: type[ControlBlock], version: int | None, data: bytes) -> bytes:
    """``data`` with each character field's NUL padding made blanks, as IBM pads them.

    pymqi and ibmmq pack str/bytes with struct's NUL padding; the MQI's convention (and
    ours) is blanks. The queue manager treats both alike; nothing else may differ.
    """
    out = bytearray(data)
    layout = cls.layout(version)
    for spec, offset in zip(layout.specs, layout.offsets, strict=True):
        if spec.kind == CHAR and offset + spec.length <= len(out):
            value = bytes(out[offset : offset + spec.length]).rstrip(b"\x00")
            out[offset : offset + spec.length] = value.ljust(spec.length, b" ")
    return bytes(out)


def versions(cls: type[ControlBlock]) -> list[int | None]:
    if cls is MQCFH:
        return [1, 2, 3]
    if any(spec.name == "Version" for spec in cls.SPECS):
        return list(cls.versions())
    return [None]


def check_structure(library: ModuleType, cls: type[ControlBlock], name: str) -> None:
    for version, filled in itertools.product(versions(cls), (False, True)):
        lib_obj = getattr(library, name)()
        if filled:
            ours = fill(cls, lib_obj, version)
        else:
            ours = cls()
            if version is not None:
                lib_obj.Version = version
                ours.Version = version  # type: ignore[attr-defined]
            for lib_name, _default, _fmt, _count in library_fields(lib_obj):
                mine = our_name(cls, lib_name)
                if mine is not None:  # the library's defaults, in our types
                    setattr(ours, mine, ours_value(cls, mine, getattr(lib_obj, lib_name)))
        what = f"{library.__name__}.{name} Version {version} {'filled' if filled else 'default'}"
        theirs = lib_obj.pack()
        if len(theirs) < cls.layout(version).end:
            continue  # a version newer than the library's structure (pymqi's MQSCO stops at 5)
        packed = ours.pack()
        assert len(packed) == cls.size(version or None), what
        # Our version-n bytes are a prefix of the library's (which packs its every field).
        theirs_padded = blank_padded(cls, version, theirs)
        assert_same_bytes(packed, theirs_padded, cls.layout(version).end, what)
        # Their bytes unpack here to the same fields, as far as the version goes.
        back = cls.unpack(theirs)
        assert back.pack() == packed, what


# seed-less: these check byte layouts (cmqc.h / cmqxc.h, 64-bit Linux), not a seed rule.
@pytest.mark.parametrize(("cls", "name"), PYMQI_STRUCTURES, ids=lambda v: getattr(v, "__name__", v))
def test_layouts_match_pymqi(cls: type[ControlBlock], name: str) -> None:
    check_structure(vendor.load_pymqi(), cls, name)


@pytest.mark.parametrize(("cls", "name"), IBMMQ_STRUCTURES, ids=lambda v: getattr(v, "__name__", v))
def test_layouts_match_ibmmq(cls: type[ControlBlock], name: str) -> None:
    check_structure(vendor.load_ibmmq({**vendor.IBMMQ_STRUCVERSIONS, "cd": 12}), cls, name)


def test_pymqi_without_71_level_pads_the_mqcd_to_version_12_length() -> None:
    # pymqi adds 4 bytes of padding after SPLProtection unless pymqe reports level 7.1.
    old = vendor.load_pymqi(("5.0", "6.0", "7.0"))
    assert len(old.CD().pack()) == MQCD.size(12)
    assert MQCD.unpack(old.CD().pack()).Version == 6


@pytest.mark.parametrize("library_name", ["pymqi", "ibmmq"])
def test_pcf_parameters_match(library_name: str) -> None:
    library = vendor.load_pymqi() if library_name == "pymqi" else vendor.load_ibmmq()
    cases: list[tuple[Any, Any]] = [
        (library.CFIN(Parameter=2016, Value=5000), MQCFIN(2016, 5000)),
        (library.CFST(Parameter=2016, String=b"TEST.Q1"), MQCFST(2016, 0, b"TEST.Q1")),
        (library.CFST(Parameter=2016, String=b"ABCD"), MQCFST(2016, 0, b"ABCD")),
        (library.CFIL(Parameter=1002, Values=[1, 2, 3]), MQCFIL(1002, (1, 2, 3))),
        (library.CFBS(Parameter=7001, String=b"\x01\x02\x03"), MQCFBS(7001, b"\x01\x02\x03")),
        (
            library.CFSL(Parameter=3000, Strings=[b"AB", b"CDE"]),
            MQCFSL(3000, 0, (b"AB\x00\x00", b"CDE\x00"), 4),  # pymqi pads each to 4 with NULs
        ),
    ]
    for theirs, ours in cases:
        packed = theirs.pack()
        assert ours.pack() == packed, type(ours).__name__
        assert type(ours).unpack(packed) == ours, type(ours).__name__
