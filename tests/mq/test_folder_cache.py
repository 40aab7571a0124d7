"""The RFH2 folder parse cache is bounded by bytes, not only by a count (hardening issue
item 18: 300 distinct 1 MB ``usr`` folders grew a worker by 574 MB through a
4,096-entry cache)."""

from __future__ import annotations

import gc
import sys
import tracemalloc
from collections.abc import Callable, Iterator

import pytest

from mqjms.mq import rfh2, rfh2_folders
from mqjms.mq.bounded_cache import BoundedCache

MiB = 1024 * 1024


def usr_folder(tag: int, properties: int, value_size: int = 8) -> str:
    """A distinct usr folder (``tag`` makes it unique) with typed properties."""
    value = "v" * value_size
    return (
        f"<usr><tag dt='i4'>{tag}</tag>"
        + "".join(f"<p{n}>{value}</p{n}>" for n in range(properties))
        + "</usr>"
    )


@pytest.fixture(autouse=True)
def empty_cache() -> Iterator[None]:
    rfh2.folder_cache.clear()
    yield
    rfh2.folder_cache.clear()


def retained_bytes(work: Callable[[], None]) -> int:
    """Memory still allocated after ``work`` returns and its garbage is collected."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        work()
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def test_large_folders_are_parsed_but_never_kept() -> None:
    # The case, scaled down: distinct folders of 1 MB each.
    for tag in range(20):
        element = rfh2.parse_folder(usr_folder(tag, properties=1, value_size=MiB))
        assert element.find("tag") is not None
    assert len(rfh2.folder_cache) == 0 and rfh2.folder_cache.size == 0


def test_cached_bytes_stay_under_the_limit() -> None:
    # Folders small enough to cache, but many more bytes of them than the cache may hold.
    sizes = []
    for tag in range(2000):
        rfh2.parse_folder(usr_folder(tag, properties=20))
        sizes.append(rfh2.folder_cache.size)
        assert rfh2.folder_cache.size <= rfh2.FOLDER_CACHE_BYTES
    assert max(sizes) > rfh2.FOLDER_CACHE_BYTES - 64 * 1024  # it did fill up, then evicted
    assert len(rfh2.folder_cache) < 2000


def test_worker_memory_stays_bounded_whatever_the_folders() -> None:
    # Counted by tracemalloc (allocations, not RSS, no timing): what stays allocated
    # after parsing many distinct folders is at most the cache's byte limit. Before,
    # a count-bounded lru_cache kept every one of them (10-13 MB here).
    def many_large() -> None:
        for tag in range(100):
            rfh2.parse_folder(usr_folder(tag, properties=400, value_size=40))

    def many_small() -> None:
        for tag in range(1500):
            rfh2.parse_folder(usr_folder(tag, properties=40))

    assert retained_bytes(many_large) < 1 * MiB
    rfh2.folder_cache.clear()
    assert retained_bytes(many_small) <= rfh2.FOLDER_CACHE_BYTES + 1 * MiB


@pytest.mark.parametrize(
    "text",
    [
        "<mcd><Msd>jms_text</Msd></mcd>",
        "<jms><Dst>queue:///ORDERS.IN</Dst><Tms>1750000000000</Tms><Dlv>2</Dlv></jms>",
        usr_folder(1, properties=30),
        "<usr>" + "".join(f"<n{i} dt='i8'>{i}</n{i}>" for i in range(50)) + "</usr>",
        "<usr>" + "".join(f"<b{i} xsi:nil='true'></b{i}>" for i in range(50)) + "</usr>",
        "<usr><t>" + "é€" * 4000 + "</t></usr>",
    ],
    ids=["mcd", "jms", "usr-strings", "usr-ints", "usr-nil", "usr-non-ascii"],
)
def test_footprint_is_not_less_than_the_memory_held(text: str) -> None:
    # The bound is only as good as the estimate each entry is charged: the cache keeps
    # the text (its key) and the parsed tree.
    rfh2_folders._parse_folder("<warm/>")  # the XML modules load with the first parse: not counted
    held: list[object] = []
    # tracemalloc counts every thread's allocations: a thread an earlier test left running
    # (a queue manager's expiry scanner) only adds to one measurement, so keep the least
    tree = min(
        retained_bytes(lambda: held.append(rfh2_folders._parse_folder(text))) for _ in range(3)
    )
    assert sys.getsizeof(text) + tree <= rfh2.folder_footprint(text, held[0])  # type: ignore[arg-type]


def test_a_repeated_folder_is_served_from_the_cache() -> None:
    text = "<mcd><Msd>jms_text</Msd></mcd>"
    assert rfh2.parse_folder(text) is rfh2.parse_folder(text)
    assert len(rfh2.folder_cache) == 1


# --------------------------------------------------------------------------- the cache
def test_bounded_cache_evicts_least_recently_used_by_size() -> None:
    cache: BoundedCache[str, int] = BoundedCache(max_size=100, max_entry_size=60, max_entries=10)
    cache.put("a", 1, 40)
    cache.put("b", 2, 40)
    assert cache.get("a") == 1  # a is now the most recently used
    cache.put("c", 3, 40)  # 120 > 100: b goes
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == (1, None, 3)
    assert cache.size == 80 and len(cache) == 2
    cache.put("big", 4, 61)  # larger than max_entry_size: never kept
    assert cache.get("big") is None and cache.size == 80
    cache.put("a", 5, 10)  # replacing an entry recharges it
    assert cache.get("a") == 5 and cache.size == 50


def test_bounded_cache_evicts_by_count() -> None:
    cache: BoundedCache[int, int] = BoundedCache(max_size=1000, max_entry_size=10, max_entries=3)
    for n in range(5):
        cache.put(n, n, 1)
    assert len(cache) == 3 and cache.size == 3
    assert [cache.get(n) for n in range(5)] == [None, None, 2, 3, 4]


def test_bounded_cache_rejects_impossible_limits() -> None:
    with pytest.raises(ValueError, match="max_entry_size"):
        BoundedCache(max_size=10, max_entry_size=11, max_entries=1)
    with pytest.raises(ValueError, match="max_entries"):
        BoundedCache(max_size=10, max_entry_size=1, max_entries=-1)
