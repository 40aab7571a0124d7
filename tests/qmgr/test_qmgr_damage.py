"""A damaged or vanished qmgr.db (hardening issue item 11).

Garbage gave a traceback from every command, and a zero-length file was silently
re-created as a new, empty queue manager. Now ``qmgr.ini``, written at creation, says a
queue manager exists; a missing, empty or foreign database stops the start with
MQRC_Q_MGR_NOT_AVAILABLE (2059) and what to do, damage found later is
MQRC_OBJECT_DAMAGED (2101), and nothing is ever re-created over an existing queue manager.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from mqjms.cli import main
from mqjms.mq import MQMD, C, MQError
from mqjms.qmgr import QueueManager
from mqjms.transport import Browse


def make_queue_manager(path: Path, messages: int = 3, name: str | None = None) -> None:
    with QueueManager(path, name) as qm:
        qm.define_queue("QLOCAL", "KEPT.Q", {"DEFPSIST": "YES"})
        conn = qm.connect()
        for i in range(messages):
            conn.put("KEPT.Q", MQMD(), b"message %d " % i + b"." * 400)
        conn.disconnect()


def remove_database(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        (path / f"qmgr.db{suffix}").unlink(missing_ok=True)


def refused(path: Path) -> MQError:
    with pytest.raises(MQError) as raised:
        QueueManager(path)
    assert raised.value.reason == C.MQRC_Q_MGR_NOT_AVAILABLE, raised.value
    assert str(path) in raised.value.detail
    return raised.value


def test_creation_writes_the_marker(qmgr_dir: Path) -> None:
    # hardening item 11: a marker of creation kept apart from the database
    make_queue_manager(qmgr_dir, name="ORDERS.QM")
    text = (qmgr_dir / "qmgr.ini").read_text()
    assert "Name=ORDERS.QM" in text and "Created=" in text


def test_a_vanished_database_is_refused_not_recreated(qmgr_dir: Path) -> None:
    # hardening item 11: never re-create an existing queue manager
    make_queue_manager(qmgr_dir)
    remove_database(qmgr_dir)
    error = refused(qmgr_dir)
    assert "qmgr.db is missing" in error.detail and "restore" in error.detail
    assert not (qmgr_dir / "qmgr.db").exists()


def test_an_emptied_database_is_refused_not_recreated(qmgr_dir: Path) -> None:
    # hardening item 11: a zero-length qmgr.db was silently re-created as a new, empty
    # queue manager, its queues and messages gone without a word
    make_queue_manager(qmgr_dir)
    remove_database(qmgr_dir)
    (qmgr_dir / "qmgr.db").write_bytes(b"")
    error = refused(qmgr_dir)
    assert "is empty (0 bytes)" in error.detail
    assert (qmgr_dir / "qmgr.db").stat().st_size == 0


def test_garbage_is_refused_with_one_clear_line_from_the_command(
    qmgr_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # hardening item 11: garbage gave a traceback from every command
    make_queue_manager(qmgr_dir)
    remove_database(qmgr_dir)
    (qmgr_dir / "qmgr.db").write_bytes(os.urandom(64 * 1024))
    error = refused(qmgr_dir)
    assert "damaged" in error.detail and "restore qmgr.db from a backup" in error.detail
    capsys.readouterr()
    for command in (["mqsc"], ["browse", "KEPT.Q"], ["put", "KEPT.Q", "--body", "x"]):
        assert main([*command, "--url", f"embedded://{qmgr_dir}"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("mqjms: MQRC_Q_MGR_NOT_AVAILABLE (2059): ")
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def damage_pages(path: Path) -> None:
    """Overwrite ten pages in the middle of qmgr.db; its header stays intact."""
    data = bytearray((path / "qmgr.db").read_bytes())
    assert len(data) > 20 * 4096
    data[4 * 4096 : 14 * 4096] = os.urandom(10 * 4096)
    (path / "qmgr.db").write_bytes(bytes(data))


def test_damage_met_while_running_is_an_mqerror(qmgr_dir: Path) -> None:
    # hardening item 11: no sqlite3 exception (and no traceback) reaches a caller
    make_queue_manager(qmgr_dir, messages=300)
    damage_pages(qmgr_dir)
    qm = QueueManager(qmgr_dir)  # the same boot: no start, so no full check
    with pytest.raises(MQError) as raised:  # wherever the damage is met first
        conn = qm.connect()
        handle = conn.open("KEPT.Q", C.MQOO_BROWSE)
        option = Browse.FIRST
        while conn.get(handle, browse=option) is not None:
            option = Browse.NEXT
    assert raised.value.reason == C.MQRC_OBJECT_DAMAGED
    assert "qmgr.db is damaged" in raised.value.detail
    qm.close()  # closing still lets go of everything


def test_damage_stops_a_start(qmgr_dir: Path) -> None:
    # hardening item 11: detect damage and refuse to start with what to do
    make_queue_manager(qmgr_dir, messages=300)
    with closing(sqlite3.connect(qmgr_dir / "qmgr.db")) as db, db:  # as after a reboot
        db.execute("UPDATE meta SET value = 'an earlier boot' WHERE key = 'boot_id'")
    damage_pages(qmgr_dir)
    error = refused(qmgr_dir)
    assert "damaged" in error.detail and "restore qmgr.db from a backup" in error.detail


def test_another_queue_managers_database_is_refused(tmp_path: Path) -> None:
    # hardening item 11: the marker names the queue manager the database must hold
    make_queue_manager(tmp_path / "a", name="QM.A")
    make_queue_manager(tmp_path / "b", name="QM.B")
    remove_database(tmp_path / "a")
    shutil.copy(tmp_path / "b" / "qmgr.db", tmp_path / "a" / "qmgr.db")
    error = refused(tmp_path / "a")
    assert "belongs to queue manager QM.B" in error.detail


def test_a_directory_made_before_the_marker_gets_one(qmgr_dir: Path) -> None:
    # hardening item 11: queue managers created by an older version keep working
    make_queue_manager(qmgr_dir, name="OLD.QM")
    (qmgr_dir / "qmgr.ini").unlink()
    with QueueManager(qmgr_dir) as qm:
        assert qm.queue_depth("KEPT.Q") == 3
    assert "Name=OLD.QM" in (qmgr_dir / "qmgr.ini").read_text()


def test_an_unreadable_marker_still_guards_the_database(qmgr_dir: Path) -> None:
    # hardening item 11: a damaged qmgr.ini still says a queue manager was created here
    make_queue_manager(qmgr_dir, name="GUARDED.QM")
    (qmgr_dir / "qmgr.ini").write_bytes(b"\x00garbage [[[")
    with QueueManager(qmgr_dir) as qm:  # the database is fine: the marker is rewritten
        assert qm.queue_depth("KEPT.Q") == 3
    assert "Name=GUARDED.QM" in (qmgr_dir / "qmgr.ini").read_text()
    (qmgr_dir / "qmgr.ini").write_bytes(b"\x00garbage [[[")
    remove_database(qmgr_dir)
    assert "qmgr.db is missing" in refused(qmgr_dir).detail


@pytest.mark.parametrize(
    "damage",
    [
        b"\xff\xfe not UTF-8 \x80",
        b"[QueueManager]\nName=GUARDED.QM\nGroupAccess=maybe\n",
        b"[QueueManager]\nName=" + b"A" * 5000 + b"\n",
    ],
    ids=["binary", "bad-boolean", "name-too-long"],
)
def test_a_damaged_marker_never_stops_a_start_with_a_raw_error(
    qmgr_dir: Path, damage: bytes
) -> None:
    # a qmgr.ini that is not text, or says what cannot be: read as "created here, by
    # whom unknown" (rewritten from the database), never a UnicodeDecodeError or ValueError
    make_queue_manager(qmgr_dir, name="GUARDED.QM")
    (qmgr_dir / "qmgr.ini").write_bytes(damage)
    with QueueManager(qmgr_dir) as qm:
        assert qm.queue_depth("KEPT.Q") == 3
    assert "Name=GUARDED.QM" in (qmgr_dir / "qmgr.ini").read_text()


def test_a_file_where_the_connections_directory_belongs_is_an_mqerror(qmgr_dir: Path) -> None:
    make_queue_manager(qmgr_dir)
    shutil.rmtree(qmgr_dir / "conn")
    (qmgr_dir / "conn").write_text("not a directory")
    with pytest.raises(MQError) as raised:
        QueueManager(qmgr_dir)
    assert raised.value.reason == C.MQRC_OBJECT_DAMAGED
    assert "conn is not a directory" in raised.value.detail
