"""The facade's structures, errors and RFH2 behave as the real pymqi and ibmmq do.

Each flavour class is compared with the real library's class of the same name: field
names and order, defaults, length, packed bytes, and unpacking; the error texts for
every reason code either library names; RFH2 parsing and packing on the captured
messages in shared/testdata/rfh2. Skipped, saying why, without the sdists.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from mqjms.mqi import ibmmq_flavour, pymqi_flavour
from tests.mqi import mqi_vendor as vendor

STRUCTURES = [
    "MD", "GMO", "PMO", "OD", "CD", "SCO", "SD", "SRO", "CMHO", "PD", "SMPO", "IMPO", "TM",
    "TMC2", "CFH", "CNO", "CSP", "STS", "CBD", "CTLO", "DMHO", "DMPO", "DLH", "MDE", "XQH",
]  # fmt: skip
FLAVOURS = {"pymqi": pymqi_flavour, "ibmmq": ibmmq_flavour}


def library(name: str) -> ModuleType:
    return vendor.load_pymqi() if name == "pymqi" else vendor.load_ibmmq()


def pairs() -> list[Any]:
    return [
        pytest.param(flavour, name, id=f"{flavour}-{name}")
        for flavour in FLAVOURS
        for name in STRUCTURES
    ]


def distinct(value: Any, code: str, seed: int) -> Any:
    """A value unlike the default for a field of struct ``code``."""
    if isinstance(value, list):
        return [seed + i for i in range(len(value))]
    if code.endswith("s"):
        return bytes(65 + (seed + i) % 26 for i in range(int(code[:-1])))
    if code == "c":
        return b"Z"
    if code == "b":
        return 65 + seed % 26
    if code == "P":
        return 0x1000 + seed * 8
    return seed * 3 + 1


@pytest.mark.parametrize(("flavour", "name"), pairs())
def test_structures_match_the_library(flavour: str, name: str) -> None:
    real = library(flavour)
    if not hasattr(real, name):
        pytest.skip(f"{flavour} has no {name}")
    theirs, ours = getattr(real, name)(), getattr(FLAVOURS[flavour], name)()
    assert list(ours.get()) == list(theirs.get())  # names, in order
    assert ours.get() == theirs.get()  # defaults
    assert ours.get_length() == theirs.get_length()
    assert ours.pack() == theirs.pack()
    for seed, field in enumerate(theirs._MQOpts__list):
        if field[0] in ("StrucId", "_StrucId", "Version", "StrucLength", "Type"):
            continue
        value = distinct(getattr(theirs, field[0]), field[2], seed)
        setattr(theirs, field[0], value)
        setattr(ours, field[0], value)
    packed = theirs.pack()
    assert ours.pack() == packed
    fresh_ours = getattr(FLAVOURS[flavour], name)()
    assert fresh_ours.unpack(packed) is fresh_ours
    assert fresh_ours.get() == ours.get()
    if not any(isinstance(v, list) for v in theirs.get().values()):
        # (Both libraries unpack an array field as its first value only, and every field
        # after it shifted; MQCD's MsgCompList, MQSCO's EncryptionPolicySuiteB. Not here.)
        fresh_theirs = getattr(real, name)()
        fresh_theirs.unpack(packed)
        assert fresh_ours.get() == fresh_theirs.get()


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_lower_case_aliases(flavour: str) -> None:
    ours = FLAVOURS[flavour]
    real = library(flavour)
    for alias in ("md", "gmo", "pmo", "od", "cd", "sco"):
        assert getattr(ours, alias) is getattr(ours, alias.upper())
        assert getattr(real, alias) is getattr(real, alias.upper())


def reason_codes(real: ModuleType) -> set[int]:
    codes = set()
    for module, prefix in ((real.CMQC, "MQRC_"), (real.CMQCFC, "MQRCCF_")):
        codes |= {v for k, v in vars(module).items() if k.startswith(prefix)}
    return codes | {0, 1, 9999}  # and two no library names


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_error_texts_match_for_every_reason(flavour: str) -> None:
    real = library(flavour)
    ours = FLAVOURS[flavour]
    pymqi_names = vendor.load_pymqi()
    for reason in sorted(reason_codes(real)):
        for comp in (0, 1, 2):
            mine, theirs = ours.MQMIError(comp, reason), real.MQMIError(comp, reason)
            if flavour == "pymqi" and reason not in reason_codes(pymqi_names) - {0, 1, 9999}:
                continue  # pymqi does not know it: "not defined" there, named here
            assert str(mine) == str(theirs)
            assert mine.errorAsString() == theirs.errorAsString()
            if flavour == "ibmmq":
                assert mine.error_as_string() == theirs.error_as_string()
    assert str(ours.PYIFError("not open")) == str(real.PYIFError("not open"))
    extra = ours.MQMIError(1, 2079, original_length=10)
    assert (
        extra.original_length == 10 == real.MQMIError(1, 2079, original_length=10).original_length
    )


# --- RFH2 -----------------------------------------------------------------------------------


def rfh2_data(name: str) -> bytes:
    path = vendor.rfh2_testdata() / name
    if not path.exists():
        vendor.absent(f"{path} is absent")
    return path.read_bytes()


@pytest.mark.parametrize("flavour", FLAVOURS)
@pytest.mark.parametrize("encoding", [None, 273])
def test_rfh2_parses_and_packs_as_the_library(flavour: str, encoding: int | None) -> None:
    real, ours = library(flavour), FLAVOURS[flavour]
    for name in ("single_rfh2.dat", "multiple_rfh2.dat"):
        data = rfh2_data(name)
        theirs, mine = real.RFH2(), ours.RFH2()
        theirs.unpack(data, encoding)
        mine.unpack(data, encoding)
        assert mine.get() == theirs.get()
        assert mine.pack() == theirs.pack() == data[: theirs["StrucLength"]]
        theirs.add_folder(b"<usr><a>1</a></usr>")
        mine.add_folder(b"<usr><a>1</a></usr>")
        assert mine.get() == theirs.get() and mine.pack() == theirs.pack()


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_rfh2_encodings_and_errors_match_the_library(flavour: str) -> None:
    real, ours = library(flavour), FLAVOURS[flavour]
    for encoding in (1, 2, 16, 17, 32, 256, 257, 272, 273, 512, 544, 546, 768, 785, 0x11100000):
        theirs_bytes = real.RFH2().pack(encoding=encoding)
        if encoding == 785 and flavour == "pymqi":  # pymqi packs z/OS's encoding little-endian
            assert ours.RFH2().pack(encoding=encoding)[4:8] == b"\x00\x00\x00\x02"
            continue
        assert ours.RFH2().pack(encoding=encoding) == theirs_bytes, encoding
    data = rfh2_data("single_rfh2.dat")
    broken = data[0:117] + data[121:]
    for bad in ((data[116:],), (data[0:32],), (data[0:188],), (data, 546), (broken,)):
        with pytest.raises(Exception) as theirs_error:
            real.RFH2().unpack(*bad)
        with pytest.raises(Exception) as ours_error:
            ours.RFH2().unpack(*bad)
        assert isinstance(ours_error.value, ours.PYIFError)
        if "well formed" in str(theirs_error.value):
            assert "RFH2 - XML Folder not well formed" in str(ours_error.value)
        else:
            assert str(ours_error.value) == str(theirs_error.value)


def test_ibmmq_objects_and_rfh2_helpers_match_the_library() -> None:
    # ibmmq 2.x: QueueManager, Queue, Topic and Subscription are MQObjects, whose
    # to_string a program calls on them; RFH2.get_folder_name is a static method
    import mqjms.ibmmq as ours

    real = library("ibmmq")
    for name in ("QueueManager", "Queue", "Topic", "Subscription"):
        assert issubclass(getattr(real, name), real.MQObject)
        assert issubclass(getattr(ours, name), ours.MQObject), name
    qmgr = ours.QueueManager(None)
    for value in (b"QM1  \x00\x00junk", b"\xff\xfe", "text", 7):
        assert qmgr.to_string(value) == real.MQObject("x").to_string(value)
        assert ours.MQObject("x").to_string(value) == real.MQObject("x").to_string(value)
    for folder in (b"<mcd><Msd>jms_text</Msd></mcd>", b"<usr><a>1</a>  ", "<jms></jms>"):
        expected = real.RFH2.get_folder_name(folder.encode() if isinstance(folder, str) else folder)
        assert ours.RFH2.get_folder_name(folder) == expected
    with pytest.raises(ours.PYIFError, match="not well formed"):
        ours.RFH2.get_folder_name(b"no folder")
    with pytest.raises(real.PYIFError, match="not well formed"):
        real.RFH2.get_folder_name(b"no folder")
