"""The ``mqjms`` command: one subcommand per module, registered in :data:`COMMANDS`.

Adding a subcommand is one module in this package with ``register(subparsers)`` (which
adds its parser and ``set_defaults(handler=run)``) plus one line in :data:`COMMANDS`.
A handler returns the exit status. An :class:`~mqjms.mq.errors.MQError` escaping a
handler prints ``mqjms: <reason name> (<code>): <detail>`` and exits with status 2, as
does a bad argument (argparse) or a :class:`~.common.CLIError`.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import traceback
from collections.abc import Sequence

from mqjms import __version__
from mqjms.mq.errors import MQError

from .common import EXIT_USAGE, CLIError, logging_to_stderr

# Subcommand modules, in the order ``mqjms --help`` lists them.
COMMANDS: tuple[str, ...] = (
    "demo",
    "mqsc",
    "put",
    "publish",
    "get",
    "browse",
    "restart",
    "run",
    "trigger_monitor",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mqjms",
        description="JMS-style consumers with IBM MQ semantics: administer and use queues.",
        epilog="The transport URL comes from --url, else $MQJMS_URL, else embedded:/// "
        "(the embedded queue manager in ./.mqjms).",
    )
    parser.add_argument("--version", action="version", version=f"mqjms {__version__}")
    parser.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=0,
        help="log more (-v: info, -vv: debug) to standard error",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        module = importlib.import_module(f"{__name__}.{name}")
        module.register(subparsers)
    parser.set_defaults(command_parsers=subparsers.choices)  # for their own usage errors
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``mqjms`` command line; returns the exit status."""
    try:  # Ctrl-C while the subcommands load (a service's start): 130, no traceback
        parser = build_parser()
        args, extra = parser.parse_known_args(argv)
        if extra:
            _positional_after_options(parser, args, extra)
    except SystemExit as exc:  # --help (0) or a bad argument (2)
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    with logging_to_stderr(int(args.verbose)):
        try:
            status: int = args.handler(args)
            return status
        except MQError as exc:
            print(f"mqjms: {exc.reason_name} ({exc.reason}): {exc.detail}", file=sys.stderr)
            return EXIT_USAGE
        except CLIError as exc:
            print(f"mqjms: {exc}", file=sys.stderr)
            return EXIT_USAGE
        except BrokenPipeError:
            return 1
        except KeyboardInterrupt:
            return 130
        except OSError as exc:  # a file named on the command line, a directory
            where = f": {exc.filename}" if exc.filename else ""
            print(f"mqjms: {exc.strerror or exc}{where}", file=sys.stderr)
            return 1
        except Exception as exc:  # a bug of ours: one line, the traceback with -v
            print(
                f"mqjms: unexpected error: {type(exc).__name__}: {exc}"
                + ("" if args.verbose else " (run with -v to see where)"),
                file=sys.stderr,
            )
            if args.verbose:
                traceback.print_exc()
            return 1


def _positional_after_options(
    parser: argparse.ArgumentParser, args: argparse.Namespace, extra: list[str]
) -> None:
    """Arguments the command's parser left: a trigger message after ``run``'s options (a
    trigger monitor appends it to an APPLICID that may end with options: ``mqjms run
    svc:app --idle-timeout 5``) fills its slot; anything else is an error in the
    command's own usage."""
    lone = extra[0] if len(extra) == 1 and not extra[0].startswith("-") else None
    if args.command == "run" and args.trigger is None and lone is not None:
        args.trigger = lone
        return
    command: argparse.ArgumentParser = args.command_parsers.get(args.command, parser)
    command.error(f"unrecognized arguments: {' '.join(extra)}")


__all__ = ["COMMANDS", "build_parser", "main"]
