"""MQINQ, MQSET and MQSTAT as pymqi and ibmmq programs use them.

MQINQ answers an integer for an MQIA_* selector and, for an MQCA_* one, bytes of the
attribute's full length, blank-padded, as MQ's C interface returns them (``MQCA_Q_MGR_NAME``
is 48 bytes, ``MQCA_VERSION`` 8). The queue manager object answers the queue manager's
attributes. MQSET takes ints and text (bytes or str); MQSTAT reports the MQPMO_ASYNC_RESPONSE
puts made since it was last asked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from mqjms.mq import constants as C
from mqjms.mq.errors import failed
from mqjms.mqi.constants import CMQC, CMQCFC

from . import fields
from .hconn import AsyncPutStatus, Hconn

#: MQCA_* attribute lengths that are not 48 (MQ_Q_NAME_LENGTH, the most common).
_LENGTHS = {
    CMQC.MQCA_Q_DESC: 64,
    CMQC.MQCA_Q_MGR_DESC: 64,
    CMQC.MQCA_TOPIC_DESC: 64,
    CMQC.MQCA_TRIGGER_DATA: 64,
    CMQC.MQCA_VERSION: 8,
    CMQC.MQCA_CREATION_DATE: 12,
    CMQC.MQCA_CREATION_TIME: 8,
    CMQC.MQCA_ALTERATION_DATE: 12,
    CMQC.MQCA_ALTERATION_TIME: 8,
    # the queue manager's exits, TLS settings and installation (MQ_*_LENGTH on Linux)
    CMQC.MQCA_CHANNEL_AUTO_DEF_EXIT: 128,
    CMQC.MQCA_CLUSTER_WORKLOAD_EXIT: 128,
    CMQC.MQCA_CLUSTER_WORKLOAD_DATA: 32,
    CMQC.MQCA_CERT_LABEL: 64,
    CMQC.MQCA_SSL_KEY_REPOSITORY: 256,
    CMQC.MQCA_SSL_CRYPTO_HARDWARE: 256,
    CMQC.MQCA_INSTALLATION_DESC: 64,
    CMQC.MQCA_INSTALLATION_NAME: 16,
    CMQC.MQCA_INSTALLATION_PATH: 256,
    # status answers' strings (PCF), as long as the command server writes them
    CMQCFC.MQCACF_APPL_TAG: 28,
    CMQCFC.MQCACF_USER_IDENTIFIER: 12,
    CMQCFC.MQCACH_CHANNEL_NAME: 20,
    CMQCFC.MQCACH_CONNECTION_NAME: 264,
    CMQCFC.MQCACF_MEDIA_LOG_EXTENT_NAME: 24,
    CMQCFC.MQCACF_Q_MGR_START_DATE: 12,
    CMQCFC.MQCACF_Q_MGR_START_TIME: 8,
    # process definitions (INQUIRE_PROCESS): MQ_PROCESS_*_LENGTH
    CMQC.MQCA_PROCESS_DESC: 64,
    CMQC.MQCA_APPL_ID: 256,
    CMQC.MQCA_ENV_DATA: 128,
    CMQC.MQCA_USER_DATA: 128,
    CMQC.MQCA_CUSTOM: 128,
}


def attribute_length(selector: int) -> int:
    """The length MQINQ gives a character attribute."""
    return _LENGTHS.get(selector, 48)


def inquire(hconn: Hconn, number: int, selectors: Sequence[int]) -> dict[int, int | bytes]:
    """MQINQ on object ``number``: each selector's value, in the order asked."""
    with hconn.call() as conn:
        obj = hconn.object(number)
        if obj.handle is None:
            if not obj.options & CMQC.MQOO_INQUIRE:
                raise failed(
                    C.MQRC_NOT_OPEN_FOR_INQUIRE, "the queue manager was not opened for inquire"
                )
            found = conn.inquire_qmgr(list(selectors))
        else:
            found = conn.inquire(obj.handle, list(selectors))
    return {selector: _value(selector, found[selector]) for selector in selectors}


def _value(selector: int, value: int | str) -> int | bytes:
    if isinstance(value, str) or CMQC.MQCA_FIRST <= selector <= CMQC.MQCA_LAST:
        return fields.padded(value, attribute_length(selector))
    return value


def set_attributes(hconn: Hconn, number: int, values: Mapping[int, object]) -> None:
    """MQSET on object ``number`` (opened with MQOO_SET: 2040 otherwise)."""
    changes: dict[int, int | str] = {}
    for selector, value in values.items():
        if isinstance(value, bytes | bytearray | str):
            changes[int(selector)] = fields.text(value)
        else:
            changes[int(selector)] = int(value)  # type: ignore[call-overload]
    with hconn.call() as conn:
        obj = hconn.object(number)
        if obj.handle is None:
            raise failed(C.MQRC_NOT_OPEN_FOR_SET, "the queue manager's attributes cannot be set")
        conn.set(obj.handle, changes)


def stat(hconn: Hconn, status_type: int) -> AsyncPutStatus:
    """MQSTAT(MQSTAT_TYPE_ASYNC_ERROR): the asynchronous puts' outcome since the last ask
    (counted afresh afterwards). MQSTAT_TYPE_RECONNECTION and _RECONNECTION_ERROR: an STS
    saying nothing went wrong (a connection here never reconnects: there is no failure to
    describe). Another type: 2430 MQRC_STAT_TYPE_ERROR."""
    reconnection = (CMQC.MQSTAT_TYPE_RECONNECTION, CMQC.MQSTAT_TYPE_RECONNECTION_ERROR)
    if status_type in reconnection:
        with hconn.call():
            return AsyncPutStatus()
    if status_type != CMQC.MQSTAT_TYPE_ASYNC_ERROR:
        raise failed(CMQC.MQRC_STAT_TYPE_ERROR, f"MQSTAT type {status_type} is not valid")
    with hconn.call():
        status, hconn.async_puts = hconn.async_puts, AsyncPutStatus()
    return status
