"""The queue manager's SQLite database: schema, pragmas and write transactions.

One directory holds one queue manager in ``qmgr.db`` (WAL mode, so readers never block
the writer and several processes can share it). Every MQI operation that changes
something is one short SQLite write transaction, and a browse one read transaction (so
it needs no write lock, and works on a full disk or a read-only copy); a unit of work is
*logical* (rows marked with the connection's id), so no SQLite transaction is ever held
while an application runs. Writers take turns and share fsyncs (:mod:`.commits`: group
commit). No ``sqlite3`` exception leaves this module's transactions:
each becomes a :class:`~mqjms.qmgr.failures.StorageError`.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from urllib.request import pathname2url

from mqjms.mq import constants as C

from . import commits, failures, mdstore

# 2: the delivery-order indexes hold available messages only; 3: one delivery-order index;
# 4: large bodies out of their rows (BODIES); 5: CURDEPTH leaves out uncommitted gets
# (DEPTH_TRIGGERS); 6: the queue statistics of RESET QSTATS (qstats.py)
SCHEMA_VERSION = 6

# Message states. A message got under syncpoint stays on its queue, invisible to others,
# until the unit of work commits (row deleted) or backs out (state back to AVAILABLE).
# Every state but AVAILABLE has ``uow`` set (the connection's id, or a reservation's).
AVAILABLE = 0
GOT_IN_UOW = 1
PUT_IN_UOW = 2
# Set aside for a consumer until it releases them (see reservations.py): skipped by gets
# and browses, kept across restarts.
RESERVED = 3
# Locked by a handle's browse (MQGMO_LOCK, see locking.py): skipped by every other handle,
# available again when the lock ends; ``uow`` is the connection's id.
LOCKED = 4

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS queues (
    name TEXT PRIMARY KEY,
    qtype TEXT NOT NULL,
    attrs TEXT NOT NULL,          -- JSON: MQSC attribute name -> value
    depth INTEGER NOT NULL DEFAULT 0,
    deftype TEXT,                 -- NULL (predefined), TEMPDYN or PERMDYN
    owner TEXT,                   -- connection id that created a TEMPDYN queue
    created TEXT NOT NULL,
    altered TEXT NOT NULL,
    enq INTEGER NOT NULL DEFAULT 0,       -- RESET QSTATS (qstats.py): puts since the reset,
    deq INTEGER NOT NULL DEFAULT 0,       -- gets,
    hidepth INTEGER NOT NULL DEFAULT 0,   -- the highest CURDEPTH,
    reset_at REAL NOT NULL DEFAULT 0      -- and when (0: since the queue was made)
);
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY,       -- arrival order (always above every id on the queue)
    queue TEXT NOT NULL,
    priority INTEGER NOT NULL,
    state INTEGER NOT NULL,
    uow TEXT,
    persistent INTEGER NOT NULL,
    expires REAL,                 -- epoch seconds; NULL = MQEI_UNLIMITED
    msg_id BLOB NOT NULL,
    correl_id BLOB NOT NULL,
    backout INTEGER NOT NULL DEFAULT 0,
    md BLOB NOT NULL,             -- MQMD as put, packed in the native encoding
    data BLOB NOT NULL,
    release_on_backout INTEGER NOT NULL DEFAULT 0  -- a FIRST/DEPTH trigger message (seed 003)
);
-- delivery order: DELIVERY_INDEXES below
CREATE INDEX IF NOT EXISTS messages_msg_id ON messages(msg_id);
-- most messages have no CorrelId: index only those that do (queries add the same term)
CREATE INDEX IF NOT EXISTS messages_correl_id ON messages(correl_id)
    WHERE correl_id != zeroblob(24);
CREATE INDEX IF NOT EXISTS messages_uow ON messages(uow) WHERE uow IS NOT NULL;
CREATE INDEX IF NOT EXISTS messages_expires ON messages(expires) WHERE expires IS NOT NULL;
CREATE TABLE IF NOT EXISTS processes (
    name TEXT PRIMARY KEY,
    attrs TEXT NOT NULL,          -- JSON: APPLTYPE, APPLICID, ENVRDATA, USERDATA, DESCR
    created TEXT NOT NULL,
    altered TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS trigger_times (
    queue TEXT PRIMARY KEY,       -- when the last trigger message was written (TRIGINT)
    last REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS connections (
    id TEXT PRIMARY KEY,
    pid INTEGER NOT NULL,
    appl TEXT NOT NULL,
    started REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS handles (
    hobj INTEGER PRIMARY KEY AUTOINCREMENT,
    conn TEXT NOT NULL,
    queue TEXT NOT NULL,
    options INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS handles_conn ON handles(conn);
CREATE INDEX IF NOT EXISTS handles_queue ON handles(queue);
"""


# CURDEPTH as IBM MQ keeps it (CurrentQDepth): "incremented during an MQPUT call, and
# during backout of an MQGET call; decremented during a nonbrowse MQGET call, and during
# backout of an MQPUT call", so it counts uncommitted puts and not uncommitted gets. A
# message got in a unit of work (GOT_IN_UOW) has left the count; its commit deletes it
# without counting it again, its backout brings it back. Schema 5 (before: a got message
# counted until its commit). The same updates of the queue's row keep the statistics of
# RESET QSTATS (schema 6, :mod:`.qstats`), at no extra statement: every message inserted is
# enqueued (a backed-out put stays counted); a got one dequeued when it leaves CURDEPTH (a
# backed-out get stays counted; a put backed out is not a get); the high depth follows
# CURDEPTH up. Removals that are not gets (expiry, CLEAR) are taken back by qstats.uncount.
DEPTH_TRIGGERS = f"""
CREATE TRIGGER IF NOT EXISTS depth_up AFTER INSERT ON messages BEGIN
    UPDATE queues SET depth = depth + 1, enq = enq + 1, hidepth = MAX(hidepth, depth + 1)
        WHERE name = NEW.queue;
END;
CREATE TRIGGER IF NOT EXISTS depth_down AFTER DELETE ON messages
    WHEN OLD.state != {GOT_IN_UOW} BEGIN
    UPDATE queues SET depth = depth - 1, deq = deq + (OLD.state != {PUT_IN_UOW})
        WHERE name = OLD.queue;
END;
CREATE TRIGGER IF NOT EXISTS depth_got AFTER UPDATE OF state ON messages
    WHEN (OLD.state = {GOT_IN_UOW}) != (NEW.state = {GOT_IN_UOW}) BEGIN
    UPDATE queues SET depth = depth + (CASE WHEN NEW.state = {GOT_IN_UOW} THEN -1 ELSE 1 END),
        deq = deq + (NEW.state = {GOT_IN_UOW}),
        hidepth = MAX(hidepth, depth + (NEW.state != {GOT_IN_UOW}))
        WHERE name = NEW.queue;
END;
"""

#: The statistics columns a database made before schema 6 lacks (ALTER TABLE's defaults
#: must be constants: a queue's reset_at 0 is set at the upgrade).
STATS_COLUMNS = ("enq", "deq", "hidepth", "reset_at")

# the depth of every queue counted from its rows, as DEPTH_TRIGGERS keep it
RECOUNT_DEPTHS = (
    "UPDATE queues SET depth ="
    " (SELECT COUNT(*) FROM messages m INDEXED BY messages_priority"
    f" WHERE m.queue = queues.name AND m.state = {AVAILABLE})"
    " + (SELECT COUNT(*) FROM messages m INDEXED BY messages_uow"
    f" WHERE m.uow IS NOT NULL AND m.queue = queues.name AND m.state != {GOT_IN_UOW})"
)


# The bodies longer than messages.INLINE_LIMIT, by their message's row id (the row's own
# ``data`` is then empty): a message's state, unit of work and BackoutCount change while
# it waits, and SQLite rewrites a whole row, body included, on each such change. A body
# goes with its row, however the row is deleted.
BODIES = """
CREATE TABLE IF NOT EXISTS bodies (
    id INTEGER PRIMARY KEY,       -- messages.id
    data BLOB NOT NULL
);
CREATE TRIGGER IF NOT EXISTS bodies_gone AFTER DELETE ON messages BEGIN
    DELETE FROM bodies WHERE id = OLD.id;
END;
"""


# Publish/subscribe (topics.py, subscriptions.py): TOPIC objects, subscriptions, and the
# connections holding each subscription open (their hsubs). Created in a database made
# before pub/sub existed by ensure_pubsub().
PUBSUB_SCHEMA = """
CREATE TABLE IF NOT EXISTS topics (
    name TEXT PRIMARY KEY,
    topicstr TEXT NOT NULL UNIQUE,
    attrs TEXT NOT NULL,          -- JSON: MQSC attribute name -> value (ASPARENT kept)
    created TEXT NOT NULL,
    altered TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS subscriptions (
    name TEXT PRIMARY KEY,        -- SUBNAME (the SUBID in hex for an unnamed one)
    subid BLOB NOT NULL,
    topicstr TEXT NOT NULL,       -- the full topic string, wildcards included
    topicobj TEXT NOT NULL,       -- the TOPIC object it was made through, '' for none
    durable INTEGER NOT NULL,
    shared INTEGER NOT NULL,
    managed INTEGER NOT NULL,     -- DESTCLAS(MANAGED): dest was made from a model queue
    dest TEXT NOT NULL,           -- the queue publications are put to
    subtype TEXT NOT NULL,        -- API or ADMIN
    userdata TEXT NOT NULL,
    correl_id BLOB NOT NULL,      -- the CorrelId publications carry (DESTCORL)
    keep_correl_id INTEGER NOT NULL,  -- 1: publications keep the publisher's CorrelId
    pub_priority INTEGER NOT NULL,
    created TEXT NOT NULL,
    altered TEXT NOT NULL,
    wschema TEXT NOT NULL DEFAULT 'TOPIC',  -- CHAR: character-based wildcards (MQSO_WILDCARD_CHAR)
    selector TEXT NOT NULL DEFAULT ''  -- SELECTOR: a JMS message selector (SelectionString)
);
CREATE TABLE IF NOT EXISTS subscribers (
    hsub INTEGER PRIMARY KEY AUTOINCREMENT,
    conn TEXT NOT NULL,
    sub TEXT NOT NULL,
    origin TEXT NOT NULL DEFAULT '',  -- whose own publications these are (conn, or JMS's)
    no_local INTEGER NOT NULL DEFAULT 0  -- 1: not sent its origin's publications (noLocal)
);
CREATE INDEX IF NOT EXISTS subscribers_conn ON subscribers(conn);
CREATE INDEX IF NOT EXISTS subscribers_sub ON subscribers(sub);
CREATE INDEX IF NOT EXISTS subscribers_origin ON subscribers(origin);  -- each publish asks
"""


# The delivery order holds the available messages only, so a get or browse seeks straight
# to the first one, whatever number of messages are locked in units of work, reserved or
# uncommitted (each was stepped over, one by one, by every get); a query must say
# ``state = 0`` literally for SQLite to use it. Locking a message takes it out. One index
# serves both MSGDLVSQ orders (see delivery.py): a second one cost every put and get its
# pages. The messages in flight (state != 0, which is exactly when ``uow`` is set) are found
# through messages_uow: by unit of work (commit, backout), and, for the per-queue questions
# that are rare or stop at the first match (trigger conditions, CLEAR, DELETE), by a scan
# of the messages in flight.
DELIVERY_INDEXES = """
CREATE INDEX IF NOT EXISTS messages_priority ON messages(queue, priority DESC, id)
    WHERE state = 0;
"""


class Database(sqlite3.Connection):
    """A connection that remembers its file, so that errors can name it, and the group
    commit it takes part in (:mod:`.commits`): the write gate it takes turns through, the
    shared fsync its durable commits wait for, and whether its open transaction needs it."""

    synchronous: str = ""
    file: Path = Path("qmgr.db")
    read_only: bool = False
    gate: commits.WriteGate | None = None
    group_sync: commits.GroupSync | None = None
    directory: Path | None = None  # the queue manager's (resolved once), for its bells
    commits_key: Path | None = None  # what commits.release() lets go of at close
    writing: bool = False  # a write transaction of begin_write is open
    durable: bool = False  # ... and its commit waits for an fsync
    bodies_apart: bool = False  # large bodies go to BODIES (see prepare)
    queue_stats: bool = False  # the depth triggers keep RESET QSTATS's counts (see prepare)
    substatus_present: bool = False  # the substatus table was seen (it is never dropped)

    def close(self) -> None:
        super().close()
        key, self.commits_key = self.commits_key, None
        if key is not None:
            commits.release(key)  # the last connection closes the shared files


def _uri(path: Path, **params: str) -> str:
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return f"file:{pathname2url(str(path.resolve()))}?{query}"


_directories: dict[str, Path] = {}


def _directory(db_file: Path) -> Path:
    """The directory of ``db_file`` (resolved), as one Path object per directory shared by
    its connections: the bells and the owners' watch are found by it on every commit, and
    a dict finds the very object at once, where an equal one is compared part by part."""
    parent = db_file.parent
    return _directories.setdefault(str(parent), parent)


def connect_db(path: Path, *, read_only: bool = False, create: bool = True) -> Database:
    """Open the database with the settings every mqjms process must share.

    ``create=False`` never makes a new file (an existing queue manager's database must
    not be re-created empty). ``read_only`` opens a database on a read-only file system
    or a copy without write permission: readers need the ``-shm`` file, or, when the log
    is empty, none at all (``immutable``). SQLite errors are raised untranslated.
    """
    try:
        return _connect(path, read_only=read_only, create=create)
    except sqlite3.OperationalError as exc:
        wal = path.with_name(path.name + "-wal")
        log_empty = not wal.exists() or wal.stat().st_size == 0
        # no -shm and no way to make one (a read-only mount: CANTOPEN; a directory this user
        # may only read: READONLY_DIRECTORY)
        refused = failures.primary_error(exc) in ("SQLITE_CANTOPEN", "SQLITE_READONLY")
        if not read_only or not refused or not log_empty:
            raise
    db = sqlite3.connect(
        _uri(path, mode="ro", immutable="1"),
        uri=True,
        isolation_level=None,
        check_same_thread=False,
        factory=Database,
    )
    db.file, db.read_only = path, True
    _add_functions(db)
    db.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone()
    return db


def _connect(path: Path, *, read_only: bool, create: bool) -> Database:
    mode = "ro" if read_only else ("rwc" if create else "rw")
    db = sqlite3.connect(
        _uri(path, mode=mode),
        uri=True,
        timeout=30.0,
        isolation_level=None,
        check_same_thread=False,
        factory=Database,
    )
    db.file, db.read_only = path, read_only
    _add_functions(db)
    try:
        if read_only:
            db.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone()
        else:
            if create:
                # before the first write to a new file, or never (an existing file keeps
                # its setting): lets a full disk have the pages drained messages left free
                # given back to it (space.shrink), where they would stay in qmgr.db for good
                db.execute("PRAGMA auto_vacuum=INCREMENTAL")
            db.execute("PRAGMA journal_mode=WAL")
            # commits reach the log without an fsync; durable ones then wait for a shared
            # one (commits.GroupSync): what synchronous=FULL does, one fsync per group
            db.execute("PRAGMA synchronous=NORMAL")
            db.synchronous = "NORMAL"
            db.commits_key, db.gate, db.group_sync = commits.retain(path)
            db.directory = _directory(db.commits_key)
        db.execute("PRAGMA foreign_keys=OFF")
        db.execute("PRAGMA busy_timeout=30000")
    except BaseException:
        db.close()
        raise
    return db


def _add_functions(db: sqlite3.Connection) -> None:
    """The SQL functions queries use: ``mq_group_id(md)`` (see mdstore.py)."""
    db.create_function("mq_group_id", 1, mdstore.group_id, deterministic=True)


def has_schema(db: sqlite3.Connection) -> bool:
    """True when the database holds a queue manager (its ``meta`` table names one)."""
    if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'meta'").fetchone():
        return False
    return db.execute("SELECT 1 FROM meta WHERE key = 'qmgr_name'").fetchone() is not None


def create_schema(db: sqlite3.Connection) -> None:
    db.executescript(SCHEMA + DEPTH_TRIGGERS + BODIES + DELIVERY_INDEXES + PUBSUB_SCHEMA)


def stored_version(db: sqlite3.Connection) -> int:
    """The schema version the database says it has (1 when it does not say)."""
    row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    try:
        return int(row[0]) if row is not None else 1
    except (TypeError, ValueError):
        return 1


def check_version(db: sqlite3.Connection) -> int:
    """The database's schema version; a database of a newer mqjms is refused
    (MQRC_OBJECT_LEVEL_INCOMPATIBLE): this one would misread what it added."""
    version = stored_version(db)
    if version > SCHEMA_VERSION:
        raise failures.StorageError(
            C.MQRC_OBJECT_LEVEL_INCOMPATIBLE,
            f"{_file(db)} was written by a newer mqjms (schema {version}; this one knows up "
            f"to {SCHEMA_VERSION}): upgrade mqjms to use this queue manager",
            "SCHEMA_TOO_NEW",
        )
    return version


def prepare(db: sqlite3.Connection) -> None:
    """Ready a connection for this version (after any :func:`upgrade`): a database of a
    newer mqjms is refused; large bodies go apart (``db.bodies_apart``) only where the
    database has BODIES. One without (older, and not upgraded: read-only, or open in
    other processes, which may be older versions that read every body from its row)
    keeps them in their rows, and this connection reads an empty temporary ``bodies``."""
    check_version(db)
    apart = (
        db.execute("SELECT 1 FROM sqlite_master WHERE name = 'bodies_gone'").fetchone() is not None
    )
    if not apart:
        db.execute(
            "CREATE TEMP TABLE IF NOT EXISTS bodies (id INTEGER PRIMARY KEY, data BLOB NOT NULL)"
        )
    stats = (
        db.execute(
            "SELECT 1 FROM sqlite_master WHERE name = 'depth_up' AND sql LIKE '%enq = enq%'"
        ).fetchone()
        is not None
    )
    if isinstance(db, Database):
        db.bodies_apart = apart
        db.queue_stats = stats


def upgrade(db: sqlite3.Connection) -> bool:
    """Bring a database an older mqjms made to this schema (version 1: delivery-order
    indexes over every message; 2: a second one for FIFO queues; 3: no ``bodies``; 4: a
    message got in a unit of work still counted in CURDEPTH); True when it changed. Run at
    open, under the start-up lock, by a process that has the queue manager to itself: the
    other processes may be older versions, which would not read what it changes. A
    database of a newer mqjms is refused (:func:`check_version`)."""
    version = check_version(db)
    indexes = dict(
        db.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index'"
            " AND name IN ('messages_fifo', 'messages_priority')"
        ).fetchall()
    )
    partial = "WHERE" in str(indexes.get("messages_priority", "")).upper()
    bodies = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'bodies_gone'").fetchone()
    if partial and "messages_fifo" not in indexes and bodies and version == SCHEMA_VERSION:
        return False
    with write(db) as tx:
        tx.execute("DROP INDEX IF EXISTS messages_fifo")
        if not partial:
            tx.execute("DROP INDEX IF EXISTS messages_priority")
            _run_each(tx, DELIVERY_INDEXES)
        _run_each(tx, BODIES)  # the rows of an older one keep their bodies: still read
        if version < 6:  # 5: CURDEPTH without the uncommitted gets; 6: queue statistics
            have = {row[1] for row in tx.execute("PRAGMA table_info(queues)")}
            for column in STATS_COLUMNS:
                if column not in have:
                    kind = "REAL" if column == "reset_at" else "INTEGER"
                    tx.execute(f"ALTER TABLE queues ADD COLUMN {column} {kind} NOT NULL DEFAULT 0")
            for trigger in ("depth_up", "depth_down", "depth_got"):
                tx.execute(f"DROP TRIGGER IF EXISTS {trigger}")
            _run_each(tx, DEPTH_TRIGGERS)
            if version < 5:
                tx.execute(RECOUNT_DEPTHS)
            tx.execute("UPDATE queues SET hidepth = depth, reset_at = ?", (time.time(),))
        tx.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION),))
    return True


def _run_each(db: sqlite3.Connection, script: str) -> None:
    """The statements of ``script`` in the caller's transaction (executescript would commit
    it first); a trigger's body keeps its own semicolons."""
    statement = ""
    for line in script.strip().splitlines(keepends=True):
        statement += line
        if sqlite3.complete_statement(statement):
            db.execute(statement)
            statement = ""


def ensure_pubsub(db: sqlite3.Connection) -> bool:
    """Add the publish/subscribe tables to a database made without them (inside the
    caller's write transaction: statement by statement, as executescript would commit it);
    True if added."""
    if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'subscribers'").fetchone():
        if not _has_column(db, "subscribers", "no_local"):  # before publications' origins
            db.execute("ALTER TABLE subscribers ADD COLUMN origin TEXT NOT NULL DEFAULT ''")
            db.execute("ALTER TABLE subscribers ADD COLUMN no_local INTEGER NOT NULL DEFAULT 0")
        if not _has_column(db, "subscriptions", "wschema"):  # before MQSO_WILDCARD_CHAR
            db.execute("ALTER TABLE subscriptions ADD COLUMN wschema TEXT NOT NULL DEFAULT 'TOPIC'")
        if not _has_column(db, "subscriptions", "selector"):  # before selectors
            db.execute("ALTER TABLE subscriptions ADD COLUMN selector TEXT NOT NULL DEFAULT ''")
        db.execute(_ORIGIN_INDEX)  # before publications asked by origin through an index
        return False
    _run_each(db, PUBSUB_SCHEMA)
    return True


def pubsub_current(db: sqlite3.Connection) -> bool:
    """Whether the pub/sub tables are as :func:`ensure_pubsub` makes them."""
    return (
        _has_column(db, "subscribers", "no_local")
        and _has_column(db, "subscriptions", "selector")
        and db.execute("SELECT 1 FROM sqlite_master WHERE name = 'subscribers_origin'").fetchone()
        is not None
    )


_ORIGIN_INDEX = "CREATE INDEX IF NOT EXISTS subscribers_origin ON subscribers(origin)"


def _has_column(db: sqlite3.Connection, table: str, column: str) -> bool:
    return any(row[1] == column for row in db.execute(f"PRAGMA table_info({table})"))


def _file(db: sqlite3.Connection) -> Path:
    return getattr(db, "file", Path("qmgr.db"))


def _rollback(db: sqlite3.Connection) -> None:
    """Roll back what is left: SQLite may already have rolled the transaction back (a full
    disk at commit does), and a failed rollback must not hide the error that caused it."""
    if db.in_transaction:
        with suppress(sqlite3.Error):
            db.execute("ROLLBACK")


def begin_write(db: sqlite3.Connection, durable: bool = True, *, putting: bool = False) -> None:
    """BEGIN IMMEDIATE, with the fsync setting for its commit (see :func:`write`): through
    the connection's write gate when it has one (its durable commit then waits for the
    group's fsync in :func:`end`), else with ``synchronous`` set for this transaction."""
    gate = getattr(db, "gate", None)
    if isinstance(db, Database) and gate is not None:
        gate.acquire()
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            gate.release()
            raise failures.translate(exc, _file(db), putting=putting) from exc
        except BaseException:
            gate.release()
            raise
        db.writing, db.durable = True, durable
        return
    try:
        mode = "FULL" if durable else "NORMAL"
        if getattr(db, "synchronous", None) != mode:
            # set before BEGIN: the setting has no effect on a transaction already open
            db.execute(f"PRAGMA synchronous={mode}")
            if isinstance(db, Database):
                db.synchronous = mode
        db.execute("BEGIN IMMEDIATE")
    except sqlite3.Error as exc:
        raise failures.translate(exc, _file(db), putting=putting) from exc


def begin_read(db: sqlite3.Connection) -> None:
    try:
        db.execute("BEGIN")
    except sqlite3.Error as exc:
        raise failures.translate(exc, _file(db)) from exc


def end(
    db: sqlite3.Connection,
    failure: BaseException | None,
    *,
    putting: bool = False,
    committed: Callable[[], None] | None = None,
) -> None:
    """End the transaction :func:`begin_write` or :func:`begin_read` began: COMMIT when
    its body ended without ``failure``, otherwise roll back. A SQLite failure, the body's
    or the commit's, is raised as a StorageError; any other failure is left to the caller
    to re-raise. A durable write returns once its commit is on disk; ``committed`` runs
    after the COMMIT, before the wait for the disk (waking the readers of what it wrote:
    they see it then anyway)."""
    gated = isinstance(db, Database) and db.writing
    if not gated:
        _end(db, failure, putting=putting)
        if failure is None and committed is not None:
            _after_commit(committed)
        return
    assert isinstance(db, Database) and db.gate is not None and db.group_sync is not None
    db.writing = False
    ticket = 0
    try:
        _end(db, failure, putting=putting)
        if failure is None and db.durable:
            ticket = db.group_sync.ticket()  # counted in commit order: the gate is held
    finally:
        db.gate.release()  # the next writer goes on while this one waits for the disk
    if failure is None and committed is not None:
        _after_commit(committed)
    if ticket:
        try:
            db.group_sync.sync(ticket)
        except failures.StorageError:
            raise  # the fsync's own: unsynced
        except Exception as exc:  # e.g. the sync lock refused (ENOLCK): committed all the same
            raise failures.StorageError(
                C.MQRC_RESOURCE_PROBLEM,
                f"{_file(db)}: committed, but not synced to disk ({exc!r})",
                failures.UNSYNCED,
            ) from exc


def _after_commit(wake: Callable[[], None]) -> None:
    """Wake the waiting gets after a COMMIT. A failure to (a bell's socket refused) is no
    failure of the transaction, which is done: the gets poll as a fallback."""
    try:
        wake()
    except Exception as exc:
        failures.log.warning("qmgr.wake_failed", error=repr(exc))


def _end(db: sqlite3.Connection, failure: BaseException | None, *, putting: bool) -> None:
    if failure is None:
        try:
            db.execute("COMMIT")
            return
        except sqlite3.Error as exc:
            failure = exc
    _rollback(db)
    if isinstance(failure, sqlite3.Error):
        raise failures.translate(failure, _file(db), putting=putting) from failure


@contextmanager
def write(
    db: sqlite3.Connection, durable: bool = True, *, putting: bool = False
) -> Iterator[sqlite3.Connection]:
    """One write transaction (BEGIN IMMEDIATE), committed on success, rolled back on error.

    ``durable=False`` skips the fsync at commit: for changes whose loss on power failure
    is harmless (non-persistent messages, a get's lock that a later durable commit
    covers). WAL keeps the database consistent either way. Every SQLite failure leaves
    as a :class:`~mqjms.qmgr.failures.StorageError` naming the file; ``putting`` makes a
    full disk MQRC_Q_SPACE_NOT_AVAILABLE.
    """
    begin_write(db, durable, putting=putting)
    try:
        yield db
    except BaseException as exc:
        end(db, exc, putting=putting)
        raise
    end(db, None, putting=putting)


@contextmanager
def read(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One read transaction: a consistent snapshot that takes no write lock, so it works
    on a full disk and on a read-only copy."""
    begin_read(db)
    try:
        yield db
    except BaseException as exc:
        end(db, exc)
        raise
    end(db, None)
