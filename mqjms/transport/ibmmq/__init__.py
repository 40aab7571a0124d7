"""The IBM MQ transport: ``mq://`` URLs on a real queue manager, through ibmmq or pymqi.

:mod:`.config` reads the URL, :mod:`.library` picks IBM's ``ibmmq`` 2.x (else ``pymqi``
1.12) and absorbs where the two differ, :mod:`.connection` maps every contract call to one
MQI verb (:mod:`.gmo` makes an MQGET's structures, :mod:`.context` a put's context option,
:mod:`.fields` checks names and reads what the libraries return, :mod:`.pubsub` publishes
and subscribes). Connecting is MQCONNX with MQCNO_RECONNECT* as the URL asks (the client
reconnects by itself) plus our own policy (tenacity) for when the queue manager is not
there yet: MQCONNX is retried with a growing pause for ``connect_timeout`` seconds while
it fails with a reason of :data:`~.connection.GONE`. Nothing is retried once connected.
"""

from __future__ import annotations

from tenacity import Retrying, retry_if_exception, stop_after_delay, wait_exponential

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError

from .config import PASSWORD_VAR, MQConfig, parse
from .connection import GONE, MQConnection
from .library import Library, load

__all__ = ["GONE", "PASSWORD_VAR", "Library", "MQConfig", "MQConnection", "connect", "parse"]

log = get_logger("mqjms.transport.ibmmq")


def connect(url: str, appl_name: str | None = None) -> MQConnection:
    """MQCONNX for an ``mq://`` URL (see :mod:`.config`)."""
    config = parse(url)
    library = load(config.library)
    options = int(getattr(library.CMQC, config.reconnect))
    if config.client:
        options |= int(library.CMQC.MQCNO_CLIENT_BINDING)

    def attempt() -> MQConnection:
        try:
            qm = library.connect(config, appl_name, options)
        except MQError:
            raise
        except Exception as exc:
            if not library.is_mq_error(exc):
                raise
            raise library.error(exc, f"MQCONNX to {config.url}") from None
        return MQConnection(library, qm, config)

    retrying = Retrying(
        stop=stop_after_delay(config.connect_timeout),
        wait=wait_exponential(multiplier=0.25, max=5.0),
        retry=retry_if_exception(_queue_manager_gone),
        reraise=True,
        before_sleep=lambda state: log.warning(
            "mq.connect_retry",
            url=config.url,
            attempt=state.attempt_number,
            reason=_reason(state.outcome.exception() if state.outcome else None),
        ),
    )
    conn = retrying(attempt)
    log.info(
        "mq.connected",
        url=config.url,
        qmgr=conn.qmgr_name,
        library=library.name,
        user=config.user or None,
    )
    return conn


def _queue_manager_gone(exc: BaseException) -> bool:
    return isinstance(exc, MQError) and exc.reason in GONE and exc.comp == C.MQCC_FAILED


def _reason(exc: BaseException | None) -> str:
    return exc.reason_name if isinstance(exc, MQError) else repr(exc)
