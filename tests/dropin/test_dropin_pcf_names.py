"""PCFExecute.stringify_keys names selectors as each library does (scripts index by name)."""

from __future__ import annotations

import pytest

import mqjms.ibmmq
import mqjms.pymqi

CONNECTION = {  # an INQUIRE_CONNECTION response, as the command server answers it
    3501: b"DEV.APP.SVRCONN",  # MQCACH_CHANNEL_NAME
    3506: b"10.0.0.1",  # MQCACH_CONNECTION_NAME
    7006: b"\x01" * 48,  # MQBACF_CONNECTION_ID: no name in either library
    1110: 1111,  # MQIACF_CONN_INFO_TYPE
    2016: b"DEV.QUEUE.1",  # MQCA_Q_NAME
    3: 5,  # MQIA_CURRENT_Q_DEPTH
}


def test_ibmmq_names_channel_and_cf_selectors_and_keeps_unnamed_ints() -> None:
    named = mqjms.ibmmq.PCFExecute.stringify_keys(CONNECTION)
    assert named["MQCACH_CHANNEL_NAME"] == b"DEV.APP.SVRCONN"
    assert named["MQCACH_CONNECTION_NAME"] == b"10.0.0.1"
    assert named["MQIACF_CONN_INFO_TYPE"] == 1111
    assert named["MQCA_Q_NAME"] == b"DEV.QUEUE.1"
    assert named["MQIA_CURRENT_Q_DEPTH"] == 5
    assert named[7006] == b"\x01" * 48  # the int, as ibmmq leaves it


def test_pymqi_names_only_cmqc_selectors() -> None:
    named = mqjms.pymqi.PCFExecute.stringifyKeys(CONNECTION)
    assert named["MQCA_Q_NAME"] == b"DEV.QUEUE.1"
    assert named["MQIA_CURRENT_Q_DEPTH"] == 5
    assert {3501, 3506, 7006, 1110} <= set(named)  # pymqi 1.12 names MQIA_/MQCA_ only


def test_the_table_follows_the_type_of_the_value() -> None:
    # 3 is MQIA_CURRENT_Q_DEPTH for an int; a bytes value under it has no character name
    assert mqjms.ibmmq.PCFExecute.stringify_keys({3: b"x"}) == {3: b"x"}


@pytest.mark.parametrize("mq", [mqjms.pymqi, mqjms.ibmmq], ids=["pymqi", "ibmmq"])
def test_a_str_value_is_the_libraries_type_error(mq: object) -> None:
    with pytest.raises(TypeError):
        mq.PCFExecute.stringify_keys({2016: "DEV.QUEUE.1"})  # type: ignore[attr-defined]


def test_the_name_tables_and_to_string_are_there_as_in_the_libraries() -> None:
    assert mqjms.ibmmq.PCFExecute.caStringDict[3501] == "MQCACH_CHANNEL_NAME"
    assert mqjms.ibmmq.PCFExecute.baStringDict[7006] == "MQBACF_CONNECTION_ID"
    assert mqjms.pymqi.PCFExecute.iaStringDict[3] == "MQIA_CURRENT_Q_DEPTH"
    assert 3501 not in mqjms.pymqi.PCFExecute.caStringDict  # pymqi names CMQC's alone
    pcf = mqjms.ibmmq.PCFExecute.__new__(mqjms.ibmmq.PCFExecute)  # ibmmq's is an MQObject
    assert pcf.to_string(b"DEV.QUEUE.1   \x00") == "DEV.QUEUE.1"


def test_pymqi_name_tables_answer_has_key_as_pymqi_s_do() -> None:
    # pymqi's _MQConst2String keeps Python 2's has_key, which older ops scripts call
    names = mqjms.pymqi.PCFExecute.iaStringDict
    assert names.has_key(3)  # type: ignore[attr-defined]
    assert not mqjms.pymqi.PCFExecute.caStringDict.has_key(3501)  # type: ignore[attr-defined]
