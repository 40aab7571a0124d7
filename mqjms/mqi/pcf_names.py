"""Selector names for PCF responses, as each library's ``PCFExecute.stringify_keys`` gives them.

Monitoring scripts index ``stringify_keys(response)`` by name (``'MQCA_Q_NAME'``,
``'MQCACH_CHANNEL_NAME'`` in a connection's response) and by the int of a selector the
library has no name for (``MQBACF_CONNECTION_ID``), so the names and what is left as it was
follow the libraries: the table is chosen by the value's type (bytes: character selectors,
else integer ones), a str value is their TypeError, a selector without a name keeps its int.
ibmmq 2.1 names MQCA_, MQCACF_ and MQCACH_ (MQIA_, MQIACF_, MQIACH_) from CMQSTRC; pymqi
1.12 only CMQC's MQCA_ (MQIA_) constants, the one defined last winning a shared value.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from mqjms.mqi.constants import CMQSTRC

from .flavour import Flavour


@functools.cache
def character_names(flavour: Flavour) -> dict[int, str]:
    """The names of character selectors (``caStringDict``)."""
    if flavour.name == "pymqi":
        return _constant_names(flavour, "MQCA_")
    return _merged("MQCA_DICT", "MQCACF_DICT", "MQCACH_DICT")


@functools.cache
def integer_names(flavour: Flavour) -> dict[int, str]:
    """The names of integer selectors (``iaStringDict``)."""
    if flavour.name == "pymqi":
        return _constant_names(flavour, "MQIA_")
    return _merged("MQIA_DICT", "MQIACF_DICT", "MQIACH_DICT")


@functools.cache
def byte_names(flavour: Flavour) -> dict[int, str]:
    """The names of byte-string selectors (ibmmq's ``baStringDict``; stringify_keys does
    not use it, as in ibmmq)."""
    return _merged("MQBACF_DICT")


class Table:
    """A name table as a class attribute of PCFExecute (``iaStringDict``...), built for
    the class's flavour on first use rather than at import."""

    def __init__(self, build: Callable[[Flavour], dict[int, str]]) -> None:
        self._build = build

    def __get__(self, instance: object, owner: Any) -> dict[int, str]:
        return self._build(owner.FLAVOUR)


def stringify_keys(
    raw: dict[Any, Any], integers: Mapping[int, str], characters: Mapping[int, str]
) -> dict[Any, Any]:
    """``raw`` with each selector replaced by its name where the library has one: from
    ``characters`` for a bytes value, else from ``integers``."""
    named: dict[Any, Any] = {}
    for key, value in raw.items():
        if isinstance(value, str):
            raise TypeError(f'In Python 3 use bytes, not str (found "{key}":"{value}")')
        names = characters if isinstance(value, bytes) else integers
        # `in` and [], not .get: a table a program put in may be pymqi's, which has no get
        named[names[key] if key in names else key] = value  # noqa: SIM401
    return named


def _merged(*tables: str) -> dict[int, str]:
    merged: dict[int, str] = {}
    for table in tables:
        merged.update(getattr(CMQSTRC, table))
    return merged


class ConstantNames(dict[int, str]):
    """pymqi's name table: a dict that also answers pymqi's ``has_key``, which scripts
    written for Python 2 still call (``PCFExecute.iaStringDict.has_key(selector)``)."""

    def has_key(self, key: int) -> bool:
        return key in self


def _constant_names(flavour: Flavour, prefix: str) -> dict[int, str]:
    """value -> name over the flavour's CMQC, as pymqi's ``_MQConst2String`` builds it
    (later names win); the ``*_LAST_USED`` markers are no attribute's name."""
    names = ConstantNames()
    for name, value in vars(flavour.CMQC).items():
        if name.startswith(prefix) and not name.endswith("_LAST_USED"):
            names[value] = name
    return names
