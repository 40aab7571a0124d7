"""IBM's ``ibmmq`` 2.x or ``pymqi`` 1.12: the one this process drives, and where they differ.

Both libraries wrap IBM's C client with the same Python shape (``QueueManager``,
``Queue``, ``MD``/``GMO``/``PMO``/``OD``, ``MQMIError``); what differs is small and kept
here: how credentials, a CCDT and the application name reach MQCONNX (ibmmq has MQCNO and
MQCSP structures; pymqi takes ``user``/``password`` and reads a CCDT from ``MQCCDTURL``),
and that ibmmq inquires and sets several attributes in one MQINQ/MQSET where pymqi takes
one selector a call. Both are imported lazily: ``pip install mqjms`` needs neither.
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed

from .config import LIBRARIES, MQConfig

_lock = threading.Lock()
_CCDT_VAR = "MQCCDTURL"
_APPL_NAME_VAR = "MQAPPLNAME"


@contextmanager
def _environment(values: Mapping[str, str]) -> Iterator[None]:
    """``values`` in the environment while this lasts (for pymqi's MQCONNX)."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@dataclass(frozen=True)
class Library:
    """One imported MQ library and the calls whose shape differs between the two."""

    name: str  # "ibmmq" or "pymqi"
    module: ModuleType

    @property
    def CMQC(self) -> Any:
        return self.module.CMQC

    def constant(self, name: str) -> int:
        """An MQ constant by IBM's name (ibmmq keeps MQCHT_/MQXPT_ in CMQXC only)."""
        for table in ("CMQC", "CMQXC"):
            value = getattr(getattr(self.module, table, None), name, None)
            if isinstance(value, int):
                return value
        raise AttributeError(f"{self.name} has no constant {name}")

    def structure(self, name: str, **fields: Any) -> Any:
        """A new MD, GMO, PMO, OD, CD or SCO of the library, fields set by attribute."""
        block = getattr(self.module, name)()
        for key, value in fields.items():
            setattr(block, key, value)
        return block

    def error(self, exc: BaseException, what: str) -> MQError:
        """The library's MQMIError (or PYIFError) as an MQError with IBM's codes."""
        comp = getattr(exc, "comp", None)
        reason = getattr(exc, "reason", None)
        if isinstance(comp, int) and isinstance(reason, int):
            return MQError(comp, reason, what)
        return failed(C.MQRC_UNEXPECTED_ERROR, f"{what}: {self.name}: {exc}")

    def is_mq_error(self, exc: BaseException) -> bool:
        return isinstance(exc, (self.module.MQMIError, self.module.PYIFError))

    # ------------------------------------------------------------------ MQSUB
    def subscription_handle(self, sub: Any) -> int:
        """The hsub MQSUB gave a library Subscription (pymqi 1.12 keeps it private)."""
        getter = getattr(sub, "get_handle", None)
        if getter is not None:
            return int(getter())
        return int(sub._Subscription__sub_handle)

    def forget_subscription(self, sub: Any) -> None:
        """A Subscription whose hconn is gone: its ``__del__`` must not MQCLOSE it."""
        sub._Subscription__sub_handle = None

    # ------------------------------------------------------------------ MQCONNX
    def connect(self, config: MQConfig, appl_name: str | None, options: int) -> Any:
        """MQCONNX as ``config`` says; the library's QueueManager."""
        qm = self.module.QueueManager(None)
        kwargs: dict[str, Any] = {}
        if config.hosts:
            kwargs["cd"] = self._channel(config)
        if config.keyrepo or config.cert_label:
            sco = self.structure("SCO")
            if config.keyrepo:
                sco.KeyRepository = config.keyrepo.encode()
            if config.cert_label:
                sco.CertificateLabel = config.cert_label.encode()
            kwargs["sco"] = sco
        if self.name == "ibmmq":
            cno = self.structure("CNO")
            cno.Options = options
            if config.ccdt:
                cno.CCDTUrl = config.ccdt
                cno.Version = max(cno.Version, self.CMQC.MQCNO_VERSION_6)
            name = config.appl_name or appl_name
            if name and hasattr(cno, "ApplName"):
                cno.ApplName = name[:28].encode()
                cno.Version = max(cno.Version, self.CMQC.MQCNO_VERSION_7)
            kwargs["cno"] = cno
            if config.user:
                csp = self.structure("CSP")
                csp.CSPUserId = config.user
                csp.CSPPassword = config.password or ""
                kwargs["csp"] = csp
        else:
            kwargs["opts"] = options
            if config.user:
                kwargs["user"] = config.user
                kwargs["password"] = config.password or ""
            # pymqi 1.12 has no MQCNO: its C client reads the CCDT's URL and the
            # application name from the environment at MQCONNX.
            name = config.appl_name or appl_name
            variables = {_CCDT_VAR: config.ccdt, _APPL_NAME_VAR: (name or "")[:28]}
            with _lock, _environment({k: v for k, v in variables.items() if v}):
                qm.connect_with_options(config.qmgr, **kwargs)
            return qm
        qm.connect_with_options(config.qmgr, **kwargs)
        return qm

    def _channel(self, config: MQConfig) -> Any:
        cd = self.structure("CD")
        cd.ChannelName = config.channel.encode()
        cd.ConnectionName = config.connection_name.encode()
        cd.ChannelType = self.constant("MQCHT_CLNTCONN")
        cd.TransportType = self.constant("MQXPT_TCP")
        if config.cipher:
            cd.SSLCipherSpec = config.cipher.encode()
        if config.peer_name and self.name == "ibmmq":
            cd.SSLPeerNamePtr = config.peer_name
        return cd

    # ------------------------------------------------------------------ MQINQ / MQSET
    def inquire(self, obj: Any, selectors: Sequence[int]) -> dict[int, Any]:
        """One MQINQ (ibmmq) or one a selector (pymqi, whose MQINQ takes one)."""
        if self.name == "ibmmq":
            return dict(obj.inquire(list(selectors)))
        return {selector: obj.inquire(selector) for selector in selectors}

    def set(self, queue: Any, attrs: Mapping[int, int | str]) -> None:
        values = {k: v.encode() if isinstance(v, str) else v for k, v in attrs.items()}
        if self.name == "ibmmq":
            queue.set(values)
            return
        for selector, value in values.items():
            queue.set(selector, value)


def load(preferred: str = "") -> Library:
    """The library ``preferred`` names, else ibmmq when importable, else pymqi."""
    names = (preferred,) if preferred else LIBRARIES
    problems = []
    with _lock:
        for name in names:
            try:
                module = sys.modules.get(name) or importlib.import_module(name)
            except ImportError as exc:
                problems.append(f"{name}: {exc}")
                continue
            return Library(name, module)
    extra = " or ".join(f"mqjms[{name}]" for name in names)
    raise failed(
        C.MQRC_ENVIRONMENT_ERROR,
        f"mq:// needs IBM MQ's Python library and C client: install the IBM MQ client, then "
        f"{extra} ({'; '.join(problems)})",
    )
