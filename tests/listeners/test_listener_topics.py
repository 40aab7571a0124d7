"""Topic listeners: ``@app.listener(topic=..., subscription=...)``, durable when named,
shared when concurrency > 1, and seed 002's rules for asynchronous applications on the
subscription's managed queue. On every transport that declares ``pubsub``."""

from __future__ import annotations

import pytest

import mqjms
from tests.listeners.helpers import wait_for

pytestmark = pytest.mark.requires("pubsub")

MODEL, BOQ = "LT.DMODEL", "LT.BACKOUT"


def _models(mq, bothresh: int = 2) -> None:
    mq.define_model(MODEL, BOTHRESH=bothresh, BOQNAME=BOQ, DEFTYPE="PERMDYN")
    mq.define_model("LT.NMODEL", BOTHRESH=bothresh, BOQNAME=BOQ)
    mq.define_topic("LT.ORDERS", "lt", MDURMDL=MODEL, MNDURMDL="LT.NMODEL")
    mq.define_queue(BOQ)


def test_a_non_durable_topic_listener_gets_what_is_published_while_it_runs(
    mq, make_worker, seen
) -> None:
    app = make_worker()

    @app.listener(topic="lt/prices/#")
    def prices(msg: mqjms.Message) -> None:
        seen.add((msg.body, msg.jms_destination))

    with app:
        wait_for(lambda: all(a.source for a in app.activity()), what="subscribed")
        mq.publish("lt/prices/eu", "EUR")
        mq.publish("lt/stock/eu", "not for prices")
        mq.publish("lt/prices/us", "USD")
        wait_for(lambda: len(seen) == 2, what="two prices")
    # mq-reference 2.5: "JMSDestination comes from jms.Dst (or mqps.Top)": a publication
    # of a program that is not JMS names its topic too (it was None)
    assert sorted(seen.items) == [("EUR", "topic://lt/prices/eu"), ("USD", "topic://lt/prices/us")]


def test_a_named_subscription_is_durable_and_poison_goes_to_the_models_boqname(
    mq, make_worker, seen
) -> None:
    # seed 002: the managed queue inherits BOTHRESH and BOQNAME from MDURMDL; a listener's
    # poison message is requeued outside the unit of work of delivery, never delivered
    _models(mq, bothresh=2)
    app = make_worker(client_id="lt-svc")

    @app.listener(topic="lt/orders/#", subscription="shipper")
    def ship(msg: mqjms.Message) -> None:
        seen.add(msg.body)
        if msg.body == "bad":
            raise ValueError("cannot ship")

    [managed] = mq.subscribe(app)  # the durable subscription exists before the worker runs
    mq.publish("lt/orders/1", "good")
    mq.publish("lt/orders/2", "bad")
    summary = mq.run_until_idle(app)
    assert summary.committed == 1 and summary.backed_out == 2 and summary.moved == 1
    assert summary.destinations() == {BOQ: 1}
    assert seen.items.count("bad") == 2  # BackoutCount 0 and 1 delivered, 2 >= BOTHRESH
    [moved] = mq.browse(BOQ)
    assert moved.body == "bad" and moved.md.BackoutCount == 0
    assert moved.properties["mqjms_failure_exception"] == "builtins.ValueError"
    assert mq.depth(managed) == 0
    # still subscribed while the worker is down: publications wait for it (on the managed
    # queue; on a STOMP broker in its durable subscription, moved there when it is back)
    mq.publish("lt/orders/3", "later")
    assert mq.run_until_idle(app).committed == 1
    assert seen.items[-1] == "later"


@pytest.mark.requires("shared_subscriptions")  # its threads share one subscription
def test_concurrency_above_one_shares_one_subscription(mq, make_worker, seen) -> None:
    app = make_worker(client_id="lt-pool")

    @app.listener(topic="lt/work", subscription="pool", concurrency=3)
    def work(msg: mqjms.Message) -> None:
        seen.add(msg.body)

    [managed] = mq.subscribe(app)
    for i in range(9):
        mq.publish("lt/work", f"job {i}")
    summary = mq.run_until_idle(app)
    assert summary.committed == 9
    assert sorted(seen.items) == sorted(f"job {i}" for i in range(9))  # each once
    sources = {a.source for a in app.activity()}
    assert sources <= {managed, ""}


def test_a_topic_listener_needs_a_topic_or_a_queue_not_both() -> None:
    app = mqjms.Worker("embedded:///nowhere")

    def handle(msg: mqjms.Message) -> None: ...

    with pytest.raises(ValueError, match="not both"):
        app.listener("Q", topic="t")(handle)
    with pytest.raises(ValueError, match="subscription="):
        app.listener("Q", subscription="s")(handle)
    with pytest.raises(ValueError, match="give a queue"):
        app.listener()(handle)
    app.listener(topic="t/#", subscription="s", concurrency=2)(handle)
    [listener] = app.listeners
    assert listener.queue == "topic://t/#" and listener.durable and listener.shared


@pytest.mark.requires("subscription_selectors")
def test_a_topic_listener_with_a_selector_gets_only_what_it_selects(mq, make_worker, seen) -> None:
    # a message-driven bean's messageSelector: the subscription's selector (it was a
    # TypeError: listener() took no selector)
    app = make_worker(client_id="lt-sel")

    @app.listener(topic="lt/sel/#", subscription="big", selector="qty >= 100")
    def big(msg: mqjms.Message) -> None:
        seen.add(msg.body)

    mq.subscribe(app)
    for body, qty in (("small", 5), ("large", 500), ("exact", 100)):
        mq.publish("lt/sel/x", mqjms.TextMessage(body, properties={"qty": qty}))
    mq.publish("lt/sel/x", "no properties")
    summary = mq.run_until_idle(app)
    assert summary.committed == 2
    assert sorted(seen.items) == ["exact", "large"]
    with pytest.raises(mqjms.InvalidSelectorException):
        app.listener(topic="lt/sel", selector="qty >=")(big)
    with pytest.raises(ValueError, match="topic="):
        app.listener("Q", selector="qty > 1")(big)


def test_a_non_durable_topic_listener_moves_poison_to_the_boqname_of_mndurmdl(
    mq, make_worker, seen
) -> None:
    # seed 002: "For non-durable subscriptions, the model queue that is used is specified by
    # the MNDURMDL attribute": its BOTHRESH and BOQNAME, not MDURMDL's, decide
    mq.define_model("LT.DMODEL", BOTHRESH=5, BOQNAME="LT.DBOQ", DEFTYPE="PERMDYN")
    mq.define_model("LT.NMODEL", BOTHRESH=2, BOQNAME="LT.NBOQ")
    mq.define_topic("LT.ORDERS", "lt", MDURMDL="LT.DMODEL", MNDURMDL="LT.NMODEL")
    mq.define_queue("LT.DBOQ")
    mq.define_queue("LT.NBOQ")
    app = make_worker()

    @app.listener(topic="lt/orders/#")
    def ship(msg: mqjms.Message) -> None:
        seen.add(msg.body)
        if msg.body == "bad":
            raise ValueError("cannot ship")

    with app:
        wait_for(lambda: all(a.source for a in app.activity()), what="subscribed")
        mq.publish("lt/orders/2", "bad")
        wait_for(lambda: mq.depth("LT.NBOQ") + mq.depth("LT.DBOQ") == 1, what="moved")
    assert mq.depth("LT.NBOQ") == 1 and mq.depth("LT.DBOQ") == 0
    assert seen.items.count("bad") == 2  # BackoutCount 0 and 1 delivered, 2 >= BOTHRESH
    [moved] = mq.browse("LT.NBOQ")
    assert moved.md.BackoutCount == 0
