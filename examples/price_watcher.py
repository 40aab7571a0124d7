"""A price watcher: every price published under ``prices/`` (a wildcard subscription),
kept for it while the service is down (a durable subscription), a price it cannot read
moved aside after two attempts (seed 002, on the subscription's managed queue).

    mqjms mqsc <<'EOF2'
    DEFINE QMODEL(PRICES.MODEL) DEFTYPE(PERMDYN) BOTHRESH(2) BOQNAME(PRICES.BACKOUT) REPLACE
    DEFINE QLOCAL(PRICES.BACKOUT) REPLACE
    DEFINE TOPIC(PRICES) TOPICSTR('prices') MDURMDL(PRICES.MODEL) DEFPSIST(YES) REPLACE
    EOF2
    mqjms run examples.price_watcher:app &       # subscribes to prices/# as "watcher"
    mqjms publish prices/eu/EURUSD --body '{"instrument": "EURUSD", "bid": 1.0841, "ask": 1.0843}'
    mqjms publish prices/us/AAPL --body 'not a price'
    mqjms mqsc <<< "DISPLAY SUB('JMS:price-watcher:watcher') DEST"   # its managed queue

The subscription's managed queue (SYSTEM.MANAGED.DURABLE.*) is made from the PRICES
topic's durable model queue (MDURMDL), so it has BOTHRESH 2 and BOQNAME PRICES.BACKOUT:
"not a price" is rolled back with BackoutCount 0 and 1, then moved, undelivered, to
PRICES.BACKOUT with the exception in its usr properties.
"""

from __future__ import annotations

import json

import structlog

import mqjms

log = structlog.get_logger("prices")
# The client id names the durable subscription: SubName JMS:price-watcher:watcher.
app = mqjms.Worker(client_id="price-watcher")  # the URL: --url, $MQJMS_URL, else ./.mqjms


@app.listener(topic="prices/#", subscription="watcher")
def watch(msg: mqjms.Message) -> None:
    quote = json.loads(msg.body)  # not JSON: rolled back, moved after BOTHRESH attempts
    spread = round(float(quote["ask"]) - float(quote["bid"]), 6)
    log.info("price.seen", instrument=quote["instrument"], bid=quote["bid"], spread=spread)
