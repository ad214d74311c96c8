"""The pages' cache: one per cached function and process, shared by every session, bounded in
entries and in bytes.

Streamlit's ``st.cache_data`` is bounded in entries only, and an entry may be anything: 32 entries
of the word-position page at d_model 4096 held 1.6 GB. It also hands every call a pickled copy.
`bounded_cache` instead keeps the value itself (no copy per rerun: values are shared, so they are
read-only; their arrays are marked so) and evicts the least recently used entries until both
bounds hold. An entry larger than the byte bound is returned but not kept.

A cache miss computes in a compute slot (server.run_slots.ComputeSlot, waiting its turn), and two
sessions asking for the same entry compute it once, the second waiting for the first. All the
caches together keep at most TOTAL_CACHE_BYTES (`cache_room`), less while an image's turn needs
the room (server.memory_budget.image_turn asks them through `shrinkable`).

Streamlit's own cache-clearing (its "clear cache" message, `st.cache_data.clear`) does not touch
these caches (`server.guard` explains why a visitor must not clear them); `clear_all` does (tests).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

# MB and in_compute_slot are re-exported: the pages import them with bounded_cache from here, their
# one module for caching (MB lives with the memory budget, in_compute_slot with the compute slots).
from server.memory_budget import MB, shrinkable
from server.run_slots import ComputeSlot
from server.run_slots import in_compute_slot as in_compute_slot

# What all the caches together may keep. Large tables are not kept, only what the charts draw
# (overviews, maps, curves), so that the idle server (~250 MB with MiniLM), full caches, the
# computation at its largest and 30 sessions' reruns fit in 700 MB (Streamlit Community Cloud's
# smallest box has about 690 MB).
TOTAL_CACHE_BYTES = 160 * MB
# What they keep once the last session has left (`trim_for_idle`): the most recently used
# entries, about what warming every page at its defaults fills. An idle server gives back the
# rest, so its memory returns to its warm start however full the hour left them.
IDLE_CACHE_BYTES = 32 * MB

F = TypeVar("F", bound=Callable[..., Any])
_MISSING = object()


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

    def fit(self, room: int | None = None) -> None:
        """Evict the least recently used entries until it keeps at most `bound()` bytes (or
        its share of `room` bytes for all the caches, if that is less)."""
        bound = self.bound()
        if room is not None:
            bound = min(bound, self.max_bytes * room // TOTAL_CACHE_BYTES)
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


# While an image is drawn, the caches keep less if the tree needs it
# (server.memory_budget.image_turn): the plan that fits 700 MB is the idle server, full caches, one
# computation and 30 sessions' reruns, and an image's Chromium costs more than a computation.
_cache_room = TOTAL_CACHE_BYTES  # bytes the caches may keep now


def cache_room() -> int:
    """Bytes all the caches together may keep now: TOTAL_CACHE_BYTES, less while an image is
    drawn (server.memory_budget.image_turn). Each cache keeps its `max_bytes` times the same
    fraction."""
    return _cache_room


def _set_cache_room(nbytes: int) -> None:
    global _cache_room
    with _stores_lock:
        _cache_room = max(0, min(TOTAL_CACHE_BYTES, nbytes))
        stores = list(STORES.values())
    for store in stores:
        store.fit()


def trim_for_idle() -> int:
    """With no session left (server/sessions.py): every cache keeps only its most recently used
    share of IDLE_CACHE_BYTES; the room to grow again is unchanged. The bytes given back."""
    before = cached_bytes()
    with _stores_lock:
        stores = list(STORES.values())
    for store in stores:
        store.fit(IDLE_CACHE_BYTES)
    return before - cached_bytes()


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


def _restore_cache_room() -> None:
    _set_cache_room(TOTAL_CACHE_BYTES)


shrinkable(_shrink_caches, _restore_cache_room)


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
            # The compute slot first, then the key's lock: a key's lock is only ever held with
            # a slot, so a session waiting for a slot holds no key another session's
            # computation may ask for (outer(1) computing asks inner(1), which a session
            # asking inner(1) directly held while it waited for the slot: a deadlock).
            with ComputeSlot():
                with store.lock:
                    key_lock = store.computing.setdefault(key, threading.Lock())
                try:
                    with key_lock:  # one computation per key: later callers wait, then read it
                        value = store.get(key)
                        if value is _MISSING:
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
