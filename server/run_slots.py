"""Slots that bound what runs at once in the process.

Page runs: RUN_SLOTS at once (`run_slot`, app.py), each holding its figures, their JSON and its
messages while it builds them; a run waiting for an image's turn lends its slot to the others
(`run_slot_lent`). Computations: 30 sessions missing the caches at once would each build their
tables at the same time (8.5 GB measured), so a cache miss (server.cache.bounded_cache) or a
download's exact table (`in_compute_slot`) runs in a `ComputeSlot`, a share of the heavy work's
queue (server.memory_budget.HEAVY, COMPUTE_SLOTS of them), re-entrant: a cached function that calls
another keeps its one slot.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from collections.abc import Callable, Iterator
from typing import Any

from server import allocator, memory_budget

# Page runs at once per process (app.py): 30 sessions' reruns at once each held their figures,
# JSON and messages at the same time (+150 MB measured over what the caches keep); the others
# wait for a slot, briefly (a run that hits the caches takes tens of milliseconds).
RUN_SLOTS = 4

_held = threading.local()  # this thread's run slot, and how deep it is in cache misses
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


@dataclasses.dataclass
class ComputeSlot:
    """A compute slot for this thread (COMPUTE_COST of server.memory_budget.HEAVY), taken only by
    the outermost computation."""

    def __enter__(self) -> None:
        depth = getattr(_held, "depth", 0)
        if depth == 0:
            # Looked up on the module at each use: a test's own HEAVY is the one used.
            _held.share = memory_budget.HEAVY.acquire(memory_budget.COMPUTE_COST, kind="compute")
        _held.depth = depth + 1

    def __exit__(self, *exc: object) -> None:
        _held.depth -= 1
        if _held.depth == 0:
            # The computation's temporaries are freed; glibc keeps freed heap pages mapped
            # (RSS that stays after a burst) unless asked to hand them back. ~1 ms.
            allocator.give_back()
            memory_budget.HEAVY.release(_held.share)


def in_compute_slot(func: Callable[..., Any], *args: Any) -> Callable[[], Any]:
    """``func(*args)`` to be called later (a download's data) inside a compute slot, as a cache
    miss is: an exact table built for a download is as large as the largest cache misses."""

    def call() -> Any:
        with ComputeSlot():
            return func(*args)

    return call
