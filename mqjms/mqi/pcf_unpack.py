"""``PCFExecute.unpack``: a PCF message as pymqi 1.12 and ibmmq 2.1 read it.

Programs that read event, statistics and accounting messages themselves (DataDog's
``ibm_mq`` check, queue depth monitors) call ``PCFExecute.unpack(message)`` and get
``(values, CFH)`` in both libraries: values a dict keyed by parameter, a group
(MQCFGR) a list under its parameter with one dict per occurrence
(``values[MQGACF_Q_STATISTICS_DATA] == [{MQCA_Q_NAME: ...}, ...]``), integer and string
lists as lists, a filter as ``(Operator, FilterValue)``. A CFH whose CompCode is not
MQCC_OK raises MQMIError; a parameter type neither library reads, NotImplementedError.

Strings differ by flavour: ibmmq 2.1 returns StringLength bytes; pymqi also the NULs that
round the structure up to a multiple of 4 (``b'QM1\\x00'``). Both read a string of
StringLength 0 or 1 as empty. Groups in groups (activity reports) nest here, a list in
the outer group's dict; both libraries put the inner group at the top level and stop
reading parameters early, which no program relies on.
"""

from __future__ import annotations

from typing import Any

from mqjms.mq import constants as C
from mqjms.mq import pcf as mqpcf
from mqjms.mq.errors import MQError
from mqjms.mqi.constants import CMQC, CMQCFC

from .flavour import Flavour
from .pcf_params import CFBF, CFIF, CFSF, padded_count

_FILTERS: dict[int, tuple[type[CFIF | CFSF | CFBF], int]] = {
    CMQCFC.MQCFT_INTEGER_FILTER: (CFIF, 0),
    CMQCFC.MQCFT_STRING_FILTER: (CFSF, CMQCFC.MQCFSF_STRUC_LENGTH_FIXED),
    CMQCFC.MQCFT_BYTE_STRING_FILTER: (CFBF, CMQCFC.MQCFBF_STRUC_LENGTH_FIXED),
}

# (length error, value length error) of each filter type, as IBM's command server names them
_FILTER_ERRORS: dict[int, tuple[int, int]] = {
    CMQCFC.MQCFT_INTEGER_FILTER: (CMQCFC.MQRCCF_CFIF_LENGTH_ERROR,) * 2,
    CMQCFC.MQCFT_STRING_FILTER: (
        CMQCFC.MQRCCF_CFSF_LENGTH_ERROR,
        CMQCFC.MQRCCF_CFSF_FILTER_VAL_LEN_ERR,
    ),
    CMQCFC.MQCFT_BYTE_STRING_FILTER: (
        CMQCFC.MQRCCF_CFBF_LENGTH_ERROR,
        CMQCFC.MQRCCF_CFBF_FILTER_VAL_LEN_ERR,
    ),
}


def unpack(flavour: Flavour, message: bytes) -> tuple[dict[int, Any], Any]:
    """``(values, CFH)`` of a PCF message in native encoding (see the module docstring)."""
    cfh = flavour.structure("CFH")
    cfh.unpack(bytes(message[: mqpcf.MQCFH_STRUC_LENGTH]))
    if cfh.CompCode != CMQC.MQCC_OK:
        raise flavour.MQMIError(cfh.CompCode, cfh.Reason)
    _header, parameters = mqpcf.parse_pcf(message, CMQC.MQENC_NATIVE)
    return _values(flavour, parameters), cfh


def _values(flavour: Flavour, parameters: list[mqpcf.AnyParameter]) -> dict[int, Any]:
    out: dict[int, Any] = {}
    for parameter in parameters:
        if isinstance(parameter, mqpcf.MQCFGR):
            out.setdefault(parameter.Parameter, []).append(
                _values(flavour, list(parameter.Parameters))
            )
        else:
            out[parameter.Parameter] = _value(flavour, parameter)
    return out


def _value(flavour: Flavour, parameter: mqpcf.AnyParameter) -> Any:
    if isinstance(parameter, mqpcf.MQCFIN | mqpcf.MQCFIN64):
        return parameter.Value
    if isinstance(parameter, mqpcf.MQCFIL | mqpcf.MQCFIL64):
        return list(parameter.Values)
    if isinstance(parameter, mqpcf.MQCFSL):
        return list(parameter.Strings) if parameter.StringLength > 1 else [b""]
    if isinstance(parameter, mqpcf.MQCFST):
        if len(parameter.String) <= 1:
            return b""
        if flavour.name == "ibmmq":  # 2.1 cuts the padding off
            return parameter.String
        return _nul_padded(parameter.String)
    if isinstance(parameter, mqpcf.MQCFBS):
        return _nul_padded(parameter.String) if len(parameter.String) > 1 else b""
    if isinstance(parameter, mqpcf.PCFOther):
        return _filter(parameter)
    raise NotImplementedError(f"Unpack for type (({parameter.TYPE},)) not implemented")


def _nul_padded(raw: bytes) -> bytes:
    return raw.ljust(padded_count(len(raw)), b"\x00")


def _filter(parameter: mqpcf.PCFOther) -> tuple[int, Any]:
    """``(Operator, FilterValue)`` of an MQCFIF, MQCFSF or MQCFBF."""
    structure = filter_structure(parameter)
    if structure is None:
        raise NotImplementedError(f"Unpack for type (({parameter.Type},)) not implemented")
    return structure.Operator, structure.FilterValue


def filter_structure(parameter: mqpcf.PCFOther) -> Any:
    """The CFIF, CFSF or CFBF a parameter is (None when it is no filter): the command
    server applies a hand-built request's filters with them."""
    found = _FILTERS.get(parameter.Type)
    if found is None:
        return None
    cls, fixed = found
    structure: Any = cls()
    data = parameter.data
    length_error, value_error = _FILTER_ERRORS[parameter.Type]
    if len(data) < (fixed or structure.get_length()):
        raise MQError(C.MQCC_FAILED, length_error, f"a filter of {len(data)} bytes is too short")
    if fixed:  # a string filter: its value's length first, within the structure
        structure.unpack(data[:fixed])
        value_length = structure.FilterValueLength
        if not 0 <= value_length <= len(data) - fixed:
            raise MQError(
                C.MQCC_FAILED,
                value_error,
                f"a filter value of {value_length} bytes in a {len(data)}-byte structure",
            )
        if value_length > 0:
            structure = cls(FilterValueLength=value_length)
    structure.unpack(data[: structure.get_length()])
    return structure
