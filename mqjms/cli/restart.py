"""``mqjms restart``: end and start the embedded queue manager (IBM MQ's endmqm + strmqm)."""

from __future__ import annotations

import argparse

from mqjms.transport.embedded import queue_manager
from mqjms.transport.url import redact

from .common import CLIError, add_url, url_of


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "restart",
        help="restart the embedded queue manager (drops non-persistent messages)",
        description="End and start the embedded queue manager, as endmqm and strmqm do: "
        "non-persistent messages are dropped, units of work left behind are backed out "
        "(BackoutCount + 1) and trigger intervals reset. Refused while another process "
        "has the queue manager open. A reboot of the machine restarts it as well.",
    )
    add_url(parser, embedded_only=True)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    url = url_of(args)
    if not url.startswith("embedded:"):
        raise CLIError(f"restart is for the embedded queue manager, not {redact(url)}")
    qm = queue_manager(url)
    qm.restart()
    print(f"Queue manager {qm.name} restarted.")
    return 0
