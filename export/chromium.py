"""The Chromium that draws figure images (export.files.figure_image): one per process, kept
while images are being drawn, each image in a tab of its own.

kaleido 1.x (what ``fig.to_image`` calls) starts a whole Chromium for every image and returns a
PNG as one base64 string through the devtools pipe: one PNG of 7680 x 4320 peaked at ~550 MB of
unique memory (Chromium's renderer ~340 MB: the 133 MB canvas, a second raster of the page, the
data URL and its JSON copy; the browser process ~180 MB relaying the 20 MB message; Python ~50 MB
reading it), and three at once at 1.5 GB. Here, with kaleido's own page (plotly.js and
kaleido_scopes.js, `kaleido.PageGenerator`) driven through its browser library (choreographer):

- plotly.js draws the figure as SVG, exactly as for an SVG export;
- a PNG is rasterised from that SVG a strip of rows at a time (`STRIP_BYTES`, the same SVG with
  the strip's viewBox, drawn by the browser as plotly.js's own PNG export draws it), each strip
  filtered and deflated into one zlib stream as it goes (the browser's CompressionStream), the
  strip's buffers collected before the next (Chromium runs with --js-flags=--expose-gc);
- the file comes back in `READ_BYTES` pieces (no message larger than that in the renderer, the
  browser process or here), and Python writes the PNG's chunks around the stream;
- each image's tab is closed once its file is read: its renderer process exits and gives all of
  its memory back (a reloaded tab kept ~300 MB). A drawing stopped midway closes its tab too,
  and then the browser if nothing else is drawing: a renderer stopped mid-task was seen still
  alive 30 s after its tab closed on a loaded machine;
- a browser that stops answering (an image not drawn within its time, or a stopped image's tab
  not closed within `CLEANUP_S`) is never used again: its processes are killed and the next
  image starts another. A test run on a saturated machine saw one alive but silent, and every
  later image waited on it to its timeout;
- the browser itself lives while images are drawn or waiting (`close_when_idle`): a queue of
  exports starts it once. Idle, it would hold ~100-150 MB, so the caller closes it once nobody
  waits (ui.charts does, inside its memory share).

No network: MathJax is left out (kaleido's page would fetch it from a CDN; no figure here uses
LaTeX) and plotly.js is plotly.py's own copy. Bytes are pixel-identical to plotly.js's PNG but for
the anti-aliasing of rotated text (tests/test_export_queue.py compares them).
"""

from __future__ import annotations

import asyncio
import atexit
import base64
import contextlib
import logging
import os
import shutil
import signal
import struct
import tempfile
import threading
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

_LOGGER = logging.getLogger(__name__)

STRIP_BYTES = 4 * 2**20  # one strip's RGBA pixels (7680 x 136 rows): more held more (measured)
READ_BYTES = 2**20  # one piece of the file read back
POLL_S = 0.5  # how often a waiting caller is told the time and may stop the drawing
CLEANUP_S = 15.0  # at most this long to close a stopped image's tab
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
# Beyond choreographer's own: gc() for the strips' pages (_DRAW_PNG); no spare renderer kept
# warm (~35 MB), the network service in the browser process (~25 MB less than a process of its
# own; pages are local files). Measured with PSS, idle. WebGL drawn on the CPU (SwiftShader,
# which Chromium no longer falls back to by itself): a slide's 3-D chart has no other way to be
# drawn, and without it plotly.js failed ("error creating static canvas/context").
CHROMIUM_FLAGS = (
    "--js-flags=--expose-gc",
    "--disable-features=SpareRendererForSitePerProcess",
    "--enable-unsafe-swiftshader",
    "--enable-features=NetworkServiceInProcess2",
)


BROWSER_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_browser() -> str | None:
    """The Chromium kaleido will drive: BROWSER_PATH if it is set, else one on the PATH."""
    configured = os.environ.get("BROWSER_PATH")
    if configured:
        return configured if os.access(configured, os.X_OK) else None
    for name in BROWSER_CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


class ImageExportError(RuntimeError):
    """An image could not be drawn: `reason` is "timeout", "browser" (Chromium would not start
    or went away) or "figure" (plotly.js refused the figure); the message has the details."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason


# plotly.js draws the figure as SVG (kaleido_scopes.plotly, as for an SVG file); the SVG's bytes
# wait in the page for `_READ`.
_DRAW_SVG = r"""async function(figure, width, height, scale) {
  const drawn = await kaleido_scopes.plotly(
    {data: JSON.parse(figure), format: 'svg', width: width, height: height, scale: scale});
  if (drawn.code !== 0) return {code: drawn.code, message: drawn.message};
  window.__peFile = [new TextEncoder().encode(drawn.result)];
  return {code: 0, length: window.__peFile[0].length};
}"""

# The PNG's image data (a zlib stream of filtered rows, RFC 2083), a strip of rows at a time: the
# SVG with the strip's viewBox drawn into a strip-sized canvas, as plotly.js's PNG export draws
# the whole SVG into one canvas. Rows use the "Up" filter (the row above; the first row "None"),
# which made the smallest files of the five filters on the heatmap (10 MB at 7680 x 4320, where
# Chromium's encoder wrote 15 MB).
_DRAW_PNG = r"""async function(figure, width, height, scale, stripBytes) {
  const drawn = await kaleido_scopes.plotly(
    {data: JSON.parse(figure), format: 'svg', width: width, height: height, scale: scale});
  if (drawn.code !== 0) return {code: drawn.code, message: drawn.message};
  const svg = drawn.result;
  const W = Math.round(width * scale), H = Math.round(height * scale);
  const tagEnd = svg.indexOf('>');
  const root = svg.slice(0, tagEnd)
    .replace(/ (width|height|viewBox|preserveAspectRatio)="[^"]*"/g, '');
  const body = svg.slice(tagEnd);
  const rowBytes = W * 4;
  const step = Number.isInteger(scale) ? scale : 1;  // strips start on whole CSS pixels
  const rows = Math.max(step, Math.floor(stripBytes / rowBytes / step) * step);
  const canvas = document.createElement('canvas');
  const context = canvas.getContext('2d', {willReadFrequently: true});
  const deflate = new CompressionStream('deflate');
  const writer = deflate.writable.getWriter();
  const pieces = [];
  const reading = (async () => {
    const reader = deflate.readable.getReader();
    for (;;) { const {value, done} = await reader.read(); if (done) break; pieces.push(value); }
  })();
  const filtered = new Uint8Array(rows * (rowBytes + 1));
  let above = new Uint8Array(rowBytes);
  for (let top = 0; top < H; top += rows) {
    const h = Math.min(rows, H - top);
    const part = root + ` width="${W}" height="${h}" preserveAspectRatio="none"` +
      ` viewBox="0 ${top / scale} ${width} ${h / scale}"` + body;
    const url = URL.createObjectURL(new Blob([part], {type: 'image/svg+xml'}));
    const image = new Image();
    image.src = url;
    await image.decode();
    canvas.width = W; canvas.height = h;
    context.clearRect(0, 0, W, h);
    context.drawImage(image, 0, 0, W, h);
    URL.revokeObjectURL(url);
    image.src = '';
    const pixels = context.getImageData(0, 0, W, h).data;
    for (let y = 0; y < h; y++) {
      const row = pixels.subarray(y * rowBytes, (y + 1) * rowBytes);
      const at = y * (rowBytes + 1);
      if (top + y === 0) { filtered[at] = 0; filtered.set(row, at + 1); }
      else {
        filtered[at] = 2;
        for (let i = 0; i < rowBytes; i++) filtered[at + 1 + i] = (row[i] - above[i]) & 255;
      }
      above = row;
    }
    above = above.slice();
    await writer.ready;
    await writer.write(filtered.subarray(0, h * (rowBytes + 1)));
    if (typeof gc === 'function') gc();  // this strip's pixels, before the next strip's
  }
  await writer.close();
  await reading;
  // Read back from the deflated pieces themselves: one array of the whole file beside them
  // held its size twice (10 MB more at 7680 x 4320).
  window.__peFile = pieces;
  let length = 0;
  for (const piece of pieces) length += piece.length;
  if (typeof gc === 'function') gc();  // the last strip's buffers
  return {code: 0, length: length, width: W, height: H};
}"""

# One piece of the file, base64 (the devtools protocol carries text): bytes start .. start + size
# of `window.__peFile`, the file as a list of byte arrays.
_READ = r"""function(start, size) {
  const parts = [];
  let at = 0;
  for (const part of window.__peFile) {
    const from = Math.max(start - at, 0), to = Math.min(start + size - at, part.length);
    if (from < to) parts.push(part.subarray(from, to));
    at += part.length;
  }
  const piece = new Blob(parts);
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result.slice(reader.result.indexOf(',') + 1));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(piece);
  });
}"""

# kaleido's page has loaded in the tab (not the empty page it was created with).
_PAGE_READY = ("location.protocol === 'file:' && document.readyState === 'complete'"
               " && typeof kaleido_scopes !== 'undefined'")


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_file(width: int, height: int, stream: list[bytes]) -> bytes:
    """A PNG (8-bit RGBA) around `stream`, the zlib stream of its filtered rows, in pieces."""
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return b"".join([PNG_MAGIC, _png_chunk(b"IHDR", header),
                     *(_png_chunk(b"IDAT", piece) for piece in stream if piece),
                     _png_chunk(b"IEND", b"")])


def _command_result(response: dict[str, Any]) -> Any:
    """The value a Runtime.callFunctionOn / evaluate returned, or an error that says why."""
    if "error" in response:
        raise ImageExportError("browser", str(response["error"])[:300])
    result = response.get("result", {})
    if "exceptionDetails" in result:
        raise ImageExportError("figure", str(result["exceptionDetails"])[:300])
    return result.get("result", {}).get("value")


def process_tree(pid: int) -> list[int]:
    """`pid` and its descendants, parents first (Linux's /proc; elsewhere `pid` alone).
    choreographer starts a small Python wrapper, which starts Chromium, which starts its own
    processes."""
    tree, index = [pid], 0
    while index < len(tree):
        with contextlib.suppress(OSError, ValueError):
            children = Path(f"/proc/{tree[index]}/task/{tree[index]}/children").read_text()
            tree += [int(child) for child in children.split()]
        index += 1
    return tree


def _ended(done: threading.Event) -> Callable[[asyncio.Task], None]:
    """A drawing's done-callback: `done` set, its error marked as seen (a stopped drawing's caller
    raises its own error, not the task's: asyncio would log "exception was never retrieved")."""

    def callback(task: asyncio.Task) -> None:
        if not task.cancelled():
            task.exception()
        done.set()

    return callback


class _Chromium:
    """One headless Chromium in an event loop of its own (a daemon thread), started on demand."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._browser: Any = None  # a choreographer.Browser, used only in the loop
        self._page: Path | None = None  # kaleido's page (plotly.js, kaleido_scopes.js)
        self._drawing = 0  # images being drawn now (read and written in the loop)
        self._opening: asyncio.Lock | None = None  # made in the loop
        self.launches = 0  # browsers started (tests: one for a queue of images)
        self._cleanups: set[asyncio.Future] = set()  # abandoned browsers' (held till done)
        self._close_pending = False  # closing asked while a drawing was still ending

    # --- the caller's side (any thread) ---
    def _event_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="image-export",
                                 daemon=True).start()
                self._loop = loop
                atexit.register(self.close)
            return self._loop

    def draw(self, figure_json: str, fmt: str, width: int, height: int, scale: float, *,
             timeout: float, poll: Callable[[float], None] | None = None) -> bytes:
        """The image's bytes. Every `POLL_S` seconds `poll(elapsed)` runs in the caller's thread:
        whatever it raises stops the drawing (its tab closed first) and is raised here."""
        loop = self._event_loop()
        done = threading.Event()  # set once the drawing has ended and its tab is closed
        tasks: list[asyncio.Task] = []

        def start() -> None:
            task = loop.create_task(self._draw(figure_json, fmt, width, height, scale))
            task.add_done_callback(_ended(done))
            tasks.append(task)

        loop.call_soon_threadsafe(start)
        begun = time.monotonic()
        timed_out = False
        try:
            while not done.wait(POLL_S):
                elapsed = time.monotonic() - begun
                if elapsed > timeout:
                    timed_out = True
                    raise ImageExportError("timeout", f"not drawn within {timeout:.0f} s")
                if poll is not None:
                    poll(elapsed)
        except BaseException:
            # Scheduled after `start`, so the task exists; it stops and closes its tab.
            loop.call_soon_threadsafe(lambda: tasks[0].cancel())
            if timed_out:  # the browser did not answer in time: not asked again (its tab
                self.abandon()  # went with it; the task ends on its own, its waits bounded)
            elif not done.wait(CLEANUP_S):  # nor did it close the tab in time
                self.abandon()
            else:
                # A renderer stopped mid-task may outlive its closed tab a long while on a
                # loaded machine (a test run saw one 30 s on): with nothing else drawing, the
                # browser goes, and all its memory with it. The next image starts it again.
                self.close_when_idle()
            raise
        return tasks[0].result()

    def abandon(self) -> None:
        """Kill the browser (its processes, at once) and forget it, whatever it is drawing: it
        stopped answering. The next image starts a new one."""
        if self._loop is None:
            return
        future = asyncio.run_coroutine_threadsafe(self._abandon(), self._loop)
        with contextlib.suppress(Exception):
            future.result(CLEANUP_S)

    def close_when_idle(self) -> None:
        """Close the browser if no image is being drawn (its memory goes back to the system)."""
        if self._loop is None:
            return
        future = asyncio.run_coroutine_threadsafe(self._close(only_idle=True), self._loop)
        with contextlib.suppress(Exception):
            future.result(CLEANUP_S)

    def close(self) -> None:
        if self._loop is None:
            return
        future = asyncio.run_coroutine_threadsafe(self._close(only_idle=False), self._loop)
        with contextlib.suppress(Exception):
            future.result(CLEANUP_S)

    def running(self) -> bool:
        browser = self._browser
        return browser is not None and browser.subprocess.poll() is None

    # --- the loop's side ---
    def _drawing_done(self) -> None:
        """A drawing (an image's or a slide's) has ended, its tab closed: in the loop. If a close
        was asked while it was still ending (its caller, stopped or timed out, does not wait for
        the end), the browser closes now: it stayed up, ~150 MB, until the next export."""
        self._drawing -= 1
        if self._drawing == 0 and self._close_pending:
            self._close_pending = False
            closing = asyncio.ensure_future(self._close(only_idle=True))
            self._cleanups.add(closing)
            closing.add_done_callback(self._cleanups.discard)

    async def _open(self) -> Any:
        self._close_pending = False  # a drawing wants it
        if self._opening is None:
            self._opening = asyncio.Lock()
        async with self._opening:  # images drawn at once share one browser
            if self._browser is not None and self._browser.subprocess.poll() is None:
                return self._browser
            await self._close(only_idle=False)
            return await self._launch()

    async def _launch(self) -> Any:
        import choreographer
        from choreographer.browsers.chromium import Chromium
        from kaleido import PageGenerator

        class Lean(Chromium):  # choreographer's Chromium with CHROMIUM_FLAGS
            def get_cli(self):  # type: ignore[no-untyped-def]
                return [*super().get_cli(), *CHROMIUM_FLAGS]

        path = find_browser()
        if path is None:
            raise ImageExportError("browser", "no Chromium on this server")
        if self._page is None:
            folder = Path(tempfile.mkdtemp(prefix="pe-export-"))
            (folder / "index.html").write_text(PageGenerator(mathjax=False).generate_index(),
                                               encoding="utf-8")
            self._page = folder / "index.html"
        browser = choreographer.Browser(path=path, browser_cls=Lean, headless=True)
        try:
            await browser.open()
            for tab in list(browser.tabs.values()):  # its first, empty tab: a renderer, ~40 MB
                await browser.close_tab(tab.target_id)
        except BaseException as error:
            await _shut(browser)
            if isinstance(error, Exception):
                raise ImageExportError("browser", f"Chromium did not start: {error}") from error
            raise
        self._browser = browser
        self.launches += 1
        return browser

    async def _abandon(self) -> None:
        browser, self._browser = self._browser, None
        if browser is None:
            return
        _LOGGER.warning("image export: Chromium stopped answering; killed, the next image "
                        "starts another")
        _kill(browser)

        async def clean_up() -> None:  # choreographer's own (its profile folder), in the
            with contextlib.suppress(Exception):  # background: it may wait on the dead pipe
                await asyncio.wait_for(browser.close(), CLEANUP_S)

        self._cleanups.add(cleanup := asyncio.ensure_future(clean_up()))
        cleanup.add_done_callback(self._cleanups.discard)

    async def _close(self, *, only_idle: bool) -> None:
        if only_idle and self._drawing:
            self._close_pending = True  # once the last drawing has ended (`_drawing_done`)
            return
        self._close_pending = False
        browser, self._browser = self._browser, None
        if browser is not None:
            await _shut(browser)
        if self._page is not None and not self._drawing:
            shutil.rmtree(self._page.parent, ignore_errors=True)
            self._page = None

    @staticmethod
    async def _new_tab(browser: Any) -> Any:
        """A blank tab. Stopped while Chromium makes it, the tab is still made (a renderer, its
        memory): it is waited for and closed, never left open unknown to the drawing."""
        making = asyncio.ensure_future(browser.create_tab(""))
        try:
            return await asyncio.shield(making)
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                made = await asyncio.wait_for(making, CLEANUP_S)
                await asyncio.wait_for(browser.close_tab(made.target_id), CLEANUP_S)
            raise

    async def _draw(self, figure_json: str, fmt: str, width: int, height: int,
                    scale: float) -> bytes:
        self._drawing += 1
        tab = None
        browser = None
        try:
            browser = await self._open()
            tab = await self._new_tab(browser)
            _command_result(await tab.send_command(
                "Page.navigate", params={"url": self._page.as_uri()}))  # type: ignore[union-attr]
            while True:  # an evaluation may still meet the empty page, or its context going
                ready = await tab.send_command("Runtime.evaluate", params={
                    "expression": _PAGE_READY, "returnByValue": True})
                if ready.get("result", {}).get("result", {}).get("value") is True:
                    break
                await asyncio.sleep(0.05)
            window = await tab.send_command("Runtime.evaluate", params={"expression": "window"})
            window_id = window["result"]["result"]["objectId"]

            async def call(function: str, *args: Any) -> Any:
                return _command_result(await tab.send_command("Runtime.callFunctionOn", params={
                    "functionDeclaration": function, "objectId": window_id,
                    "arguments": [{"value": arg} for arg in args],
                    "returnByValue": True, "awaitPromise": True}))

            if fmt == "png":
                drawn = await call(_DRAW_PNG, figure_json, width, height, scale, STRIP_BYTES)
            else:
                drawn = await call(_DRAW_SVG, figure_json, width, height, scale)
            if not drawn or drawn.get("code") != 0:
                raise ImageExportError("figure", f"plotly.js: {drawn}")
            pieces = [base64.b64decode(await call(_READ, start, READ_BYTES))
                      for start in range(0, drawn["length"], READ_BYTES)]
            if fmt == "png":
                return png_file(drawn["width"], drawn["height"], pieces)
            return b"".join(pieces)
        except (ImageExportError, asyncio.CancelledError):
            raise
        except Exception as error:  # the browser went away or stopped answering
            failure = browser_failure(error)
            if isinstance(failure, asyncio.CancelledError):
                raise failure from error
            _LOGGER.warning("image export failed: %r", error)
            if browser is not None and browser is self._browser:
                self._browser = None
                tab = None
                await _shut(browser)
            raise failure from error
        finally:
            if tab is not None and browser is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(browser.close_tab(tab.target_id), CLEANUP_S)
            self._drawing_done()


def _kill(browser: Any) -> None:
    """Kill `browser`'s processes at once, children first."""
    if getattr(browser, "subprocess", None) is None:  # never started
        return
    for pid in reversed(process_tree(browser.subprocess.pid)):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


async def _shut(browser: Any) -> None:
    """Close `browser` (choreographer's close: it asks Chromium to quit, then waits on it), in
    CLEANUP_S at most: past that, or if the close fails or is stopped, its processes are killed.
    Unbounded, a close a Chromium never answers (one starting, or stopped, on a saturated
    machine) would keep its drawing counted, and every later browser open, forever."""
    try:
        await asyncio.wait_for(browser.close(), CLEANUP_S)
    except BaseException as error:
        _kill(browser)
        if not isinstance(error, Exception):
            raise


def browser_failure(error: Exception) -> BaseException:
    """What a drawing raises for `error`, an exception of the browser's library: its own stop
    (CancelledError) if its task is being cancelled (choreographer turns a cancelled send into
    ChannelClosedError; raised as a failure, the task would end with an exception nobody
    retrieves, logged as "Task exception was never retrieved"), else ImageExportError
    ("browser": it went away or stopped answering)."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        return asyncio.CancelledError()
    return ImageExportError("browser", repr(error)[:300])


CHROMIUM = _Chromium()
