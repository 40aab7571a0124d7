"""A Worker listener that reads JMS headers a plain message does not carry commits it.

Hardening issue item 1: five ``producer.send("order-n")`` messages read by a listener
doing ``if msg.jms_reply_to:`` all ended on BOQNAME with
``mqjms_failure_exception=builtins.KeyError``, because the lazily decoded message raised
on a header it lacked instead of returning None (or 0 for JMSExpiration).
"""

from __future__ import annotations

import mqjms
from tests.listeners.helpers import BOQ, IN, named


def test_listener_reading_absent_headers_commits_every_plain_message(mq, make_worker, seen, events):
    app = make_worker()

    @app.listener(IN)
    def handle(msg: mqjms.Message) -> None:
        if msg.jms_reply_to:
            raise AssertionError(f"{msg.body}: no reply-to was sent")
        seen.add((msg.body, msg.jms_reply_to, msg.jms_correlation_id, msg.jms_expiration))

    bodies = [f"order-{n}" for n in range(5)]
    mq.send(IN, *bodies)
    assert mq.run_until_idle(app).committed == 5
    assert sorted(seen.items) == [(body, None, None, 0) for body in bodies]
    assert not named(events, "message.backed_out")
    # seed 002: only a message whose BackoutCount reaches BOTHRESH goes to BOQNAME;
    # these were never backed out, so nothing is there (nor on the dead-letter queue).
    assert mq.depth(BOQ) == 0 and mq.depth(mq.dead_letter_queue) == 0 and mq.depth(IN) == 0


def test_listener_sees_the_headers_that_were_sent(mq, make_worker, seen):
    # The same listener on messages that carry the headers reads them, lazily decoded.
    app = make_worker()

    @app.listener(IN)
    def handle(msg: mqjms.Message) -> None:
        seen.add((msg.jms_reply_to, msg.jms_correlation_id, msg.jms_expiration > 0))

    mq.send(IN, "order-r", reply_to="REPLIES", correlation_id="c-1", time_to_live=60_000)
    assert mq.run_until_idle(app).committed == 1
    assert seen.items == [("queue:///REPLIES", "c-1", True)]
    assert mq.depth(BOQ) == 0
