"""``mqjms browse QUEUE``: print messages without removing them."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from mqjms.mq import constants as C
from mqjms.mq.md import MQMD
from mqjms.transport import Browse, Connection, Handle

from .common import add_url, open_connection, positive_int, qmgr_ccsid
from .get import JSON_HELP, add_output_options, printer, report_empty


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "browse",
        help="print the messages on a queue without removing them",
        description="Browse QUEUE from the first message on, in delivery order. Nothing is "
        "printed, and the exit status is 0, when the queue is empty.",
        epilog=JSON_HELP,
    )
    add_url(parser)
    parser.add_argument("queue", metavar="QUEUE")
    add_output_options(parser)
    parser.add_argument(
        "--count", type=positive_int, metavar="N", help="browse at most N messages (default: all)"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    conn = open_connection(args)
    try:
        handle = conn.open(args.queue, C.MQOO_BROWSE)
        found = browse_all(conn, handle, printer(args, qmgr_ccsid(conn)), args, args.count)
        conn.close(handle)
    finally:
        conn.disconnect()
    report_empty(args, found)
    return 0


def browse_all(
    conn: Connection,
    handle: Handle,
    show: Callable[[MQMD, bytes, int], None],
    args: argparse.Namespace,
    limit: int | None,
) -> int:
    """Browse first, then next, until no message or ``limit`` messages."""
    found = 0
    cursor = Browse.FIRST
    while limit is None or found < limit:
        got = conn.get(
            handle, wait=args.wait, browse=cursor, msg_id=args.msg_id, correl_id=args.correl_id
        )
        if got is None:
            break
        found += 1
        cursor = Browse.NEXT
        show(got[0], got[1], found)
    return found
