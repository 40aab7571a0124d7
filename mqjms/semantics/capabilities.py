"""What a transport offers beyond the contract's core, declared rather than probed.

Every connection has ``capabilities``, a frozenset of :class:`Capability`. Callers ask it
(``Capability.COMMIT_AND_GET in conn.capabilities``) instead of looking for methods with
``getattr``, so a wrapper that delegates (:class:`~.wrapper.ConnectionWrapper`) keeps the
fast paths of the connection it wraps, and the conformance suite skips what a transport
says it lacks (``@pytest.mark.requires("fifo")`` reads the same values).

Two kinds: optional *calls* (a method or attribute the connection then has, typed by a
protocol in :mod:`.contract`) and *behaviours* of IBM MQ that a transport may not
reproduce. New ones are added here as transports grow (dynamic queues by name, MQSET,
message handles), never probed for.
"""

from __future__ import annotations

from enum import StrEnum


class Capability(StrEnum):
    """One thing a transport can do. The value is the name tests and docs use."""

    # optional calls
    COMMIT_AND_GET = "commit_and_get"  # conn.commit_and_get(handle): MQCMIT + MQGET, one step
    # conn.commit_and_get(handle, puts) and conn.put_and_commit(puts): MQPUTs under syncpoint
    # before the MQCMIT of the step (a connection with COMMIT_AND_GET alone is called without)
    PUTS_IN_STEP = "puts_in_step"
    # conn.backout_and_get(handle): MQBACK + MQGET under syncpoint, one step (a failed
    # delivery's backout and the get of the next message, usually the same one again)
    BACKOUT_AND_GET = "backout_and_get"
    PUT_WARNINGS = "put_warnings"  # conn.last_warning: an MQPUT's MQCC_WARNING (e.g. 2049)
    RESERVE = "reserve"  # conn.reserve(...) and the rest of Reserves: staging on the queue
    PUBLISH_SUBSCRIBE = "pubsub"  # open_topic, subscribe, close_subscription (Subscribes)
    # subscribe honours SubscriptionDescriptor.shared (JMS 2.0 shared subscriptions: several
    # consumers at one subscription); without it such an MQSUB is 2298 (IBM MQ's MQSD has
    # no such option: IBM MQ classes for JMS build them in the client)
    SHARED_SUBSCRIPTIONS = "shared_subscriptions"
    # publish_retained, request_publications (RetainsPublications): MQPMO_RETAIN, MQSUBRQ,
    # and a new subscription is sent the retained publications it matches
    RETAINED_PUBLICATIONS = "retained"
    # publish_not_to_own, share_origin (KnowsOwnPublications): MQPMO_NOT_OWN_SUBS, and
    # subscribe honours SubscriptionDescriptor.no_local (JMS noLocal)
    OWN_PUBLICATIONS = "own_publications"
    # subscribe honours SubscriptionDescriptor.selection_string (MQSD SelectionString, a JMS
    # message selector: semantics/selector.py); without it such an MQSUB is 2551
    SUBSCRIPTION_SELECTORS = "subscription_selectors"
    MESSAGE_LOCK = "lock"  # lock_browsed, unlock (LocksMessages): MQGMO_LOCK, MQGMO_UNLOCK
    # conn.get_if_persistent(handle) (GetsIfPersistent): MQGMO_SYNCPOINT_IF_PERSISTENT
    SYNCPOINT_IF_PERSISTENT = "syncpoint_if_persistent"
    # conn.interrupt_wait() (InterruptsWait), from another thread: the get with wait the
    # connection is in returns no message now (a worker's stop need not poll)
    INTERRUPT_WAIT = "interrupt_wait"
    # conn.one_trigger_event() (MakesOneTriggerEvent): the puts made inside it are one
    # trigger event, as the segments the queue manager makes of one MQPUT (seed 003 note 2)
    ONE_TRIGGER_EVENT = "one_trigger_event"
    # queue kinds
    ALIAS_QUEUES = "alias"  # QALIAS resolves to its TARGET (MQOPEN, MQPUT1, MQINQ)
    MODEL_QUEUES = "model"  # opening a QMODEL creates a dynamic queue
    # MQOPEN/MQPUT1 with another ObjectQMgrName, and QREMOTE definitions, are routed to a
    # transmission queue (without it such an open is 2087 MQRC_UNKNOWN_REMOTE_Q_MGR)
    REMOTE_QUEUES = "remote"
    # IBM MQ behaviours
    BACKOUT_COUNT = "backout_count"  # BackoutCount survives the getter's crash (seed 002)
    BACKOUT_IN_PLACE = "backout_in_place"  # a backed-out message keeps its queue position
    BROWSE_SKIPS_LOCKED = "browse_skips_locked"  # a browse skips messages got in another UOW
    # a message on the queue is at once there for a new look: a browse on a new handle, a
    # get by its ids (the drop-in's MQGMO_ALL_MSGS_AVAILABLE looks with one, and takes a
    # message a 2080 left again without the limit; a STOMP browser's snapshot lags and a
    # message given back may sit in a consumer's prefetch)
    BROWSE_AT_ONCE = "browse_at_once"
    EXCLUSIVE_INPUT = "exclusive_input"  # MQOO_INPUT_EXCLUSIVE makes other input opens 2042
    EXPIRY = "expiry"  # MQMD Expiry: an expired message is never returned (seed 000)
    LAZY_EXPIRY = "lazy_expiry"  # an expired message stays until a get or browse reaches it
    EXPIRATION_REPORTS = "expiration_report"  # MQRO_EXPIRATION* reports are sent (seed 000)
    CONFIRM_REPORTS = "confirm_reports"  # MQRO_COA* / MQRO_COD* reports are sent
    FIFO = "fifo"  # MSGDLVSQ(FIFO): priority ignored for ordering
    PRIORITY = "priority"  # MSGDLVSQ(PRIORITY): higher priority first
    PERSISTENCE = "persistence"  # persistent messages survive a restart, others do not
