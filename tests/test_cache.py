"""ui.cache.bounded_cache: least recently used entries go first, by count and by bytes; one
computation per key; at most COMPUTE_SLOTS computations at once."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from ui import cache
from ui.cache import MB, bounded_cache, own_memory


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
    assert most[0] <= cache.COMPUTE_SLOTS


def test_a_cached_function_calling_another_keeps_its_slot():
    @bounded_cache(max_entries=2, max_bytes=MB)
    def inner(n: int):
        return n + 1

    @bounded_cache(max_entries=2, max_bytes=MB)
    def outer(n: int):
        return inner(n) * 2  # would deadlock if the slot were taken twice

    inner.clear(), outer.clear()
    assert outer(1) == 4


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


class _Occupancy:
    """Counts the threads inside `visit` at once; `most` is the largest count seen."""

    def __init__(self) -> None:
        self.lock, self.running, self.most = threading.Lock(), 0, 0

    def visit(self, seconds: float = 0.05) -> None:
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
        time.sleep(seconds)
        with self.lock:
            self.running -= 1


def _run_threads(targets) -> None:
    threads = [threading.Thread(target=target) for target in targets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def _most_at_once(enter, count: int) -> int:
    """Run `count` threads through the context manager `enter()`; how many were inside at once."""
    occupancy = _Occupancy()

    def work():
        with enter():
            occupancy.visit()

    _run_threads([work] * count)
    return occupancy.most


def test_page_runs_at_once_are_at_most_run_slots_and_a_raising_run_frees_its_slot():
    assert cache.RUN_SLOTS == 4  # the bound checked below is the one app.py uses
    assert _most_at_once(cache.run_slot, 12) == 4
    for _ in range(cache.RUN_SLOTS + 1):  # a stopped run (an exception) gives its slot back
        try:
            with cache.run_slot():
                raise RuntimeError("rerun requested")
        except RuntimeError:
            pass
    assert _most_at_once(cache.run_slot, 6) == 4


def test_a_download_built_later_waits_for_the_compute_slot():
    occupancy = _Occupancy()

    def build(n: int) -> int:
        occupancy.visit()
        return n * 2

    downloads = [cache.in_compute_slot(build, n) for n in range(6)]
    assert occupancy.running == occupancy.most == 0  # nothing built until a download asks
    results = []
    _run_threads([lambda d=d: results.append(d()) for d in downloads])
    assert sorted(results) == [0, 2, 4, 6, 8, 10]
    assert occupancy.most == cache.COMPUTE_SLOTS == 1


def test_the_trimmer_returns_freed_heap_pages_to_the_system():
    """Many small blocks (under the mmap threshold: the heap) freed while one at the heap's top
    is kept: glibc cannot shrink the heap by itself, malloc_trim returns the freed pages."""
    if cache._malloc_trim is None:  # not glibc: nothing to test, and the test says so by failing
        raise AssertionError("glibc's malloc_trim is needed (the app's servers run on Linux)")
    cache.start_trimmer()
    cache.start_trimmer()  # idempotent
    assert sum(t.name == "malloc-trim" for t in threading.enumerate()) == 1
    before = cache._rss_bytes()
    blocks = [bytearray(64 * 1024) for _ in range(3000)]  # ~190 MB of 64 KB blocks, touched
    keep = bytearray(64 * 1024)  # allocated last: pins the top of the heap
    grown = cache._rss_bytes()
    assert grown - before > 150 * MB
    del blocks
    deadline = time.monotonic() + 10 * cache.TRIM_EVERY_S
    while cache._rss_bytes() > before + 60 * MB and time.monotonic() < deadline:
        time.sleep(0.1)
    assert cache._rss_bytes() < before + 60 * MB, (before / MB, grown / MB,
                                                   cache._rss_bytes() / MB)
    del keep


# A process started as a host starts the server (no MALLOC_* variables): blocks of 512 KB
# allocated between small long-lived ones, then freed; how many MB its RSS keeps. A first large
# free raises glibc's default mmap threshold, after which such blocks come from the heap and stay.
_KEPT_AFTER_FREE = """
import ctypes, ctypes.util, sys
libc = ctypes.CDLL(ctypes.util.find_library("c"))
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
libc.memset.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]
def rss():
    return int(open("/proc/self/statm").read().split()[1]) * 4096 // 2**20
if sys.argv[1] == "tuned":
    from ui.cache import tune_allocator
    assert tune_allocator()
first = libc.malloc(4 << 20); libc.memset(first, 1, 4 << 20); libc.free(first)
before, blocks, kept = rss(), [], []
for _ in range(200):
    block = libc.malloc(512 << 10); libc.memset(block, 1, 512 << 10); blocks.append(block)
    small = libc.malloc(8192); libc.memset(small, 1, 8192); kept.append(small)
for block in blocks:
    libc.free(block)
print(rss() - before)
"""


def test_the_allocator_set_from_inside_the_process_hands_freed_blocks_back():
    """`tune_allocator` (serve.py calls it before the first session) does what MALLOC_ARENA_MAX
    and MALLOC_MMAP_THRESHOLD_ do for a server started with them: freed large blocks go back to
    the system. Without it, 100 MB of them stay (checked first, so the test can fail)."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}

    def kept(mode: str) -> int:
        run = subprocess.run([sys.executable, "-c", _KEPT_AFTER_FREE, mode], env=env,
                             cwd=cache.Path(cache.__file__).parent.parent, capture_output=True,
                             text=True, check=True)
        return int(run.stdout)

    assert kept("plain") > 50  # glibc's defaults keep them
    assert kept("tuned") <= 10


def test_the_trimmer_trims_again_after_a_trim_that_came_while_the_memory_was_held():
    """The RSS grows (a rerun builds its figure) and the trim comes before the rerun frees it:
    that trim returns nothing and the RSS does not grow again once the pages are free. The
    next seconds' trims return them. (A fake process: RSS in MB, a trim returns what is free.)"""
    process = {"rss": 100, "free": 0, "tick": 0}
    trims: list[int] = []

    def sleep(_seconds):
        process["tick"] += 1
        if process["tick"] == 1:
            process["rss"] += 50  # the rerun's figure, still held at the next trim
        elif process["tick"] == 2:
            process["free"] = 50  # freed after that trim: the RSS stays
        elif process["tick"] > 4:
            raise StopIteration

    def trim(_pad):
        trims.append(process["tick"])
        process["rss"] -= process["free"]
        process["free"] = 0

    with pytest.raises(StopIteration):
        cache._trim_forever(rss=lambda: process["rss"] * MB, trim=trim, sleep=sleep)
    assert trims[:2] == [1, 2]  # the growth's trim, then one that finds the freed pages
    assert process["rss"] == 100


def test_an_images_turn_drops_what_is_reclaimable_and_waits_for_the_memory_to_fall(monkeypatch):
    """Before Chromium starts: what is registered as reclaimable is released, then the image
    waits while the process's own memory and its cost would not fit in TREE_BUDGET, told what
    is held and what lets it start."""
    monkeypatch.setattr(cache, "HEAVY", cache.MemoryBudget(cache.COMPUTE_COST))
    monkeypatch.setattr(cache, "WAIT_POLL_S", 0.01)
    released: list[str] = []
    monkeypatch.setattr(cache, "_reclaimable", [lambda: released.append("model")])
    readings = iter([600 * MB, 500 * MB, 300 * MB])
    monkeypatch.setattr(cache, "own_memory", lambda: next(readings, 300 * MB))
    waits: list[tuple[int, int]] = []
    with cache.image_turn(340 * MB, on_memory_wait=lambda held, allowed: waits.append(
            (held, allowed))):
        assert released == ["model"]
    allowed = cache.TREE_BUDGET - 340 * MB
    assert waits == [(600 * MB, allowed), (500 * MB, allowed)]
    assert cache.HEAVY.used == 0


def test_an_image_is_refused_when_the_memory_never_leaves_it_room(monkeypatch):
    """A server whose memory does not fall within MEMORY_WAIT_S gets its image refused
    (ServerBusyError: the menu says to try again), never drawn past the tree's budget; its turn
    is given back."""
    monkeypatch.setattr(cache, "HEAVY", cache.MemoryBudget(cache.COMPUTE_COST))
    monkeypatch.setattr(cache, "WAIT_POLL_S", 0.01)
    monkeypatch.setattr(cache, "MEMORY_WAIT_S", 0.3)
    monkeypatch.setattr(cache, "own_memory", lambda: cache.TREE_BUDGET)
    waits: list[int] = []
    start = time.monotonic()
    with pytest.raises(cache.ServerBusyError), cache.image_turn(
            100 * MB, on_memory_wait=lambda held, allowed: waits.append(held)):
        raise AssertionError("drawn past the budget")
    assert 0.3 <= time.monotonic() - start < 5 and len(waits) > 3
    assert cache.HEAVY.used == 0 and cache.cache_room() == cache.TOTAL_CACHE_BYTES


def test_a_turn_takes_from_the_caches_what_is_over_the_budget_and_no_more(monkeypatch):
    """The caches give back, least recently used first, about what the process holds over the
    turn's room: the rest of their entries stay for the visitors (a slide file's turns never
    empty them); their room comes back after the turn."""
    monkeypatch.setattr(cache, "HEAVY", cache.MemoryBudget(cache.COMPUTE_COST))
    monkeypatch.setattr(cache, "WAIT_POLL_S", 0.01)
    monkeypatch.setattr(cache, "STORES", {})
    monkeypatch.setattr(cache, "_reclaimable", [])

    @bounded_cache(max_entries=100, max_bytes=cache.TOTAL_CACHE_BYTES)
    def table(i: int) -> np.ndarray:
        return np.zeros(MB // 8)  # one megabyte each

    for i in range(100):
        table(i)
    assert cache.cached_bytes() == pytest.approx(100 * MB, rel=0.01)
    over = 30 * MB
    # the process holds what the caches hold beyond the room, and gives it back as they do
    allowed = cache.TREE_BUDGET - 200 * MB
    monkeypatch.setattr(cache, "own_memory",
                        lambda: allowed - 70 * MB + cache.cached_bytes())
    with cache.image_turn(200 * MB, kind="slide", drop_model=False):
        kept = cache.cached_bytes()
        assert 60 * MB <= kept <= 100 * MB - over
        assert table.store.get((("i", 99),)) is not cache._MISSING  # the newest stay
        assert table.store.get((("i", 0),)) is cache._MISSING  # the oldest went
    assert cache.cache_room() == cache.TOTAL_CACHE_BYTES


def test_own_memory_reads_this_process_unique_memory():
    """USS from /proc/self/smaps_rollup: more than zero, less than the resident set."""
    import psutil

    own = own_memory()  # imported before conftest's fixture stands in for it
    assert 0 < own <= psutil.Process().memory_info().rss


def test_a_slides_turn_keeps_the_model_its_page_draws_with(monkeypatch):
    from core import minilm

    monkeypatch.setattr(cache, "HEAVY", cache.MemoryBudget(cache.COMPUTE_COST))
    minilm.load_minilm()
    with cache.image_turn(cache.COMPUTE_COST, kind="slide", drop_model=False):
        assert minilm.load_minilm.cache_info().currsize == 1


def test_the_model_weights_are_given_back_in_an_images_turn(monkeypatch):
    """ui.model registers the MiniLM tensors as reclaimable: an image's turn drops them (read
    again by the next run that uses the model)."""
    from core import minilm, minilm_encoder
    from ui import model

    monkeypatch.setattr(cache, "HEAVY", cache.MemoryBudget(cache.COMPUTE_COST))
    assert model.release_minilm in cache._reclaimable
    minilm.load_minilm()
    minilm_encoder.load_encoder()
    assert minilm.load_minilm.cache_info().currsize == 1
    with cache.image_turn(cache.COMPUTE_COST):
        assert minilm.load_minilm.cache_info().currsize == 0
        assert minilm_encoder.load_encoder.cache_info().currsize == 0
    assert minilm.load_minilm().token_embeddings.shape[1] == 384  # read again
