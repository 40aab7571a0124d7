"""One hconn to an IBM MQ queue manager, speaking the transport contract through ibmmq or pymqi.

Every contract call is one MQI verb with MQ's own options, and nothing is emulated: the
BackoutCount, BOTHRESH, expiry, triggering and units of work are the queue manager's.

* ``get``: MQGET with MQGMO_SYNCPOINT or NO_SYNCPOINT, WAIT and WaitInterval (MQWI_UNLIMITED
  for no limit), BROWSE_FIRST/NEXT, MSG_UNDER_CURSOR, MatchOptions for the ids given,
  PROPERTIES_FORCE_MQRFH2 (the contract's bytes carry the RFH2) and FAIL_IF_QUIESCING;
  2033 is None, 2080 :class:`~mqjms.semantics.TruncatedMessage`.
* ``put``: MQPUT to a handle, MQPUT1 to a name. ``Context.PASS_ALL`` (a message being
  moved, seed 002) is MQPMO_PASS_ALL_CONTEXT from the handle the message was got with, as
  IBM MQ classes for JMS move it; an MQMD whose context is not that message's is put with
  MQPMO_SET_ALL_CONTEXT. A put that ends with MQCC_WARNING has put the message: its
  warning is :attr:`last_warning` (``Capability.PUT_WARNINGS``).
* ``inquire``: MQOPEN with MQOO_INQUIRE + MQOO_FAIL_IF_QUIESCING (the rule since MQ 9.1.2,
  which the backout component relies on to read BOTHRESH/BOQNAME of the underlying queue),
  MQINQ, MQCLOSE; ``inquire_qmgr`` MQINQ on the queue manager object (DEADQ).
* ``commit``/``backout``/``disconnect``: MQCMIT, MQBACK, MQDISC (MQBACK first unless
  ``commit``: MQDISC itself commits, the contract's disconnect backs out as JMS does).
* ``open_topic``/``subscribe``/``close_subscription``: MQOPEN of a topic, MQSUB, MQCLOSE
  of the hsub (:mod:`.pubsub`); an MQPUT to a topic handle publishes.

A connection that breaks (2009 and the other reasons of :data:`GONE`) is never retried
inside its unit of work: the call raises, every later call raises 2009, and whoever owns
the connection (a JMS Connection, a Worker's listener thread) reconnects, so the unit of
work's messages are backed out by the queue manager and come again with BackoutCount + 1.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.mq.md import MQMD
from mqjms.semantics import (
    DEFAULT_DYNAMIC_NAME,
    Browse,
    Capability,
    Context,
    Handle,
    TruncatedMessage,
)

from . import fields
from .config import MQConfig
from .context import context_option
from .gmo import get_structures
from .library import Library
from .pubsub import Publishing

log = get_logger("mqjms.transport.ibmmq")

#: Reasons that say the connection (or the queue manager) is gone.
GONE = frozenset(
    {
        C.MQRC_CONNECTION_BROKEN,
        C.MQRC_Q_MGR_NOT_AVAILABLE,
        C.MQRC_Q_MGR_QUIESCING,
        C.MQRC_Q_MGR_STOPPING,
        C.MQRC_CONNECTION_QUIESCING,
        C.MQRC_CONNECTION_STOPPING,
        C.MQRC_HOST_NOT_AVAILABLE,
        C.MQRC_RECONNECT_FAILED,
    }
)
_CAPABILITIES = frozenset(
    {
        Capability.PUT_WARNINGS,
        Capability.MESSAGE_LOCK,
        Capability.SYNCPOINT_IF_PERSISTENT,
        Capability.ALIAS_QUEUES,
        Capability.MODEL_QUEUES,
        Capability.REMOTE_QUEUES,
        Capability.BACKOUT_COUNT,
        Capability.BACKOUT_IN_PLACE,
        Capability.BROWSE_SKIPS_LOCKED,
        Capability.BROWSE_AT_ONCE,
        Capability.EXCLUSIVE_INPUT,
        Capability.EXPIRY,
        Capability.LAZY_EXPIRY,
        Capability.EXPIRATION_REPORTS,
        Capability.CONFIRM_REPORTS,
        Capability.FIFO,
        Capability.PRIORITY,
        Capability.PERSISTENCE,
        Capability.PUBLISH_SUBSCRIBE,
        Capability.SUBSCRIPTION_SELECTORS,
    }
)


class MQConnection(Publishing):
    """The transport contract over one library QueueManager (see the module docstring)."""

    capabilities: frozenset[Capability] = _CAPABILITIES

    def __init__(self, library: Library, qm: Any, config: MQConfig) -> None:
        self.library = library
        self.config = config
        self._qm = qm
        self._queues: dict[int, Any] = {}
        self._context_source: tuple[Any, MQMD] | None = None  # (queue, md) of the last get
        self._broken: MQError | None = None
        self._in_unit_of_work = False
        self.last_warning: MQError | None = None
        self.last_resolved: tuple[str, str] | None = None  # the MQPMO's resolved names
        self._init_publishing()
        with self._call("MQINQ of the queue manager's name"):
            name = library.inquire(qm, [C.MQCA_Q_MGR_NAME])[C.MQCA_Q_MGR_NAME]
        self._qmgr_name = fields.text(name) or config.qmgr

    def __repr__(self) -> str:
        return f"MQConnection({self.config.url!r}, library={self.library.name})"

    @property
    def qmgr_name(self) -> str:
        return self._qmgr_name

    # ------------------------------------------------------------------ errors
    @contextmanager
    def _call(self, what: str) -> Iterator[None]:
        """One MQI call: the library's errors as MQError; a broken connection stays broken."""
        if self._broken is not None:
            raise failed(C.MQRC_CONNECTION_BROKEN, f"{what}: {self._broken}")
        try:
            yield
        except MQError:
            raise
        except Exception as exc:
            if not self.library.is_mq_error(exc):
                raise
            error = self.library.error(exc, f"{what} on {self.config.url}")
            if error.reason in GONE and error.comp == C.MQCC_FAILED:
                self._broken = error
                log.warning(
                    "mq.connection_broken",
                    url=self.config.url,
                    reason=error.reason_name,
                    in_unit_of_work=self._in_unit_of_work,
                )
            raise error from None

    @contextmanager
    def _explained(self, queue: str) -> Iterator[None]:
        """MQ's reason for a queue it cannot open, with what is wrong in words."""
        try:
            yield
        except MQError as exc:
            detail = self._why(queue, exc.reason)
            if not detail:
                raise
            raise MQError(exc.comp, exc.reason, f"{detail} ({self.config.url})") from None

    def _why(self, queue: str, reason: int) -> str:
        if reason in (C.MQRC_OBJECT_NAME_ERROR, C.MQRC_UNKNOWN_OBJECT_NAME):
            problem = fields.name_problem(queue)
            if problem:
                return f"queue name {queue!r} {problem}"
            if reason == C.MQRC_UNKNOWN_OBJECT_NAME:
                return f"queue {queue!r} is not defined on {self._qmgr_name}"
        if reason == C.MQRC_UNKNOWN_ALIAS_BASE_Q:
            return f"the target queue of alias queue {queue!r} is not defined"
        return ""

    # ------------------------------------------------------------------ objects
    def open(
        self,
        queue: str,
        options: int,
        *,
        dynamic_name: str = DEFAULT_DYNAMIC_NAME,
        qmgr: str = "",
    ) -> Handle:
        od = self.library.structure("OD")
        od.ObjectName = fields.object_name(queue)
        od.ObjectQMgrName = fields.object_name(qmgr)  # IBM MQ resolves another one's name
        od.DynamicQName = fields.object_name(dynamic_name)
        od.Version = max(od.Version, self.library.CMQC.MQOD_VERSION_3)  # for ResolvedQName
        with self._explained(queue), self._call(f"MQOPEN of {queue!r}"):
            opened = self.library.module.Queue(self._qm, od, options)
        name = fields.text(od.ObjectName) or queue
        resolved = fields.text(getattr(od, "ResolvedQName", b""))
        resolved_qmgr = fields.text(getattr(od, "ResolvedQMgrName", b""))
        hobj = int(opened.get_handle())
        self._queues[hobj] = opened
        if not resolved:  # opened only to inquire or set: IBM MQ names no queue then
            resolved = self._base_queue(opened, name, options)
        return Handle(
            name=name,
            resolved_name=resolved,
            options=options,
            hobj=hobj,
            qmgr=qmgr,
            resolved_qmgr="" if resolved_qmgr in ("", self.qmgr_name) else resolved_qmgr,
        )

    def close(self, handle: Handle) -> None:
        queue = self._queues.pop(handle.hobj, None)
        if queue is None:
            return
        if self._context_source is not None and self._context_source[0] is queue:
            self._context_source = None
        with self._call(f"MQCLOSE of {handle.name!r}"):
            queue.close()

    def _base_queue(self, opened: Any, name: str, options: int) -> str:
        """The local queue a handle opened to inquire resolves to: an alias's BASE_Q_NAME
        (MQINQ, which IBM MQ answers for the alias itself), else the queue itself."""
        if not options & C.MQOO_INQUIRE:
            return name
        try:
            with self._call(f"MQINQ of {name!r}"):
                kind = fields.values(self.library.inquire(opened, [C.MQIA_Q_TYPE]))
                if kind.get(C.MQIA_Q_TYPE) != C.MQQT_ALIAS:
                    return name
                base = fields.values(self.library.inquire(opened, [C.MQCA_BASE_Q_NAME]))
        except MQError as exc:
            if exc.reason in GONE:
                raise
            return name  # the open stands; an inquiry of the name itself says what is wrong
        return str(base.get(C.MQCA_BASE_Q_NAME, "")).strip() or name

    def _queue(self, handle: Handle) -> Any:
        queue = self._queues.get(handle.hobj)
        if queue is None:
            raise failed(C.MQRC_HOBJ_ERROR, f"{handle.name!r} is not open on this connection")
        return queue

    # ------------------------------------------------------------------ MQGET
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
        cmqc = self.library.CMQC
        return self._mqget(
            handle,
            cmqc.MQGMO_SYNCPOINT if syncpoint else cmqc.MQGMO_NO_SYNCPOINT,
            wait=wait,
            browse=browse,
            msg_id=msg_id,
            correl_id=correl_id,
            group_id=group_id,
            under_cursor=under_cursor,
            max_length=max_length,
        )

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
        """MQGET with MQGMO_SYNCPOINT_IF_PERSISTENT: IBM MQ decides by the message."""
        return self._mqget(
            handle,
            self.library.CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT,
            wait=wait,
            browse=None,
            msg_id=msg_id,
            correl_id=correl_id,
            group_id=group_id,
            under_cursor=under_cursor,
            max_length=max_length,
        )

    def _mqget(
        self,
        handle: Handle,
        sync: int,
        *,
        wait: float | None,
        browse: Browse | None,
        msg_id: bytes | None,
        correl_id: bytes | None,
        group_id: bytes | None,
        under_cursor: bool,
        max_length: int | None,
    ) -> tuple[MQMD, bytes] | None:
        """MQGET with the syncpoint option ``sync`` (ignored for a browse)."""
        queue = self._queue(handle)
        cmqc = self.library.CMQC
        gmo, md = get_structures(
            self.library,
            sync,
            wait=wait,
            browse=browse,
            msg_id=msg_id,
            correl_id=correl_id,
            group_id=group_id,
            under_cursor=under_cursor,
            properties=handle.hobj not in self._compat_hobjs,
        )
        try:
            with self._call(f"MQGET from {handle.name!r}"):
                data = queue.get(max_length, md, gmo)
        except MQError as exc:
            if exc.reason == C.MQRC_NO_MSG_AVAILABLE:
                return None
            if exc.reason == C.MQRC_TRUNCATED_MSG_FAILED and max_length is not None:
                cause = exc.__context__
                raise TruncatedMessage(
                    self._mqmd(md),
                    bytes(getattr(cause, "message", b"") or b""),
                    int(getattr(cause, "original_length", 0) or 0),
                    max_length,
                ) from None
            raise
        got = self._mqmd(md)
        if browse is None:  # what MQPMO_PASS_ALL_CONTEXT from this handle passes
            self._context_source = (queue, got)
            if sync == cmqc.MQGMO_SYNCPOINT or (
                sync == cmqc.MQGMO_SYNCPOINT_IF_PERSISTENT and got.Persistence == C.MQPER_PERSISTENT
            ):
                self._in_unit_of_work = True
        return got, bytes(data)

    # ------------------------------------------------------------------ MQGMO_LOCK
    def lock_browsed(self, handle: Handle) -> bool:
        """MQGMO_BROWSE_MSG_UNDER_CURSOR with MQGMO_LOCK: the queue manager locks the
        message browsed last (:class:`~mqjms.semantics.LocksMessages`); False on 2034."""
        cmqc = self.library.CMQC
        try:
            self._gmo_call(
                handle,
                cmqc.MQGMO_BROWSE_MSG_UNDER_CURSOR | cmqc.MQGMO_LOCK | cmqc.MQGMO_FAIL_IF_QUIESCING,
                "MQGET (MQGMO_LOCK)",
            )
        except MQError as exc:
            if exc.reason == C.MQRC_NO_MSG_UNDER_CURSOR:
                return False
            raise
        return True

    def unlock(self, handle: Handle) -> bool:
        """MQGMO_UNLOCK; False on MQ's 2209 warning (no message locked)."""
        try:
            self._gmo_call(handle, self.library.CMQC.MQGMO_UNLOCK, "MQGET (MQGMO_UNLOCK)")
        except MQError as exc:
            if exc.reason == C.MQRC_NO_MSG_LOCKED:
                return False
            raise
        return True

    def _gmo_call(self, handle: Handle, options: int, what: str) -> None:
        queue = self._queue(handle)
        gmo = self.library.structure("GMO")
        gmo.Options = options
        md = self.library.structure("MD", Version=self.library.CMQC.MQMD_VERSION_2)
        with self._call(f"{what} on {handle.name!r}"):
            queue.get(None, md, gmo)

    # ------------------------------------------------------------------ MQPUT / MQPUT1
    def put(
        self,
        target: str | Handle,
        md: MQMD,
        data: bytes,
        *,
        syncpoint: bool = False,
        context: Context = Context.DEFAULT,
        new_msg_id: bool = True,
    ) -> MQMD:
        lib = self.library
        cmqc = lib.CMQC
        pmo = lib.structure("PMO")
        options = cmqc.MQPMO_FAIL_IF_QUIESCING
        options |= cmqc.MQPMO_SYNCPOINT if syncpoint else cmqc.MQPMO_NO_SYNCPOINT
        if new_msg_id:
            options |= cmqc.MQPMO_NEW_MSG_ID
        options |= context_option(cmqc, pmo, md, context, target, self._context_source)
        pmo.Options = options
        lib_md = lib.structure("MD")
        lib_md.unpack(md.pack(C.MQENC_NATIVE)[: lib_md.get_length()])
        name = target.name if isinstance(target, Handle) else target
        self.last_warning = None
        self.last_resolved = None
        try:
            with self._explained(name), self._call(f"MQPUT to {name!r}"):
                if isinstance(target, Handle) and target.topic is not None:
                    self._queue(target).pub(data, lib_md, pmo)  # publishes
                elif isinstance(target, Handle):
                    self._queue(target).put(data, lib_md, pmo)
                else:
                    od = lib.structure("OD")
                    od.ObjectName = fields.object_name(target)
                    self._qm.put1(od, data, lib_md, pmo)
        except MQError as exc:
            if exc.comp != C.MQCC_WARNING:
                raise
            self.last_warning = exc  # the message was put
        resolved = fields.text(getattr(pmo, "ResolvedQName", b""))
        self.last_resolved = (
            (resolved, fields.text(getattr(pmo, "ResolvedQMgrName", b"")) or self.qmgr_name)
            if resolved
            else None
        )
        if syncpoint:
            self._in_unit_of_work = True
        return self._mqmd(lib_md)

    # ------------------------------------------------------------------ MQINQ / MQSET
    def inquire(self, queue: str | Handle, selectors: Sequence[int]) -> dict[int, int | str]:
        if isinstance(queue, Handle):
            with self._call(f"MQINQ of {queue.name!r}"):
                values = self.library.inquire(self._queue(queue), selectors)
            return fields.values(values)
        handle = self.open(queue, C.MQOO_INQUIRE | C.MQOO_FAIL_IF_QUIESCING)
        try:
            return self.inquire(handle, selectors)
        finally:
            self.close(handle)

    def inquire_qmgr(self, selectors: Sequence[int]) -> dict[int, int | str]:
        with self._call("MQINQ of the queue manager"):
            return fields.values(self.library.inquire(self._qm, selectors))

    def set(self, handle: Handle, attrs: Mapping[int, int | str]) -> None:
        with self._call(f"MQSET of {handle.name!r}"):
            self.library.set(self._queue(handle), attrs)

    # ------------------------------------------------------------------ units of work
    def commit(self) -> None:
        try:
            with self._call("MQCMIT"):
                self._qm.commit()
        finally:
            self._in_unit_of_work = False

    def backout(self) -> None:
        try:
            with self._call("MQBACK"):
                self._qm.backout()
        finally:
            self._in_unit_of_work = False

    def disconnect(self, *, commit: bool = False) -> None:
        try:
            if self._broken is None:
                if commit:
                    self.commit()
                else:
                    self.backout()
        except MQError as exc:
            if commit or exc.reason not in GONE:
                raise  # a connection gone has backed out: the disconnect is done
        finally:
            self._queues.clear()
            self._forget_subscriptions()
            self._context_source = None
            if self._broken is None:
                self._broken = failed(C.MQRC_HCONN_ERROR, "the connection was disconnected")
                try:
                    self._qm.disconnect()
                except Exception as exc:  # MQDISC on a broken connection: it is gone anyway
                    if not self.library.is_mq_error(exc):
                        raise
                    log.debug("mq.disconnect_failed", url=self.config.url, error=str(exc))
            log.debug("mq.disconnected", url=self.config.url)

    # ------------------------------------------------------------------ helpers
    def _mqmd(self, lib_md: Any) -> MQMD:
        raw = bytes(lib_md.pack())
        size = MQMD.size()
        return MQMD.unpack(raw[:size].ljust(size, b"\x00"), C.MQENC_NATIVE)
