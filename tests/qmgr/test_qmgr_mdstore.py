"""The stored MQMD (mdstore.py): deflated once per distinct MQMD, read back as it was put,
whichever process deflated it."""

from __future__ import annotations

import zlib
from collections.abc import Iterator

import pytest

from mqjms.mq import MQMD, C
from mqjms.qmgr import mdstore


class CountingCompressor:
    """Stands in for the primed compressor: counts the MQMDs deflated."""

    def __init__(self) -> None:
        self.copies = 0

    def copy(self) -> zlib._Compress:
        self.copies += 1
        return mdstore._PRIMED_ORIGINAL.copy()  # type: ignore[attr-defined, no-any-return]


@pytest.fixture
def compressor(monkeypatch: pytest.MonkeyPatch) -> Iterator[CountingCompressor]:
    counting = CountingCompressor()
    monkeypatch.setattr(mdstore, "_PRIMED_ORIGINAL", mdstore._PRIMED, raising=False)
    monkeypatch.setattr(mdstore, "_PRIMED", counting)
    monkeypatch.setattr(mdstore, "_deflated", {}, raising=False)
    monkeypatch.setattr(mdstore, "_inflated", {}, raising=False)
    yield counting


def deflated_afresh(md_bytes: bytes) -> bytes:
    blanked = md_bytes[:48] + bytes(48) + md_bytes[96:]
    deflate = zlib.compressobj(1, zlib.DEFLATED, -10, 2, zlib.Z_DEFAULT_STRATEGY, MQMD().pack())
    return b"z" + deflate.compress(blanked) + deflate.flush()


def test_messages_that_differ_in_their_ids_only_deflate_once(
    compressor: CountingCompressor,
) -> None:
    first = MQMD(MsgId=b"1" * 24, CorrelId=b"a" * 24, Persistence=C.MQPER_PERSISTENT)
    second = first.copy(MsgId=b"2" * 24, CorrelId=b"b" * 24)
    stored = [mdstore.pack(md.pack()) for md in (first, second, first)]
    assert compressor.copies == 1
    assert stored == [deflated_afresh(first.pack())] * 3  # the ids are in the row's columns
    assert mdstore.unpack(stored[1], second.MsgId, second.CorrelId) == second.pack()


def test_another_mqmd_is_deflated_and_each_reads_back_as_put(
    compressor: CountingCompressor,
) -> None:
    mds = [MQMD(Priority=p, Format="MQSTR", GroupId=bytes([p]) * 24) for p in range(5)]
    stored = [mdstore.pack(md.pack()) for md in mds]
    assert compressor.copies == 5
    for md, column in zip(mds, stored, strict=True):
        assert column == deflated_afresh(md.pack())
        assert mdstore.unpack(column, md.MsgId, md.CorrelId) == md.pack()
        assert mdstore.group_id(column) == md.GroupId


class CountingInflates:
    """Counts the decompressors made (one per stored MQMD inflated afresh)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.made = 0
        self._make = zlib.decompressobj
        monkeypatch.setattr(zlib, "decompressobj", self)

    def __call__(self, *args: object) -> zlib._Decompress:
        self.made += 1
        return self._make(*args)  # type: ignore[arg-type]


def test_an_mqmd_another_process_deflated_is_inflated_once(
    compressor: CountingCompressor, monkeypatch: pytest.MonkeyPatch
) -> None:
    md = MQMD(MsgId=b"m" * 24, ReplyToQ="REPLY.Q", Expiry=600)
    column = deflated_afresh(md.pack())  # not through this process's pack
    inflates = CountingInflates(monkeypatch)
    assert mdstore.unpack(column, md.MsgId, md.CorrelId) == md.pack()
    assert mdstore.unpack(column, md.MsgId, md.CorrelId) == md.pack()  # remembered
    assert inflates.made == 1 and compressor.copies == 0


def test_a_scan_by_group_id_reads_without_filling_what_puts_remember(
    compressor: CountingCompressor, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = MQMD(Format="MQSTR")
    mine_column = mdstore.pack(mine.pack())  # remembered: a get of it inflates nothing
    others = [MQMD(GroupId=bytes([i]) * 24, Expiry=i + 1) for i in range(20)]
    columns = [deflated_afresh(md.pack()) for md in others]  # another process's puts
    inflates = CountingInflates(monkeypatch)
    assert [mdstore.group_id(c) for c in columns] == [md.GroupId for md in others]
    assert mdstore.group_id(mine_column) == mine.GroupId
    assert inflates.made == 20 and len(mdstore._inflated) == 1


def test_what_is_remembered_stays_bounded(
    compressor: CountingCompressor, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(mdstore, "REMEMBERED", 8)
    mds = [MQMD(Priority=p % 10, Expiry=p + 1) for p in range(50)]
    for md in mds:
        column = mdstore.pack(md.pack())
        assert mdstore.unpack(column, md.MsgId, md.CorrelId) == md.pack()
        assert len(mdstore._deflated) <= 8 and len(mdstore._inflated) <= 8
    assert compressor.copies == 50
