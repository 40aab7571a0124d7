"""``Worker.activity()``: what each consumer holds, which is how ``run_until_idle`` tells
that a worker is idle (and what a health check can show)."""

from __future__ import annotations

import threading

import mqjms
from tests.listeners.helpers import IN, wait_for


def test_a_consumer_holds_its_message_until_the_unit_of_work_has_ended(mq, make_worker):
    app = make_worker()
    running, release = threading.Event(), threading.Event()

    @app.listener(IN, concurrency=2)
    def handle(msg: mqjms.Message) -> None:
        running.set()
        assert release.wait(10)
        if msg.delivery_count == 1:
            raise RuntimeError("once")  # rolled back: BackoutCount 1 next time

    [sent] = mq.send(IN, "x")
    with app:
        assert running.wait(10)
        [busy] = [a for a in app.activity() if not a.quiet]
        assert busy.held is not None and busy.held.msg_id == sent.md.MsgId
        assert busy.held.backout_count == 0 and busy.listener.endswith("handle")
        assert busy.queue == IN and busy.messages == 1
        running.clear()
        release.set()
        wait_for(lambda: app.stats.committed == 1, what="the second attempt committed")
        wait_for(lambda: all(a.quiet for a in app.activity()), what="every consumer quiet")
        assert sum(a.messages for a in app.activity()) == 2
        # what each consumer got last stays, for diagnostics (NotIdle's message)
        lasts = [a.last for a in app.activity() if a.last is not None]
        assert lasts and all(last.msg_id == sent.md.MsgId for last in lasts)
        assert {last.backout_count for last in lasts} <= {0, 1}
    assert app.activity() == []  # stopped: no consumers
