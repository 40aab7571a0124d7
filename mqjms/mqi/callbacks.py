"""MQCB and MQCTL: asynchronous consumption as ibmmq programs use it.

``queue.cb(operation=MQOP_REGISTER, cbd=cbd, md=md, gmo=gmo)`` registers a consumer
function for a queue; ``qmgr.ctl(MQOP_START, ctlo)`` starts delivery on a thread of the
connection's own (``MQOP_START_WAIT``: in the calling thread, until a callback stops it),
``MQOP_STOP`` ends it; ``MQOP_SUSPEND`` pauses it (returning once no callback runs and no
get is under way) until ``MQOP_RESUME``. While delivery is started and not suspended, an
MQGET from outside the callbacks is 2500 MQRC_HCONN_ASYNC_ACTIVE. The function is called
as ibmmq calls it, with keyword arguments ``queue_manager, queue, md, gmo, msg, cbc``:
CallType MQCBCT_MSG_REMOVED with a message, MQCBCT_EVENT_CALL with Reason 2033 when the
consumer's WaitInterval passes without one; MQCBCT_REGISTER_CALL, START_CALL,
STOP_CALL and DEREGISTER_CALL (no message) when its MQCBD's Options ask for them. The
gets are the drop-in's own (:mod:`.getting`), so poison messages are screened as for a
listener: moved outside any unit of work of the delivery.
"""

from __future__ import annotations

import copy
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.mqi.constants import CMQC

from . import getting
from .hconn import Hconn

log = get_logger("mqjms.mqi")

_IDLE_WAIT_MS = 1000  # a consumer registered without MQGMO_WAIT polls this often
_SLICE_MS = 500  # the longest get of the delivery thread: a suspend waits at most this


@dataclass
class Consumer:
    """One registration: the function, its areas, and the MQMD/MQGMO to get with."""

    function: Any
    area: Any
    kind: int
    qmgr: Any
    queue: Any
    number: int | None
    md: Any
    gmo: Any
    suspended: bool = False
    options: int = 0  # the MQCBD's Options: which MQCBCT_*_CALL calls it wants


@dataclass
class Delivery:
    """A connection's registrations and its delivery thread."""

    consumers: dict[int | None, Consumer] = field(default_factory=dict)
    connection_area: Any = None
    thread: threading.Thread | None = None
    stop: threading.Event = field(default_factory=threading.Event)
    suspended: bool = False  # MQCTL MQOP_SUSPEND
    busy: threading.RLock = field(default_factory=threading.RLock)  # held by a get + callback

    def refuses_calls(self) -> bool:
        """Whether an MQI call from this thread meets a started, unsuspended delivery on
        another thread (2500 MQRC_HCONN_ASYNC_ACTIVE)."""
        thread = self.thread
        return (
            thread is not None
            and thread.is_alive()
            and thread is not threading.current_thread()
            and not self.suspended
            and not self.stop.is_set()
        )


_lock = threading.Lock()


def _delivery(hconn: Hconn) -> Delivery:
    with _lock:
        if not isinstance(hconn.callbacks, Delivery):
            hconn.callbacks = Delivery()
        return hconn.callbacks


def register(
    qmgr: Any, queue: Any, hconn: Hconn, kwargs: dict[str, Any], number: int | None = None
) -> None:
    """MQCB: register, deregister, suspend or resume a callback."""
    operation = int(kwargs.get("operation", CMQC.MQOP_REGISTER))
    delivery = _delivery(hconn)
    if operation & CMQC.MQOP_DEREGISTER:
        gone = delivery.consumers.pop(number, None)
        if gone is not None:
            _control_call(gone, delivery, CMQC.MQCBDO_DEREGISTER_CALL)
        return
    if operation & (CMQC.MQOP_SUSPEND | CMQC.MQOP_RESUME):
        found = delivery.consumers.get(number)
        if found is None:
            raise failed(
                CMQC.MQRC_CALLBACK_NOT_REGISTERED, "no callback is registered for the object"
            )
        found.suspended = bool(operation & CMQC.MQOP_SUSPEND)
        return
    cbd = kwargs.get("cbd")
    function = getattr(cbd, "CallbackFunction", None)
    if not callable(function):
        raise failed(CMQC.MQRC_CBD_ERROR, "cbd.CallbackFunction must be a function")
    flavour = qmgr.FLAVOUR
    md, gmo = kwargs.get("md"), kwargs.get("gmo")
    if flavour.strict_types:  # ibmmq checks them at MQCB
        if md is not None and not isinstance(md, flavour.structures.MD):
            raise TypeError("md must be an instance of MD")
        if gmo is not None and not isinstance(gmo, flavour.structures.GMO):
            raise TypeError("gmo must be an instance of GMO")
    consumer = delivery.consumers[number] = Consumer(
        function=function,
        area=getattr(cbd, "CallbackArea", None),
        kind=int(getattr(cbd, "CallbackType", CMQC.MQCBT_MESSAGE_CONSUMER)),
        qmgr=qmgr,
        queue=queue,
        number=number,
        md=md or flavour.structure("MD"),
        gmo=gmo or flavour.structure("GMO"),
        options=int(getattr(cbd, "Options", CMQC.MQCBDO_NONE) or 0),
    )
    _control_call(consumer, delivery, CMQC.MQCBDO_REGISTER_CALL)


def control(hconn: Hconn, operation: int, ctlo: Any) -> None:
    """MQCTL: start (on a thread, or waiting in this one), stop, suspend or resume."""
    delivery = _delivery(hconn)
    delivery.connection_area = getattr(ctlo, "ConnectionArea", None)
    if operation == CMQC.MQOP_START:
        delivery.suspended = False
        if delivery.thread is None or not delivery.thread.is_alive():
            delivery.stop.clear()
            delivery.thread = threading.Thread(
                target=_deliver,
                args=(hconn, delivery),
                name=f"mqjms-mqcb-{hconn.number}",
                daemon=True,
            )
            delivery.thread.start()
    elif operation == CMQC.MQOP_START_WAIT:
        delivery.stop.clear()
        delivery.suspended = False
        delivery.thread = threading.current_thread()
        try:
            _deliver(hconn, delivery, until_suspended=True)
        finally:
            delivery.thread = None
        active = [c for c in delivery.consumers.values() if c.number is not None]
        if delivery.suspended or all(consumer.suspended for consumer in active):
            # nothing in this thread could resume it (IBM's MQRC_CONNECTION_SUSPENDED)
            raise MQError(
                C.MQCC_WARNING,
                CMQC.MQRC_CONNECTION_SUSPENDED,
                "MQCTL MQOP_START_WAIT returned: delivery was suspended, or no consumer is "
                "registered and not suspended",
            )
    elif operation == CMQC.MQOP_STOP:
        delivery.stop.set()
        thread = delivery.thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(getting.WAIT_SLICE * 3)  # its get ends within a slice
    elif operation == CMQC.MQOP_SUSPEND:
        delivery.suspended = True
        with delivery.busy:  # the get or callback under way ends first (its own thread: now)
            pass
    elif operation == CMQC.MQOP_RESUME:
        delivery.suspended = False
    else:
        raise failed(CMQC.MQRC_OPERATION_ERROR, f"MQCTL operation {operation} is not valid")


def _deliver(hconn: Hconn, delivery: Delivery, *, until_suspended: bool = False) -> None:
    """The delivery loop, between the consumers' MQCBCT_START_CALL and MQCBCT_STOP_CALL
    (those whose MQCBD asked for them)."""
    for consumer in list(delivery.consumers.values()):
        _control_call(consumer, delivery, CMQC.MQCBDO_START_CALL)
    try:
        _deliver_messages(hconn, delivery, until_suspended=until_suspended)
    finally:
        if delivery.stop.is_set():
            for consumer in list(delivery.consumers.values()):
                _control_call(consumer, delivery, CMQC.MQCBDO_STOP_CALL)


def _deliver_messages(hconn: Hconn, delivery: Delivery, *, until_suspended: bool) -> None:
    """Each message consumer gets in turn until stopped (or, for MQOP_START_WAIT,
    suspended)."""
    while not delivery.stop.is_set() and not hconn.closed:
        consumers = [c for c in delivery.consumers.values() if c.number is not None]
        if until_suspended and (
            delivery.suspended or all(consumer.suspended for consumer in consumers)
        ):
            return  # IBM: suspended, or every consumer deregistered or suspended
        if not consumers or delivery.suspended:
            delivery.stop.wait(0.05 if delivery.suspended else 0.1)
            continue
        for consumer in consumers:
            if delivery.stop.is_set() or hconn.closed:
                return
            with delivery.busy:
                if delivery.suspended:
                    break
                if not consumer.suspended:
                    _consume_one(hconn, delivery, consumer, len(consumers))


def _consume_one(hconn: Hconn, delivery: Delivery, consumer: Consumer, count: int) -> None:
    md = copy.copy(consumer.md)
    gmo = copy.copy(consumer.gmo)
    if not gmo.Options & CMQC.MQGMO_WAIT:
        gmo.Options |= CMQC.MQGMO_WAIT
        gmo.WaitInterval = _IDLE_WAIT_MS
    elif count > 1 and gmo.WaitInterval == CMQC.MQWI_UNLIMITED:
        gmo.WaitInterval = _IDLE_WAIT_MS  # other consumers need their turn
    assert consumer.number is not None
    wanted = gmo.WaitInterval
    deadline = None if wanted == CMQC.MQWI_UNLIMITED else time.monotonic() + wanted / 1000
    while True:
        # in slices, so that a suspend or stop is not kept waiting by a long wait
        left = _SLICE_MS if deadline is None else int((deadline - time.monotonic()) * 1000)
        # an invalid WaitInterval goes to the get as it is: 2090 for the callback
        gmo.WaitInterval = max(0, min(_SLICE_MS, left)) if wanted >= -1 else wanted
        try:
            message = getting.get(hconn, consumer.number, md, gmo, None)
        except MQError as exc:
            if hconn.closed or delivery.stop.is_set():
                return
            if exc.reason == C.MQRC_NO_MSG_AVAILABLE and (
                deadline is None or time.monotonic() < deadline
            ):
                if delivery.suspended or consumer.suspended:
                    return
                continue  # the consumer's wait is not over
            gmo.WaitInterval = wanted
            _call(consumer, delivery, CMQC.MQCBCT_EVENT_CALL, md, gmo, None, exc)
            if exc.reason != C.MQRC_NO_MSG_AVAILABLE:
                delivery.stop.wait(1.0)  # a failing queue: do not spin
            return
        gmo.WaitInterval = wanted
        _call(consumer, delivery, CMQC.MQCBCT_MSG_REMOVED, md, gmo, message, None)
        return


_CONTROL_CALLS = {
    CMQC.MQCBDO_REGISTER_CALL: CMQC.MQCBCT_REGISTER_CALL,
    CMQC.MQCBDO_DEREGISTER_CALL: CMQC.MQCBCT_DEREGISTER_CALL,
    CMQC.MQCBDO_START_CALL: CMQC.MQCBCT_START_CALL,
    CMQC.MQCBDO_STOP_CALL: CMQC.MQCBCT_STOP_CALL,
}


def _control_call(consumer: Consumer, delivery: Delivery, option: int) -> None:
    """The call an MQCBD option asks for (MQCBDO_REGISTER_CALL: MQCBCT_REGISTER_CALL...),
    with no message, when the consumer asked for it."""
    if consumer.options & option:
        flavour = consumer.qmgr.FLAVOUR  # fresh structures, as ibmmq passes without a message
        md, gmo = flavour.structure("MD"), flavour.structure("GMO")
        _call(consumer, delivery, _CONTROL_CALLS[option], md, gmo, None, None)


def _call(
    consumer: Consumer,
    delivery: Delivery,
    call_type: int,
    md: Any,
    gmo: Any,
    message: bytes | None,
    error: MQError | None,
) -> None:
    cbc = consumer.qmgr.FLAVOUR.structure("CBC")
    cbc.CallType = call_type
    cbc.Hobj = consumer.number or 0
    cbc.CallbackArea = consumer.area
    cbc.ConnectionArea = delivery.connection_area
    cbc.CompCode = error.comp if error is not None else C.MQCC_OK
    cbc.Reason = error.reason if error is not None else C.MQRC_NONE
    cbc.DataLength = len(message) if message is not None else 0
    cbc.BufferLength = cbc.DataLength
    try:
        consumer.function(
            queue_manager=consumer.qmgr,
            queue=consumer.queue,
            md=md,
            gmo=gmo,
            msg=message,
            cbc=cbc,
        )
    except Exception as exc:  # a failing callback must not end delivery to the others
        log.error("mqcb.callback_failed", error=repr(exc), exc_info=exc)
