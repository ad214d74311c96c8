"""The pages' cache: one per cached function and process, shared by every session, bounded in
entries and in bytes.

Streamlit's ``st.cache_data`` is bounded in entries only, and an entry may be anything: 32 entries
of the word-position page at d_model 4096 held 1.6 GB. It also hands every call a pickled copy.
`bounded_cache` instead keeps the value itself (no copy per rerun: values are shared, so they are
read-only; their arrays are marked so) and evicts the least recently used entries until both
bounds hold. An entry larger than the byte bound is returned but not kept.

What is computed is bounded too: 30 sessions missing the cache at once would each build their
tables at the same time (8.5 GB measured). A cache miss therefore computes inside one of
`COMPUTE_SLOTS` process-wide slots (waiting its turn otherwise), and two sessions asking for the
same entry compute it once, the second waiting for the first. The slots are re-entrant: a cached
function that calls another keeps its one slot. A download that builds an exact table takes one
too (`in_compute_slot`). Page runs themselves are bounded (`run_slot`, app.py): each holds its
figures, their JSON and its messages while it builds them. Figure images and slides'
photographs (drawn by a Chromium, ~300 MB each) are heavy work too: the compute slots are one
queue (`HEAVY`, a `MemoryBudget`, first come first served, each waiting image told how many are
ahead); an image runs alone in it, the model's weights dropped for it (`reclaimable`), and
Chromium starts once the process's own memory leaves room for it in TREE_BUDGET, the caches
giving back what is over and no more (`image_turn`; refused after MEMORY_WAIT_S).
Freed memory goes back to the system after each computation and whenever the RSS has grown
(`start_trimmer`, glibc's malloc_trim); `tune_allocator` sets glibc's arenas and mmap threshold
from inside the process.

Streamlit's own cache-clearing (its "clear cache" message, `st.cache_data.clear`) does not touch
these caches (`ui.guard` explains why a visitor must not clear them); `clear_all` does (tests).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import dataclasses
import functools
import inspect
import os
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

MB = 2**20
# Cache misses computed at once per process. One: the largest computations peak at ~100 MB
# (tests/test_cache_budget.py measures each), and every session's rerun also holds its figure
# while it is built and sent (the concurrent scenario of benchmarks/load_memory.py); the second
# core still serves the other sessions' reruns, which hit the caches.
COMPUTE_SLOTS = 1
# What all the caches together may keep. Large tables are not kept, only what the charts draw
# (overviews, maps, curves), so that the idle server (~250 MB with MiniLM), full caches, the
# computation at its largest and 30 sessions' reruns fit in 700 MB (Streamlit Community Cloud's
# smallest box has about 690 MB).
TOTAL_CACHE_BYTES = 160 * MB

# Page runs at once per process (app.py): 30 sessions' reruns at once each held their figures,
# JSON and messages at the same time (+150 MB measured over what the caches keep); the others
# wait for a slot, briefly (a run that hits the caches takes tens of milliseconds).
RUN_SLOTS = 4

# What one cache miss may hold at its peak (the largest measured, tests/test_cache_budget.py).
# The compute slots are `HEAVY`'s room: COMPUTE_SLOTS cache misses, or one figure image.
COMPUTE_COST = 100 * MB

F = TypeVar("F", bound=Callable[..., Any])
_MISSING = object()
_held = threading.local()  # how deep this thread is in cache misses (re-entrant slots)
_run_slots = threading.BoundedSemaphore(RUN_SLOTS)


@contextlib.contextmanager
def run_slot() -> Iterator[None]:
    """One of `RUN_SLOTS` for a page's run (app.py): waits for one. Released however the run
    ends (a rerun or stop request raises through it)."""
    with _run_slots:
        _held.run_slot = True
        try:
            yield
        finally:
            _held.run_slot = False


@contextlib.contextmanager
def run_slot_lent() -> Iterator[None]:
    """In a page's run (`run_slot`), its slot lent to the other sessions' runs for the block:
    a run that waits long (an image's turn) does not keep the others from running. Taken back
    at the block's end, however it ends. Elsewhere (a fragment's run), just the block."""
    if not getattr(_held, "run_slot", False):
        yield
        return
    _held.run_slot = False
    _run_slots.release()
    try:
        yield
    finally:
        _run_slots.acquire()
        _held.run_slot = True


def _libc_malloc_trim() -> Callable[[int], int] | None:
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc (musl, macOS): nothing to trim
        return None


_malloc_trim = _libc_malloc_trim()

# glibc's mallopt parameters (malloc.h): at most this many arenas, and blocks of at least this
# many bytes mapped apart (handed back to the system when freed; a threshold set explicitly
# stays where it is set, instead of rising to 32 MB after the first large free).
_M_MMAP_THRESHOLD, _M_ARENA_MAX = -3, -8
ARENA_MAX = 2
MMAP_THRESHOLD = 128 * 1024


def tune_allocator() -> bool:
    """Set glibc's allocator as the Dockerfile's MALLOC_ARENA_MAX=2 and
    MALLOC_MMAP_THRESHOLD_=131072 do, from inside the process, for a server started without
    them (`streamlit run serve.py` on a hosting platform): 20 sessions of large heatmaps left
    688 MB held by glibc's defaults after they left, 309 MB with these. Arenas made before the
    call stay, so serve.py calls it at import, before the first session. Returns whether glibc
    took both (False elsewhere)."""
    try:
        mallopt = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").mallopt
    except (OSError, AttributeError):  # not glibc
        return False
    return bool(mallopt(_M_ARENA_MAX, ARENA_MAX)) and bool(
        mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))
TRIM_EVERY_S = 1.0  # how often the trimmer looks at the process's RSS
TRIM_GROWTH = 16 * MB  # RSS grown by this much since the last trim: trim again
# Trims after each growth, a second apart: a trim while a rerun still holds its figure returns
# nothing, and the RSS does not grow again when the rerun then frees it (the RSS cannot tell
# freed pages from used ones): without these, those pages stayed until the next growth.
TRIM_FOLLOW_UPS = 5


def _rss_bytes() -> int:
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):  # not Linux: no trimmer (see start_trimmer)
        return 0


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _trim_forever(rss: Callable[[], int] = _rss_bytes, trim=_malloc_trim,
                  sleep: Callable[[float], None] = time.sleep) -> None:
    after_trim = rss()
    follow_ups = 0
    while True:
        sleep(TRIM_EVERY_S)
        grown = rss() > after_trim + TRIM_GROWTH
        if grown or follow_ups:
            trim(0)
            follow_ups = TRIM_FOLLOW_UPS if grown else follow_ups - 1
            after_trim = rss()
        else:
            after_trim = min(after_trim, rss())


_trimmer: threading.Thread | None = None


def start_trimmer() -> None:
    """Hand freed heap pages back to the system whenever the RSS has grown: a session's rerun
    frees its figure, its JSON and its protobuf message after they are sent, outside any cache
    miss, and glibc keeps those pages (30 sessions' worth stayed mapped: ~500 MB measured).
    One daemon thread per process; nothing on a system without glibc's malloc_trim."""
    global _trimmer
    with _stores_lock:
        if _trimmer is not None or _malloc_trim is None or not _rss_bytes():
            return
        _trimmer = threading.Thread(target=_trim_forever, name="malloc-trim", daemon=True)
        _trimmer.start()


@dataclasses.dataclass(eq=False)
class Store:
    """One cached function's entries, least recently used first."""

    name: str  # "<file stem>.<function>", e.g. "similarity.cached_sinusoid"
    func: Callable[..., Any]  # the undecorated function (the page's newest definition)
    max_entries: int
    max_bytes: int
    # The calls that make its largest entries (arguments as tuples): why max_bytes is what it is.
    # tests/test_cache_budget.py measures each and checks it fits.
    worst_case: tuple[tuple, ...] = ()
    entries: OrderedDict[Hashable, tuple[Any, int]] = dataclasses.field(
        default_factory=OrderedDict)  # key -> (value, its size in bytes)
    nbytes: int = 0
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)
    computing: dict[Hashable, threading.Lock] = dataclasses.field(default_factory=dict)

    def get(self, key: Hashable) -> Any:
        with self.lock:
            if key not in self.entries:
                return _MISSING
            self.entries.move_to_end(key)
            return self.entries[key][0]

    def bound(self) -> int:
        """The bytes it may keep now: max_bytes, less while an image is drawn (`cache_room`)."""
        return self.max_bytes * cache_room() // TOTAL_CACHE_BYTES

    def put(self, key: Hashable, value: Any) -> None:
        size = deep_nbytes(value, freeze=True)
        bound = self.bound()
        with self.lock:
            if key in self.entries:
                self.nbytes -= self.entries.pop(key)[1]
            if size > bound:
                return  # larger than the whole budget: handed back, not kept
            while self.entries and (len(self.entries) >= self.max_entries
                                    or self.nbytes + size > bound):
                self.nbytes -= self.entries.popitem(last=False)[1][1]
            self.entries[key] = (value, size)
            self.nbytes += size

    def fit(self) -> None:
        """Evict the least recently used entries until it keeps at most `bound()` bytes."""
        bound = self.bound()
        with self.lock:
            while self.entries and self.nbytes > bound:
                self.nbytes -= self.entries.popitem(last=False)[1][1]

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()
            self.nbytes = 0


STORES: dict[str, Store] = {}
_stores_lock = threading.Lock()


def clear_all() -> None:
    """Empty every cache (tests: a fresh process's state)."""
    for store in list(STORES.values()):
        store.clear()


WAIT_POLL_S = 0.5  # how often a waiter of the memory budget is told its place (and may leave)


@dataclasses.dataclass(eq=False)
class Share:
    """One request for part of a `MemoryBudget`: waiting, then held until released."""

    nbytes: int
    kind: str  # what it is for: a waiter is told how many of its kind are ahead


class MemoryBudget:
    """Bytes of memory the process's heavy work may hold at once, handed out first come, first
    served: a request is granted when every older one has been and its bytes fit beside those
    held (a request larger than the whole budget runs alone). Nothing overtakes a waiting large
    request, so it is not starved by a stream of small ones."""

    def __init__(self, total: int) -> None:
        if total < 1:
            raise ValueError(f"total={total} is not allowed: total must be >= 1")
        self.total = total
        self.used = 0
        self._waiting: list[Share] = []  # oldest first
        self._holding: list[Share] = []
        self._changed = threading.Condition()

    def ahead(self, share: Share) -> int:
        """How many requests of `share`'s kind are held or wait before it (0 once granted)."""
        with self._changed:
            if share not in self._waiting:
                return 0
            older = self._waiting[:self._waiting.index(share)]
            return sum(other.kind == share.kind for other in [*self._holding, *older])

    def count(self, kind: str, *, waiting: bool) -> int:
        with self._changed:
            return sum(s.kind == kind for s in (self._waiting if waiting else self._holding))

    def acquire(self, nbytes: int, *, kind: str = "image",
                on_wait: Callable[[int], None] | None = None) -> Share:
        """Wait for `nbytes` (first come, first served) and hold them. While it waits,
        `on_wait(ahead)` runs in this thread at once and every WAIT_POLL_S seconds; whatever
        it raises ends the wait (the request leaves the queue) and is raised here."""
        share = Share(nbytes, kind)
        with self._changed:
            self._waiting.append(share)
        try:
            while True:
                with self._changed:
                    if self._grantable(share):
                        self._waiting.remove(share)
                        self._holding.append(share)
                        self.used += share.nbytes
                        self._changed.notify_all()  # the next one may fit too
                        return share
                    if on_wait is None:
                        self._changed.wait()
                        continue
                on_wait(self.ahead(share))
                with self._changed:
                    if not self._grantable(share):
                        self._changed.wait(WAIT_POLL_S)
        except BaseException:
            with self._changed:
                if share in self._waiting:
                    self._waiting.remove(share)
                    self._changed.notify_all()  # the one behind may now be first
            raise

    def _grantable(self, share: Share) -> bool:
        return (self._waiting[0] is share
                and (self.used + share.nbytes <= self.total or not self._holding))

    def release(self, share: Share) -> None:
        with self._changed:
            self._holding.remove(share)
            self.used -= share.nbytes
            self._changed.notify_all()

    @contextlib.contextmanager
    def share(self, nbytes: int, *, kind: str = "image",
              on_wait: Callable[[int], None] | None = None) -> Iterator[Share]:
        """`acquire` ... `release` around a block."""
        share = self.acquire(nbytes, kind=kind, on_wait=on_wait)
        try:
            yield share
        finally:
            self.release(share)


# The process's heavy work, first come first served: cache misses (COMPUTE_COST each), figure
# images (figures.export.IMAGE_COST: 7680 x 4320 ~340 MB of the process tree's unique memory,
# the Chromium started for it included) and slides' photographs (export.slides). An image
# or a photograph is larger than the room, so it runs alone.
HEAVY = MemoryBudget(COMPUTE_SLOTS * COMPUTE_COST)

# While an image is drawn, the caches keep less if the tree needs it (`image_turn`): the plan that
# fits 700 MB is the idle server, full caches, one computation and 30 sessions' reruns, and an
# image's Chromium costs more than a computation.
_cache_room = TOTAL_CACHE_BYTES  # bytes the caches may keep now


def cache_room() -> int:
    """Bytes all the caches together may keep now: TOTAL_CACHE_BYTES, less while an image is
    drawn (`image_turn`). Each cache keeps its `max_bytes` times the same fraction."""
    return _cache_room


def _set_cache_room(nbytes: int) -> None:
    global _cache_room
    with _stores_lock:
        _cache_room = max(0, min(TOTAL_CACHE_BYTES, nbytes))
        stores = list(STORES.values())
    for store in stores:
        store.fit()


# What the process tree (the server and the Chromium drawing an image) may hold, in unique memory:
# the smallest Streamlit Community Cloud box has about 690 MB.
TREE_BUDGET = 700 * MB
# At most this long an image (or a slide's photograph) waits for the server's own memory to leave
# it room before it is refused ("try again in a minute"): drawn anyway, it would take the tree
# past TREE_BUDGET.
MEMORY_WAIT_S = 60.0

# Released while an image is drawn, read again when next used (`reclaimable`): the MiniLM weights.
_reclaimable: list[Callable[[], None]] = []


class ServerBusyError(RuntimeError):
    """The process's memory did not leave a turn's room within MEMORY_WAIT_S (`image_turn`)."""

    def __init__(self, held: int, allowed: int) -> None:
        super().__init__(f"the server holds {held // MB} MB, more than the {allowed // MB} MB "
                         f"that leave room for the drawing")
        self.held, self.allowed = held, allowed


def reclaimable(release: Callable[[], None]) -> Callable[[], None]:
    """Register `release`, which drops what the process holds but can read again (a model's
    weights): called at the start of every image's turn (`image_turn`). Returns it (a decorator)."""
    with _stores_lock:
        if release not in _reclaimable:
            _reclaimable.append(release)
    return release


def own_memory() -> int:
    """This process's unique memory (USS: the pages no other process shares, what the memory
    budget counts), in bytes; 0 where /proc/self/smaps_rollup cannot be read (not Linux)."""
    total = 0
    try:
        with open("/proc/self/smaps_rollup") as rollup:
            for line in rollup:
                if line.startswith(("Private_Clean:", "Private_Dirty:")):
                    total += int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return 0
    return total


def _give_back() -> None:
    """Freed heap pages back to the system (glibc), where it can."""
    if _malloc_trim is not None:
        _malloc_trim(0)


def cached_bytes() -> int:
    """What all the caches keep now."""
    with _stores_lock:
        stores = list(STORES.values())
    return sum(store.nbytes for store in stores)


def _shrink_caches(excess: int) -> None:
    """The caches give back about `excess` bytes, each its least recently used entries, the same
    fraction of each (and at least a megabyte of room, so that waiting makes progress)."""
    kept = cached_bytes()
    if kept <= 0:
        return
    room = cache_room()
    _set_cache_room(min(room * max(0, kept - excess) // kept, room - MB))


@contextlib.contextmanager
def image_turn(nbytes: int, on_wait: Callable[[int], None] | None = None,
               on_memory_wait: Callable[[int, int], None] | None = None, *,
               kind: str = "image", drop_model: bool = True) -> Iterator[None]:
    """A figure image's (or a slide's photograph's, `kind` "slide") turn of the heavy work
    (`HEAVY`, first come first served; it runs alone), `on_wait(ahead of its kind)` called
    while it waits (what it raises ends the wait). With `drop_model`, what is `reclaimable` is
    dropped first (a slide keeps the model its page may draw with). Then, while the process's
    own memory and the turn's `nbytes` would not fit in TREE_BUDGET (other sessions' runs and
    departed sessions still hold theirs), the caches give back what is over, least recently used
    first and no more than that, and the turn waits for the rest to fall,
    `on_memory_wait(held, allowed)` (bytes) called every WAIT_POLL_S seconds: after
    MEMORY_WAIT_S it gives up with ServerBusyError rather than go past the budget. Entries given
    back are computed again when next asked for; the caches' room comes back when the turn ends."""
    with HEAVY.share(nbytes, kind=kind, on_wait=on_wait):
        if drop_model:
            for release in list(_reclaimable):
                release()
        _give_back()  # what the model and finished runs freed goes back before Chromium starts
        try:
            allowed = TREE_BUDGET - nbytes
            deadline = time.monotonic() + MEMORY_WAIT_S
            held = own_memory()
            while held > allowed:
                if time.monotonic() > deadline:
                    raise ServerBusyError(held, allowed)
                _shrink_caches(held - allowed)
                if on_memory_wait is not None:
                    on_memory_wait(held, allowed)
                time.sleep(WAIT_POLL_S)
                _give_back()
                held = own_memory()
            yield
        finally:
            _set_cache_room(TOTAL_CACHE_BYTES)


@dataclasses.dataclass
class _Slot:
    """A compute slot for this thread, taken only by the outermost cache miss."""

    def __enter__(self) -> None:
        depth = getattr(_held, "depth", 0)
        if depth == 0:
            _held.share = HEAVY.acquire(COMPUTE_COST, kind="compute")
        _held.depth = depth + 1

    def __exit__(self, *exc: object) -> None:
        _held.depth -= 1
        if _held.depth == 0:
            # The computation's temporaries are freed; glibc keeps freed heap pages mapped
            # (RSS that stays after a burst) unless asked to hand them back. ~1 ms.
            if _malloc_trim is not None:
                _malloc_trim(0)
            HEAVY.release(_held.share)


def in_compute_slot(func: Callable[..., Any], *args: Any) -> Callable[[], Any]:
    """``func(*args)`` to be called later (a download's data) inside a compute slot, as a cache
    miss is: an exact table built for a download is as large as the largest cache misses."""

    def call() -> Any:
        with _Slot():
            return func(*args)

    return call


def bounded_cache(*, max_entries: int, max_bytes: int,
                  worst_case: Iterable[tuple] = ()) -> Callable[[F], F]:
    """Cache a function's results by its arguments (those named with a leading underscore are
    not part of the key, as with Streamlit's caches; the others must be hashable).

    `worst_case` lists the arguments of the calls that make its largest entries (the pages'
    caps): the reason for `max_bytes`, beside it. Every cache of the app declares one;
    tests/test_cache_budget.py measures each call and checks that it fits.

    Keyed by the function's file and name, so a page script, run again on every rerun, finds
    the entries its previous runs made. Values are shared by every caller: read-only."""
    if max_entries < 1 or max_bytes < 1:
        raise ValueError(f"max_entries and max_bytes must be >= 1, got {max_entries}, "
                         f"{max_bytes}")

    def decorate(func: F) -> F:
        name = f"{Path(func.__code__.co_filename).stem}.{func.__qualname__}"
        with _stores_lock:
            store = STORES.get(name)
            if store is None:
                store = STORES[name] = Store(name, func, max_entries, max_bytes)
            store.func, store.max_entries, store.max_bytes = func, max_entries, max_bytes
            store.worst_case = tuple(worst_case)
        signature = inspect.signature(func)

        @functools.wraps(func)
        def cached(*args: Any, **kwargs: Any) -> Any:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            key = tuple((k, v) for k, v in bound.arguments.items() if not k.startswith("_"))
            value = store.get(key)
            if value is not _MISSING:
                return value
            with store.lock:
                key_lock = store.computing.setdefault(key, threading.Lock())
            try:
                with key_lock:  # one computation per key: later callers wait, then read it
                    value = store.get(key)
                    if value is _MISSING:
                        with _Slot():
                            value = func(*args, **kwargs)
                        store.put(key, value)
            finally:
                with store.lock:
                    store.computing.pop(key, None)
            return value

        cached.store = store  # type: ignore[attr-defined]
        cached.clear = store.clear  # type: ignore[attr-defined]
        return cached  # type: ignore[return-value]

    return decorate


def deep_nbytes(value: Any, *, freeze: bool = False) -> int:
    """The memory `value` holds: its arrays' buffers (a view counts its base, once) and the
    Python objects around them, followed through containers, dataclasses and attributes.
    With `freeze`, every array found is marked read-only (the value is about to be shared)."""
    seen: set[int] = set()
    total = 0
    stack = [value]
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, np.ndarray):
            if freeze:
                obj.flags.writeable = False
            base = obj
            while isinstance(base.base, np.ndarray):
                base = base.base
            if base is not obj:
                if id(base) in seen:
                    total += 128  # a view's header: its base is counted already
                    continue
                seen.add(id(base))
            total += base.nbytes + 128  # buffer + header
        elif hasattr(obj, "untyped_storage"):  # a torch tensor
            total += obj.untyped_storage().nbytes() + 128
        elif isinstance(obj, str | bytes | int | float | complex | bool | type(None)):
            total += sys.getsizeof(obj)
        elif isinstance(obj, dict):
            total += sys.getsizeof(obj)
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, list | tuple | set | frozenset):
            total += sys.getsizeof(obj)
            stack.extend(obj)
        elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            total += sys.getsizeof(obj)
            stack.extend(getattr(obj, f.name) for f in dataclasses.fields(obj))
            if hasattr(obj, "__dict__"):
                stack.append(vars(obj))  # cached properties
        elif hasattr(obj, "__dict__") and not isinstance(obj, type):
            total += sys.getsizeof(obj)
            stack.append(vars(obj))
        else:
            total += sys.getsizeof(obj)
    return total
