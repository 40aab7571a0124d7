"""Our constant modules hold every name pymqi's and ibmmq's programs use, with the same values.

The names the public examples and tests of dsuch/pymqi and ibm-messaging/mq-mqi-python
reference (``CMQC.MQGMO_WAIT``, ``pymqi.CMQCFC.MQCMD_PING_Q_MGR``, ``mq.CMQSTRC.MQRC_DICT``)
must exist in the flavour's module with the value the real library's module gives; and,
more broadly, every name of the real modules. Values only are compared: the modules are
ours. Skipped, saying why, without the vendor sources (tests/mqi/mqi_vendor.py).
"""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

import pytest

from mqjms.mqi.constants import CMQSTRC
from mqjms.mqi.constants.flavours import constants
from tests.mqi import mqi_vendor as vendor

REFERENCE = re.compile(r"\b(CMQC|CMQXC|CMQCFC|CMQZC|CMQSTRC)\.([A-Z][A-Za-z0-9_]*)")
MODULES = ("CMQC", "CMQXC", "CMQCFC", "CMQZC")


def library(flavour: str) -> ModuleType:
    return vendor.load_pymqi() if flavour == "pymqi" else vendor.load_ibmmq()


def program_sources(flavour: str) -> list[Path]:
    if flavour == "pymqi":
        roots = [vendor.pymqi_github_code()]
    else:  # the GitHub checkout, and the sdist's newer examples and tests
        roots = [vendor.ibmmq_github_code(), vendor.ibmmq_package_dir().parent]
    files: list[Path] = []
    for root in roots:
        for folder in ("examples", "tests"):
            files += sorted((root / folder).rglob("*.py"))
    assert files, f"no examples or tests under {roots}"
    return files


def references(files: list[Path]) -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for path in files:
        found |= set(REFERENCE.findall(path.read_text(encoding="utf-8", errors="replace")))
    return found


@pytest.mark.parametrize("flavour", ["pymqi", "ibmmq"])
def test_every_name_the_programs_use_is_ours_with_the_same_value(flavour: str) -> None:
    real = library(flavour)
    used = references(program_sources(flavour))
    assert len(used) > 100
    missing, different = [], []
    for module_name, name in sorted(used):
        if module_name == "CMQSTRC" and flavour == "pymqi":
            continue  # pymqi has no CMQSTRC; ibmmq's is checked below
        real_module = getattr(real, module_name, None)
        if real_module is None or not hasattr(real_module, name):
            continue  # a name the library itself lacks: the program would fail there too
        ours = CMQSTRC if module_name == "CMQSTRC" else constants(flavour, module_name)
        if not hasattr(ours, name):
            missing.append(f"{module_name}.{name}")
        elif getattr(ours, name) != getattr(real_module, name):
            different.append(f"{module_name}.{name}")
    assert not missing, missing
    assert not different, different


@pytest.mark.parametrize("flavour", ["pymqi", "ibmmq"])
@pytest.mark.parametrize("module_name", MODULES)
def test_every_constant_of_the_library_is_ours(flavour: str, module_name: str) -> None:
    real_module = getattr(library(flavour), module_name, None)
    if real_module is None:
        pytest.skip(f"{flavour} has no {module_name}")
    ours = constants(flavour, module_name)
    theirs = {k: v for k, v in vars(real_module).items() if k.startswith("MQ")}
    mismatched = [k for k, v in theirs.items() if getattr(ours, k, object()) != v]
    assert not mismatched, mismatched[:20]


def test_cmqstrc_dicts_are_ibmmqs() -> None:
    real = vendor.load_ibmmq().CMQSTRC
    dicts = {k: v for k, v in vars(real).items() if k.endswith("_DICT")}
    assert len(dicts) > 300
    for name, mapping in dicts.items():
        assert getattr(CMQSTRC, name) == mapping, name


def test_every_reason_code_has_its_name() -> None:
    # errorAsString needs them all: every MQRC_* and MQRCCF_* of either library (but the
    # range markers MQRC_APPL_FIRST/LAST, which IBM's CMQSTRC leaves out too)
    for flavour in ("pymqi", "ibmmq"):
        real = library(flavour)
        for module, prefix, mapping in (
            (real.CMQC, "MQRC_", CMQSTRC.MQRC_DICT),
            (real.CMQCFC, "MQRCCF_", CMQSTRC.MQRCCF_DICT),
        ):
            for name, value in vars(module).items():
                if name.startswith(prefix) and not name.endswith(("_FIRST", "_LAST")):
                    assert value in mapping, name
