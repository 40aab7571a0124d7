"""QueueManager and connect(): the connection as pymqi and ibmmq programs make it.

Every way the libraries connect is accepted: ``connect(name[, channel, conn_info, user,
password])``, ``QueueManager(name)``, ``QueueManager(None)`` then ``connect``,
``connect_with_options`` (with ``cd``, ``sco``, ``csp``, ``cno``, ``bno``, ``opts``, user
and password, or the old positional ``(name, cd[, sco])``) and ``connect_tcp_client``.
None of what they name decides where the connection goes: :mod:`.routing` does. A second
connect on a connected object fails with 2002 (MQRC_ALREADY_CONNECTED, a warning) and
the object stays connected, unless MQCNO_HANDLE_SHARE_* asks for a new connection (as
ibmmq's MQCONNX always does: it adds MQCNO_HANDLE_SHARE_BLOCK unless told otherwise).

``disconnect()`` is MQDISC, which commits the unit of work; a QueueManager collected while
connected (or still connected when the program ends) disconnects too, committing when
``disconnect_on_exit`` (the default), as both libraries do.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any, ClassVar

from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed

from . import fields, hconn, inquiry, opening, putting
from .flavour import Flavour

_HANDLE_SHARE = 0x00000020 | 0x00000040 | 0x00000080  # MQCNO_HANDLE_SHARE_NONE/BLOCK/NO_BLOCK
_BLOCKING_SHARE = 0x00000040 | 0x00000080  # MQCNO_HANDLE_SHARE_BLOCK/NO_BLOCK


def _as_bytes(value: str | bytes | None) -> bytes:
    return value.encode("ascii") if isinstance(value, str) else (value or b"")


def text_arg(value: object) -> str:
    """A name given as str or bytes, as text."""
    if value is None:
        return ""
    return fields.text(value)


class QueueManager:
    """A connection to a queue manager (pymqi's and ibmmq's ``QueueManager``)."""

    FLAVOUR: ClassVar[Flavour]

    def __init__(
        self,
        name: str | bytes | None = "",
        disconnect_on_exit: bool = True,
        bytes_encoding: str = "utf8",
        default_ccsid: int = 1208,
    ) -> None:
        self._hconn: hconn.Hconn | None = None
        self._name = "" if name is None else text_arg(name)
        self._disconnect_on_exit = disconnect_on_exit
        self._qmobj: int | None = None
        self._client = False  # connected as an MQ client (a CD, MQCNO_CLIENT_BINDING)
        self.bytes_encoding = bytes_encoding
        self.default_ccsid = default_ccsid
        if name is not None:
            self.connect(name)

    def __del__(self) -> None:
        connection = getattr(self, "_hconn", None)
        if connection is None or connection.closed:
            return
        with contextlib.suppress(Exception):
            connection.disconnect(commit=self._disconnect_on_exit)

    def __enter__(self) -> QueueManager:
        return self

    def __exit__(self, *exc: object) -> None:
        """``with pymqi.connect(...) as qmgr:`` (some later pymqi examples; 1.12 has no
        context managers): MQDISC at the end of the block, which commits; a block that
        ends in an exception backs the unit of work out first (MQBACK), so what it got
        under syncpoint goes back on its queue and what it put is not sent."""
        if self._connected:
            self._disconnect(commit=exc[0] is None)

    def __repr__(self) -> str:
        state = "connected" if self._connected else "not connected"
        return f"<{type(self).__module__}.QueueManager {self._name!r} {state}>"

    # ------------------------------------------------------------------ connecting
    def connect(self, name: str | bytes | None) -> None:
        """MQCONN."""
        self._connect(name, 0, None)
        self._client = False

    def connect_with_options(self, name: str | bytes | None, *args: Any, **kwargs: Any) -> None:
        """MQCONNX: every option is accepted; the connection goes where :mod:`.routing` says."""
        if len(args) > 2:
            raise TypeError("Too many positional args provided")
        opts = int(kwargs.get("opts") or 0)
        cno = kwargs.get("cno")
        flavour = self.FLAVOUR
        if cno is not None and flavour.strict_types and not isinstance(cno, flavour.structures.CNO):
            raise TypeError("cno must be an instance of CNO")
        if cno is not None:
            opts |= fields.option(cno, "Options")
        if flavour.connect_shares_handle and not opts & _BLOCKING_SHARE:
            opts |= flavour.CMQC.MQCNO_HANDLE_SHARE_BLOCK
            if cno is not None:
                cno.Options = fields.option(cno, "Options") | flavour.CMQC.MQCNO_HANDLE_SHARE_BLOCK
        self._check_credentials(kwargs)
        appl = fields.text(getattr(cno, "ApplName", b"")) if cno is not None else ""
        self._connect(name, opts, appl or None)
        cd = kwargs.get("cd", args[0] if args and not isinstance(args[0], str | bytes) else None)
        client = cd is not None or getattr(cno, "ClientConnPtr", None)
        self._client = bool(client or opts & flavour.CMQC.MQCNO_CLIENT_BINDING)

    def _check_credentials(self, kwargs: dict[str, Any]) -> None:
        """What both libraries refuse before MQCONNX (none of it says the password)."""
        flavour = self.FLAVOUR
        csp = kwargs.get("csp")
        if csp is not None and flavour.strict_types:
            if not isinstance(csp, flavour.structures.CSP):
                raise TypeError("csp must be an instance of CSP")
            for wrong, right in (("UserId", "CSPUserId"), ("Password", "CSPPassword")):
                if hasattr(csp, wrong):  # a common mistake ibmmq names
                    raise flavour.PYIFError(f"{wrong} field in CSP class is called {right}")
        user, password = kwargs.get("user"), kwargs.get("password")
        if user:
            if password is None:
                raise ValueError("Password must not be None if user is provided")
            if not (isinstance(user, str | bytes) and isinstance(password, str | bytes)):
                raise ValueError("Both user and password must be instances of str or bytes")

    def connect_tcp_client(
        self,
        name: str | bytes | None,
        cd: Any,
        channel: str | bytes,
        conn_name: str | bytes,
        user: str | bytes | None = None,
        password: str | bytes | None = None,
        **kwargs: Any,
    ) -> None:
        """MQCONNX as a client on ``channel`` to ``conn_name``; the MQCD is filled as the
        libraries fill it (the connection itself goes where :mod:`.routing` says)."""
        if cd is not None:
            cd.ChannelName = _as_bytes(channel)
            cd.ConnectionName = _as_bytes(conn_name)
            cd.ChannelType = self.FLAVOUR.CMQXC.MQCHT_CLNTCONN
            cd.TransportType = self.FLAVOUR.CMQXC.MQXPT_TCP
        self.connect_with_options(name, cd=cd, user=user, password=password, **kwargs)

    connectTCPClient = connect_tcp_client
    connectWithOptions = connect_with_options

    def _connect(self, name: str | bytes | None, options: int, appl_name: str | None) -> None:
        if self._connected and not options & _HANDLE_SHARE:
            raise self.FLAVOUR.MQMIError(
                C.MQCC_WARNING,
                C.MQRC_ALREADY_CONNECTED,
                detail="this QueueManager is connected already",
            )
        with self.FLAVOUR.errors():
            connection = hconn.connect(text_arg(name), appl_name)
        connection.commit_at_exit = self._disconnect_on_exit
        previous, self._hconn, self._qmobj = self._hconn, connection, None
        if previous is not None and not previous.closed:
            # MQCNO_HANDLE_SHARE_*: the earlier handle is out of the program's reach now
            with contextlib.suppress(MQError):
                previous.disconnect(commit=True)
        self._name = text_arg(name)

    @property
    def _connected(self) -> bool:
        return self._hconn is not None and not self._hconn.closed

    def _live(self) -> hconn.Hconn:
        """The connection; PYIFError('not connected') without one."""
        if self._hconn is None or self._hconn.closed:
            raise self.FLAVOUR.PYIFError("not connected")
        return self._hconn

    @contextlib.contextmanager
    def _call(self) -> Iterator[hconn.Hconn]:
        connection = self._live()
        with self.FLAVOUR.errors():
            yield connection

    def disconnect(self) -> None:
        """MQDISC: the unit of work is committed. PYIFError when not connected."""
        self._disconnect(commit=True)

    def _disconnect(self, *, commit: bool) -> None:
        connection = self._live()
        self._qmobj = None
        with self.FLAVOUR.errors():
            connection.disconnect(commit=commit)

    def get_handle(self) -> int:
        """The connection handle (an int); PYIFError when not connected."""
        return self._live().number

    getHandle = get_handle

    def get_name(self) -> str:
        """The queue manager name the program connected with (ibmmq), also once
        disconnected, as ibmmq keeps it (programs log it after ``disconnect()``)."""
        if self._name:
            return self._name
        if not self._connected:
            raise self.FLAVOUR.PYIFError("not connected")
        return self._live().qmgr_name

    def _is_connected(self) -> bool:
        """Whether the connection answers (an MQINQ of the queue manager's name). A
        method, as in both libraries (programs call ``qmgr._is_connected()``)."""
        if not self._connected:
            return False
        try:
            self._inquire([C.MQCA_Q_MGR_NAME])
        except (MQError, self.FLAVOUR.MQMIError, self.FLAVOUR.PYIFError):
            return False
        return True

    is_connected = property(_is_connected)

    # ------------------------------------------------------------------ units of work
    def begin(self) -> None:
        """MQBEGIN, as on a queue manager with no XA resource manager registered: the unit
        of work begins (MQ's resources only) with warning 2121 MQRC_NO_EXTERNAL_PARTICIPANTS,
        which both libraries raise; 2128 while a unit of work is in progress (begun, or
        holding work), until MQCMIT, MQBACK or MQDISC; 2012 on a client connection, where
        MQ has no MQBEGIN."""
        cmqc = self.FLAVOUR.CMQC
        with self._call() as connection, connection.call():  # its lock; 2018 once forked
            if self._client:
                raise failed(
                    C.MQRC_ENVIRONMENT_ERROR, "MQBEGIN is not available on a client connection"
                )
            if connection.work or connection.begun:
                raise failed(
                    cmqc.MQRC_UOW_IN_PROGRESS,
                    "a unit of work is in progress already: MQCMIT or MQBACK it first",
                )
            connection.begun = True
            raise MQError(
                C.MQCC_WARNING,
                cmqc.MQRC_NO_EXTERNAL_PARTICIPANTS,
                "the unit of work began; no other resource manager takes part",
            )

    def commit(self) -> None:
        """MQCMIT."""
        with self._call() as connection:
            connection.commit()

    def backout(self) -> None:
        """MQBACK: every message got in the unit of work has BackoutCount + 1."""
        with self._call() as connection:
            connection.backout()

    # ------------------------------------------------------------------ MQPUT1, MQINQ
    def put1(self, q_desc: Any, msg: Any, *opts: Any) -> None:
        """MQPUT1 of ``msg`` (bytes; a str is put as UTF-8 MQSTR) to the queue ``q_desc``."""
        from .queue import common_q_args, make_q_desc, message_bytes

        md, pmo = common_q_args(self.FLAVOUR, *opts)
        data = message_bytes(self, msg, md)
        od = make_q_desc(self.FLAVOUR, q_desc)
        with self._call() as connection:
            putting.put1(connection, od, md, pmo if pmo is not None else None, data)

    def inquire(self, selectors: Any) -> Any:
        """MQINQ on the queue manager: one selector's value (ibmmq also: a list -> dict).
        Character attributes are bytes of their full length."""
        if isinstance(selectors, list | tuple):
            if not self.FLAVOUR.inquire_lists:
                raise TypeError("inquire takes one selector")
            return self._inquire(list(selectors))
        return self._inquire([int(selectors)])[int(selectors)]

    inq = inquire

    def _inquire(self, selectors: list[int]) -> dict[int, Any]:
        with self._call() as connection:
            if self._qmobj is None or self._qmobj not in connection.objects:
                od = self.FLAVOUR.structure("OD", ObjectType=C.MQOT_Q_MGR)
                self._qmobj = opening.open_object(connection, od, C.MQOO_INQUIRE)
            return inquiry.inquire(connection, self._qmobj, selectors)

    def stat(self, status_type: int) -> Any:
        """MQSTAT(MQSTAT_TYPE_ASYNC_ERROR): an STS of the asynchronous puts since last asked."""
        with self._call() as connection:
            status = inquiry.stat(connection, status_type)
        sts = self.FLAVOUR.structure("STS")
        sts.CompCode, sts.Reason = status.comp, status.reason
        sts.PutSuccessCount = status.succeeded
        sts.PutWarningCount = status.warned
        sts.PutFailureCount = status.failed
        sts.ObjectName = fields.padded(status.object_name, 48)
        return sts

    # ------------------------------------------------------------------ MQCB / MQCTL
    def cb(self, **kwargs: Any) -> None:
        """MQCB for connection events (ibmmq)."""
        from . import callbacks

        with self._call() as connection:
            callbacks.register(self, None, connection, kwargs)

    def ctl(self, operation: int, ctlo: Any) -> None:
        """MQCTL: start or stop the registered callbacks (ibmmq)."""
        from . import callbacks

        if self.FLAVOUR.strict_types and not isinstance(ctlo, self.FLAVOUR.structures.CTLO):
            raise TypeError("ctlo must be an instance of CTLO")
        with self._call() as connection:
            callbacks.control(connection, operation, ctlo)


def connect(
    cls: type[QueueManager],
    queue_manager: str | bytes | None,
    channel: str | bytes | None = None,
    conn_info: str | bytes | None = None,
    user: str | bytes | None = None,
    password: str | bytes | None = None,
    disconnect_on_exit: bool = True,
    bytes_encoding: str = "utf8",
    default_ccsid: int = 1208,
    **kwargs: Any,
) -> QueueManager:
    """``connect()`` of both libraries (ibmmq also takes ``cd``, ``cno``, ``csp``, ``sco``,
    ``bno``): a connected QueueManager, a client one given a channel and a connection name
    (MQCONNX with an MQCD: no MQBEGIN there), else MQCONN (pymqi: its user and password
    are not used) or MQCONNX (ibmmq). TypeError with neither a name nor a channel and
    connection name, as both libraries raise."""
    if not (channel and conn_info) and not queue_manager:
        shown = None if password is None else "***"  # a password given is never shown
        raise TypeError(f"Invalid arguments: {[queue_manager, channel, conn_info, user, shown]!r}")
    qmgr = cls(None, disconnect_on_exit, bytes_encoding=bytes_encoding, default_ccsid=default_ccsid)
    if channel and conn_info:
        cd = kwargs.pop("cd", None) or cls.FLAVOUR.structures.CD()
        qmgr.connect_tcp_client(
            queue_manager or "", cd, channel, conn_info, user, password, **kwargs
        )
    elif cls.FLAVOUR.name == "ibmmq":  # MQCONNX with what it was given
        qmgr.connect_with_options(queue_manager, user=user, password=password, **kwargs)
    else:
        qmgr.connect(queue_manager)
    return qmgr
