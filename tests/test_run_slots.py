"""server.run_slots: at most RUN_SLOTS page runs and COMPUTE_SLOTS computations at once."""

from __future__ import annotations

import threading
import time

from server import memory_budget, run_slots


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
    assert run_slots.RUN_SLOTS == 4  # the bound checked below is the one app.py uses
    assert _most_at_once(run_slots.run_slot, 12) == 4
    for _ in range(run_slots.RUN_SLOTS + 1):  # a stopped run (an exception) gives its slot back
        try:
            with run_slots.run_slot():
                raise RuntimeError("rerun requested")
        except RuntimeError:
            pass
    assert _most_at_once(run_slots.run_slot, 6) == 4


def test_a_download_built_later_waits_for_the_compute_slot():
    occupancy = _Occupancy()

    def build(n: int) -> int:
        occupancy.visit()
        return n * 2

    downloads = [run_slots.in_compute_slot(build, n) for n in range(6)]
    assert occupancy.running == occupancy.most == 0  # nothing built until a download asks
    results = []
    _run_threads([lambda d=d: results.append(d()) for d in downloads])
    assert sorted(results) == [0, 2, 4, 6, 8, 10]
    assert occupancy.most == memory_budget.COMPUTE_SLOTS == 1
