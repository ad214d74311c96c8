"""server.memory_budget.image_turn: an image's turn drops what is reclaimable, takes from the caches
what is over the tree's budget and no more, waits for the process's memory to fall, and is
refused when it does not. (The queue's order: tests/test_export_queue.py.)"""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from server import cache, memory_budget
from server.cache import bounded_cache
from server.memory_budget import (
    COMPUTE_COST,
    MB,
    TREE_BUDGET,
    MemoryBudget,
    ServerBusyError,
    image_turn,
    own_memory,
)


def test_an_images_turn_drops_what_is_reclaimable_and_waits_for_the_memory_to_fall(monkeypatch):
    """Before Chromium starts: what is registered as reclaimable is released, then the image
    waits while the process's own memory and its cost would not fit in TREE_BUDGET, told what
    is held and what lets it start."""
    monkeypatch.setattr(memory_budget, "HEAVY", MemoryBudget(COMPUTE_COST))
    monkeypatch.setattr(memory_budget, "WAIT_POLL_S", 0.01)
    released: list[str] = []
    monkeypatch.setattr(memory_budget, "_reclaimable", [lambda: released.append("model")])
    readings = iter([600 * MB, 500 * MB, 300 * MB])
    monkeypatch.setattr(memory_budget, "own_memory", lambda: next(readings, 300 * MB))
    waits: list[tuple[int, int]] = []
    with image_turn(340 * MB, on_memory_wait=lambda held, allowed, left: waits.append(
            (held, allowed))):
        assert released == ["model"]
    allowed = TREE_BUDGET - 340 * MB
    assert waits == [(600 * MB, allowed), (500 * MB, allowed)]
    assert memory_budget.HEAVY.used == 0


def test_an_image_is_refused_when_the_memory_never_leaves_it_room(monkeypatch):
    """A server whose memory does not fall within MEMORY_WAIT_S gets its image refused
    (ServerBusyError: the menu says to try again), never drawn past the tree's budget; its turn
    is given back."""
    monkeypatch.setattr(memory_budget, "HEAVY", MemoryBudget(COMPUTE_COST))
    monkeypatch.setattr(memory_budget, "WAIT_POLL_S", 0.01)
    monkeypatch.setattr(memory_budget, "MEMORY_WAIT_S", 0.3)
    monkeypatch.setattr(memory_budget, "own_memory", lambda: TREE_BUDGET)
    waits: list[int] = []
    start = time.monotonic()
    with pytest.raises(ServerBusyError), image_turn(
            100 * MB, on_memory_wait=lambda held, allowed, left: waits.append(held)):
        raise AssertionError("drawn past the budget")
    assert 0.3 <= time.monotonic() - start < 5 and len(waits) > 3
    assert memory_budget.HEAVY.used == 0 and cache.cache_room() == cache.TOTAL_CACHE_BYTES


def test_an_export_waiting_for_memory_holds_no_visitors_computation_up(monkeypatch):
    """Visitors first: while an image waits for the server's memory to fall, it holds nothing of
    the visitors' lane (HEAVY), so a cache miss asked meanwhile runs at once; a second export
    waits behind the first in the exports' own queue, told it is one behind. Once the memory
    falls, the image takes the lane for its drawing alone."""
    monkeypatch.setattr(memory_budget, "HEAVY", MemoryBudget(COMPUTE_COST))
    monkeypatch.setattr(memory_budget, "EXPORTS", MemoryBudget(1))
    monkeypatch.setattr(memory_budget, "WAIT_POLL_S", 0.01)
    monkeypatch.setattr(memory_budget, "_reclaimable", [])
    memory_falls, waited, drawn, second_ahead = threading.Event(), threading.Event(), [], []
    monkeypatch.setattr(memory_budget, "own_memory",
                        lambda: 0 if memory_falls.is_set() else TREE_BUDGET)

    def draw(name: str) -> None:
        def told_ahead(ahead: int) -> None:
            if name == "second":
                second_ahead.append(ahead)

        with image_turn(340 * MB, on_wait=told_ahead,
                        on_memory_wait=lambda held, allowed, left: waited.set()):
            drawn.append((name, memory_budget.HEAVY.count("image", waiting=False)))

    first = threading.Thread(target=draw, args=("first",))
    first.start()
    assert waited.wait(60), "the image never waited for the memory"
    second = threading.Thread(target=draw, args=("second",))
    second.start()
    deadline = time.monotonic() + 60
    while memory_budget.EXPORTS.count("image", waiting=True) < 1:
        assert time.monotonic() < deadline, "the second export never queued"
        time.sleep(0.01)

    @bounded_cache(max_entries=2, max_bytes=MB)
    def visitors_table(n: int) -> np.ndarray:
        return np.arange(n)

    # No timing: were the lane held, this call would block until the memory falls, which only
    # this thread can make happen (the test would hang, then fail on the thread joins below).
    assert memory_budget.HEAVY.used == 0 and memory_budget.HEAVY.count("image", waiting=True) == 0
    assert visitors_table(5).sum() == 10
    assert drawn == [] and first.is_alive()
    memory_falls.set()
    first.join(60)
    second.join(60)
    assert drawn == [("first", 1), ("second", 1)]  # each drew holding the lane, in turn
    assert second_ahead and second_ahead[0] == 1
    assert memory_budget.HEAVY.used == 0 and memory_budget.EXPORTS.used == 0


def test_a_turn_takes_from_the_caches_what_is_over_the_budget_and_no_more(monkeypatch):
    """The caches give back, least recently used first, about what the process holds over the
    turn's room: the rest of their entries stay for the visitors (a slide file's turns never
    empty them); their room comes back after the turn."""
    monkeypatch.setattr(memory_budget, "HEAVY", MemoryBudget(COMPUTE_COST))
    monkeypatch.setattr(memory_budget, "WAIT_POLL_S", 0.01)
    monkeypatch.setattr(cache, "STORES", {})
    monkeypatch.setattr(memory_budget, "_reclaimable", [])

    @bounded_cache(max_entries=100, max_bytes=cache.TOTAL_CACHE_BYTES)
    def table(i: int) -> np.ndarray:
        return np.zeros(MB // 8)  # one megabyte each

    for i in range(100):
        table(i)
    assert cache.cached_bytes() == pytest.approx(100 * MB, rel=0.01)
    over = 30 * MB
    # the process holds what the caches hold beyond the room, and gives it back as they do
    allowed = TREE_BUDGET - 200 * MB
    monkeypatch.setattr(memory_budget, "own_memory",
                        lambda: allowed - 70 * MB + cache.cached_bytes())
    with image_turn(200 * MB, kind="slide", drop_model=False):
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

    monkeypatch.setattr(memory_budget, "HEAVY", MemoryBudget(COMPUTE_COST))
    minilm.load_minilm()
    with image_turn(COMPUTE_COST, kind="slide", drop_model=False):
        assert minilm.load_minilm.cache_info().currsize == 1


def test_the_model_weights_are_given_back_in_an_images_turn(monkeypatch):
    """ui.model registers the MiniLM tensors as reclaimable: an image's turn drops them (read
    again by the next run that uses the model)."""
    from core import minilm, minilm_encoder
    from ui import model

    monkeypatch.setattr(memory_budget, "HEAVY", MemoryBudget(COMPUTE_COST))
    assert model.release_minilm in memory_budget._reclaimable
    minilm.load_minilm()
    minilm_encoder.load_encoder()
    assert minilm.load_minilm.cache_info().currsize == 1
    with image_turn(COMPUTE_COST):
        assert minilm.load_minilm.cache_info().currsize == 0


def test_a_drawing_is_told_to_stop_once_a_visitor_has_waited_behind_it(monkeypatch):
    """A visitor's computation that waits VISITORS_WAIT_S behind a drawing stops it: the
    turn's check raises then, not before."""
    monkeypatch.setattr(memory_budget, "HEAVY", MemoryBudget(COMPUTE_COST))
    monkeypatch.setattr(memory_budget, "VISITORS_WAIT_S", 0.3)
    waiting = threading.Event()
    with image_turn(340 * MB) as visitors_waiting:
        visitors_waiting()  # nobody waits yet

        def visitor() -> None:
            waiting.set()
            memory_budget.HEAVY.release(
                memory_budget.HEAVY.acquire(COMPUTE_COST, kind="compute"))

        thread = threading.Thread(target=visitor)
        thread.start()
        waiting.wait()
        while memory_budget.HEAVY.count("compute", waiting=True) == 0:
            time.sleep(0.01)
        visitors_waiting()  # it has only just asked
        while memory_budget.HEAVY.longest_wait("compute") <= 0.3:
            time.sleep(0.01)
        with pytest.raises(memory_budget.VisitorsWaitingError):
            visitors_waiting()
    thread.join(10)
    assert not thread.is_alive()  # the turn's end let the visitor in
