"""The source's options, checked once, and where its staging lives.

=========================  ====================================================================
option                     meaning
=========================  ====================================================================
``url``                    transport URL (default ``MQJMS_URL``, else ``embedded:///``)
``queue``                  the queue to read (required)
``staging``                staging directory; required unless the transport can reserve
                           (embedded: default ``<queue manager dir>/spark/<consumer>``). Put it
                           beside the query's checkpoint, on storage every executor reaches
``consumer``               the query's name in staging and reservations (default
                           ``spark:<queue>``); two queries on one queue need two names
                           (a running query holds its consumer: :mod:`.exclusive`)
``maxMessagesPerBatch``    at most this many messages per micro-batch (default 50000: Spark's
                           fixed cost per batch, ~0.15-0.25 s on ``local[2]``, dominates
                           smaller ones)
``numPartitions``          tasks per micro-batch (default 2)
``includeRaw``             add ``mqmd`` and ``raw`` columns (``mqjms.spark.run`` uses them)
=========================  ====================================================================
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mqjms.logs import get_logger
from mqjms.transport import Connection, connect
from mqjms.transport.registry import transport_for
from mqjms.transport.url import embedded_path, redact, resolve_url, scheme_of

from .reserved import ReservedStaging, can_reserve
from .staging import LogStaging, Staging

DEFAULT_MAX_BATCH = 50_000
DEFAULT_PARTITIONS = 2

_task_connections = threading.local()
log = get_logger("mqjms.spark")


#: The source's options, as Spark hands them over (lower case); others are warned of.
KNOWN = frozenset(
    {"url", "queue", "consumer", "staging", "maxmessagesperbatch", "numpartitions", "includeraw"}
)


def _flag(value: object, name: str = "includeRaw") -> bool:
    text = str(value).strip().lower()
    if text in ("true", "1", "yes", "on"):
        return True
    if text in ("false", "0", "no", "off", ""):
        return False
    raise ValueError(f"option {name} must be true or false, not {value!r}")


def include_raw(options: Mapping[str, Any]) -> bool:
    """The ``includeRaw`` option (any case of its name), read one way for the schema and
    for the readers."""
    found = next((v for k, v in options.items() if str(k).lower() == "includeraw"), "false")
    return _flag(found)


def _positive(options: Mapping[str, Any], name: str, default: int) -> int:
    raw = options.get(name)
    if raw is None or str(raw).strip() == "":
        return default
    try:
        value = int(str(raw))
    except ValueError:
        raise ValueError(f"option {name}={raw!r} must be a whole number") from None
    if value < 1:
        raise ValueError(f"option {name}={raw!r} must be at least 1")
    return value


def safe_name(text: str) -> str:
    """A file name for ``text`` (a consumer or queue name)."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", text)


@dataclass(frozen=True)
class SourceOptions:
    url: str
    queue: str
    owner: str
    staging: str | None
    max_batch: int
    partitions: int
    include_raw: bool

    @classmethod
    def parse(cls, options: Mapping[str, Any], *, streaming: bool) -> SourceOptions:
        opts = {str(k).lower(): v for k, v in options.items()}
        unknown = sorted(set(opts) - KNOWN - {"path"})
        if unknown:  # a misspelt option would be silently without effect
            log.warning(
                "spark.options_unknown", options=unknown, known=sorted(KNOWN), effect="ignored"
            )
        queue = str(opts.get("queue") or "").strip()
        if not queue:
            raise ValueError('the mqjms source needs a queue: .option("queue", "ORDERS.IN")')
        url = resolve_url(opts.get("url"))
        transport_for(url)  # a URL of no transport is a clear error now, not in a task
        return cls(
            url=url,
            queue=queue,
            owner=str(opts.get("consumer") or f"spark:{queue}"),
            staging=opts.get("staging") or None,
            max_batch=_positive(opts, "maxmessagesperbatch", DEFAULT_MAX_BATCH),
            partitions=_positive(opts, "numpartitions", DEFAULT_PARTITIONS),
            include_raw=include_raw(opts),
        )

    def __repr__(self) -> str:
        return f"SourceOptions(url={redact(self.url)!r}, queue={self.queue!r})"

    @property
    def reserves(self) -> bool:
        return scheme_of(self.url) == "embedded"

    def staging_dir(self) -> Path:
        if self.staging:
            return Path(self.staging)
        if scheme_of(self.url) == "embedded":
            path, _ = embedded_path(self.url)
            return path / "spark" / safe_name(self.owner)
        raise ValueError(
            f"the mqjms source on {redact(self.url)} needs a staging directory beside the "
            'query\'s checkpoint: .option("staging", checkpoint + "/staging")'
        )

    def open_staging(self, conn: Connection) -> Staging:
        """The runner's staging: a reservation when ``conn`` can reserve, else a log."""
        directory = self.staging_dir()
        if can_reserve(conn):
            return ReservedStaging(directory, self.owner, self.queue, conn)
        return LogStaging(directory, self.owner, self.queue)

    def open_staging_for_read(self) -> tuple[Staging, Connection | None]:
        """A task's staging, to read ranges: reservations through a connection kept for
        the worker process, else the log file."""
        directory = self.staging_dir()
        if self.reserves:
            conns: dict[str, Connection] = getattr(_task_connections, "by_url", {})
            _task_connections.by_url = conns
            conn = conns.get(self.url)
            if conn is None:
                conn = conns[self.url] = connect(self.url, "mqjms-spark-task")
            if can_reserve(conn):
                return ReservedStaging(directory, self.owner, self.queue, conn), conn
        return LogStaging(directory, self.owner, self.queue), None
