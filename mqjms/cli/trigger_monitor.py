"""``mqjms trigger-monitor [--url URL] [--initq NAME] [--wait SECONDS]``: IBM's runmqtrm.

Gets trigger messages from the initiation queue and starts the programs their process
definitions name (see :mod:`mqjms.trigger.monitor`), until SIGTERM or SIGINT.
"""

from __future__ import annotations

import argparse
import signal

from mqjms.listeners import signals
from mqjms.logs import get_logger
from mqjms.trigger.monitor import DEFAULT_INITQ, TriggerMonitor

from .common import add_url, logging_to_stderr, non_negative_float, url_of

log = get_logger("mqjms.cli")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "trigger-monitor",
        help="start the programs that trigger messages ask for (IBM's runmqtrm)",
        description="Open the initiation queue for input (itself a trigger event: queues "
        "that filled while no monitor ran are triggered now) and, for each trigger message, "
        "start the process definition's APPLICID with the MQTMC2 as its argument followed "
        "by ENVRDATA, as runmqtrm does. APPLICID('mqjms run module:app') starts a worker "
        "with this Python. Started programs run in the background, supervised: their "
        "output and exit status are logged; one runs per application queue at a time. A "
        "trigger message that is not a valid MQTM (MQFB_TM_ERROR) or whose program cannot "
        "be started (MQFB_APPL_CANNOT_BE_STARTED, MQFB_APPL_TYPE_ERROR) is reported when "
        "it asks for an exception report and put to the dead-letter queue with an MQDLH. "
        "SIGTERM or SIGINT stops the monitor: the initiation queue is closed, then started "
        "programs get SIGTERM (a second signal: SIGKILL).",
        epilog="Exit status (as runmqtrm): 0 stopped, or the queue manager is ending; 10 "
        "interrupted by an error; 20 not run (no connection or no initiation queue).",
    )
    add_url(parser)
    parser.add_argument(
        "--initq",
        "-q",
        default=DEFAULT_INITQ,
        metavar="NAME",
        help=f"the initiation queue (default {DEFAULT_INITQ})",
    )
    parser.add_argument(
        "--wait",
        type=non_negative_float,
        metavar="SECONDS",
        help="end once no trigger message has arrived for SECONDS and no started program "
        "is running (default: run until SIGTERM or SIGINT)",
    )
    parser.add_argument(
        "--stop-timeout",
        type=non_negative_float,
        default=30.0,
        metavar="SECONDS",
        help="when stopping, how long started programs get to end after SIGTERM before "
        "SIGKILL (default 30)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    with logging_to_stderr(int(getattr(args, "verbose", 0)), default=1):  # a service: INFO
        monitor = TriggerMonitor(
            url_of(args), args.initq, wait=args.wait, stop_timeout=args.stop_timeout
        )

        def on_signal(signum: int) -> None:
            name = signal.Signals(signum).name
            if monitor.stopping:  # a second signal: do not wait for started programs
                log.warning("trigger.monitor_forced_stop", signal=name)
                monitor.force_stop()
            else:
                log.info("trigger.monitor_signal", signal=name)
                monitor.request_stop()

        with signals.handled(on_signal):
            return monitor.run()
