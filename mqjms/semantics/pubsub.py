"""Publish/subscribe in the transport contract: MQOPEN of a topic, MQSUB and MQCLOSE of a
subscription, shaped so that a transport over IBM MQ maps each call 1:1 onto the MQI.

* :meth:`Subscribes.open_topic` is MQOPEN with an MQOD of ObjectType MQOT_TOPIC
  (ObjectName: a TOPIC object, ObjectString: a topic string, the two joined as MQ joins
  them). MQPUT to the handle publishes: one copy to every matching subscription, in the
  publisher's unit of work when under syncpoint.
* :meth:`Subscribes.subscribe` is MQSUB: :class:`SubscriptionDescriptor` is MQSD with its
  MQCHARV strings resolved (Options MQSO_*, ObjectName, ObjectString, SubName, ...), and
  ``queue`` is MQSUB's Hobj: None for MQSO_MANAGED (the queue manager creates a managed
  queue from the topic's MDURMDL or MNDURMDL model queue, seed 002), or a handle the
  caller opened for a provided destination. It returns a :class:`Subscription` (the hsub)
  whose ``handle`` is the Hobj to MQGET publications from.
* :meth:`Subscribes.close_subscription` is MQCLOSE of the hsub (MQCO_REMOVE_SUB or
  MQCO_KEEP_SUB) together with the managed queue's Hobj.

``shared`` is the one addition to MQSD: JMS 2.0's shared subscriptions (several consumers
at once take turns at one subscription's queue; IBM MQ classes for JMS build them on the
queue manager's shared subscriptions). A connection that does all this declares
:attr:`~.capabilities.Capability.PUBLISH_SUBSCRIBE`.

Seed 002 needs nothing else: a subscription's ``handle.resolved_name`` is its managed
queue, so the backout layer inquires BOTHRESH and BOQNAME there (inherited from the model
queue when the managed queue was created) and caches them as for any queue.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from mqjms.mq import constants as C
from mqjms.mq.errors import failed
from mqjms.mq.md import MQMD

from .contract import Context, Handle

#: The MQSO_* options the contract acts on; others are accepted and ignored, as a queue
#: manager ignores options that do not apply to it (MQSO_FAIL_IF_QUIESCING...).
SUPPORTED_OPTIONS = (
    C.MQSO_ALTER
    | C.MQSO_CREATE
    | C.MQSO_RESUME
    | C.MQSO_DURABLE
    | C.MQSO_MANAGED
    | C.MQSO_FAIL_IF_QUIESCING
    | C.MQSO_WILDCARD_TOPIC
    | C.MQSO_ANY_USERID
    | C.MQSO_FIXED_USERID
    | C.MQSO_NEW_PUBLICATIONS_ONLY
    | C.MQSO_SCOPE_QMGR
    | C.MQSO_NO_READ_AHEAD
    | C.MQSO_READ_AHEAD
    | C.MQSO_SET_CORREL_ID
    | C.MQSO_SET_IDENTITY_CONTEXT
)


@dataclass(frozen=True, slots=True)
class SubscriptionDescriptor:
    """MQSD, the fields MQSUB reads, with its MQCHARV strings as str.

    ``options``: MQSO_CREATE and/or MQSO_RESUME (or MQSO_ALTER), MQSO_DURABLE (else
    non-durable), MQSO_MANAGED (else publications go to the queue passed to subscribe).
    ``object_name`` and ``object_string`` name the topic as in MQOD; ``sub_name``
    identifies the subscription (required for a durable or shared one).
    """

    options: int = C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_NON_DURABLE
    object_name: str = ""  # MQSD.ObjectName: a TOPIC object
    object_string: str = ""  # MQSD.ObjectString: a topic string, wildcards allowed
    sub_name: str = ""  # MQSD.SubName
    sub_user_data: str = ""  # MQSD.SubUserData
    sub_correl_id: bytes = C.MQCI_NONE  # MQSD.SubCorrelId (MQSO_SET_CORREL_ID)
    pub_priority: int = C.MQPRI_PRIORITY_AS_PUBLISHED  # MQSD.PubPriority
    shared: bool = False  # JMS 2.0 shared subscription (see the module docstring)
    # the subscriber reads message properties from an RFH2, as IBM MQ classes for JMS do:
    # a copy of a publication that has none gets one, with the topic string (mqps.Top)
    properties: bool = False
    # JMS noLocal: not sent the publications of its own connection (or of the connections
    # sharing its origin, see KnowsOwnPublications); for a transport declaring
    # Capability.OWN_PUBLICATIONS only
    no_local: bool = False
    # MQSD.SelectionString: a JMS message selector (:mod:`.selector`) on the publication's
    # properties and header fields; only what it selects reaches the subscription
    selection_string: str = ""

    @property
    def durable(self) -> bool:
        return bool(self.options & C.MQSO_DURABLE)

    @property
    def managed(self) -> bool:
        return bool(self.options & C.MQSO_MANAGED)

    def check(self) -> None:
        """MQSUB's checks of the descriptor itself: 2046 for options that contradict or
        ask for nothing, 2440 for a durable or shared subscription without a name."""
        opts = self.options
        if not opts & (C.MQSO_CREATE | C.MQSO_RESUME | C.MQSO_ALTER):
            raise failed(
                C.MQRC_OPTIONS_ERROR,
                f"subscription options {opts:#x} ask for nothing: give MQSO_CREATE, "
                "MQSO_RESUME or MQSO_ALTER",
            )
        if opts & C.MQSO_WILDCARD_CHAR and opts & C.MQSO_WILDCARD_TOPIC:
            raise failed(
                C.MQRC_OPTIONS_ERROR,
                "MQSO_WILDCARD_CHAR and MQSO_WILDCARD_TOPIC are exclusive",
            )
        if opts & C.MQSO_PUBLICATIONS_ON_REQUEST or opts & C.MQSO_GROUP_SUB:
            raise failed(
                C.MQRC_OPTIONS_ERROR,
                "MQSO_PUBLICATIONS_ON_REQUEST and MQSO_GROUP_SUB are not supported",
            )
        if (self.durable or self.shared) and not self.sub_name.strip():
            kind = "a durable" if self.durable else "a shared"
            raise failed(C.MQRC_SUB_NAME_ERROR, f"{kind} subscription needs a SubName")
        if not self.object_name and not self.object_string and opts & C.MQSO_CREATE:
            raise failed(
                C.MQRC_UNKNOWN_OBJECT_NAME,
                "the subscription names no topic: give ObjectName (a TOPIC object) "
                "and/or ObjectString (a topic string)",
            )


@dataclass(frozen=True, slots=True)
class Subscription:
    """An MQSUB's result: the subscription handle (hsub) and where publications arrive.

    ``handle`` is the managed queue (``resolved_name``: SYSTEM.MANAGED.DURABLE.* or
    SYSTEM.MANAGED.NDURABLE.*) open for input, or the caller's provided queue handle.
    ``topic_string`` is the full topic string subscribed to, wildcards included.
    """

    name: str
    topic_string: str
    durable: bool
    managed: bool
    shared: bool
    handle: Handle
    hsub: int
    topic_object: str = ""
    created: bool = field(default=True, compare=False)  # False: an existing one resumed
    #: The CorrelId its publications carry (MQSD SubCorrelId on return); MQCI_NONE when
    #: they keep the publisher's, or when the transport sets none.
    correl_id: bytes = C.MQCI_NONE
    #: The selector it was made with (MQSD SelectionString), '' for none.
    selection_string: str = ""


class Subscribes(Protocol):
    """The calls a connection declaring
    :attr:`~.capabilities.Capability.PUBLISH_SUBSCRIBE` has (see the module docstring)."""

    def open_topic(self, topic_string: str = "", options: int = 0, *, topic: str = "") -> Handle:
        """MQOPEN of a topic (MQOT_TOPIC): ``topic`` a TOPIC object, ``topic_string``
        appended to its TOPICSTR. Only MQOO_OUTPUT (publishing) is supported here."""
        ...

    def subscribe(
        self, descriptor: SubscriptionDescriptor, queue: Handle | None = None
    ) -> Subscription:
        """MQSUB: create, resume or alter a subscription (see the module docstring)."""
        ...

    def close_subscription(self, subscription: Subscription, *, remove: bool = False) -> None:
        """MQCLOSE of the hsub and of a managed subscription's queue handle. A
        non-durable subscription ends (its managed queue is deleted with its messages, a
        shared one's when the last consumer closes); ``remove`` (MQCO_REMOVE_SUB) ends a
        durable one too."""
        ...


class RetainsPublications(Protocol):
    """The calls a connection declaring
    :attr:`~.capabilities.Capability.RETAINED_PUBLICATIONS` has: IBM MQ's retained
    publications. Such a connection's :meth:`Subscribes.subscribe` also sends a new
    subscription the retained publications it matches, unless the descriptor has
    MQSO_NEW_PUBLICATIONS_ONLY (a resumed one is sent none, as on MQ)."""

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
        """MQPUT to a topic handle with MQPMO_RETAIN: published as ``put`` publishes,
        and kept as the topic string's retained publication (replacing the one before,
        at commit when under syncpoint). MQRC_PUT_NOT_RETAINED (2479) when it cannot
        be kept: then nothing is published."""
        ...

    def request_publications(self, subscription: Subscription) -> int:
        """MQSUBRQ with MQSR_ACTION_PUBLICATION: the retained publications the
        subscription matches are sent to its queue again, marked MQIsRetained; how many
        (MQSRO NumPubs). MQRC_NO_RETAINED_MSG (2437) when there is none."""
        ...


class KnowsOwnPublications(Protocol):
    """The calls a connection declaring :attr:`~.capabilities.Capability.OWN_PUBLICATIONS`
    has: it knows which subscriptions are its own (held open by it) and which
    publications are (put by it), so that MQPMO_NOT_OWN_SUBS and JMS noLocal can leave
    them out. Its :meth:`Subscribes.subscribe` honours ``SubscriptionDescriptor.no_local``."""

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
        """MQPUT to a topic handle with MQPMO_NOT_OWN_SUBS: published as ``put`` publishes,
        except to the subscriptions this connection (or its origin) holds open."""
        ...

    def share_origin(self, origin: str) -> None:
        """From now on this connection's publications and subscriptions are ``origin``'s,
        as are those of every connection given the same one (a JMS connection's sessions,
        each on a connection of its own: noLocal means the JMS connection)."""
        ...


def topic_handle_name(topic_string: str) -> str:
    """How a topic handle names itself in messages and logs."""
    return f"topic://{topic_string}"


def jms_subscription_name(client_id: str, name: str, *, durable: bool = True) -> str:
    """The SubName a JMS durable or shared subscription has on the queue manager:
    ``JMS:<client id>:<name>`` for a durable one, as IBM MQ classes for JMS form it (the
    client id may be blank for a shared one), ``JMSND:<client id>:<name>`` for a shared
    non-durable one: JMS 2.0 keeps the two apart ("there is no restriction on durable
    subscriptions and shared non-durable subscriptions having the same name and clientId.
    Such subscriptions would be completely separate")."""
    return f"{'JMS' if durable else 'JMSND'}:{client_id}:{name}"
