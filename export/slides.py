"""A tour or a deck as one file a lecturer carries: a PDF of one 16:9 page per slide, or a ZIP of
the slides' PNGs.

A slide is made in two steps, each counted where it runs (ui.player makes a file slide by slide,
in turn with every visitor's work):

1. `compute_slide`: the slide is run on this very server by a websocket session of our own
   (what a browser sends, without a browser). Its page computes what it draws through the
   shared, bounded caches, one cache miss at a time like any visitor's, while no Chromium
   runs; what the page sends is read for the slide's content (`SlideContent`): the slide's
   title (the takeaway, or the deck's note) and its charts' figures, as the slide layout
   shows them (ui/player/: the page's furniture and `ui.text.page_only` parts left out).
2. `photograph_slide`: in the slide's turn of the heavy work (server.memory_budget.image_turn,
   alone), the images' Chromium (export.chromium) lays the content out on a 1920 x 1080 page of
   its own, plotly.js and the app's font and nothing else (~260 MB at the largest heatmap,
   against ~340 MB for the app's page in a tab), and photographs it (a PNG): white, or for a
   deck shown dark Streamlit's dark background (its session was told the theme as a browser
   tells it, so its figures are styled for it). The server
   runs nothing for it, so the model and the caches may give their room back for the photograph.

The title's formulas are drawn as MathML (export/slide_text.py). Charts are drawn by plotly.js
from the figures the page sent, each at its cell's size, without play buttons or sliders (a page
cannot press them); 3-D scenes are drawn live with WebGL (SwiftShader: CHROMIUM_FLAGS).

The PDF is written by fpdf2 (a pure-Python, maintained library: 2.8, 2026), each page 20 x
11.25 inches holding its PNG losslessly (Flate): Pillow's PDF writer, the other candidate at
hand, re-encodes every page as JPEG, which blurs the text of a chart.
"""

from __future__ import annotations

import asyncio
import atexit
import base64
import contextlib
import html
import io
import json
import re
import shutil
import tempfile
import threading
import time
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from export.chromium import (
    CHROMIUM,
    CLEANUP_S,
    POLL_S,
    ImageExportError,
    browser_failure,
    png_file,
)
from export.slide_text import line_html

SLIDE_SIZE = (1920, 1080)  # a projector's pixels: 16:9
PDF_PAGE_PT = (1440, 810)  # the same at 72 points per inch (20 x 11.25 in)
MAX_CHARTS = 4  # a slide's charts, in a grid: more would be too small to read
# One slide's drawing, from the start of its turn: within this, or the file fails.
SLIDE_TIMEOUT_S = 60.0
# One slide's computation: it waits in the compute queue behind the visitors' like theirs.
COMPUTE_TIMEOUT_S = 300.0
# What photographing one slide adds to the process tree (server.memory_budget.image_turn waits for
# the room):
# the images' Chromium with the slide's page, 221-270 MB measured on the heaviest slides (the
# largest heatmap's 131,072 cells among them) with no other Chromium on the machine, rounded up;
# a 3-D chart adds WebGL drawn on the CPU (SwiftShader, in Chromium's GPU process), which grows
# with its pixels: 682 MB for one at 1920 x 1080 drawn at plotly.js's default 2 pixels a point,
# 347 MB at MAX_WEBGL_PIXELS and 1 pixel a point.
SLIDE_DRAW_COST = 300 * 2**20
WEBGL_SLIDE_DRAW_COST = 380 * 2**20
MAX_WEBGL_PIXELS = 1100 * 650  # a 3-D chart's size on a slide, at most (centred in its cell)
WEBGL_TYPES = ("scatter3d", "surface", "mesh3d", "cone", "streamtube", "volume", "isosurface",
               "scattergl", "scatterpolargl", "splom", "parcoords")


@dataclass(frozen=True)
class SlideContent:
    """What a slide shows, as its page sent it (the slide layout: its title, its charts)."""

    title: str  # the takeaway (markdown, with $formulas$) or the deck's note (text)
    title_is_note: bool  # the title is the visitor's text: shown as typed
    charts: tuple[str, ...]  # each chart's figure, as plotly JSON ({"data", "layout"})
    dark: bool = False  # computed and laid out in the dark theme

    @property
    def webgl(self) -> bool:
        """Whether a chart is drawn with WebGL (a 3-D scene): it costs more to photograph. (Its
        traces only: a figure's template names every trace type.)"""
        return any(trace.get("type") in WEBGL_TYPES
                   for chart in self.charts for trace in json.loads(chart).get("data", ()))

    @property
    def draw_cost(self) -> int:
        """What photographing it adds to the process tree, in bytes (its turn's share)."""
        return WEBGL_SLIDE_DRAW_COST if self.webgl else SLIDE_DRAW_COST


def _run_in_loop(coroutine, timeout: float, poll: Callable[[], None] | None) -> Any:
    """`coroutine` run in the images' event loop (export.chromium), from the caller's thread:
    `poll()` every POLL_S seconds meanwhile, whatever it raises stops it and is raised here;
    past `timeout` seconds it is stopped and ImageExportError("timeout") raised."""
    future = asyncio.run_coroutine_threadsafe(coroutine, CHROMIUM._event_loop())
    begun = time.monotonic()
    try:
        while True:
            try:
                return future.result(POLL_S)
            except TimeoutError:
                if time.monotonic() - begun > timeout:
                    raise ImageExportError("timeout", "the slide took too long") from None
                if poll is not None:
                    poll()
    except BaseException:
        future.cancel()
        with contextlib.suppress(Exception):
            future.result(CLEANUP_S)
        raise


# --- 1. the slide's computation and content: a session of our own, no browser -----------------
_NOTE = re.compile(r'^<h4 class="pe-plain"[^>]*>(.*)</h4>$', re.S)  # ui.text.plain_text's


class _Content:
    """A slide's content as its run's messages bring it: elements of the main area by their
    place (a later message at the same place replaces an earlier one), those a slide shows (the
    slide's title, its charts but those in blocks whose key holds `hidden`)."""

    def __init__(self, hidden: str = "", *, dark: bool = False) -> None:
        self.dark = dark
        self.elements: dict[tuple[int, ...], tuple[str, Any]] = {}
        self.hidden_key = hidden
        self.hidden: set[tuple[int, ...]] = set()  # the places of the blocks left out

    def add(self, message: Any) -> None:
        path = tuple(message.metadata.delta_path)
        if not path or path[0] != 0:
            return  # the sidebar
        delta = message.delta
        if delta.WhichOneof("type") == "add_block":
            if self.hidden_key and self.hidden_key in delta.add_block.id:  # $$ID-<hash>-<key>
                self.hidden.add(path)
            return
        if delta.WhichOneof("type") != "new_element":
            return
        element = delta.new_element
        kind = element.WhichOneof("type")
        if kind == "markdown" and element.markdown.body.startswith("#### "):
            self.elements[path] = ("title", element.markdown.body[5:].strip())
        elif kind == "html" and (note := _NOTE.match(element.html.body.strip())):
            self.elements[path] = ("note", html.unescape(note.group(1)))
        elif kind == "plotly_chart":
            self.elements[path] = ("chart", element.plotly_chart.spec)

    def content(self) -> SlideContent:
        shown = [path for path in sorted(self.elements)
                 if not any(path[:len(block)] == block for block in self.hidden)]
        ordered = [self.elements[path] for path in shown]
        first = {kind: value for kind, value in reversed(ordered)}
        note = first.get("note")
        return SlideContent(
            title=note if note is not None else first.get("title", ""),
            title_is_note=note is not None,
            charts=tuple(value for kind, value in ordered if kind == "chart")[:MAX_CHARTS],
            dark=self.dark)


async def _run_session(server: str, page: str, query: str, hidden: str,
                       dark: bool) -> SlideContent:
    import websockets
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    early = ForwardMsg.ScriptFinishedStatus.FINISHED_EARLY_FOR_RERUN
    content = _Content(hidden, dark=dark)
    try:
        async with websockets.connect(
                server.replace("http", "ws", 1) + "/_stcore/stream",
                subprotocols=["streamlit"], origin=server, max_size=None) as socket:
            rerun = BackMsg()
            rerun.rerun_script.query_string = query
            rerun.rerun_script.page_name = page
            # The theme, as a browser states it (st.context.theme: the slide's figures follow it).
            rerun.rerun_script.context_info.color_scheme = "dark" if dark else "light"
            await socket.send(rerun.SerializeToString())
            while True:
                message = ForwardMsg()
                message.ParseFromString(await socket.recv())
                kind = message.WhichOneof("type")
                if kind == "delta":
                    content.add(message)
                elif kind == "script_finished" and message.script_finished != early:
                    return content.content()
    except (OSError, websockets.WebSocketException) as error:
        raise ImageExportError("browser", f"the slide's session: {error!r}"[:300]) from error


def compute_slide(server: str, page: str, query: str, *, hidden: str = "", dark: bool = False,
                  poll: Callable[[], None] | None = None) -> SlideContent:
    """Run page `page` (a url_path) with `query` on the server at `server` (its loopback
    address and base path) as a browser in the light or `dark` theme asks for it, and return
    what it shows once that run has ended, but for blocks whose key holds `hidden` (what a
    slide leaves out). `poll()` runs meanwhile every POLL_S seconds (what it raises stops the
    run)."""
    return _run_in_loop(_run_session(server, page, query, hidden, dark), COMPUTE_TIMEOUT_S,
                        poll)


# --- 2. the slide's photograph: the content laid out on a page of its own ----------------------
# The slide's page: plotly.js (the installed plotly package's), the app's font (Streamlit's own
# Source Sans, for the title; charts keep their figures' fonts), white, or Streamlit's dark
# theme's background and text (`.pe-dark`: the dark figures' paper is transparent).
_PAGE_HTML = """<!DOCTYPE html>
<html><head><meta charset="utf-8">
<style>
{font_face}
html, body {{ margin: 0; background: #fff; }}
#pe-slide {{ box-sizing: border-box; width: {width}px; height: {height}px; display: flex;
  flex-direction: column; gap: 10px; padding: 36px 64px 28px; color: #31333f;
  font-family: "Source Sans", "Source Sans Pro", "Noto Sans CJK SC", sans-serif; }}
#pe-slide h1 {{ margin: 0; font-size: 40px; font-weight: 700; line-height: 1.2; }}
#pe-slide math {{ font-size: 1.05em; }}
body.pe-dark {{ background: #0e1117; }}
body.pe-dark #pe-slide {{ color: #fafafa; }}
#pe-charts {{ flex: 1; min-height: 0; display: grid; gap: 16px; }}
</style>
<script src="{plotly}"></script>
</head><body><div id="pe-slide"><h1></h1><div id="pe-charts"></div></div></body></html>
"""

# Fills the page with one slide and resolves once it is drawn: its title (HTML), each chart
# redrawn at its cell's size without its play buttons and sliders.
_LAYOUT_JS = """async (title, charts, maxWebgl, webglTypes, dark) => {
  document.body.classList.toggle('pe-dark', dark);
  const titleBox = document.querySelector('#pe-slide h1');
  titleBox.innerHTML = title;
  titleBox.style.display = title ? '' : 'none';
  const grid = document.getElementById('pe-charts');
  grid.replaceChildren();
  const columns = charts.length > 1 ? 2 : 1;
  const rows = Math.max(1, Math.ceil(charts.length / columns));
  grid.style.gridTemplateColumns = `repeat(${columns}, 1fr)`;
  grid.style.gridTemplateRows = `repeat(${rows}, 1fr)`;
  await document.fonts.ready;
  const box = grid.getBoundingClientRect();
  const w = Math.floor((box.width - 16 * (columns - 1)) / columns);
  const h = Math.floor((box.height - 16 * (rows - 1)) / rows);
  for (const spec of charts) {
    const figure = JSON.parse(spec);
    const cell = document.createElement('div');
    grid.appendChild(cell);
    // A 3-D scene is drawn live (a static one goes through plotly.js's offscreen WebGL image,
    // which comes after newPlot has returned: the photograph caught a blank scene), one pixel a
    // point and at most maxWebgl pixels, centred in its cell: WebGL is drawn on the CPU here,
    // and its memory grows with its pixels.
    const webgl = (figure.data || []).some(trace => webglTypes.includes(trace.type));
    const shrink = webgl ? Math.min(1, Math.sqrt(maxWebgl / (w * h))) : 1;
    const layout = Object.assign({}, figure.layout, {
      width: Math.floor(w * shrink), height: Math.floor(h * shrink), autosize: false});
    delete layout.updatemenus;
    delete layout.sliders;
    cell.style.cssText = 'display:flex;align-items:center;justify-content:center;min-height:0;';
    await Plotly.newPlot(cell, figure.data || [], layout,
                         {staticPlot: !webgl, displayModeBar: false, plotGlPixelRatio: 1});
  }
  await document.fonts.ready;
  await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
  return charts.length;
}"""

_page_lock = threading.Lock()
_page: Path | None = None


def _font_face() -> str:
    """@font-face rules for Streamlit's Source Sans (its package's own files), if found."""
    import streamlit

    media = Path(streamlit.__file__).parent / "static" / "static" / "media"
    rules = []
    for style, pattern in (("normal", "SourceSansVF-Upright*.woff2"),
                           ("italic", "SourceSansVF-Italic*.woff2")):
        found = sorted(media.glob(pattern))
        if found:
            rules.append(f'@font-face {{ font-family: "Source Sans"; font-style: {style}; '
                         f'font-weight: 200 900; src: url("{found[0].as_uri()}"); }}')
    return "\n".join(rules)


def slide_page() -> Path:
    """The slide's page, written once per process into a folder of its own (removed at exit)."""
    global _page
    with _page_lock:
        if _page is None or not _page.exists():
            import plotly

            plotly_js = Path(plotly.__file__).resolve().parent / "package_data" / "plotly.min.js"
            folder = Path(tempfile.mkdtemp(prefix="pe-slides-"))
            atexit.register(shutil.rmtree, folder, True)
            page = folder / "slide.html"
            page.write_text(_PAGE_HTML.format(
                font_face=_font_face(), width=SLIDE_SIZE[0], height=SLIDE_SIZE[1],
                plotly=plotly_js.as_uri()), encoding="utf-8")
            _page = page
        return _page


async def _photograph(content: SlideContent) -> bytes:
    width, height = SLIDE_SIZE
    CHROMIUM._drawing += 1  # the browser stays open while the slide is drawn
    browser = tab = None
    try:
        browser = await CHROMIUM._open()
        tab = await CHROMIUM._new_tab(browser)
        await tab.send_command("Emulation.setDeviceMetricsOverride", params={
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        await tab.send_command("Page.navigate", params={"url": slide_page().as_uri()})
        while True:  # an evaluation may still meet the empty page
            ready = await tab.send_command("Runtime.evaluate", params={
                "expression": "document.readyState === 'complete' && typeof Plotly === 'object'",
                "returnByValue": True})
            if ready.get("result", {}).get("result", {}).get("value") is True:
                break
            await asyncio.sleep(0.05)
        title = line_html(content.title, text=content.title_is_note)
        drawn = await tab.send_command("Runtime.evaluate", params={
            "expression": f"({_LAYOUT_JS})({json.dumps(title)}, "
                          f"{json.dumps(list(content.charts))}, {MAX_WEBGL_PIXELS}, "
                          f"{json.dumps(WEBGL_TYPES)}, {json.dumps(content.dark)})",
            "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in drawn.get("result", {}):
            raise ImageExportError("figure", str(drawn["result"]["exceptionDetails"])[:300])
        shot = await tab.send_command("Page.captureScreenshot", params={"format": "png"})
        return base64.b64decode(shot["result"]["data"])
    except (ImageExportError, asyncio.CancelledError):
        raise
    except Exception as error:  # the browser went away or stopped answering (or we stopped it)
        raise browser_failure(error) from error
    finally:
        if tab is not None and browser is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(browser.close_tab(tab.target_id), CLEANUP_S)
        CHROMIUM._drawing_done()


def photograph_slide(content: SlideContent, *, poll: Callable[[], None] | None = None) -> bytes:
    """The slide `content` as a 1920 x 1080 PNG, drawn by the images' Chromium (started if need
    be; the caller closes it). `poll()` runs meanwhile every POLL_S seconds."""
    return _run_in_loop(_photograph(content), SLIDE_TIMEOUT_S, poll)


def slides_pdf(images: list[bytes]) -> bytes:
    """One 16:9 page per slide image, each held losslessly."""
    from fpdf import FPDF

    pdf = FPDF(unit="pt", format=PDF_PAGE_PT)
    pdf.set_auto_page_break(False)
    pdf.set_creator("Positional Encoding Explorer")
    for image in images:
        pdf.add_page()
        pdf.image(io.BytesIO(image), x=0, y=0, w=PDF_PAGE_PT[0], h=PDF_PAGE_PT[1])
    return bytes(pdf.output())


def slides_zip(images: list[bytes], stem: str) -> bytes:
    """The slide images as stem-01.png, stem-02.png, ... (stored: PNGs are compressed)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for number, image in enumerate(images, start=1):
            archive.writestr(f"{stem}-{number:02d}.png", image)
    return buffer.getvalue()


def import_libraries() -> None:
    """Import what drawing images and writing files use (choreographer, kaleido's page, fpdf2 and
    the fontTools and Pillow parts writing a PDF imports: ~300 modules, ~20 MB), as the first
    export would. A public server (serve.py) calls it at its start, so that its memory at rest
    is the same before the first export and after the last: imported in a session, they stayed
    for good, a rise of the idle server's floor (docs/robustness.md). Nothing where kaleido is
    not installed (exports are then off)."""
    with contextlib.suppress(ImportError):
        import choreographer  # noqa: F401
        import kaleido  # noqa: F401
        from choreographer.browsers.chromium import Chromium  # noqa: F401

        one_pixel = png_file(1, 1, [zlib.compress(b"\x00" * 5)])
        slides_pdf([one_pixel])
