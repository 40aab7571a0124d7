"""examples/orders_service.py does what its docstring says, tested as a user of mqjms would
test their service: the ``mq`` fixture (mqjms.testing) and ``run_until_idle``, with the
example's own Worker, listener options and poison handling."""

from __future__ import annotations

from examples.orders_service import app
from mqjms.testing import TestQueueManager


def test_good_orders_are_filled_and_bad_ones_moved_to_the_backout_queue(
    mq: TestQueueManager,
) -> None:
    mq.mqsc(
        """
        DEFINE QLOCAL(ORDERS.IN) BOTHRESH(3) BOQNAME(ORDERS.BACKOUT) REPLACE
        DEFINE QLOCAL(ORDERS.BACKOUT) REPLACE
        """
    )
    mq.put("ORDERS.IN", '{"id": 1, "sku": "TEA-GREEN", "quantity": 2}')
    mq.put("ORDERS.IN", '{"id": 2, "sku": "TEA-GREEN", "quantity": -1}')
    mq.put("ORDERS.IN", '{"id": 3, "sku": "COFFEE-ARABICA", "quantity": 1}')
    mq.put("ORDERS.IN", "not an order")
    summary = mq.run_until_idle(app, timeout=30)
    assert summary.committed == 2
    # order 2: InvalidOrder is move_on, so it goes at once; "not an order" is rolled back
    # with BackoutCount 0, 1, 2 and moved undelivered at 3 = BOTHRESH (seed 002)
    assert summary.backed_out == 3 and summary.destinations() == {"ORDERS.BACKOUT": 2}
    # four consumers: which reaches the backout queue first is theirs to race
    moved = mq.browse("ORDERS.BACKOUT")
    [invalid] = [m for m in moved if m.body != "not an order"]
    [unreadable] = [m for m in moved if m.body == "not an order"]
    assert invalid.properties["mqjms_failure_exception"].endswith("InvalidOrder")
    assert "quantity': -1" in invalid.properties["mqjms_failure_message"]
    assert unreadable.body == "not an order" and unreadable.md is not None
    assert unreadable.properties["mqjms_failure_exception"] == "json.decoder.JSONDecodeError"
    assert unreadable.md.BackoutCount == 0  # seed 002: reset on the backout queue
    assert mq.depth("ORDERS.IN") == 0
