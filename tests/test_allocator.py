"""server.allocator: glibc's allocator set from inside the process, and the trimmer that hands freed
heap pages back to the system."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from server import allocator

MB = 2**20
ROOT = Path(__file__).resolve().parent.parent


def test_the_trimmer_returns_freed_heap_pages_to_the_system():
    """Many small blocks (under the mmap threshold: the heap) freed while one at the heap's top
    is kept: glibc cannot shrink the heap by itself, malloc_trim returns the freed pages."""
    if allocator._malloc_trim is None:  # not glibc: nothing to test, and the test says so
        raise AssertionError("glibc's malloc_trim is needed (the app's servers run on Linux)")
    allocator.start_trimmer()
    allocator.start_trimmer()  # idempotent
    assert sum(t.name == "malloc-trim" for t in threading.enumerate()) == 1
    before = allocator._rss_bytes()
    blocks = [bytearray(64 * 1024) for _ in range(3000)]  # ~190 MB of 64 KB blocks, touched
    keep = bytearray(64 * 1024)  # allocated last: pins the top of the heap
    grown = allocator._rss_bytes()
    assert grown - before > 150 * MB
    del blocks
    deadline = time.monotonic() + 10 * allocator.TRIM_EVERY_S
    while allocator._rss_bytes() > before + 60 * MB and time.monotonic() < deadline:
        time.sleep(0.1)
    assert allocator._rss_bytes() < before + 60 * MB, (before / MB, grown / MB,
                                                   allocator._rss_bytes() / MB)
    del keep


# A process started as a host starts the server (no MALLOC_* variables): blocks of 512 KB
# allocated between small long-lived ones, then freed; how many MB its RSS keeps. A first large
# free raises glibc's default mmap threshold, after which such blocks come from the heap and stay.
_KEPT_AFTER_FREE = """
import ctypes, ctypes.util, sys
libc = ctypes.CDLL(ctypes.util.find_library("c"))
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
libc.memset.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]
def rss():
    return int(open("/proc/self/statm").read().split()[1]) * 4096 // 2**20
if sys.argv[1] == "tuned":
    from server.allocator import tune_allocator
    assert tune_allocator()
first = libc.malloc(4 << 20); libc.memset(first, 1, 4 << 20); libc.free(first)
before, blocks, kept = rss(), [], []
for _ in range(200):
    block = libc.malloc(512 << 10); libc.memset(block, 1, 512 << 10); blocks.append(block)
    small = libc.malloc(8192); libc.memset(small, 1, 8192); kept.append(small)
for block in blocks:
    libc.free(block)
print(rss() - before)
"""


def test_the_allocator_set_from_inside_the_process_hands_freed_blocks_back():
    """`tune_allocator` (serve.py calls it before the first session) does what MALLOC_ARENA_MAX
    and MALLOC_MMAP_THRESHOLD_ do for a server started with them: freed large blocks go back to
    the system. Without it, 100 MB of them stay (checked first, so the test can fail)."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}

    def kept(mode: str) -> int:
        run = subprocess.run([sys.executable, "-c", _KEPT_AFTER_FREE, mode], env=env,
                             cwd=ROOT, capture_output=True,
                             text=True, check=True)
        return int(run.stdout)

    assert kept("plain") > 50  # glibc's defaults keep them
    assert kept("tuned") <= 10


def test_the_trimmer_trims_again_after_a_trim_that_came_while_the_memory_was_held():
    """The RSS grows (a rerun builds its figure) and the trim comes before the rerun frees it:
    that trim returns nothing and the RSS does not grow again once the pages are free. The
    next seconds' trims return them. (A fake process: RSS in MB, a trim returns what is free.)"""
    process = {"rss": 100, "free": 0, "tick": 0}
    trims: list[int] = []

    def sleep(_seconds):
        process["tick"] += 1
        if process["tick"] == 1:
            process["rss"] += 50  # the rerun's figure, still held at the next trim
        elif process["tick"] == 2:
            process["free"] = 50  # freed after that trim: the RSS stays
        elif process["tick"] > 4:
            raise StopIteration

    def trim(_pad):
        trims.append(process["tick"])
        process["rss"] -= process["free"]
        process["free"] = 0

    with pytest.raises(StopIteration):
        allocator._trim_forever(rss=lambda: process["rss"] * MB, trim=trim, sleep=sleep)
    assert trims[:2] == [1, 2]  # the growth's trim, then one that finds the freed pages
    assert process["rss"] == 100


# Streamlit binds its port on an inheritable socket, then imports serve.py, which starts the
# process again: the new run must find the port free, under the same pid, with pymalloc off.
_STARTED_AGAIN = """
import os, socket, sys
from server.allocator import python_objects_in_glibc_heap
port = int(sys.argv[1])
if not os.environ.get("PYTHONMALLOC"):
    listening = socket.create_server(("127.0.0.1", port))
    listening.set_inheritable(True)
python_objects_in_glibc_heap()
socket.create_server(("127.0.0.1", port)).close()  # bound again: the old socket did not survive
print(os.environ["PYTHONMALLOC"], os.getpid(), python_objects_in_glibc_heap())
"""


def test_the_server_starts_again_with_pythons_objects_in_glibcs_heap_and_its_port_free():
    import os
    import subprocess
    import sys

    from tests.browser_support import free_port

    env = {k: v for k, v in os.environ.items() if k != "PYTHONMALLOC"}
    process = subprocess.Popen([sys.executable, "-c", _STARTED_AGAIN, str(free_port())],
                               env=env, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    out, _ = process.communicate(timeout=60)
    assert process.returncode == 0
    assert out.split() == ["malloc", str(process.pid), "False"]


def test_a_hosts_own_pythonmalloc_is_kept():
    started = []
    environ = {"PYTHONMALLOC": "pymalloc"}
    assert not allocator.python_objects_in_glibc_heap(
        environ, ["python", "-m", "streamlit"], lambda *args: started.append(args))
    assert environ == {"PYTHONMALLOC": "pymalloc"} and not started
