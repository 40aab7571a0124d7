"""Publish/subscribe over STOMP (:class:`~mqjms.semantics.pubsub.Subscribes`), as IBM MQ
has it: a subscription's messages wait on a managed queue made from its topic's model
queue, where BackoutCount is counted and BOTHRESH/BOQNAME inquired (seed 002).

* A topic string maps to ``/topic/<prefix><levels joined by '.'>``; the wildcards ``#``
  and ``+`` become ActiveMQ's ``>`` and ``*``. A level may not hold ``.``, ``*`` or
  ``>``, nor be empty, and ``#`` must be the last level (MQRC_TOPIC_STRING_ERROR).
* Publishing is a SEND to the topic, in the unit of work's transaction under syncpoint.
* MQSUB makes a *feed* (:mod:`.feed`): the native topic subscription (durable ones:
  ``client-id`` + ``activemq.subscriptionName``), whose messages a thread moves into the
  managed queue ``SYSTEM.MANAGED.DURABLE.*`` / ``SYSTEM.MANAGED.NDURABLE.*``. The
  subscription's handle is that queue, so gets, backouts (BackoutCount in the copies),
  poison moves and CURDEPTH are the queue's. Its BOTHRESH, BOQNAME and other attributes
  are the model queue's (configured QMODEL, or the default models with the URL's
  ``mdurmdl.*``/``mndurmdl.*``), as the managed queue inherits them on MQ.
* Durable subscriptions are recorded on SYSTEM.DURABLE.SUBSCRIBER.QUEUE (:mod:`.records`).

docs/stomp.md says where this differs from IBM MQ.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.mq.md import MQMD
from mqjms.semantics import Handle
from mqjms.semantics import topics as rules
from mqjms.semantics.attributes import LOCAL, QUEUE_ATTR_BY_NAME
from mqjms.semantics.emulated import PutRequest
from mqjms.semantics.pubsub import Subscription, SubscriptionDescriptor, topic_handle_name
from mqjms.semantics.put import (
    MAX_PRIORITY,
    MsgIdGenerator,
    check_md_for_put,
    random_node,
    resolve_defaults,
    set_context,
)

from . import mapping, records
from .client import BrokerError, ConnectionLost, StompClient
from .config import QueueDefinition
from .feed import ClientIdInUse, Feed, connect_feed
from .state import OpenQueue, StompState, locked
from .topic_objects import ModelQueue

log = get_logger("mqjms.transport.stomp")

TOPIC_PREFIX = "/topic/"
MANAGED_OPEN = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_BROWSE | C.MQOO_INQUIRE | C.MQOO_FAIL_IF_QUIESCING
_msg_ids = MsgIdGenerator(random_node)
#: Managed queue -> the model it was made from, for MQINQ in this process.
_models: dict[str, str] = {}


def topic_destination(topic_string: str, prefix: str = "") -> str:
    """The ActiveMQ destination of an MQ topic string (see the module docstring)."""
    parts = rules.levels(topic_string)
    mapped = []
    for i, level in enumerate(parts):
        if level == rules.MULTI_LEVEL:
            if i != len(parts) - 1:
                raise failed(
                    C.MQRC_TOPIC_STRING_ERROR,
                    f"topic string {topic_string!r}: on ActiveMQ '#' must be the last level",
                )
            mapped.append(">")
        elif level == rules.SINGLE_LEVEL:
            mapped.append("*")
        elif not level or any(ch in level for ch in ".*>"):
            raise failed(
                C.MQRC_TOPIC_STRING_ERROR,
                f"topic string {topic_string!r}: on ActiveMQ a level may not be empty or "
                "hold '.', '*' or '>'",
            )
        else:
            mapped.append(level)
    if not mapped:
        raise failed(C.MQRC_TOPIC_STRING_ERROR, "an empty topic string names no broker topic")
    return TOPIC_PREFIX + prefix + ".".join(mapped)


def topic_string_of(destination: str, prefix: str = "") -> str:
    """The MQ topic string of an ActiveMQ topic destination (:func:`topic_destination`
    reversed; "" for a destination that is no topic of this prefix)."""
    start = TOPIC_PREFIX + prefix
    if not destination.startswith(start):
        return ""
    return destination[len(start) :].replace(".", "/")


def _digest(*parts: str, length: int) -> str:
    return hashlib.blake2b("\x00".join(parts).encode(), digest_size=16).hexdigest()[:length].upper()


def managed_definition(name: str, model: ModelQueue | None) -> QueueDefinition:
    """A managed queue as MQINQ sees it: a local queue with its model's attributes."""
    attrs = {} if model is None else dict(model.attrs)
    local = {k: v for k, v in attrs.items() if k in QUEUE_ATTR_BY_NAME and k != "DEFTYPE"}
    return QueueDefinition(name, LOCAL, local)


@dataclass(slots=True)
class _Held:
    """An open subscription of this connection."""

    subscription: Subscription
    feed: Feed


class PublishSubscribe(StompState):
    """MQOPEN of topics, publishing, MQSUB and MQCLOSE of subscriptions on STOMP."""

    _subscribed: dict[int, _Held]
    _hsubs: itertools.count[int]
    _hobjs: itertools.count[int]
    # the connection's own calls (UnitOfWork, StompConnection)
    _begin: Callable[[], str]
    _state: Callable[[Handle], OpenQueue]
    close: Callable[[Handle], None]

    def _init_pubsub(self) -> None:
        self._subscribed = {}
        self._hsubs = itertools.count(1)

    # ------------------------------------------------------------------ names
    def _topic_string(self, topic_object: str, topic_string: str) -> str:
        if not topic_object:
            return topic_string
        found = self.config.topic(rules.validate_topic_name(topic_object))
        if found is None:
            raise failed(
                C.MQRC_UNKNOWN_OBJECT_NAME, f"topic object {topic_object!r} is not defined"
            )
        return rules.join(str(found.attrs.get("TOPICSTR", "")), topic_string)

    def _provided(self, queue: Handle | None) -> str:
        """A provided destination: the local queue the caller's handle resolved to."""
        assert queue is not None
        return self._state(queue).handle.resolved_name

    def _resolved(self, topic_string: str) -> dict[str, int | str | bool]:
        return rules.resolved(topic_string, self.config.topic_at)

    def _managed_definition(self, name: str) -> QueueDefinition | None:
        """The definition of a managed queue (None for any other name)."""
        if not name.startswith((rules.MANAGED_DURABLE_PREFIX, rules.MANAGED_NON_DURABLE_PREFIX)):
            return None
        durable = name.startswith(rules.MANAGED_DURABLE_PREFIX)
        model_name = _models.get(name) or (
            rules.DURABLE_MODEL if durable else rules.NON_DURABLE_MODEL
        )
        model = self.config.model(model_name, self.params.model_overrides)
        return managed_definition(name, model)

    # ------------------------------------------------------------------ MQOPEN (topic)
    @locked
    def open_topic(self, topic_string: str = "", options: int = 0, *, topic: str = "") -> Handle:
        """MQOPEN of a topic for publishing (see :class:`~mqjms.semantics.pubsub.Subscribes`)."""
        self._check_open()
        options = options or C.MQOO_OUTPUT
        if not options & C.MQOO_OUTPUT or options & (C.MQOO_INPUT_MASK | C.MQOO_BROWSE):
            raise failed(
                C.MQRC_OPTION_NOT_VALID_FOR_TYPE,
                f"open options {options:#x} are not valid for a topic: it is opened with "
                "MQOO_OUTPUT to publish (subscribe to receive)",
            )
        full = self._topic_string(topic, topic_string)
        rules.check_topic_string(full, wildcards=False)
        destination = topic_destination(full, self.prefix)
        handle = Handle(
            name=topic or topic_handle_name(full),
            resolved_name="",
            options=options,
            hobj=next(self._hobjs),
            topic=full,
        )
        self._handles[handle.hobj] = OpenQueue(handle, destination)
        return handle

    # ------------------------------------------------------------------ MQPUT (publish)
    @locked
    def _publish(self, topic: Handle, md: MQMD, data: bytes, request: PutRequest) -> MQMD:
        state = self._state(topic)
        attrs = self._resolved(str(topic.topic))
        if attrs["PUB"] == "DISABLED":
            raise failed(C.MQRC_PUT_INHIBITED, f"topic {topic.topic!r} is PUB(DISABLED)")
        check_md_for_put(md)
        now = time.time()
        out = md.copy()
        set_context(out, request.context, self.identity, now)
        if out.Persistence == C.MQPER_PERSISTENCE_AS_TOPIC_DEF:
            out.Persistence = rules.default_persistence(attrs)
        if out.Priority == C.MQPRI_PRIORITY_AS_Q_DEF:
            out.Priority = rules.default_priority(attrs)
        resolve_defaults(
            out,
            QueueDefinition(state.destination, LOCAL, {}),
            qmgr_name=self.qmgr_name,
            qmgr_ccsid=int(self._qmgr_attrs().get("CCSID", 1208)),
            new_msg_id=request.new_msg_id,
            msg_ids=_msg_ids,
        )
        out.Priority = min(out.Priority, MAX_PRIORITY)
        headers, body = mapping.to_frame(out, data, prefix=self.prefix, now=now)
        client = self._live()
        try:
            if request.syncpoint:
                client.send(state.destination, headers, body, transaction=self._begin())
                self._puts += 1
            else:
                client.send(state.destination, headers, body, receipt=True)
        except ConnectionLost:
            self._recover()
            raise failed(
                C.MQRC_BACKED_OUT if request.syncpoint else C.MQRC_CONNECTION_BROKEN,
                "the connection was lost during the publish",
            ) from None
        except BrokerError as exc:
            raise failed(
                C.MQRC_UNEXPECTED_ERROR, f"the broker refused the publish: {exc}"
            ) from None
        if not request.new_msg_id and md.MsgId == C.MQMI_NONE:
            out.MsgId = C.MQMI_NONE  # each copy has its own; MQ leaves the MQMD's none
        return out

    # ------------------------------------------------------------------ MQSUB
    def subscribe(
        self, descriptor: SubscriptionDescriptor, queue: Handle | None = None
    ) -> Subscription:
        """MQSUB (see :class:`~mqjms.semantics.pubsub.Subscribes` and the module docstring)."""
        self._check_open()
        descriptor.check()
        if descriptor.options & C.MQSO_WILDCARD_CHAR:
            raise failed(
                C.MQRC_OPTIONS_ERROR,
                "MQSO_WILDCARD_CHAR (character-based wildcards) is not supported over STOMP: "
                "use topic-based wildcards (# and + levels)",
            )
        if descriptor.no_local:
            raise failed(C.MQRC_OPTIONS_ERROR, "noLocal subscriptions are not supported over STOMP")
        if descriptor.selection_string.strip():
            raise failed(
                C.MQRC_SELECTION_NOT_AVAILABLE,
                "a subscription's selector is not supported over STOMP",
            )
        sd = descriptor
        with self._lock:
            full = self._topic_string(sd.object_name, sd.object_string)
            rules.check_topic_string(full, wildcards=True)
            if not sd.managed:
                if queue is None:
                    raise failed(
                        C.MQRC_HOBJ_ERROR,
                        "a subscription without MQSO_MANAGED needs the queue handle to deliver to",
                    )
                self._state(queue)
        name = sd.sub_name.strip() or uuid.uuid4().hex.upper()
        if sd.durable:
            return self._durable(sd, name, full, queue)
        return self._non_durable(sd, name, full, queue)

    def _check_topic(self, full: str, durable: bool) -> None:
        attrs = self._resolved(full)
        if attrs["SUB"] == "DISABLED":
            raise failed(C.MQRC_SUB_INHIBITED, f"topic {full!r} is SUB(DISABLED)")
        if durable and attrs["DURSUB"] == "NO":
            raise failed(
                C.MQRC_DURABILITY_NOT_ALLOWED, f"topic {full!r} allows no durable subscriptions"
            )

    def _model(self, full: str, durable: bool) -> str:
        name = rules.model_queue(full, self.config.topic_at, durable=durable)
        if self.config.model(name, self.params.model_overrides) is None:
            kind = "MDURMDL" if durable else "MNDURMDL"
            raise failed(
                C.MQRC_UNKNOWN_OBJECT_NAME,
                f"the model queue {name!r} ({kind} of topic {full!r}) is not defined",
            )
        return name

    def _durable(
        self, sd: SubscriptionDescriptor, name: str, full: str, queue: Handle | None
    ) -> Subscription:
        client_id = "mqjms." + _digest(self.prefix, "D", name, length=32)
        feed_client = None
        try:
            feed_client = connect_feed(self.params, client_id)
        except ClientIdInUse:
            if not sd.shared:
                raise failed(
                    C.MQRC_SUBSCRIPTION_IN_USE,
                    f"subscription {name!r} is in use by another subscriber (it is not shared)",
                ) from None
        try:
            with self._lock:
                with _broker("reading the subscription's record"):
                    found = records.find(self._live(), self.prefix, name)
                if found is not None:
                    if not sd.options & (C.MQSO_RESUME | C.MQSO_ALTER):
                        raise failed(C.MQRC_SUB_ALREADY_EXISTS, f"subscription {name!r} exists")
                    if found.shared != sd.shared:
                        raise failed(
                            C.MQRC_SUBSCRIPTION_IN_USE,
                            f"subscription {name!r} exists as an "
                            f"{'shared' if found.shared else 'unshared'} subscription",
                        )
                    record, created = found, False
                else:
                    if not sd.options & C.MQSO_CREATE:
                        raise failed(
                            C.MQRC_NO_SUBSCRIPTION, f"subscription {name!r} does not exist"
                        )
                    self._check_topic(full, durable=True)
                    model = self._model(full, durable=True)
                    dest = (
                        rules.MANAGED_DURABLE_PREFIX + _digest(self.prefix, name, length=25)
                        if sd.managed
                        else self._provided(queue)
                    )
                    record = records.Record(name, full, dest, sd.shared, sd.managed, model)
                    with _broker("recording the subscription"):
                        records.write(self._live(), self.prefix, record)
                    created = True
        except BaseException:
            if feed_client is not None:
                feed_client.disconnect()
            raise
        _models[record.queue] = record.model
        return self._attach(
            sd, name, record.topic_string, record.queue, client_id, feed_client, queue, created
        )

    def _non_durable(
        self, sd: SubscriptionDescriptor, name: str, full: str, queue: Handle | None
    ) -> Subscription:
        self._check_topic(full, durable=False)
        model = self._model(full, durable=False)
        client_id = None
        if sd.shared:
            client_id = "mqjms." + _digest(self.prefix, "N", name, length=32)
            managed = rules.MANAGED_NON_DURABLE_PREFIX + _digest(self.prefix, name, length=24)
        else:
            managed = rules.MANAGED_NON_DURABLE_PREFIX + uuid.uuid4().hex.upper()[:24]
        feed_client = None
        with contextlib.suppress(ClientIdInUse):  # shared: another consumer feeds it
            feed_client = connect_feed(self.params, client_id)
        dest = managed if sd.managed else self._provided(queue)
        _models[dest] = model
        return self._attach(sd, name, full, dest, client_id, feed_client, queue, True)

    def _attach(
        self,
        sd: SubscriptionDescriptor,
        name: str,
        full: str,
        dest: str,
        client_id: str | None,
        feed_client: StompClient | None,
        queue: Handle | None,
        created: bool,
    ) -> Subscription:
        presence = None
        if sd.shared:
            presence = mapping.queue_destination(_presence_queue(self.prefix, name), self.prefix)
        feed = Feed(
            self.params,
            topic=topic_destination(full, self.prefix),
            queue=mapping.queue_destination(dest, self.prefix),
            prefix=self.prefix,
            client_id=client_id,
            durable_name=_native_name(name, sd) if sd.durable or sd.shared else None,
            new_msg_id=lambda: _msg_ids(self.qmgr_name),
            client=feed_client,
            presence=presence,
            topic_string=partial(topic_string_of, prefix=self.prefix) if sd.properties else None,
        )
        try:
            feed.start(backlog=not created)
            handle = self.open(dest, MANAGED_OPEN) if sd.managed else queue
        except BaseException:
            feed.stop()
            raise
        assert handle is not None
        subscription = Subscription(
            name=name,
            topic_string=full,
            durable=sd.durable,
            managed=sd.managed,
            shared=sd.shared,
            handle=handle,
            hsub=next(self._hsubs),
            topic_object=sd.object_name,
            created=created,
        )
        with self._lock:
            self._subscribed[subscription.hsub] = _Held(subscription, feed)
        log.info(
            "subscription.opened",
            subscription=name,
            topicstr=full,
            durable=sd.durable,
            shared=sd.shared,
            queue=dest,
            feeding=feed.connected,
        )
        return subscription

    # ------------------------------------------------------------------ MQCLOSE (hsub)
    def close_subscription(self, subscription: Subscription, *, remove: bool = False) -> None:
        """MQCLOSE of the hsub (see :class:`~mqjms.semantics.pubsub.Subscribes`)."""
        self._check_open()
        with self._lock:
            held = self._subscribed.get(subscription.hsub)
            if held is None or held.subscription is not subscription:
                raise failed(
                    C.MQRC_HOBJ_ERROR, f"subscription {subscription.name!r} is not open here"
                )
            if remove and subscription.durable and not held.feed.take_over():
                raise failed(
                    C.MQRC_SUBSCRIPTION_IN_USE,
                    f"subscription {subscription.name!r} is held by another subscriber",
                )
            del self._subscribed[subscription.hsub]
        self._end(held, remove=remove)

    def _end(self, held: _Held, *, remove: bool) -> None:
        sub = held.subscription
        removing = remove and sub.durable
        if sub.shared and not sub.durable:
            held.feed.leave()
            removing = self._last(sub) and held.feed.take_over()  # the last one ends it
        held.feed.stop(remove=removing)
        if sub.managed and sub.handle.hobj in self._handles:
            with contextlib.suppress(MQError):
                self.close(sub.handle)
        if removing:
            with self._lock, _broker("removing the subscription's record"):
                records.remove(self._live(), self.prefix, sub.name)
        if sub.managed and (removing or not (sub.durable or sub.shared)):
            self._purge(sub.handle.resolved_name)  # the managed queue goes with it, on MQ
        log.info("subscription.closed", subscription=sub.name, removed=removing)

    def _last(self, sub: Subscription) -> bool:
        """Whether no other consumer holds the shared subscription ``sub`` now."""
        try:
            stats = self._statistics_once(_presence_queue(self.prefix, sub.name))
        except (MQError, ConnectionLost):
            return False  # unknown: leave it for the next consumer
        return int(stats.get("consumerCount", 0)) == 0

    def _purge(self, queue: str) -> int:
        """Delete what waits on a managed queue that has ended."""
        handle = self.open(queue, C.MQOO_INPUT_SHARED)
        dropped = 0
        try:
            while self.get(handle, wait=0.2) is not None:
                dropped += 1
        finally:
            self.close(handle)
        return dropped

    def _end_subscriptions(self) -> None:
        """MQDISC: every subscription of this connection is closed."""
        with self._lock:
            held, self._subscribed = list(self._subscribed.values()), {}
        for one in held:
            with contextlib.suppress(MQError, ConnectionLost, BrokerError):
                self._end(one, remove=False)


@contextlib.contextmanager
def _broker(doing: str) -> Iterator[None]:
    """A broker failure while ``doing``: MQRC_CONNECTION_BROKEN or the broker's refusal."""
    try:
        yield
    except ConnectionLost as exc:
        raise failed(C.MQRC_CONNECTION_BROKEN, f"connection lost {doing}: {exc}") from None
    except BrokerError as exc:
        raise failed(C.MQRC_UNEXPECTED_ERROR, f"the broker refused {doing}: {exc}") from None


def _presence_queue(prefix: str, name: str) -> str:
    """Where the consumers of a shared subscription are present (see :mod:`.feed`)."""
    return "SYSTEM.MANAGED.PRESENCE." + _digest(prefix, name, length=24)


def _native_name(name: str, sd: SubscriptionDescriptor) -> str:
    """The broker's durable subscription name (``activemq.subscriptionName``)."""
    return name if sd.durable else f"shared-non-durable:{name}"
