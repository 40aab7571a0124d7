"""Fixtures shared by the embedded queue manager's tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.qmgr.full_disk import mounted_small_disk
from tests.qmgr.qmgr_child import Child

SpawnChild = Callable[..., Child]


@pytest.fixture
def children(tmp_path: Path) -> Iterator[SpawnChild]:
    """``children(mode, url, ...)``: a ``qmgr_child`` process; every one this test started
    is killed (by its own pid) after it."""
    started: list[Child] = []

    def spawn(*args: str) -> Child:
        child = Child(tmp_path / f"child{len(started)}.log", *args)
        started.append(child)
        return child

    yield spawn
    for child in started:
        child.kill()


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """An 8 MiB tmpfs: a file system that really fills up (tests/qmgr/full_disk.py)."""
    yield from mounted_small_disk(tmp_path)
