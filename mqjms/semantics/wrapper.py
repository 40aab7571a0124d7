"""ConnectionWrapper: a connection that delegates everything to another one.

Subclass it to watch or adjust a few calls (trigger/idle.py tracks activity; tests inject
faults) and the rest, the declared capabilities and their optional calls included, stays
that of the wrapped connection: wrapping never turns off a fast path. A subclass that
watches :meth:`commit` and :meth:`get` watches :meth:`commit_and_get` too, which stands
for the two (and :meth:`backout_and_get` for :meth:`backout` and :meth:`get`); one that
must not offer a capability narrows :attr:`capabilities`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from typing import cast

from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.mq.md import MQMD

from .capabilities import Capability
from .contract import (
    DEFAULT_DYNAMIC_NAME,
    BacksOutAndGets,
    Browse,
    CommitsAndGets,
    Connection,
    Context,
    GetsIfPersistent,
    Handle,
    InterruptsWait,
    LocksMessages,
    MakesOneTriggerEvent,
    Reserves,
    ResolvesPuts,
    SyncpointPut,
    WarnsOnPut,
)
from .pubsub import (
    KnowsOwnPublications,
    RetainsPublications,
    Subscribes,
    Subscription,
    SubscriptionDescriptor,
)


class ConnectionWrapper:
    """A :class:`~.contract.Connection` over ``inner``, delegating every call."""

    def __init__(self, inner: Connection) -> None:
        self.inner = inner

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.inner!r})"

    @property
    def qmgr_name(self) -> str:
        return self.inner.qmgr_name

    @property
    def capabilities(self) -> frozenset[Capability]:
        return self.inner.capabilities

    def open(
        self,
        queue: str,
        options: int,
        *,
        dynamic_name: str = DEFAULT_DYNAMIC_NAME,
        qmgr: str = "",
    ) -> Handle:
        return self.inner.open(queue, options, dynamic_name=dynamic_name, qmgr=qmgr)

    def close(self, handle: Handle) -> None:
        self.inner.close(handle)

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
        return self.inner.get(
            handle,
            wait=wait,
            syncpoint=syncpoint,
            browse=browse,
            msg_id=msg_id,
            correl_id=correl_id,
            group_id=group_id,
            under_cursor=under_cursor,
            max_length=max_length,
        )

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
        return self.inner.put(
            target, md, data, syncpoint=syncpoint, context=context, new_msg_id=new_msg_id
        )

    def inquire(self, queue: str | Handle, selectors: Sequence[int]) -> dict[int, int | str]:
        return self.inner.inquire(queue, selectors)

    def inquire_qmgr(self, selectors: Sequence[int]) -> dict[int, int | str]:
        return self.inner.inquire_qmgr(selectors)

    def set(self, handle: Handle, attrs: Mapping[int, int | str]) -> None:
        self.inner.set(handle, attrs)

    def commit(self) -> None:
        self.inner.commit()

    def backout(self) -> None:
        self.inner.backout()

    def disconnect(self, *, commit: bool = False) -> None:
        self.inner.disconnect(commit=commit)

    # ------------------------------------------------------------------ optional calls
    def _require(self, capability: Capability) -> None:
        """MQRC_FUNCTION_NOT_SUPPORTED (2298) for an optional call not declared."""
        if capability not in self.capabilities:
            raise failed(
                C.MQRC_FUNCTION_NOT_SUPPORTED,
                f"{self.inner!r} does not declare {capability}",
            )

    def _reserves(self) -> Reserves:
        self._require(Capability.RESERVE)
        return cast(Reserves, self.inner)

    def commit_and_get(
        self, handle: Handle, puts: Sequence[SyncpointPut] = ()
    ) -> tuple[MQMD, bytes] | None:
        """The wrapped connection's combined MQPUTs + MQCMIT + MQGET
        (:attr:`Capability.COMMIT_AND_GET`)."""
        self._require(Capability.PUTS_IN_STEP if puts else Capability.COMMIT_AND_GET)
        inner = cast(CommitsAndGets, self.inner)
        # without puts, as a connection of COMMIT_AND_GET alone is called
        return inner.commit_and_get(handle, puts) if puts else inner.commit_and_get(handle)

    def backout_and_get(self, handle: Handle) -> tuple[MQMD, bytes] | None:
        """The wrapped connection's combined MQBACK + MQGET
        (:attr:`Capability.BACKOUT_AND_GET`)."""
        self._require(Capability.BACKOUT_AND_GET)
        return cast(BacksOutAndGets, self.inner).backout_and_get(handle)

    def put_and_commit(self, puts: Sequence[SyncpointPut]) -> None:
        """The wrapped connection's combined MQPUTs + MQCMIT
        (:attr:`Capability.PUTS_IN_STEP`)."""
        self._require(Capability.PUTS_IN_STEP)
        cast(CommitsAndGets, self.inner).put_and_commit(puts)

    def interrupt_wait(self) -> None:
        """End the wrapped connection's get with wait (:attr:`Capability.INTERRUPT_WAIT`)."""
        self._require(Capability.INTERRUPT_WAIT)
        cast(InterruptsWait, self.inner).interrupt_wait()

    def one_trigger_event(self) -> AbstractContextManager[None]:
        """The wrapped connection's trigger event (:attr:`Capability.ONE_TRIGGER_EVENT`)."""
        self._require(Capability.ONE_TRIGGER_EVENT)
        return cast(MakesOneTriggerEvent, self.inner).one_trigger_event()

    @property
    def last_warning(self) -> MQError | None:
        """The wrapped connection's last put warning (:attr:`Capability.PUT_WARNINGS`)."""
        if Capability.PUT_WARNINGS not in self.inner.capabilities:
            return None
        return cast(WarnsOnPut, self.inner).last_warning

    @property
    def last_resolved(self) -> tuple[str, str] | None:
        """Where the wrapped connection's last put went (:attr:`Capability.REMOTE_QUEUES`)."""
        if Capability.REMOTE_QUEUES not in self.inner.capabilities:
            return None
        return cast(ResolvesPuts, self.inner).last_resolved

    # :attr:`Capability.RESERVE`: see :class:`~.contract.Reserves`
    def reserve(self, handle: Handle, owner: str, limit: int) -> int:
        return self._reserves().reserve(handle, owner, limit)

    def reserved(self, owner: str, lo: int, hi: int) -> list[tuple[int, int, MQMD, bytes]]:
        return self._reserves().reserved(owner, lo, hi)

    def reserved_packed(self, owner: str, lo: int, hi: int) -> list[tuple[int, int, bytes, bytes]]:
        return self._reserves().reserved_packed(owner, lo, hi)

    def reserved_numbers(
        self, owner: str, lo: int, hi: int, limit: int | None = None
    ) -> list[tuple[int, int, int]]:
        return self._reserves().reserved_numbers(owner, lo, hi, limit)

    def reservation_end(self, owner: str) -> int:
        return self._reserves().reservation_end(owner)

    def reservation_count(self, owner: str) -> int:
        return self._reserves().reservation_count(owner)

    def release_reserved(self, owner: str, upto: int) -> int:
        return self._reserves().release_reserved(owner, upto)

    def renumber_reserved(
        self, owner: str, seqs: Sequence[int], *, tag: int, backout: int = 0
    ) -> list[int]:
        return self._reserves().renumber_reserved(owner, seqs, tag=tag, backout=backout)

    def get_reserved(self, owner: str, seq: int) -> tuple[MQMD, bytes] | None:
        return self._reserves().get_reserved(owner, seq)

    # :attr:`Capability.MESSAGE_LOCK`: see :class:`~.contract.LocksMessages`
    # :attr:`Capability.SYNCPOINT_IF_PERSISTENT`: see :class:`~.contract.GetsIfPersistent`
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
        self._require(Capability.SYNCPOINT_IF_PERSISTENT)
        return cast(GetsIfPersistent, self.inner).get_if_persistent(
            handle,
            wait=wait,
            msg_id=msg_id,
            correl_id=correl_id,
            group_id=group_id,
            under_cursor=under_cursor,
            max_length=max_length,
        )

    def _locks(self) -> LocksMessages:
        self._require(Capability.MESSAGE_LOCK)
        return cast(LocksMessages, self.inner)

    def lock_browsed(self, handle: Handle) -> bool:
        return self._locks().lock_browsed(handle)

    def unlock(self, handle: Handle) -> bool:
        return self._locks().unlock(handle)

    # :attr:`Capability.PUBLISH_SUBSCRIBE`: see :class:`~.pubsub.Subscribes`
    def _subscribes(self) -> Subscribes:
        self._require(Capability.PUBLISH_SUBSCRIBE)
        return cast(Subscribes, self.inner)

    def open_topic(self, topic_string: str = "", options: int = 0, *, topic: str = "") -> Handle:
        return self._subscribes().open_topic(topic_string, options, topic=topic)

    def subscribe(
        self, descriptor: SubscriptionDescriptor, queue: Handle | None = None
    ) -> Subscription:
        return self._subscribes().subscribe(descriptor, queue)

    def close_subscription(self, subscription: Subscription, *, remove: bool = False) -> None:
        self._subscribes().close_subscription(subscription, remove=remove)

    # :attr:`Capability.RETAINED_PUBLICATIONS`: see :class:`~.pubsub.RetainsPublications`
    def _retains(self) -> RetainsPublications:
        self._require(Capability.RETAINED_PUBLICATIONS)
        return cast(RetainsPublications, self.inner)

    def publish_retained(
        self,
        topic: Handle,
        md: MQMD,
        data: bytes,
        *,
        syncpoint: bool = False,
        context: Context = Context.DEFAULT,
        new_msg_id: bool = True,
    ) -> MQMD:
        return self._retains().publish_retained(
            topic, md, data, syncpoint=syncpoint, context=context, new_msg_id=new_msg_id
        )

    def request_publications(self, subscription: Subscription) -> int:
        return self._retains().request_publications(subscription)

    # :attr:`Capability.OWN_PUBLICATIONS`: see :class:`~.pubsub.KnowsOwnPublications`
    def _knows_own(self) -> KnowsOwnPublications:
        self._require(Capability.OWN_PUBLICATIONS)
        return cast(KnowsOwnPublications, self.inner)

    def publish_not_to_own(
        self,
        topic: Handle,
        md: MQMD,
        data: bytes,
        *,
        syncpoint: bool = False,
        context: Context = Context.DEFAULT,
        new_msg_id: bool = True,
    ) -> MQMD:
        return self._knows_own().publish_not_to_own(
            topic, md, data, syncpoint=syncpoint, context=context, new_msg_id=new_msg_id
        )

    def share_origin(self, origin: str) -> None:
        self._knows_own().share_origin(origin)

    def give_back_reserved(self, owner: str, after: int = 0, *, untagged_only: bool = False) -> int:
        return self._reserves().give_back_reserved(owner, after, untagged_only=untagged_only)
