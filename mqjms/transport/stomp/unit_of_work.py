"""Units of work over STOMP transactions, and BackoutCount kept in the message.

MQCMIT is a COMMIT (with the ACKs of the messages got, sent lazily). MQBACK is an ABORT,
then one new transaction that ACKs every message got in the unit of work and SENDs a copy
of each to its queue with ``mqjms_backout_count`` + 1: atomic, durable, and the count
lives in the message as BackoutCount does on MQ. A message the broker redelivers (its
consumer died) has its count raised the same way before anyone gets it under syncpoint
(:meth:`UnitOfWork._requeue_copy`), so a crash loop ends at BOTHRESH exactly as on MQ.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import failed

from . import release
from .client import BrokerError, ConnectionLost, Frame
from .state import StompState, locked

log = get_logger("mqjms.transport.stomp")


class UnitOfWork(StompState):
    """MQCMIT and MQBACK of one connection, and the copies that carry BackoutCount."""

    @locked
    def commit(self) -> None:
        """MQCMIT: the transaction's ACKs and SENDs become permanent together."""
        self._check_open()
        if self._broken:
            self._broken = False
            self._end_uow()
            raise failed(
                C.MQRC_BACKED_OUT,
                "the unit of work was backed out when the connection was lost",
            )
        if not self.in_unit_of_work:
            return
        try:
            if self._client.lost:
                raise ConnectionLost("lost before commit")
            pending = [got for got in self._gets if not got.acked]
            begin = self._tx is None
            tx = self._tx or self._client.new_id("tx")
            self._tx = tx
            self._client.commit_acks(tx, [got.frame.ack_id for got in pending], begin=begin)
            for got in pending:
                got.acked = True
            self._tx = None
        except ConnectionLost:
            self._end_uow()
            self._recover()
            self._broken = False
            raise failed(
                C.MQRC_BACKED_OUT,
                "the connection was lost at commit: the unit of work was backed out "
                "(or, if the broker had committed it already, is complete)",
            ) from None
        except BrokerError as exc:
            pending_tx = self._tx
            self._end_uow()
            if pending_tx is not None:
                self._quietly_abort(pending_tx)
            raise failed(C.MQRC_BACKED_OUT, f"the broker refused the commit: {exc}") from None
        self._end_uow()

    @locked
    def backout(self) -> None:
        """MQBACK: puts vanish; every message got comes back with BackoutCount + 1."""
        self._check_open()
        if self._broken:
            self._broken = False
            self._end_uow()
            return
        if not self.in_unit_of_work:
            return
        gets = list(self._gets)
        try:
            if self._client.lost:
                raise ConnectionLost("lost before backout")
            if self._tx is not None:
                self._client.abort(self._tx)
                self._tx = None
            if gets:
                self._requeue_copies([(g.frame, g.count + 1) for g in gets])
        except ConnectionLost:
            # The broker rolled everything back and redelivers the messages marked
            # redelivered: their count is raised when they are got again.
            self._end_uow()
            self._recover()
            self._broken = False
            return
        except BrokerError as exc:
            self._end_uow()
            raise failed(
                C.MQRC_UNEXPECTED_ERROR, f"the broker refused the backout: {exc}"
            ) from None
        self._end_uow()
        log.debug("uow.backed_out", messages=len(gets))

    def _end_uow(self) -> None:
        self._window_opened = time.monotonic()
        self._tx = None
        self._gets.clear()
        self._puts = 0
        self._uow_puts.clear()
        deferred, self._deferred_unsubscribe = self._deferred_unsubscribe, []
        for sub in deferred:
            with contextlib.suppress(ConnectionLost, BrokerError):
                self._unsubscribe(sub)
        for state in self._handles.values():
            extras, state.overflow = state.overflow, []
            state.overflow_selector.clear()
            for extra in extras:
                with contextlib.suppress(ConnectionLost, BrokerError):
                    self._unsubscribe(extra)
            for selector in list(state.match_subs):
                try:
                    self._close_match_sub(state, selector)
                except (ConnectionLost, BrokerError):
                    state.match_subs.pop(selector, None)

    def _quietly_abort(self, tx: str) -> None:
        with contextlib.suppress(ConnectionLost, BrokerError):
            self._client.abort(tx)

    def _begin(self) -> str:
        if self._tx is None:
            tx = self._client.new_id("tx")
            self._client.begin(tx)
            self._tx = tx
        return self._tx

    def _requeue_copy(self, frame: Frame, count: int, *, reason: str) -> None:
        self._requeue_copies([(frame, count)])
        log.info(
            "message.backout_count_raised",
            reason=reason,
            destination=frame.headers.get("destination"),
            backout_count=count,
        )

    def _requeue_copies(self, items: Sequence[tuple[Frame, int]]) -> None:
        """In one transaction of its own: ACK each message and SEND a copy of it to its
        queue carrying ``count`` as the BackoutCount."""
        client = self._client
        tx = client.new_id("tx")
        client.begin(tx)
        try:
            for frame, count in items:
                headers, body = release.copy_of(frame, count, self.prefix, self.params)
                client.ack(frame.ack_id, transaction=tx)
                client.send(frame.headers.get("destination", ""), headers, body, transaction=tx)
            client.commit(tx)
        except BrokerError:
            self._quietly_abort(tx)
            raise
        self._window_opened = time.monotonic()
