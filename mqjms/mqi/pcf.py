"""PCFExecute: PCF commands as pymqi and ibmmq programs send them.

``PCFExecute(qmgr)`` (or a queue manager name, connecting its own) runs ``MQCMD_*``
methods: ``pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: 'SYSTEM.*'})`` or with a list of
CFST/CFIN/CFIL/CFSL/CFBS parameters, as both libraries take them; the result is a list of
dicts keyed by selector, as theirs. Strings come back as bytes, blank-padded to their
attribute's length in the pymqi flavour, stripped in the ibmmq one (ibmmq 2.1 strips
them). A second argument, a list of filters (``Filter(selector).greater(0)`` or CFIF/CFSF/CFBF
structures), keeps the responses that pass them (:mod:`.pcf_filters`). With
``responses=[...]`` (ibmmq) each response is a ``(dict, CFH)`` pair and
errors are raised after the list is filled. :mod:`.admin` answers the commands.
``PCFExecute.unpack(message)`` reads a PCF message (an event, a statistics message, a
command's reply) as ``(dict, CFH)``. ``reply_queue`` and ``reply_queue_name`` are a real
reply queue (a temporary dynamic one by default), opened when a program first uses them.
"""

from __future__ import annotations

import contextlib
from typing import Any, ClassVar

from mqjms.mq.errors import MQError
from mqjms.mqi.constants import CMQC, CMQCFC

from . import admin, admin_remote, admin_subscriptions, inquiry, pcf_filters, pcf_names, pcf_unpack
from .flavour import Flavour
from .qmgr import QueueManager
from .queue import Queue

_INPUT = CMQC.MQOO_INPUT_EXCLUSIVE | CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_INPUT_SHARED


def _params(flavour: Flavour, args: Any) -> dict[int, Any]:
    """A command's parameters from a dict or a list of CF* structures."""
    if not args:
        return {}
    if isinstance(args, dict):
        return {int(key): _plain(value) for key, value in args.items()}
    out: dict[int, Any] = {}
    for parameter in args:
        key = int(parameter.Parameter)
        for name in ("Values", "Strings", "String", "Value"):
            if hasattr(parameter, name):
                out[key] = _plain(getattr(parameter, name))
                break
    return out


def _queue_name(name: str | bytes) -> str:
    return (name.decode() if isinstance(name, bytes) else name).strip()


def _plain(value: Any) -> Any:
    inner = getattr(value, "value", None)  # ByteString
    if inner is not None and not isinstance(value, str | bytes | int):
        return inner
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


class ByteString:
    """A byte string PCF parameter (MQCFBS), as both libraries define it."""

    def __init__(self, value: bytes | str) -> None:
        self.value = value.encode("ascii") if isinstance(value, str) else value

    def __len__(self) -> int:
        return len(self.value)


class _Command:
    """``pcf.MQCMD_X``: the command a call runs. Names chain as in both libraries
    (``pcf.CMQCFC.MQCMD_X`` is ``pcf.MQCMD_X``, a leading ``CMQCFC.`` dropped) and are
    looked up in CMQCFC when called: an unknown one is the libraries' KeyError."""

    def __init__(self, pcf: PCFExecute, name: str) -> None:
        self._pcf = pcf
        self._name = name

    def __getattr__(self, name: str) -> _Command:
        if name.startswith("__"):
            raise AttributeError(name)
        return _Command(self._pcf, f"{self._name}.{name}")

    def __call__(self, *args: Any, **kwargs: Any) -> list[Any]:
        name = self._name.removeprefix("CMQCFC.")
        self._pcf.qm._live()  # not connected: PYIFError first, as theirs
        if not isinstance(vars(self._pcf.FLAVOUR.CMQCFC).get(name), int):
            raise KeyError(name)  # theirs: CMQCFC.__dict__[name]
        filters = args[1] if len(args) > 1 else kwargs.get("filters")
        return self._pcf._run(
            name, args[0] if args else None, kwargs.get("responses"), filters or ()
        )


class PCFExecute(QueueManager):
    """Sends PCF commands (see the module docstring)."""

    FLAVOUR: ClassVar[Flavour]
    QUEUE: ClassVar[type[Queue]]  # the flavour's Queue, for the reply queue

    def __init__(
        self,
        name: Any = None,
        model_queue_name: str | bytes = b"SYSTEM.DEFAULT.MODEL.QUEUE",
        dynamic_queue_name: str | bytes = b"PYMQPCF.*",
        command_queue_name: str | bytes = b"SYSTEM.ADMIN.COMMAND.QUEUE",
        response_wait_interval: int = 5000,
        convert: bool | None = None,
        *,
        reply_queue_name: str | bytes | None = None,
        command_timeout: int = 0,
        max_length: int | None = None,
        **kwargs: Any,
    ) -> None:
        if model_queue_name and reply_queue_name:
            raise self.FLAVOUR.PYIFError(
                "Do not specify both a model_queue_name and a reply_queue_name"
            )
        self._reply_queue: Any = None
        self._reply_queue_name: bytes | None = None
        self._reply_closed = False
        self._reply_model = reply_queue_name or model_queue_name
        self._dynamic_queue_name = dynamic_queue_name
        self._reply_open_options = int(kwargs.pop("reply_queue_open_options", 0))
        if not self._reply_open_options & _INPUT:  # ibmmq adds one, as pymqi's default
            self._reply_open_options |= CMQC.MQOO_INPUT_EXCLUSIVE
        if isinstance(name, QueueManager):
            self.qm: QueueManager = name
            super().__init__(None)
        else:
            super().__init__(name)
            self.qm = self
        self._command_queue_name = command_queue_name
        if self.FLAVOUR.name == "ibmmq" and response_wait_interval < 0:
            response_wait_interval = 60 * 60 * 1000  # ibmmq's: a negative interval is an hour
        self._response_wait_interval = response_wait_interval
        # ibmmq converts the replies by default, pymqi does not (it answers here either way)
        self._convert = self.FLAVOUR.name == "ibmmq" if convert is None else convert
        self._command_timeout = command_timeout
        self._max_length = max_length

    @property
    def command_queue_name(self) -> str | bytes:
        return self._command_queue_name

    @property
    def response_wait_interval(self) -> int:
        return self._response_wait_interval

    @property
    def convert(self) -> bool:
        return self._convert

    @property
    def command_timeout(self) -> int:
        return self._command_timeout

    @property
    def max_length(self) -> int | None:
        return self._max_length

    @property
    def reply_queue(self) -> Any:
        """The queue replies come to, opened when first asked for (None after
        ``disconnect``): commands here are answered without it, but programs put their
        own PCF messages with it as ReplyToQ and get the replies from it."""
        if self._reply_queue is None and not self._reply_closed:
            od = self.FLAVOUR.structure(
                "OD", ObjectName=self._reply_model, DynamicQName=self._dynamic_queue_name
            )
            self._reply_queue = self.QUEUE(self.qm, od, self._reply_open_options)
            self._reply_queue_name = bytes(od.ObjectName).strip()
        return self._reply_queue

    @property
    def reply_queue_name(self) -> bytes | None:
        """The reply queue's name, as MQOPEN gave it (a temporary dynamic queue's is
        made from ``dynamic_queue_name``)."""
        if self.reply_queue is None:
            return None
        return self._reply_queue_name

    def __getattr__(self, name: str) -> _Command:
        """Any other public name is a command, as in both libraries (checked when called)."""
        if name.startswith("_"):
            raise AttributeError(name)
        return _Command(self, name)

    def disconnect(self) -> None:
        """Close the reply queue; disconnect the connection this object made (not one
        it was given)."""
        queue, self._reply_queue, self._reply_closed = self._reply_queue, None, True
        if queue is not None:
            with contextlib.suppress(Exception):
                queue.close()
        if self.qm is self:
            super().disconnect()

    def _run(
        self, command: str, args: Any, responses: list[Any] | None, filters: Any = ()
    ) -> list[Any]:
        flavour = self.FLAVOUR
        if responses is not None and not isinstance(responses, list):
            raise TypeError("responses must be a list")
        params = _params(flavour, args)
        hidden = pcf_filters.widen(params, filters)  # filtered on, not asked for
        with self.qm._call() as connection, flavour.errors():
            try:
                with connection.call() as conn:
                    results = admin.execute(conn, command, params, self._route())
                if filters:
                    results = pcf_filters.keep(results, filters, hidden)
            except MQError:
                if responses is not None:
                    # ibmmq keeps a response only when it carries parameters: the command
                    # server's error reply has none here, so the list stays empty
                    del responses[:]
                raise
        shaped = [self._shaped(result) for result in results]
        if not shaped and flavour.pcf_empty_responses_kept:
            shaped = [{}]  # the command server's one reply, with no parameters
        if responses is None:
            return shaped
        del responses[:]
        last = len(shaped)
        responses.extend(
            (result, self._cfh(command, 0, 0, seq=n, last=n == last, count=len(result)))
            for n, result in enumerate(shaped, 1)
        )
        return responses

    def _route(self) -> admin_remote.Route:
        """Where a command goes on a queue manager with its own command server, and its
        request's Expiry: pymqi's is response_wait_interval in tenths of a second,
        ibmmq's command_timeout's, or three times that when it has none. A negative
        interval (pymqi's; ibmmq makes it an hour) waits, and lets the request live,
        without limit."""
        interval = self._response_wait_interval
        if self.FLAVOUR.name == "ibmmq" and self._command_timeout:
            expiry = self._command_timeout // 100
        elif self.FLAVOUR.name == "ibmmq":
            expiry = (interval // 100) * 3
        else:
            expiry = interval // 100
        return admin_remote.Route(
            command_queue=_queue_name(self._command_queue_name),
            model_queue=_queue_name(self._reply_model),
            dynamic_name=_queue_name(self._dynamic_queue_name),
            wait=None if interval < 0 else interval / 1000,
            expiry=expiry if expiry >= 0 else CMQC.MQEI_UNLIMITED,
        )

    def _shaped(self, result: dict[int, Any]) -> dict[int, Any]:
        out: dict[int, Any] = {}
        for key, value in result.items():
            out[key] = self._value(key, value)
        return out

    def _value(self, key: int, value: Any) -> Any:
        if isinstance(value, list):
            return [self._value(key, item) for item in value]
        if not isinstance(value, str):
            return value
        raw = value.encode(self.bytes_encoding)
        if self.FLAVOUR.pcf_strings_stripped:
            return raw.rstrip(b" \x00")
        if key in admin_subscriptions.VARIABLE_LENGTH:
            return raw
        length = 48 if key == CMQCFC.MQCACF_Q_NAMES else inquiry.attribute_length(key)
        return raw.ljust(length, b" ")

    def _cfh(
        self,
        command: str,
        comp: int,
        reason: int,
        *,
        seq: int = 1,
        last: bool = True,
        count: int = 0,
    ) -> Any:
        """The MQCFH of a response as the command server writes it: numbered from 1,
        MQCFC_NOT_LAST but on the last, with its count of parameters."""
        return self.FLAVOUR.structure(
            "CFH",
            Type=CMQCFC.MQCFT_RESPONSE,
            Command=int(getattr(CMQCFC, command)),
            MsgSeqNumber=seq,
            Control=CMQCFC.MQCFC_LAST if last else CMQCFC.MQCFC_NOT_LAST,
            CompCode=comp,
            Reason=reason,
            ParameterCount=count,
        )

    @classmethod
    def stringify_keys(cls, raw: dict[Any, Any]) -> dict[Any, Any]:
        """The dict with its selectors replaced by their names, as the flavour's library
        names them (:mod:`.pcf_names`)."""
        # the class's tables, read once, as both libraries read them at call time
        return pcf_names.stringify_keys(raw, cls.iaStringDict, cls.caStringDict)

    stringifyKeys = stringify_keys
    iaStringDict = pcf_names.Table(pcf_names.integer_names)
    caStringDict = pcf_names.Table(pcf_names.character_names)

    @classmethod
    def unpack(cls, message: bytes) -> tuple[dict[int, Any], Any]:
        """``(values, CFH)`` of a PCF message, as both libraries return it (:mod:`.pcf_unpack`)."""
        return pcf_unpack.unpack(cls.FLAVOUR, message)
