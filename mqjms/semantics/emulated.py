"""EmulatedConnection: the MQI calls' common front for transports that emulate a queue
manager (the embedded one, STOMP).

Each call is checked here as the contract says, in IBM MQ's order (the connection, the
handle, the options, the arguments), then handed to the transport's own step
(``_open``, ``_get``, ``_put``, ``_inquire``) with the arguments gathered in one
request; MQINQ on the queue manager is answered here from the attributes the transport
keeps. What differs between transports (storage, broker I/O, units of work) stays theirs.
A transport over a real queue manager (IBM MQ) does not use this: the queue manager
checks its own calls.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Self

from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.mq.md import MQMD

from .attributes import validate_name
from .capabilities import Capability
from .checks import check_get, check_inquire, check_open, check_put, check_set
from .contract import DEFAULT_DYNAMIC_NAME, Browse, Context, Handle
from .definitions import AttrValue, QueueDefinition
from .inquire import inquire_qmgr, set_values
from .put import PutIdentity

__all__ = ["DEFAULT_DYNAMIC_NAME", "EmulatedConnection", "GetRequest", "PutRequest"]


@dataclass(frozen=True, slots=True)
class GetRequest:
    """What an MQGET asks for, its arguments checked."""

    wait: float | None
    syncpoint: bool
    browse: Browse | None
    msg_id: bytes | None
    correl_id: bytes | None
    group_id: bytes | None = None
    under_cursor: bool = False
    max_length: int | None = None
    if_persistent: bool = False  # MQGMO_SYNCPOINT_IF_PERSISTENT: ``syncpoint`` if persistent

    @property
    def matching(self) -> bool:
        """Whether the get selects by MsgId, CorrelId or GroupId."""
        return not (self.msg_id is None and self.correl_id is None and self.group_id is None)


@dataclass(frozen=True, slots=True)
class PutRequest:
    """How an MQPUT/MQPUT1 is to be made, its arguments checked."""

    syncpoint: bool
    context: Context
    new_msg_id: bool
    qmgr: str = ""  # the queue manager that owns the queue, when it is another one
    retain: bool = False  # MQPMO_RETAIN: a publication kept as its topic's retained one
    not_own_subs: bool = False  # MQPMO_NOT_OWN_SUBS: not to the publisher's own subscriptions


class EmulatedConnection(ABC):
    """An hconn whose MQI calls are checked here and carried out by the subclass."""

    capabilities: frozenset[Capability]
    identity: PutIdentity  # who this connection puts as (the put context)
    _closed: bool
    #: The MQCC_WARNING the last MQPUT/MQPUT1 completed with, None after MQCC_OK (the
    #: MQI's CompCode and Reason): e.g. 2049 for a Priority above 9.
    last_warning: MQError | None = None
    #: Where the last MQPUT/MQPUT1 resolved to (queue, queue manager), where the subclass
    #: says (:attr:`Capability.REMOTE_QUEUES`).
    last_resolved: tuple[str, str] | None = None

    @property
    @abstractmethod
    def qmgr_name(self) -> str: ...

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.disconnect()

    @abstractmethod
    def disconnect(self, *, commit: bool = False) -> None: ...

    def _check_open(self) -> None:
        if self._closed:
            raise failed(C.MQRC_HCONN_ERROR, "the connection is closed")

    @abstractmethod
    def _check_handle(self, handle: Handle) -> None:
        """MQRC_HOBJ_ERROR (2019) unless ``handle`` is open on this connection."""

    # ------------------------------------------------------------------ the MQI calls
    def open(
        self,
        queue: str,
        options: int,
        *,
        dynamic_name: str = DEFAULT_DYNAMIC_NAME,
        qmgr: str = "",
    ) -> Handle:
        """MQOPEN with MQOO_* options; MQRC 2085 when the queue does not exist. Opening a
        model queue creates a dynamic queue named from ``dynamic_name``. ``qmgr`` (the
        MQOD's ObjectQMgrName) is the queue manager that owns the queue: blank or this
        one's name for a queue here."""
        self._check_open()
        qmgr = qmgr.strip()
        if qmgr == self.qmgr_name:
            qmgr = ""
        elif qmgr:
            validate_name(qmgr, "queue manager")
            if not queue.strip():
                raise failed(
                    C.MQRC_REMOTE_Q_NAME_ERROR,
                    f"ObjectName is blank: name the queue of queue manager {qmgr!r}",
                )
        validate_name(queue)
        check_open(options)
        return self._open(queue, options, dynamic_name, qmgr)

    def get(
        self,
        handle: Handle,
        *,
        wait: float | None = 0.0,
        syncpoint: bool = False,
        browse: Browse | None = None,
        msg_id: bytes | None = None,
        correl_id: bytes | None = None,
        group_id: bytes | None = None,
        under_cursor: bool = False,
        max_length: int | None = None,
    ) -> tuple[MQMD, bytes] | None:
        """MQGET (see :meth:`mqjms.semantics.Connection.get`)."""
        self._check_open()
        self._check_handle(handle)
        check_get(handle, wait=wait, syncpoint=syncpoint, browse=browse)
        if under_cursor and browse is not None:
            raise failed(C.MQRC_OPTIONS_ERROR, "a get under the cursor is not a browse")
        if max_length is not None and max_length < 0:
            raise failed(C.MQRC_BUFFER_LENGTH_ERROR, f"max_length {max_length} is negative")
        request = GetRequest(
            wait, syncpoint, browse, msg_id, correl_id, group_id, under_cursor, max_length
        )
        with _still_there(handle):
            return self._get(handle, request)

    def get_if_persistent(
        self,
        handle: Handle,
        *,
        wait: float | None = 0.0,
        msg_id: bytes | None = None,
        correl_id: bytes | None = None,
        group_id: bytes | None = None,
        under_cursor: bool = False,
        max_length: int | None = None,
    ) -> tuple[MQMD, bytes] | None:
        """MQGET with MQGMO_SYNCPOINT_IF_PERSISTENT (see
        :meth:`mqjms.semantics.GetsIfPersistent.get_if_persistent`)."""
        self._check_open()
        self._check_handle(handle)
        check_get(handle, wait=wait, syncpoint=True, browse=None)
        if max_length is not None and max_length < 0:
            raise failed(C.MQRC_BUFFER_LENGTH_ERROR, f"max_length {max_length} is negative")
        request = GetRequest(
            wait, True, None, msg_id, correl_id, group_id, under_cursor, max_length, True
        )
        with _still_there(handle):
            return self._get(handle, request)

    def put(
        self,
        target: str | Handle,
        md: MQMD,
        data: bytes,
        *,
        syncpoint: bool = False,
        context: Context = Context.DEFAULT,
        new_msg_id: bool = True,
        retain: bool = False,
        not_own_subs: bool = False,
    ) -> MQMD:
        """MQPUT (to a handle) or MQPUT1 (to a name); returns the MQMD as put. ``retain``
        (MQPMO_RETAIN) applies to a topic handle, of a subclass that retains publications;
        ``not_own_subs`` (MQPMO_NOT_OWN_SUBS) to a topic handle too: the publication is not
        sent to the subscriptions this connection holds open."""
        self._check_open()
        self.last_warning = None
        self.last_resolved = None
        if isinstance(target, Handle):
            self._check_handle(target)
        name = check_put(target, data, context)
        remote = target.qmgr if isinstance(target, Handle) else ""
        request = PutRequest(syncpoint, context, new_msg_id, remote, retain, not_own_subs)
        if isinstance(target, Handle) and target.topic is not None:
            return self._publish(target, md, bytes(data), request)
        if isinstance(target, Handle):
            with _still_there(target):
                return self._put(name, md, bytes(data), request)
        return self._put(name, md, bytes(data), request)

    def inquire(self, queue: str | Handle, selectors: Sequence[int]) -> dict[int, int | str]:
        """MQINQ on a queue: MQIA_* selectors give int, MQCA_* give str."""
        self._check_open()
        if isinstance(queue, Handle):
            self._check_handle(queue)
            check_inquire(queue)
            with _still_there(queue):
                return self._inquire(queue.name, selectors)
        return self._inquire(queue, selectors)

    def inquire_qmgr(self, selectors: Sequence[int]) -> dict[int, int | str]:
        """MQINQ on the queue manager object (e.g. MQCA_DEAD_LETTER_Q_NAME)."""
        self._check_open()
        return inquire_qmgr(
            self.qmgr_name, self._qmgr_attrs(), selectors, identifier=self._qmgr_identifier()
        )

    def _qmgr_identifier(self) -> str | None:
        """MQCA_Q_MGR_IDENTIFIER, where the transport knows one (default: the name)."""
        return None

    def set(self, handle: Handle, attrs: Mapping[int, int | str]) -> None:
        """MQSET (see :meth:`mqjms.semantics.Connection.set`)."""
        self._check_open()
        self._check_handle(handle)
        check_set(handle)
        with _still_there(handle):
            self._set(handle.name, lambda queue: set_values(queue, attrs))

    # ------------------------------------------------------------------ the transport's steps
    @abstractmethod
    def _open(self, queue: str, options: int, dynamic_name: str, qmgr: str) -> Handle:
        """MQOPEN, its arguments checked; ``qmgr`` another queue manager's name, or blank."""

    @abstractmethod
    def _get(self, handle: Handle, request: GetRequest) -> tuple[MQMD, bytes] | None: ...

    @abstractmethod
    def _put(self, name: str, md: MQMD, data: bytes, request: PutRequest) -> MQMD: ...

    @abstractmethod
    def _inquire(self, queue: str, selectors: Sequence[int]) -> dict[int, int | str]: ...

    def _publish(self, topic: Handle, md: MQMD, data: bytes, request: PutRequest) -> MQMD:
        """MQPUT to a topic handle (:mod:`.pubsub`): a transport with publish/subscribe
        delivers a copy to every matching subscription."""
        raise failed(C.MQRC_FUNCTION_NOT_SUPPORTED, f"{type(self).__name__} cannot publish")

    @abstractmethod
    def _set(
        self, queue: str, change: Callable[[QueueDefinition], Mapping[str, AttrValue]]
    ) -> None:
        """Alter ``queue`` by the MQSC attributes ``change`` gives for its definition."""

    @abstractmethod
    def _qmgr_attrs(self) -> Mapping[str, AttrValue]:
        """The queue manager's attributes under MQSC names (missing ones: MQ's defaults)."""


class _still_there:  # named as the function it replaced: ``with _still_there(handle)``
    """A call on an open queue's handle: the queue gone since the MQOPEN (a dynamic queue
    its creator closed and so deleted, the one kind of queue deleted while others have it
    open) is MQRC_Q_DELETED (2052), as IBM MQ says, not the 2085 of a name never defined.
    A class, not a generator: every get and put enters one."""

    __slots__ = ("_handle",)

    def __init__(self, handle: Handle) -> None:
        self._handle = handle

    def __enter__(self) -> None:
        return None

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if not isinstance(exc, MQError) or exc.reason != C.MQRC_UNKNOWN_OBJECT_NAME:
            return
        handle = self._handle
        if handle.topic is not None or handle.resolved_qmgr:
            return  # a remote queue's route: what is unknown is along it
        raise failed(
            C.MQRC_Q_DELETED,
            f"queue {handle.name!r} was deleted after this handle opened it "
            "(a dynamic queue is deleted when its creator closes it)",
        ) from None
