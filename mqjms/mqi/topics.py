"""Topic and Subscription: publish/subscribe as pymqi and ibmmq programs use it.

``Topic(qmgr, topic_name=, topic_string=)`` is an MQOD of ObjectType MQOT_TOPIC (version
4, ObjectString set with ``set_vs``); ``open(open_opts=MQOO_OUTPUT)`` or the first
``pub`` opens it (:mod:`.opening`: the transport's ``open_topic``) and ``pub`` (alias
``put``) is an MQPUT to its handle: one copy to every matching subscription, in the
program's unit of work under MQPMO_SYNCPOINT. ``Topic.sub`` subscribes to it.

``Subscription(qmgr).sub(sub_desc=sd, sub_queue=...)`` is MQSUB (:mod:`.subscribing`):
MQSO_CREATE / MQSO_RESUME / MQSO_DURABLE / MQSO_MANAGED as the MQSD says, or, without
an MQSD, a managed non-durable subscription to the given topic. ``get`` reads
``sub_queue``, the managed queue (or the program's own), through the same MQGET as a
Queue's, seed 002 included. ``close(sub_close_options=MQCO_REMOVE_SUB)`` ends a durable
subscription; MQCO_NONE / MQCO_KEEP_SUB keep it, to be resumed (MQSO_RESUME with its
SubName) by this or a later program. Closing the hsub closes the managed queue with it.

The transport must declare publish/subscribe (the embedded queue manager and STOMP do);
else MQSUB and MQOPEN of a topic answer MQRC_FUNCTION_NOT_SUPPORTED (2298).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any, ClassVar

from mqjms.mqi.constants import CMQC

from . import opening, putting, subscribing
from .flavour import Flavour
from .hconn import Hconn
from .qmgr import QueueManager
from .queue import Queue, common_q_args, message_bytes, rfh2_headers


def as_bytes(value: str | bytes | None) -> bytes | None:
    return value.encode("utf-8") if isinstance(value, str) else value


def object_name(topic_name: bytes | None, topic_string: bytes | None) -> str:
    """How both libraries name a topic or subscription object: name/string."""
    parts = [p.decode("utf-8", "replace") for p in (topic_name, topic_string) if p]
    return "/".join(parts)


class Topic:
    """An MQ topic of a QueueManager (pymqi's and ibmmq's ``Topic``)."""

    FLAVOUR: ClassVar[Flavour]
    SUBSCRIPTION: ClassVar[type[Subscription]]

    def __init__(
        self,
        queue_manager: QueueManager,
        topic_name: str | bytes | None = None,
        topic_string: str | bytes | None = None,
        topic_desc: Any = None,
        open_opts: int | None = None,
    ) -> None:
        self._qmgr = queue_manager
        self._number: int | None = None
        self._open_opts = open_opts
        self.topic_name = as_bytes(topic_name)
        self.topic_string = as_bytes(topic_string)
        if topic_desc is not None:
            self._check_desc(topic_desc)
            self._topic_desc = topic_desc
        else:
            self._topic_desc = self._create_desc()
        if self._open_opts:
            self._real_open()

    def __del__(self) -> None:
        if getattr(self, "_number", None) is not None:
            with contextlib.suppress(Exception):
                self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__module__}.Topic {self.get_name()!r}>"

    def _check_desc(self, od: Any) -> None:
        if od["ObjectType"] != CMQC.MQOT_TOPIC:
            raise self.FLAVOUR.PYIFError("The Topic Descriptor ObjectType is not MQOT_TOPIC.")
        if od["Version"] < CMQC.MQOD_VERSION_4:
            raise self.FLAVOUR.PYIFError(
                "The Topic Descriptor Version must be at least MQOD_VERSION_4."
            )

    def _create_desc(self) -> Any:
        od = self.FLAVOUR.structure("OD", ObjectType=CMQC.MQOT_TOPIC, Version=CMQC.MQOD_VERSION_4)
        if self.topic_name:
            od["ObjectName"] = self.topic_name
        if self.topic_string:
            od.set_vs("ObjectString", self.topic_string, 0, 0, 0)
        return od

    @contextlib.contextmanager
    def _call(self) -> Iterator[Hconn]:
        with self._qmgr._call() as connection:
            yield connection

    def _real_open(self) -> None:
        if self._topic_desc is None:
            raise self.FLAVOUR.PYIFError("The Topic Descriptor has not been set.")
        with self._call() as connection:
            self._number = opening.open_object(
                connection, self._topic_desc, int(self._open_opts or 0)
            )

    def open(
        self,
        topic_name: str | bytes | None = None,
        topic_string: str | bytes | None = None,
        topic_desc: Any = None,
        open_opts: int | None = None,
    ) -> None:
        """MQOPEN now when ``open_opts`` are given, else at the first ``pub``."""
        if self._number is not None:
            raise self.FLAVOUR.PYIFError("The Topic is already open.")
        if topic_name:
            self.topic_name = as_bytes(topic_name)
        if topic_string:
            self.topic_string = as_bytes(topic_string)
        self._topic_desc = topic_desc if topic_desc is not None else self._create_desc()
        if open_opts:
            self._open_opts = open_opts
            self._real_open()

    def pub(self, msg: Any, *opts: Any) -> None:
        """MQPUT to the topic (opened for MQOO_OUTPUT first if it is not open):
        publishes ``msg``; ``md`` and ``pmo`` (optional) are updated in place."""
        md, pmo = common_q_args(self.FLAVOUR, *opts)
        data = message_bytes(self._qmgr, msg, md)
        if pmo is None:
            pmo = self.FLAVOUR.structure("PMO")
        if self._number is None:
            self._open_opts = CMQC.MQOO_OUTPUT
            self._real_open()
        assert self._number is not None
        with self._call() as connection:
            putting.put(connection, self._number, md, pmo, data)

    put = pub

    def pub_rfh2(self, msg: Any, *opts: Any) -> None:
        """Publish ``msg`` behind the RFH2 headers listed in ``opts[2]``."""
        headers = rfh2_headers(opts)
        if headers is None:
            self.pub(msg, *opts[0:2])
            return
        body = msg.encode(self._qmgr.bytes_encoding) if isinstance(msg, str) else msg
        self.pub(headers + body, *opts[0:2])

    put_rfh2 = pub_rfh2

    def sub(self, *opts: Any) -> Subscription:
        """MQSUB to this topic: ``sub(sub_desc=None, sub_queue=None)``."""
        sub_desc = opts[0] if opts else None
        sub_queue = opts[1] if len(opts) > 1 else None
        subscription = self.SUBSCRIPTION(self._qmgr)
        subscription.sub(
            sub_desc=sub_desc,
            sub_queue=sub_queue,
            topic_name=self.topic_name,
            topic_string=self.topic_string,
        )
        return subscription

    def close(self, options: int = CMQC.MQCO_NONE) -> None:
        """MQCLOSE of the topic. PYIFError when not open."""
        if self._number is None:
            raise self.FLAVOUR.PYIFError("Topic not open.")
        with self._call() as connection:
            opening.close_object(connection, self._number, options)
        self._number = self._topic_desc = self._open_opts = None

    def get_handle(self) -> int | None:
        return self._number

    def get_queue_manager(self) -> QueueManager:
        return self._qmgr

    def get_name(self) -> str:
        return object_name(self.topic_name, self.topic_string)


class Subscription:
    """A subscription to a topic (pymqi's and ibmmq's ``Subscription``)."""

    FLAVOUR: ClassVar[Flavour]
    QUEUE: ClassVar[type[Queue]]

    def __init__(
        self,
        queue_manager: QueueManager,
        sub_desc: Any = None,
        sub_name: str | bytes | None = None,
        sub_queue: Any = None,
        sub_opts: int | None = None,
        topic_name: str | bytes | None = None,
        topic_string: str | bytes | None = None,
    ) -> None:
        self._qmgr = queue_manager
        self._hsub: int | None = None
        self._managed = False
        self._sub_desc = sub_desc
        self.sub_queue: Any = sub_queue
        self.sub_name = as_bytes(sub_name)
        self.sub_opts = sub_opts
        self.topic_name = as_bytes(topic_name)
        self.topic_string = as_bytes(topic_string)
        if sub_desc:
            self.sub(sub_desc=sub_desc, sub_queue=sub_queue)

    def __del__(self) -> None:
        if getattr(self, "_hsub", None) is not None:
            with contextlib.suppress(Exception):
                self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__module__}.Subscription {self.get_name()!r}>"

    def _create_desc(self) -> Any:
        sd = self.FLAVOUR.structure("SD")
        sd["Options"] = self.sub_opts or (
            CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_MANAGED
        )
        if self.sub_name:
            sd.set_vs("SubName", self.sub_name)
        if self.topic_name:
            sd["ObjectName"] = self.topic_name
        if self.topic_string:
            sd.set_vs("ObjectString", self.topic_string)
        return sd

    def sub(
        self,
        sub_desc: Any = None,
        sub_queue: Any = None,
        sub_name: str | bytes | None = None,
        sub_opts: int | None = None,
        topic_name: str | bytes | None = None,
        topic_string: str | bytes | None = None,
    ) -> None:
        """MQSUB: create, resume or alter the subscription ``sub_desc`` (an SD) describes
        (or, without one, a managed non-durable one to the topic given). ``sub_queue``:
        a Queue (or its handle) the publications go to, for a subscription that is not
        MQSO_MANAGED."""
        if topic_name:
            self.topic_name = as_bytes(topic_name)
        if topic_string:
            self.topic_string = as_bytes(topic_string)
        if sub_name:
            self.sub_name = as_bytes(sub_name)
        if sub_opts:
            self.sub_opts = sub_opts
        if sub_desc:
            if not isinstance(sub_desc, self.FLAVOUR.structures.SD):
                raise TypeError("sub_desc must be a SD(sub descriptor) object.")
        else:
            sub_desc = self._create_desc()
        provided = sub_queue if isinstance(sub_queue, Queue) else None
        queue_number = CMQC.MQHO_NONE
        if provided is not None:
            queue_number = provided.get_handle() or CMQC.MQHO_NONE
        elif isinstance(sub_queue, int):
            queue_number = sub_queue
        with self._qmgr._call() as connection:
            number, hsub = subscribing.subscribe(connection, sub_desc, queue_number)
        self._sub_desc = sub_desc
        self._hsub = hsub
        self._managed = number != queue_number
        if provided is not None:
            self.sub_queue = provided  # the program's own Queue: one owner of its handle
        else:
            self.sub_queue = self.QUEUE(self._qmgr)
            self.sub_queue.set_handle(number)

    def _queue(self) -> Queue:
        if not isinstance(self.sub_queue, Queue):
            raise self.FLAVOUR.PYIFError("Subscription not open.")
        return self.sub_queue

    def get(self, max_length: int | None = None, *opts: Any) -> bytes:
        """MQGET of a publication from the subscription's queue (as ``Queue.get``)."""
        return self._queue().get(max_length, *opts)

    def get_rfh2(self, max_length: int | None = None, *opts: Any) -> bytes:
        """MQGET of a publication, its RFH2 chain split off (as ``Queue.get_rfh2``)."""
        return self._queue().get_rfh2(max_length, *opts)

    def get_no_jms(self, max_length: int | None = None, *opts: Any) -> bytes:
        return self._queue().get_no_jms(max_length, *opts)

    get_no_rfh2 = get_no_jms

    def close(
        self,
        sub_close_options: int = CMQC.MQCO_NONE,
        close_sub_queue: bool = False,
        close_sub_queue_options: int = CMQC.MQCO_NONE,
    ) -> None:
        """MQCLOSE of the subscription: MQCO_REMOVE_SUB ends a durable one, MQCO_NONE
        or MQCO_KEEP_SUB keep it. A managed queue is closed with it; a provided one
        when ``close_sub_queue`` says so."""
        if self._hsub is None:
            raise self.FLAVOUR.PYIFError("Subscription not open.")
        queue = self._queue()
        number = queue.get_handle() or CMQC.MQHO_NONE
        with self._qmgr._call() as connection:
            subscribing.close_subscription(connection, self._hsub, number, sub_close_options)
        self._hsub = self._sub_desc = None
        if self._managed:
            queue.set_handle(None)  # closed with the subscription
        elif close_sub_queue:
            queue.close(close_sub_queue_options)

    def subrq(self, sub_action: int = CMQC.MQSR_ACTION_PUBLICATION, sro: Any = None) -> None:
        """MQSUBRQ: the retained publications the subscription matches are sent to its
        queue again, marked MQIsRetained; ``sro.NumPubs`` says how many. None
        (MQRC_NO_RETAINED_MSG 2437, NumPubs 0) fails, as it does on a transport that
        keeps none (STOMP)."""
        if sro is not None and not isinstance(sro, self.FLAVOUR.structures.SRO):
            raise TypeError("sro must be an SRO(sub request options) object.")
        if self._hsub is None:
            raise self.FLAVOUR.MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_HOBJ_ERROR)
        sent = 0
        try:
            with self._qmgr._call() as connection:
                sent = subscribing.request_publications(connection, self._hsub, sub_action)
        finally:
            if sro is not None:
                sro["NumPubs"] = sent

    def get_handle(self) -> int | None:
        """The hsub."""
        return self._hsub

    def get_queue_manager(self) -> QueueManager:
        return self._qmgr

    def get_sub_queue(self) -> Any:
        return self.sub_queue

    def get_name(self) -> str:
        return object_name(self.topic_name, self.topic_string)
