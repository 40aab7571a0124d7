"""The orders worker, started on demand by the trigger monitor (examples/triggered).

It is a plain mqjms Worker: the process definition ORDERS.SERVER runs it as
``mqjms run orders_worker:app <MQTMC2> --idle-timeout 10``, so it drains ORDERS.IN, stays
while orders keep coming, and exits after 10 seconds without one. The queue manager it
uses comes from MQJMS_URL, which the trigger monitor sets to its own URL.
"""

from __future__ import annotations

import json
import os

import mqjms

app = mqjms.Worker()  # the URL: $MQJMS_URL (set by the trigger monitor), else ./.mqjms


@app.listener("ORDERS.IN", concurrency=2)
def handle(msg: mqjms.Message) -> None:
    """Process one order. Raising rolls it back (BackoutCount + 1); after BOTHRESH(3)
    failures it is moved to ORDERS.BACKOUT."""
    order = json.loads(msg.body)
    if "order" not in order:
        raise ValueError(f"not an order: {order}")
    print(f"worker {os.getpid()}: order {order['order']} shipped", flush=True)
