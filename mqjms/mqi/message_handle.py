"""MessageHandle: message properties as pymqi and ibmmq programs set and read them.

``MessageHandle(qmgr)`` is MQCRTMH; ``handle.msg_handle`` goes into MQPMO.OriginalMsgHandle
(version 3) for a put, or MQGMO.MsgHandle (version 4) with MQGMO_PROPERTIES_IN_HANDLE for a
get. ``properties.set(name, value, property_type=MQTYPE_STRING)`` is MQSETMP;
``properties.get(name)`` is MQINQMP: the value as it was set (a str, int, float, bool or
bytes); a name ending in ``%`` (``'usr.%'``) reads one property per call, MQIMPO_INQ_FIRST
then MQIMPO_INQ_NEXT, until 2471 (MQRC_PROPERTY_NOT_AVAILABLE): ibmmq returns ``(value,
name)`` for it, pymqi the value alone, as each library does.
A value longer than ``max_value_length`` (default 64) raises MQCC_WARNING 2469 with as
much of it as fits in ``value`` and its whole length in ``data_length`` (ibmmq) or
``dataLength`` (pymqi). See :mod:`.properties` for how
properties travel in the message.
"""

from __future__ import annotations

from typing import Any, ClassVar

from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.mqi.constants import CMQC

from . import properties
from .flavour import Flavour
from .qmgr import QueueManager


class PropertyError(MQError):
    """An MQINQMP failure with what the libraries attach to it."""

    def __init__(self, error: MQError, value: object, data_length: int) -> None:
        super().__init__(error.comp, error.reason, error.detail)
        self.value = value
        self.data_length = data_length


class Properties:
    """A message handle's properties (``handle.properties``)."""

    default_value_length = 64

    def __init__(self, handle: MessageHandle) -> None:
        self._handle = handle
        self.conn_handle = handle.conn_handle
        self.msg_handle = handle.msg_handle

    def __getitem__(self, name: str | bytes) -> Any:
        value = self.get(name)
        if not value:
            raise KeyError(f"No such property [{name!r}]")
        return value

    def __setitem__(self, name: str | bytes, value: Any) -> None:
        self.set(name, value)

    def get(
        self,
        name: str | bytes,
        default: Any = None,
        max_value_length: int | None = None,
        impo_options: int = CMQC.MQIMPO_INQ_FIRST,
        pd: Any = None,
        property_type: int = CMQC.MQTYPE_AS_SET,
        impo: Any = None,
    ) -> Any:
        """MQINQMP (see the module docstring)."""
        flavour = self._handle.FLAVOUR
        options = int(getattr(impo, "Options", impo_options)) if impo is not None else impo_options
        limit = max_value_length or self.default_value_length
        with flavour.errors():
            store = self._handle.store()
            try:
                key, prop = store.inquire(_name(name), options)
            except MQError as exc:
                raise PropertyError(exc, default, 0) from None
            length = properties.value_bytes(prop.value)
            if isinstance(prop.value, str | bytes) and length > limit:
                # MQ: a warning, with as much of the value as fits and its whole length
                raise PropertyError(
                    MQError(
                        C.MQCC_WARNING,
                        CMQC.MQRC_PROPERTY_VALUE_TOO_BIG,
                        f"property {key!r} has {length} bytes, more than {limit}: its first "
                        f"{limit} are returned",
                    ),
                    _truncated(prop.value, limit),
                    length,
                )
        wildcard = flavour.wildcard_names_returned and _name(name).endswith("%")
        # the libraries' C layer returns an MQTYPE_BOOLEAN as the MQLONG it is: 0 or 1
        value = int(prop.value) if isinstance(prop.value, bool) else prop.value
        return (value, key) if wildcard else value

    def set(
        self,
        name: str | bytes,
        value: Any,
        property_type: int = CMQC.MQTYPE_STRING,
        value_length: int = CMQC.MQVL_NULL_TERMINATED,
        pd: Any = None,
        smpo: Any = None,
    ) -> None:
        """MQSETMP."""
        if property_type == CMQC.MQTYPE_STRING and value_length == CMQC.MQVL_NULL_TERMINATED:
            value = _null_terminated(value)
        with self._handle.FLAVOUR.errors():
            self._handle.store().set(_name(name), value, property_type)

    def dlt(self, name: str | bytes, dmpo: Any = None) -> None:
        """MQDLTMP (ibmmq)."""
        with self._handle.FLAVOUR.errors():
            self._handle.store().delete(_name(name))


def _truncated(value: str | bytes, limit: int) -> str | bytes:
    """The first ``limit`` bytes of a property's value (a str's, in UTF-8, whole
    characters only)."""
    if isinstance(value, bytes):
        return value[:limit]
    return value.encode("utf-8")[:limit].decode("utf-8", errors="ignore")


def _null_terminated(value: Any) -> Any:
    """A string value up to its first NUL: the libraries hand MQSETMP the UTF-8 bytes with
    MQVL_NULL_TERMINATED unless told a length, so MQ keeps only that much."""
    if isinstance(value, str):
        return value.partition("\0")[0]
    if isinstance(value, bytes):
        return value.partition(b"\0")[0]
    return value


def _name(name: str | bytes) -> str:
    return name.decode("utf-8") if isinstance(name, bytes) else str(name)


class MessageHandle:
    """A message handle of a connection (MQCRTMH)."""

    FLAVOUR: ClassVar[Flavour]
    default_value_length = 64

    def __init__(
        self, qmgr: QueueManager | None = None, cmho: Any = None, dup_handle: int | None = None
    ) -> None:
        if qmgr is None:
            raise self.FLAVOUR.MQMIError(
                C.MQCC_FAILED, C.MQRC_HCONN_ERROR, detail="a message handle needs a QueueManager"
            )
        self._qmgr = qmgr
        self.conn_handle = qmgr.get_handle()
        self.duplicated = dup_handle is not None
        if dup_handle is None:
            self.msg_handle = qmgr._live().properties.create()
        else:
            self.msg_handle = dup_handle
        self.properties = Properties(self)

    def store(self) -> properties.MessageProperties:
        return self._handles().get(self.msg_handle)

    def _handles(self) -> properties.PropertyStore:
        """The connection's message handles; MQ's 2018 MQRC_HCONN_ERROR once the connection
        ended, as both libraries pass MQ the connection handle the MessageHandle kept."""
        try:
            return self._qmgr._live().properties
        except self.FLAVOUR.PYIFError:
            raise failed(
                C.MQRC_HCONN_ERROR,
                f"message handle {self.msg_handle}: its connection {self.conn_handle} has ended",
            ) from None

    def get_handle(self) -> int:
        return self.msg_handle

    def get_queue_manager(self) -> int:
        return self.conn_handle

    def dlt(self, dmho: Any = None) -> None:
        """MQDLTMH (ibmmq)."""
        if self.duplicated:
            return
        with self.FLAVOUR.errors():
            self._handles().delete(self.msg_handle)
