"""When a connection is lost, and how long to wait before connecting again.

A connection is lost when an MQI call fails with one of IBM's connection reasons
(broken, queue manager not available or quiescing, ...) or with an OSError from the
network. The consumer then drops it and connects again with exponential backoff and
jitter, capped, for as long as the worker runs (tenacity drives the attempts; it is
imported with the first wait, not with mqjms).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mqjms.mq import constants as C
from mqjms.mq.errors import MQError

if TYPE_CHECKING:
    import tenacity

#: MQRC reasons that mean the hconn is gone (or going): reconnect rather than retry.
CONNECTION_REASONS = frozenset(
    {
        C.MQRC_CONNECTION_BROKEN,  # 2009
        C.MQRC_HCONN_ERROR,  # 2018
        C.MQRC_Q_MGR_NOT_AVAILABLE,  # 2059
        C.MQRC_Q_MGR_QUIESCING,  # 2161
        C.MQRC_Q_MGR_STOPPING,  # 2162
        C.MQRC_CONNECTION_QUIESCING,  # 2202
        C.MQRC_CONNECTION_STOPPING,  # 2203
        C.MQRC_HOST_NOT_AVAILABLE,  # 2538
    }
)

#: Reasons a (first) connection is retried for as well: a broker that refuses the
#: credentials now may accept them later (a secret being rotated). Each attempt is logged.
RETRIED_AT_CONNECT = frozenset({C.MQRC_NOT_AUTHORIZED})  # 2035

WaitStrategy = Callable[["tenacity.RetryCallState"], float]


class _DefaultReconnectWait:
    """0.2 s doubling to 30 s, plus up to 0.2 s of jitter: tenacity's strategies, made at
    the first wait (so that importing mqjms does not import tenacity)."""

    _wait: Any = None

    def __call__(self, state: tenacity.RetryCallState) -> float:
        if self._wait is None:
            import tenacity

            self._wait = tenacity.wait_exponential(multiplier=0.2, max=30.0) + (
                tenacity.wait_random(0, 0.2)
            )
        return float(self._wait(state))

    def __repr__(self) -> str:
        return "DEFAULT_RECONNECT_WAIT(exponential 0.2 s to 30 s, + jitter up to 0.2 s)"


#: The default wait between attempts: 0.2 s doubling to 30 s, plus up to 0.2 s of jitter.
DEFAULT_RECONNECT_WAIT: WaitStrategy = _DefaultReconnectWait()


def is_connection_error(exc: BaseException) -> bool:
    """True when ``exc`` means the connection is lost (reconnect), not a failed call."""
    if isinstance(exc, MQError):
        return exc.reason in CONNECTION_REASONS
    return isinstance(exc, OSError)


def is_retried_at_connect(exc: BaseException) -> bool:
    """True when connecting again may succeed: a lost connection, or refused credentials."""
    return is_connection_error(exc) or (
        isinstance(exc, MQError) and exc.reason in RETRIED_AT_CONNECT
    )


def reason_of(exc: BaseException) -> str:
    """A short reason for logs: IBM's reason name, or the exception's repr."""
    return exc.reason_name if isinstance(exc, MQError) else repr(exc)


def call_state(attempt_number: int, exc: BaseException | None = None) -> tenacity.RetryCallState:
    """A RetryCallState for calling a tenacity wait strategy outside a Retrying loop."""
    import tenacity

    state = tenacity.RetryCallState(tenacity.Retrying(), None, (), {})
    state.attempt_number = max(1, attempt_number)
    if exc is not None:
        state.set_exception((type(exc), exc, exc.__traceback__))
    return state


def wait_seconds(
    wait: WaitStrategy, attempt_number: int, exc: BaseException | None = None
) -> float:
    """What ``wait`` says to wait before attempt ``attempt_number + 1``."""
    return max(0.0, float(wait(call_state(attempt_number, exc))))


def connect_with_retry(
    attempt: Callable[[], None],
    *,
    first: bool,
    wait: WaitStrategy,
    stopping: threading.Event,
    before_sleep: Callable[[int, float, BaseException | None], None],
) -> int | None:
    """Run ``attempt`` (connect and open) until it succeeds, waiting ``wait`` between
    tries; the attempts it took, or None when ``stopping`` was set meanwhile (a stop
    request also ends a wait). A first connection retries only a lost connection or
    refused credentials (anything else is a configuration error, raised at once); a
    reconnection retries anything. ``before_sleep(attempt, seconds, error)`` reports
    each failed try."""
    import tenacity  # here: importing mqjms does not import it

    def retry_on(exc: BaseException) -> bool:
        return not first or is_retried_at_connect(exc)

    def report(state: tenacity.RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        seconds = state.next_action.sleep if state.next_action else 0.0
        before_sleep(state.attempt_number, seconds, exc)

    def sleep(seconds: float) -> None:
        stopping.wait(seconds)  # a stop request ends the wait

    retrying = tenacity.Retrying(
        wait=wait,
        retry=tenacity.retry_if_exception(retry_on),
        stop=lambda state: stopping.is_set(),
        sleep=sleep,
        before_sleep=report,
        reraise=True,
    )
    attempts = 0
    try:
        for try_ in retrying:
            with try_:
                attempts += 1
                attempt()
    except Exception:
        if stopping.is_set():
            return None
        raise
    return attempts
