"""``mqjms get QUEUE``: get (remove) messages and print them, as JSON or a summary."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from mqjms.mq import constants as C
from mqjms.mq.md import MQMD
from mqjms.transport import Connection, Handle

from .common import (
    add_url,
    hex_id,
    non_negative_float,
    open_connection,
    positive_int,
    qmgr_ccsid,
)
from .render import json_line, message_json, message_text

JSON_HELP = (
    '--json prints one JSON object per message and line: {"md": {...}, "rfh2": [...], '
    '"dlh": {...} or null, "properties": {...}, "jms": {...}, "body": ...}. md and dlh use '
    "IBM's field names with byte fields in hex; each RFH2 of the chain has its fixed fields "
    'and "folders" (the NameValueData strings). properties are the message\'s JMS '
    "properties, typed, and jms its JMS header fields (JMSMessageID, JMSCorrelationID, "
    "JMSType, JMSPriority, ...), as a JMS application sees them. body is a string when the "
    'final Format is MQSTR and the bytes decode in its CCSID, otherwise {"base64": "..."}; '
    'a malformed header adds "error" and leaves the bytes from that header on in body. '
    "Without --json, a control character in the text shown (an escape sequence's ESC) "
    "is written as \\xNN."
)


def add_output_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="one JSON object per message")
    parser.add_argument(
        "--wait",
        type=non_negative_float,
        default=0.0,
        metavar="SECONDS",
        help="wait up to SECONDS for each message (default 0)",
    )
    parser.add_argument(
        "--msg-id", type=hex_id("--msg-id"), metavar="HEX", help="only the message with this MsgId"
    )
    parser.add_argument(
        "--correl-id",
        type=hex_id("--correl-id"),
        metavar="HEX",
        help="only messages with this CorrelId",
    )


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "get",
        help="get (remove) messages from a queue and print them",
        description="Get messages from QUEUE, each in its own unit of work that is committed "
        "only once the message has been printed. Nothing is printed, and the "
        "exit status is 0, when no message is available.",
        epilog=JSON_HELP,
    )
    add_url(parser)
    parser.add_argument("queue", metavar="QUEUE")
    add_output_options(parser)
    how_many = parser.add_mutually_exclusive_group()
    how_many.add_argument(
        "--count",
        type=positive_int,
        default=1,
        metavar="N",
        help="get up to N messages (default 1)",
    )
    how_many.add_argument(
        "--all", action="store_true", help="get messages until none arrives within --wait"
    )
    parser.set_defaults(handler=run)


def printer(args: argparse.Namespace, ccsid: int) -> Callable[[MQMD, bytes, int], None]:
    """Prints one message (JSON line or summary) and flushes, so it is out before commit."""

    def show(md: MQMD, data: bytes, number: int) -> None:
        obj: dict[str, Any] = message_json(md, data, ccsid, args.queue)
        if args.json:
            sys.stdout.write(json_line(obj) + "\n")
        else:
            sys.stdout.write(
                ("\n" if number > 1 else "")
                + "\n".join(message_text(obj, number, args.queue))
                + "\n"
            )
        sys.stdout.flush()

    return show


def report_empty(args: argparse.Namespace, found: int) -> None:
    if not found and not args.json:
        print(f"mqjms: no message on {args.queue}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    conn = open_connection(args)
    try:
        handle = conn.open(args.queue, C.MQOO_INPUT_AS_Q_DEF)
        show = printer(args, qmgr_ccsid(conn))
        limit = None if args.all else int(args.count)
        found = _drain(conn, handle, show, args, limit)
        conn.close(handle)
    finally:
        conn.disconnect()  # backs out a message got but not printed
    report_empty(args, found)
    return 0


def _drain(
    conn: Connection,
    handle: Handle,
    show: Callable[[MQMD, bytes, int], None],
    args: argparse.Namespace,
    limit: int | None,
) -> int:
    found = 0
    while limit is None or found < limit:
        got = conn.get(
            handle, wait=args.wait, syncpoint=True, msg_id=args.msg_id, correl_id=args.correl_id
        )
        if got is None:
            break
        found += 1
        try:
            show(got[0], got[1], found)
        except OSError as exc:  # a full disk, a closed pipe: the message was not shown
            if isinstance(exc, BrokenPipeError):
                raise
            raise OSError(
                exc.errno,
                f"cannot write message {found} to standard output ({exc.strerror or exc}): "
                f"it stays on {args.queue} (backed out, BackoutCount + 1)",
            ) from None
        conn.commit()
    return found
