"""``mqjms publish TOPICSTRING``: publish a message (text or a file's bytes) on a topic.

A copy goes to every subscription whose topic string matches (wildcards included), in
one unit of work with ``--count``; persistence is the topic's DEFPSIST unless
``--persistent`` or ``--non-persistent`` says otherwise. Prints the publication's MsgId.
"""

from __future__ import annotations

import argparse
import sys

from mqjms.mq import constants as C
from mqjms.mq.md import MQMD
from mqjms.semantics import Capability
from mqjms.semantics.pubsub import Subscribes
from mqjms.transport import put_warning

from .common import (
    CLIError,
    add_persistence,
    add_url,
    mqlong,
    open_connection,
    positive_int,
)
from .put import _data, add_body, add_correl_id, add_expiry, format_name


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "publish",
        help="publish a message on a topic and print its MsgId",
        description="Publish a message on TOPICSTRING (e.g. prices/eu): every subscription "
        "whose topic matches gets a copy. --body TEXT is published as Format MQSTR in CCSID "
        "1208; --file F publishes the file's bytes. With --topic-object the topic string is "
        "appended to that TOPIC object's TOPICSTR, as MQOPEN joins them.",
    )
    add_url(parser)
    parser.add_argument("topic", metavar="TOPICSTRING", nargs="?", default="")
    parser.add_argument("--topic-object", metavar="NAME", default="", help="a TOPIC object")
    add_body(parser)
    add_persistence(parser, C.MQPER_PERSISTENCE_AS_TOPIC_DEF)
    parser.add_argument(
        "--priority",
        type=mqlong,
        default=C.MQPRI_PRIORITY_AS_Q_DEF,
        metavar="N",
        help="Priority 0-9 (default: the topic's DEFPRTY)",
    )
    add_expiry(parser)
    add_correl_id(parser)
    parser.add_argument("--format", type=format_name, metavar="NAME", help="Format (MQSTR, ...)")
    parser.add_argument("--ccsid", type=mqlong, metavar="N", help="CodedCharSetId (default 1208)")
    parser.add_argument(
        "--count",
        type=positive_int,
        default=1,
        metavar="N",
        help="publish N copies, each with its own MsgId, in one unit of work",
    )
    parser.set_defaults(handler=run, encoding=None)


def run(args: argparse.Namespace) -> int:
    if not args.topic and not args.topic_object:
        raise CLIError("give a TOPICSTRING, or --topic-object NAME")
    fmt = args.format or (C.MQFMT_STRING if args.body is not None else C.MQFMT_NONE)
    ccsid = 1208 if args.ccsid is None else int(args.ccsid)
    data = _data(args, ccsid, C.MQENC_NATIVE)
    conn = open_connection(args)
    try:
        if Capability.PUBLISH_SUBSCRIBE not in conn.capabilities:
            raise CLIError(f"{args.url or 'this transport'} does not offer publish/subscribe")
        topics: Subscribes = conn  # type: ignore[assignment]
        handle = topics.open_topic(args.topic, C.MQOO_OUTPUT, topic=args.topic_object)
        md = MQMD(
            Format=fmt,
            CodedCharSetId=ccsid,
            Persistence=args.persistence,
            Priority=args.priority,
            Expiry=args.expiry,
            CorrelId=args.correl_id,
        )
        many = args.count > 1
        ids = []
        for _ in range(args.count):
            ids.append(conn.put(handle, md, data, syncpoint=many).MsgId.hex())
            warning = put_warning(conn)
            if warning is not None:
                print(f"mqjms: warning: {warning.reason_name}: {warning.detail}", file=sys.stderr)
        if many:
            conn.commit()
        conn.close(handle)
    finally:
        conn.disconnect()
    print("\n".join(ids))
    return 0
