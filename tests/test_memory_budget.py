"""server.memory_budget.image_turn: an image's turn drops what is reclaimable, takes from the caches
what is over the tree's budget and no more, waits for the process's memory to fall, and is
refused when it does not. (The queue's order: tests/test_export_queue.py.)"""

from __future__ import annotations

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
    with image_turn(340 * MB, on_memory_wait=lambda held, allowed: waits.append(
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
            100 * MB, on_memory_wait=lambda held, allowed: waits.append(held)):
        raise AssertionError("drawn past the budget")
    assert 0.3 <= time.monotonic() - start < 5 and len(waits) > 3
    assert memory_budget.HEAVY.used == 0 and cache.cache_room() == cache.TOTAL_CACHE_BYTES


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
