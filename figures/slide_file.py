"""A tour or a deck as one file a lecturer carries: a PDF of one 16:9 page per slide, or a ZIP of
the slides' PNGs.

Each slide is drawn by the Chromium that draws the figure images (`figures.chromium.CHROMIUM`,
one per process): a tab opens the tour on this very server (its loopback address), and for each
slide, once it has run and its charts are drawn, the slide's title, its one line (the takeaway,
or the deck's note) and its charts (up to four, in a grid, each redrawn by plotly.js at the
size its cell has) are laid out on a white 1920 x 1080 page, photographed (a PNG), and the
player moves on (as its Next button does: one session for the whole deck, its pages computed
through the caches like any visitor's).

The PDF is written by fpdf2 (a pure-Python, maintained library: 2.8, 2026), each page 20 x
11.25 inches holding its PNG losslessly (Flate): Pillow's PDF writer, the other candidate at
hand, re-encodes every page as JPEG, which blurs the text of a chart.

One file at a time per process (`FILE_LOCK`; the caller waits for it, saying so): a tab holding
a Streamlit page and its charts costs ~150-250 MB beside the browser.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import io
import threading
import time
import zipfile
from collections.abc import Callable
from typing import Any

from figures.chromium import CHROMIUM, CLEANUP_S, POLL_S, ImageExportError

SLIDE_SIZE = (1920, 1080)  # a projector's pixels: 16:9
PDF_PAGE_PT = (1440, 810)  # the same at 72 points per inch (20 x 11.25 in)
SLIDE_TIMEOUT_S = 60.0  # one slide's page runs and draws within this, or the file fails
FILE_LOCK = threading.Lock()  # one slide file at a time per process

# The slide's state, in the tab: 0 while the page runs or its charts are still coming, else the
# number the player shows.
_READY_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  const count = document.querySelector('.pe-tour-count');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning' || !count) return 0;
  const pending = [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')]
    .some(gd => !gd.querySelector('.main-svg'));
  return pending ? 0 : parseInt(count.textContent, 10);
}"""

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
    await window.Plotly.newPlot(cell, gd.data,
      Object.assign({}, gd.layout, {width: w, height: h, autosize: false}),
      {staticPlot: true, displayModeBar: false});
  }
  await document.fonts.ready;
  return charts.length;
}"""

# The player's Next, as its button does it.
_NEXT_JS = """() => {
  document.getElementById('pe-slide')?.remove();
  const next = window.__peTour && window.__peTour.urls.next;
  if (!next) return false;
  window.history.pushState({}, '', next);
  window.dispatchEvent(new PopStateEvent('popstate', {state: {}}));
  return true;
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
    """Each of `count` slides from `url` (slide 1) as a PNG, appended to `done` as it comes."""
    width, height = SLIDE_SIZE
    CHROMIUM._drawing += 1  # the browser stays open while the slides are drawn
    browser = tab = None
    try:
        browser = await CHROMIUM._open()
        tab = await browser.create_tab("")
        await tab.send_command("Emulation.setDeviceMetricsOverride", params={
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        await tab.send_command("Page.navigate", params={"url": url})
        for number in range(1, count + 1):
            begun = time.monotonic()
            while await _evaluate(tab, _READY_JS) != number:
                if time.monotonic() - begun > SLIDE_TIMEOUT_S:
                    raise ImageExportError("timeout", f"slide {number} was not drawn")
                await asyncio.sleep(0.2)
            await asyncio.sleep(0.3)  # the last paint (KaTeX, fonts)
            await _evaluate(tab, _LAYOUT_JS, [width, height])
            shot = await tab.send_command("Page.captureScreenshot", params={"format": "png"})
            done.append(base64.b64decode(shot["result"]["data"]))
            if number < count:
                await _evaluate(tab, _NEXT_JS)
    except (ImageExportError, asyncio.CancelledError):
        raise
    except Exception as error:  # the browser went away or stopped answering
        raise ImageExportError("browser", repr(error)[:300]) from error
    finally:
        CHROMIUM._drawing -= 1
        if tab is not None and browser is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(browser.close_tab(tab.target_id), CLEANUP_S)


def slide_images(url: str, count: int, *,
                 progress: Callable[[int], None] | None = None) -> list[bytes]:
    """The PNGs of slides 1..`count` of the tour at `url` (its /tour address with slide=1, on
    this server). `progress(slides drawn)` runs in the caller's thread every `POLL_S` seconds;
    whatever it raises stops the drawing and is raised here."""
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
