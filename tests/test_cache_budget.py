"""Every page cache's worst case fits its byte budget, and all of them the process's.

Each cached function (`server.cache.bounded_cache`, registered when its page runs) is called with
the worst case it declares (the caps of `core.limits` / `ui.pages`); what its result keeps alive
and the peak while making it are measured with tracemalloc (numpy reports its buffers to it),
not with the cache's own size estimate. Then: the worst entry fits the function's byte bound
(else it would be recomputed on every rerun), the bounds add up to the caches' total, and that
total with the computations at their peak (the compute slots) and the idle server stays under
700 MB.

What this arithmetic does not cover: each session's own rerun (building its figures, their
JSON and protobuf message, the download buttons' deferred data it keeps until its next rerun,
or for 120 s after its visitor leaves: Streamlit's server.disconnectedSessionTTL), the
allocator's retained pages, torch's and BLAS's own buffers. A rerun's own work at the pages'
maximum sizes is bounded here per session (RERUN_MB, so that no page builds a large table
outside the caches); 30 of them at once, and the allocator, are measured only by
benchmarks/load_memory.py (docs/robustness.md).
"""

from __future__ import annotations

import fcntl
import gc
import inspect
import json
import tracemalloc
import urllib.parse
from pathlib import Path

import pytest

from benchmarks.load_memory import HEAVY
from server import cache, memory_budget
from tests.apptest import open_page
from ui.pages import PAGES

MB = 2**20
SERVER_BUDGET_MB = 700  # Streamlit Community Cloud's smallest box: about 690 MB
# The server after every page has run once at its defaults, MiniLM (torch) loaded: 245-250 MB
# measured by benchmarks/load_memory.py (docs/robustness.md).
IDLE_SERVER_MB = 250
# What one session's rerun may allocate beyond the caches (its figures, their JSON): 30 sessions
# at once at this size would be 360 MB, more than the room left (benchmarks/load_memory.py
# measures what they really reach); a page building a table outside its caches, 16 MB at the
# similarity page's maximum, fails here.
RERUN_MB = 12

def measure(func, args) -> tuple[int, int]:
    """(bytes the result keeps alive, peak bytes while making it), by tracemalloc."""
    func(*args)  # once first: what a first call loads for good (a lazy import) is not the entry's
    cache.clear_all()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        result = func(*args)
        cache.clear_all()  # what nested cached calls kept is theirs, not this result's
        gc.collect()
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del result
    return kept - before, peak - before


@pytest.fixture(scope="module")
def stores():
    """Every page run once (registers its caches; loads MiniLM outside the measurements)."""
    for page in PAGES:
        at = open_page(page.script, {"view": "config"} if page.url_path == "rope" else None)
        assert not at.exception, page.url_path
    # The app's caches only: other tests of the session (tests/test_cache.py) register caches of
    # their own in the same process.
    yield {name: store for name, store in cache.STORES.items()
           if Path(store.func.__code__.co_filename).parent.name in ("app_pages", "ui")}
    cache.clear_all()


def measure_worst(stores) -> dict[str, tuple[int | None, int | None]]:
    """Per cached function: (bytes its worst entry keeps, peak bytes making it)."""
    sizes = {}
    for name, store in stores.items():
        measured = [measure(store.func, args) for args in store.worst_case]
        sizes[name] = (max(m[0] for m in measured), max(m[1] for m in measured)) \
            if measured else (None, None)
    print("\n".join(f"{name}: kept {kept / MB:.1f} MB, peak {peak / MB:.1f} MB, "
                    f"bound {stores[name].max_entries} x / {stores[name].max_bytes / MB:.0f} MB"
                    for name, (kept, peak) in sorted(sizes.items()) if kept is not None))
    return sizes


@pytest.fixture(scope="module")
def worst(request, tmp_path_factory, worker_id):
    """measure_worst, once per test run: pytest-xdist may hand this module's tests to two or
    three workers, and each measured again (a minute, more on a loaded machine). The first
    worker measures under a lock and leaves the numbers beside the workers' temporary folders
    (one folder per run); the others wait for them and read them (and need not run every
    page: `stores` is asked for only to measure)."""
    if worker_id == "master":  # -n 0: one process
        return measure_worst(request.getfixturevalue("stores"))
    shared = tmp_path_factory.getbasetemp().parent / "cache-budget-worst.json"
    with open(shared.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if shared.exists():
            read = json.loads(shared.read_text(encoding="utf-8"))
            return {name: tuple(sizes) for name, sizes in read.items()}
        sizes = measure_worst(request.getfixturevalue("stores"))
        shared.write_text(json.dumps(sizes), encoding="utf-8")
        return sizes


def test_every_cached_function_declares_a_worst_case(stores):
    """Each cache says, beside its byte bound, which calls make its largest entries
    (`bounded_cache(worst_case=...)`): the calls the pages make at their caps."""
    assert len(stores) >= 25  # every page's caches registered
    assert [name for name, store in stores.items() if not store.worst_case] == []
    for store in stores.values():
        for args in store.worst_case:  # each is a call the function accepts
            inspect.signature(store.func).bind(*args)


def test_each_worst_entry_fits_its_functions_byte_bound(stores, worst):
    for name, (kept, _) in worst.items():
        assert kept <= stores[name].max_bytes, (name, kept / MB, stores[name].max_bytes / MB)


def test_the_caches_together_stay_within_the_total(stores, worst):
    """What the caches can keep: per function the smaller of entries x worst entry and its
    byte bound (the bound is exact: eviction runs before an entry is added)."""
    declared = sum(store.max_bytes for store in stores.values())
    reachable = sum(min(store.max_entries * worst[name][0], store.max_bytes)
                    for name, store in stores.items())
    assert reachable <= declared <= cache.TOTAL_CACHE_BYTES, (reachable / MB, declared / MB)


def test_the_server_stays_under_700_mb(worst):
    """Idle server + every cache full + the largest computations in every compute slot + the
    visitors' uploaded tables the uploads' budget lets the sessions hold."""
    peak = max(p for _, p in worst.values())
    total = (IDLE_SERVER_MB * MB + cache.TOTAL_CACHE_BYTES + memory_budget.COMPUTE_SLOTS * peak
             + memory_budget.HELD_UPLOADS.total)
    assert total <= SERVER_BUDGET_MB * MB, (total / MB, peak / MB)


@pytest.mark.parametrize("heavy", HEAVY, ids=[h.page for h in HEAVY])
def test_a_rerun_at_the_maximum_allocates_little_beyond_the_caches(heavy):
    """Every view of the page at the settings benchmarks/load_memory.py sends: once to fill
    the caches, then a rerun measured by tracemalloc (the figures' JSON included: AppTest
    builds the same messages as a session)."""
    script = next(page.script for page in PAGES if page.url_path == heavy.page)
    query = dict(urllib.parse.parse_qsl(heavy.request(0)))
    for view in heavy.views():
        if view:
            query["view"] = view
        at = open_page(script, query)
        assert not at.exception, (heavy.page, view, at.exception)
        gc.collect()
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            at.run()
            peak = tracemalloc.get_traced_memory()[1] - before
        finally:
            tracemalloc.stop()
        assert not at.exception, (heavy.page, view, at.exception)
        assert at.get("plotly_chart"), (heavy.page, view)  # the rerun drew its charts
        assert peak <= RERUN_MB * MB, (heavy.page, view, peak / MB)
