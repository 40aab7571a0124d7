"""The real pymqi 1.12.13 and ibmmq 2.1.2 Python layers, loaded over the stand-in native
extension of :mod:`.stand_in` (their sdists come from scripts/vendor.py; tests skip,
saying what is missing, without them).

Each package is imported once, under its real name, and then taken out of
``sys.modules`` again (as tests/mqi/mqi_vendor.py does), so that nothing else in the
session sees it; :func:`installed` puts it back as ``pymqi``/``ibmmq`` for the duration of
a test, which is where the ``mq://`` transport imports it from.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.metadata
import os
import sys
import types
from collections.abc import Iterator

from tests.mqi import mqi_vendor

from .stand_in import ibmmqc_module, pymqe_module

LIBRARIES = ("ibmmq", "pymqi")


@functools.cache
def load_pymqi() -> types.ModuleType:
    package_dir = mqi_vendor.pymqi_package_dir()
    pymqe = pymqe_module(mqi_vendor.PYMQI_LEVELS)
    with mqi_vendor._isolated_import([str(package_dir.parent)]):
        sys.modules["pymqi.pymqe"] = pymqe
        sys.modules["pymqe"] = pymqe
        return importlib.import_module("pymqi")


@functools.cache
def load_ibmmq() -> types.ModuleType:
    package_dir = mqi_vendor.ibmmq_package_dir()
    version = mqi_vendor.IBMMQ_SDIST.split("-", 1)[1]
    ibmmqc = ibmmqc_module(dict(mqi_vendor.IBMMQ_STRUCVERSIONS), version)
    real_version = importlib.metadata.version

    def version_of(name: str) -> str:
        return version if name == "ibmmq" else real_version(name)

    saved_otel = os.environ.get("MQIPY_NOOTEL")
    os.environ["MQIPY_NOOTEL"] = "1"
    try:
        with mqi_vendor._isolated_import([str(package_dir.parent), str(package_dir)]):
            sys.modules["ibmmq.ibmmqc"] = ibmmqc
            sys.modules["ibmmqc"] = ibmmqc
            importlib.metadata.version = version_of
            try:
                return importlib.import_module("ibmmq")
            finally:
                importlib.metadata.version = real_version
    finally:
        if saved_otel is None:
            os.environ.pop("MQIPY_NOOTEL", None)
        else:
            os.environ["MQIPY_NOOTEL"] = saved_otel


def load(name: str) -> types.ModuleType:
    return load_ibmmq() if name == "ibmmq" else load_pymqi()


@contextlib.contextmanager
def installed(name: str) -> Iterator[types.ModuleType]:
    """``import <name>`` gives the real library over the stand-in while this lasts."""
    module = load(name)
    saved = sys.modules.get(name)
    sys.modules[name] = module
    try:
        yield module
    finally:
        if saved is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = saved
