"""The drop-in's constant modules: IBM's names and values, each flavour's placement.

IBM's values are public facts (IBM MQ documentation); a few are spot-checked here, the
rest against the real libraries in test_mqi_vendor_constants.py.
"""

from __future__ import annotations

import subprocess
import sys

from mqjms.mq import constants as runtime
from mqjms.mqi.constants import CMQC, CMQCFC, CMQSTRC, CMQXC, CMQZC
from mqjms.mqi.constants.flavours import constants


def test_well_known_values() -> None:
    assert CMQC.MQCC_FAILED == 2 and CMQC.MQRC_NO_MSG_AVAILABLE == 2033
    assert CMQC.MQGMO_WAIT == 1 and CMQC.MQGMO_SYNCPOINT == 2 and CMQC.MQWI_UNLIMITED == -1
    assert CMQC.MQOO_INPUT_AS_Q_DEF == 1 and CMQC.MQOO_OUTPUT == 16 and CMQC.MQOO_INQUIRE == 32
    assert CMQC.MQFMT_STRING == b"MQSTR   " and CMQC.MQFMT_NONE == b" " * 8
    assert CMQC.MQMI_NONE == b"\x00" * 24 and CMQC.MQCI_NONE == b"\x00" * 24
    assert CMQC.MQENC_NATIVE == 546  # Linux x86-64
    assert CMQC.MQIA_BACKOUT_THRESHOLD == 22 and CMQC.MQCA_BACKOUT_REQ_Q_NAME == 2019
    assert CMQC.MQMD_STRUC_ID == b"MD  " and CMQC.MQGMO_LENGTH_4 == 112
    assert CMQCFC.MQCMD_PING_Q_MGR == 40 and CMQCFC.MQRCCF_CFH_TYPE_ERROR == 3001
    assert CMQXC.MQCHT_CLNTCONN == 6 and CMQXC.MQXPT_TCP == 2
    assert CMQZC.MQZAO_CONNECT == 1


def test_cmqstrc_names_values() -> None:
    assert CMQSTRC.MQRC_DICT[2033] == "MQRC_NO_MSG_AVAILABLE"
    assert CMQSTRC.MQCC_DICT[2] == "MQCC_FAILED"
    assert CMQSTRC.MQRCCF_DICT[3001] == "MQRCCF_CFH_TYPE_ERROR"
    assert CMQSTRC.MQIA_DICT[22] == "MQIA_BACKOUT_THRESHOLD"
    # a mask above 2**31 - 1 is keyed as the negative MQLONG it is
    assert CMQSTRC.MQRO_DICT[-270532353] == "MQRO_ACCEPT_UNSUP_MASK"


def test_ibmmq_keeps_channel_types_in_cmqxc_pymqi_also_in_cmqc() -> None:
    assert not hasattr(constants("ibmmq", "CMQC"), "MQCHT_CLNTCONN")
    assert constants("ibmmq", "CMQC") is CMQC
    pymqi_cmqc = constants("pymqi", "CMQC")
    assert pymqi_cmqc.MQCHT_CLNTCONN == 6 and pymqi_cmqc.MQXPT_TCP == 2
    assert pymqi_cmqc.MQRC_NO_MSG_AVAILABLE == 2033
    # values pymqi's generated CMQC has of its own
    assert pymqi_cmqc.MQPL_NATIVE == 11 and CMQC.MQPL_NATIVE == CMQC.MQPL_UNIX == 3
    assert pymqi_cmqc.MQISS_CHECK == b"C" and ord("C") == CMQC.MQISS_CHECK


# Values in mqjms.mq.constants (the runtime set) that are not IBM's: none may be.
RUNTIME_DEVIATIONS: dict[str, int] = {}


def test_runtime_constants_agree_with_ibms_values() -> None:
    tables = {}
    for module in (CMQC, CMQXC, CMQCFC, CMQZC):
        tables.update((k, v) for k, v in vars(module).items() if k.startswith("MQ"))
    wrong = {}
    for name, value in vars(runtime).items():
        if not name.startswith("MQ") or name not in tables:
            continue  # (a few mqjms masks, such as MQOO_INPUT_MASK, are not IBM's names)
        ibm = tables[name]
        if isinstance(value, str) and isinstance(ibm, bytes):
            ibm = ibm.decode("latin-1").rstrip()  # the runtime set keeps names unpadded
        if value != ibm:
            wrong[name] = ibm
    assert wrong == RUNTIME_DEVIATIONS


def test_import_mqjms_does_not_import_the_facade() -> None:
    code = "import sys, mqjms; print(any(m.startswith('mqjms.mqi') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
