"""Topics and subscriptions in the JMS API, as IBM MQ classes for JMS make them.

A :class:`Topic` is a topic string (``prices/eu``; wildcards ``#`` and ``+`` as whole
levels to subscribe). A consumer on a topic holds a subscription whose messages wait on a
managed queue the queue manager made from the topic's model queue: MNDURMDL for a
non-durable subscription, MDURMDL for a durable one (seed 002: BOTHRESH and BOQNAME are
the managed queue's, inherited from the model, and are inquired and cached there like a
queue's).

JMS 2.0's four kinds map onto MQSUB as follows (SubName ``JMS:<client id>:<name>``, and
``JMSND:<client id>:<name>`` for a shared non-durable one, apart from a durable one):

=============================  =========================  ==================================
JMS                            MQSUB                      when it ends
=============================  =========================  ==================================
``consumer(topic)``            non-durable, unnamed       when the consumer closes
``shared_consumer(t, name)``   non-durable, shared        when the last consumer closes
``durable_consumer(t, name)``  durable (needs client id)  ``unsubscribe(name)``
``shared_durable_consumer``    durable, shared            ``unsubscribe(name)``
=============================  =========================  ==================================

A durable subscription resumed with another topic is replaced (JMS 2.0 section 8.3),
unless another consumer holds it (IllegalStateException).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import parse_qs

from mqjms.mq import constants as C
from mqjms.mq.errors import MQError
from mqjms.semantics import Capability, Connection

# Pub/sub's descriptors, the selector parser and the topic string rules load with the
# first subscription: a worker on queues only never needs them, only Topic.
if TYPE_CHECKING:
    from mqjms.semantics.pubsub import Subscribes, Subscription, SubscriptionDescriptor

from .errors import (
    IllegalStateException,
    InvalidDestinationException,
    InvalidSelectorException,
    JMSException,
)
from .message import TARGET_JMS, TARGET_MQ


@dataclass(frozen=True, slots=True)
class Topic:
    """A JMS topic: a topic string. ``topic://prices/eu?targetClient=1`` parses too."""

    name: str  # the topic string
    target_client: int = TARGET_JMS

    @classmethod
    def parse(cls, destination: str | Topic) -> Topic:
        if isinstance(destination, Topic):
            return destination
        if not isinstance(destination, str):
            raise TypeError(
                "a topic is a topic string (str) or an mqjms.Topic, not "
                f"{type(destination).__name__} {destination!r}"
            )
        if destination.startswith("topic://"):
            # not urlsplit: ``#`` is the multi-level wildcard here, not a fragment
            # (``topic://prices/#`` subscribes to prices/#, not to prices/)
            name, _, query = destination[len("topic://") :].partition("?")
            target = parse_qs(query).get("targetClient", ["0"])[0]
            return cls(name.lstrip("/"), TARGET_MQ if target == "1" else TARGET_JMS)
        return cls(destination)

    @property
    def uri(self) -> str:
        return f"topic://{self.name}"


def subscriber(mq: Connection) -> Subscribes:
    """The connection's pub/sub calls; a clear error on a transport without them."""
    if Capability.PUBLISH_SUBSCRIBE not in mq.capabilities:
        raise JMSException(f"{mq!r} does not offer publish/subscribe")
    return mq  # type: ignore[return-value]


def subscription_name(
    client_id: str | None, name: str, *, durable: bool, shared: bool, listener: bool = False
) -> str:
    """The SubName of a named JMS subscription. JMS: an unshared durable subscription
    needs the connection's client id; a shared one is named by its name (and the client
    id, when the connection has one). A Worker's listener may leave the client id out."""
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"a subscription name must be a non-empty str, not {name!r}")
    if durable and not shared and not client_id and not listener:
        raise IllegalStateException(
            f"durable subscription {name!r} needs a client id: "
            "ConnectionFactory(url, client_id=...) or connection.client_id = ..."
        )
    from mqjms.semantics.pubsub import jms_subscription_name

    return jms_subscription_name(client_id or "", name, durable=durable)


def open_subscription(
    mq: Connection,
    topic: Topic,
    *,
    name: str | None = None,
    client_id: str | None = None,
    durable: bool = False,
    shared: bool = False,
    listener: bool = False,
    no_local: bool = False,
    selector: str | None = None,
) -> Subscription:
    """MQSUB for a JMS consumer or a listener (see the module docstring); MQ failures
    become JMS ones where JMS has one (a subscription in use: IllegalStateException).
    ``no_local``: not sent what the connection (its origin) publishes; ``selector``: a
    JMS message selector, the subscription's SelectionString (InvalidSelectorException
    for bad syntax)."""
    from mqjms.semantics.pubsub import SubscriptionDescriptor
    from mqjms.semantics.selector import compile_selector
    from mqjms.semantics.topics import check_topic_string

    calls = subscriber(mq)
    if no_local and Capability.OWN_PUBLICATIONS not in mq.capabilities:
        raise JMSException(f"{mq!r} does not offer noLocal subscriptions")
    selector = (selector or "").strip()
    if selector:
        if Capability.SUBSCRIPTION_SELECTORS not in mq.capabilities:
            raise JMSException(f"{mq!r} does not offer message selectors on topics")
        try:
            compile_selector(selector)
        except MQError as exc:
            raise InvalidSelectorException(exc.detail) from None
    try:
        check_topic_string(topic.name, wildcards=True)
    except MQError as exc:
        raise InvalidDestinationException(exc.detail) from None
    options = C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_FAIL_IF_QUIESCING
    sub_name = ""
    if name is not None:
        sub_name = subscription_name(
            client_id, name, durable=durable, shared=shared, listener=listener
        )
        options |= C.MQSO_RESUME
    elif durable or shared:
        raise ValueError("a durable or shared subscription needs a name")
    if durable:
        options |= C.MQSO_DURABLE
    descriptor = SubscriptionDescriptor(
        options=options,
        object_string=topic.name,
        sub_name=sub_name,
        shared=shared,
        properties=True,  # its copies name their topic (JMSDestination), as on IBM MQ
        no_local=no_local,
        selection_string=selector,
    )
    subscription = _subscribe(calls, descriptor)
    if subscription.topic_string == topic.name and subscription.selection_string == selector:
        return subscription
    # JMS 2.0: a durable subscription resumed with another topic (or selector) is deleted
    # and made anew
    try:
        calls.close_subscription(subscription, remove=True)
    except MQError as exc:
        # let go of the subscription this call resumed, or it stays held by no consumer
        with contextlib.suppress(MQError):
            calls.close_subscription(subscription)
        raise IllegalStateException(
            f"subscription {name!r} is on {subscription.topic_string!r} (selector "
            f"{subscription.selection_string!r}), not {topic.name!r} (selector {selector!r}), "
            f"and another consumer holds it ({exc.reason_name})"
        ) from None
    return _subscribe(calls, descriptor)


def _subscribe(calls: Subscribes, descriptor: SubscriptionDescriptor) -> Subscription:
    try:
        return calls.subscribe(descriptor)
    except MQError as exc:
        if exc.reason in (C.MQRC_SUBSCRIPTION_IN_USE, C.MQRC_DURABILITY_NOT_ALTERABLE):
            raise IllegalStateException(
                f"subscription {descriptor.sub_name!r}: {exc.detail} ({exc.reason_name})"
            ) from None
        if exc.reason == C.MQRC_TOPIC_STRING_ERROR:
            raise InvalidDestinationException(exc.detail) from None
        raise


def unsubscribe(mq: Connection, name: str, *, client_id: str | None) -> None:
    """Delete the durable subscription ``name`` (shared or not) with the messages
    waiting for it. IllegalStateException while a consumer holds it,
    InvalidDestinationException when there is none."""
    from mqjms.semantics.pubsub import SubscriptionDescriptor, jms_subscription_name

    calls = subscriber(mq)
    sub_name = jms_subscription_name(client_id or "", name)
    # 2429 to the unshared MQSUB: a shared one, or an unshared one held; with no shared
    # subscriptions on this transport (IBM MQ's MQSUB), it is held
    can_share = Capability.SHARED_SUBSCRIPTIONS in mq.capabilities
    for shared in (False, True) if can_share else (False,):
        descriptor = SubscriptionDescriptor(
            options=C.MQSO_RESUME | C.MQSO_DURABLE | C.MQSO_MANAGED,
            sub_name=sub_name,
            shared=shared,
        )
        try:
            subscription = calls.subscribe(descriptor)
        except MQError as exc:
            if exc.reason == C.MQRC_NO_SUBSCRIPTION:
                raise InvalidDestinationException(
                    f"there is no durable subscription {name!r} (SubName {sub_name!r})"
                ) from None
            if exc.reason == C.MQRC_SUBSCRIPTION_IN_USE and not shared and can_share:
                continue  # a shared one, or an unshared one in use: find out which
            if exc.reason == C.MQRC_SUBSCRIPTION_IN_USE:  # the unshared one, held
                raise IllegalStateException(
                    f"durable subscription {name!r} has an active consumer: close it first "
                    f"({exc.reason_name})"
                ) from None
            raise IllegalStateException(
                f"durable subscription {name!r} cannot be deleted: {exc.detail}"
            ) from None
        if not subscription.durable:  # JMS 2.0: unsubscribe names a durable subscription
            with contextlib.suppress(MQError):
                calls.close_subscription(subscription)
            raise InvalidDestinationException(
                f"{name!r} (SubName {sub_name!r}) is a non-durable subscription: it ends "
                "when its last consumer closes, not by unsubscribe"
            )
        try:
            calls.close_subscription(subscription, remove=True)
        except MQError as exc:
            calls.close_subscription(subscription)
            raise IllegalStateException(
                f"durable subscription {name!r} has an active consumer: close it first "
                f"({exc.reason_name})"
            ) from None
        return
