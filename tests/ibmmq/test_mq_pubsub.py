"""Publish/subscribe on mq://, through the real ibmmq and pymqi Python layers over the
stand-in: what MQSUB is sent, what the queue manager answers in the MQSD and MQOD
(ResObjectString, SelectionString), managed queues, create-or-resume, MQCLOSE of the
hsub, and a pymqi drop-in program publishing and subscribing on IBM MQ."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import mqjms.pymqi as facade
from mqjms import transport
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.mq.md import MQMD
from mqjms.mqi import routing
from mqjms.semantics import Capability
from mqjms.semantics.pubsub import Subscription, SubscriptionDescriptor
from mqjms.transport.ibmmq import MQConnection

from .brokers import StandInBroker
from .stand_in import StandIn

MANAGED = C.MQSO_CREATE | C.MQSO_MANAGED
DURABLE = MANAGED | C.MQSO_RESUME | C.MQSO_DURABLE
WAIT = 5.0


@pytest.fixture
def conn(mq: StandInBroker) -> Iterator[MQConnection]:
    connection = transport.connect(mq.url)
    assert isinstance(connection, MQConnection)
    try:
        yield connection
    finally:
        connection.disconnect()


def subscribe(conn: MQConnection, options: int = MANAGED, **fields: object) -> Subscription:
    return conn.subscribe(SubscriptionDescriptor(options=options, **fields))  # type: ignore[arg-type]


def publish(conn: MQConnection, topic_string: str, body: bytes, topic: str = "") -> None:
    handle = conn.open_topic(topic_string, C.MQOO_OUTPUT, topic=topic)
    conn.put(handle, MQMD(Format=C.MQFMT_STRING), body)
    conn.close(handle)


def test_mq_declares_publish_subscribe_with_selectors_and_no_shared_subscriptions(
    conn: MQConnection,
) -> None:
    assert Capability.PUBLISH_SUBSCRIBE in conn.capabilities
    assert Capability.SUBSCRIPTION_SELECTORS in conn.capabilities
    assert Capability.SHARED_SUBSCRIPTIONS not in conn.capabilities
    with pytest.raises(MQError) as refused:
        subscribe(conn, DURABLE, object_string="mq/pool", sub_name="mq-pool", shared=True)
    assert refused.value.reason == C.MQRC_FUNCTION_NOT_SUPPORTED


def test_mqsub_asks_for_a_managed_queue_and_learns_its_name(
    conn: MQConnection, stand_in: StandIn
) -> None:
    sub = subscribe(conn, object_string="mq/prices")
    [(topic, options)] = stand_in.subs
    assert topic == "mq/prices"
    assert options & C.MQSO_MANAGED and options & C.MQSO_FAIL_IF_QUIESCING
    assert sub.managed and not sub.durable and sub.created and not sub.shared
    # MQINQ (MQCA_Q_NAME) on the Hobj MQSUB returned: the backout layer inquires by name
    assert sub.handle.resolved_name.startswith("SYSTEM.MANAGED.NDURABLE.")
    publish(conn, "mq/prices", b"EUR")
    got = conn.get(sub.handle, wait=WAIT)
    assert got is not None and got[1] == b"EUR"  # no RFH2: the subscriber asked for none
    conn.close_subscription(sub)


def test_a_topic_object_and_a_topic_string_are_joined_by_the_queue_manager(
    mq: StandInBroker, conn: MQConnection
) -> None:
    mq.define_topic("MQ.PRICES", "mq/prices")
    sub = subscribe(conn, object_name="MQ.PRICES", object_string="eu")
    assert sub.topic_string == "mq/prices/eu" and sub.topic_object == "MQ.PRICES"
    handle = conn.open_topic("eu", C.MQOO_OUTPUT, topic="MQ.PRICES")
    assert handle.topic == "mq/prices/eu"  # MQOD ResObjectString
    conn.put(handle, MQMD(Format=C.MQFMT_STRING), b"EUR")
    conn.close(handle)
    got = conn.get(sub.handle, wait=WAIT)
    assert got is not None and got[1] == b"EUR"
    conn.close_subscription(sub)


def test_a_subscriber_that_reads_properties_gets_the_topic_string_in_an_rfh2(
    conn: MQConnection,
) -> None:
    sub = subscribe(conn, object_string="mq/props", properties=True)
    publish(conn, "mq/props", b"body")
    got = conn.get(sub.handle, wait=WAIT)
    assert got is not None
    assert got[1].startswith(b"RFH ") and b"mq/props" in got[1] and got[1].endswith(b"body")
    conn.close_subscription(sub)


def test_create_or_resume_says_whether_the_durable_subscription_was_made(
    conn: MQConnection, stand_in: StandIn
) -> None:
    first = subscribe(conn, DURABLE, object_string="mq/kept", sub_name="mq-keeper")
    assert first.created and first.durable
    assert first.handle.resolved_name.startswith("SYSTEM.MANAGED.DURABLE.")
    conn.close_subscription(first)
    publish(conn, "mq/kept", b"while away")
    again = subscribe(conn, DURABLE, object_string="mq/kept", sub_name="mq-keeper")
    assert not again.created and again.handle.resolved_name == first.handle.resolved_name
    got = conn.get(again.handle, wait=WAIT)
    assert got is not None and got[1] == b"while away"
    # MQSO_RESUME first, MQSO_CREATE after its 2428: the MQSD does not say which happened
    wanted = C.MQSO_CREATE | C.MQSO_RESUME
    assert [options & wanted for _, options in stand_in.subs] == [
        C.MQSO_RESUME,
        C.MQSO_CREATE,
        C.MQSO_RESUME,
    ]
    conn.close_subscription(again, remove=True)  # MQCO_REMOVE_SUB
    with pytest.raises(MQError) as gone:
        subscribe(conn, C.MQSO_RESUME | C.MQSO_DURABLE | C.MQSO_MANAGED, sub_name="mq-keeper")
    assert gone.value.reason == C.MQRC_NO_SUBSCRIPTION


def test_create_or_resume_resumes_one_made_by_another_between_its_two_mqsubs(
    mq: StandInBroker, conn: MQConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = transport.connect(mq.url)
    real = conn._mqsub

    def another_gets_in_first(descriptor: SubscriptionDescriptor, options: int, q: Any) -> Any:
        if not options & C.MQSO_RESUME:  # the MQSO_CREATE after 2428
            made = subscribe(other, DURABLE, object_string="mq/race", sub_name="mq-race")
            other.close_subscription(made)
        return real(descriptor, options, q)

    monkeypatch.setattr(conn, "_mqsub", another_gets_in_first)
    try:
        sub = subscribe(conn, DURABLE, object_string="mq/race", sub_name="mq-race")  # not 2432
        assert not sub.created and sub.durable
        conn.close_subscription(sub, remove=True)
    finally:
        other.disconnect()


def test_create_or_resume_refuses_a_subscription_of_the_other_durability(
    conn: MQConnection, stand_in: StandIn
) -> None:
    made = subscribe(conn, DURABLE, object_string="mq/dur", sub_name="mq-dur")
    conn.close_subscription(made)
    hconn = stand_in._hconns[int(conn._qm.getHandle())]
    before = set(hconn.objects)
    with pytest.raises(MQError) as refused:  # as one MQSUB of MQSO_CREATE | MQSO_RESUME
        subscribe(conn, MANAGED | C.MQSO_RESUME, object_string="mq/dur", sub_name="mq-dur")
    assert refused.value.reason == C.MQRC_DURABILITY_NOT_ALTERABLE
    # the hsub resumed and its managed queue were closed again: nothing held
    assert not hconn.subscriptions and set(hconn.objects) == before
    again = subscribe(conn, DURABLE, object_string="mq/dur", sub_name="mq-dur")
    conn.close_subscription(again, remove=True)


def test_resuming_to_a_queue_without_one_closes_what_mqsub_opened(
    conn: MQConnection, stand_in: StandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    queue = conn.open("APP.IN", C.MQOO_INPUT_AS_Q_DEF)
    durable = C.MQSO_CREATE | C.MQSO_DURABLE
    made = conn.subscribe(
        SubscriptionDescriptor(options=durable, object_string="mq/nm", sub_name="mq-nm"), queue
    )
    conn.close_subscription(made)
    # IBM MQ: MQSUB resuming with Hobj MQHO_NONE opens the subscription's queue and returns
    # its Hobj (the embedded queue manager refuses with 2019): a queue opened here stands in
    library = conn.library.module
    opened = library.Queue(conn._qm, "APP.IN", C.MQOO_INPUT_AS_Q_DEF)
    hobj = int(opened.get_handle())
    opened.set_handle(None)  # MQSUB's now
    extension = _extension(library)
    real = extension.MQSUB

    def mq_opens_the_queue(hconn: int, sd: bytes, given: int) -> Any:
        return real(hconn, sd, hobj if given == 0 else given)  # 0: MQHO_NONE

    monkeypatch.setattr(extension, "MQSUB", mq_opens_the_queue)
    hconn = stand_in._hconns[int(conn._qm.getHandle())]
    with pytest.raises(MQError) as refused:
        subscribe(conn, C.MQSO_RESUME | C.MQSO_DURABLE, sub_name="mq-nm")
    assert refused.value.reason == C.MQRC_HOBJ_ERROR
    assert not hconn.subscriptions and hobj not in hconn.objects
    monkeypatch.undo()
    resume = SubscriptionDescriptor(options=C.MQSO_RESUME | C.MQSO_DURABLE, sub_name="mq-nm")
    again = conn.subscribe(resume, queue)
    conn.close_subscription(again, remove=True)
    conn.close(queue)


def _extension(library: Any) -> Any:
    """The C extension (ibmmqc or pymqe) the library's Subscription.sub calls."""
    names = library.Subscription.sub.__globals__
    return names.get("ibmmqc") or names["pymqe"]


def test_a_failed_mqclose_of_a_subscription_leaves_it_open_for_another(
    conn: MQConnection, stand_in: StandIn
) -> None:
    sub = subscribe(conn, object_string="mq/again")
    tracked = conn._subscriptions[sub.hsub]
    module = conn.library.module
    error = module.MQMIError(C.MQCC_FAILED, C.MQRC_RESOURCE_PROBLEM)

    class FailsOnce:
        failed = False

        def close(self, *args: object) -> None:
            if not self.failed:
                self.failed = True
                raise error
            tracked.close(*args)

    conn._subscriptions[sub.hsub] = FailsOnce()
    with pytest.raises(MQError) as failed:
        conn.close_subscription(sub)
    assert failed.value.reason == C.MQRC_RESOURCE_PROBLEM
    conn.close_subscription(sub)  # still tracked, with its managed queue: not 2019
    hconn = stand_in._hconns[int(conn._qm.getHandle())]
    assert not hconn.subscriptions and sub.handle.hobj not in conn._queues


def test_a_resumed_subscription_answers_the_selector_it_was_made_with(
    conn: MQConnection,
) -> None:
    made = subscribe(
        conn, DURABLE, object_string="mq/sel", sub_name="mq-sel", selection_string="region = 'eu'"
    )
    assert made.selection_string == "region = 'eu'"
    conn.close_subscription(made)
    resumed = subscribe(conn, DURABLE, object_string="mq/sel", sub_name="mq-sel")
    assert resumed.selection_string == "region = 'eu'"  # MQSD SelectionString on return
    conn.close_subscription(resumed, remove=True)


def test_closing_a_non_durable_subscription_deletes_its_managed_queue(
    conn: MQConnection,
) -> None:
    sub = subscribe(conn, object_string="mq/brief")
    name = sub.handle.resolved_name
    conn.close_subscription(sub)  # MQCLOSE of the hsub, then of the managed queue's Hobj
    with pytest.raises(MQError) as gone:
        conn.inquire(name, [C.MQIA_CURRENT_Q_DEPTH])
    assert gone.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME
    with pytest.raises(MQError) as closed:
        conn.close_subscription(sub)
    assert closed.value.reason == C.MQRC_HOBJ_ERROR


def test_a_durable_subscription_left_open_at_disconnect_is_resumed_by_the_next(
    mq: StandInBroker,
) -> None:
    first = transport.connect(mq.url)
    assert isinstance(first, MQConnection)
    subscribe(first, DURABLE, object_string="mq/left", sub_name="mq-left")
    first.disconnect()  # MQDISC ends the hsub; the library's object does not MQCLOSE later
    second = transport.connect(mq.url)
    assert isinstance(second, MQConnection)
    again = subscribe(second, DURABLE, object_string="mq/left", sub_name="mq-left")
    assert not again.created
    second.close_subscription(again, remove=True)
    second.disconnect()


def test_a_pymqi_program_on_mq_publishes_and_subscribes(mq: StandInBroker) -> None:
    # the drop-in over mq:// answered 2298: the transport had no publish/subscribe
    facade.configure(url=mq.url)
    try:
        qmgr = facade.connect("QM1")
        sd = facade.SD(Options=MANAGED)
        sd.set_vs("ObjectString", "mq/dropin")
        sub = facade.Subscription(qmgr, sub_desc=sd)
        facade.Topic(qmgr, topic_string="mq/dropin").pub(b"hello")
        gmo = facade.GMO(Options=facade.CMQC.MQGMO_WAIT, WaitInterval=5000)
        assert sub.get(None, facade.MD(), gmo).endswith(b"hello")
        sub.close()
        qmgr.disconnect()
    finally:
        routing.reset()


def test_a_subscription_whose_managed_queue_cannot_be_inquired_is_not_left_behind(
    conn: MQConnection, stand_in: StandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    # MQINQ of the managed queue's name fails after MQSUB made a durable subscription: the
    # call fails, and the hsub, its queue and the subscription it made are gone (they
    # stayed open and collected publications until garbage collection)
    hconn = stand_in._hconns[int(conn._qm.getHandle())]
    before = set(hconn.objects)

    def refused(library: Any, obj: Any, selectors: Any) -> Any:
        raise failed(C.MQRC_SELECTOR_ERROR, "MQINQ refused")

    monkeypatch.setattr(type(conn.library), "inquire", refused)
    with pytest.raises(MQError) as failure:
        subscribe(conn, DURABLE, object_string="mq/inq", sub_name="mq-inq")
    assert failure.value.reason == C.MQRC_SELECTOR_ERROR
    monkeypatch.undo()
    assert not hconn.subscriptions and set(hconn.objects) == before
    with pytest.raises(MQError) as gone:  # removed, not kept: nothing to resume
        subscribe(conn, C.MQSO_RESUME | C.MQSO_DURABLE, sub_name="mq-inq")
    assert gone.value.reason == C.MQRC_NO_SUBSCRIPTION
