"""server.cache.bounded_cache: least recently used entries go first, by count and by bytes; one
computation per key; at most COMPUTE_SLOTS computations at once."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from server import cache, memory_budget
from server.cache import MB, bounded_cache


def test_evicts_the_least_recently_used_until_the_bytes_fit():
    calls = []

    @bounded_cache(max_entries=10, max_bytes=3 * MB)
    def table(n: int):
        calls.append(n)
        return np.zeros((MB - 4096) // 8)  # just under 1 MB of float64

    table.clear()
    for n in (1, 2, 3):
        table(n)
    table(1)  # now the most recent
    table(4)  # 4 MB would pass 3 MB: the least recent (2) goes
    assert calls == [1, 2, 3, 4]
    table(1), table(3), table(4)
    assert calls == [1, 2, 3, 4]  # all still kept
    table(2)
    assert calls == [1, 2, 3, 4, 2]
    assert table.store.nbytes <= 3 * MB and len(table.store.entries) == 3


def test_an_idle_server_keeps_the_newest_share_and_may_grow_again(monkeypatch):
    """With no session left the caches keep their most recently used share of
    IDLE_CACHE_BYTES; the next visitors fill them to their full budget again."""
    monkeypatch.setattr(cache, "STORES", {})

    @bounded_cache(max_entries=200, max_bytes=cache.TOTAL_CACHE_BYTES)
    def table(n: int):
        return np.zeros((MB - 4096) // 8)  # just under 1 MB of float64

    for n in range(100):
        table(n)
    given_back = cache.trim_for_idle()
    kept = cache.cached_bytes()
    assert cache.IDLE_CACHE_BYTES - MB <= kept <= cache.IDLE_CACHE_BYTES
    assert given_back == pytest.approx(100 * MB - kept, rel=0.01)
    assert table.store.get((("n", 99),)) is not cache._MISSING  # the newest stay
    assert table.store.get((("n", 0),)) is cache._MISSING
    for n in range(100, 200):
        table(n)
    assert cache.cached_bytes() > 2 * cache.IDLE_CACHE_BYTES


def test_evicts_by_count_and_keeps_nothing_larger_than_the_budget():
    calls = []

    @bounded_cache(max_entries=2, max_bytes=MB)
    def sized(n: int):
        calls.append(n)
        return np.zeros(n)

    sized.clear()
    sized(1), sized(2), sized(3)
    sized(1)
    assert calls == [1, 2, 3, 1]  # two entries at most
    big = sized(MB)  # 8 MB: returned, not kept
    assert big.shape == (MB,) and sized(MB) is not big
    assert len(sized.store.entries) == 2


def test_sessions_asking_at_once_compute_once_and_one_at_a_time():
    running, most, calls = [0], [0], []
    lock = threading.Lock()

    @bounded_cache(max_entries=8, max_bytes=MB)
    def slow(n: int):
        with lock:
            calls.append(n)
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        return n

    slow.clear()
    threads = [threading.Thread(target=slow, args=(i % 3,)) for i in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(calls) == [0, 1, 2]  # each key once
    assert most[0] <= memory_budget.COMPUTE_SLOTS


def test_a_cached_function_calling_another_keeps_its_slot():
    @bounded_cache(max_entries=2, max_bytes=MB)
    def inner(n: int):
        return n + 1

    @bounded_cache(max_entries=2, max_bytes=MB)
    def outer(n: int):
        return inner(n) * 2  # would deadlock if the slot were taken twice

    inner.clear(), outer.clear()
    assert outer(1) == 4


def test_a_visitor_asking_directly_for_what_another_computes_inside_does_not_deadlock(
        monkeypatch):
    """One session computes outer(1), which asks inner(1) (vit_grid's tiles ask its offsets);
    another asks inner(1) directly meanwhile. Were the key's lock taken before the compute slot,
    the second would hold inner(1)'s lock waiting for the slot while the first held the slot
    waiting for that lock: every later cache miss of the server behind them, for good."""
    second_waits = threading.Event()
    # A queue of this test's own: deadlocked, its threads would hold the worker's for good.
    monkeypatch.setattr(memory_budget, "HEAVY",
                        memory_budget.MemoryBudget(memory_budget.COMPUTE_COST))

    @bounded_cache(max_entries=2, max_bytes=MB)
    def inner(n: int):
        return n + 1

    @bounded_cache(max_entries=2, max_bytes=MB)
    def outer(n: int):
        second_waits.wait(10)  # the other session now asks inner(1) and waits its turn
        until_waiting = time.monotonic() + 10
        while (memory_budget.HEAVY.count("compute", waiting=True) == 0
               and time.monotonic() < until_waiting):
            time.sleep(0.01)
        return inner(n) * 2

    inner.clear(), outer.clear()
    results: dict[str, int] = {}
    first = threading.Thread(target=lambda: results.update(outer=outer(1)), daemon=True)
    first.start()
    while memory_budget.HEAVY.count("compute", waiting=False) == 0:  # outer holds the slot
        time.sleep(0.01)
    second = threading.Thread(target=lambda: results.update(inner=inner(1)), daemon=True)
    second.start()
    second_waits.set()
    first.join(30)
    second.join(30)
    assert results == {"outer": 4, "inner": 2}, "the two sessions deadlocked"


def test_underscore_arguments_are_not_part_of_the_key():
    @bounded_cache(max_entries=2, max_bytes=MB)
    def labelled(n: int, _note: list):
        return [n, *_note]

    labelled.clear()
    assert labelled(1, ["a"]) == labelled(1, ["b"]) == [1, "a"]


def test_deep_nbytes_counts_a_views_base_once():
    base = np.zeros(1000)  # 8000 bytes
    size = cache.deep_nbytes({"a": base[:10], "b": base[5:], "c": base})
    assert 8000 <= size < 8000 + 2000

