"""A tour or a deck as one file a lecturer carries: a PDF of one 16:9 page per slide, or a ZIP of
the slides' PNGs.

Each slide is drawn by the Chromium that draws the figure images (`figures.chromium.CHROMIUM`,
one per process): a tab opens the tour on this very server (its loopback address), and for each
slide, once it has run and its charts are drawn, the slide's title, its one line (the takeaway,
or the deck's note) and its charts (up to four, in a grid, each redrawn by plotly.js at the
size its cell has) are laid out on a white 1920 x 1080 page and photographed (a PNG). Each slide
is opened in a tab of its own, closed once photographed (its pages computed through the caches
like any visitor's).

The PDF is written by fpdf2 (a pure-Python, maintained library: 2.8, 2026), each page 20 x
11.25 inches holding its PNG losslessly (Flate): Pillow's PDF writer, the other candidate at
hand, re-encodes every page as JPEG, which blurs the text of a chart.

A file is drawn in its turn of the process's heavy work, as a figure image is (ui.cache.image_turn:
one at a time, the caches and the model giving back their room, Chromium started once the
server's memory leaves SLIDE_FILE_COST in the budget); its tabs' sessions compute their slides in
that turn (ui.cache.slide_file_run), one at a time.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import io
import time
import zipfile
from collections.abc import Callable
from typing import Any

from figures.chromium import CHROMIUM, CLEANUP_S, POLL_S, ImageExportError

SLIDE_SIZE = (1920, 1080)  # a projector's pixels: 16:9
PDF_PAGE_PT = (1440, 810)  # the same at 72 points per inch (20 x 11.25 in)
SLIDE_TIMEOUT_S = 60.0  # one slide's page runs and draws within this, or the file fails
# What a slide file's browser holds at its peak, beside the server (its turn waits for the room,
# as an image's does): 311 MB measured for the 15-slide tour, each slide in a tab of its own.
SLIDE_FILE_COST = 340 * 2**20

# The slide's state, in the tab: 0 while the page runs or its charts are still coming, else the
# number the player shows and how many charts are drawn.
_READY_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  const count = document.querySelector('.pe-tour-count');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning' || !count) return 0;
  const charts = [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')];
  if (charts.some(gd => !gd.querySelector('.main-svg'))) return 0;
  return parseInt(count.textContent, 10) * 100 + Math.min(charts.length, 99);
}"""
CHARTLESS_S = 8.0  # a slide whose page has run and shows no chart this long has none

# The slide laid out for its photograph: title, line, charts (each redrawn at its cell's size).
_LAYOUT_JS = """async ([width, height]) => {
  document.getElementById('pe-slide')?.remove();
  const main = document.querySelector('[data-testid="stMain"]');
  const title = main.querySelector('h1');
  const line = main.querySelector('h4');
  const charts = [...main.querySelectorAll('.js-plotly-plot')]
    .filter(gd => gd.data && gd.querySelector('.main-svg')).slice(0, 4);
  const slide = document.createElement('div');
  slide.id = 'pe-slide';
  slide.style.cssText = 'position:fixed;inset:0;z-index:2147483647;background:#fff;' +
    'color:#31333f;padding:36px 64px 28px;box-sizing:border-box;display:flex;' +
    'flex-direction:column;gap:10px;width:' + width + 'px;height:' + height + 'px;';
  for (const part of [title, line]) {
    if (!part) continue;
    const copy = part.cloneNode(true);
    const look = getComputedStyle(part);  // the slide's type, outside the page's containers
    for (const key of ['fontSize', 'fontWeight', 'fontFamily', 'lineHeight', 'color']) {
      copy.style[key] = look[key];
    }
    copy.style.margin = '0';
    copy.querySelectorAll('a, button, [data-testid="stHeaderActionElements"]')
      .forEach(e => e.remove());
    slide.appendChild(copy);
  }
  const grid = document.createElement('div');
  const columns = charts.length > 1 ? 2 : 1;
  const rows = Math.max(1, Math.ceil(charts.length / columns));
  grid.style.cssText = 'flex:1;min-height:0;display:grid;gap:16px;' +
    `grid-template-columns:repeat(${columns},1fr);grid-template-rows:repeat(${rows},1fr);`;
  slide.appendChild(grid);
  document.body.appendChild(slide);
  const box = grid.getBoundingClientRect();
  const w = Math.floor((box.width - 16 * (columns - 1)) / columns);
  const h = Math.floor((box.height - 16 * (rows - 1)) / rows);
  for (const gd of charts) {
    const cell = document.createElement('div');
    grid.appendChild(cell);
    await (window.__pePlotly || window.Plotly).newPlot(cell, gd.data,
      Object.assign({}, gd.layout, {width: w, height: h, autosize: false}),
      {staticPlot: true, displayModeBar: false});
  }
  await document.fonts.ready;
  return charts.length;
}"""

async def _evaluate(tab: Any, function: str, *args: Any) -> Any:
    response = await tab.send_command("Runtime.evaluate", params={
        "expression": f"({function})({', '.join(_js(a) for a in args)})",
        "returnByValue": True, "awaitPromise": True})
    result = response.get("result", {})
    if "exceptionDetails" in result:
        raise ImageExportError("figure", str(result["exceptionDetails"])[:300])
    return result.get("result", {}).get("value")


def _js(value: Any) -> str:
    import json

    return json.dumps(value)


async def _photograph(url: str, count: int, done: list[bytes]) -> None:
    """Each of `count` slides from `url` (the tour's address without its slide number) as a
    PNG, appended to `done` as it comes. Each slide in a tab of its own, closed once
    photographed: its renderer exits and gives its memory back (one tab walking every slide
    held ~300 MB by the end, measured)."""
    width, height = SLIDE_SIZE
    CHROMIUM._drawing += 1  # the browser stays open while the slides are drawn
    browser = None
    try:
        browser = await CHROMIUM._open()
        for number in range(1, count + 1):
            tab = await CHROMIUM._new_tab(browser)
            try:
                await tab.send_command("Emulation.setDeviceMetricsOverride", params={
                    "width": width, "height": height, "deviceScaleFactor": 1,
                    "mobile": False})
                await tab.send_command("Page.navigate",
                                       params={"url": f"{url}&slide={number}"})
                begun = time.monotonic()
                chartless = None  # since when the slide has run and shown no chart
                last = -1  # the state a moment before: the same twice, nothing more is coming
                while True:
                    state = await _evaluate(tab, _READY_JS) or 0
                    if state // 100 == number and state % 100 and state == last:
                        break  # run, its charts drawn, and no more came since
                    if state // 100 == number and not state % 100:
                        chartless = chartless or time.monotonic()
                        if time.monotonic() - chartless > CHARTLESS_S:
                            break
                    else:
                        chartless = None
                    if time.monotonic() - begun > SLIDE_TIMEOUT_S:
                        raise ImageExportError("timeout", f"slide {number} was not drawn")
                    last = state
                    await asyncio.sleep(0.25)
                await asyncio.sleep(0.3)  # the last paint (KaTeX, fonts)
                await _evaluate(tab, _LAYOUT_JS, [width, height])
                shot = await tab.send_command("Page.captureScreenshot",
                                              params={"format": "png"})
                done.append(base64.b64decode(shot["result"]["data"]))
            finally:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(browser.close_tab(tab.target_id), CLEANUP_S)
    except (ImageExportError, asyncio.CancelledError):
        raise
    except Exception as error:  # the browser went away or stopped answering
        raise ImageExportError("browser", repr(error)[:300]) from error
    finally:
        CHROMIUM._drawing -= 1


def slide_images(url: str, count: int, *,
                 progress: Callable[[int], None] | None = None) -> list[bytes]:
    """The PNGs of slides 1..`count` of the tour at `url` (its /tour address on this server,
    without `slide`); the browser is closed afterwards unless an image is being drawn.
    `progress(slides drawn)` runs in the caller's thread every `POLL_S` seconds; whatever it
    raises stops the drawing and is raised here."""
    loop = CHROMIUM._event_loop()
    done: list[bytes] = []
    future = asyncio.run_coroutine_threadsafe(_photograph(url, count, done), loop)
    begun = time.monotonic()
    try:
        while True:
            try:
                future.result(POLL_S)
                break
            except TimeoutError:
                if time.monotonic() - begun > SLIDE_TIMEOUT_S * count:
                    raise ImageExportError("timeout", "the slides took too long") from None
                if progress is not None:
                    progress(len(done))
    except BaseException:
        future.cancel()
        with contextlib.suppress(Exception):
            future.result(CLEANUP_S)
        raise
    finally:
        CHROMIUM.close_when_idle()  # idle, it would hold ~150 MB
    return done


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
