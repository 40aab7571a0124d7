"""Hconn: one MQI connection of a pymqi or ibmmq program, over a transport connection.

The MQI verbs (:mod:`.opening`, :mod:`.getting`, :mod:`.putting`, :mod:`.inquiry`) work on
an Hconn and the structures a program passes; the flavour classes (``QueueManager``,
``Queue``) are a thin layer over them. What an Hconn adds to the transport connection:

* object handles (hobj integers, as MQOPEN returns them), with what MQ remembers of each:
  the context of the last message got (MQPMO_PASS_*_CONTEXT) and the last browsed one;
  and subscription handles (hsub integers, as MQSUB returns them: :mod:`.subscribing`);
* a lock, so that threads sharing a connection take turns (MQCNO_HANDLE_SHARE_BLOCK; a
  waiting get lets others in between the slices of its wait, and steps aside for a moment
  when some are waiting: :meth:`Hconn.others_waiting`);
* MQDISC commits, as IBM MQ does for an MQI application (the transport contract's
  ``disconnect`` backs out, as JMS does); a process that ends normally disconnects the
  connections of its live QueueManager objects (pymqi and ibmmq do it in ``__del__``);
  one that dies backs out;
* the program's unit of work as the poison flow sees it (:mod:`.screening`).
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import itertools
import os
import threading
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import mqjms.transport
from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.mq.md import MQMD
from mqjms.semantics import Connection, Handle
from mqjms.semantics.pubsub import Subscription
from mqjms.semantics.put import process_name

from . import exiting, interrupts, routing, screening
from .properties import PropertyStore

if TYPE_CHECKING:
    from .browse_marks import Mark

log = get_logger("mqjms.mqi")

_hconn_numbers = itertools.count(1)
_live: weakref.WeakSet[Hconn] = weakref.WeakSet()
_exit_registered = False
_exit_lock = threading.Lock()


#: A handle and its logical-order positions (put_group, get_group, put_segment) before
#: the unit of work moved them.
_GroupMark = tuple["Hobj", tuple[bytes, int] | None, bytes | None, tuple[bytes, int, int] | None]


@dataclass(eq=False)
class Hobj:
    """An open object: a queue (with its transport handle) or the queue manager."""

    number: int
    name: str  # the object name as opened (a dynamic queue's own name)
    options: int
    handle: Handle | None  # None for the queue manager object
    context: MQMD | None = None  # the last message got: what MQPMO_PASS_*_CONTEXT passes
    browsed: tuple[MQMD, bytes] | None = None  # MQGMO_BROWSE_MSG_UNDER_CURSOR shows it again
    created: bool = False  # its MQOPEN made the queue (from a model queue): MQCO_DELETE may
    put_group: tuple[bytes, int] | None = None  # MQPMO_LOGICAL_ORDER: GroupId, last seq
    get_group: bytes | None = None  # MQGMO_LOGICAL_ORDER: the group (or segmented
    # message) being got
    # MQPMO_LOGICAL_ORDER: the segmented message being put (GroupId, MsgSeqNumber, Offset
    # of its next segment), from its first segment until MQMF_LAST_SEGMENT
    put_segment: tuple[bytes, int, int] | None = None
    # MQGMO_MARK_BROWSE_HANDLE: the messages this handle marked (browse_marks.py)
    marks: set[Mark] = field(default_factory=set)

    @property
    def queue(self) -> Handle:
        if self.handle is None:
            raise failed(C.MQRC_HOBJ_ERROR, f"{self.name!r} is the queue manager, not a queue")
        return self.handle


@dataclass
class AsyncPutStatus:
    """MQSTAT(MQSTAT_TYPE_ASYNC_ERROR): how MQPMO_ASYNC_RESPONSE puts went since the last ask."""

    succeeded: int = 0
    warned: int = 0
    failed: int = 0
    comp: int = C.MQCC_OK
    reason: int = C.MQRC_NONE
    object_name: str = ""

    def record(self, error: MQError | None, queue: str) -> None:
        if error is None:
            self.succeeded += 1
            return
        if error.comp == C.MQCC_WARNING:
            self.warned += 1
        else:
            self.failed += 1
        if self.comp == C.MQCC_OK or error.comp > self.comp:  # the first worst one
            self.comp, self.reason, self.object_name = error.comp, error.reason, queue


class Hconn:
    """One MQI connection (see the module docstring)."""

    def __init__(self, conn: Connection, url: str, poison: str) -> None:
        self.conn = conn
        self.url = url
        self.number = next(_hconn_numbers)
        self.lock = threading.RLock()  # C: no signal handler can leave it half taken
        self._asking: collections.deque[None] = collections.deque()  # threads waiting for it
        self.objects: dict[int, Hobj] = {}
        self.subscriptions: dict[int, Subscription] = {}  # by hsub
        self._hobjs = itertools.count(101)
        self.flow = screening.flow_for(conn, poison)
        self.properties = PropertyStore()
        self.async_puts = AsyncPutStatus()
        self.commit_at_exit = True
        self.closed = False
        # each handle's logical-order group positions before the unit of work changed them
        self._group_marks: dict[int, _GroupMark] = {}
        self.pid = os.getpid()  # a forked child may not use it (its parent's unit of work)
        self.work = 0  # the program's gets and puts under syncpoint in its unit of work
        self.begun = False  # MQBEGIN began the unit of work, not yet ended
        self.doomed = ""  # why the unit of work can only be backed out ("": it can commit)
        self.callbacks: object = None  # MQCB registrations (callbacks.Delivery), once made
        self.connected_as = ""  # the queue manager name the program's MQCONN gave
        _live.add(self)

    def __repr__(self) -> str:
        return f"Hconn({self.number}, {routing.describe(self.url)!r})"

    @property
    def qmgr_name(self) -> str:
        return self.conn.qmgr_name

    def remote_qmgr(self, object_qmgr: str) -> str:
        """An MQOD's ObjectQMgrName, blank when it names this queue manager (blank, its
        name, the name the program connected with, or one :mod:`.routing` sends to the
        same URL). Another name goes to the transport, which routes it as MQ does: the
        embedded queue manager through a transmission queue, IBM MQ itself; a broker has
        no other queue manager (2087 MQRC_UNKNOWN_REMOTE_Q_MGR)."""
        name = object_qmgr.strip()
        if not name:
            return ""
        routed = routing.routes().qmgrs.get(name)
        local = (self.qmgr_name, self.connected_as, self.connected_as.lstrip("*"))
        if name in local or routed == self.url:
            return ""
        return name

    # ------------------------------------------------------------------ calls
    @contextlib.contextmanager
    def call(self) -> Iterator[Connection]:
        """One MQI call: the connection's lock, a Ctrl-C put off by a delivery, a Ctrl-C
        during the call raised once it is over (:mod:`.interrupts`), and 2018 on a
        connection that was disconnected."""
        interrupts.check_pending()
        if self.pid != os.getpid():  # before the lock, which a parent's thread may hold
            raise failed(
                C.MQRC_HCONN_ERROR,
                f"the connection belongs to process {self.pid}, which forked "
                "this one: connect in this process",
            )
        with interrupts.deferred() as noted:
            try:
                with self._taken():
                    if self.closed:
                        raise failed(C.MQRC_HCONN_ERROR, "the connection was disconnected")
                    yield self.conn
            except BaseException:
                noted.act()  # the Ctrl-C first, as the program would have seen it
                raise
            noted.act()

    @contextlib.contextmanager
    def _taken(self) -> Iterator[None]:
        """The lock, counted among :meth:`others_waiting` until this thread has it (a
        deque's append and pop are atomic; a count left wrong costs only a pause)."""
        self._asking.append(None)
        counted = True
        try:
            with self.lock:  # C: taken and let go with nothing between for a signal to break
                self._asking.pop()
                counted = False
                yield
        finally:
            if counted:  # interrupted while waiting for it
                self._asking.pop()

    def others_waiting(self) -> bool:
        """Whether other threads are waiting for the connection: a waiting get then steps
        aside between its slices, for a lock lets the thread that released it take it
        straight back (two getters waiting on an empty queue kept a third thread's puts
        out until their waits ended with 2033)."""
        return bool(self._asking)

    def add_object(self, name: str, options: int, handle: Handle | None) -> Hobj:
        obj = Hobj(next(self._hobjs), name, options, handle)
        self.objects[obj.number] = obj
        return obj

    def add_subscription(self, subscription: Subscription) -> int:
        """The hsub of a subscription made (numbered as object handles are)."""
        hsub = next(self._hobjs)
        self.subscriptions[hsub] = subscription
        return hsub

    def object(self, number: int) -> Hobj:
        found = self.objects.get(number)
        if found is None:
            raise failed(C.MQRC_HOBJ_ERROR, f"object handle {number} is not open on {self!r}")
        return found

    # ------------------------------------------------------------------ units of work
    def note_work(self) -> None:
        """The program got or put a message under syncpoint: its unit of work holds work."""
        self.work += 1
        screening.delivered(self.flow)

    def mark_groups(self, obj: Hobj) -> None:
        """A put or get in the unit of work is about to move ``obj``'s logical-order group
        position: keep the one before, which MQBACK restores (IBM's MQBACK usage notes:
        "the group and segment information ... is restored to the value that it had
        previously"); MQCMIT keeps the new one."""
        self._group_marks.setdefault(
            obj.number, (obj, obj.put_group, obj.get_group, obj.put_segment)
        )

    def _restore_groups(self) -> None:
        for obj, put_group, get_group, put_segment in self._group_marks.values():
            obj.put_group, obj.get_group, obj.put_segment = put_group, get_group, put_segment
        self._group_marks.clear()

    def doom(self, why: str) -> None:
        """The unit of work holds work that cannot be completed nor backed out alone: its
        MQCMIT backs it out (2003 MQRC_BACKED_OUT, as a queue manager that had to)."""
        self.doomed = why
        self.note_work()

    def commit(self) -> None:
        """MQCMIT (MQBACK and 2003 when the unit of work was doomed)."""
        with self.call() as conn:
            if self.doomed:
                why, self.doomed = self.doomed, ""
                conn.backout()
                self.work, self.begun = 0, False
                self._restore_groups()
                screening.backed_out(self.flow)
                raise failed(C.MQRC_BACKED_OUT, f"the unit of work was backed out: {why}")
            try:
                conn.commit()
            except MQError as exc:
                screening.backed_out(self.flow)
                if exc.reason == C.MQRC_BACKED_OUT:  # ended all the same
                    self.work, self.begun = 0, False
                    self._restore_groups()
                raise  # otherwise the unit of work is still there: MQBACK ends it
            self.work, self.begun = 0, False
            self._group_marks.clear()
            screening.committed(self.flow)

    def backout(self) -> None:
        """MQBACK: every message got in the unit of work has BackoutCount + 1, and each
        handle's logical-order group position is what it was before the unit of work."""
        with self.call() as conn:
            conn.backout()
            self.work, self.begun, self.doomed = 0, False, ""
            self._restore_groups()
            screening.backed_out(self.flow)

    def disconnect(self, *, commit: bool = True) -> None:
        """MQDISC: commits the unit of work (``commit=False``: backs it out, as a process
        that ends without MQDISC does). A second call fails with 2018."""
        with self.call() as conn:
            self.closed = True
            commit = commit and not self.doomed  # a doomed unit of work is backed out
            self.work, self.begun, self.doomed = 0, False, ""
            self._group_marks.clear()
            self.objects.clear()
            self.subscriptions.clear()
            self.properties.clear()
            try:
                conn.disconnect(commit=commit)
            except MQError:
                screening.backed_out(self.flow)
                raise
            finally:
                _live.discard(self)
            if commit:
                screening.committed(self.flow)
            else:
                screening.backed_out(self.flow)


def connect(qmgr_name: str, appl_name: str | None = None) -> Hconn:
    """MQCONN(X) to the transport :mod:`.routing` chooses for ``qmgr_name``."""
    routes = routing.routes()
    url = routes.url_for(qmgr_name)
    try:
        conn = mqjms.transport.connect(url, appl_name or process_name())
    except ValueError as exc:  # a URL it cannot use: MQ's word for a bad CONNAME
        raise failed(C.MQRC_HOST_NOT_AVAILABLE, f"{exc} (queue manager {qmgr_name!r})") from None
    _register_exit()  # after the transport's own (atexit runs the last registered first)
    hconn = Hconn(conn, url, routes.poison)
    hconn.connected_as = qmgr_name
    log.debug("mqi.connected", qmgr=qmgr_name, url=routing.describe(url), hconn=hconn.number)
    return hconn


def _register_exit() -> None:
    global _exit_registered
    with _exit_lock:
        if not _exit_registered:
            atexit.register(disconnect_all)
            _exit_registered = True


def disconnect_all() -> None:
    """At exit: MQDISC every live connection (committing, as pymqi's and ibmmq's
    ``QueueManager.__del__`` do; without ``disconnect_on_exit``, backing out)."""
    exiting.begin()
    for hconn in list(_live):
        if hconn.pid != os.getpid():
            continue  # a forked child's exit: its parent's connections are the parent's
        try:
            hconn.disconnect(commit=hconn.commit_at_exit)
        except Exception as exc:  # one connection must not keep the others open
            log.warning("mqi.disconnect_at_exit_failed", hconn=hconn.number, error=repr(exc))
