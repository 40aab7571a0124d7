"""Helpers for the Spark tests: queues on either transport, putting and counting."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from mqjms.mq import constants as C
from mqjms.mq.md import MQMD
from mqjms.transport import Browse, Connection, connect

REPO = Path(__file__).resolve().parents[2]


class Queues:
    """A transport under test: its URL, queue definitions and a connection to look."""

    def __init__(self, transport: str, tmp_path: Path) -> None:
        self.transport = transport
        if transport == "embedded":
            from mqjms.transport import embedded

            self.url = f"embedded://{tmp_path / 'qm'}"
            self._qm = embedded.queue_manager(self.url)
            self._broker: Any = None
        else:
            stomp_dir = str(REPO / "tests" / "stomp")
            if stomp_dir not in sys.path:
                sys.path.insert(0, stomp_dir)
            from activemq_support import BrokerUnavailable, StompBroker

            try:
                self._broker = StompBroker(strict=False)
            except BrokerUnavailable as exc:
                if os.environ.get("CI"):
                    pytest.fail(f"ActiveMQ is needed in CI: {exc}")
                pytest.skip(f"ActiveMQ cannot be installed here: {exc}")
            self.url = self._broker.url
        self.conn: Connection = connect(self.url)

    def define(self, name: str, **attrs: object) -> None:
        if self._broker is None:
            self._qm.define_queue("QLOCAL", name, attrs, replace=True)
        else:
            self._broker.define_queue(name, **attrs)

    def put_text(self, queue: str, *texts: str) -> list[bytes]:
        ids = []
        for text in texts:
            md = self.conn.put(queue, MQMD(Format=C.MQFMT_STRING, Persistence=1), text.encode())
            ids.append(md.MsgId)
        return ids

    def browse(self, queue: str) -> list[tuple[MQMD, bytes]]:
        handle = self.conn.open(queue, C.MQOO_BROWSE)
        out, cursor = [], Browse.FIRST
        while (got := self.conn.get(handle, browse=cursor)) is not None:
            out.append(got)
            cursor = Browse.NEXT
        self.conn.close(handle)
        return out

    def drain(self, queue: str) -> list[tuple[MQMD, bytes]]:
        handle = self.conn.open(queue, C.MQOO_INPUT_SHARED)
        out = []
        while (got := self.conn.get(handle, wait=0.3)) is not None:
            out.append(got)
        self.conn.close(handle)
        return out

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.disconnect()
        if self._broker is not None:
            self._broker.close()
