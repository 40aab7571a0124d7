"""``mqjms mqsc [--url URL] [FILE]``: run MQSC commands as runmqsc does."""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Iterable
from pathlib import Path

from mqjms.qmgr.mqsc import CommandResult, run_script, summary
from mqjms.transport.url import redact, scheme_of

from .common import CLIError, add_url, url_of

EXIT_COMMAND_FAILED = 10  # runmqsc's status when a command failed or had a syntax error


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "mqsc",
        help="run MQSC commands (DEFINE, ALTER, DELETE, CLEAR, DISPLAY, REFRESH QMGR)",
        description="Read MQSC commands from FILE or standard input and run them on the "
        "embedded queue manager, printing what runmqsc prints: each command, "
        "its result (DISPLAY: one ATTR(value) per line), and a summary.",
        epilog="Exit status: 0 when every command worked, 10 when a command failed or had "
        "a syntax error (as runmqsc), 2 when the commands could not be run at all.",
    )
    add_url(parser, embedded_only=True)
    parser.add_argument(
        "file",
        nargs="?",
        metavar="FILE",
        help="a file of MQSC commands (default: standard input; - too)",
    )
    parser.add_argument(
        "-e",
        "--no-echo",
        action="store_true",
        help="do not echo each command before its result (runmqsc -e)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    url = url_of(args)
    if scheme_of(url) != "embedded":
        raise CLIError(
            f"mqsc administers the embedded queue manager; {redact(url)!r} is not an embedded: URL"
        )
    from mqjms.transport.embedded import queue_manager

    qm = queue_manager(url)
    if args.file in (None, "-"):
        try:  # read as it comes (an interactive session), each command run when complete
            return _run(qm.name, run_script(qm, sys.stdin), echo=not args.no_echo)
        except UnicodeDecodeError as exc:
            raise CLIError(f"standard input is not UTF-8 text: {exc.reason}") from None
    path = Path(args.file)
    try:  # whole, first: a file that cannot be read runs none of its commands
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise CLIError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise CLIError(
            f"cannot read {path}: not UTF-8 text (byte {exc.start}: {exc.reason})"
        ) from None
    # lines end at newlines only (splitlines would also split at \f, U+2028, ... in quotes)
    return _run(qm.name, run_script(qm, io.StringIO(text)), echo=not args.no_echo)


def _run(qmgr: str, results: Iterable[CommandResult], echo: bool) -> int:
    print(f"Starting MQSC for queue manager {qmgr}.\n", flush=True)
    done: list[CommandResult] = []
    for result in results:
        done.append(result)
        print("\n".join(result.render(echo=echo)), flush=True)
    print()
    print("\n".join(summary(done)))
    return 0 if all(r.ok for r in done) else EXIT_COMMAND_FAILED
