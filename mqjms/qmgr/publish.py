"""Publishing on the embedded queue manager: one copy of a publication to every matching
subscription, inside the caller's write transaction (so in the publisher's unit of work
when the put is under syncpoint: a commit delivers every copy, a backout none).

What each copy is:

* Persistence and Priority "as topic default" (MQPER_PERSISTENCE_AS_TOPIC_DEF,
  MQPRI_PRIORITY_AS_Q_DEF) are the topic's DEFPSIST and DEFPRTY, inherited up the tree.
* Each copy has a MsgId of its own (as MQ gives each subscriber's publication one), the
  publisher's context, and the subscription's CorrelId (DESTCORL), unless the subscription
  was made with MQSO_SET_CORREL_ID and MQCI_NONE: then the publisher's.
* PUB(DISABLED) on the topic fails the put with MQRC_PUT_INHIBITED (2051).
* A copy its queue will not take (full, PUT(DISABLED), deleted) goes to the dead-letter
  queue with an MQDLH naming the reason, as MQ does with USEDLQ(YES); when that fails too,
  a persistent publication for a durable subscription fails the whole put with
  MQRC_PUBLICATION_FAILURE (2502) and nothing is delivered (PMSGDLV(ALLDUR)); any other
  copy is skipped with a warning (NPMSGDLV(ALLAVAIL)).
* MQPMO_RETAIN (``retain``) also keeps the publication as its topic string's retained
  publication (:mod:`.retained`), even when no subscription matched; a subscription made
  later is sent it (:func:`send_retained`), marked MQIsRetained (mqps ``Ret``), with the
  same MQMD rules as a live copy.
"""

from __future__ import annotations

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.mq.md import MQMD
from mqjms.semantics import topics as rules
from mqjms.semantics.deadletter import dead_letter_message
from mqjms.semantics.publication import as_retained, with_topic_string
from mqjms.semantics.put import check_md_for_put
from mqjms.semantics.selector import compile_selector, message_values

from . import catalog, messages, queues, remote, retained, subscriptions, substatus, topics
from .transaction import Transaction

log = get_logger("mqjms.qmgr")


def publish(
    tx: Transaction,
    topic_string: str,
    md: MQMD,
    data: bytes,
    *,
    uow: str | None,
    new_msg_id: bool,
    retain: bool = False,
    origin: str = "",
    not_own_subs: bool = False,
) -> tuple[MQMD, int]:
    """Publish ``md``/``data`` on ``topic_string`` in ``tx``; (the MQMD as published,
    subscriptions reached). ``md`` has its context set already. ``retain``: MQPMO_RETAIN.
    ``origin``: the publisher's (its connection, or the JMS connection its sessions
    share): a subscriber of that origin asking for noLocal is not sent the publication,
    nor is any subscription it holds with ``not_own_subs`` (MQPMO_NOT_OWN_SUBS)."""
    db, qmgr_name = tx.db, tx.qmgr_name
    rules.check_topic_string(topic_string, wildcards=False)
    attrs = topics.resolved(db, topic_string)
    if attrs["PUB"] == "DISABLED":
        raise failed(C.MQRC_PUT_INHIBITED, f"topic {topic_string!r} is PUB(DISABLED)")
    check_md_for_put(md)
    if md.Persistence == C.MQPER_PERSISTENCE_AS_TOPIC_DEF:
        md.Persistence = rules.default_persistence(attrs)
    if md.Priority == C.MQPRI_PRIORITY_AS_Q_DEF:
        md.Priority = rules.default_priority(attrs)
    if md.ReplyToQ.strip() and not md.ReplyToQMgr.strip():
        md.ReplyToQMgr = qmgr_name
    if md.CodedCharSetId == C.MQCCSI_Q_MGR:
        md.CodedCharSetId = int(tx.qmgr_attr("CCSID"))
    md.BackoutCount = 0
    if new_msg_id:  # MQMI_NONE alone: each copy has its own, the MQMD's stays none (MQ)
        md.MsgId = messages.make_msg_id(qmgr_name)
    reached: list[str] = []
    own = subscriptions.own_subscriptions(db, origin, all_held=not_own_subs) if origin else set()
    selecting = _Selection(md, data)
    for sub in subscriptions.matching(db, topic_string):
        if sub.name in own:  # not sent (none sent: MQRC_NO_SUBS_MATCHED's warning)
            continue
        if not selecting.selects(sub):  # its SELECTOR does not select it
            continue
        copy, body = _copy_for(tx, sub, md, data, topic_string)
        if _deliver(tx, sub, copy, body, uow=uow):
            reached.append(sub.name)
    substatus.put_to(db, reached)  # DISPLAY SBSTATUS's NUMMSGS, LMSGDATE, LMSGTIME
    delivered = len(reached)
    if retain:  # a full disk here fails the put: the caller answers MQRC_PUT_NOT_RETAINED
        retained.keep(db, topic_string, md, data, uow)
    log.debug(
        "topic.published",
        topicstr=topic_string,
        msg_id=md.MsgId.hex(),
        subscriptions=delivered,
        syncpoint=uow is not None,
        retained=retain,
    )
    return md, delivered


def _copy_for(
    tx: Transaction, sub: subscriptions.SubscriptionRow, md: MQMD, data: bytes, topic_string: str
) -> tuple[MQMD, bytes]:
    """One subscription's copy: a MsgId of its own, its CorrelId and PubPriority."""
    copy = md.copy()
    copy.MsgId = messages.make_msg_id(tx.qmgr_name)
    if not sub.keep_correl_id:
        copy.CorrelId = sub.correl_id
    if sub.pub_priority >= 0 or sub.pub_priority == C.MQPRI_PRIORITY_AS_Q_DEF:
        copy.Priority = sub.pub_priority  # AS_Q_DEF: the subscription's queue's DEFPRTY
    if sub.subtype == subscriptions.JMS:  # its subscriber reads JMSDestination
        return with_topic_string(copy, data, topic_string)
    return copy, data


def send_retained(tx: Transaction, sub: subscriptions.SubscriptionRow) -> tuple[int, int]:
    """Put a copy of every retained publication ``sub`` matches on its queue (MQSUB
    without MQSO_NEW_PUBLICATIONS_ONLY, MQSUBRQ), marked MQIsRetained; (how many matched,
    how many reached the queue: the others were dead-lettered). One its queue and the
    dead-letter queue both refuse fails the call with MQRC_RETAINED_NOT_DELIVERED (2526)."""
    sent = 0
    kept_ones = [
        kept
        for kept in retained.matching(tx.db, sub.topic_string, chars=sub.wildcard_chars)
        if _Selection(kept.md, kept.data).selects(sub)
    ]
    for kept in kept_ones:
        copy, body = _copy_for(tx, sub, kept.md, kept.data, kept.topic_string)
        copy, body = as_retained(copy, body, kept.topic_string)
        try:
            delivered = _deliver(tx, sub, copy, body, uow=None, required=True)
        except MQError as exc:
            raise failed(
                C.MQRC_RETAINED_NOT_DELIVERED,
                f"the retained publication on {kept.topic_string!r} cannot reach subscription "
                f"{sub.name!r}: {exc.detail}",
            ) from None
        sent += int(delivered)
    substatus.put_to(tx.db, [sub.name] * sent)
    log.debug("topic.retained_sent", subscription=sub.name, publications=sent)
    return len(kept_ones), sent


class _Selection:
    """A publication as subscriptions' selectors see it (read once, when one asks)."""

    def __init__(self, md: MQMD, data: bytes) -> None:
        self.md, self.data = md, data
        self._values: dict[str, object] | None = None

    def selects(self, sub: subscriptions.SubscriptionRow) -> bool:
        if not sub.selector:
            return True
        if (sub.name, sub.selector) in _unreadable:
            return False
        try:
            selector = compile_selector(sub.selector)
        except (MQError, RecursionError) as exc:
            # one stored selector that cannot be read (an edited database, a grammar
            # change) selects nothing for its subscription, never failing every publisher
            _unreadable.add((sub.name, sub.selector))
            detail = exc.detail if isinstance(exc, MQError) else "nested too deeply"
            log.warning(
                "topic.selector_unreadable",
                subscription=sub.name,
                selector=sub.selector[:200],
                error=detail,
            )
            return False
        if self._values is None:
            self._values = message_values(self.md, self.data)
        try:
            return selector.matches(self._values)
        except RecursionError:
            return False


#: (subscription name, stored selector) pairs whose selector cannot be compiled: reported
#: once each, then skipped.
_unreadable: set[tuple[str, str]] = set()


def _deliver(
    tx: Transaction,
    sub: subscriptions.SubscriptionRow,
    md: MQMD,
    data: bytes,
    *,
    uow: str | None,
    required: bool = False,
) -> bool:
    """Put one copy on the subscription's queue, else dead-letter it; True if delivered.
    ``required``: one neither queue takes fails (MQRC_PUBLICATION_FAILURE), whatever
    its persistence."""
    qmgr_name = tx.qmgr_name
    try:
        _put_copy(tx, sub.dest, md, data, uow=uow)
        return True
    except MQError as exc:
        reason = exc
    deadq = str(tx.qmgr_attr("DEADQ")).strip()
    dl_md, dl_data = dead_letter_message(
        md,
        data,
        reason=reason.reason,
        dest_queue=sub.dest,
        dest_qmgr=qmgr_name,
        appl_name=qmgr_name,
        appl_type=C.MQAT_QMGR,
        now=tx.now,
    )
    try:
        if not deadq:
            raise failed(C.MQRC_UNKNOWN_OBJECT_NAME, "the queue manager has no DEADQ")
        _put_copy(tx, deadq, dl_md, dl_data, uow=uow, here=True)
    except MQError as exc:
        if required or (md.Persistence == C.MQPER_PERSISTENT and sub.durable):
            raise failed(
                C.MQRC_PUBLICATION_FAILURE,
                f"the publication cannot reach durable subscription {sub.name!r}: its queue "
                f"{sub.dest!r} refused it ({reason.reason_name}) and so did the dead-letter "
                f"queue {deadq!r} ({exc.reason_name})",
            ) from None
        log.warning(
            "topic.publication_skipped",
            subscription=sub.name,
            queue=sub.dest,
            reason=reason.reason_name,
            dead_letter_reason=exc.reason_name,
            msg_id=md.MsgId.hex(),
        )
        return False
    log.warning(
        "topic.publication_dead_lettered",
        subscription=sub.name,
        queue=sub.dest,
        reason=reason.reason_name,
        dead_letter_queue=deadq,
        msg_id=md.MsgId.hex(),
    )
    return False


def _put_copy(
    tx: Transaction, queue: str, md: MQMD, data: bytes, *, uow: str | None, here: bool = False
) -> None:
    """One put inside a savepoint, so a refused one leaves nothing behind; ``here``: the
    dead-letter queue, which must be a queue of this queue manager."""
    db = tx.db
    db.execute("SAVEPOINT publication")
    try:
        if here:
            named, base = remote.resolve_here(tx, queue, "the dead-letter queue")
        else:
            named, base = catalog.resolve(db, queue)
        queues.put_message(tx, named, base, md, data, uow=uow, new_msg_id=False)
    except BaseException:
        db.execute("ROLLBACK TO publication")
        db.execute("RELEASE publication")
        raise
    db.execute("RELEASE publication")
