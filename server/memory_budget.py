"""The process's heavy work as one queue of memory, first come first served, and the exports'
queue beside it.

`HEAVY` is a `MemoryBudget` whose room is COMPUTE_SLOTS cache misses: each cache miss takes
COMPUTE_COST of it (server.run_slots.ComputeSlot): the visitors' lane. A figure image or a
slide's photograph (a Chromium, ~300 MB) first waits in `EXPORTS`, the exports' own queue (one
at a time, each waiter told how many are ahead), then for the process's own memory
(`own_memory`) and the image to fit in TREE_BUDGET, the caches giving back what is over and no
more (`shrinkable`: server.cache), refused with `ServerBusyError` after MEMORY_WAIT_S. Only once
the memory leaves it room does it take `HEAVY` (alone: no computation runs beside Chromium), for
the drawing only: a visitor's page never waits behind an export's wait (`image_turn`), nor
behind a drawing more than VISITORS_WAIT_S (the drawing is stopped).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping

from core import limits
from server.allocator import give_back

MB = 2**20
_LOGGER = logging.getLogger(__name__)
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
    asked_at: float = dataclasses.field(default_factory=time.monotonic)


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

    def longest_wait(self, kind: str) -> float:
        """How long the oldest waiting request of `kind` has waited, in seconds (0: none waits)."""
        with self._changed:
            asked = [share.asked_at for share in self._waiting if share.kind == kind]
        return time.monotonic() - min(asked) if asked else 0.0

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


# The process's heavy work, first come first served: cache misses (COMPUTE_COST each), and the
# drawing of figure images (export.files.IMAGE_COST: 7680 x 4320 ~340 MB of the process tree's
# unique memory, the Chromium started for it included) and slides' photographs (export.slides),
# once their memory is there (`image_turn`). A drawing is larger than the room: it runs alone.
HEAVY = MemoryBudget(COMPUTE_SLOTS * COMPUTE_COST)
# Position tables visitors uploaded (ui/table_upload.py), each held in its session until the
# visitor leaves or drops it: the file Streamlit keeps, and the float32 table read from it where
# it is not a view of the file's bytes (a float32 .npy or safetensors tensor is). UPLOAD_COST:
# the largest float32 file, 17 MB. UPLOADED_TABLES of them at once (a table that is a copy
# counts twice as much); the next upload waits for room (at most UPLOAD_WAIT_S, told its
# place), then is refused.
UPLOADED_TABLES = 10
UPLOAD_COST = limits.MAX_TABLE_FILE_BYTES
HELD_UPLOADS = MemoryBudget(UPLOADED_TABLES * UPLOAD_COST)
UPLOAD_WAIT_S = 30.0

# The exports' own queue (`image_turn`): one drawing at a time, first come first served. An
# export waits here, and then for memory, without holding any of HEAVY: a visitor's cache miss
# never queues behind an export that waits.
EXPORTS = MemoryBudget(1)



def tree_budget(environ: Mapping[str, str] = os.environ) -> int:
    """What the process tree (the server and the Chromium drawing an image) may hold, in unique
    memory: 700 MB (the smallest Streamlit Community Cloud box has about 690 MB), or
    PE_TREE_BUDGET_MB megabytes on a host of another size (docs/deployment.md). A value that is
    not a whole number from 1 to 1,000,000 is ignored, with a log line saying so."""
    text = environ.get(BUDGET_VARIABLE, "").strip()
    if text:
        if text.isdigit() and 1 <= int(text) <= 1_000_000:
            return int(text) * MB
        _LOGGER.warning("%s=%r is not a whole number of megabytes from 1 to 1000000: the "
                        "default %d MB is used", BUDGET_VARIABLE, text, DEFAULT_TREE_BUDGET // MB)
    return DEFAULT_TREE_BUDGET


BUDGET_VARIABLE = "PE_TREE_BUDGET_MB"
DEFAULT_TREE_BUDGET = 700 * MB
TREE_BUDGET = tree_budget()
# At most this long an image (or a slide's photograph) waits for the server's own memory to leave
# it room before it is refused ("try again in a minute"; RETRY_AFTER_S): drawn anyway, it would
# take the tree past TREE_BUDGET. It waits in the exports' queue, so only other exports wait
# behind it.
MEMORY_WAIT_S = 60.0
# A drawing holds the visitors' lane (`HEAVY`) alone. Once a visitor's computation has waited
# this long behind it, the drawing is stopped (VisitorsWaitingError, "try again in a minute"):
# a Chromium slowed down or silent on a saturated machine drew one image for its whole timeout
# (IMAGE_TIMEOUT_S, 120 s) while every visitor's new page waited (the short soak, in CI). An 8K
# PNG takes ~10 s on an idle 2-core box. The bound for a visitor's page is 20 s.
VISITORS_WAIT_S = 15.0
RETRY_AFTER_S = 60  # what a refused export is told to wait before it asks again

_registry_lock = threading.Lock()
# Released while an image is drawn, read again when next used (`reclaimable`): the MiniLM weights.
_reclaimable: list[Callable[[], None]] = []
# Asked to give memory back while an image waits for room, and given their room back when its
# turn ends (`shrinkable`): the caches. They register here because they sit above this module
# (a cache miss takes a compute slot, a share of HEAVY).
_shrinkable: list[tuple[Callable[[int], None], Callable[[], None]]] = []


class VisitorsWaitingError(RuntimeError):
    """A drawing stopped: a visitor's computation had waited VISITORS_WAIT_S behind it
    (`image_turn`'s check)."""


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


def visitors_waiting_check() -> None:
    """Raise VisitorsWaitingError if a visitor's computation has waited VISITORS_WAIT_S for the
    visitors' lane (a drawing holds it: `image_turn` yields this check for its drawing's poll)."""
    if HEAVY.longest_wait("compute") > VISITORS_WAIT_S:
        raise VisitorsWaitingError(
            f"a visitor's computation waited over {VISITORS_WAIT_S:.0f} s behind the drawing")


@contextlib.contextmanager
def image_turn(nbytes: int, on_wait: Callable[[int], None] | None = None,
               on_memory_wait: Callable[[int, int, float], None] | None = None, *,
               kind: str = "image",
               drop_model: bool = True) -> Iterator[Callable[[], None]]:
    """A figure image's (or a slide's photograph's, `kind` "slide") turn to draw.

    1. Its place in `EXPORTS` (first come first served, one at a time), `on_wait(ahead of its
       kind)` called while it waits (what it raises ends the wait).
    2. With `drop_model`, what is `reclaimable` is dropped (a slide keeps the model its page may
       draw with); then, while the process's own memory and `nbytes` would not fit in
       TREE_BUDGET, the caches give back what is over (least recently used first, no more) and
       the turn waits for the rest to fall, `on_memory_wait(held, allowed, seconds_left)` called
       every WAIT_POLL_S seconds; after MEMORY_WAIT_S it gives up with ServerBusyError rather
       than go past the budget. It holds nothing of the visitors' lane meanwhile.
    3. `HEAVY`, alone, for the drawing (the block): it waits for the computations already asked
       for (`on_wait(0)`), and if they left the memory too high, lets go and waits again. The
       block is given `visitors_waiting_check`, for its drawing's poll: a visitor's page does
       not wait behind a drawing more than VISITORS_WAIT_S.

    Entries given back are computed again when next asked for; the caches' room comes back when
    the turn ends."""
    with EXPORTS.share(1, kind=kind, on_wait=on_wait):
        if drop_model:
            for release in list(_reclaimable):
                release()
        give_back()  # what the model and finished runs freed goes back before Chromium starts
        try:
            deadline = time.monotonic() + MEMORY_WAIT_S
            while True:
                _wait_for_room(nbytes, deadline, on_memory_wait)
                drawing = HEAVY.acquire(nbytes, kind=kind, on_wait=on_wait)
                if own_memory() <= TREE_BUDGET - nbytes:
                    break
                HEAVY.release(drawing)  # a computation took the room meanwhile: wait again
            try:
                yield visitors_waiting_check
            finally:
                HEAVY.release(drawing)
        finally:
            for _, restore in list(_shrinkable):
                restore()


def _wait_for_room(nbytes: int, deadline: float,
                   on_memory_wait: Callable[[int, int, float], None] | None) -> None:
    """Until the process's own memory leaves `nbytes` room in TREE_BUDGET (see `image_turn`);
    ServerBusyError past `deadline`."""
    allowed = TREE_BUDGET - nbytes
    held = own_memory()
    while held > allowed:
        left = deadline - time.monotonic()
        if left < 0:
            raise ServerBusyError(held, allowed)
        for shrink, _ in list(_shrinkable):
            shrink(held - allowed)
        if on_memory_wait is not None:
            on_memory_wait(held, allowed, left)
        time.sleep(WAIT_POLL_S)
        give_back()
        held = own_memory()


def exports_waiting(kind: str) -> int:
    """How many exports of `kind` wait for their turn (`image_turn`): none, and the drawing's
    Chromium may close."""
    return EXPORTS.count(kind, waiting=True)
