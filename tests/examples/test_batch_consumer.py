"""examples/batch_consumer.py (issue 13 item 9): a failed batch costs its good messages
one backout at most, the poison message reaches ORDERS.BACKOUT, and its move is logged
as pending, then moved when committed (seed 002: requeued inside the unit of work)."""

from __future__ import annotations

from typing import Any

import pytest

from examples import batch_consumer
from mqjms.testing import TestQueueManager
from tests.listeners.helpers import named


def test_only_the_poison_message_is_moved_and_the_move_is_committed(
    mq: TestQueueManager, events: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    mq.mqsc(
        """
        DEFINE QLOCAL(ORDERS.IN) BOTHRESH(3) BOQNAME(ORDERS.BACKOUT)
        DEFINE QLOCAL(ORDERS.BACKOUT)
        """
    )
    mq.put("ORDERS.IN", '{"order": 1}')
    mq.put("ORDERS.IN", "not an order")
    mq.put("ORDERS.IN", '{"order": 2}')
    mq.put("ORDERS.IN", '{"order": 3}')
    assert batch_consumer.main(["--url", mq.url, "--idle", "0.5"]) == 0
    assert "done: 3 messages processed" in capsys.readouterr().out
    [poison] = mq.browse("ORDERS.BACKOUT")
    assert poison.body == "not an order" and poison.md is not None
    assert poison.md.BackoutCount == 0  # seed 002: reset on the backout queue
    assert mq.depth("ORDERS.IN") == 0
    assert mq.depth("SYSTEM.DEAD.LETTER.QUEUE") == 0  # no good message was made poison
    pending, moved = named(events, "poison.move_pending"), named(events, "poison.moved")
    assert len(pending) == 1 and len(moved) == 1
    assert events.index(pending[0]) < events.index(moved[0])
    assert moved[0]["destination"] == "ORDERS.BACKOUT"
