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
import re
import sys
import threading
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import websockets  # noqa: E402  (Streamlit's server stack installs it)
from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402
from streamlit.proto.WidgetStates_pb2 import WidgetState  # noqa: E402

from benchmarks.bench_browser import RESULT_DOCS, update_docs  # noqa: E402
from benchmarks.load_test import rss_mb  # noqa: E402
from locales import message  # noqa: E402
from tests import browser_support  # noqa: E402
from ui.pages import PAGE_PARAMS  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
RESULT_DOCS.setdefault("bench:memory-exports", "docs/robustness.md")  # the images' table
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
    # The whole MiniLM on 62 words (the 64-token cap), with and without positions.
    Heavy("order", "text=" + "+".join(["the", "cat", "sat", "on", "the", "mat"] * 10 + ["a", "b"]),
          "head", lambda i: 1 + i % 12),
    Heavy("learned-vs-sinusoidal", "", "positions", lambda i: 2048 - i),
    Heavy("rope", "d_head=1024&scaling=ntk_aware", "positions", lambda i: 8192 - i),
    Heavy("alibi", "num_heads=64&head=64", "positions", lambda i: 2048 - i),
    Heavy("extrapolation", "d_model=1024&train_length=2048", "target_length",
          lambda i: 8192 - i),
)


# Controls that are plain sliders (no exact box): the browser sends their value as a list.
PLAIN_SLIDERS = {"head"}


class Stream:
    """A raw websocket to Streamlit's /_stcore/stream at `self.url` (what the browser opens)."""

    url: str

    async def __aenter__(self):
        self.ws = await websockets.connect(
            self.url.replace("http", "ws", 1) + "/_stcore/stream", subprotocols=["streamlit"],
            origin=self.url, max_size=None)
        return self

    async def __aexit__(self, *exc) -> None:
        await self.ws.close()


class Session(Stream):
    """One Streamlit session over a raw websocket (what the browser's client sends)."""

    def __init__(self, url: str, page: str) -> None:
        self.url, self.page = url, page
        self.widget_ids: dict[str, str] = {}  # user key -> element id, from the deltas
        self.exceptions: list[str] = []

    async def rerun(self, query: str = "", widget: tuple[str, int] | None = None,
                    opened: str = "") -> None:
        """A run with `widget` (key, value) changed, the popover `opened` (its key) open."""
        message = BackMsg()
        message.rerun_script.query_string = query
        message.rerun_script.page_name = self.page
        if opened:
            state = message.rerun_script.widget_states.widgets.add()
            state.id, state.bool_value = self.widget_ids[opened], True
        if widget is not None:
            state = message.rerun_script.widget_states.widgets.add()
            state.id = self.widget_ids[widget[0]]
            if widget[0] in PLAIN_SLIDERS:  # st.slider's value travels as a list of doubles
                state.double_array_value.data[:] = [float(widget[1])]
            else:
                state.int_value = widget[1]
        await self.ws.send(message.SerializeToString())

    async def finished(self) -> None:
        """Read messages until a run finishes (not one ended early for a rerun)."""
        while True:
            forward = ForwardMsg()
            forward.ParseFromString(await asyncio.wait_for(self.ws.recv(), RUN_TIMEOUT_S))
            kind = forward.WhichOneof("type")
            if kind == "delta" and forward.delta.WhichOneof("type") == "add_block":
                block = forward.delta.add_block
                if block.WhichOneof("type") == "popover" and block.popover.id.startswith("$$ID-"):
                    self.widget_ids[block.popover.id.rsplit("-", 1)[-1]] = block.popover.id
            elif kind == "delta" and forward.delta.WhichOneof("type") == "new_element":
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
            exact, box = f"_exact_{heavy.control}", f"_exact_box_{heavy.control}"
            opened = box if box in session.widget_ids else ""
            if opened:  # the exact box exists only while its popover is open
                await session.rerun(heavy.request(0), opened=opened)
                await session.finished()
            key = exact if exact in session.widget_ids else heavy.control
            for i in range(1, changes + 1):
                await session.rerun(heavy.request(0), widget=(key, heavy.value(i)), opened=opened)
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


# --- figure images: what each costs, and three of the largest at once under the hostile mix ---
EXPORT_PAGE, EXPORT_QUERY = "heatmap", "d_model=4096&positions=8192"
EXPORT_KINDS = ("png4", "png2", "svg")  # the Export menu's images, largest first
STORM_EXPORTS = 3  # visitors pressing "PNG 7680 x 4320" at the same moment
STORM_PAGES = ("heatmap", "similarity", "word-position", "alibi")  # the mix's heaviest pages
EXPORT_TIMEOUT_S = 300  # one image, queued behind the others under the mix: never this slow


class ExportVisitor(Stream):
    """A session on the export page over a raw websocket, pressing an image button of the chart's
    Export menu as the browser does (the popover opened, then the button, both fragment reruns),
    then fetching the file its "Save" button offers."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.ids: dict[str, str] = {}  # widget key -> element id
        self.fragments: dict[str, str] = {}  # widget key -> its fragment's id
        self.files: dict[str, str] = {}  # download button key -> its file's URL
        self.labels: list[str] = []  # the menu's status lines, in order
        self.notes: list[str] = []  # the page's texts (the menu's notes among them)
        self.exceptions: list[str] = []

    async def send(self, states: list, fragment: str = "") -> None:
        message = BackMsg()
        message.rerun_script.query_string = EXPORT_QUERY
        message.rerun_script.page_name = EXPORT_PAGE
        message.rerun_script.fragment_id = fragment
        message.rerun_script.widget_states.widgets.extend(states)
        await self.ws.send(message.SerializeToString())

    def _key(self, element_id: str) -> str:
        return element_id.rsplit("-", 1)[-1] if element_id.startswith("$$ID-") else ""

    async def run_ends(self) -> None:
        """Read until a run ends (not one ended early for a rerun), noting ids, files, states."""
        while True:
            forward = ForwardMsg()
            forward.ParseFromString(await asyncio.wait_for(self.ws.recv(), EXPORT_TIMEOUT_S))
            kind = forward.WhichOneof("type")
            if kind == "delta":
                delta = forward.delta
                if delta.WhichOneof("type") == "add_block":
                    block = delta.add_block
                    if block.WhichOneof("type") == "popover" and block.popover.id:
                        key = self._key(block.popover.id)
                        self.ids[key], self.fragments[key] = block.popover.id, delta.fragment_id
                    elif block.WhichOneof("type") == "expandable":
                        self.labels.append(block.expandable.label)
                elif delta.WhichOneof("type") == "new_element":
                    element = delta.new_element
                    field = element.WhichOneof("type")
                    if field == "exception":
                        self.exceptions.append(element.exception.message[:160])
                    widget_id = getattr(getattr(element, field), "id", "")
                    if self._key(widget_id):
                        key = self._key(widget_id)
                        self.ids[key], self.fragments[key] = widget_id, delta.fragment_id
                    if field == "markdown":
                        self.notes.append(element.markdown.body)
                    if field == "download_button" and element.download_button.url:
                        self.files[self._key(widget_id)] = element.download_button.url
            elif kind == "script_finished" and forward.script_finished != \
                    FINISHED.FINISHED_EARLY_FOR_RERUN:
                return

    def _drawn(self, key: str, what: str) -> str:
        """The element id of `key`; if the run drew none, why (what the page said instead)."""
        if key not in self.ids:
            said = self.exceptions or self.notes[-3:] or ["nothing"]
            raise RuntimeError(f"{what} not drawn ({key}); the page said: {said}")
        return self.ids[key]

    async def open_menu(self, chart: str = "heatmap_chart") -> None:
        await self.send([])
        await self.run_ends()
        menu = f"{chart}_export"
        opened = WidgetState(id=self._drawn(menu, "no Export menu"), bool_value=True)
        await self.send([opened], self.fragments[menu])
        await self.run_ends()

    async def export(self, kind: str, chart: str = "heatmap_chart") -> dict:
        """Press the image button `kind` of the open menu; the file once "Save" offers it, or
        the reason the menu gives."""
        menu, button, saved = f"{chart}_export", f"{chart}_{kind}", f"{chart}_{kind}_file"
        scale = {"png4": 4, "png2": 2}.get(kind)
        what = (message("export.png", "en", width=1920 * scale, height=1080 * scale) if scale
                else message("export.svg", "en"))
        failures = {message(key, "en", what=what) for key in (
            "export_queue.failed_timeout", "export_queue.failed_browser",
            "export_queue.failed_figure", "export_queue.stopped")}
        # Refusals that quote numbers (the memory, the wait, when to ask again): any numbers.
        numbered = [re.compile(re.escape(message(key, "en", what=what, allowed=999_001,
                                                 waited=999_002, retry=999_003))
                               .replace("999001", r"\d+").replace("999002", r"\d+")
                               .replace("999003", r"\d+"))
                    for key in ("export_queue.failed_memory", "export_queue.failed_visitors")]
        self.notes.clear()
        start = time.monotonic()
        pressed = WidgetState(id=self._drawn(button, f"no {kind} button in the open menu"),
                              trigger_value=True)
        await self.send([WidgetState(id=self.ids[menu], bool_value=True), pressed],
                        self.fragments[button])
        while saved not in self.files:
            await self.run_ends()
            if self.exceptions:
                raise RuntimeError(f"exception in the menu: {self.exceptions}")
            said = [note for note in self.notes
                    if note in failures or any(p.fullmatch(note) for p in numbered)]
            if said:
                raise RuntimeError(f"the menu said: {said[0]}")
        seconds = time.monotonic() - start
        data = await asyncio.to_thread(_fetch, self.url + self.files[saved])
        return {"seconds": round(seconds, 1), "bytes": len(data), "magic": data[:8],
                "labels": list(self.labels)}


def _fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=60) as response:
        return response.read()


def check_image(kind: str, got: dict) -> str | None:
    """Why a delivered file is not the image asked for (None: it is)."""
    if kind == "svg":
        return None if got["magic"].startswith(b"<svg") else f"not an SVG: {got['magic']!r}"
    if got["magic"] != b"\x89PNG\r\n\x1a\n":
        return f"not a PNG: {got['magic']!r}"
    return None


async def one_export(url: str, kind: str, errors: list[str], *, start: asyncio.Event | None = None
                     ) -> dict | None:
    try:
        async with ExportVisitor(url) as visitor:
            await visitor.open_menu()
            if start is not None:
                await start.wait()  # every visitor presses at the same moment
            got = await visitor.export(kind)
            problem = check_image(kind, got)
            if problem:
                errors.append(f"export {kind}: {problem}")
            return got
    except Exception as error:
        errors.append(f"export {kind}: {type(error).__name__}: {str(error)[:160]}")
        return None


async def hostile_mix(url: str, errors: list[str], until: asyncio.Event | None) -> None:
    """Issue 16's scenarios as `run` runs them, one after another, on the heaviest pages in turn:
    one pass over the pages (`until` None), or pass after pass until `until` is set."""
    pages = [h for h in HEAVY if h.page in STORM_PAGES]
    scenarios = (lambda h: stream(url, h, errors, count=20, seconds=8),
                 lambda h: fast_changes(url, h, errors, changes=30),
                 lambda h: concurrent(url, h, errors, sessions=30))
    while True:
        for heavy in pages:
            for scenario in scenarios:
                await scenario(heavy)
                if until is not None and until.is_set():
                    return
        if until is None:
            return


def measure_tree(pid: int, scenario: Callable[[], object]) -> dict:
    """The scenario's peak unique memory (USS) of the server's process tree (the server and its
    Chromium), with the server's own share at that moment, and the server's own peak."""
    from benchmarks.export_cost import TreeSampler, tree_uss_mb

    before = tree_uss_mb(pid)[0]
    sampler = TreeSampler(pid, every_s=0.2)
    start = time.monotonic()
    outcome = asyncio.run(scenario())
    seconds = time.monotonic() - start
    peak = sampler.stop()
    time.sleep(5)
    return {"seconds": round(seconds, 1), "before_uss_mb": round(before),
            "peak_uss_mb": round(peak), "after_uss_mb": round(tree_uss_mb(pid)[0]),
            "server_at_peak_mb": round(sampler.own_at_peak_mb),
            "server_peak_mb": round(sampler.own_peak_mb), "processes": sampler.most_processes,
            "outcome": outcome}


def export_scenarios(pid: int, url: str, errors: list[str]) -> dict:
    """Each image alone on the idle server (its cost), the hostile mix alone, then the storm:
    STORM_EXPORTS visitors pressing the largest PNG at once while the mix runs."""
    out: dict = {"costs": {}}
    for kind in EXPORT_KINDS:
        cell = measure_tree(pid, lambda k=kind: one_export(url, k, errors))
        got = cell.pop("outcome")
        cell["export_s"] = got["seconds"] if got else None
        cell["file_mb"] = round(got["bytes"] / 2**20, 1) if got else None
        out["costs"][kind] = cell
        print("export alone", kind, cell, flush=True)
    mix = measure_tree(pid, lambda: hostile_mix(url, errors, None))
    mix.pop("outcome")
    out["mix alone"] = mix
    print("hostile mix alone", mix, flush=True)

    async def storm() -> list:
        start, done = asyncio.Event(), asyncio.Event()

        async def exports() -> list:
            async def pressed() -> dict | None:
                return await one_export(url, "png4", errors, start=start)

            tasks = [asyncio.create_task(pressed()) for _ in range(STORM_EXPORTS)]
            await asyncio.sleep(15)  # the visitors' menus open, the mix under way
            start.set()
            got = await asyncio.gather(*tasks)
            done.set()
            return got

        got, _ = await asyncio.gather(exports(), hostile_mix(url, errors, done))
        return got

    cell = measure_tree(pid, storm)
    got = cell.pop("outcome")
    cell["delivered"] = sum(g is not None and check_image("png4", g) is None for g in got)
    cell["export_s"] = [g["seconds"] if g else None for g in got]
    cell["waiting_seen"] = sorted({label for g in got if g for label in g["labels"]
                                   if "ahead" in label or "memory" in label})
    out["storm"] = cell
    print("storm", cell, flush=True)
    return out


def export_summary(out: dict) -> str:
    lines = ["Figure images on the server (heatmap at d_model 4096 x 8192 positions): unique "
             "memory (USS) of the server's process tree (the server and the Chromium it drives), "
             f"budget {BUDGET_MB} MB.", "",
             "| scenario | tree USS before / peak / after (MB) | time | |",
             "|---|---|---|---|"]
    names = {"png4": "PNG 7680 x 4320 alone", "png2": "PNG 3840 x 2160 alone",
             "svg": "SVG alone"}
    for kind, cell in out["costs"].items():
        lines.append(f"| {names[kind]} | {cell['before_uss_mb']} / {cell['peak_uss_mb']} / "
                     f"{cell['after_uss_mb']} | {cell['export_s']} s | {cell['file_mb']} MB file, "
                     f"+{cell['peak_uss_mb'] - cell['before_uss_mb']} MB, "
                     f"{cell['processes']} processes |")
    mix = out["mix alone"]
    lines.append(f"| hostile mix alone ({', '.join(STORM_PAGES)}) | {mix['before_uss_mb']} / "
                 f"{mix['peak_uss_mb']} / {mix['after_uss_mb']} | {mix['seconds']:.0f} s | "
                 f"the server's own peak {mix['server_peak_mb']} MB |")
    storm = out["storm"]
    lines.append(f"| {STORM_EXPORTS} x PNG 7680 x 4320 at once + the mix | "
                 f"{storm['before_uss_mb']} / {storm['peak_uss_mb']} / {storm['after_uss_mb']} | "
                 f"{', '.join(f'{s} s' for s in storm['export_s'])} | "
                 f"{storm['delivered']} of {STORM_EXPORTS} files; at the peak the server "
                 f"{storm['server_at_peak_mb']} MB, Chromium "
                 f"{storm['peak_uss_mb'] - storm['server_at_peak_mb']} MB; "
                 f"{storm['processes']} processes |")
    worst = max(storm["peak_uss_mb"], mix["peak_uss_mb"],
                *(c["peak_uss_mb"] for c in out["costs"].values()))
    lines += ["", f"Largest: {worst} MB of tree USS "
              f"({'within' if worst <= BUDGET_MB else 'OVER'} the budget). The menu said: "
              + "; ".join(f"\"{label}\"" for label in storm["waiting_seen"][:3])]
    return "\n".join(lines) + "\n"


def run(pages: list[Heavy], *, scenarios: list[str], stream_count: int, stream_seconds: float,
        changes: int, sessions: int, arenas: str, mmap_threshold: str,
        exports: bool = True) -> dict:
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
        if exports:
            result["exports"] = export_scenarios(server.pid, url, result["errors"])
    finally:
        browser_support.stop(server)
    return result


def merge(old: dict, new: dict) -> dict:
    """A partial run's cells (--pages, --scenarios) replace the same cells of the last run."""
    if (old.get("arenas"), old.get("mmap_threshold")) != (new["arenas"],
                                                          new["mmap_threshold"]):
        return new
    merged = {**old, "idle_mb": new["idle_mb"], "errors": new["errors"]}
    if "exports" in new:
        merged["exports"] = new["exports"]
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
    parser.add_argument("--no-exports", action="store_true",
                        help="skip the figure images: each alone, and the export storm")
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
                 arenas=args.arenas, mmap_threshold=args.mmap_threshold,
                 exports=not args.no_exports)
    saved = RESULTS / "memory.json"
    if args.merge and saved.exists():
        result = merge(json.loads(saved.read_text()), result)
    table = summary(result) if result["scenarios"] else ""
    images = export_summary(result["exports"]) if "exports" in result else ""
    if not args.no_save:
        (RESULTS / "memory.json").write_text(json.dumps(result, indent=2))
        if table:
            (RESULTS / "memory.md").write_text(table)
            update_docs("bench:memory", table)
        if images:
            (RESULTS / "memory_exports.md").write_text(images)
            update_docs("bench:memory-exports", images)
    print(table + "\n" + images)
    for error in result["errors"][:20]:
        print("  error:", error)


if __name__ == "__main__":
    main()
