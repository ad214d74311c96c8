"""Server memory under hostile load: peak and kept RSS for three scenarios on every page.

(a) stream: one client asks for distinct maximum-size settings, one after another, on every page
    (each request a fresh session with the settings in its URL, as a script would send them);
(b) fast changes: on every page, one session at maximum size changes its heaviest control 50 times,
    a change every 50 ms (a new value each time, typed in the control's exact box), as fast
    clicking does: each change interrupts the run before it;
(c) concurrent: on every page, 30 sessions at once, each with its own settings.

The sessions are raw websocket clients speaking Streamlit's protocol (no browser: its memory would
not matter, but 30 browser tabs would also slow the server they share this machine with). The
server's RSS (with its children) is sampled every 0.1 s: peak is the largest sample during a
scenario, kept is the RSS once the scenario has ended and the server has settled. Budget: 700 MB
for both (the smallest Streamlit Community Cloud box has about 690 MB). The server runs with the
Dockerfile's and Makefile's MALLOC_ARENA_MAX=2 and MALLOC_MMAP_THRESHOLD_=131072 unless --arenas
and --mmap-threshold say otherwise. Scenarios run one after another on one server (what a
scenario leaves is the next one's start); --pages and --scenarios run a part, and --merge puts
it into the last saved results. Bounded: about 10 minutes on a loaded 2-core machine.

Run: `make bench-load` (or `python benchmarks/load_memory.py`). Results: benchmarks/results/
memory.json and memory.md, and the <!-- bench:memory --> block of docs/robustness.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import websockets  # noqa: E402  (Streamlit's server stack installs it)
from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

from benchmarks.bench_browser import update_docs  # noqa: E402
from benchmarks.load_test import rss_mb  # noqa: E402
from tests import browser_support  # noqa: E402
from ui.pages import PAGE_PARAMS  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
BUDGET_MB = 700
SCENARIOS = ("stream", "fast changes", "concurrent")
RUN_TIMEOUT_S = 180  # one run at maximum size under 30 others: slow, never this slow
FINISHED = ForwardMsg.ScriptFinishedStatus
# A sentence of 1000 words (the text cap is 2000 characters): the random preset keeps 512 tokens.
LONG_SENTENCE = " ".join(f"{chr(97 + i % 26)}" for i in range(1000))


@dataclass(frozen=True)
class Heavy:
    """A page at its maximum size: `query` sets the sizes, `control` is the heaviest control and
    `value(i)` its i-th distinct value (all near the maximum)."""

    page: str
    query: str
    control: str
    value: Callable[[int], int]

    def views(self) -> tuple[str, ...]:
        for param in PAGE_PARAMS[self.page]:
            if param.name == "view":
                return param.choices
        return ("",)

    def request(self, i: int) -> str:
        """The i-th distinct maximum-size URL query; views in turn."""
        views = self.views()
        view = f"&view={views[i % len(views)]}" if views[0] else ""
        return f"{self.query}&{self.control}={self.value(i)}{view}"


HEAVY = (
    Heavy("heatmap", "d_model=4096", "positions", lambda i: 8192 - i),
    Heavy("wavelengths", "d_model=4096", "positions", lambda i: 8192 - i),
    Heavy("similarity", "d_model=1024", "positions", lambda i: 4096 - i),
    Heavy("vit-grid", "grid_h=64&grid_w=64", "d_model", lambda i: 1280 - 4 * i),
    Heavy("word-position",
          f"embedding=random&encoding=sinusoidal&projection=3-D&sentence={LONG_SENTENCE}",
          "d_model", lambda i: 4096 - 2 * i),
    Heavy("learned-vs-sinusoidal", "", "positions", lambda i: 2048 - i),
    Heavy("rope", "d_head=1024&scaling=ntk_aware", "positions", lambda i: 8192 - i),
    Heavy("alibi", "num_heads=64&head=64", "positions", lambda i: 2048 - i),
    Heavy("extrapolation", "d_model=1024&train_length=2048", "target_length",
          lambda i: 8192 - i),
)


class Session:
    """One Streamlit session over a raw websocket (what the browser's client sends)."""

    def __init__(self, url: str, page: str) -> None:
        self.url, self.page = url, page
        self.widget_ids: dict[str, str] = {}  # user key -> element id, from the deltas
        self.exceptions: list[str] = []

    async def __aenter__(self) -> Session:
        self.ws = await websockets.connect(
            self.url.replace("http", "ws", 1) + "/_stcore/stream", subprotocols=["streamlit"],
            origin=self.url, max_size=None)
        return self

    async def __aexit__(self, *exc) -> None:
        await self.ws.close()

    async def rerun(self, query: str = "", widget: tuple[str, int] | None = None) -> None:
        message = BackMsg()
        message.rerun_script.query_string = query
        message.rerun_script.page_name = self.page
        if widget is not None:
            state = message.rerun_script.widget_states.widgets.add()
            state.id = self.widget_ids[widget[0]]
            state.int_value = widget[1]
        await self.ws.send(message.SerializeToString())

    async def finished(self) -> None:
        """Read messages until a run finishes (not one ended early for a rerun)."""
        while True:
            forward = ForwardMsg()
            forward.ParseFromString(await asyncio.wait_for(self.ws.recv(), RUN_TIMEOUT_S))
            kind = forward.WhichOneof("type")
            if kind == "delta" and forward.delta.WhichOneof("type") == "new_element":
                element = forward.delta.new_element
                field = element.WhichOneof("type")
                if field == "exception":
                    self.exceptions.append(f"/{self.page}: {element.exception.message[:160]}")
                widget_id = getattr(getattr(element, field), "id", "")
                if widget_id.startswith("$$ID-"):
                    self.widget_ids[widget_id.rsplit("-", 1)[-1]] = widget_id
            elif kind == "script_finished" and forward.script_finished != \
                    FINISHED.FINISHED_EARLY_FOR_RERUN:
                return


class Sampler:
    """The server's RSS every 0.1 s, in a thread (the event loop is busy with the sessions)."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak, self.running = pid, 0.0, True
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while self.running:
            self.peak = max(self.peak, rss_mb(self.pid))
            time.sleep(0.1)

    def stop(self) -> float:
        self.running = False
        self.thread.join()
        return self.peak


def settled_rss(pid: int, *, seconds: float = 20) -> float:
    """RSS once it stops falling (freed arenas return to the system over a few seconds)."""
    deadline = time.monotonic() + seconds
    last = rss_mb(pid)
    while time.monotonic() < deadline:
        time.sleep(2)
        now = rss_mb(pid)
        if abs(now - last) < 3:
            return now
        last = now
    return last


async def one_request(url: str, page: str, query: str, errors: list[str]) -> None:
    try:
        async with Session(url, page) as session:
            await session.rerun(query)
            await session.finished()
            errors.extend(session.exceptions)
    except Exception as error:  # a timeout or a refused connection is an error to report
        errors.append(f"/{page}: {type(error).__name__}: {str(error)[:160]}")


async def stream(url: str, heavy: Heavy, errors: list[str], *, count: int, seconds: float):
    """(a) distinct maximum-size requests, one after another."""
    deadline = time.monotonic() + seconds
    for i in range(count):
        if time.monotonic() > deadline:
            break
        await one_request(url, heavy.page, heavy.request(i), errors)


async def fast_changes(url: str, heavy: Heavy, errors: list[str], *, changes: int):
    """(b) one session at maximum size; its heaviest control changed every 50 ms."""
    try:
        async with Session(url, heavy.page) as session:
            await session.rerun(heavy.request(0))
            await session.finished()
            exact = f"_exact_{heavy.control}"
            key = exact if exact in session.widget_ids else heavy.control
            for i in range(1, changes + 1):
                await session.rerun(heavy.request(0), widget=(key, heavy.value(i)))
                await asyncio.sleep(0.05)
            await session.finished()
            errors.extend(session.exceptions)
    except Exception as error:
        errors.append(f"/{heavy.page}: {type(error).__name__}: {str(error)[:160]}")


async def concurrent(url: str, heavy: Heavy, errors: list[str], *, sessions: int):
    """(c) `sessions` sessions at once, each with its own settings."""
    await asyncio.gather(*(one_request(url, heavy.page, heavy.request(i), errors)
                           for i in range(sessions)))


def measure(pid: int, scenario: Callable[[], object]) -> dict:
    sampler = Sampler(pid)
    start = time.monotonic()
    asyncio.run(scenario())
    seconds = time.monotonic() - start
    peak = sampler.stop()
    return {"seconds": round(seconds, 1), "peak_mb": round(peak),
            "kept_mb": round(settled_rss(pid))}


def run(pages: list[Heavy], *, scenarios: list[str], stream_count: int, stream_seconds: float,
        changes: int, sessions: int, arenas: str, mmap_threshold: str) -> dict:
    RESULTS.mkdir(parents=True, exist_ok=True)
    # The server inherits them, as from the Dockerfile's ENV or the Makefile's export.
    for name, value in (("MALLOC_ARENA_MAX", arenas), ("MALLOC_MMAP_THRESHOLD_", mmap_threshold)):
        if value:
            os.environ[name] = value
        else:
            os.environ.pop(name, None)
    server, url = browser_support.start_streamlit("app.py", RESULTS / "memory-server.log.tmp")
    result: dict = {"arenas": arenas or "glibc default",
                    "mmap_threshold": mmap_threshold or "glibc default (dynamic)",
                    "scenarios": {}, "errors": []}
    try:
        # Warm-up: every page once at its defaults (imports, the model), then the idle RSS; all
        # pages even when one is measured, so that a partial run starts from the same server.
        for heavy in HEAVY:
            asyncio.run(one_request(url, heavy.page, "", result["errors"]))
        result["idle_mb"] = round(settled_rss(server.pid))
        errors = result["errors"]
        every = {
            "stream": lambda h: stream(url, h, errors, count=stream_count,
                                       seconds=stream_seconds),
            "fast changes": lambda h: fast_changes(url, h, errors, changes=changes),
            "concurrent": lambda h: concurrent(url, h, errors, sessions=sessions),
        }
        for name, scenario in every.items():
            if name not in scenarios:
                continue
            per_page = {}
            for heavy in pages:
                per_page[heavy.page] = measure(server.pid, lambda h=heavy, s=scenario: s(h))
                per_page[heavy.page]["idle_mb"] = result["idle_mb"]
                print(name, heavy.page, per_page[heavy.page], flush=True)
            result["scenarios"][name] = per_page
    finally:
        browser_support.stop(server)
    return result


def merge(old: dict, new: dict) -> dict:
    """A partial run's cells (--pages, --scenarios) replace the same cells of the last run."""
    if (old.get("arenas"), old.get("mmap_threshold")) != (new["arenas"],
                                                          new["mmap_threshold"]):
        return new
    merged = {**old, "idle_mb": new["idle_mb"], "errors": new["errors"]}
    merged["scenarios"] = {name: {**old["scenarios"].get(name, {}),
                                  **new["scenarios"].get(name, {})}
                           for name in SCENARIOS
                           if name in old["scenarios"] or name in new["scenarios"]}
    return merged


def summary(result: dict) -> str:
    idle = sorted({r.get("idle_mb", result["idle_mb"]) for s in result["scenarios"].values()
                   for r in s.values()})
    idle_text = f"{idle[0]}-{idle[-1]}" if len(idle) > 1 else f"{idle[0]}"
    lines = [f"Server RSS (MB) with MALLOC_ARENA_MAX={result['arenas']}, MALLOC_MMAP_THRESHOLD_="
             f"{result.get('mmap_threshold', 'glibc default (dynamic)')}, idle after warm-up "
             f"{idle_text} MB; peak / kept per page (budget {BUDGET_MB} MB each):", "",
             "| page | " + " | ".join(result["scenarios"]) + " |",
             "|---|" + "---|" * len(result["scenarios"])]
    pages = [h.page for h in HEAVY
             if any(h.page in s for s in result["scenarios"].values())]
    for page in pages:
        cells = [f"{s[page]['peak_mb']} / {s[page]['kept_mb']} ({s[page]['seconds']:.0f} s)"
                 if page in s else "not run" for s in result["scenarios"].values()]
        lines.append(f"| {page} | " + " | ".join(cells) + " |")
    worst = max(max(r["peak_mb"], r["kept_mb"]) for s in result["scenarios"].values()
                for r in s.values())
    lines += ["", f"Largest: {worst} MB ({'within' if worst <= BUDGET_MB else 'OVER'} the "
              f"budget); {len(result['errors'])} errors."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", nargs="*", default=[h.page for h in HEAVY],
                        choices=[h.page for h in HEAVY])
    parser.add_argument("--scenarios", nargs="*", default=list(SCENARIOS), choices=SCENARIOS,
                        help="one or more of the three (default: all)")
    parser.add_argument("--stream", type=int, default=40, help="requests per page in (a)")
    parser.add_argument("--stream-seconds", type=float, default=12, help="per page in (a)")
    parser.add_argument("--changes", type=int, default=50)
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--arenas", default="2", help="MALLOC_ARENA_MAX; '' for glibc's default")
    parser.add_argument("--mmap-threshold", default="131072",
                        help="MALLOC_MMAP_THRESHOLD_; '' for glibc's default (dynamic)")
    parser.add_argument("--no-save", action="store_true", help="print only")
    parser.add_argument("--merge", action="store_true",
                        help="replace only the cells run in the saved results (one page or "
                             "scenario at a time; each server warmed up the same way)")
    args = parser.parse_args()
    if not (1 <= args.stream <= 100 and 1 <= args.changes <= 100 and 1 <= args.sessions <= 50):
        sys.exit("bounded: 1..100 requests, 1..100 changes, 1..50 sessions")
    pages = [h for h in HEAVY if h.page in args.pages]
    result = run(pages, scenarios=args.scenarios, stream_count=args.stream,
                 stream_seconds=args.stream_seconds, changes=args.changes, sessions=args.sessions,
                 arenas=args.arenas, mmap_threshold=args.mmap_threshold)
    saved = RESULTS / "memory.json"
    if args.merge and saved.exists():
        result = merge(json.loads(saved.read_text()), result)
    table = summary(result)
    if not args.no_save:
        (RESULTS / "memory.json").write_text(json.dumps(result, indent=2))
        (RESULTS / "memory.md").write_text(table)
        update_docs("bench:memory", table)
    print(table)
    for error in result["errors"][:20]:
        print("  error:", error)


if __name__ == "__main__":
    main()
