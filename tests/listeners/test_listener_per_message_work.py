"""What a consumer does once per message, kept cheap (issue 9, target 2) without changing
what it counts or logs: received and delivered are counted under one lock where a message
is delivered, and debug lines are built only for a logger that writes them."""

from __future__ import annotations

import logging

import structlog

import mqjms
from mqjms.listeners.thread import debug_enabled
from tests.listeners.helpers import BOQ, IN, back_out


def test_counters_of_delivered_suspect_and_poison_messages(mq, make_worker) -> None:
    # seed 002: BackoutCount >= BOTHRESH(3) -> moved, never delivered (received only); a
    # message backed out once is a suspect, screened then delivered; a fresh one delivered.
    mq.send(IN, "poison")
    back_out(mq.url, IN, times=3)
    mq.send(IN, "suspect")
    back_out(mq.url, IN, messages=2)  # both got and backed out: BackoutCount 4 and 1
    mq.send(IN, "fresh")
    bodies: list[str] = []
    app = make_worker()

    @app.listener(IN)
    def handle(msg: mqjms.Message) -> None:
        bodies.append(msg.body)

    mq.run_until_idle(app)
    stats = app.stats.listeners[app.listeners[0].name]
    assert sorted(bodies) == ["fresh", "suspect"]
    assert (stats.received, stats.delivered, stats.committed, stats.moved) == (3, 2, 2, 1)
    assert (app.stats.received, app.stats.delivered) == (3, 2)
    assert stats.processing.count == 2 and mq.depth(BOQ) == 1


def test_debug_lines_are_skipped_only_where_debug_is_a_no_op() -> None:
    quiet = structlog.make_filtering_bound_logger(logging.INFO)(None, [], {})
    loud = structlog.make_filtering_bound_logger(logging.DEBUG)(None, [], {})
    assert not debug_enabled(quiet)
    assert debug_enabled(loud)
    # the standard library's levels change at run time: asked at each line
    stdlib = structlog.stdlib.BoundLogger(logging.getLogger("mqjms.test"), [], {})
    assert debug_enabled(stdlib)
    assert debug_enabled(object())
