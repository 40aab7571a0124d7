"""CMQSTRC: value -> name dicts (``MQRC_DICT[2033] == 'MQRC_NO_MSG_AVAILABLE'``), as ibmmq has.

Each dict holds the names IBM's CMQSTRC maps (one name per value); the values are
looked up in our constant tables when this module is imported; a value above 2**31 - 1
(a mask such as MQRO_ACCEPT_UNSUP_MASK) is a key as the negative MQLONG it is, as there.
ibmmq's ``MQI_VALUE_NAME_LIST`` (a listing nothing reads) is not provided.
"""

from __future__ import annotations

from mqjms.mqi.constants import CMQC, CMQCFC, CMQXC, CMQZC, _cmqstrc_extras
from mqjms.mqi.constants._cmqstrc_names import NAMES


def _values() -> dict[str, object]:
    values: dict[str, object] = {}
    for module in (_cmqstrc_extras, CMQZC, CMQCFC, CMQXC, CMQC):
        values.update((k, v) for k, v in vars(module).items() if k.startswith("MQ"))
    return values


def _build() -> dict[str, dict[int, str]]:
    values = _values()
    built: dict[str, dict[int, str]] = {}
    for dict_name, names in NAMES.items():
        mapping: dict[int, str] = {}
        for name in names:
            value = values[name]
            assert isinstance(value, int), name
            mapping[value - 2**32 if value >= 2**31 else value] = name  # as an MQLONG
        built[dict_name] = mapping
    return built


_DICTS = _build()
globals().update(_DICTS)


def __getattr__(name: str) -> dict[int, str]:
    """Typed access to the dicts for type checkers (they are module globals at run time)."""
    try:
        return _DICTS[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
