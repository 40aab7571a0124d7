"""The Broker helpers (tests/conftest.py) for ``mq://``, one per library.

Without ``MQJMS_TEST_MQ_URL`` the queue manager is an embedded one behind the stand-in
native extension (:mod:`.stand_in`), administered directly (MQSC attributes as for the
embedded transport); a restart breaks every hconn (2009, as clients see when a queue
manager ends) and restarts it. With ``MQJMS_TEST_MQ_URL=mq://QM1@host(1414)/CHL`` the
suites run against that real queue manager through the installed library, administered
with PCF commands (``PCFExecute``) over the same URL; it cannot be restarted from here.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import pytest

from mqjms.mq import constants as C
from mqjms.mq.errors import MQError
from mqjms.transport import embedded
from mqjms.transport.ibmmq import MQConnection
from tests.conftest import Broker, EmbeddedBroker, features_of

from . import libraries
from .stand_in import STAND_IN

REAL_URL_VAR = "MQJMS_TEST_MQ_URL"
QMGR = "QM1"


class StandInBroker(EmbeddedBroker):
    """mq:// through ``library``'s real Python layer over the stand-in (in this process
    only: a child process cannot reach it, so tests that need ``processes`` skip)."""

    features = features_of(MQConnection.capabilities, "restart")

    def __init__(self, directory: Path, library: str) -> None:
        super().__init__(directory)
        self._url = f"embedded://{directory}?qmgr={QMGR}"
        self.name = f"mq-{library}"
        self.library = library
        self._exit = contextlib.ExitStack()
        self._exit.enter_context(libraries.installed(library))
        STAND_IN.reset(self._url)

    @property
    def url(self) -> str:
        return f"mq://{QMGR}@localhost(1414)/DEV.APP.SVRCONN?library={self.library}"

    @property
    def backing_url(self) -> str:
        """The embedded queue manager behind the stand-in (to look at it from outside)."""
        return self._url

    def restart(self) -> None:
        STAND_IN.break_connections()
        super().restart()

    def close(self) -> None:
        try:
            STAND_IN.close_all()
            super().close()
        finally:
            self._exit.close()


# MQSC attribute -> (PCF parameter, kind) for what the suites define and alter.
_PCF_ATTRS: dict[str, tuple[str, str]] = {
    "BOTHRESH": ("MQIA_BACKOUT_THRESHOLD", "int"),
    "BOQNAME": ("MQCA_BACKOUT_REQ_Q_NAME", "str"),
    "MAXDEPTH": ("MQIA_MAX_Q_DEPTH", "int"),
    "MAXMSGL": ("MQIA_MAX_MSG_LENGTH", "int"),
    "DEFPSIST": ("MQIA_DEF_PERSISTENCE", "yesno"),
    "GET": ("MQIA_INHIBIT_GET", "enabled"),
    "PUT": ("MQIA_INHIBIT_PUT", "enabled"),
    "TARGET": ("MQCA_BASE_Q_NAME", "str"),
    "DESCR": ("MQCA_Q_DESC", "str"),
}


class RealQueueManagerBroker(Broker):
    """A real queue manager at MQJMS_TEST_MQ_URL, administered with PCF."""

    features = features_of(MQConnection.capabilities, "processes")

    def __init__(self, url: str, library: str) -> None:
        self.name = f"mq-{library}"
        self.library = library
        self._url = (
            url if "library=" in url else f"{url}{'&' if '?' in url else '?'}library={library}"
        )
        from mqjms.transport import connect

        conn = connect(self._url)
        assert isinstance(conn, MQConnection)
        self._conn = conn
        self._module: Any = conn.library.module
        self._pcf = self._module.PCFExecute(conn._qm)

    @property
    def url(self) -> str:
        return self._url

    def _args(self, attrs: dict[str, object]) -> dict[int, object]:
        cmqc, cmqcfc = self._module.CMQC, self._module.CMQCFC
        args: dict[int, object] = {}
        for key, value in attrs.items():
            if key.upper() not in _PCF_ATTRS:
                pytest.skip(f"MQSC attribute {key} is not mapped to PCF for a real queue manager")
            name, kind = _PCF_ATTRS[key.upper()]
            selector = getattr(cmqc, name, None) or getattr(cmqcfc, name)
            text = str(value).upper()
            if kind == "int":
                args[selector] = int(str(value))
            elif kind == "yesno":
                args[selector] = (
                    cmqc.MQPER_PERSISTENT if text == "YES" else cmqc.MQPER_NOT_PERSISTENT
                )
            elif kind == "enabled":
                args[selector] = (
                    cmqc.MQQA_GET_ALLOWED if text == "ENABLED" else cmqc.MQQA_GET_INHIBITED
                )
            else:
                args[selector] = str(value).encode()
        return args

    def _command(self, command: str, args: dict[int, object]) -> None:
        getattr(self._pcf, command)(args)

    def define_queue(self, name: str, **attrs: object) -> None:
        cmqc, cmqcfc = self._module.CMQC, self._module.CMQCFC
        args = {cmqc.MQCA_Q_NAME: name.encode(), cmqc.MQIA_Q_TYPE: cmqc.MQQT_LOCAL,
                cmqcfc.MQIACF_REPLACE: cmqcfc.MQRP_YES}  # fmt: skip
        self._command("MQCMD_CREATE_Q", {**args, **self._args(attrs)})
        with contextlib.suppress(Exception):  # start empty
            self._command("MQCMD_CLEAR_Q", {cmqc.MQCA_Q_NAME: name.encode()})

    def define_alias(self, name: str, target: str, **attrs: object) -> None:
        cmqc, cmqcfc = self._module.CMQC, self._module.CMQCFC
        args = {cmqc.MQCA_Q_NAME: name.encode(), cmqc.MQIA_Q_TYPE: cmqc.MQQT_ALIAS,
                cmqcfc.MQIACF_REPLACE: cmqcfc.MQRP_YES}  # fmt: skip
        self._command("MQCMD_CREATE_Q", {**args, **self._args({"TARGET": target, **attrs})})

    def alter_queue(self, name: str, **attrs: object) -> None:
        cmqc = self._module.CMQC
        args = {cmqc.MQCA_Q_NAME: name.encode(), cmqc.MQIA_Q_TYPE: cmqc.MQQT_LOCAL}
        self._command("MQCMD_CHANGE_Q", {**args, **self._args(attrs)})

    def alter_qmgr(self, **attrs: object) -> None:
        cmqc = self._module.CMQC
        args: dict[int, object] = {}
        for key, value in attrs.items():
            if key.upper() != "DEADQ":
                pytest.skip(f"ALTER QMGR {key} is not mapped to PCF for a real queue manager")
            args[cmqc.MQCA_DEAD_LETTER_Q_NAME] = str(value).encode()
        self._command("MQCMD_CHANGE_Q_MGR", args)

    def delete_queue(self, name: str) -> None:
        cmqc, cmqcfc = self._module.CMQC, self._module.CMQCFC
        self._command(
            "MQCMD_DELETE_Q",
            {cmqc.MQCA_Q_NAME: name.encode(), cmqcfc.MQIACF_PURGE: cmqcfc.MQPO_YES},
        )

    def restart(self) -> None:
        pytest.skip("a real queue manager is not restarted by the tests")

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._conn.disconnect()
        embedded.close_all()


def mq_broker(directory: Path, library: str) -> Broker:
    real = os.environ.get(REAL_URL_VAR)
    if real:
        try:
            return RealQueueManagerBroker(real, library)
        except MQError as exc:
            if exc.reason != C.MQRC_ENVIRONMENT_ERROR:
                raise
            pytest.skip(f"{library} is not installed: {exc.detail}")
    libraries.load(library)  # without the sdist: skips (fails with MQJMS_REQUIRE_VENDOR=1)
    return StandInBroker(directory, library)
