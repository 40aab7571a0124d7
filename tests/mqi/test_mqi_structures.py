"""The structure classes as pymqi and ibmmq programs use them (shared/reference/pymqi.md 1.5)."""

from __future__ import annotations

import struct
from types import ModuleType

import pytest

from mqjms.mq.control import ControlBlock
from mqjms.mq.gmo import MQGMO
from mqjms.mq.md import MQMD
from mqjms.mq.od import MQOD
from mqjms.mqi import ibmmq_flavour, pymqi_flavour
from mqjms.mqi.constants import CMQC, CMQXC
from mqjms.mqi.pcf_params import CFIL, CFSL, CFST
from mqjms.mqi.structures import MQOpts

FLAVOURS = [pytest.param(pymqi_flavour, id="pymqi"), pytest.param(ibmmq_flavour, id="ibmmq")]


@pytest.mark.parametrize("mq", FLAVOURS)
def test_attribute_item_and_keyword_access(mq: ModuleType) -> None:
    md = mq.MD(Format=CMQC.MQFMT_STRING, Priority=7)
    assert md.Format == md["Format"] == b"MQSTR   " and md.Priority == 7
    md["MsgType"] = CMQC.MQMT_REQUEST
    md.set(Persistence=CMQC.MQPER_PERSISTENT, ReplyToQ=b"REPLY")
    assert md.MsgType == 1 and md.get()["Persistence"] == 1 and md.ReplyToQ == b"REPLY"
    assert list(md.get())[:2] == [("StrucId" if mq is pymqi_flavour else "_StrucId"), "Version"]


@pytest.mark.parametrize("mq", FLAVOURS)
def test_unknown_keyword_or_item_is_an_attribute_error_but_a_plain_attribute_is_allowed(
    mq: ModuleType,
) -> None:
    with pytest.raises(AttributeError):
        mq.MD(ReportOptions=1)
    md = mq.MD()
    with pytest.raises(AttributeError):
        md.set(NoSuchField=1)
    with pytest.raises(AttributeError):
        md["NoSuchField"] = 1
    md.ReportOptions = CMQC.MQRO_COA  # some programs do this: harmless, not a field
    assert "ReportOptions" not in md.get() and len(md.pack()) == 364


@pytest.mark.parametrize("mq", FLAVOURS)
def test_str_is_accepted_in_character_fields_and_packs_as_bytes(mq: ModuleType) -> None:
    # pymqi refused str (its own examples fail on Python 3); the facade accepts it in both
    md = mq.MD(ReplyToQ="REPLY.Q")
    assert md.ReplyToQ == b"REPLY.Q"  # set() and keywords convert at once, as ibmmq does
    md.ReplyToQMgr = "QM1"  # a plain assignment keeps the str until pack
    packed = md.pack()
    assert packed[100:148] == b"REPLY.Q".ljust(48, b"\x00")
    assert packed[148:196] == b"QM1".ljust(48, b"\x00")
    md.MsgId = "not-bytes"  # binary fields want bytes (a keyword or item str is encoded)
    with pytest.raises(TypeError, match="MsgId must be a byte array"):
        md.pack()


@pytest.mark.parametrize("mq", FLAVOURS)
def test_unpack_fills_in_place_extends_short_buffers_and_returns_the_object(
    mq: ModuleType,
) -> None:
    source = MQMD(Version=2, MsgId=b"M" * 24, ReplyToQ="R", BackoutCount=3, Format="MQSTR")
    md = mq.MD()
    assert md.unpack(source.pack()) is md
    assert md.MsgId == b"M" * 24 and md.BackoutCount == 3
    assert md.ReplyToQ == b"R".ljust(48) and md.Format == CMQC.MQFMT_STRING  # blank-padded out
    short = mq.MD().unpack(source.pack()[:324])  # a version-1 MQMD
    assert short.GroupId == b"\x00" * 24 and short.BackoutCount == 3
    with pytest.raises(TypeError):
        mq.MD().unpack("text")


@pytest.mark.parametrize("mq", FLAVOURS)
def test_get_length_and_str(mq: ModuleType) -> None:
    gmo = mq.GMO()
    assert gmo.get_length() == 112 == MQGMO.size(4)
    text = str(gmo)
    assert "Options: 0" in text and text.splitlines()[1] == "Version: " + str(gmo.Version)
    assert repr(gmo) == str(gmo.pack())


def test_flavour_defaults_differ_as_the_libraries_do() -> None:
    p, i = pymqi_flavour, ibmmq_flavour
    assert (p.MD().Version, p.GMO().Version, p.PMO().Version, p.OD().Version) == (1, 1, 1, 1)
    assert (i.MD().Version, i.GMO().Version, i.PMO().Version, i.OD().Version) == (2, 4, 3, 4)
    assert p.MD().StrucId == b"MD  " and i.MD()._StrucId == b"MD  "
    assert "Reserved1" in p.GMO().get() and "_Reserved1" in i.GMO().get()
    assert p.CD().Version == 6 and i.CD().Version == CMQXC.MQCD_VERSION_11
    assert p.PMO().PubLevel == 0 and i.PMO().PubLevel == 9
    assert p.SD().SubLevel == 0 and i.SD().SubLevel == 1
    assert i.CSP().get_length() == 104 and "CSPUserId" in i.CSP().get()


@pytest.mark.parametrize("mq", FLAVOURS)
def test_layouts_come_from_the_control_blocks(mq: ModuleType) -> None:
    # every version's fields pack where mqjms.mq lays them out
    blocks: list[tuple[type[ControlBlock], MQOpts]] = [(MQGMO, mq.GMO()), (MQOD, mq.OD())]
    for block, opts in blocks:
        data = opts.pack()
        assert len(data) == block.size()
        assert block.unpack(data).Version == opts.Version
    gmo = mq.GMO(MsgHandle=77, WaitInterval=5000)
    assert struct.unpack_from("<q", gmo.pack(), 104) == (77,)


@pytest.mark.parametrize("mq", FLAVOURS)
def test_lower_case_aliases(mq: ModuleType) -> None:
    assert (mq.md, mq.gmo, mq.pmo, mq.od, mq.cd, mq.sco) == (
        mq.MD, mq.GMO, mq.PMO, mq.OD, mq.CD, mq.SCO
    )  # fmt: skip


def test_ibmmq_to_string_helpers() -> None:
    dlh = ibmmq_flavour.DLH(DestQName=b"Q1", PutApplName=b"app")
    dlh.MsgId = b"\x00\x01"  # (not a field of the DLH; to_string only converts fields)
    dlh.to_string()
    assert dlh.DestQName == "Q1" and dlh.Format == ""
    md = ibmmq_flavour.MD(MsgId=b"\xff" * 24, ReplyToQ=b"R  \x00\x00")
    md.to_string()
    assert md.MsgId == b"\xff" * 24 and md.ReplyToQ == "R"  # binary fields stay bytes
    assert ibmmq_flavour.to_string(b"QM1 \x00junk") == "QM1"
    assert ibmmq_flavour.to_string(5) == 5


@pytest.mark.parametrize("mq", FLAVOURS)
def test_dlh_get_header_reads_the_start_of_a_message(mq: ModuleType) -> None:
    dlh = mq.DLH(Reason=2362, DestQName=b"ORDERS.IN", Format=CMQC.MQFMT_STRING)
    message = dlh.pack() + b"body"
    header = mq.DLH().get_header(message)
    assert header.Reason == 2362 and header.DestQName.rstrip(b"\x00") == b"ORDERS.IN"
    assert message[header.get_length() :] == b"body"


@pytest.mark.parametrize("mq", FLAVOURS)
def test_set_vs_and_get_vs(mq: ModuleType) -> None:
    od = mq.OD(Version=CMQC.MQOD_VERSION_4)
    od.set_vs("ObjectString", "dev/prices")
    assert od.get_vs("ObjectString") == b"dev/prices" and od.ObjectStringVSLength == 10
    assert od.ObjectStringVSPtr != 0
    od.set_vs("ObjectString", None)
    assert od.get_vs("ObjectString") is None


def test_ibmmq_pointer_fields_take_a_string() -> None:
    csp = ibmmq_flavour.CSP(AuthenticationType=CMQC.MQCSP_AUTH_USER_ID_AND_PWD)
    csp._set_ptr_field("CSPUserId", "app")
    assert csp._CSPUserIdLength == 3 and csp.CSPUserId != 0
    csp.CSPPassword = "secret"  # a str in a pointer field packs as its address
    assert len(csp.pack()) == 104


def test_str_of_a_structure_never_shows_a_credential() -> None:
    # secure by default: no credential in any repr or str (both show the other fields)
    csp = ibmmq_flavour.CSP(AuthenticationType=CMQC.MQCSP_AUTH_USER_ID_AND_PWD)
    csp.CSPUserId = "app"
    csp.CSPPassword = "s3cret-pw"
    for shown in (str(csp), repr(csp)):
        assert "s3cret-pw" not in shown
    assert "CSPPassword: ***" in str(csp) and "CSPUserId: app" in str(csp)
    md = ibmmq_flavour.MD(AccountingToken=b"acct".ljust(32, b"\0"))
    assert "***" not in str(md)  # AccountingToken is no credential


def test_a_program_may_define_its_own_structure() -> None:
    class IIH(MQOpts):
        def __init__(self, **kw: object) -> None:
            super().__init__([["StrucId", b"IIH ", "4s"], ["Version", 1, "i"]], **kw)

    iih = IIH(Version=2)
    assert iih.pack() == b"IIH \x02\x00\x00\x00" and iih.get_length() == 8


def test_pcf_parameters_lay_out_for_their_values() -> None:
    cfst = CFST(Parameter=CMQC.MQCA_Q_NAME, String="TEST.Q1")
    assert cfst.StrucLength == 28 and cfst.StringLength == 7 and len(cfst.pack()) == 28
    cfil = CFIL(Parameter=1002, Values=[1, 2, 3])
    assert cfil.Count == 3 and len(cfil.pack()) == 28
    cfsl = CFSL(Parameter=3000, Strings=[b"AB", b"CDE"])
    assert cfsl.StringLength == 4 and cfsl.pack()[24:] == b"AB\x00\x00CDE\x00"
