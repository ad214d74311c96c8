"""A look inside the server's memory, for measuring only: off unless PE_MEMORY_PROBE names a folder.

With ``PE_MEMORY_PROBE=/some/folder`` (benchmarks/idle_memory.py and tests/test_serve_memory.py
set it), serve.py starts tracemalloc (``PE_MEMORY_PROBE_FRAMES=0``: not) and a daemon thread that
answers requests written into that folder: a file ``ask-<label>`` is answered by
``<label>.json``, written last and whole: the resident memory and its anonymous part, glibc's heap
(in use, free but kept), Python's allocator (arenas mapped, blocks in use), objects by type, the
modules imported since the last report, Streamlit's sessions (connected, kept, alive, runs still
going, server.sessions' trims still owed); and ``<label>.tracemalloc``, a snapshot to compare
with another (``python benchmarks/idle_memory.py --probe FOLDER --compare A B``). A label
starting ``reap`` first forgets expired sessions and trims, ``trim`` only trims (what is held
versus what the allocator keeps); ``holds-<Type>`` adds what refers to a few objects of that
type, level by level.

Without the variable nothing starts and nothing is patched: one environment lookup at import.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import json
import os
import sys
import threading
import time
import traceback
import tracemalloc
import weakref
from collections import Counter
from pathlib import Path
from typing import Any

ENV_VAR = "PE_MEMORY_PROBE"
# tracemalloc's frames per allocation (8: enough to see who asked for it); 0: no tracemalloc,
# for Python's own allocator's statistics (tracemalloc hides them) and undisturbed sizes.
FRAMES_VAR = "PE_MEMORY_PROBE_FRAMES"
_sessions: weakref.WeakSet = weakref.WeakSet()  # every AppSession made, while alive
_started = False


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]


def _glibc_heap() -> dict[str, float]:
    """glibc's view (MB): in use by malloc's callers, free but kept, mapped apart."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallinfo2.restype = _MallInfo2
    except (OSError, AttributeError):
        return {}
    info = libc.mallinfo2()
    mb = 2**20
    return {"heap_mb": info.arena / mb, "in_use_mb": info.uordblks / mb,
            "free_kept_mb": info.fordblks / mb, "mmapped_mb": info.hblkhd / mb,
            "trimmable_mb": info.keepcost / mb}


def _status_mb() -> dict[str, float]:
    """The process's resident memory (MB): all of it, and its anonymous part (its own heap)."""
    try:
        with open("/proc/self/status") as status:
            fields = dict(line.split(":", 1) for line in status if ":" in line)
    except OSError:
        return {}
    return {name: int(fields[name].split()[0]) / 1024 for name in ("VmRSS", "RssAnon")
            if name in fields}


def _mappings_mb() -> dict[str, float]:
    """The process's resident memory (MB) by kind of mapping: glibc's main heap, anonymous
    mappings by size (1 MiB: Python's arenas; 64 MiB aligned: glibc's other arenas; the rest:
    large blocks, stacks), files."""
    out: Counter = Counter()
    size = kind = None
    try:
        with open("/proc/self/smaps") as smaps:
            for line in smaps:
                first = line.split()
                if "-" in first[0] and len(first) >= 5 and ":" not in first[0]:
                    start, end = (int(x, 16) for x in first[0].split("-"))
                    size = end - start
                    name = first[5] if len(first) > 5 else ""
                    if name == "[heap]":
                        kind = "heap"
                    elif name.startswith("/"):
                        kind = "files"
                    elif name:
                        kind = name
                    elif size == 2**20:
                        kind = "anon_1MiB"
                    elif size >= 32 * 2**20:
                        kind = "anon_large_region"
                    else:
                        kind = "anon_other"
                elif first[0] == "Rss:" and kind is not None:
                    out[kind] += int(first[1]) / 1024
    except OSError:
        return {}
    return {k: round(v, 1) for k, v in sorted(out.items())}


def _streamlit_sessions() -> dict[str, Any]:
    """How many sessions Streamlit's runtime has: connected, kept for a reconnection (expired
    ones included), and every AppSession object still alive (shut down or not)."""
    from streamlit.runtime import Runtime

    from server import sessions
    from server.sessions import SCRIPT_THREAD, session_manager_parts

    out: dict[str, Any] = {"alive_app_sessions": len(_sessions)}
    parts = session_manager_parts(Runtime.instance()) if Runtime.exists() else None
    if parts is not None:
        manager, _lock, cache = parts
        out["active"] = len(manager.list_active_sessions())
        out["stored_incl_expired"] = len(cache._data)  # an expired entry stays until reaped
    out["alive_states"] = dict(Counter(str(getattr(s, "_state", "?")) for s in list(_sessions)))
    # Scripts still running (a departed session's run ends at its next checkpoint, or after
    # the computation it waits on).
    out["script_threads"] = sum(thread.name == SCRIPT_THREAD for thread in threading.enumerate())
    out["trims_owed"] = sessions._trims_owed  # server.sessions' trims still to come
    return out


def _pymalloc_stats() -> dict[str, float]:
    """Python's small-object allocator (MB): its arenas' bytes mapped, and in use by blocks
    (sys._debugmallocstats, which writes to stderr: read back from a file)."""
    import re
    import sys
    import tempfile

    with tempfile.TemporaryFile("w+") as out:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(out.fileno(), 2)
        try:
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        out.seek(0)
        text = out.read()

    def number(name: str) -> float:
        found = re.search(rf"^# {name}\s*=\s*([\d,]+)", text, flags=re.M)
        return int(found.group(1).replace(",", "")) / 2**20 if found else -1.0

    arenas = number("arenas allocated current") * 2**20  # 1 MiB arenas (CPython 3.10+)
    return {"arenas_mapped_mb": arenas, "arenas_highwater_mb": number(
        "arenas highwater mark") * 2**20, "in_blocks_mb": number("bytes in allocated blocks"),
        "free_blocks_mb": number("bytes in available blocks")}


_modules_seen: set[str] = set()


def _new_modules() -> list[str]:
    import sys

    names = set(sys.modules)
    new = sorted(names - _modules_seen) if _modules_seen else []
    _modules_seen.update(names)
    return new


def _reap_and_trim(reap: bool) -> None:
    """What the probe can do to tell held memory from kept memory: forget the sessions kept past
    their TTL (server/sessions.py), collect, trim glibc's heap."""
    from server import allocator
    from server.sessions import forget_expired_sessions

    if reap:
        forget_expired_sessions()
    gc.collect()
    allocator.give_back()


def _describe(obj: Any) -> str:
    kind = type(obj).__qualname__
    if isinstance(obj, dict):
        keys = [str(k)[:30] for k in list(obj)[:6]]
        return f"dict{keys}"
    if hasattr(obj, "__name__"):
        return f"{kind} {getattr(obj, '__name__', '')}"
    return kind


def _who_holds(type_name: str, chains: int = 3, depth: int = 8) -> list[list[str]]:
    """For a few live objects of `type_name`: what refers to them, and to that, up `depth`
    levels (the first referrer that is not a frame or one of these lists at each level)."""
    import types

    everything = gc.get_objects()
    found = [o for o in everything if type(o).__qualname__ == type_name][:chains]
    del everything
    out = []
    mine = {id(found), id(out)}  # this function's own lists refer to what they look at
    for obj in found:
        chain, current, seen = [_describe(obj)], obj, set(mine)
        seen.add(id(chain))
        for _ in range(depth):
            referrers = gc.get_referrers(current)
            seen.add(id(referrers))
            holders = [h for h in referrers
                       if id(h) not in seen and not isinstance(h, types.FrameType)]
            seen.add(id(holders))
            del referrers
            if not holders:
                chain.append("(none tracked: held by a frozen object or a C structure)")
                break
            current = holders[0]
            seen.add(id(current))
            chain.append(_describe(current) + (f" (+{len(holders) - 1} others)"
                                               if len(holders) > 1 else ""))
        out.append(chain)
    return out


def report(folder: Path, label: str) -> dict[str, Any]:
    """Write `<label>.json` and `<label>.tracemalloc` into `folder`; returns the JSON's data.
    A label starting "reap" first reaps expired sessions and trims; "trim" only trims;
    "stall" first writes `<label>.stacks.txt`, every thread's stack (what a server that serves
    nobody is waiting on)."""
    if label.startswith("stall"):
        _write_stacks(folder / f"{label}.stacks.txt")
    if label.startswith(("reap", "trim")):
        _reap_and_trim(reap=label.startswith("reap"))
    gc.collect()
    objects = gc.get_objects()
    by_type = Counter(type(o).__qualname__ for o in objects)
    traced, traced_peak = tracemalloc.get_traced_memory()
    out = {
        "label": label, "time": time.time(), "rss_mb": _status_mb().get("VmRSS", 0.0),
        "anon_mb": _status_mb().get("RssAnon", 0.0), "glibc": _glibc_heap(),
        "mappings_mb": _mappings_mb(),
        "traced_mb": traced / 2**20, "traced_peak_mb": traced_peak / 2**20,
        "gc_objects": len(objects), "gc_frozen": gc.get_freeze_count(),
        "top_types": by_type.most_common(40), "threads": threading.active_count(),
        "thread_names": sorted(Counter(t.name.rstrip("0123456789-_ ") for t in
                                       threading.enumerate()).items()),
        "streamlit": _streamlit_sessions(), "pymalloc": _pymalloc_stats(),
        "modules_new": _new_modules(),
    }
    del objects
    if label.startswith("holds-"):  # holds-<type>[-anything]: who keeps objects of that type
        gc.unfreeze()  # frozen objects are invisible to gc's referrers: all looked at, then
        try:           # frozen again (a measuring run's freeze is not the server's)
            out["holders"] = _who_holds(label.split("-")[1])
        finally:
            gc.freeze()
    if tracemalloc.is_tracing():
        tracemalloc.take_snapshot().dump(str(folder / f"{label}.tracemalloc"))
    partial = folder / f"{label}.json.partial"
    partial.write_text(json.dumps(out, indent=1))
    partial.rename(folder / f"{label}.json")  # the JSON last, whole: the sign it is done
    return out


def _write_stacks(path: Path) -> None:
    names = {thread.ident: thread.name for thread in threading.enumerate()}
    text = []
    for ident, frame in sys._current_frames().items():
        text.append(f"--- {names.get(ident, ident)}\n" + "".join(traceback.format_stack(frame)))
    path.write_text("\n".join(text))


def _answer_forever(folder: Path) -> None:
    while True:
        for ask in sorted(folder.glob("ask-*")):
            label = ask.name[len("ask-"):]
            ask.unlink()
            report(folder, label)
        time.sleep(0.2)


def start_if_asked() -> bool:
    """serve.py, at import: start the probe when PE_MEMORY_PROBE names a folder. Returns
    whether it started."""
    global _started
    folder = os.environ.get(ENV_VAR)
    if not folder or _started:
        return False
    _started = True
    Path(folder).mkdir(parents=True, exist_ok=True)
    frames = int(os.environ.get(FRAMES_VAR, "8"))
    if frames:
        tracemalloc.start(frames)
    from streamlit.runtime.app_session import AppSession

    original_init = AppSession.__init__

    def counted_init(self: AppSession, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        _sessions.add(self)

    AppSession.__init__ = counted_init  # type: ignore[method-assign]
    threading.Thread(target=_answer_forever, args=(Path(folder),), name="memory-probe",
                     daemon=True).start()
    return True
