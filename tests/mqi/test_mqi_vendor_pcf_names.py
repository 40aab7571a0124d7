"""``PCFExecute.stringify_keys`` names every selector as the real pymqi 1.12 and ibmmq 2.1
do (same names, same ints left unnamed), for bytes and integer values. Skipped, saying
why, without the sdists."""

from __future__ import annotations

from types import ModuleType

import pytest

import mqjms.ibmmq
import mqjms.pymqi
from tests.mqi import mqi_vendor as vendor


def _selectors(*modules: ModuleType) -> set[int]:
    prefixes = ("MQIA", "MQCA", "MQBACF")
    return {
        value
        for module in modules
        for name, value in vars(module).items()
        if name.startswith(prefixes) and isinstance(value, int)
    }


@pytest.mark.parametrize("value", [b"x", 1], ids=["bytes", "int"])
@pytest.mark.parametrize("flavour", ["pymqi", "ibmmq"])
def test_stringify_keys_is_the_libraries(flavour: str, value: object) -> None:
    real = vendor.load_pymqi() if flavour == "pymqi" else vendor.load_ibmmq()
    ours = mqjms.pymqi if flavour == "pymqi" else mqjms.ibmmq
    # the selectors the library knows (our pymqi flavour's CMQC is of a later MQ)
    raw = {selector: value for selector in _selectors(real.CMQC, real.CMQCFC)}
    assert ours.PCFExecute.stringify_keys(raw) == real.PCFExecute.stringify_keys(raw)


@pytest.mark.parametrize(
    ("flavour", "table"),
    [
        ("pymqi", "iaStringDict"),
        ("pymqi", "caStringDict"),
        ("ibmmq", "iaStringDict"),
        ("ibmmq", "caStringDict"),
        ("ibmmq", "baStringDict"),
    ],
)
def test_the_name_tables_are_the_libraries(flavour: str, table: str) -> None:
    real = vendor.load_pymqi() if flavour == "pymqi" else vendor.load_ibmmq()
    ours = mqjms.pymqi if flavour == "pymqi" else mqjms.ibmmq
    theirs = getattr(real.PCFExecute, table)
    named = getattr(ours.PCFExecute, table)
    for selector in _selectors(real.CMQC, real.CMQCFC):
        assert (selector in named) == (selector in theirs), selector
        if selector in theirs:
            assert named[selector] == theirs[selector]
