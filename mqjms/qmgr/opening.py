"""Opening a queue manager's directory: creating the queue manager when none was ever
created there, upgrading its schema, and starting it when due (:mod:`.startup`); or, on a
read-only file system or copy, opening it for browsing and display only. A missing,
emptied or damaged database is refused (:mod:`.integrity`)."""

from __future__ import annotations

import json
import re
import sqlite3
import time
from pathlib import Path

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.semantics.attributes import QMGR_ATTRS, validate_name

from . import defaults, files, integrity, meta, store, topics
from .failures import StorageError
from .locks import FileLock
from .startup import boot_id, start

log = get_logger("mqjms.qmgr")


def default_qmgr_name(path: Path) -> str:
    """The name a queue manager created without one takes: its directory's, as MQ allows."""
    base = re.sub(r"[^A-Za-z0-9._]", "", path.resolve().name.lstrip(".")).upper()
    return (base or "QM1")[:48]


def open_read_write(
    path: Path,
    access: files.Access,
    active: FileLock,
    name: str | None,
    group_access: bool | None,
) -> sqlite3.Connection:
    """Open (creating it if no queue manager was ever created here) and start if due. On
    success ``active`` is held shared (exclusively for a moment, to upgrade the schema
    when no other process has the queue manager open)."""
    db_file = path / files.DATABASE
    files.make_directory(path, access)
    files.secure(path, access)
    startup = FileLock(path / "startup.lock", access.file_mode, what="the queue manager's start-up")
    startup.acquire(exclusive=True)
    db: sqlite3.Connection | None = None
    opened = False
    try:
        marker = files.read_marker(path)  # again: another process may have created it
        integrity.check_before_open(path, db_file, marker)
        if marker is None:
            files.create_database_file(db_file, access)
        db = store.connect_db(db_file, create=marker is None)
        integrity.check_opened(path, db, marker)
        if not store.has_schema(db):
            store.create_schema(db)
        _ensure_created(path, db, name)
        # an upgrade changes what the other processes read (they may be older
        # versions): only a process that has the queue manager to itself upgrades it
        if active.acquire(exclusive=True, blocking=False) and store.upgrade(db):
            log.info("qmgr.upgraded", path=str(path), schema=store.SCHEMA_VERSION)
        store.prepare(db)
        topics.ensure(db)  # pub/sub tables and SYSTEM.BASE.TOPIC (also in older ones)
        if meta.get(db, "default_objects") != defaults.DEFAULT_LIST:
            # a newer mqjms's system objects, on a queue manager already started (a
            # definition is a row other processes see, whatever their version)
            with store.write(db) as tx:
                defaults.add_new(tx)
        regroup = marker is not None and group_access not in (None, marker.group_access)
        if marker is None or not marker.name or regroup:
            created = marker.created if marker else ""
            qmname = str(meta.get(db, "qmgr_name"))
            marker = files.Marker(qmname, created, access.group)
            files.write_marker(path, marker, access)
        if meta.get(db, "boot_id") != boot_id():
            start(path, db)
        active.acquire(exclusive=False)
        opened = True
    except sqlite3.Error as exc:
        if db is not None:
            db.close()
        raise integrity.damaged(path, exc, db_file) from exc
    except StorageError as exc:
        if db is not None:
            db.close()
        if exc.reason in (C.MQRC_OBJECT_DAMAGED, C.MQRC_RESOURCE_PROBLEM):
            raise integrity.cannot_start(path, exc.detail, exc.cause) from exc
        raise
    except BaseException:
        if db is not None:
            db.close()
        raise
    finally:
        if not opened:
            active.release()  # it may be held, exclusively, for the upgrade
        startup.release()
    return db


def open_read_only(path: Path, marker: files.Marker | None) -> sqlite3.Connection:
    """A read-only file system or copy: browse and display, nothing that writes."""
    db_file = path / files.DATABASE
    integrity.check_before_open(path, db_file, marker)
    if not db_file.exists():
        raise integrity.cannot_start(path, "the directory is read-only and holds no queue manager")
    try:
        db = store.connect_db(db_file, read_only=True, create=False)
    except sqlite3.Error as exc:
        raise integrity.damaged(path, exc, db_file) from exc
    try:
        integrity.check_opened(path, db, marker)
        if not store.has_schema(db):
            raise integrity.cannot_start(path, f"{db_file} holds no queue manager")
        store.prepare(db)
    except BaseException:
        db.close()
        raise
    log.warning(
        "qmgr.opened_read_only",
        path=str(path),
        note="browse and display only; units of work in flight are shown as they were",
    )
    return db


def _ensure_created(path: Path, db: sqlite3.Connection, name: str | None) -> None:
    """The queue manager's record and system objects, unless it was created already."""
    with store.write(db) as tx:
        if meta.get(tx, "qmgr_name") is not None:
            return
        qmname = validate_name(name or default_qmgr_name(path), "queue manager")
        tx.executemany(
            "INSERT INTO meta (key, value) VALUES (?, ?)",
            [
                ("schema_version", str(store.SCHEMA_VERSION)),
                ("qmgr_name", qmname),
                ("created_stamp", str(int(time.time()))),
                ("incarnation", "0"),
                ("qmgr_attrs", json.dumps({a.name: a.default for a in QMGR_ATTRS})),
                ("last_expiry_scan", "0"),
            ],
        )
        defaults.define_all(tx)
        log.info("qmgr.created", qmgr=qmname, path=str(path))


__all__ = ["default_qmgr_name", "open_read_only", "open_read_write"]
