"""``mqjms restart``: end and start the embedded queue manager (IBM MQ's endmqm + strmqm)."""

from __future__ import annotations

import argparse

from mqjms.mq import constants as C
from mqjms.mq.errors import failed
from mqjms.qmgr.files import DATABASE, MARKER
from mqjms.transport.embedded import queue_manager
from mqjms.transport.url import embedded_path, redact

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
    path, _ = embedded_path(url)
    if not (path / MARKER).exists() and not (path / DATABASE).exists():
        # strmqm of a queue manager that was never created: AMQ7048, not a new one
        raise failed(
            C.MQRC_Q_MGR_NAME_ERROR,
            f"{redact(url)}: there is no queue manager in {path} to restart; check --url "
            "(or MQJMS_URL), or create one there first (any command but restart creates it)",
        )
    qm = queue_manager(url)
    qm.restart()
    print(f"Queue manager {qm.name} restarted.")
    return 0
