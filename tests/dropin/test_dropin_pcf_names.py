"""PCFExecute's selector-name tables as monitoring scripts read them: ``stringify_keys``
names a selector from the table its value's type picks and keeps one the table does not
name as the int it is (pymqi's tables are CMQC's MQIA_/MQCA_ names alone, ibmmq's add the
PCF and channel ones), and ``iaStringDict``/``caStringDict`` are there to look names up."""

from __future__ import annotations

import pytest

import mqjms.ibmmq
import mqjms.pymqi


def _status(mq):  # an INQUIRE_Q_STATUS result, as PCFExecute returns it
    cmqc, cmqcfc = mq.CMQC, mq.CMQCFC
    return {
        cmqc.MQCA_Q_NAME: b"DEV.QUEUE.1",
        cmqc.MQIA_CURRENT_Q_DEPTH: 3,
        cmqcfc.MQIACF_Q_STATUS_TYPE: cmqcfc.MQIACF_Q_STATUS,
        cmqcfc.MQBACF_CONNECTION_ID: b"\x01" * 24,
    }


def test_pymqi_names_cmqc_selectors_only_and_keeps_the_rest_as_ints() -> None:
    pcf, cmqcfc = mqjms.pymqi.PCFExecute, mqjms.pymqi.CMQCFC
    assert pcf.stringify_keys(_status(mqjms.pymqi)) == {
        "MQCA_Q_NAME": b"DEV.QUEUE.1",
        "MQIA_CURRENT_Q_DEPTH": 3,
        cmqcfc.MQIACF_Q_STATUS_TYPE: cmqcfc.MQIACF_Q_STATUS,
        cmqcfc.MQBACF_CONNECTION_ID: b"\x01" * 24,
    }
    assert pcf.iaStringDict[mqjms.pymqi.CMQC.MQIA_BACKOUT_THRESHOLD] == "MQIA_BACKOUT_THRESHOLD"
    assert pcf.caStringDict[mqjms.pymqi.CMQC.MQCA_BACKOUT_REQ_Q_NAME] == "MQCA_BACKOUT_REQ_Q_NAME"
    assert pcf.iaStringDict.has_key(mqjms.pymqi.CMQC.MQIA_Q_TYPE)
    assert cmqcfc.MQIACF_Q_STATUS_TYPE not in pcf.iaStringDict


def test_ibmmq_names_pcf_selectors_too() -> None:
    pcf, cmqcfc = mqjms.ibmmq.PCFExecute, mqjms.ibmmq.CMQCFC
    assert pcf.stringifyKeys(_status(mqjms.ibmmq)) == {
        "MQCA_Q_NAME": b"DEV.QUEUE.1",
        "MQIA_CURRENT_Q_DEPTH": 3,
        "MQIACF_Q_STATUS_TYPE": cmqcfc.MQIACF_Q_STATUS,
        cmqcfc.MQBACF_CONNECTION_ID: b"\x01" * 24,  # bytes: the MQCA table has no MQBACF
    }
    assert pcf.baStringDict[cmqcfc.MQBACF_CONNECTION_ID] == "MQBACF_CONNECTION_ID"


@pytest.mark.parametrize("mq", [mqjms.pymqi, mqjms.ibmmq], ids=["pymqi", "ibmmq"])
def test_a_str_value_is_the_libraries_type_error(mq) -> None:
    with pytest.raises(TypeError, match="use bytes, not str"):
        mq.PCFExecute.stringify_keys({mq.CMQC.MQCA_Q_NAME: "DEV.QUEUE.1"})
