"""MQMIError and PYIFError in both flavours: texts, attributes, and the link to MQError."""

from __future__ import annotations

import pickle

import pytest

from mqjms.mq.errors import MQError
from mqjms.mqi import errors, ibmmq_flavour, pymqi_flavour
from mqjms.mqi.constants import CMQC


def test_pymqi_texts() -> None:
    error = pymqi_flavour.MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_NO_MSG_AVAILABLE)
    assert str(error) == "MQI Error. Comp: 2, Reason 2033: FAILED: MQRC_NO_MSG_AVAILABLE"
    assert error.errorAsString() == "FAILED: MQRC_NO_MSG_AVAILABLE"
    assert (error.comp, error.reason) == (2, 2033)
    warning = pymqi_flavour.MQMIError(1, 2079)
    assert warning.errorAsString() == "WARNING: MQRC_TRUNCATED_MSG_ACCEPTED"
    assert pymqi_flavour.MQMIError(0, 0).errorAsString() == "OK"
    assert pymqi_flavour.MQMIError(2, 9999).errorAsString() == "FAILED: Error code 9999 not defined"
    assert str(pymqi_flavour.PYIFError("not open")) == "PYMQI Error: not open"


def test_ibmmq_texts() -> None:
    error = ibmmq_flavour.MQMIError(2, 2033)
    assert str(error) == "MQI Error. Comp 2, Reason 2033: FAILED: MQRC_NO_MSG_AVAILABLE"
    assert error.error_as_string() == error.errorAsString() == "FAILED: MQRC_NO_MSG_AVAILABLE"
    assert str(ibmmq_flavour.PYIFError("not open")) == "PYIBMMQ Error: not open"


def test_a_reason_with_two_names_reads_as_each_library_reads_it() -> None:
    # 2120 is MQRC_CONVERTED_MSG_TOO_BIG and MQRC_TRUNCATED; pymqi shows the later one
    assert ibmmq_flavour.MQMIError(2, 2120).errorAsString() == "FAILED: MQRC_CONVERTED_MSG_TOO_BIG"
    assert pymqi_flavour.MQMIError(2, 2120).errorAsString() == "FAILED: MQRC_TRUNCATED"
    assert pymqi_flavour.MQMIError(2, 3029).errorAsString() == "FAILED: MQRCCF_MODE_VALUE_ERROR"
    # and so do the tables programs look names up in themselves
    reasons, pcf_reasons = pymqi_flavour.MQMIError.errStringDicts
    assert (reasons[2120], reasons[2192], pcf_reasons[3029]) == (
        "MQRC_TRUNCATED",
        "MQRC_PAGESET_FULL",
        "MQRCCF_MODE_VALUE_ERROR",
    )
    assert ibmmq_flavour.MQMIError.errStringDicts[0][2120] == "MQRC_CONVERTED_MSG_TOO_BIG"


@pytest.mark.parametrize("flavour", [pymqi_flavour, ibmmq_flavour], ids=["pymqi", "ibmmq"])
def test_the_reason_name_tables_programs_read_are_there(flavour) -> None:
    # both libraries have MQMIError.errStringDicts: (MQRC_* names, MQRCCF_* names) by value
    reasons, pcf_reasons = flavour.MQMIError.errStringDicts
    assert reasons[2033] == "MQRC_NO_MSG_AVAILABLE"
    assert pcf_reasons[3008] == "MQRCCF_COMMAND_FAILED"


def test_keyword_arguments_become_attributes() -> None:
    error = ibmmq_flavour.MQMIError(1, 2079, original_length=4097, message=b"x")
    assert error.original_length == 4097 and error.get("message") == b"x"
    with pytest.raises(AttributeError):
        error.get("nothing")


def test_each_flavour_has_its_own_hierarchy() -> None:
    for flavour in (pymqi_flavour, ibmmq_flavour):
        assert issubclass(flavour.MQMIError, flavour.Error)
        assert issubclass(flavour.PYIFError, flavour.Error)
        assert issubclass(flavour.Error, errors.Error)
        assert flavour.MQMIError.__name__ == "MQMIError"
    assert not issubclass(pymqi_flavour.MQMIError, ibmmq_flavour.Error)
    with pytest.raises(pymqi_flavour.Error):
        raise pymqi_flavour.MQMIError(2, 2033)


def test_errors_pickle() -> None:
    error = pymqi_flavour.MQMIError(2, 2080, original_length=10)
    back = pickle.loads(pickle.dumps(error))
    assert type(back) is pymqi_flavour.MQMIError and str(back) == str(error)


def test_a_transport_mqerror_becomes_the_flavours_mqmierror() -> None:
    failure = MQError(2, 2085, "queue 'NOPE' is not defined")
    error = ibmmq_flavour.MQMIError.from_mq_error(failure)
    assert (error.comp, error.reason) == (2, 2085)
    # the library's text exactly; what mqjms found wrong is the error's detail
    assert str(error) == "MQI Error. Comp 2, Reason 2085: FAILED: MQRC_UNKNOWN_OBJECT_NAME"
    assert error.detail == "queue 'NOPE' is not defined"
    back = error.to_mq_error()
    assert (back.comp, back.reason, back.detail) == (2, 2085, failure.detail)
    with (
        pytest.raises(pymqi_flavour.MQMIError) as caught,
        errors.translated(pymqi_flavour.MQMIError),
    ):
        raise failure
    assert caught.value.reason == 2085 and caught.value.__cause__ is failure


def test_pymqi_reason_tables_answer_has_key_as_pymqi_s_do() -> None:
    # pymqi's errStringDicts are _MQConst2String tables, whose has_key older scripts call
    import mqjms.pymqi

    reasons, pcf_reasons = mqjms.pymqi.MQMIError.errStringDicts
    assert reasons.has_key(2033) and not reasons.has_key(-1)  # type: ignore[attr-defined]
    assert pcf_reasons.has_key(3250)  # type: ignore[attr-defined]
