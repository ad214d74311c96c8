"""Starting the app and driving Chromium: shared by the browser tests and the benchmarks."""

from __future__ import annotations

import base64
import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHROMIUM_ARGS = [
    "--no-sandbox",  # the tests run as root in CI
    "--disable-gpu",
    "--disable-background-networking",  # no internet here: no update/metrics/safe-browsing calls
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

# The test suite's Chromium (tests/conftest.py), not the benchmarks': V8 runs a page's JavaScript
# in its interpreter and baseline compiler only, without its optimizing compilers (Maglev,
# TurboFan). A test loads a page, changes a few controls and leaves it, so optimized code
# rarely pays back the compiling, which runs on other threads: the machine's two cores are
# saturated by the suite, and a page load cost 13% less CPU without them (1.15 s against 1.33 s,
# the browser and the server together, six pages, four rounds). What is drawn is the same; only
# the benchmarks measure speed, and they keep V8's defaults, as a visitor's browser has them.
TEST_CHROMIUM_ARGS = [*CHROMIUM_ARGS, "--js-flags=--no-opt --no-maglev"]

NO_CHROMIUM = (
    "No Chromium for the browser tests. Run `make test` (it installs Debian's chromium as root), "
    "or `apt-get install chromium`, or set CHROMIUM_PATH."
)

# A finished script run on a connected app: Streamlit marks its app container with the script's
# state and the websocket's (while it reconnects, every widget is disabled).
IDLE_SELECTOR = ('[data-testid="stApp"][data-test-script-state="notRunning"]'
                 '[data-test-connection-state="CONNECTED"]')

# A signature of every plotly chart's data, to see a chart repaint with new data. Plotly 7 keeps
# numpy arrays as {dtype, bdata} objects in gd.data: hash (djb2) the base64 text's length and a
# sample of 512 characters spread over it (the benchmark polls this every frame: hashing whole
# megabytes would be measured as the page's latency), or the values.
CHART_SIGNATURE_JS = """() => {
    const sample = s => { if (s.length <= 2048) return s; let out = '' + s.length;
        const step = Math.floor(s.length / 512);
        for (let i = 0; i < s.length; i += step) out += s[i]; return out + s.slice(-64); };
    const text = v => v == null ? '' : (v.bdata !== undefined ? sample(v.bdata)
                                                               : sample(JSON.stringify(v)));
    const hash = s => { let h = 5381; for (let i = 0; i < s.length; i++) {
        h = ((h << 5) + h + s.charCodeAt(i)) | 0; } return h; };
    // and the marks placed on the data (a shape's or an annotation's coordinates on an axis,
    // not on the paper: the fitting to a width moves only those on the paper).
    const along = (m, a) => m[a + 'ref'] === 'paper' ? []
        : [m[a + 'anchor'], m[a + '0'], m[a + '1'], m[a]];
    const marks = gd => ((gd.layout || {}).shapes || []).concat((gd.layout || {}).annotations
        || []).filter(m => m.xref !== 'paper' || m.yref !== 'paper')
        .map(m => [...along(m, 'x'), ...along(m, 'y'),
                   m.xref === 'paper' || m.yref === 'paper' ? '' : m.text].join(' ')).join(';');
    return Array.from(document.querySelectorAll('.js-plotly-plot')).map(gd =>
        (gd.data || []).map(t => t.type + ':' + hash(text(t.z) + text(t.y) + text(t.x)
                                                      + text(t.r) + text(t.text))).join(',')
        + '/' + hash(marks(gd))
    ).join('|');
}"""


# Resolves once every chart element (ui/chart/element.js) has finished its draws with Plotly.react
# and none was queued in the two frames after (a resize or new data queues one on the chart's
# div): true then, false at once when a chart is an st.plotly_chart (it has no queue to wait on).
# An element still loading (Streamlit's skeleton: a chart element's script not there yet, then
# plotly.js's ~0.9 s of parsing, all after the app says it is idle) or a chart element its script
# has not set up is waited for, not taken as drawn.
CHARTS_DRAWN_JS = """async () => {
  const frame = () => new Promise(resolve => requestAnimationFrame(() => resolve()));
  const charts = () => [...new Set(document.querySelectorAll('.pe-plotly-chart, .js-plotly-plot'))];
  const states = () => charts().map(gd => gd.__pePlotlyReact);
  for (let round = 0; round < 100; round++) {
    if (charts().some(gd => !gd.classList.contains('pe-plotly-chart'))) return false;
    const before = states();
    if (before.some(state => !state) || document.querySelector('[data-testid="stSkeleton"]')) {
      await new Promise(resolve => setTimeout(resolve, 50));
      continue;
    }
    const tickets = before.map(state => state.latest);
    await Promise.all(before.map(state => state.queue));
    await frame();
    await frame();
    const after = states();
    if (after.length === before.length
        && after.every((state, i) => state === before[i] && state.latest === tickets[i])) {
      return true;
    }
  }
  return false;
}"""


def wait_charts_drawn(page, fallback_ms: int = 500) -> None:
    """Wait until the page's charts are drawn as they stay: their draws done and none pending
    (CHARTS_DRAWN_JS); a fixed `fallback_ms` when a chart cannot say so."""
    if not page.evaluate(CHARTS_DRAWN_JS):
        page.wait_for_timeout(fallback_ms)


def find_chromium() -> str | None:
    for candidate in (os.environ.get("CHROMIUM_PATH"), "/usr/bin/chromium",
                      shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_streamlit(script: str | Path, log_path: Path, port: int | None = None,
                    timeout: float = 90, cwd: Path = ROOT,
                    env: dict[str, str] | None = None) -> tuple[subprocess.Popen, str]:
    """`streamlit run script` on a loopback port (in the checkout, or `cwd`), with `env` added to
    this process's environment; returns once /_stcore/health answers."""
    port = port or free_port()
    log = open(log_path, "w")  # noqa: SIM115 (the process writes to it until stopped)
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(script), "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true",
         # Visitors see no error details (config.toml); a failing test should see them all.
         "--client.showErrorDetails", "full"],
        cwd=cwd, stdout=log, stderr=subprocess.STDOUT,
        env={**os.environ, **env} if env else None,
    )
    server.log = log  # closed by stop()
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return server, url
        except OSError:
            pass
        if server.poll() is not None or time.monotonic() > deadline:
            server.kill()
            raise RuntimeError(f"streamlit did not start; see {log_path}")
        time.sleep(0.1)


def stop(server: subprocess.Popen) -> None:
    server.terminate()
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
    if getattr(server, "log", None) is not None:
        server.log.close()


# A control changed as a person does it (benchmarks and load test). Streamlit gives a widget's
# container the class st-key-<key>, and every key here is the URL parameter's name.
def control_change(key: str, kind: str, step: int, *, down: bool):
    """What to do for change number `step` of the control `key` of `kind` ("number", "slider" or
    "radio"): ("click", selector, nth) or ("key", selector, key name). Numbers and sliders move
    one way (down from a maximum, up otherwise) so that every rerun asks for new data; a radio
    switches to the first option that is not the current one."""
    box = f".st-key-{key}"
    if kind == "number":
        button = "stNumberInputStepDown" if down else "stNumberInputStepUp"
        return "click", f'{box} [data-testid="{button}"]', 0
    if kind == "slider":
        return "key", f'{box} input[type="range"]', "ArrowLeft" if down else "ArrowRight"
    if kind == "radio":  # the first option that is not the current one
        return "click", f"{box} label:has(input:not(:checked))", 0
    raise ValueError(f"kind={kind!r}: number, slider or radio")


def option_label(value: str, lang: str = "en") -> str:
    """The label a choice's option shows for its URL value (ui.controls.option_label): the
    catalogue's `options.<value>`, or the value itself."""
    from locales import catalogue

    return catalogue(lang).get(f"options.{value}", value)


# One chart's picture as a short text: its traces' data and text, and its layout's title, shapes
# and annotations (hashed: a state of a live control changes some of them).
CHART_STATE_JS = """gd => {
    const hash = s => { let h = 5381; for (let i = 0; i < s.length; i++) {
        h = ((h << 5) + h + s.charCodeAt(i)) | 0; } return h; };
    const layout = gd.layout || {};
    return hash(JSON.stringify([(gd.data || []).map(t => [t.x, t.y, t.z, t.text, t.r, t.theta,
        t.customdata]), layout.title, layout.shapes, layout.annotations,
        (layout.images || []).map(i => i.source)])).toString(36);
}"""

# The layers of each chart on the page (a subplot's layer for each kind of trace it draws: its
# heatmaps, its scatter traces...), in order: a live state leaves them all.
CHART_LAYERS_JS = """() => [...document.querySelectorAll('.js-plotly-plot')].map(gd =>
    [...gd.querySelectorAll('g.mlayer')].map(layer => layer.getAttribute('class')).join(' '))"""

# Installed before a drag: counts the scatter layers taken out of the page's charts while it
# lasts (window.__peScatterTaken). A live state moves its traces and leaves the others' points
# where they are: a layer taken away and put back is drawn again, all its points.
SCATTER_LAYERS_TAKEN_JS = """() => {
    window.__peScatterTaken = 0;
    const observer = new MutationObserver(records => records.forEach(record =>
        record.removedNodes.forEach(node => {
            if (node.classList && node.classList.contains('scatterlayer')) {
                window.__peScatterTaken++;
            }
        })));
    for (const gd of document.querySelectorAll('.js-plotly-plot')) {
        observer.observe(gd, { childList: true, subtree: true });
    }
}"""

# Installed before a drag (given the dragged chart's key): at each pointer move that changed the
# chart's previewed state, whether it had changed by the time the move was dispatched (with
# the next frame, in Chromium) from the move's raw update (as the pointer moved):
# window.__peRawPreview = {early, changed}.
RAW_PREVIEW_WATCH_JS = """(chart) => {
    const gd = document.querySelector(`.st-key-${chart} .pe-plotly-chart`);
    const shown = () => gd.__pePlotlyReact.previewing;
    const watch = window.__peRawPreview = { early: 0, changed: 0 };
    let atRaw = shown(), atMove = shown();
    window.addEventListener('pointerrawupdate', () => { atRaw = shown(); }, true);
    window.addEventListener('pointermove', () => {
        const now = shown();
        if (now !== atMove) { watch.changed++; if (now !== atRaw) watch.early++; }
        atMove = now;
    }, true);
}"""

# Installed before a drag: while it lasts, the time of each pointer move and of each chart drawn
# by a live control (ui/chart/live.js dispatches "pe-live" on the chart after its update). A
# chart drawn in a task is painted in the next frame: its time is that frame's (its animation
# callbacks, before the paint). One drawn in a frame's animation callbacks (Plotly.animate draws
# there) is painted in that frame: its time is then. (A frame's first callback, registered in
# the frame before, says the callbacks have begun; a task posted from it runs after the paint.)
LIVE_DRAG_WATCH_JS = """() => {
    const watch = window.__peDrag = { moves: [], drawn: [], runs: 0, inFrame: false };
    const until = performance.now() + 60000;  // a drag's while (a minute at most)
    const frame = () => {
        if (window.__peDrag !== watch || performance.now() > until) return;
        watch.inFrame = true;
        setTimeout(() => { watch.inFrame = false; });
        requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
    if (!window.__peDragListening) {
        window.__peDragListening = true;
        // The move's own time (the input's, before the page could take it), not its handling's:
        // from its raw update if it comes first (a preview may start there), else the move.
        const move = event => {
            const moves = window.__peDrag.moves;
            if (moves[moves.length - 1] !== event.timeStamp) moves.push(event.timeStamp);
        };
        window.addEventListener('pointerrawupdate', move, true);
        window.addEventListener('pointermove', move, true);
        document.addEventListener('pe-live', event => {
            const drag = window.__peDrag, moved = drag.moves[drag.moves.length - 1];
            const drawn = () => drag.drawn.push([moved, performance.now(), event.detail.value]);
            if (drag.inFrame) drawn(); else requestAnimationFrame(drawn);
        }, true);
        const app = document.querySelector('[data-testid="stApp"]');
        new MutationObserver(() => {
            if (app.dataset.testScriptState === 'running') window.__peDrag.runs += 1;
        }).observe(app, { attributes: true, attributeFilter: ['data-test-script-state'] });
    }
    return watch.runs;
}"""


def _live_sliders() -> dict[str, tuple[str, ...]]:
    from ui.pages import PAGES
    from ui.params import IntParam

    return {f"/{page.url_path}": names for page in PAGES
            if (names := tuple(p.name for p in page.live if isinstance(p, IntParam)))}


# The live sliders, by page: the registry's (`live=True` in ui/pages.py), none listed here
# (tests/test_browser_live_controls.py, benchmarks/bench_browser.py, benchmarks/soak.py).
LIVE_SLIDERS: dict[str, tuple[str, ...]] = _live_sliders()


def view_paths(page: str) -> list[str]:
    """The address of each view of `page` ("/similarity": "/similarity?view=matrix", ...), at
    its defaults: a live slider is found on the views that show it (`live_controls_shown`)."""
    from ui.pages import PAGES

    info = next(p for p in PAGES if f"/{p.url_path}" == page)
    return [f"{page}?view={view}" if view else page for view in info.views]


# Given slider keys: for each on the page (a range input) whose states a chart carries
# (`layout.meta.live[key]` of the figure it drew), [key, that chart's key, whether the thumb has
# more room to the right than to the left].
LIVE_SHOWN_JS = """(keys) => keys.flatMap(key => {
    const input = document.querySelector(`.st-key-${key} input[type=range]`);
    if (!input) return [];
    const chart = [...document.querySelectorAll('.js-plotly-plot')].find(gd => {
        const drawn = gd.__pePlotlyReact ? gd.__pePlotlyReact.sent : gd;
        const meta = drawn && drawn.layout && drawn.layout.meta;
        return Boolean(meta && meta.live && meta.live[key]);
    });
    const box = chart && chart.closest('[class*="st-key-"]');
    if (!box) return [];
    const chartKey = [...box.classList].find(c => c.startsWith('st-key-')).slice(7);
    const [low, high, value] = [input.min, input.max, input.value].map(Number);
    return [[key, chartKey, !(value - low > high - value)]];
})"""


def live_controls_shown(page, keys) -> list[tuple[str, str, bool]]:
    """The live sliders of `keys` the page shows, each with the chart whose states it moves and
    which way a drag from its value goes: toward the end with more room."""
    return [tuple(found) for found in page.evaluate(LIVE_SHOWN_JS, list(keys))]


# Sliders whose pictures need new numbers: the server follows their drag (ui/follow.py), one
# value at a time (benchmarks/bench_browser.py, tests/test_browser_live_controls.py).
FOLLOWED_CONTROLS: dict[str, list[tuple[str, str, bool]]] = {
    "/heatmap": [("positions", "heatmap_chart", True)],
    "/wavelengths": [("d_model", "curves_chart", True)],
    "/rope": [("base", "rotation_chart", True)],
}


@dataclass
class LiveDrag:
    """What a slider's drag drew before its release."""
    states: list[str]  # the chart's picture (CHART_STATE_JS) after each step
    delays_ms: list[float]  # each live draw: from the pointer's last move to the frame painted
    runs: int  # script runs the server started during the drag (none for a live control)
    values: list[str]  # the values previewed, in order


def drag_live(page, key: str, chart_key: str, *, steps: int = 20, step_ms: float = 50,
              rightward: bool = True, release: bool = True) -> LiveDrag:
    """Press slider `key`'s thumb with the mouse, move it across the track in `steps` moves
    `step_ms` apart (20 x 50 ms: a one-second drag, as a person does), toward the right end or
    the left, reading chart `chart_key`'s picture after each move; then release (or not: the
    caller releases, e.g. after a screenshot)."""
    slider = page.locator(f'.st-key-{key} [data-testid="stSlider"]').first
    slider.scroll_into_view_if_needed()
    thumb = page.locator(f'.st-key-{key} [data-testid="stSliderThumbValue"]').first
    box, rail = thumb.bounding_box(), slider.bounding_box()
    chart = page.locator(f".st-key-{chart_key} .js-plotly-plot").first
    page.evaluate(LIVE_DRAG_WATCH_JS)
    y = box["y"] + box["height"] + 8  # on the track, under the thumb's number
    start = box["x"] + box["width"] / 2
    end = rail["x"] + (rail["width"] - 2 if rightward else 2)
    page.mouse.move(start, y)
    page.mouse.down()
    states = []
    for step in range(1, steps + 1):
        page.mouse.move(start + (end - start) * step / steps, y)
        page.wait_for_timeout(step_ms)
        states.append(chart.evaluate(CHART_STATE_JS))
    watch = page.evaluate("() => window.__peDrag")
    if release:
        page.mouse.up()
    return LiveDrag(states=states, delays_ms=[drawn - moved for moved, drawn, _ in watch["drawn"]
                                              if moved is not None],
                    runs=watch["runs"], values=[value for *_, value in watch["drawn"]])


def radio_option(page, key: str, value: str, lang: str = "en"):
    """The option of choice `key` whose URL value is `value`, found by the label it shows."""
    label = re.escape(option_label(value, lang))
    return page.locator(f".st-key-{key} label:has(input[type=radio])").filter(
        has_text=re.compile(f"^\\s*{label}\\s*$"))


def shown_value(page, key: str) -> str:
    """The value control `key` shows: a number box's or text box's text, or the number on a
    slider's thumb (ui.controls makes swept numbers sliders)."""
    box = page.locator(f".st-key-{key}").first
    box.wait_for(state="attached")
    thumb = box.locator('[data-testid="stSliderThumbValue"]')
    if thumb.count():
        return thumb.first.inner_text().strip()
    return box.locator("input, textarea").first.input_value()


# Text of every chart that collides or is cut: titles, axis titles, tick labels, legend entries,
# annotations and colour-bar text (and, given true, the labels beside points), by their boxes
# as drawn; text under plotly's modebar (shown on
# hover, and on a touch screen after a tap); a legend that scrolls. Returns
# [{chart, problems: [["cut", kind, text] | ["overlap", a, b] | ["legend scrolls"]]}].
CHART_TEXT_PROBLEMS_JS = r"""(withPoints) => {
  const kinds = {
    title: '.gtitle', xtitle: '.xtitle, .x2title, .x3title, .x4title',
    ytitle: '.ytitle, .y2title, .y3title, .y4title', legend: '.legendtext',
    annotation: '.annotation-text', cbtitle: '.cbtitle text', cbtick: '.cbaxis text',
    xtick: '.xtick text', ytick: '.ytick text'};
  if (withPoints) kinds.point = '.textpoint text';  // labels drawn beside a chart's points
  const out = [];
  document.querySelectorAll('.js-plotly-plot').forEach((gd, chart) => {
    if (!gd.querySelector('.main-svg')) return;
    const frame = gd.getBoundingClientRect();
    const items = [];
    for (const [kind, selector] of Object.entries(kinds)) {
      gd.querySelectorAll(selector).forEach(e => {
        const r = e.getBoundingClientRect();
        if (r.width < 1 || r.height < 1 || !e.textContent.trim()) return;
        if (getComputedStyle(e).visibility === 'hidden') return;
        items.push({kind, text: e.textContent.trim().slice(0, 40),
                    x0: r.left, y0: r.top, x1: r.right, y1: r.bottom});
      });
    }
    const problems = [];
    for (const a of items) {
      if (a.x0 < frame.left - 1 || a.x1 > frame.right + 1
          || a.y0 < frame.top - 1 || a.y1 > frame.bottom + 1) {
        problems.push(['cut', a.kind, a.text]);
      }
    }
    for (let i = 0; i < items.length; i++) {
      for (let j = i + 1; j < items.length; j++) {
        const a = items[i], b = items[j];
        if (a.kind === b.kind && a.kind.endsWith('tick')) continue;
        const ox = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
        const oy = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
        if (ox > 2 && oy > 2) {
          problems.push(['overlap', a.kind + ': ' + a.text, b.kind + ': ' + b.text]);
        }
      }
    }
    const modebar = gd.querySelector('.modebar');
    const bar = modebar && modebar.getBoundingClientRect();
    if (bar && bar.width > 0) {
      for (const a of items) {
        if (Math.min(a.x1, bar.right) - Math.max(a.x0, bar.left) > 2
            && Math.min(a.y1, bar.bottom) - Math.max(a.y0, bar.top) > 2) {
          problems.push(['overlap', 'modebar', a.kind + ': ' + a.text]);
        }
      }
    }
    const scroll = gd.querySelector('.legend .scrollbar');
    if (scroll && scroll.getBoundingClientRect().height > 0) problems.push(['legend scrolls']);
    if (problems.length) out.push({chart, problems});
  });
  return out;
}"""


def screenshot_whole_page(browser_page, name: str) -> None:
    """Streamlit scrolls inside its main section, so a full-page screenshot shows only the top:
    grow the viewport to the content's height first, let plotly re-lay out, then shoot."""
    page = browser_page.page
    height = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll('section, [data-testid=stMain]')]"
        ".map(e => e.scrollHeight), document.body.scrollHeight)"
    )
    page.set_viewport_size({"width": 1400, "height": min(int(height) + 100, 12000)})
    page.wait_for_timeout(1000)
    browser_page.screenshot(name)


def chart_keys(page) -> list[str]:
    """The `key` of every drawn chart (Streamlit's class st-key-<key> on its container)."""
    return page.evaluate(
        "() => [...document.querySelectorAll('.js-plotly-plot')].map(gd => {"
        " const box = gd.closest('[class*=\"st-key-\"]');"
        " return box ? [...box.classList].find(c => c.startsWith('st-key-')).slice(7) : null; })"
    )


DEFAULT_VIEWS = ("rotation", "slopes")  # rope's and alibi's


def click_section(browser_page, view: str, charts: int = 1) -> None:
    """Click the `view` radio's option `view`, as a visitor does; wait for its charts."""
    page = browser_page.page
    radio_option(page, "view", view).first.click()
    # The URL names the section, except the default one (Streamlit leaves defaults out). Its
    # run writes it: waited for first, so that the idle page waited for next is that run's end,
    # not the page before it (on a loaded machine the run may start after a first idle look).
    page.wait_for_function(
        "([v, plain]) => new URLSearchParams(location.search).get('view') === v"
        " || (plain && !new URLSearchParams(location.search).has('view'))",
        arg=[view, view in DEFAULT_VIEWS], timeout=60_000)
    browser_page.wait_idle()
    page.wait_for_function(
        "n => document.querySelectorAll('.js-plotly-plot').length === n", arg=charts
    )


# s the server may take to end the run a change asks for: generous, for a loaded machine. Spent
# whole only when no run ends (a control that asks none), and then its chart is compared as is.
RUN_ENDS_S = 60


class RunsEnded:
    """The runs the server has ended for a page: its websocket's script_finished messages, read
    through the DevTools protocol. `with runs.ended(): act(...)` returns once a run has ended
    after the change, an event however long the server takes to begin it (RUN_ENDS_S at most)."""

    def __init__(self, page) -> None:
        self.page, self.count = page, 0
        self.session = page.context.new_cdp_session(page)
        self.session.send("Network.enable")
        self.session.on("Network.webSocketFrameReceived", self._frame)

    def _frame(self, event: dict) -> None:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        response = event["response"]
        if response.get("opcode") != 2:  # binary: a ForwardMsg
            return
        message = ForwardMsg()
        message.ParseFromString(base64.b64decode(response["payloadData"]))
        if message.WhichOneof("type") == "script_finished":
            self.count += 1

    @contextlib.contextmanager
    def ended(self):
        count = self.count
        yield
        deadline = time.monotonic() + RUN_ENDS_S
        while self.count == count and time.monotonic() < deadline:
            self.page.wait_for_timeout(50)  # Playwright delivers the frames while it waits

    def close(self) -> None:
        self.session.detach()  # the tab serves other tests
