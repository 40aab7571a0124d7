"""``mqjms put QUEUE``: put a message (text or a file's bytes) and print its MsgId."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import BinaryIO

from mqjms.mq import ccsid as ccsids
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.mq.md import MQMD
from mqjms.transport import put_warning

from .common import (
    CLIError,
    add_persistence,
    add_url,
    hex_id,
    mqlong,
    object_name,
    open_connection,
    positive_int,
    qmgr_ccsid,
)
from .render import report_options

#: The highest MAXMSGL a queue manager takes (IBM MQ's 100 MiB).
LARGEST_MESSAGE = 104_857_600

MSG_TYPES = {
    "DATAGRAM": C.MQMT_DATAGRAM,
    "REQUEST": C.MQMT_REQUEST,
    "REPLY": C.MQMT_REPLY,
    "REPORT": C.MQMT_REPORT,
}


def report_option(value: str) -> int:
    """An MQRO_* name (the prefix and case are optional) or a number."""
    options = report_options()
    key = value.strip().upper()
    if not key.startswith("MQRO_"):
        key = "MQRO_" + key
    if key in options:
        return options[key]
    try:
        return int(value, 0)
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(
        f"{value!r} is not an MQRO_* report option; use one of {', '.join(sorted(options))}"
    )


def format_name(value: str) -> str:
    """An MQFMT_* constant name (MQFMT_STRING) or the 8-character format (MQSTR)."""
    named = getattr(C, value.upper(), None) if value.upper().startswith("MQFMT_") else None
    fmt = named if isinstance(named, str) else value
    if len(fmt) > 8:
        raise argparse.ArgumentTypeError(f"format {fmt!r} is longer than 8 characters")
    return fmt


def add_body(parser: argparse.ArgumentParser) -> None:
    """--body TEXT or --file F: the message's data (shared with ``mqjms publish``)."""
    body = parser.add_mutually_exclusive_group(required=True)
    body.add_argument("--body", metavar="TEXT", help="the message text")
    body.add_argument("--file", metavar="F", help="a file whose bytes are the message (- = stdin)")


def add_expiry(parser: argparse.ArgumentParser) -> None:
    """--expiry TENTHS (shared with ``mqjms publish``)."""
    parser.add_argument(
        "--expiry",
        type=mqlong,
        default=C.MQEI_UNLIMITED,
        metavar="TENTHS",
        help="Expiry in tenths of a second (default -1: unlimited)",
    )


def add_correl_id(parser: argparse.ArgumentParser) -> None:
    """--correl-id HEX (shared with ``mqjms publish``)."""
    parser.add_argument(
        "--correl-id",
        type=hex_id("--correl-id"),
        metavar="HEX",
        default=C.MQCI_NONE,
        help="CorrelId, up to 24 bytes in hex",
    )


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "put",
        help="put a message on a queue and print its MsgId",
        description="Put a message on QUEUE and print its MsgId in hex. --body TEXT is put "
        "as Format MQSTR in CCSID 1208 (UTF-8); --file F puts the file's bytes "
        "exactly as they are (Format MQNONE unless --format says otherwise, e.g. "
        "--format MQHRF2 --encoding 273 for a file that starts with an RFH2).",
    )
    add_url(parser)
    parser.add_argument("queue", metavar="QUEUE")
    add_body(parser)
    add_expiry(parser)
    parser.add_argument(
        "--priority",
        type=mqlong,
        default=C.MQPRI_PRIORITY_AS_Q_DEF,
        metavar="N",
        help="Priority 0-9 (default: the queue's DEFPRTY); above 9 the message "
        "is queued at 9, keeps N in its MQMD and a 2049 warning is printed",
    )
    add_persistence(parser, C.MQPER_PERSISTENCE_AS_Q_DEF)
    parser.add_argument(
        "--report",
        type=report_option,
        action="append",
        default=[],
        metavar="NAME",
        help="a report option by IBM's name, e.g. MQRO_EXPIRATION_WITH_DATA "
        "or MQRO_DISCARD_MSG (repeatable; combined)",
    )
    parser.add_argument("--reply-to", type=object_name, metavar="Q", default="", help="ReplyToQ")
    parser.add_argument(
        "--reply-to-qmgr", type=object_name, metavar="QM", default="", help="ReplyToQMgr"
    )
    parser.add_argument(
        "--msg-type",
        choices=sorted(MSG_TYPES),
        default="DATAGRAM",
        type=str.upper,
        help="MsgType (default DATAGRAM)",
    )
    parser.add_argument(
        "--msg-id",
        type=hex_id("--msg-id"),
        metavar="HEX",
        help="MsgId (default: the queue manager makes a unique one)",
    )
    add_correl_id(parser)
    parser.add_argument(
        "--format",
        type=format_name,
        metavar="NAME",
        help="Format: MQSTR, MQHRF2, MQDEAD, ... or MQFMT_* names",
    )
    parser.add_argument(
        "--encoding",
        type=mqlong,
        metavar="N",
        help=f"Encoding (default {C.MQENC_NATIVE}; 273 is big-endian)",
    )
    parser.add_argument(
        "--ccsid",
        type=mqlong,
        metavar="N",
        help="CodedCharSetId (default 1208; --body text is encoded in it)",
    )
    parser.add_argument(
        "--count",
        type=positive_int,
        default=1,
        metavar="N",
        help="put N copies, each with its own MsgId, in one unit of work",
    )
    parser.set_defaults(handler=run)


def _data(args: argparse.Namespace, ccsid: int, encoding: int) -> bytes:
    if args.body is not None:
        try:
            return ccsids.encode(str(args.body), ccsid, encoding)
        except MQError as exc:  # MQRC_TARGET_CCSID_ERROR: a CCSID mqjms cannot convert to
            raise MQError(
                exc.comp,
                exc.reason,
                f"--body cannot be put in CCSID {ccsid}: {exc.detail}; "
                "put the bytes with --file instead",
            ) from None
        except UnicodeEncodeError as exc:
            raise CLIError(
                f"--body has characters CCSID {ccsid} cannot hold: "
                f"{exc.object[exc.start : exc.end]!r}"
            ) from None
    if args.file == "-":
        return _bounded(sys.stdin.buffer, "standard input")
    path = Path(args.file)
    try:
        with path.open("rb") as file:
            return _bounded(file, str(path))
    except OSError as exc:
        raise CLIError(f"cannot read {path}: {exc.strerror or exc}") from None


def _bounded(file: BinaryIO, name: str) -> bytes:
    """The bytes of ``file``, read no further than the largest message IBM MQ takes: a
    device that never ends (/dev/zero) or a huge file is refused, not read for ever."""
    data = file.read(LARGEST_MESSAGE + 1)
    if len(data) > LARGEST_MESSAGE:
        raise failed(
            C.MQRC_MSG_TOO_BIG_FOR_Q_MGR,
            f"{name} holds more than {LARGEST_MESSAGE} bytes, the largest message a queue "
            "manager's MAXMSGL allows",
        )
    return data


def run(args: argparse.Namespace) -> int:
    report = 0
    for option in args.report:
        report |= option
    encoding = C.MQENC_NATIVE if args.encoding is None else int(args.encoding)
    fmt = (
        args.format
        if args.format is not None
        else (C.MQFMT_STRING if args.body is not None else C.MQFMT_NONE)
    )
    conn = open_connection(args)
    try:
        ccsid = (
            int(args.ccsid)
            if args.ccsid is not None
            else (1208 if args.body is not None else qmgr_ccsid(conn))
        )
        data = _data(args, ccsid, encoding)
        md = MQMD(
            Report=report,
            MsgType=MSG_TYPES[args.msg_type],
            Expiry=args.expiry,
            Encoding=encoding,
            CodedCharSetId=ccsid,
            Format=fmt,
            Priority=args.priority,
            Persistence=args.persistence,
            CorrelId=args.correl_id,
            ReplyToQ=args.reply_to,
            ReplyToQMgr=args.reply_to_qmgr,
        )
        if args.msg_id is not None:
            md.MsgId = args.msg_id
        handle = conn.open(args.queue, C.MQOO_OUTPUT)
        many = args.count > 1
        ids: list[str] = []
        warnings: dict[int, MQError] = {}
        for _ in range(args.count):
            put = conn.put(handle, md, data, syncpoint=many, new_msg_id=args.msg_id is None)
            ids.append(put.MsgId.hex())
            warning = put_warning(conn)
            if warning is not None:
                warnings.setdefault(warning.reason, warning)
        if many:
            conn.commit()
        conn.close(handle)
    finally:
        conn.disconnect()
    print("\n".join(ids))
    for warning in warnings.values():  # MQCC_WARNING: the message was put all the same
        print(
            f"mqjms: warning: {warning.reason_name} ({warning.reason}): {warning.detail}",
            file=sys.stderr,
        )
    return 0
