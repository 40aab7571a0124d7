"""PCFExecute's selector-name tables and ``stringify_keys``, as each library has them.

Monitoring scripts print PCF results with ``pcf.stringify_keys(result)`` or look names up
in ``PCFExecute.iaStringDict`` / ``caStringDict`` themselves. Both libraries pick the table
by the value's type (bytes: the MQCA one, else the MQIA one) and keep a selector the table
does not name as the int it is; pymqi's tables hold CMQC's ``MQIA_``/``MQCA_`` names alone
(the last name a value has in CMQC wins), ibmmq's also the PCF and channel ones.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import ModuleType
from typing import Any


class ConstantNames(Mapping[int, str]):
    """pymqi's ``_MQConst2String``: value -> name of a constant module's names with a
    prefix, built when first read (``in``, ``[]``, ``has_key``)."""

    def __init__(self, module: ModuleType, prefix: str) -> None:
        self._module = module
        self._prefix = prefix
        self._names: dict[int, str] | None = None

    def _built(self) -> dict[int, str]:
        if self._names is None:
            self._names = {
                value: name
                for name, value in vars(self._module).items()
                if name.startswith(self._prefix) and isinstance(value, int)
            }
        return self._names

    def __getitem__(self, code: int) -> str:
        return self._built()[code]

    def __iter__(self) -> Iterator[int]:
        return iter(self._built())

    def __len__(self) -> int:
        return len(self._built())

    def has_key(self, key: int) -> bool:
        """pymqi's deprecated spelling of ``key in names``."""
        return key in self


def merged(*tables: Mapping[int, str]) -> dict[int, str]:
    """ibmmq's tables: several CMQSTRC dicts in one, later ones winning."""
    out: dict[int, str] = {}
    for table in tables:
        out.update(table)
    return out


def stringify_keys(
    raw: Mapping[Any, Any], integer_names: Mapping[int, str], string_names: Mapping[int, str]
) -> dict[Any, Any]:
    """``raw`` with the selectors the tables name replaced by their names; a str value is
    the libraries' TypeError (PCF answers bytes)."""
    out: dict[Any, Any] = {}
    for key, value in raw.items():
        if isinstance(value, str):
            raise TypeError(f'In Python 3 use bytes, not str (found "{key}":"{value}")')
        names = string_names if isinstance(value, bytes) else integer_names
        out[names.get(key, key)] = value
    return out


__all__ = ["ConstantNames", "merged", "stringify_keys"]
