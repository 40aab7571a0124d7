"""``mqjms demo``: the main job on the embedded default, with poison messages."""

from __future__ import annotations

import argparse
import logging

import structlog

from mqjms.transport.url import redact

from .common import CLIError, add_url, positive_int, url_of


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="send orders, some poison, through a listener service and show where they went",
        description="Defines ORDERS.IN (BOTHRESH 3, BOQNAME ORDERS.BACKOUT), sends a stream "
        "of orders of which some can never be processed, runs a listener service over them "
        "with a live progress line, and ends with a summary checked against the queue depths. "
        "It replaces ORDERS.IN and ORDERS.BACKOUT and clears both, deleting any messages "
        "on them: give it a queue manager of its own (--url embedded:///tmp/demo) when "
        "yours has queues of those names.",
    )
    add_url(parser, embedded_only=True)
    parser.add_argument("--orders", type=positive_int, default=1000, metavar="N")
    parser.add_argument(
        "--poison-every",
        type=positive_int,
        default=25,
        metavar="K",
        help="every K-th order is poison (default 25)",
    )
    parser.add_argument("--concurrency", type=positive_int, default=4, metavar="N")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from mqjms.demo import run_demo

    url = url_of(args)
    if not args.verbose:  # the poison messages fail on purpose: show their story, not 120 warnings
        structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    if not url.startswith("embedded:"):
        raise CLIError(
            f"the demo defines its queues on the embedded queue manager, not {redact(url)}"
        )
    summary = run_demo(
        url, orders=args.orders, poison_every=args.poison_every, concurrency=args.concurrency
    )
    return 0 if summary.consistent else 1
