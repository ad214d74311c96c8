"""glibc's allocator, set and trimmed from inside the process.

`python_objects_in_glibc_heap` starts the server again with Python's small objects in glibc's
heap (serve.py, at import); `tune_allocator` sets glibc's arenas and mmap threshold
(serve.py, before the first session);
`give_back` hands freed heap pages back to the system (after each computation and before an
image's Chromium starts); `start_trimmer` does so from a daemon thread whenever the RSS has grown
(app.py). On a system without glibc (musl, macOS) each does nothing.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import sys
import threading
import time
from collections.abc import Callable, MutableMapping, Sequence


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


def python_objects_in_glibc_heap(environ: MutableMapping[str, str] = os.environ,
                                 argv: Sequence[str] = sys.orig_argv,
                                 execv: Callable[[str, list[str]], object] = os.execv) -> bool:
    """Start this process again, the same command line and pid, with PYTHONMALLOC=malloc: Python's
    own allocator (pymalloc) keeps 256 KB arenas of small objects and hands one back only when
    every object in it is gone, so a crowd's departed sessions left ~90 MB of arenas mapped with
    85 MB of them free (docs/robustness.md); in glibc's heap, `give_back` returns them page by
    page. Does nothing where PYTHONMALLOC is set (a host's own choice, or the run started here),
    or without glibc. Called at import by serve.py, which Streamlit imports once it has bound its
    port (its socket closed across the exec, bound again by the new run). Returns False when it
    did not start again (it does not return otherwise)."""
    if environ.get("PYTHONMALLOC") or _malloc_trim is None or not argv:
        return False
    environ["PYTHONMALLOC"] = "malloc"
    sys.stdout.flush()
    sys.stderr.flush()
    # Streamlit has bound its port already, on a socket marked inheritable (for uvicorn's
    # workers): left open across the exec, the new run would find its own port taken.
    for name in os.listdir("/proc/self/fd"):
        if int(name) > 2:
            with contextlib.suppress(OSError):
                os.set_inheritable(int(name), False)
    execv(sys.executable, [sys.executable, *argv[1:]])
    return True


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


def give_back() -> None:
    """Freed heap pages back to the system (glibc keeps them mapped otherwise), where it can.
    About a millisecond."""
    if _malloc_trim is not None:
        _malloc_trim(0)


TRIM_EVERY_S = 1.0  # how often the trimmer looks at the process's RSS
TRIM_GROWTH = 16 * 2**20  # RSS grown by this much (16 MB) since the last trim: trim again
# Trims after each growth, a second apart: a trim while a rerun still holds its figure returns
# nothing, and the RSS does not grow again when the rerun then frees it (the RSS cannot tell
# freed pages from used ones): without these, those pages stayed until the next growth.
TRIM_FOLLOW_UPS = 5

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _rss_bytes() -> int:
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):  # not Linux: no trimmer (see start_trimmer)
        return 0


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
_trimmer_lock = threading.Lock()


def start_trimmer() -> None:
    """Hand freed heap pages back to the system whenever the RSS has grown: a session's rerun
    frees its figure, its JSON and its protobuf message after they are sent, outside any cache
    miss, and glibc keeps those pages (30 sessions' worth stayed mapped: ~500 MB measured).
    One daemon thread per process; nothing on a system without glibc's malloc_trim."""
    global _trimmer
    with _trimmer_lock:
        if _trimmer is not None or _malloc_trim is None or not _rss_bytes():
            return
        _trimmer = threading.Thread(target=_trim_forever, name="malloc-trim", daemon=True)
        _trimmer.start()
