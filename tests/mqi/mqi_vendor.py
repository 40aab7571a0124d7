"""Locate and load the real pymqi and ibmmq Python layers, to check the facade against them.

Nothing of theirs is in this repository. Their source distributions (and, for the
examples and tests pymqi does not ship, checkouts of their GitHub repositories) are
looked for under ``$MQJMS_VENDOR`` or ``~/.cache/mqjms/vendor``::

    pymqi-1.12.13/code/pymqi/...                 pip download --no-binary :all: pymqi==1.12.13
    ibmmq-2.1.2/code/ibmmq/...                   the sdist from PyPI's simple API, sha256-checked
    github/dsuch/pymqi/code/{examples,tests}     github.com/dsuch/pymqi
    github/ibm-messaging/mq-mqi-python/code/...  github.com/ibm-messaging/mq-mqi-python

Tests that need them skip, saying what is missing, when they are absent; with
``MQJMS_REQUIRE_VENDOR=1`` (``.ci/run`` sets it: ``scripts/setup`` fetched them) a missing
sdist file fails the test instead, so CI cannot pass with the sdists' checks skipped. The
GitHub checkouts stay optional (GitHub is not reachable from every machine, CI's included).

Both libraries import a native extension (``pymqi.pymqe``, ``ibmmq.ibmmqc``) at import
time; :func:`load_pymqi` and :func:`load_ibmmq` put a minimal stand-in module in its
place, import the package under its real name, and then restore ``sys.modules`` and
``sys.path`` so that nothing else in the test session can see them.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.metadata
import os
import sys
import types
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import NoReturn

import pytest

PYMQI_SDIST = "pymqi-1.12.13"
IBMMQ_SDIST = "ibmmq-2.1.2"
PYMQI_GITHUB = Path("github/dsuch/pymqi")
IBMMQ_GITHUB = Path("github/ibm-messaging/mq-mqi-python")

# What a pymqi 1.12 built against an MQ 8+ client reports (pymqe.c lists levels to 8.0.1).
PYMQI_LEVELS = ("5.0", "5.1", "5.2", "5.3", "6.0", "7.0", "7.1", "7.5", "8.0.0", "8.0.1")
# What ibmmq 2.1 built against the MQ 9.4 client reports (ibmmqc.c, MQxx_CURRENT_VERSION).
IBMMQ_STRUCVERSIONS: Mapping[str, int] = {
    "bno": 1,
    "cbc": 2,
    "cbd": 1,
    "cd": 13,
    "cih": 2,
    "cmho": 1,
    "cno": 8,
    "csp": 3,
    "ctlo": 1,
    "dh": 1,
    "dlh": 1,
    "dmho": 1,
    "dmpo": 1,
    "gmo": 4,
    "iih": 1,
    "impo": 1,
    "md": 2,
    "mde": 2,
    "od": 4,
    "pd": 1,
    "pmo": 3,
    "rfh": 2,
    "sco": 7,
    "sd": 1,
    "smpo": 1,
    "sro": 1,
    "sts": 2,
    "tm": 1,
    "tmc": 2,
    "xqh": 1,
}


def vendor_root() -> Path | None:
    """The directory holding the vendor sources, or None when there is none."""
    candidates = []
    if os.environ.get("MQJMS_VENDOR"):
        candidates.append(Path(os.environ["MQJMS_VENDOR"]))
    candidates.append(Path.home() / ".cache" / "mqjms" / "vendor")
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    return None


def required() -> bool:
    """Whether a missing vendor file fails (CI) rather than skips."""
    return os.environ.get("MQJMS_REQUIRE_VENDOR", "") not in ("", "0")


def absent(reason: str) -> NoReturn:
    """Skip, or fail when the vendor files are required; ``scripts/vendor.py`` fetches them."""
    reason += " (run scripts/vendor.py)"
    if required():
        pytest.fail(f"{reason}; MQJMS_REQUIRE_VENDOR is set", pytrace=False)
    pytest.skip(reason)


def _require(relative: Path | str, what: str, *, from_github: bool = False) -> Path:
    """``relative`` under the vendor directory. What comes from the package index is
    required under MQJMS_REQUIRE_VENDOR; a GitHub checkout never is: GitHub is not
    reachable from every machine that reaches PyPI (CI's included), so its absence skips."""
    root = vendor_root()
    path = None if root is None else root / relative
    if path is not None and path.exists():
        return path
    reason = f"{what}: {path or 'no vendor directory ($MQJMS_VENDOR or ~/.cache/mqjms/vendor)'}"
    if from_github:
        pytest.skip(f"{reason} is absent (GitHub unreachable? run scripts/vendor.py where it is)")
    absent(f"{reason} is absent")


def pymqi_package_dir() -> Path:
    return _require(Path(PYMQI_SDIST, "code", "pymqi"), f"the {PYMQI_SDIST} sdist")


def ibmmq_package_dir() -> Path:
    return _require(Path(IBMMQ_SDIST, "code", "ibmmq"), f"the {IBMMQ_SDIST} sdist")


def pymqi_github_code() -> Path:
    return _require(PYMQI_GITHUB / "code", "a dsuch/pymqi checkout", from_github=True)


def ibmmq_github_code() -> Path:
    return _require(
        IBMMQ_GITHUB / "code", "an ibm-messaging/mq-mqi-python checkout", from_github=True
    )


def rfh2_testdata() -> Path:
    """The captured RFH2 messages: shared/testdata/rfh2 beside the repository when it is
    there, else the same files as ibmmq's sdist ships them (tests/messages)."""
    for parent in Path(__file__).resolve().parents:
        shared = parent / "shared" / "testdata" / "rfh2"
        if shared.is_dir():
            return shared
    return _require(Path(IBMMQ_SDIST, "code", "tests", "messages"), f"the {IBMMQ_SDIST} sdist")


@contextlib.contextmanager
def _isolated_import(extra_path: list[str]) -> Iterator[None]:
    saved_modules = dict(sys.modules)
    saved_path = list(sys.path)
    sys.path[:0] = extra_path
    try:
        yield
    finally:
        sys.path[:] = saved_path
        for name in list(sys.modules):
            if name not in saved_modules:
                del sys.modules[name]
        sys.modules.update(saved_modules)


def _not_native(name: str) -> object:
    if name.startswith("__"):
        raise AttributeError(name)

    def call(*_args: object, **_kwargs: object) -> object:
        raise RuntimeError(f"{name}: the native MQI is a stand-in here")

    return call


def _stub(name: str, **attributes: object) -> types.ModuleType:
    """A native-extension stand-in: its constants, and MQI verbs that refuse to run."""
    module = types.ModuleType(name)
    for key, value in attributes.items():
        setattr(module, key, value)
    module.__getattr__ = _not_native  # type: ignore[method-assign]
    return module


def load_pymqi(levels: tuple[str, ...] = PYMQI_LEVELS) -> types.ModuleType:
    """The real pymqi package over a stand-in pymqe reporting ``levels``."""
    return _load_pymqi(levels)


@functools.cache
def _load_pymqi(levels: tuple[str, ...]) -> types.ModuleType:
    package_dir = pymqi_package_dir()
    pymqe = _stub("pymqi.pymqe", __mqlevels__=levels, __mqbuild__="client", __version__="1.12")
    with _isolated_import([str(package_dir.parent)]):
        sys.modules["pymqi.pymqe"] = pymqe
        sys.modules["pymqe"] = pymqe
        module = importlib.import_module("pymqi")
    return module


def load_ibmmq(strucversions: Mapping[str, int] | None = None) -> types.ModuleType:
    """The real ibmmq package over a stand-in ibmmqc with these structure versions."""
    versions = dict(IBMMQ_STRUCVERSIONS if strucversions is None else strucversions)
    return _load_ibmmq(tuple(sorted(versions.items())))


@functools.cache
def _load_ibmmq(strucversions: tuple[tuple[str, int], ...]) -> types.ModuleType:
    package_dir = ibmmq_package_dir()
    version = IBMMQ_SDIST.split("-", 1)[1]
    ibmmqc = _stub(
        "ibmmq.ibmmqc",
        __strucversions__=dict(strucversions),
        __version__=version,
        __cmdlevel__=940,
        __mqbuild__="common",
        __mqlevels__=(),
        MQCBINIT=lambda _callback: None,
    )
    real_version = importlib.metadata.version

    def version_of(name: str) -> str:
        return version if name == "ibmmq" else real_version(name)

    saved_otel = os.environ.get("MQIPY_NOOTEL")
    os.environ["MQIPY_NOOTEL"] = "1"
    try:
        with _isolated_import([str(package_dir.parent), str(package_dir)]):
            sys.modules["ibmmq.ibmmqc"] = ibmmqc
            sys.modules["ibmmqc"] = ibmmqc
            importlib.metadata.version = version_of
            try:
                module = importlib.import_module("ibmmq")
            finally:
                importlib.metadata.version = real_version
    finally:
        if saved_otel is None:
            os.environ.pop("MQIPY_NOOTEL", None)
        else:
            os.environ["MQIPY_NOOTEL"] = saved_otel
    return module
