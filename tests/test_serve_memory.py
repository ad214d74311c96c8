"""serve.py's memory once its visitors have gone (docs/robustness.md, "Memory goes back"): the
sessions of departed visitors are forgotten past their TTL, and what they held goes back, so
the idle server's memory stays flat however many came.

Each test starts `streamlit run serve.py` as a hosting platform runs it (none of the MALLOC_*
settings) with its memory probe on (server/memory_probe.py, without tracemalloc: it reports how
many sessions Streamlit still keeps) and a departed session kept 5 s instead of 30
(`server.disconnectedSessionTTL`): what is tested is what happens once a session is past its
TTL, whatever the TTL is. Memory is the server's anonymous resident memory (RssAnon, what it
allocated itself): its unique memory (USS) also counts library pages that other servers of this
checkout start or stop sharing on a machine running several, 50 MB up or down without any change
in the server.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from benchmarks.hostile_load import crowd
from benchmarks.idle_memory import probe, tree_anon_mb, warm_up
from server import memory_probe
from tests import browser_support
from tests.raw_session import RawSession, run_async, timed_open

TTL_S = 5  # a departed session's time to live here (30 s in .streamlit/config.toml)
# The longest a departed session may stay past the TTL: server.sessions looks every 5 s, and a
# loaded machine delays a look and the closing of 200 sockets (in a full `make test` the last of
# 200 quiet visitors was forgotten 60 s after the others). Generous: without forgetting, they
# stayed for good.
FORGOTTEN_WITHIN_S = TTL_S + 180


@dataclass
class Served:
    url: str
    pid: int
    reports: Path  # the probe's folder

    def report(self, label: str) -> dict:
        return probe(self.reports, label)

    def anon_mb(self) -> float:
        return tree_anon_mb(self.pid)

    def wait_for(self, check: Callable[[dict], bool], seconds: float, label: str) -> dict:
        """The probe's reports until one passes `check` or `seconds` have passed: the last."""
        deadline = time.monotonic() + seconds
        turn = 0
        while True:
            turn += 1
            report = self.report(f"{label}-{turn}")
            if check(report) or time.monotonic() > deadline:
                return report
            time.sleep(1)


def forgotten(report: dict) -> bool:
    """No session connected, none kept, no script of theirs still running, and server.sessions
    has handed back the freed heap (its trims at its next looks)."""
    sessions = report["streamlit"]
    return (sessions.get("active") == 0 and sessions.get("stored_incl_expired") == 0
            and sessions.get("script_threads") == 0 and not sessions.get("trims_owed"))


def nobody_connected(report: dict) -> bool:
    return report["streamlit"].get("active") == 0


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    env.update(PE_MEMORY_PROBE=str(tmp_path / "probe"), PE_MEMORY_PROBE_FRAMES="0",
               STREAMLIT_SERVER_DISCONNECTED_SESSION_TTL=str(TTL_S))
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)  # the server inherits it: without MALLOC_*, as a host starts it
    artifacts = browser_support.ROOT / "test-artifacts"
    artifacts.mkdir(exist_ok=True)
    try:
        server, url = browser_support.start_streamlit("serve.py", artifacts / "serve-memory.log")
    finally:
        os.environ.clear()
        os.environ.update(saved)
    try:
        yield Served(url, server.pid, tmp_path / "probe")
    finally:
        browser_support.stop(server)


def settled(served: Served, label: str) -> float:
    """The idle server's memory once no session is connected, every departed one forgotten and
    the freed heap handed back; fails if that takes past FORGOTTEN_WITHIN_S (its memory, measured
    half given back, would say nothing)."""
    report = served.wait_for(forgotten, FORGOTTEN_WITHIN_S, label)
    assert forgotten(report), (
        f"{label}: departed sessions not forgotten (or the heap not yet handed back) "
        f"{FORGOTTEN_WITHIN_S} s after the last visitor left: Streamlit keeps "
        f"{report['streamlit']}")
    time.sleep(2)  # the trimmer's next look (server/allocator.py, every second)
    return served.anon_mb()


def test_the_memory_probe_is_off_unless_asked(monkeypatch):
    """serve.py calls it on every start: without PE_MEMORY_PROBE, no tracemalloc, no thread,
    Streamlit's AppSession untouched."""
    from streamlit.runtime.app_session import AppSession

    monkeypatch.delenv(memory_probe.ENV_VAR, raising=False)
    assert memory_probe.start_if_asked() is False
    assert not tracemalloc.is_tracing()
    assert "memory-probe" not in {thread.name for thread in threading.enumerate()}
    assert AppSession.__init__.__module__ == "streamlit.runtime.app_session"


def test_a_stall_report_holds_every_threads_stack(tmp_path):
    """The soak asks for it when a page goes unanswered: what each thread is waiting on."""
    parked = threading.Event()
    waiter = threading.Thread(target=parked.wait, name="parked-on-an-event", daemon=True)
    waiter.start()
    try:
        memory_probe.report(tmp_path, "stall-7")
    finally:
        parked.set()
    stacks = (tmp_path / "stall-7.stacks.txt").read_text()
    assert "--- parked-on-an-event" in stacks and "in wait" in stacks
    assert "--- MainThread" in stacks and (tmp_path / "stall-7.json").exists()


QUIET_SESSIONS = 200  # issue 52's trace: 200 quiet visitors left +232 MB for good


def quiet_visitors(url: str, count: int) -> list[str]:
    """`count` visitors at once on the home page, each silent until all have run (all held at
    once, as 200 visitors silent for a minute are), then gone: the exceptions they saw."""

    async def visitors() -> list[str]:
        everyone_ran = asyncio.Event()
        ran = 0

        async def one() -> list[str]:
            nonlocal ran
            async with RawSession(url, "") as session:
                await session.open(timeout=600)
                ran += 1
                if ran == count:
                    everyone_ran.set()
                await everyone_ran.wait()
                return session.exceptions

        ran_all = await asyncio.gather(*(one() for _ in range(count)))
        return [exception for exceptions in ran_all for exception in exceptions]

    return run_async(visitors())


def test_200_quiet_visitors_once_gone_leave_the_idle_server_within_50_mb(served):
    """Issue 52's trace: a warm server (every page once), 200 quiet visitors at once on the
    home page, then gone. Once past their TTL Streamlit keeps none of them, and the idle server
    is back within 50 MB of its warm start (+36 MB measured: Python's arenas, spread by 200 runs
    at once). On 016e0b9, 128 departed sessions were still kept and +238 MB; with them forgotten
    but each Export menu's figure kept as plotly objects, +224 MB of arenas stayed spread."""
    warm_up(served.url)
    before = settled(served, "warm")
    assert quiet_visitors(served.url, QUIET_SESSIONS) == []
    after = settled(served, "gone")
    kept = served.report("kept")["streamlit"]
    print(f"warm {before:.0f} MB, after {QUIET_SESSIONS} quiet visitors {after:.0f} MB")
    assert after - before <= 50, (
        f"{QUIET_SESSIONS} quiet visitors gone {FORGOTTEN_WITHIN_S} s at most past their "
        f"{TTL_S} s TTL left the idle server {after - before:+.0f} MB over its warm "
        f"{before:.0f} MB; Streamlit keeps {kept}")
    assert forgotten(served.report("end")), (
        f"Streamlit still keeps departed sessions past their TTL: {kept}")


@pytest.mark.long
def test_a_second_crowd_of_rude_visitors_adds_little(served):
    """20 visitors that never read their replies, each asking for 15 of the largest heatmaps,
    then gone, twice: the second crowd leaves the idle server within 20 MB of where the first
    left it (the first fills the page caches, bounded by server.cache.TOTAL_CACHE_BYTES), and
    Streamlit keeps none of their sessions (+12 MB measured; on 016e0b9 +54 MB, the second
    crowd's 20 sessions kept)."""
    timed_open(served.url, "heatmap", "")
    served.wait_for(nobody_connected, FORGOTTEN_WITHIN_S, "warm")
    crowd(served.url)
    first = settled(served, "first")
    crowd(served.url)
    second = settled(served, "second")
    kept = served.report("kept")["streamlit"]
    print(f"idle after one crowd {first:.0f} MB, after two {second:.0f} MB")
    assert second - first <= 20, (
        f"a second crowd left the idle server {second - first:+.0f} MB over the first's "
        f"{first:.0f} MB; Streamlit keeps {kept}")
    assert forgotten(served.report("end")), (
        f"Streamlit still keeps departed sessions past their TTL: {kept}")
