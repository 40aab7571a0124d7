"""A listener service: orders in, poison orders moved aside after three attempts.

    mqjms mqsc <<'EOF2'
    DEFINE QLOCAL(ORDERS.IN) BOTHRESH(3) BOQNAME(ORDERS.BACKOUT) REPLACE
    DEFINE QLOCAL(ORDERS.BACKOUT) REPLACE
    EOF2
    mqjms put ORDERS.IN --body '{"id": 1, "sku": "TEA-GREEN", "quantity": 2}'
    mqjms put ORDERS.IN --body '{"id": 2, "sku": "TEA-GREEN", "quantity": -1}'
    mqjms run examples.orders_service:app        # Ctrl-C stops it gracefully

Order 2 fails three times (BackoutCount 0, 1, 2), then, with BackoutCount 3 = BOTHRESH,
it is moved to ORDERS.BACKOUT with the exception in its usr properties (seed 002).
A wrong quantity will never get better, so ``move_on`` sends it there at once instead.
"""

from __future__ import annotations

import json

import structlog
import tenacity

import mqjms

log = structlog.get_logger("orders")
app = mqjms.Worker()  # the URL comes from --url, $MQJMS_URL, else ./.mqjms

SKUS = {"TEA-GREEN": 4.5, "TEA-BLACK": 3.9, "COFFEE-ARABICA": 7.2}


class InvalidOrder(ValueError):
    """An order no retry can fix."""


@app.listener(
    "ORDERS.IN",
    concurrency=4,
    retry_wait=tenacity.wait_exponential(multiplier=0.05, max=2),  # wait before the rollback
    move_on=(InvalidOrder,),  # straight to ORDERS.BACKOUT, no more attempts
)
def handle_order(msg: mqjms.Message) -> None:
    order = json.loads(msg.body)  # not JSON: rolled back, moved after BOTHRESH attempts
    price = SKUS.get(order.get("sku"))
    if price is None or int(order.get("quantity", 0)) <= 0:
        raise InvalidOrder(f"cannot fill order {order}")
    log.info(
        "order.filled",
        order=order["id"],
        total=round(price * order["quantity"], 2),
        attempt=msg.delivery_count,
    )


@app.on_start
def ready() -> None:
    log.info("orders.ready", queue="ORDERS.IN")
