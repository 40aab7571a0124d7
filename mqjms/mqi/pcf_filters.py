"""PCF filters as pymqi and ibmmq programs write them, applied to a command's responses.

``pcf.MQCMD_INQUIRE_Q(params, [Filter(MQIA_CURRENT_Q_DEPTH).greater(0)])``: each filter
(or an MQCFIF / MQCFSF / MQCFBF structure) keeps the responses whose attribute passes its
operator, as the command server does; a response without the attribute is left out.
String values compare with trailing blanks ignored, and ``like`` takes IBM's generic
value: a trailing ``*`` matches any ending.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping
from collections.abc import Set as AbstractSet
from typing import Any

from mqjms.mq.errors import failed
from mqjms.mqi.constants import CMQC, CMQCFC

from .errors import PYIFError


class _Filter:
    """A filter: the attribute's selector, the value, and an MQCFOP_* operator."""

    kind = ""

    def __init__(self, selector: int, value: Any, operator: int) -> None:
        self.selector = selector
        self.value = value.encode("utf-8") if isinstance(value, str) else value
        self.operator = operator

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.selector}:{self.value!r}:{self.operator}>"


class StringFilter(_Filter):
    kind = "string"


class IntegerFilter(_Filter):
    kind = "integer"


class ByteStringFilter(_Filter):
    kind = "bytestring"


_OPERATORS = {
    "less": CMQCFC.MQCFOP_LESS,
    "equal": CMQCFC.MQCFOP_EQUAL,
    "greater": CMQCFC.MQCFOP_GREATER,
    "not_less": CMQCFC.MQCFOP_NOT_LESS,
    "not_equal": CMQCFC.MQCFOP_NOT_EQUAL,
    "not_greater": CMQCFC.MQCFOP_NOT_GREATER,
    "like": CMQCFC.MQCFOP_LIKE,
    "not_like": CMQCFC.MQCFOP_NOT_LIKE,
    "contains": CMQCFC.MQCFOP_CONTAINS,
    "excludes": CMQCFC.MQCFOP_EXCLUDES,
    "contains_gen": CMQCFC.MQCFOP_CONTAINS_GEN,
    "excludes_gen": CMQCFC.MQCFOP_EXCLUDES_GEN,
}


class FilterOperator:
    """``Filter(selector).greater``: called with the value, it makes the filter."""

    def __init__(self, selector: int, name: str, error: type[Exception] = PYIFError) -> None:
        if CMQC.MQIA_FIRST <= selector <= CMQC.MQIA_LAST:
            self.filter_cls: type[_Filter] = IntegerFilter
        elif CMQC.MQCA_FIRST <= selector <= CMQC.MQCA_LAST:
            self.filter_cls = StringFilter
        elif CMQC.MQBA_FIRST <= selector <= CMQC.MQBA_LAST:
            self.filter_cls = ByteStringFilter
        else:
            raise error(f"selector [{selector}] is neither an integer nor a string attribute")
        found = _OPERATORS.get(name)
        if found is None:
            raise error(f"Operator [{name}] is not supported.")
        self.selector, self.operator = selector, found

    def __call__(self, value: Any) -> _Filter:
        return self.filter_cls(self.selector, value, self.operator)


class Filter:
    """``Filter(MQCA_Q_NAME).like(b'APP.*')``: any operator name is an attribute. An
    unknown one raises ``ERROR``: each flavour's own PYIFError, which ``except Error``
    catches as in the library."""

    ERROR: type[Exception] = PYIFError

    def __init__(self, selector: int) -> None:
        self.selector = selector

    def __getattribute__(self, name: str) -> Any:
        if name == "selector":
            return object.__getattribute__(self, name)
        return FilterOperator(self.selector, name, type(self).ERROR)


# The parameters that list the attributes a response holds (MQIACF_Q_ATTRS, ...).
_ATTRIBUTE_LISTS = tuple(
    int(getattr(CMQCFC, name))
    for name in dir(CMQCFC)
    if name.startswith("MQIACF_") and name.endswith("_ATTRS")
)


def widen(params: dict[int, Any], filters: Iterable[Any]) -> set[int]:
    """Add the filtered attributes to an attribute list ``params`` names (a filter tests
    an attribute whether or not the response is to show it); those added."""
    selectors = {_selector(f) for f in filters}
    added: set[int] = set()
    for key in _ATTRIBUTE_LISTS:
        wanted = params.get(key)
        if not isinstance(wanted, list) or CMQCFC.MQIACF_ALL in wanted:
            continue
        missing = selectors - set(wanted)
        params[key] = [*wanted, *sorted(missing)]
        added |= missing
    return added


def keep(
    responses: list[dict[int, Any]], filters: Iterable[Any], hidden: AbstractSet[int] = frozenset()
) -> list[dict[int, Any]]:
    """The responses every filter passes, without the ``hidden`` attributes. A filter on
    an attribute no response holds (one mqjms does not keep) is MQRCCF_FILTER_ERROR:
    passing or failing every object would both be wrong."""
    filters = list(filters)
    held = set().union(*(response.keys() for response in responses))
    for pcf_filter in filters:
        if responses and _selector(pcf_filter) not in held:
            raise failed(
                CMQCFC.MQRCCF_FILTER_ERROR,
                f"no response holds attribute {_selector(pcf_filter)} to filter on: mqjms "
                "does not keep it for these objects",
            )
    tests = [_test(f) for f in filters]
    return [
        {k: v for k, v in r.items() if k not in hidden}
        for r in responses
        if all(test(r) for test in tests)
    ]


def _selector(pcf_filter: Any) -> int:
    try:
        return int(getattr(pcf_filter, "selector", None) or pcf_filter.Parameter)
    except (AttributeError, TypeError, ValueError):
        raise failed(
            CMQCFC.MQRCCF_FILTER_ERROR,
            f"{pcf_filter!r} is not a PCF filter (a Filter(...).operator(value) or a CF*F)",
        ) from None


_COMPARE: Mapping[int, Callable[[Any, Any], bool]] = {
    CMQCFC.MQCFOP_LESS: operator.lt,
    CMQCFC.MQCFOP_EQUAL: operator.eq,
    CMQCFC.MQCFOP_GREATER: operator.gt,
    CMQCFC.MQCFOP_NOT_LESS: operator.ge,
    CMQCFC.MQCFOP_NOT_EQUAL: operator.ne,
    CMQCFC.MQCFOP_NOT_GREATER: operator.le,
}


def _test(pcf_filter: Any) -> Callable[[Mapping[int, Any]], bool]:
    """A predicate on a response for a filter object or an MQCF*F structure."""
    selector = _selector(pcf_filter)
    try:
        op = int(getattr(pcf_filter, "operator", None) or pcf_filter.Operator)
        wanted = pcf_filter.value if hasattr(pcf_filter, "value") else pcf_filter.FilterValue
    except (AttributeError, TypeError, ValueError):
        raise failed(
            CMQCFC.MQRCCF_FILTER_ERROR,
            f"{pcf_filter!r} is not a PCF filter (a Filter(...).operator(value) or a CF*F)",
        ) from None
    if op not in _COMPARE and op not in (
        CMQCFC.MQCFOP_LIKE,
        CMQCFC.MQCFOP_NOT_LIKE,
        CMQCFC.MQCFOP_CONTAINS,
        CMQCFC.MQCFOP_EXCLUDES,
        CMQCFC.MQCFOP_CONTAINS_GEN,
        CMQCFC.MQCFOP_EXCLUDES_GEN,
    ):
        raise failed(CMQCFC.MQRCCF_FILTER_ERROR, f"PCF filter operator {op} is not valid")

    def test(response: Mapping[int, Any]) -> bool:
        if selector not in response:
            return False
        return _passes(op, response[selector], _comparable(wanted))

    return test


def _passes(op: int, value: Any, wanted: Any) -> bool:
    if isinstance(value, list):
        items = [_comparable(v) for v in value]
        if op in (CMQCFC.MQCFOP_CONTAINS, CMQCFC.MQCFOP_EXCLUDES):
            return (wanted in items) == (op == CMQCFC.MQCFOP_CONTAINS)
        found = any(_generic(item, wanted) for item in items)
        return found == (op == CMQCFC.MQCFOP_CONTAINS_GEN)
    value = _comparable(value)
    if op in (CMQCFC.MQCFOP_LIKE, CMQCFC.MQCFOP_NOT_LIKE):
        return _generic(value, wanted) == (op == CMQCFC.MQCFOP_LIKE)
    compare = _COMPARE.get(op)
    if compare is None or type(value) is not type(wanted):
        return False
    return compare(value, wanted)


def _comparable(value: Any) -> Any:
    """Strings as bytes without trailing blanks or NULs; ints as they are."""
    if isinstance(value, str):
        value = value.encode("utf-8")
    if isinstance(value, bytes | bytearray):
        return bytes(value).rstrip(b" \x00")
    return value


def _generic(value: Any, wanted: Any) -> bool:
    if not isinstance(value, bytes) or not isinstance(wanted, bytes):
        return bool(value == wanted)
    if wanted.endswith(b"*"):
        return value.startswith(wanted[:-1])
    return value == wanted
