"""Departed visitors' sessions forgotten on time.

Streamlit keeps a session whose websocket closed for ``server.disconnectedSessionTTL`` (30 s,
.streamlit/config.toml) so that a reconnecting tab resumes it. Its storage (a TTL cache,
``streamlit/runtime/memory_session_storage.py``) drops an expired session only when another
session is saved into it, that is when the next visitor leaves, and then without shutting it
down. On an idle server nothing is saved, so every session of the last crowd stayed, each with
its state, its widgets and its fragments (an Export menu's fragment keeps its chart's figure,
~1 MB of plotly objects a home page): 200 quiet visitors left 128 sessions and +238 MB a minute
after they had gone (tests/test_serve_memory.py, on the code before this module).

`forget_departed_sessions`, st.App's lifespan in serve.py, looks every `FORGET_EVERY_S` seconds
on the server's event loop (where Streamlit's session manager runs): the sessions past their TTL
are taken out of the storage and shut down as Streamlit shuts down a closed one, then the garbage
is collected and glibc's freed heap handed back (server/allocator.py). When the last one has
gone, the page caches keep only what a warm server holds (`server.cache.trim_for_idle`).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import threading
from collections.abc import AsyncIterator
from typing import Any

from server import allocator, runtime
from server.cache import trim_for_idle

_LOGGER = logging.getLogger(__name__)

SCRIPT_THREAD = "ScriptRunner.scriptThread"  # streamlit/runtime/scriptrunner/script_runner.py
# How often expired sessions are looked for: a departed session lives its TTL and at most this
# much more. Cheap when there are none (the storage keeps its entries in expiry order).
FORGET_EVERY_S = 5.0
TRIMS_AFTER_FORGETTING = 3  # glibc's heap trimmed at this many looks from one that forgot
_trims_owed = 0


def session_manager_parts(streamlit_runtime: Any) -> tuple[Any, Any, Any] | None:
    """Streamlit's session manager, the lock it holds around its stored sessions and their
    storage's TTL cache; None if a release moved them (tests/test_streamlit_internals.py names
    each)."""
    manager = getattr(streamlit_runtime, "_session_mgr", None)
    storage = getattr(manager, "_session_storage", None)
    cache = getattr(storage, "_cache", None)
    lock = getattr(manager, "_storage_lock", None)
    if cache is None or lock is None or not callable(getattr(cache, "expire", None)):
        return None
    return manager, lock, cache


def forget_expired_sessions() -> int:
    """Shut down and drop every stored session past its TTL; how many there were. Called on
    the event loop's thread (Streamlit's session manager is not thread-safe beyond its lock)."""
    from streamlit.runtime import Runtime

    if not Runtime.exists():
        return 0
    parts = session_manager_parts(Runtime.instance())
    if parts is None:
        return 0
    manager, lock, cache = parts
    with lock:
        expired = cache.expire()
        nobody_left = not cache.currsize and not manager.list_active_sessions()
    for _, info in expired:
        try:
            info.session.shutdown()  # as Streamlit's close_session does for a stored session
        except Exception:  # one session's trouble must not keep the others
            _LOGGER.exception("Shutting down an expired session failed")
    # Their objects are cycles (a session and its script runner, fragments, callbacks):
    # collected now, not at the next rerun's collection, which an idle server never runs; and
    # those a freeze took with the libraries once no session and no run of one is left
    # (server/runtime.py).
    idle = nobody_left and not _script_running()
    refrozen = idle and runtime.refreeze_when_idle()
    if expired and not refrozen:
        gc.collect()
    if idle and (expired or refrozen):
        # The last visitor has gone: the caches keep what a warm server holds, not what the
        # hour filled (up to TOTAL_CACHE_BYTES).
        trim_for_idle()
    global _trims_owed
    if expired or refrozen:
        # Freed heap back to the system, now and at the next looks: what the sessions held is
        # also freed later, on the event loop (their connections, their runs' loops), and the
        # allocator's trimmer trims only when the memory grows (200 quiet visitors gone: 23 MB
        # more came back from these trims in the 10 s after the first).
        _trims_owed = TRIMS_AFTER_FORGETTING
    if _trims_owed:
        _trims_owed -= 1
        allocator.give_back()
    return len(expired)


def _script_running() -> bool:
    """Whether a script run is still going (a shut-down session's run ends at its next
    checkpoint): Streamlit names each run's thread so."""
    return any(thread.name == SCRIPT_THREAD for thread in threading.enumerate())


async def _forget_forever(every_s: float) -> None:
    while True:
        await asyncio.sleep(every_s)
        try:
            forget_expired_sessions()
        except Exception:  # logged with its traceback; the next look tries again
            _LOGGER.exception("Forgetting departed sessions failed")


@contextlib.asynccontextmanager
async def forget_departed_sessions(_app: Any) -> AsyncIterator[None]:
    """st.App's lifespan (serve.py): expired sessions forgotten while the server runs."""
    task = asyncio.create_task(_forget_forever(FORGET_EVERY_S), name="forget-departed-sessions")
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
