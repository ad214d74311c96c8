"""Streamlit sessions over a raw websocket, as a browser's client speaks to the server, without a
browser: for tests and benchmarks that send what no browser sends (oversized frames, crafted
links) and for visitors whose own memory must not be counted (a second session timed beside an
export). Shared by tests/test_slide_files.py and benchmarks/hostile_load.py.

`RawSession` runs a page with a query, presses buttons by their keys (fragment reruns as the
browser sends them) and keeps what the runs showed: texts (markdown, captions, notices,
progress bars), exceptions, download URLs, and the ids of the widgets it may press. `Bystander`
is a visitor opening pages over and over, timed; `ask_for_pdf` one asking for a deck's PDF."""

from __future__ import annotations

import asyncio
import re
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from ui.player import slide_query
from ui.tour import Slide


@dataclass
class RawSession:
    url: str  # the server, e.g. http://127.0.0.1:8501
    page: str  # a url_path ("" is the home page)
    query: str = ""  # the address bar's query, without "?"
    texts: list[str] = field(default_factory=list)
    arrived: list[float] = field(default_factory=list)  # when each of `texts` came (monotonic)
    exceptions: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)  # download button key -> its file's URL
    ids: dict[str, str] = field(default_factory=dict)  # widget key -> element id
    fragments: dict[str, str] = field(default_factory=dict)  # widget key -> its fragment id
    socket: Any = None

    async def __aenter__(self) -> RawSession:
        import websockets

        self.socket = await websockets.connect(
            self.url.replace("http", "ws", 1) + "/_stcore/stream", subprotocols=["streamlit"],
            origin=self.url, max_size=None)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.socket.close()

    async def rerun(self, states: list | None = None, fragment: str = "") -> None:
        from streamlit.proto.BackMsg_pb2 import BackMsg

        message = BackMsg()
        message.rerun_script.query_string = self.query
        message.rerun_script.page_name = self.page
        message.rerun_script.fragment_id = fragment
        message.rerun_script.widget_states.widgets.extend(states or [])
        await self.socket.send(message.SerializeToString())

    async def press(self, key: str) -> None:
        """Press the button `key` (its fragment's rerun, as the browser sends it)."""
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        await self.rerun([WidgetState(id=self.ids[key], trigger_value=True)],
                         self.fragments.get(key, ""))

    async def run_ends(self, timeout: float = 120) -> None:
        """Read what the server sends until a run ends (not one ended early for a rerun)."""
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        early = ForwardMsg.ScriptFinishedStatus.FINISHED_EARLY_FOR_RERUN
        while True:
            message = ForwardMsg()
            message.ParseFromString(await asyncio.wait_for(self.socket.recv(), timeout))
            kind = message.WhichOneof("type")
            if kind == "delta" and message.delta.WhichOneof("type") == "new_element":
                self._note(message.delta.new_element, message.delta.fragment_id)
            elif kind == "script_finished" and message.script_finished != early:
                return

    async def until_text(self, *parts: str, timeout: float = 120) -> str:
        """Read what the server sends until a text holding one of `parts` is shown (a run still
        going on, e.g. a file's menu saying where it waits); returns that text."""
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        while True:
            found = next((text for text in self.texts if any(p in text for p in parts)), None)
            if found is not None:
                return found
            message = ForwardMsg()
            message.ParseFromString(await asyncio.wait_for(self.socket.recv(), timeout))
            if (message.WhichOneof("type") == "delta"
                    and message.delta.WhichOneof("type") == "new_element"):
                self._note(message.delta.new_element, message.delta.fragment_id)

    def _note(self, element: Any, fragment: str) -> None:
        kind = element.WhichOneof("type")
        value = getattr(element, kind)
        widget = getattr(value, "id", "")
        if widget.startswith("$$ID-"):
            key = widget.rsplit("-", 1)[-1]
            self.ids[key], self.fragments[key] = widget, fragment
            if kind == "download_button" and value.url:
                self.files[key] = value.url
        if kind == "exception":
            self.exceptions.append(f"{value.type}: {value.message[:300]}")
        elif kind in ("markdown", "alert", "html"):
            self.texts.append(value.body)
            self.arrived.append(time.monotonic())
        elif kind == "progress":
            self.texts.append(value.text)
            self.arrived.append(time.monotonic())

    async def open(self, timeout: float = 120) -> RawSession:
        await self.rerun()
        await self.run_ends(timeout)
        return self

    def fetch(self, key: str) -> bytes:
        """The file the download button `key` offers."""
        with urllib.request.urlopen(self.url + self.files[key], timeout=60) as response:
            return response.read()


def run_async(coroutine: Any) -> Any:
    """`coroutine` run to its end in a thread of its own: a thread where Playwright's sync API
    has started (a browser test before, in the same pytest worker) has a running event loop,
    and asyncio.run refuses to start there."""
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def timed_open(url: str, page: str, query: str, timeout: float = 120) -> float:
    """Seconds a new session takes to run `page` with `query` to its end."""

    async def run() -> float:
        start = time.monotonic()
        async with RawSession(url, page, query) as session:
            await session.open(timeout)
            assert not session.exceptions, session.exceptions
        return time.monotonic() - start

    return run_async(run())


LONG_SENTENCE = " ".join(["the", "cat", "sat", "on", "the", "mat"] * 10 + ["a", "b"])
# Ten slides at (or near) their pages' largest sizes: each page's heaviest computation.
HEAVY_DECK = (
    Slide("heatmap", {"d_model": "4096", "positions": "8192"}),
    Slide("similarity", {"d_model": "1024", "positions": "4096"}),
    Slide("word-position", {"embedding": "random", "encoding": "sinusoidal", "projection": "3-D",
                            "d_model": "4096", "sentence": LONG_SENTENCE}),
    Slide("vit-grid", {"grid_h": "64", "grid_w": "64", "d_model": "1280"}),
    Slide("alibi", {"num_heads": "64", "head": "64", "positions": "2048", "view": "heads"}),
    Slide("rope", {"d_head": "1024", "scaling": "ntk_aware", "positions": "8192",
                   "view": "relative"}),
    Slide("extrapolation", {"d_model": "1024", "train_length": "2048",
                            "target_length": "8192"}),
    Slide("learned-vs-sinusoidal", {"positions": "2048"}),
    Slide("wavelengths", {"d_model": "4096", "positions": "8192"}),
    Slide("order", {"text": LONG_SENTENCE}),
)


def first_slide_query(slides: tuple[Slide, ...], code: str) -> str:
    """The address the player gives slide 1 (a tab opening the deck lands there)."""
    return urlencode(slide_query(slides[0], 1, code, current={"present": "true"}))


async def ask_for_pdf(url: str, slides: tuple[Slide, ...], code: str,
                      start: asyncio.Event | asyncio.Barrier | None = None,
                      ) -> tuple[bytes | None, list[str]]:
    """A visitor on the deck's first slide pressing "PDF": the file once offered (None if the
    menu said it failed), and what the menu said on the way. With `start`, the button is
    pressed once its menu is shown and `start.wait()` has returned (a Barrier: once every
    visitor's menu is shown)."""
    async with RawSession(url, "tour", first_slide_query(slides, code)) as visitor:
        await visitor.open()
        assert "tour_file_pdf" in visitor.ids, visitor.texts
        if start is not None:
            await start.wait()
        visitor.texts.clear()
        await visitor.press("tour_file_pdf")
        while "tour_file_save" not in visitor.files:
            await visitor.run_ends(timeout=600)
            assert not visitor.exceptions, visitor.exceptions
            if any("could not be drawn" in text for text in visitor.texts):
                return None, visitor.texts
        return await asyncio.to_thread(visitor.fetch, "tour_file_save"), visitor.texts


def pdf_pages(pdf: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page\b", pdf))


class Bystander:
    """Another visitor, opening a page with new settings every few seconds until stopped:
    how long each page took."""

    def __init__(self, url: str, page: str, queries: Iterator[str], every_s: float = 3) -> None:
        self.url, self.page, self.queries, self.every_s = url, page, queries, every_s
        self.seconds: list[float] = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        time.sleep(self.every_s)
        while not self.stopping.is_set():
            self.seconds.append(timed_open(self.url, self.page, next(self.queries)))
            self.stopping.wait(self.every_s)

    def __enter__(self) -> Bystander:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self.thread.join(300)
