"""Queue: the queue as pymqi and ibmmq programs open, put, get, inquire and set it.

A Queue given a name (or MQOD) and open options opens at once; given only the name it
opens lazily, with the options of its first call: MQOO_INPUT_AS_Q_DEF for ``get``,
MQOO_OUTPUT for ``put``, MQOO_INQUIRE for ``inquire``, MQOO_SET for ``set``. An open
queue is never reopened for a call its options do not allow: MQ's reason comes back
(2037, 2038, 2039, 2040). ``put`` takes bytes, or a str put as MQSTR in the
connection's ``bytes_encoding`` (UTF-8, CCSID 1208); ``get(None, ...)`` returns the whole
message however long; ``get_rfh2`` splits the RFH2 chain into RFH2 objects.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any, ClassVar

from mqjms.mq import constants as C

from . import fields, getting, inquiry, opening, putting
from .flavour import Flavour
from .hconn import Hconn
from .qmgr import QueueManager


def make_q_desc(flavour: Flavour, q_desc: Any) -> Any:
    """An MQOD for a queue name (str or bytes), or the MQOD given."""
    if isinstance(q_desc, str | bytes):
        name = q_desc.encode("ascii") if isinstance(q_desc, str) else q_desc
        return flavour.structure("OD", ObjectName=name)
    return q_desc


def common_q_args(flavour: Flavour, *opts: Any) -> tuple[Any, Any]:
    """(MQMD, MQGMO/MQPMO or None) from a call's ``md, options`` arguments."""
    if len(opts) > 3:
        raise TypeError("Too many args")
    md = opts[0] if opts else None
    options = opts[1] if len(opts) > 1 else None
    if md is None:
        md = flavour.structure("MD")
    if flavour.strict_types:
        if not isinstance(md, flavour.structures.MD):
            raise TypeError("Message Descriptor must be an instance of MD")
        if options and not isinstance(options, flavour.structures.PMO | flavour.structures.GMO):
            raise TypeError("Options must be an instance of PMO or GMO")
    return md, options


def message_bytes(qmgr: QueueManager, msg: Any, md: Any) -> bytes:
    """A message body as put: bytes as they are; a str in the connection's
    ``bytes_encoding``, marking the MQMD MQSTR in ``default_ccsid``; else TypeError."""
    if isinstance(msg, bytes):
        return msg
    if isinstance(msg, str):
        md.CodedCharSetId = qmgr.default_ccsid
        md.Format = qmgr.FLAVOUR.CMQC.MQFMT_STRING
        return msg.encode(qmgr.bytes_encoding)
    if isinstance(msg, bytearray | memoryview):
        return bytes(msg)
    raise TypeError(f"Message type is {type(msg)}. Convert to bytes.")


def rfh2_headers(opts: tuple[Any, ...]) -> bytes | None:
    """``put_rfh2``'s and ``pub_rfh2``'s headers (``opts[2]``) packed one after another,
    each in the Encoding of what comes before it (the MQMD's, ``opts[0]``, for the
    first); None when there are none."""
    if len(opts) < 3 or opts[2] is None:
        return None
    if not isinstance(opts[2], list):
        raise TypeError("Third item of opts should be a list.")
    encoding = C.MQENC_NATIVE if opts[0] is None else int(opts[0]["Encoding"])
    buffer = b""
    for header in opts[2]:
        if header is not None:
            buffer += header.pack(encoding)
            encoding = int(header["Encoding"])
    return buffer


#: The buffer both libraries' ``get(None)`` tries first.
FIRST_BUFFER = 4096


class Queue:
    """An MQ queue of a QueueManager (pymqi's and ibmmq's ``Queue``)."""

    FLAVOUR: ClassVar[Flavour]

    def __init__(self, qmgr: QueueManager, *opts: Any) -> None:
        if len(opts) > 2:
            raise TypeError("Too many args")
        self._qmgr = qmgr
        self._number: int | None = None
        self._q_desc: Any = None
        self._open_opts: int | None = None
        self._whole_length = FIRST_BUFFER  # ibmmq: where get(None) starts on this queue
        if opts:
            self._q_desc = make_q_desc(self.FLAVOUR, opts[0])
        if len(opts) == 2:
            self._open_opts = int(opts[1])
            self._real_open()

    def __del__(self) -> None:
        if getattr(self, "_number", None) is not None:
            with contextlib.suppress(Exception):
                self.close()

    def __enter__(self) -> Queue:
        return self

    def __exit__(self, *exc: object) -> None:
        """``with pymqi.Queue(qmgr, name) as queue:`` closes the queue (if open) at the end."""
        if self._number is not None:
            self.close()

    def __repr__(self) -> str:
        name = getattr(self._q_desc, "ObjectName", b"")
        return f"<{type(self).__module__}.Queue {name!r}>"

    @contextlib.contextmanager
    def _call(self) -> Iterator[Hconn]:
        with self._qmgr._call() as connection:
            yield connection

    def _real_open(self) -> None:
        if self._q_desc is None:
            raise self.FLAVOUR.PYIFError("The Queue Descriptor has not been set.")
        with self._call() as connection:
            self._number = opening.open_object(connection, self._q_desc, int(self._open_opts or 0))

    def _opened(self, options: int) -> int:
        """The object handle, opening the queue lazily with ``options`` first."""
        if self._number is None:
            self._open_opts = options
            self._real_open()
        assert self._number is not None
        return self._number

    # ------------------------------------------------------------------ open / close
    def open(self, q_desc: Any, *opts: Any) -> None:
        """MQOPEN now when open options are given, else at the first call."""
        if len(opts) > 1:
            raise TypeError("Too many args")
        if self._number is not None:
            raise self.FLAVOUR.PYIFError("The Queue is already open")
        self._q_desc = make_q_desc(self.FLAVOUR, q_desc)
        if opts:
            self._open_opts = int(opts[0])
            self._real_open()

    def close(self, options: int = C.MQCO_NONE) -> None:
        """MQCLOSE (a temporary dynamic queue is deleted). PYIFError when not open."""
        if self._number is None:
            raise self.FLAVOUR.PYIFError("not open")
        with self._call() as connection:
            opening.close_object(connection, self._number, options)
        self._number = self._q_desc = self._open_opts = None

    # ------------------------------------------------------------------ put
    def put(self, msg: Any, *opts: Any) -> None:
        """MQPUT; ``md`` and ``pmo`` (optional) are updated in place."""
        md, pmo = common_q_args(self.FLAVOUR, *opts)
        data = message_bytes(self._qmgr, msg, md)
        if pmo is None:
            pmo = self.FLAVOUR.structure("PMO")
        number = self._opened(C.MQOO_OUTPUT)
        with self._call() as connection:
            putting.put(connection, number, md, pmo, data)

    def put_rfh2(self, msg: Any, *opts: Any) -> None:
        """MQPUT of ``msg`` behind the RFH2 headers listed in ``opts[2]``."""
        headers = rfh2_headers(opts)
        if headers is None:
            self.put(msg, *opts[0:2])
            return
        md = opts[0] or self.FLAVOUR.structure("MD")
        self.put(headers + message_bytes(self._qmgr, msg, md), *opts[0:2])

    # ------------------------------------------------------------------ get
    def get(self, maxLength: int | None = None, *opts: Any, **kwargs: Any) -> bytes:
        """MQGET: the message's bytes; ``md`` and ``gmo`` (optional) updated in place.
        ``maxLength`` (both libraries' name, which programs pass by keyword) None: the
        whole message, except with MQGMO_ACCEPT_TRUNCATED_MSG, which pymqi and ibmmq then
        pass a buffer of 0 bytes for (2079 and no data for a message that has some). No
        message: MQMIError 2033."""
        max_length = _length_argument(self.FLAVOUR, maxLength, kwargs)
        md, gmo = common_q_args(self.FLAVOUR, *opts)
        if gmo is None:
            gmo = self.FLAVOUR.structure("GMO")
        number = self._opened(C.MQOO_INPUT_AS_Q_DEF)
        options = fields.option(gmo, "Options")
        if max_length is None and options & C.MQGMO_ACCEPT_TRUNCATED_MSG:
            max_length = 0  # as both libraries ask: the message is removed, its data not read
        if max_length is None and options & C.MQGMO_CONVERT:
            return self._get_whole_converted(number, md, gmo)
        with self._call() as connection:
            data = getting.get(connection, number, md, gmo, max_length)
        if max_length is None and self.FLAVOUR.whole_get_doubles:
            # ibmmq would have needed a retry of this length, and starts there next time
            self._whole_length = max(self._whole_length, len(data))
        return data

    def _get_whole_converted(self, number: int, md: Any, gmo: Any) -> bytes:
        """``get(None)`` with MQGMO_CONVERT as both libraries make it, for MQ's answers
        depend on the buffer: a first MQGET of 4096 bytes (ibmmq: what its last retry on
        the queue needed), then, after 2080, one more with the length MQ reported, which
        is the data's length *before* conversion (ibmmq doubles it). Data that grows past
        the buffer in conversion is MQ's warning 2120, the message taken unconverted;
        from the retry, both libraries raise it without the data."""
        saved = {name: getattr(md, name) for name in fields.MD_GET_OUTPUT if hasattr(md, name)}
        try:
            with self._call() as connection:
                return getting.get(connection, number, md, gmo, self._whole_length)
        except self.FLAVOUR.MQMIError as exc:
            if exc.reason != C.MQRC_TRUNCATED_MSG_FAILED:
                raise
            length = int(getattr(exc, "original_length", 0))
        if self.FLAVOUR.whole_get_doubles:  # ibmmq keeps MQ's MQMD, to convert afresh
            md.Encoding, md.CodedCharSetId = saved["Encoding"], saved["CodedCharSetId"]
            length *= 2
            self._whole_length = length
        else:  # pymqi retries with the MQMD as the program gave it
            for name, value in saved.items():
                setattr(md, name, value)
        try:
            with self._call() as connection:
                return getting.get(connection, number, md, gmo, length)
        except self.FLAVOUR.MQMIError as exc:
            raise self.FLAVOUR.MQMIError(
                exc.comp, exc.reason, detail=getattr(exc, "detail", None)
            ) from None

    def get_no_jms(self, max_length: int | None = None, *opts: Any, **kwargs: Any) -> bytes:
        """MQGET without properties: an RFH2 holding them is not returned."""
        md, gmo = common_q_args(self.FLAVOUR, *opts)
        if not gmo:
            gmo = self.FLAVOUR.structure("GMO")
        gmo.Options = gmo.Options | C.MQGMO_NO_PROPERTIES | C.MQGMO_FAIL_IF_QUIESCING
        return self.get(max_length, md, gmo)

    get_no_rfh2 = get_no_jms

    def get_rfh2(self, max_length: int | None = None, *opts: Any, **kwargs: Any) -> bytes:
        """MQGET that splits the RFH2 chain into RFH2 objects appended to ``opts[2]``."""
        if len(opts) < 3:
            return self.get(max_length, *opts)
        if opts[2] is None:
            raise AttributeError("get_opts cannot be None if passed.")
        if not isinstance(opts[2], list):
            raise TypeError("Third item of opts should be a list.")
        md = opts[0] if opts[0] is not None else self.FLAVOUR.structure("MD")
        msg = self.get(max_length, md, opts[1])
        headers = []
        fmt, encoding = md["Format"], int(md["Encoding"])
        while fmt == self.FLAVOUR.CMQC.MQFMT_RF_HEADER_2:
            header = self.FLAVOUR.structures.RFH2()
            header.unpack(msg, encoding)
            headers.append(header)
            msg = msg[header["StrucLength"] :]
            fmt, encoding = header["Format"], int(header["Encoding"])
        opts[2].extend(headers)
        return msg

    # ------------------------------------------------------------------ inquire / set
    def inquire(self, selectors: Any) -> Any:
        """MQINQ: one selector's value (ibmmq also: a list -> dict)."""
        if isinstance(selectors, list | tuple):
            if not self.FLAVOUR.inquire_lists:
                raise TypeError("inquire takes one selector")
            wanted = [int(s) for s in selectors]
        else:
            wanted = [int(selectors)]
        number = self._opened(C.MQOO_INQUIRE)
        with self._call() as connection:
            values = inquiry.inquire(connection, number, wanted)
        return values if isinstance(selectors, list | tuple) else values[wanted[0]]

    inq = inquire

    def set(self, *args: Any) -> None:
        """MQSET: ``set(selector, value)`` (ibmmq also: ``set({selector: value})``)."""
        if len(args) == 1 and isinstance(args[0], dict) and self.FLAVOUR.inquire_lists:
            values = dict(args[0])
        elif len(args) == 2:
            values = {args[0]: args[1]}
        else:
            raise TypeError("set takes a selector and a value")
        number = self._opened(C.MQOO_SET)
        with self._call() as connection:
            inquiry.set_attributes(connection, number, values)

    # ------------------------------------------------------------------ handles
    def set_handle(self, queue_handle: int | None) -> None:
        self._number = queue_handle

    def get_handle(self) -> int | None:
        return self._number

    def get_name(self) -> str:
        """The queue's name as opened (ibmmq)."""
        from .fields import text

        return text(getattr(self._q_desc, "ObjectName", b""))

    def get_queue_manager(self) -> QueueManager:
        return self._qmgr

    def cb(self, **kwargs: Any) -> None:
        """MQCB: register (or deregister) a message consumer function (ibmmq)."""
        from . import callbacks

        number = self._opened(C.MQOO_INPUT_AS_Q_DEF)
        with self._call() as connection:
            callbacks.register(self._qmgr, self, connection, kwargs, number)


def _length_argument(flavour: Flavour, max_length: int | None, kwargs: dict[str, Any]) -> Any:
    """``get``'s buffer length: ``maxLength``, or ``max_length`` by keyword (the name
    ``get_rfh2`` and ``get_no_jms`` use, which programs pass to ``get`` too: silently
    dropped, it would return and remove a message the program meant to see truncated).
    pymqi's ``get`` takes no other keyword (its TypeError); ibmmq's reads ``otel_options``
    and ignores the rest, as here."""
    if "max_length" in kwargs:
        if max_length is not None:
            raise TypeError("get() got both maxLength and max_length")
        max_length = kwargs["max_length"]
    if flavour.name == "pymqi":
        for name in kwargs:
            if name != "max_length":
                raise TypeError(f"get() got an unexpected keyword argument {name!r}")
    return max_length
