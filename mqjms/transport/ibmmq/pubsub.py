"""Publish/subscribe over IBM MQ: the contract's :class:`~mqjms.semantics.pubsub.Subscribes`
as the MQI verbs themselves, through the library's ``Topic`` and ``Subscription``.

* ``open_topic``: MQOPEN of an MQOD version 4 with ObjectType MQOT_TOPIC (ObjectName the
  TOPIC object, ObjectString the topic string); the queue manager joins the two and
  answers the full topic string in ResObjectString (the handle's ``topic``). An MQPUT to
  the handle publishes (``Topic.pub``).
* ``subscribe``: MQSUB with the descriptor as MQSD (MQCHARVs ObjectString, SubName,
  SubUserData, SelectionString) and MQSO_FAIL_IF_QUIESCING; SelectionString has room for
  the answer, the selector of a subscription resumed (the contract's
  ``selection_string``, which JMS compares to make it anew with another). A managed subscription's
  queue is the queue manager's (created from the topic's MDURMDL or MNDURMDL model, so
  BOTHRESH and BOQNAME come from there, seed 002): its name is read with MQINQ
  (MQCA_Q_NAME) on the Hobj MQSUB returns, for the backout layer to inquire by name.
  MQSO_CREATE with MQSO_RESUME is MQSUB with MQSO_RESUME first, then MQSO_CREATE on
  2428 (MQRC_NO_SUBSCRIPTION): the MQSD does not say which happened, the contract's
  ``created`` does. What one MQSUB would do still holds: one made by another in between
  (2432) is resumed, one of the other durability refused with 2509.
* ``close_subscription``: MQCLOSE of the hsub (MQCO_REMOVE_SUB when asked: a
  non-durable subscription ends anyway), then of the managed queue's Hobj.

A managed subscription whose descriptor does not ask for ``properties`` is read with
MQGMO_PROPERTIES_COMPAT: a copy whose only properties are MQ's own (mqps.Top, the topic
string) comes without an RFH2, as it does from the embedded queue manager; one with the
publisher's properties still brings them. JMS 2.0 shared subscriptions have no MQSD field
(IBM MQ classes for JMS build them in the client) and answer 2298.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import AbstractContextManager, suppress
from typing import Any

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.semantics import Handle
from mqjms.semantics.pubsub import Subscription, SubscriptionDescriptor

from . import fields
from .library import Library

log = get_logger("mqjms.transport.ibmmq")

#: How a managed queue's Hobj is opened by MQSUB (IBM MQ: for MQGET, browse and MQINQ).
MANAGED_OPEN = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_BROWSE | C.MQOO_INQUIRE | C.MQOO_FAIL_IF_QUIESCING
#: Room for the selector MQSUB answers (IBM MQ's MQ_SELECTOR_LENGTH is 10240 too).
SELECTOR_MAX = 10240
#: MQCHARV strings are given and asked for in UTF-8 (CCSID 1208).
UTF8 = 1208
#: The longest topic string IBM MQ answers in ResObjectString.
TOPIC_STRING_MAX = 10240


class Publishing:
    """The pub/sub half of :class:`~.connection.MQConnection` (see the module docstring)."""

    library: Library
    _qm: Any
    _queues: dict[int, Any]
    _subscriptions: dict[int, Any]  # hsub -> the library's Subscription
    _compat_hobjs: set[int]  # managed queues read with MQGMO_PROPERTIES_COMPAT
    _topic_numbers: Iterator[int]

    def _call(self, what: str) -> AbstractContextManager[None]:
        raise NotImplementedError

    def close(self, handle: Handle) -> None:
        raise NotImplementedError

    def _init_publishing(self) -> None:
        self._subscriptions = {}
        self._compat_hobjs = set()
        self._topic_numbers = itertools.count(-1, -1)  # below every Hobj MQ gives

    # ------------------------------------------------------------------ MQOPEN (topic)
    def open_topic(self, topic_string: str = "", options: int = 0, *, topic: str = "") -> Handle:
        lib = self.library
        options = options or C.MQOO_OUTPUT
        od = lib.structure("OD")
        od.ObjectType = lib.CMQC.MQOT_TOPIC
        od.Version = max(od.Version, lib.CMQC.MQOD_VERSION_4)
        if topic:
            od.ObjectName = fields.object_name(topic)
        if topic_string:
            od.set_vs("ObjectString", topic_string.encode("utf-8"), 0, 0, UTF8)
        _answer_buffer(od, "ResObjectString")
        what = f"MQOPEN of topic {topic_string or topic!r}"
        with self._call(what):
            opened = lib.module.Topic(self._qm, topic_desc=od, open_opts=options)
        full = _vs(od, "ResObjectString") or topic_string
        hobj = next(self._topic_numbers)
        self._queues[hobj] = opened
        return Handle(name=topic or full, resolved_name="", options=options, hobj=hobj, topic=full)

    # ------------------------------------------------------------------ MQSUB
    def subscribe(
        self, descriptor: SubscriptionDescriptor, queue: Handle | None = None
    ) -> Subscription:
        descriptor.check()
        if descriptor.shared:
            raise failed(
                C.MQRC_FUNCTION_NOT_SUPPORTED,
                f"shared subscription {descriptor.sub_name!r}: IBM MQ's MQSUB has no "
                "shared subscriptions (IBM MQ classes for JMS make them in the client)",
            )
        provided = None
        if queue is not None and not descriptor.managed:
            provided = self._queues.get(queue.hobj)
            if provided is None:
                raise failed(C.MQRC_HOBJ_ERROR, f"{queue.name!r} is not open on this connection")
        options = descriptor.options | C.MQSO_FAIL_IF_QUIESCING
        both = C.MQSO_CREATE | C.MQSO_RESUME
        if options & both == both:
            sub, sd, created = self._create_or_resume(descriptor, options, provided)
        else:
            sub, sd = self._mqsub(descriptor, options, provided)
            created = not options & C.MQSO_RESUME
        return self._subscription(descriptor, sub, sd, queue, created)

    def _create_or_resume(
        self, descriptor: SubscriptionDescriptor, options: int, provided: Any
    ) -> tuple[Any, Any, bool]:
        """MQSO_CREATE | MQSO_RESUME as two MQSUBs, yet with one MQSUB's outcome: a
        subscription made by another between the two (2432) is resumed, and one resumed
        with the other durability is refused (2509), as MQSO_CREATE has it checked."""
        resume = options & ~C.MQSO_CREATE
        try:
            sub, sd = self._mqsub(descriptor, resume, provided)
        except MQError as exc:
            if exc.reason != C.MQRC_NO_SUBSCRIPTION:
                raise
            try:
                sub, sd = self._mqsub(descriptor, options & ~C.MQSO_RESUME, provided)
                return sub, sd, True
            except MQError as lost:
                if lost.reason != C.MQRC_SUB_ALREADY_EXISTS:
                    raise
            sub, sd = self._mqsub(descriptor, resume, provided)
        if bool(sd.Options & C.MQSO_DURABLE) != bool(options & C.MQSO_DURABLE):
            self._release(sub, sd, provided)
            kind = "durable" if sd.Options & C.MQSO_DURABLE else "non-durable"
            raise failed(
                C.MQRC_DURABILITY_NOT_ALTERABLE,
                f"subscription {descriptor.sub_name!r} is {kind}",
            )
        return sub, sd, False

    def _release(self, sub: Any, sd: Any, provided: Any, *, remove: bool = False) -> None:
        """MQCLOSE of an hsub this call will not hand over, and of the queue MQSUB opened
        for it (a managed queue, or a resumed subscription's own): never the caller's;
        ``remove``: a subscription this call created goes too."""
        own_queue = provided is None or bool(sd.Options & C.MQSO_MANAGED)
        if not own_queue:
            sub.sub_queue.set_handle(None)
        with self._call("MQCLOSE of a subscription not handed over"):
            sub.close(C.MQCO_REMOVE_SUB if remove else C.MQCO_NONE, close_sub_queue=own_queue)

    def _mqsub(
        self, descriptor: SubscriptionDescriptor, options: int, provided: Any
    ) -> tuple[Any, Any]:
        lib = self.library
        sd = lib.structure("SD")
        sd.Options = options
        if descriptor.object_name:
            sd.ObjectName = fields.object_name(descriptor.object_name)
        for name, text in (
            ("ObjectString", descriptor.object_string),
            ("SubName", descriptor.sub_name),
            ("SubUserData", descriptor.sub_user_data),
        ):
            if text:
                sd.set_vs(name, text.encode("utf-8"), 0, 0, UTF8)
        # in and out: MQSO_RESUME answers the selector the subscription has
        selector = descriptor.selection_string.encode("utf-8")
        sd.set_vs("SelectionString", selector.ljust(SELECTOR_MAX, b"\x00"), 0, SELECTOR_MAX, UTF8)
        sd.SelectionStringVSLength = len(selector)
        if options & C.MQSO_SET_CORREL_ID:
            sd.SubCorrelId = descriptor.sub_correl_id
        sd.PubPriority = descriptor.pub_priority
        _answer_buffer(sd, "ResObjectString")
        sub = lib.module.Subscription(self._qm)
        what = f"MQSUB to {descriptor.object_string or descriptor.object_name!r}"
        with self._call(what):
            sub.sub(sub_desc=sd, sub_queue=provided)
        return sub, sd

    def _subscription(
        self,
        descriptor: SubscriptionDescriptor,
        sub: Any,
        sd: Any,
        queue: Handle | None,
        created: bool,
    ) -> Subscription:
        lib = self.library
        hsub = int(lib.subscription_handle(sub))
        managed = bool(sd.Options & C.MQSO_MANAGED)
        if managed:
            opened = sub.sub_queue
            try:
                with self._call("MQINQ of the managed queue's name"):
                    found = fields.values(lib.inquire(opened, [C.MQCA_Q_NAME]))
            except MQError:  # not handed over: closed, and gone if this call made it
                with suppress(MQError):
                    self._release(sub, sd, None, remove=created)
                raise
            name = str(found.get(C.MQCA_Q_NAME, "")).strip()
            hobj = int(opened.get_handle())
            self._queues[hobj] = opened
            if not descriptor.properties:
                self._compat_hobjs.add(hobj)
            handle = Handle(name=name, resolved_name=name, options=MANAGED_OPEN, hobj=hobj)
        else:
            if queue is None:  # MQ opened the subscription's queue: not asked for, closed
                self._release(sub, sd, None)
                raise failed(C.MQRC_HOBJ_ERROR, "MQSUB resumed a subscription to a queue")
            sub.sub_queue.set_handle(None)  # the caller's handle stays the caller's to close
            handle = queue
        self._subscriptions[hsub] = sub
        correl_id = getattr(sd, "SubCorrelId", C.MQCI_NONE)
        subscription = Subscription(
            name=descriptor.sub_name,
            topic_string=_vs(sd, "ResObjectString") or descriptor.object_string,
            durable=bool(sd.Options & C.MQSO_DURABLE),
            managed=managed,
            shared=False,
            handle=handle,
            hsub=hsub,
            topic_object=descriptor.object_name,
            created=created,
            correl_id=correl_id if isinstance(correl_id, bytes) else C.MQCI_NONE,
            selection_string=_vs(sd, "SelectionString"),
        )
        log.debug(
            "mq.subscribed",
            topic=subscription.topic_string,
            sub_name=subscription.name,
            durable=subscription.durable,
            queue=handle.resolved_name,
            created=created,
        )
        return subscription

    # ------------------------------------------------------------------ MQCLOSE (hsub)
    def close_subscription(self, subscription: Subscription, *, remove: bool = False) -> None:
        sub = self._subscriptions.get(subscription.hsub)
        if sub is None:
            raise failed(C.MQRC_HOBJ_ERROR, f"subscription {subscription.name!r} is not open here")
        options = C.MQCO_REMOVE_SUB if remove else C.MQCO_NONE
        # a failed MQCLOSE leaves the hsub open, as on MQ: still tracked, with its managed
        # queue, for another MQCLOSE or for the disconnect (which forgets them all)
        with self._call(f"MQCLOSE of subscription {subscription.name!r}"):
            sub.close(options)
        del self._subscriptions[subscription.hsub]
        if subscription.managed:
            self._compat_hobjs.discard(subscription.handle.hobj)
            self.close(subscription.handle)

    def _forget_subscriptions(self) -> None:
        """The connection is gone: its subscriptions' objects must not MQCLOSE later."""
        for sub in self._subscriptions.values():
            self.library.forget_subscription(sub)
        self._subscriptions.clear()
        self._compat_hobjs.clear()


def _answer_buffer(block: Any, name: str) -> None:
    """An output MQCHARV (ResObjectString) with room for any topic string."""
    block.set_vs(name, b"\x00" * TOPIC_STRING_MAX, 0, TOPIC_STRING_MAX, UTF8)


def _vs(block: Any, name: str) -> str:
    """An output MQCHARV's answer: VSLength bytes of its buffer."""
    raw = block.get_vs(name) or b""
    length = getattr(block, f"{name}VSLength", None)
    if isinstance(length, int) and length >= 0:
        raw = raw[:length]
    return bytes(raw).decode("utf-8", errors="replace").rstrip("\x00")
