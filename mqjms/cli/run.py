"""``mqjms run MODULE:APP [MQTMC2] [--url URL] [--idle-timeout SECONDS]``: run a Worker.

A worker service runs until SIGTERM or SIGINT. Started by a trigger monitor (a process
definition's ``APPLICID('mqjms run module:app')``) it receives the MQTMC2 as its first
argument after the spec, and the process's ENVRDATA after that (``--idle-timeout 30``):
it then drains the queue, stays while messages keep coming, and exits once none has
arrived for the idle timeout.
"""

from __future__ import annotations

import argparse
import contextlib
import math

from mqjms.listeners import AppLoadError, Worker, load_app
from mqjms.logs import get_logger
from mqjms.mq.errors import MQError
from mqjms.mq.tm import MQTMC2_LENGTH_2, MQTMC_STRUC_ID, parse_tmc2

from .common import EXIT_USAGE, CLIError, add_url, logging_to_stderr

log = get_logger("mqjms.cli")


def positive_seconds(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of seconds") from None
    if not number > 0 or math.isinf(number):
        raise argparse.ArgumentTypeError(f"{value!r} must be a positive number of seconds")
    return number


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "run",
        help="run a Worker service (module:app) until stopped or idle",
        description="Load the mqjms.Worker that MODULE:APP names (module:attr, or "
        "path/to/file.py:attr; attr defaults to app) and run it until SIGTERM or SIGINT (a "
        "second signal cuts the shutdown deadline short). With --idle-timeout it also "
        "exits once no message has arrived for that long: what a server started by a "
        "trigger monitor does.",
        epilog="Exit status: 0 after a clean stop, 1 when a listener could not run or the "
        "shutdown deadline backed a message out, 2 when MODULE:APP could not be loaded.",
    )
    parser.add_argument("spec", metavar="MODULE:APP", help="the Worker to run")
    parser.add_argument(
        "trigger",
        nargs="?",
        metavar="MQTMC2",
        help="the trigger message (MQTMC2, 732 characters) a trigger monitor passes: logged, "
        "and checked against the worker's queues",
    )
    add_url(parser)
    parser.add_argument(
        "--idle-timeout",
        type=positive_seconds,
        metavar="SECONDS",
        help="exit after SECONDS without a message (default: run until stopped)",
    )
    parser.add_argument(
        "--metrics-port",
        type=port_number,
        metavar="PORT",
        help="serve Prometheus metrics (/metrics) and health checks (/healthz liveness, "
        "/readyz readiness) over HTTP on PORT; metrics need pip install 'mqjms[metrics]'",
    )
    parser.add_argument(
        "--metrics-host",
        default="0.0.0.0",
        metavar="HOST",
        help="the address --metrics-port listens on (default 0.0.0.0: every interface)",
    )
    parser.add_argument(
        "--health-file",
        metavar="PATH",
        help="keep PATH while the worker is ready (rewritten every 5 s with its health as "
        "JSON, removed when not ready and at exit), for checks that read a file",
    )
    parser.add_argument(  # also after the command, as the service's other options are
        "-v",
        "--verbose",
        dest="run_verbose",
        action="count",
        default=0,
        help="log more: -v info (the default for run), -vv debug",
    )
    parser.set_defaults(handler=run)


def port_number(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a port number") from None
    if not 0 <= number <= 65535:
        raise argparse.ArgumentTypeError(f"{value!r} is not a port number (0-65535)")
    return number


def run(args: argparse.Namespace) -> int:
    verbosity = int(getattr(args, "verbose", 0)) + int(getattr(args, "run_verbose", 0))
    with logging_to_stderr(verbosity, default=1):  # a service: INFO
        try:
            app = load_app(args.spec)
        except AppLoadError as exc:
            log.error("worker.load_failed", spec=args.spec, error=str(exc))
            return EXIT_USAGE
        if args.url:
            app.url = args.url
        if args.trigger is not None:
            _log_trigger(args.trigger, sorted({lst.queue for lst in app.listeners}))
        with contextlib.ExitStack() as operations:
            _operate(app, args, operations)
            if args.idle_timeout is not None:
                from mqjms.trigger.idle import stop_when_idle

                watch = stop_when_idle(app, args.idle_timeout)
                operations.callback(watch.cancel)
            return app.run()


def _operate(app: Worker, args: argparse.Namespace, operations: contextlib.ExitStack) -> None:
    """Metrics and health checks beside the worker, stopped when it has stopped."""
    from mqjms.listeners.exporter import HealthFile, OperationsServer  # http.server: when used

    if args.metrics_port is not None:
        try:
            server = OperationsServer(app, args.metrics_port, args.metrics_host)
        except ImportError as exc:
            raise CLIError(str(exc)) from None
        except OSError as exc:
            where = f"{args.metrics_host}:{args.metrics_port}"
            raise CLIError(f"cannot listen on {where}: {exc}") from None
        server.start()
        operations.callback(server.stop)
    if args.health_file:
        try:
            health = HealthFile(app, args.health_file)
        except ValueError as exc:
            raise CLIError(f"--health-file {exc}") from None
        health.start()
        operations.callback(health.stop)


def _log_trigger(text: str, queues: list[str]) -> None:
    """Log the MQTMC2 a trigger monitor passed; warn when it names a queue not served."""
    raw = text.encode("latin-1", errors="replace")
    if not raw.startswith(MQTMC_STRUC_ID.encode()) or len(raw) < MQTMC2_LENGTH_2:
        log.warning(  # its length only: an argument given by mistake may hold a password
            "worker.trigger_not_understood",
            argument_length=len(text),
            reason=f"not an MQTMC2 ({MQTMC2_LENGTH_2} characters starting 'TMC ')",
        )
        return
    try:
        tmc = parse_tmc2(raw)
    except MQError as exc:
        log.warning("worker.trigger_not_understood", reason=exc.reason_name, detail=exc.detail)
        return
    log.info(
        "worker.triggered",
        queue=tmc.QName,
        process=tmc.ProcessName or None,
        qmgr=tmc.QMgrName,
        trigger_data=tmc.TriggerData or None,
    )
    if queues and tmc.QName not in queues:
        log.warning("worker.trigger_queue_not_served", queue=tmc.QName, listeners=queues)
