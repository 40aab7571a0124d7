"""A pure-Python stand-in for the native extension of pymqi (``pymqi.pymqe``) and of ibmmq
(``ibmmq.ibmmqc``), over an embedded queue manager.

The real libraries' Python layers (structures, buffer handling, retries, error mapping)
pack MQOD/MQMD/MQGMO/MQPMO/MQCNO/MQCSP/MQCD bytes and call MQI verbs on their C module.
Here those verbs unpack the bytes with mqjms's structure tables, run the MQI call with
mqjms's own MQI implementation (:mod:`mqjms.mqi`, poison screening off: a queue manager
delivers what it has) on the embedded queue manager at :attr:`StandIn.backing_url`, and
pack the output fields back, returning the tuples the C functions return. So the
``mq://`` transport is exercised through the genuine library code, with IBM MQ's verbs
and options, against a queue manager that keeps BackoutCount, BOTHRESH and expiry itself.

What reached MQCONNX (queue manager, options, channel, connection name, CCDT URL, user
and password from the MQCSP) is kept in :attr:`StandIn.connects`, every MQOPEN's object
and options in :attr:`StandIn.opens`, for tests to check; a queue named in
:attr:`StandIn.denied` refuses puts with 2035 (MQRC_NOT_AUTHORIZED).
:meth:`StandIn.break_connections` makes every later call on the open hconns fail with
2009 (MQRC_CONNECTION_BROKEN), as a network failure does.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import threading
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.mqi import getting, inquiry, opening, putting, subscribing
from mqjms.mqi import ibmmq_flavour as shapes
from mqjms.mqi.constants import CMQC
from mqjms.mqi.hconn import Hconn
from mqjms.mqi.routing import PoisonMode
from mqjms.transport import embedded

Result = tuple[Any, ...]


@dataclass
class Connect:
    """One MQCONNX as the stand-in received it."""

    qmgr: str
    options: int
    channel: str = ""
    connection_name: str = ""
    cipher: str = ""
    key_repository: str = ""
    cert_label: str = ""
    ccdt: str = ""
    appl_name: str = ""
    user: str | None = None
    password: str | None = field(default=None, repr=False)


def _text(raw: object) -> str:
    if isinstance(raw, bytes | bytearray):
        return bytes(raw).split(b"\x00", 1)[0].decode("latin-1").strip()
    return str(raw or "").strip()


def _pointed(address: int, length: int) -> str | None:
    if not address or length <= 0:
        return None
    return ctypes.string_at(address, length).decode("utf-8")


def _block(cls: type, raw: bytes | None) -> Any:
    block = cls()
    if raw:
        block.unpack(bytes(raw)[: block.get_length()])
    return block


def _out(block: Any, length: int) -> bytes:
    return bytes(block.pack()[:length])


def _write_vs(block: Any, name: str, text: str) -> None:
    """MQ's output MQCHARV (ResObjectString): ``text`` into the buffer the program gave
    (VSPtr, VSBufSize), as much as fits, and its whole length in VSLength."""
    address, size = block[name + "VSPtr"], block[name + "VSBufSize"]
    data = text.encode("utf-8")
    if address and size > 0:  # NULs after it: nothing of what the buffer held stays
        ctypes.memmove(address, data[:size].ljust(size, b"\x00"), size)
    block[name + "VSLength"] = len(data)


class StandIn:
    """The MQI verbs both libraries call (see the module docstring)."""

    def __init__(self) -> None:
        self.backing_url = ""
        self.connects: list[Connect] = []
        self._hconns: dict[int, Hconn] = {}
        self._broken: set[int] = set()
        self._lock = threading.Lock()
        self.opens: list[tuple[str, int]] = []  # (ObjectName, Options) of every MQOPEN
        self.denied: set[str] = set()  # queues this user may not put to: 2035
        self.subs: list[tuple[str, int]] = []  # (ObjectString, Options) of every MQSUB
        # hsub -> the managed queue's hobj MQSUB returned with it; a managed queue's hobj
        # closed with its hsub, which the program still closes (MQ keeps it open till then)
        self._managed: dict[tuple[int, int], int] = {}
        self._closed_with_sub: set[tuple[int, int]] = set()

    # ------------------------------------------------------------------ test controls
    def reset(self, backing_url: str) -> None:
        self.close_all()
        self.backing_url = backing_url
        self.connects.clear()
        self.opens.clear()
        self.denied.clear()
        self.subs.clear()
        self._managed.clear()
        self._closed_with_sub.clear()

    def _check_put_authority(self, od: Any, options: int) -> None:
        """2035 (MQRC_NOT_AUTHORIZED) for an output open of a queue in :attr:`denied`,
        as a queue manager without ``setmqaut -p user +put`` answers."""
        if options & CMQC.MQOO_OUTPUT and _text(getattr(od, "ObjectName", b"")) in self.denied:
            raise failed(C.MQRC_NOT_AUTHORIZED, "not authorized to put")

    def break_connections(self) -> None:
        """Every hconn open now fails its next calls with 2009, its unit of work backed out."""
        with self._lock:
            hconns = list(self._hconns.items())
        for number, hconn in hconns:
            self._broken.add(number)
            with contextlib.suppress(MQError):
                hconn.disconnect(commit=False)

    def close_all(self) -> None:
        with self._lock:
            hconns = list(self._hconns.values())
            self._hconns.clear()
            self._broken.clear()
        for hconn in hconns:
            with contextlib.suppress(MQError):
                hconn.disconnect(commit=False)

    # ------------------------------------------------------------------ plumbing
    def _hconn(self, number: int) -> Hconn:
        if number in self._broken:
            raise failed(C.MQRC_CONNECTION_BROKEN, "the connection was broken")
        found = self._hconns.get(number)
        if found is None:
            raise failed(C.MQRC_HCONN_ERROR, f"hconn {number} is not connected")
        return found

    @staticmethod
    def _run(call: Callable[[], Result], failure: Result) -> Result:
        """``call``'s tuple; an MQError as the C function returns it (``failure`` filled
        in front of its comp and reason)."""
        try:
            return call()
        except MQError as exc:
            return (*failure, exc.comp, exc.reason)

    def _connect(self, record: Connect) -> Result:
        if not self.backing_url:
            return (0, C.MQCC_FAILED, C.MQRC_Q_MGR_NOT_AVAILABLE)
        self.connects.append(record)

        def call() -> Result:
            conn = embedded.connect(self.backing_url, record.appl_name or None)
            hconn = Hconn(conn, self.backing_url, PoisonMode.OFF)
            hconn.commit_at_exit = False
            with self._lock:
                self._hconns[hconn.number] = hconn
            return (hconn.number, C.MQCC_OK, C.MQRC_NONE)

        return self._run(call, (0,))

    # ------------------------------------------------------------------ verbs
    def MQCONN(self, name: Any) -> Result:
        return self._connect(Connect(_text(name), 0))

    def MQDISC(self, hconn: int) -> Result:
        def call() -> Result:
            found = self._hconn(hconn)
            with self._lock:
                self._hconns.pop(hconn, None)
            found.disconnect(commit=True)  # MQDISC commits
            return (C.MQCC_OK, C.MQRC_NONE)

        return self._run(call, ())

    def MQOPEN(self, hconn: int, od: bytes, options: int) -> Result:
        block = _block(shapes.OD, od)

        def call() -> Result:
            self.opens.append((_text(block.ObjectName), options))
            self._check_put_authority(block, options)
            found = self._hconn(hconn)
            hobj = opening.open_object(found, block, options)
            topic = found.objects[hobj].handle
            if topic is not None and topic.topic is not None and block.Version >= 4:
                _write_vs(block, "ResObjectString", topic.topic)
            return (hobj, _out(block, len(od)), C.MQCC_OK, C.MQRC_NONE)

        return self._run(call, (0, od))

    def MQCLOSE(self, hconn: int, hobj: int, options: int) -> Result:
        """MQCLOSE of an object or of an hsub (MQCO_REMOVE_SUB / KEEP_SUB); the managed
        queue's hobj, closed by mqjms's MQI with its hsub, still closes once after it."""

        def call() -> Result:
            found = self._hconn(hconn)
            if (hconn, hobj) in self._closed_with_sub:
                self._closed_with_sub.discard((hconn, hobj))
            elif hobj in found.subscriptions:
                managed = self._managed.pop((hconn, hobj), CMQC.MQHO_NONE)
                subscribing.close_subscription(found, hobj, managed, options)
                if managed != CMQC.MQHO_NONE:
                    self._closed_with_sub.add((hconn, managed))
            else:
                opening.close_object(found, hobj, options)
            return (C.MQCC_OK, C.MQRC_NONE)

        return self._run(call, ())

    def MQSUB(self, hconn: int, sd: bytes, hobj: int) -> Result:
        """MQSUB(hconn, MQSD, Hobj) -> (MQSD, Hobj, Hsub, comp, reason): the MQSD's
        strings read through their VSPtr (the program's buffers), Options and
        SubCorrelId written back, ResObjectString (and SelectionString, when the program
        gave it room) into the program's buffers."""
        block = _block(shapes.SD, sd)

        def call() -> Result:
            self.subs.append((subscribing.vs_text(block, "ObjectString"), block.Options))
            found = self._hconn(hconn)
            number, hsub = subscribing.subscribe(found, block, hobj)
            subscription = found.subscriptions[hsub]
            if subscription.managed:
                self._managed[(hconn, hsub)] = number
            _write_vs(block, "ResObjectString", subscription.topic_string)
            if block.SelectionStringVSBufSize > 0:  # MQ answers a resumed one's selector
                _write_vs(block, "SelectionString", subscription.selection_string)
            return (_out(block, len(sd)), number, hsub, C.MQCC_OK, C.MQRC_NONE)

        return self._run(call, (sd, hobj, 0))

    def MQPUT(self, hconn: int, hobj: int, md: bytes, pmo: bytes, msg: bytes) -> Result:
        return self._put(md, pmo, lambda m, p: putting.put(self._hconn(hconn), hobj, m, p, msg))

    def MQPUT1(self, hconn: int, od: bytes, md: bytes, pmo: bytes, msg: bytes) -> Result:
        target = _block(shapes.OD, od)

        def put1(m: Any, p: Any) -> None:
            self._check_put_authority(target, CMQC.MQOO_OUTPUT)
            putting.put1(self._hconn(hconn), target, m, p, msg)

        return self._put(md, pmo, put1)

    def _put(self, md: bytes, pmo: bytes, put: Callable[[Any, Any], None]) -> Result:
        md_block, pmo_block = _block(shapes.MD, md), _block(shapes.PMO, pmo)
        try:
            put(md_block, pmo_block)
        except MQError as exc:
            return (_out(md_block, len(md)), _out(pmo_block, len(pmo)), exc.comp, exc.reason)
        return (_out(md_block, len(md)), _out(pmo_block, len(pmo)), C.MQCC_OK, C.MQRC_NONE)

    def MQGET(self, hconn: int, hobj: int, md: bytes, gmo: bytes, length: int) -> Result:
        md_block, gmo_block = _block(shapes.MD, md), _block(shapes.GMO, gmo)

        def packed() -> tuple[bytes, bytes]:
            return _out(md_block, len(md)), _out(gmo_block, len(gmo))

        try:
            data = getting.get(self._hconn(hconn), hobj, md_block, gmo_block, length)
        except getting.Truncated as exc:
            shown = exc.message[:length]
            return (shown, *packed(), exc.original_length, exc.comp, exc.reason)
        except MQError as exc:
            return (b"", *packed(), 0, exc.comp, exc.reason)
        return (data, *packed(), len(data), C.MQCC_OK, C.MQRC_NONE)

    def MQBEGIN(self, hconn: int) -> Result:
        return (C.MQCC_FAILED, C.MQRC_FUNCTION_NOT_SUPPORTED)

    def MQCMIT(self, hconn: int) -> Result:
        return self._run(lambda: (self._hconn(hconn).commit(), C.MQCC_OK, C.MQRC_NONE)[1:], ())

    def MQBACK(self, hconn: int) -> Result:
        return self._run(lambda: (self._hconn(hconn).backout(), C.MQCC_OK, C.MQRC_NONE)[1:], ())

    def inquire(self, hconn: int, hobj: int, selectors: list[int]) -> dict[int, int | bytes]:
        return inquiry.inquire(self._hconn(hconn), hobj, selectors)

    def set(self, hconn: int, hobj: int, values: dict[int, object]) -> None:
        inquiry.set_attributes(self._hconn(hconn), hobj, values)

    def unsupported(self, name: str) -> Callable[..., Result]:
        def call(*_args: object) -> Result:
            return (C.MQCC_FAILED, C.MQRC_FUNCTION_NOT_SUPPORTED)

        call.__name__ = name
        return call


STAND_IN = StandIn()


# --------------------------------------------------------------------------- pymqi.pymqe


def pymqe_module(levels: tuple[str, ...]) -> types.ModuleType:
    """``pymqi.pymqe``: the verbs with pymqi 1.12's argument and result shapes."""
    module = types.ModuleType("pymqi.pymqe")
    module.__mqlevels__ = levels  # type: ignore[attr-defined]
    module.__mqbuild__ = "client"  # type: ignore[attr-defined]
    module.__version__ = "1.12"  # type: ignore[attr-defined]
    standin = STAND_IN

    def mqconnx(name: Any, options: int, cd: bytes | None, user_password: dict[str, bytes],
                sco: bytes | None = None) -> Result:  # fmt: skip
        channel = _block(shapes.CD, cd) if cd else None
        tls = _block(shapes.SCO, sco) if sco else None
        user = user_password.get("user") if user_password else None
        password = user_password.get("password") if user_password else None
        return standin._connect(
            Connect(
                qmgr=_text(name),
                options=options,
                channel=_text(channel.ChannelName) if channel else "",
                connection_name=_text(channel.ConnectionName) if channel else "",
                cipher=_text(channel.SSLCipherSpec) if channel else "",
                key_repository=_text(tls.KeyRepository) if tls else "",
                cert_label=_text(tls.CertificateLabel) if tls and tls.Version >= 5 else "",
                ccdt=os.environ.get("MQCCDTURL", ""),  # as IBM's C client reads them
                appl_name=os.environ.get("MQAPPLNAME", ""),
                user=user.decode() if user else None,
                password=password.decode() if password is not None else None,
            )
        )

    def mqinq(hconn: int, hobj: int, selector: int) -> Result:
        return standin._run(
            lambda: (standin.inquire(hconn, hobj, [selector])[selector], C.MQCC_OK, C.MQRC_NONE),
            (None,),
        )

    def mqset(hconn: int, hobj: int, selector: int, value: object) -> Result:
        return standin._run(
            lambda: (standin.set(hconn, hobj, {selector: value}), C.MQCC_OK, C.MQRC_NONE)[1:], ()
        )

    verbs: dict[str, Callable[..., Result]] = {
        "MQCONN": standin.MQCONN,
        "MQCONNX": mqconnx,
        "MQDISC": standin.MQDISC,
        "MQOPEN": standin.MQOPEN,
        "MQCLOSE": standin.MQCLOSE,
        "MQPUT": standin.MQPUT,
        "MQPUT1": standin.MQPUT1,
        "MQGET": standin.MQGET,
        "MQBEGIN": standin.MQBEGIN,
        "MQCMIT": standin.MQCMIT,
        "MQBACK": standin.MQBACK,
        "MQINQ": mqinq,
        "MQSET": mqset,
        "MQSUB": standin.MQSUB,
    }
    for name in ("MQCRTMH", "MQSETMP", "MQINQMP", "mqaiExecute"):
        verbs[name] = standin.unsupported(name)
    for name, verb in verbs.items():
        setattr(module, name, verb)
    return module


# --------------------------------------------------------------------------- ibmmq.ibmmqc


def ibmmqc_module(strucversions: dict[str, int], version: str) -> types.ModuleType:
    """``ibmmq.ibmmqc``: the verbs with ibmmq 2.1's argument and result shapes."""
    module = types.ModuleType("ibmmq.ibmmqc")
    module.__strucversions__ = strucversions  # type: ignore[attr-defined]
    module.__version__ = version  # type: ignore[attr-defined]
    module.__cmdlevel__ = 940  # type: ignore[attr-defined]
    module.__mqbuild__ = "common"  # type: ignore[attr-defined]
    module.__mqlevels__ = ()  # type: ignore[attr-defined]
    standin = STAND_IN

    def mqconnx(name: Any, cno: bytes | None, cd: bytes | None, csp: bytes | None,
                sco: bytes | None, bno: bytes | None) -> Result:  # fmt: skip
        options = _block(shapes.CNO, cno) if cno else None
        channel = _block(shapes.CD, cd) if cd else None
        auth = _block(shapes.CSP, csp) if csp else None
        tls = _block(shapes.SCO, sco) if sco else None
        ccdt = None
        if options is not None and options.Version >= CMQC.MQCNO_VERSION_6:
            ccdt = _pointed(options.CCDTUrl, options._CCDTUrlLength)
        return standin._connect(
            Connect(
                qmgr=_text(name),
                options=options.Options if options is not None else 0,
                channel=_text(channel.ChannelName) if channel else "",
                connection_name=_text(channel.ConnectionName) if channel else "",
                cipher=_text(channel.SSLCipherSpec) if channel else "",
                key_repository=_text(tls.KeyRepository) if tls else "",
                cert_label=_text(tls.CertificateLabel) if tls and tls.Version >= 5 else "",
                ccdt=ccdt or "",
                appl_name=_text(getattr(options, "ApplName", b"")) if options else "",
                user=_pointed(auth.CSPUserId, auth._CSPUserIdLength) if auth else None,
                password=_pointed(auth.CSPPassword, auth._CSPPasswordLength) if auth else None,
            )
        )

    def mqinq(hconn: int, hobj: int, selectors: list[int], _ints: list[int], _int_count: int,
              _char_count: int, _char_length: int) -> Result:  # fmt: skip
        def call() -> Result:
            values = standin.inquire(hconn, hobj, list(selectors))
            ints = [v for v in values.values() if isinstance(v, int)]
            chars = b"".join(v for v in values.values() if isinstance(v, bytes))
            return (ints, chars, C.MQCC_OK, C.MQRC_NONE)

        return standin._run(call, ([], b""))

    def mqset(hconn: int, hobj: int, selectors: list[int], ints: list[int], chars: bytes) -> Result:
        def call() -> Result:
            values: dict[int, object] = {}
            int_values, offset = iter(ints), 0
            for selector in selectors:
                if CMQC.MQIA_FIRST <= selector <= CMQC.MQIA_LAST:
                    values[selector] = next(int_values)
                else:
                    length = inquiry.attribute_length(selector)
                    values[selector] = chars[offset : offset + length].rstrip(b"\x00 ")
                    offset += length
            standin.set(hconn, hobj, values)
            return (C.MQCC_OK, C.MQRC_NONE)

        return standin._run(call, ())

    verbs: dict[str, Callable[..., Any]] = {
        "MQCONN": standin.MQCONN,
        "MQCONNX": mqconnx,
        "MQDISC": standin.MQDISC,
        "MQOPEN": standin.MQOPEN,
        "MQCLOSE": standin.MQCLOSE,
        "MQPUT": standin.MQPUT,
        "MQPUT1": standin.MQPUT1,
        "MQGET": standin.MQGET,
        "MQBEGIN": standin.MQBEGIN,
        "MQCMIT": standin.MQCMIT,
        "MQBACK": standin.MQBACK,
        "MQINQ": mqinq,
        "MQSET": mqset,
        "MQCBINIT": lambda _callback: None,
        "MQLOGCF": lambda *_args: (0,),
        "MQSUB": standin.MQSUB,
    }
    for name in ("MQSUBRQ", "MQSTAT", "MQCB", "MQCTL", "MQCRTMH", "MQDLTMH", "MQSETMP",
                 "MQINQMP", "MQDLTMP"):  # fmt: skip
        verbs[name] = standin.unsupported(name)
    for name, verb in verbs.items():
        setattr(module, name, verb)
    return module
