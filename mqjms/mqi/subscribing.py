"""MQSUB and MQCLOSE of a subscription as pymqi and ibmmq programs use them.

Each call maps 1:1 onto the transport contract's publish/subscribe
(:mod:`mqjms.semantics.pubsub`, declared by ``Capability.PUBLISH_SUBSCRIBE``; a transport
without it answers MQRC_FUNCTION_NOT_SUPPORTED 2298). The program's MQSD becomes a
:class:`~mqjms.semantics.pubsub.SubscriptionDescriptor` (Options, ObjectName, and the
MQCHARV strings ObjectString, SubName and SubUserData, SubCorrelId, PubPriority); MQSUB
returns two handle numbers as the MQI does: the queue to MQGET publications from (a
managed queue's, registered here, or the program's own for a provided queue) and the
hsub, and writes the subscription's durability and destination class into the MQSD's
Options (MQ's output for MQSO_RESUME). Gets from a managed queue go through
:mod:`.getting` like any other, so seed 002 screens them there: BackoutCount is counted
on the managed queue, whose BOTHRESH and BOQNAME were inherited from the model queue
(MDURMDL/MNDURMDL) when it was created.

Closing the hsub closes the managed queue's handle with it (the contract's
``close_subscription``), and its number is forgotten: a non-durable subscription's
managed queue is gone then, and a durable one's is reached again by MQSO_RESUME.
"""

from __future__ import annotations

import contextlib
import dataclasses
from typing import Any, cast

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import failed
from mqjms.mqi.constants import CMQC
from mqjms.semantics import Capability, Connection, Handle
from mqjms.semantics.pubsub import (
    KnowsOwnPublications,
    RetainsPublications,
    Subscribes,
    Subscription,
    SubscriptionDescriptor,
)

from . import fields, option_rules
from .hconn import Hconn

log = get_logger("mqjms.mqi")


def publisher(conn: Connection) -> Subscribes:
    """The connection's publish/subscribe calls, or 2298 when its transport has none."""
    if Capability.PUBLISH_SUBSCRIBE not in conn.capabilities:
        raise failed(
            C.MQRC_FUNCTION_NOT_SUPPORTED,
            "this connection's transport does not offer publish/subscribe",
        )
    return cast(Subscribes, conn)


def retainer(conn: Connection, target: object, options: int) -> RetainsPublications | None:
    """The connection's retained publications when an MQPUT with ``options`` publishes
    with MQPMO_RETAIN; None otherwise, and for a transport that keeps none (over STOMP
    the option is accepted and nothing is retained)."""
    if not options & CMQC.MQPMO_RETAIN or not isinstance(target, Handle) or target.topic is None:
        return None
    if Capability.RETAINED_PUBLICATIONS not in conn.capabilities:
        return None
    return cast(RetainsPublications, conn)


def not_to_own(conn: Connection) -> KnowsOwnPublications:
    """The connection, for an MQPUT to a topic with MQPMO_NOT_OWN_SUBS: the publication is
    not sent to the subscriptions it holds open. 2046 from a transport that cannot tell
    (it does not declare Capability.OWN_PUBLICATIONS)."""
    if Capability.OWN_PUBLICATIONS not in conn.capabilities:
        raise failed(
            C.MQRC_OPTIONS_ERROR,
            f"MQPMO_NOT_OWN_SUBS is not supported by this transport ({type(conn).__name__})",
        )
    return cast(KnowsOwnPublications, conn)


def request_publications(hconn: Hconn, hsub: int, action: int) -> int:
    """MQSUBRQ: the retained publications the subscription matches are sent to its queue
    (MQSRO NumPubs returned); MQRC_NO_RETAINED_MSG (2437) when there is none, as from a
    transport that keeps none."""
    if action != CMQC.MQSR_ACTION_PUBLICATION:
        raise failed(
            C.MQRC_OPTIONS_ERROR, f"MQSUBRQ Action {action} is not MQSR_ACTION_PUBLICATION"
        )
    with hconn.call() as conn:
        subscription = hconn.subscriptions.get(hsub)
        if subscription is None:
            raise failed(C.MQRC_HOBJ_ERROR, f"subscription handle {hsub} is not open")
        if Capability.RETAINED_PUBLICATIONS not in conn.capabilities:
            raise failed(
                C.MQRC_NO_RETAINED_MSG, "this connection's transport keeps no retained publications"
            )
        return cast(RetainsPublications, conn).request_publications(subscription)


def vs_text(structure: Any, name: str) -> str:
    """An MQCHARV field (``ObjectString``, ``SubName``...) as str ('' when not set)."""
    getter = getattr(structure, "get_vs", None)
    raw = getter(name) if getter is not None else None
    if raw is None:
        return ""
    return raw.decode("utf-8") if isinstance(raw, bytes) else str(raw)


def refuse_selection_string(structure: Any, call: str, *, selecting: bool = True) -> None:
    """MQRC_SELECTION_NOT_AVAILABLE (2551), IBM MQ's reason when a selection string
    cannot be evaluated, for an MQOD that has one: mqjms does not select messages on
    queues, and a program that asked for some must not be handed all of them. Where no
    selection applies (``selecting`` False: an MQOPEN not for input or browse, MQPUT1)
    it is MQRC_SELECTOR_INVALID_FOR_TYPE (2516), as on MQ."""
    selection = vs_text(structure, "SelectionString").strip(" \x00")
    if selection and not selecting:
        raise failed(
            C.MQRC_SELECTOR_INVALID_FOR_TYPE,
            f"{call} with SelectionString {selection[:80]!r}: a selection string is for "
            "an MQSUB, or an MQOPEN of a queue for input or browse",
        )
    if selection:
        raise failed(
            C.MQRC_SELECTION_NOT_AVAILABLE,
            f"{call} with SelectionString {selection[:80]!r}: mqjms does not select "
            "messages (select in the program, or filter by CorrelId or MsgId)",
        )


def descriptor(sd: Any) -> SubscriptionDescriptor:
    """The contract's descriptor for a program's MQSD."""
    correl_id = getattr(sd, "SubCorrelId", C.MQCI_NONE)
    return SubscriptionDescriptor(
        options=fields.option(sd, "Options"),
        object_name=fields.text(getattr(sd, "ObjectName", b"")),
        object_string=vs_text(sd, "ObjectString"),
        sub_name=vs_text(sd, "SubName"),
        sub_user_data=vs_text(sd, "SubUserData"),
        sub_correl_id=correl_id if isinstance(correl_id, bytes) else C.MQCI_NONE,
        pub_priority=fields.option(sd, "PubPriority", C.MQPRI_PRIORITY_AS_PUBLISHED),
        selection_string=vs_text(sd, "SelectionString").strip(" \x00"),
    )


def subscribe(hconn: Hconn, sd: Any, queue_number: int = CMQC.MQHO_NONE) -> tuple[int, int]:
    """MQSUB: (the number of the queue handle to get publications from, the hsub).

    ``queue_number`` is MQSUB's Hobj: MQHO_NONE with MQSO_MANAGED (or to resume a
    subscription as it was made), else a queue the program opened for its publications
    (2019 when the subscription needs one and it gives none). A SelectionString is the
    subscription's selector (the embedded queue manager; 2551 from a transport without)."""
    wanted = descriptor(sd)
    with hconn.call() as conn:
        calls = publisher(conn)
        if Capability.BROWSE_AT_ONCE in conn.capabilities:
            # IBM MQ gives every copy of a publication its topic string, MQTopicString
            # (RFH2 mqps.Top): a get with a message handle reads it; a plain get under
            # PROPCTL(COMPAT) leaves an RFH2 of mqps alone out of the data, and measures
            # the message without it (get_attempts browses it whole for that; STOMP cannot)
            wanted = dataclasses.replace(wanted, properties=True)
        queue = None
        if not wanted.managed and queue_number != CMQC.MQHO_NONE:
            queue = hconn.object(queue_number).queue
        subscription = calls.subscribe(wanted, queue)  # 2019 when it needs a queue
        if subscription.managed:
            managed = subscription.handle
            number = hconn.add_object(managed.resolved_name, managed.options, managed).number
        else:
            number = queue_number
        hsub = hconn.add_subscription(subscription)
        _write_back(sd, subscription)
    log.debug(
        "mqi.subscribed",
        topic=subscription.topic_string,
        sub_name=subscription.name,
        durable=subscription.durable,
        queue=subscription.handle.resolved_name,
        hconn=hconn.number,
    )
    return number, hsub


def _write_back(sd: Any, subscription: Subscription) -> None:
    """MQSUB's output in the MQSD: the Options of the subscription made or resumed (a
    program that resumed with MQSO_RESUME alone learns whether it is durable, managed),
    and the SubCorrelId its publications carry (the one MQ made, unless the program set
    its own), which a program matches its gets on when subscriptions share a queue."""
    if hasattr(sd, "SubCorrelId"):
        with contextlib.suppress(AttributeError, TypeError):
            sd.SubCorrelId = subscription.correl_id
    options = fields.option(sd, "Options") & ~(CMQC.MQSO_DURABLE | CMQC.MQSO_MANAGED)
    if subscription.durable:
        options |= CMQC.MQSO_DURABLE
    if subscription.managed:
        options |= CMQC.MQSO_MANAGED
    with contextlib.suppress(AttributeError, KeyError, TypeError):
        sd["Options"] = options


def close_subscription(
    hconn: Hconn, hsub: int, queue_number: int, options: int = CMQC.MQCO_NONE
) -> None:
    """MQCLOSE of the hsub: MQCO_REMOVE_SUB ends a durable subscription too (a
    non-durable one always ends); a managed queue's handle ``queue_number`` is closed
    with it."""
    with hconn.call() as conn:
        subscription = hconn.subscriptions.get(hsub)
        if subscription is None:
            raise failed(C.MQRC_HOBJ_ERROR, f"subscription handle {hsub} is not open")
        option_rules.check_close(options)
        publisher(conn).close_subscription(
            subscription, remove=bool(options & CMQC.MQCO_REMOVE_SUB)
        )
        del hconn.subscriptions[hsub]
        if subscription.managed:
            hconn.objects.pop(queue_number, None)
