"""The process's heavy work as one queue of memory, first come first served.

`HEAVY` is a `MemoryBudget` whose room is COMPUTE_SLOTS cache misses: each cache miss takes
COMPUTE_COST of it (server.run_slots.ComputeSlot), and a figure image or a slide's photograph (a
Chromium, ~300 MB) takes its turn alone (`image_turn`), each waiting one told how many are ahead.
An image's turn drops what the process can read again (`reclaimable`: the model's weights),
then waits until the process's own memory (`own_memory`) and the image fit in TREE_BUDGET, the
caches giving back what is over and no more (`shrinkable`: server.cache), and is refused with
`ServerBusyError` after MEMORY_WAIT_S.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
from collections.abc import Callable, Iterator

from server.allocator import give_back

MB = 2**20
# Cache misses computed at once per process. One: the largest computations peak at ~100 MB
# (tests/test_cache_budget.py measures each), and every session's rerun also holds its figure
# while it is built and sent (the concurrent scenario of benchmarks/load_memory.py); the second
# core still serves the other sessions' reruns, which hit the caches.
COMPUTE_SLOTS = 1
# What one cache miss may hold at its peak (the largest measured, tests/test_cache_budget.py).
# The compute slots are `HEAVY`'s room: COMPUTE_SLOTS cache misses, or one figure image.
COMPUTE_COST = 100 * MB

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
# images (export.files.IMAGE_COST: 7680 x 4320 ~340 MB of the process tree's unique memory,
# the Chromium started for it included) and slides' photographs (export.slides). An image
# or a photograph is larger than the room, so it runs alone.
HEAVY = MemoryBudget(COMPUTE_SLOTS * COMPUTE_COST)

# What the process tree (the server and the Chromium drawing an image) may hold, in unique memory:
# the smallest Streamlit Community Cloud box has about 690 MB.
TREE_BUDGET = 700 * MB
# At most this long an image (or a slide's photograph) waits for the server's own memory to leave
# it room before it is refused ("try again in a minute"): drawn anyway, it would take the tree
# past TREE_BUDGET.
MEMORY_WAIT_S = 60.0

_registry_lock = threading.Lock()
# Released while an image is drawn, read again when next used (`reclaimable`): the MiniLM weights.
_reclaimable: list[Callable[[], None]] = []
# Asked to give memory back while an image waits for room, and given their room back when its
# turn ends (`shrinkable`): the caches. They register here because they sit above this module
# (a cache miss takes a compute slot, a share of HEAVY).
_shrinkable: list[tuple[Callable[[int], None], Callable[[], None]]] = []


class ServerBusyError(RuntimeError):
    """The process's memory did not leave a turn's room within MEMORY_WAIT_S (`image_turn`)."""

    def __init__(self, held: int, allowed: int) -> None:
        super().__init__(f"the server holds {held // MB} MB, more than the {allowed // MB} MB "
                         f"that leave room for the drawing")
        self.held, self.allowed = held, allowed


def reclaimable(release: Callable[[], None]) -> Callable[[], None]:
    """Register `release`, which drops what the process holds but can read again (a model's
    weights): called at the start of every image's turn (`image_turn`). Returns it (a decorator)."""
    with _registry_lock:
        if release not in _reclaimable:
            _reclaimable.append(release)
    return release


def shrinkable(shrink: Callable[[int], None], restore: Callable[[], None]) -> None:
    """Register `shrink(excess)`, which gives back about `excess` bytes (server.cache: the caches'
    least recently used entries), called while an image's turn waits for the process's memory
    to fall, and `restore()`, which lets it keep as much as before, called when the turn ends."""
    with _registry_lock:
        if (shrink, restore) not in _shrinkable:
            _shrinkable.append((shrink, restore))


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
        give_back()  # what the model and finished runs freed goes back before Chromium starts
        try:
            allowed = TREE_BUDGET - nbytes
            deadline = time.monotonic() + MEMORY_WAIT_S
            held = own_memory()
            while held > allowed:
                if time.monotonic() > deadline:
                    raise ServerBusyError(held, allowed)
                for shrink, _ in list(_shrinkable):
                    shrink(held - allowed)
                if on_memory_wait is not None:
                    on_memory_wait(held, allowed)
                time.sleep(WAIT_POLL_S)
                give_back()
                held = own_memory()
            yield
        finally:
            for _, restore in list(_shrinkable):
                restore()
