"""The pub/sub calls of an embedded connection (:class:`~mqjms.semantics.pubsub.Subscribes`):
MQOPEN of a topic, MQPUT to it (publish), MQSUB and MQCLOSE of a subscription, and
retained publications (:class:`~mqjms.semantics.pubsub.RetainsPublications`: MQPMO_RETAIN,
MQSUBRQ, and MQSUB sending a new subscription the retained ones it matches).

:class:`~.connection.QMConnection` mixes this in; the storage is :mod:`.subscriptions`
and :mod:`.topics`, the delivery of a publication :mod:`.publish`.
"""

from __future__ import annotations

import sqlite3
from typing import cast

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.mq.md import MQMD
from mqjms.semantics import Context, Handle
from mqjms.semantics import topics as rules
from mqjms.semantics.emulated import DEFAULT_DYNAMIC_NAME, EmulatedConnection, PutRequest
from mqjms.semantics.pubsub import Subscription, SubscriptionDescriptor, topic_handle_name
from mqjms.semantics.put import priority_warning, set_context
from mqjms.semantics.selector import compile_selector

from . import catalog, publish, subscriptions, topics
from .connection_state import ConnectionState
from .failures import StorageError, translating
from .messages import expires_at
from .subscriptions import SubscriptionRow

log = get_logger("mqjms.qmgr")

#: How a managed subscription's queue is opened for the subscriber (the Hobj MQSUB returns).
MANAGED_OPEN = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_BROWSE | C.MQOO_INQUIRE | C.MQOO_FAIL_IF_QUIESCING
#: What MQOPEN of a topic may ask for: publishing (and the context options of a put).
TOPIC_OPEN = (
    C.MQOO_OUTPUT
    | C.MQOO_FAIL_IF_QUIESCING
    | C.MQOO_PASS_IDENTITY_CONTEXT
    | C.MQOO_PASS_ALL_CONTEXT
    | C.MQOO_SET_IDENTITY_CONTEXT
    | C.MQOO_SET_ALL_CONTEXT
    | C.MQOO_ALTERNATE_USER_AUTHORITY
)


@translating
class Subscribing(ConnectionState):
    """Publish/subscribe on a :class:`~.connection.QMConnection` (see the module docstring)."""

    _local_hobj: int
    _origin: str = ""

    @property
    def origin(self) -> str:
        """Whose publications are this connection's own (noLocal, MQPMO_NOT_OWN_SUBS): its
        own, or those of every connection given the same origin (a JMS connection's
        sessions, each on a connection of its own)."""
        return self._origin or self.id

    def share_origin(self, origin: str) -> None:
        """Publish and subscribe as ``origin`` from now on (see :attr:`origin`)."""
        self._origin = origin

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
        """MQPUT with MQPMO_NOT_OWN_SUBS (see
        :class:`~mqjms.semantics.pubsub.KnowsOwnPublications`)."""
        if topic.topic is None:
            raise failed(C.MQRC_HOBJ_ERROR, f"{topic.name!r} is not a topic handle")
        return cast(EmulatedConnection, self).put(
            topic,
            md,
            data,
            syncpoint=syncpoint,
            context=context,
            new_msg_id=new_msg_id,
            not_own_subs=True,
        )

    def close(self, handle: Handle) -> None:
        """MQCLOSE of a queue handle: :class:`~.connection.QMConnection`'s."""
        raise NotImplementedError

    # ------------------------------------------------------------------ MQOPEN (topic)
    def open_topic(self, topic_string: str = "", options: int = 0, *, topic: str = "") -> Handle:
        """MQOPEN of a topic for publishing: ``topic`` a TOPIC object (2085 when not
        defined), ``topic_string`` appended to its TOPICSTR; no wildcards (2425).
        Options other than MQOO_OUTPUT and its context options give 2045."""
        self._check_open()
        options = options or C.MQOO_OUTPUT
        if not options & C.MQOO_OUTPUT or options & ~TOPIC_OPEN:
            raise failed(
                C.MQRC_OPTION_NOT_VALID_FOR_TYPE,
                f"open options {options:#x} are not valid for a topic: it is opened with "
                "MQOO_OUTPUT to publish (subscribe to receive)",
            )
        rules.check_topic_string(topic_string, wildcards=True)
        with self._session(), self._reading() as tx:
            full = topics.full_topic_string(tx.db, topic, topic_string)
            rules.check_topic_string(full, wildcards=False)
            self._local_hobj -= 1  # no handles row: a topic is not a queue
            handle = Handle(
                name=topic or topic_handle_name(full),
                resolved_name="",
                options=options,
                hobj=self._local_hobj,
                topic=full,
            )
            self._handles[handle.hobj] = handle
            self._cursors[handle.hobj] = None
        return handle

    # ------------------------------------------------------------------ MQPUT (publish)
    def _publish(self, topic: Handle, md: MQMD, data: bytes, request: PutRequest) -> MQMD:
        assert topic.topic is not None
        self._refuse_if_read_only("no message can be published")
        syncpoint = request.syncpoint
        durable = not syncpoint and md.Persistence != C.MQPER_NOT_PERSISTENT

        def attempt() -> tuple[MQMD, int, float]:
            with self._writing(durable=durable, putting=True) as tx:
                out = md.copy()
                set_context(out, request.context, self.identity, tx.now)
                published, copies = publish.publish(
                    tx,
                    str(topic.topic),
                    out,
                    data,
                    uow=self.id if syncpoint else None,
                    new_msg_id=request.new_msg_id,
                    retain=request.retain,
                    origin=self.origin,
                    not_own_subs=request.not_own_subs,
                )
                return published, copies, tx.now

        with self._session() as db:
            if self.qm.reserve is not None:
                self.qm.reserve.check_for_put(db, len(data))  # the reserve is for draining
            try:
                result, copies, put_at = self._with_room(attempt)
            except StorageError as exc:
                if not (request.retain and exc.disk_full):
                    raise
                raise failed(  # nothing was published: the transaction rolled back
                    C.MQRC_PUT_NOT_RETAINED,
                    f"the publication on {topic.topic!r} could not be retained: {exc.detail}",
                ) from exc
            if syncpoint:
                # seed 004: its copies' expiry runs from the put, not from the commit
                expires = expires_at(result.Expiry, put_at)
                self._uow.put(result.Persistence == C.MQPER_PERSISTENT, expires)
                self._uow.retains = self._uow.retains or request.retain
        self.last_warning = priority_warning(result)
        if self.last_warning is None and not copies:
            # what MQPMO_WARN_IF_NO_SUBS_MATCHED asks for (the MQI raises it only then)
            self.last_warning = MQError(
                C.MQCC_WARNING,
                C.MQRC_NO_SUBS_MATCHED,
                f"no subscription matched topic {topic.topic!r}: the publication went nowhere",
            )
        return result

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
        """MQPUT with MQPMO_RETAIN (see :class:`~mqjms.semantics.pubsub.RetainsPublications`)."""
        if topic.topic is None:
            raise failed(C.MQRC_HOBJ_ERROR, f"{topic.name!r} is not a topic handle")
        return cast(EmulatedConnection, self).put(
            topic,
            md,
            data,
            syncpoint=syncpoint,
            context=context,
            new_msg_id=new_msg_id,
            retain=True,
        )

    # ------------------------------------------------------------------ MQSUBRQ
    def request_publications(self, subscription: Subscription) -> int:
        """MQSUBRQ (see :class:`~mqjms.semantics.pubsub.RetainsPublications`)."""
        self._check_open()
        self._refuse_if_read_only("no retained publication can be sent")

        def attempt() -> int:
            with self._writing() as tx:
                held = tx.db.execute(
                    "SELECT 1 FROM subscribers WHERE hsub = ? AND conn = ?",
                    (subscription.hsub, self.id),
                ).fetchone()
                row = subscriptions.load(tx.db, subscription.name)
                if held is None or row is None:
                    raise failed(
                        C.MQRC_HOBJ_ERROR, f"subscription {subscription.name!r} is not open here"
                    )
                matched, sent = publish.send_retained(tx, row)
                if not matched:
                    raise failed(
                        C.MQRC_NO_RETAINED_MSG,
                        f"no retained publication matches topic {row.topic_string!r}",
                    )
                return sent  # MQSRO NumPubs: those the subscription's queue took

        with self._session():
            return self._with_room(attempt)

    # ------------------------------------------------------------------ MQSUB
    def subscribe(
        self, descriptor: SubscriptionDescriptor, queue: Handle | None = None
    ) -> Subscription:
        """MQSUB (see :class:`~mqjms.semantics.pubsub.Subscribes`)."""
        self._check_open()
        descriptor.check()
        self._refuse_if_read_only("no subscription can be made")
        if not descriptor.managed:
            # MQSO_RESUME alone: the subscription's own destination class applies (below)
            if queue is None and descriptor.options & C.MQSO_CREATE:
                raise _no_queue()
            if queue is not None:
                self._handle(queue)
                if queue.qmgr:  # a subscription records a queue name, no DESTQMGR
                    raise failed(
                        C.MQRC_FUNCTION_NOT_SUPPORTED,
                        f"MQSUB to queue {queue.name!r} of queue manager {queue.qmgr!r}: "
                        "define a QREMOTE for it and subscribe with a handle to that",
                    )
        try:
            with self._session():
                row, hsub, created = self._with_room(lambda: self._subscribe(descriptor, queue))
        except MQError as exc:
            # a subscriber holding it may be a process that died: back its work out, retry
            if exc.reason != C.MQRC_SUBSCRIPTION_IN_USE or not self.qm.recover_abandoned(
                force=True
            ):
                raise
            with self._session():
                row, hsub, created = self._with_room(lambda: self._subscribe(descriptor, queue))
        if row.managed:
            try:
                handle = self._open(row.dest, MANAGED_OPEN, DEFAULT_DYNAMIC_NAME, "")
            except BaseException:
                with self._session():
                    self._with_room(lambda: self._unsubscribe(hsub, row.name, remove=False))
                raise
        else:
            if queue is None:  # a resumed subscription with a provided destination
                with self._session():
                    self._with_room(lambda: self._unsubscribe(hsub, row.name, remove=False))
                raise _no_queue()
            handle = queue
        log.info(
            "subscription.opened",
            subscription=row.name,
            topicstr=row.topic_string,
            durable=row.durable,
            shared=row.shared,
            queue=row.dest,
            created=created,
        )
        return Subscription(
            name=row.name,
            topic_string=row.topic_string,
            durable=row.durable,
            managed=row.managed,
            shared=row.shared,
            handle=handle,
            hsub=hsub,
            topic_object=row.topic_object,
            created=created,
            correl_id=row.correl_id,
            selection_string=row.selector,
        )

    def _subscribe(
        self, sd: SubscriptionDescriptor, queue: Handle | None
    ) -> tuple[SubscriptionRow, int, bool]:
        with self._writing() as tx:
            db = tx.db
            name = sd.sub_name.strip() and rules.validate_sub_name(sd.sub_name)
            existing = subscriptions.load(db, name) if name else None
            if existing is not None:
                if not sd.options & (C.MQSO_RESUME | C.MQSO_ALTER):
                    raise failed(C.MQRC_SUB_ALREADY_EXISTS, f"subscription {name!r} already exists")
                self._check_resume(db, existing, sd)
                if sd.options & C.MQSO_ALTER:
                    existing = subscriptions.alter(db, existing, sd.sub_user_data, sd.pub_priority)
                return existing, self._attach(db, existing.name, sd), False
            if not sd.options & C.MQSO_CREATE:
                raise failed(C.MQRC_NO_SUBSCRIPTION, f"subscription {name!r} does not exist")
            row = self._create(db, sd, name, queue)
            if not sd.options & C.MQSO_NEW_PUBLICATIONS_ONLY:
                # made, not resumed: sent what is retained (2526 undoes the subscription)
                publish.send_retained(tx, row)
            return row, self._attach(db, row.name, sd), True

    def _attach(self, db: sqlite3.Connection, name: str, sd: SubscriptionDescriptor) -> int:
        return subscriptions.attach(db, self.id, name, origin=self.origin, no_local=sd.no_local)

    def _check_resume(
        self, db: sqlite3.Connection, existing: SubscriptionRow, sd: SubscriptionDescriptor
    ) -> None:
        # MQSO_RESUME alone asks for the subscription as it is; with MQSO_CREATE or
        # MQSO_ALTER the program says which durability it wants
        if existing.durable != sd.durable and sd.options & (C.MQSO_CREATE | C.MQSO_ALTER):
            raise failed(
                C.MQRC_DURABILITY_NOT_ALTERABLE,
                f"subscription {existing.name!r} is "
                f"{'durable' if existing.durable else 'non-durable'}",
            )
        if existing.shared != sd.shared:
            raise failed(
                C.MQRC_SUBSCRIPTION_IN_USE,
                f"subscription {existing.name!r} exists as an "
                f"{'shared' if existing.shared else 'unshared'} subscription",
            )
        if not existing.shared and subscriptions.holders(db, existing.name):
            raise subscriptions.in_use(existing.name)

    def _create(
        self,
        db: sqlite3.Connection,
        sd: SubscriptionDescriptor,
        name: str,
        queue: Handle | None,
    ) -> SubscriptionRow:
        rules.check_topic_string(sd.object_string, wildcards=True)
        full = topics.full_topic_string(db, sd.object_name, sd.object_string)
        rules.check_topic_string(full, wildcards=True)
        compile_selector(sd.selection_string)  # 2459 for a selector that is not one
        chars = bool(sd.options & C.MQSO_WILDCARD_CHAR)
        node = rules.char_node(full) if chars else full  # whose attributes apply
        attrs = topics.resolved(db, node)
        if attrs["SUB"] == "DISABLED":
            raise failed(C.MQRC_SUB_INHIBITED, f"topic {full!r} is SUB(DISABLED)")
        if sd.durable and attrs["DURSUB"] == "NO":
            raise failed(
                C.MQRC_DURABILITY_NOT_ALLOWED, f"topic {full!r} allows no durable subscriptions"
            )
        subid = subscriptions.new_subid()
        if sd.managed:
            dest, _ = subscriptions.managed_queue(db, node, durable=sd.durable)
        else:
            if queue is None:
                raise _no_queue()
            dest = queue.name
        keep = bool(sd.options & C.MQSO_SET_CORREL_ID) and sd.sub_correl_id == C.MQCI_NONE
        correl = (
            sd.sub_correl_id
            if sd.options & C.MQSO_SET_CORREL_ID
            else subid[: C.MQ_CORREL_ID_LENGTH]
        )
        stamp = catalog.stamp()
        row = SubscriptionRow(
            name or subid.hex().upper(),
            subid,
            full,
            sd.object_name,
            sd.durable,
            sd.shared,
            sd.managed,
            dest,
            subscriptions.JMS if sd.properties else "API",
            sd.sub_user_data,
            correl,
            keep,
            sd.pub_priority,
            stamp,
            stamp,
            chars,
            sd.selection_string.strip(),
        )
        subscriptions.insert(db, row)
        return row

    # ------------------------------------------------------------------ MQCLOSE (hsub)
    def close_subscription(self, subscription: Subscription, *, remove: bool = False) -> None:
        """MQCLOSE of the hsub (MQCO_REMOVE_SUB when ``remove``) and of a managed queue's
        handle (see :class:`~mqjms.semantics.pubsub.Subscribes`)."""
        self._check_open()
        if subscription.managed and subscription.handle.hobj in self._handles:
            self.close(subscription.handle)
        if self.qm.read_only:
            return
        with self._session():
            self._with_room(
                lambda: self._unsubscribe(subscription.hsub, subscription.name, remove=remove)
            )

    def _unsubscribe(self, hsub: int, name: str, *, remove: bool) -> None:
        with self._writing() as tx:
            db = tx.db
            held = db.execute(
                "SELECT 1 FROM subscribers WHERE hsub = ? AND conn = ?", (hsub, self.id)
            ).fetchone()
            if held is None:
                raise failed(C.MQRC_HOBJ_ERROR, f"subscription {name!r} is not open here")
            subscriptions.detach(db, hsub)
            sub = subscriptions.load(db, name)
            if sub is None:
                return
            if remove and sub.durable:
                if subscriptions.holders(db, name):
                    raise subscriptions.in_use(name)
                subscriptions.remove(db, sub, reason="MQCO_REMOVE_SUB")
            else:
                subscriptions.end_unheld_non_durable(db, [name], "subscriber closed")


def _no_queue() -> MQError:
    return failed(
        C.MQRC_HOBJ_ERROR,
        "a subscription without MQSO_MANAGED needs the queue handle to deliver to",
    )
