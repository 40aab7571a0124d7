"""MQPUT and MQPUT1 on the embedded queue manager: one write transaction each, durable
exactly when the message is persistent and put outside syncpoint (under syncpoint, the
commit makes it durable)."""

from __future__ import annotations

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.md import MQMD
from mqjms.semantics.attributes import REMOTE
from mqjms.semantics.emulated import PutRequest
from mqjms.semantics.put import priority_warning, set_context

from . import catalog, queues, remote, reporting
from .failures import StorageError, translating
from .getting import NeedsDurability
from .messages import expires_at
from .transaction import Transaction
from .trigger_events import TriggerEvents

log = get_logger("mqjms.qmgr")


@translating
class Putting(TriggerEvents):
    """MQPUT and MQPUT1."""

    def _put(self, name: str, md: MQMD, data: bytes, request: PutRequest) -> MQMD:
        self._refuse_if_read_only("no message can be put")
        with self._session() as db:
            if self.qm.reserve is not None:
                self.qm.reserve.check_for_put(
                    db, len(data)
                )  # the space kept for draining is not for puts
            # A put outside syncpoint is durable when the message is persistent, which for
            # "as queue default" depends on the queue: guess from the last put; retry if wrong.
            if request.syncpoint:
                durable = False  # the commit makes it durable
            elif md.Persistence == C.MQPER_PERSISTENCE_AS_Q_DEF:
                durable = self._defpsist.get(name, True)
            else:
                durable = md.Persistence == C.MQPER_PERSISTENT

            def put() -> tuple[MQMD, float]:
                try:
                    return self._put_attempt(name, md, data, request, durable)
                except NeedsDurability:
                    return self._put_attempt(name, md, data, request, True)

            try:
                result, put_at = put()
            except StorageError as exc:
                # the log filled the disk: emptied into the database (which the reserve
                # may lend room for), it leaves room for this put and a smaller reserve
                reserve = self.qm.reserve
                if not exc.disk_full or reserve is None or not reserve.make_room(db, len(data)):
                    raise
                result, put_at = put()
            persistent = result.Persistence == C.MQPER_PERSISTENT
            if md.Persistence == C.MQPER_PERSISTENCE_AS_Q_DEF:
                self._defpsist[name] = persistent
            if request.syncpoint:
                self._uow.put(persistent, expires_at(result.Expiry, put_at))
        self._warn_if(name, result)
        return result

    def _warn_if(self, name: str, result: MQMD) -> None:
        """Keep (and log) the MQCC_WARNING the put of ``result`` completed with, if any."""
        self.last_warning = priority_warning(result)
        if self.last_warning is not None:
            log.info(
                "put.warning",
                queue=name,
                msg_id=result.MsgId.hex(),
                reason=self.last_warning.reason_name,
                detail=self.last_warning.detail,
            )

    def _put_attempt(
        self, name: str, md: MQMD, data: bytes, request: PutRequest, durable: bool
    ) -> tuple[MQMD, float]:
        """The put in one transaction: the MQMD as put, and when it was stored (its expiry
        interval starts then, seed 004)."""
        with self._writing(durable=durable, putting=True) as tx:
            result = self._put_in(tx, name, md, data, request)
            if not request.syncpoint and not durable and result.Persistence == C.MQPER_PERSISTENT:
                raise NeedsDurability
        return result, tx.now

    def _put_in(
        self, tx: Transaction, name: str, md: MQMD, data: bytes, request: PutRequest
    ) -> MQMD:
        """The put itself, inside the caller's transaction (in this connection's unit of
        work under syncpoint, else available at COMMIT); returns the MQMD as put."""
        out = md.copy()
        set_context(out, request.context, self.identity, tx.now)
        route = None
        if request.qmgr:  # ObjectQMgrName another queue manager: see remote.py
            named, base, route = remote.to_qmgr(tx, name, request.qmgr)
        else:
            named, base, qmgr_attrs = catalog.resolve_for_put(tx.db, name)
            tx.knows_qmgr_attrs(qmgr_attrs)
        if route is None and base.qtype == REMOTE:
            named, base, route = remote.definition(tx, named, base)
        uow = self.id if request.syncpoint else None
        stored = queues.put_message(
            tx,
            named,
            base,
            out,
            data,
            uow=uow,
            new_msg_id=request.new_msg_id,
            by_application=True,
            route=route,
            triggered=self._event_triggers,
        )
        if stored.Report & C.MQRO_COA_MASK and base.attrs.get("USAGE") != "XMITQ":
            # on its queue now (a transmission queue, remote queues' way, is not where it
            # arrives)
            reporting.confirm(tx, stored, data, reporting.COA, uow=uow)
        self.last_resolved = (
            (base.name, tx.qmgr_name) if route is None else (route.queue, route.qmgr)
        )
        return stored
