"""What a person waits for, measured in headless Chromium, for every page, against a floor.

For each page, at its default and at its maximum settings, and for a minimal one-chart floor app
measured the same way in the same run:

- cold start: from launching `streamlit run` to the page's first chart painted;
- interaction latency: from a control change done as a person does it (a click on a number
  input's +/- button, an arrow key on a slider, a click on an option) to every chart repainted
  with the new data and the script finished; median and p95 over `--changes` changes, and of
  that the script's run as the browser saw it (its app container's script state from "running"
  to "notRunning"; the rest is the browser's rendering and the round trip). At maximum
  settings the control moves down from the maximum, each change new work; at default settings it
  steps one stop up and back down, so the page stays at its default size (a sweep up from the
  default would measure d_model 160 ... 4096, not the default). The page's caches and Streamlit's
  message cache then serve the repeated value: at default sizes that is a few milliseconds of
  work (a 128 x 128 overview ~1 ms, its figure's JSON ~2 ms) of the ~100-300 ms measured;
- drag: a slider's thumb dragged by the mouse through 10 stops (10 moves, 40 ms apart, as a hand
  does), then released: the time from the release to the chart showing the last stop's data and
  the script finished, as a ratio to one change's median settle (to its run's last message: a
  live control's repaint is its preview, the run comes after it; budget: <= 1.5x, no reruns
  piling up);
- bytes received by the browser per rerun (websocket frames and any HTTP responses, counted by
  Playwright);
- server memory (RSS of the streamlit process, psutil) after the runs.

Every figure is also printed as a ratio to the floor. Results: benchmarks/results/browser.json
and browser.md (the table in docs/performance.md). Budgets: repaint median <= 1.3x the floor at
default settings, <= 1.8x at maximum; a drag settles within 1.5x one change; <= 1.5 MB per rerun;
cold start <= 1.5x the floor.

Live controls (the registry's `live=True` sliders, tests/browser_support.LIVE_SLIDERS, on each
view that shows them: sliders whose chart follows the thumb in the browser, no round trip) get a
table of their own: each dragged for a second through 20 pointer moves as a person drags, the
chart states drawn before the release (budget: 8, or every stop of a shorter slider) and the
time from each pointer move to the chart's next frame with the new
state (median, max; budget: 50 ms each), and script runs during the drag (budget: none).

Each page is measured through its first page-wide control (a rerun of the parts of the page
drawn with it, the sidebar and title not re-sent; the whole page on the word-position and order
pages: docs/design.md) and through each view's own control (a view is a fragment:
`ui.controls.PageControls.view_row`), and each row counts the websocket messages a change brings
(about one per element re-sent).

Run: `make bench-browser` (or `python benchmarks/bench_browser.py [--pages heatmap ...]
[--live-only]`).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import platform
import re
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import urlencode

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests import browser_support  # noqa: E402
from ui.pages import PAGE_PARAMS, PAGES  # noqa: E402
from ui.params import ChoiceParam, FloatParam, IntParam  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"

# Parameters that size the work (set to their maximum for the "max" run); the others select.
# Where the first sizing control is not what a person changes (the word-position page's default
# preset has a fixed width), the control to change instead: (key, kind).
BENCH_CONTROLS = {"word-position": ("encoding", "radio"), "floor": ("frequency", "slider")}
SIZE_PARAMS = {
    "d_model", "positions", "d_head", "num_heads", "grid_h", "grid_w", "train_length",
    "target_length", "zoom_size",
}


@dataclass
class Scenario:
    name: str
    script: str
    path: str
    control: tuple[str, str] = ("frequency", "slider")  # (key, kind) changed per rerun
    query: dict[str, str] = field(default_factory=dict)
    # A view's own control (ui.controls.PageControls.view_row): found in the page once it is
    # open, the first of `VIEW_CONTROLS` (or of the page's number parameters) in the main area.
    find_view_control: bool = False


@dataclass
class Result:
    scenario: str
    cold_start_s: float
    latency_median_s: float
    latency_p95_s: float
    bytes_per_rerun: float
    rss_mb: float
    changes: int
    drag_settle_s: float | None = None  # release -> last stop drawn (sliders only)
    messages_per_rerun: float | None = None  # websocket messages: about one per element sent
    control: str = ""  # the control changed
    run_median_s: float | None = None  # of the repaint: the script's run, as the browser saw it
    # change -> its run's last message (`settle_time`; a live control's repaint is its
    # preview): what a drag's settle is compared with
    settle_median_s: float | None = None


# Settings that make a page's work largest besides its sizing numbers.
MAX_EXTRA = {
    "word-position": {"embedding": "random", "sentence": " ".join(["the cat sat on the mat"] * 90)},
}


def max_query(page: str) -> dict[str, str]:
    query = {
        spec.name: str(spec.maximum)
        for spec in PAGE_PARAMS.get(page, ())
        if isinstance(spec, IntParam) and spec.name in SIZE_PARAMS
    }
    return query | MAX_EXTRA.get(page, {})


FLOOR_RUNS = ("floor (first)", "floor (last)")


# Views that are not a `view` choice (several on one page, each its own fragment): the control
# each is measured with. Other views' controls are found in the page (Scenario.find_view_control).
FRAGMENT_VIEWS = {"heatmap": {"worked": ("pos", "number"), "zoom": ("zoom_pos", "number")}}
# A view whose first own control changes only its text: the control that redraws its chart
# (the similarity page's anchor moves the direction-blindness sentence, the offset the curve).
# The RoPE rotation's pairs turn the same in either layout: its scaling redraws them.
VIEW_CONTROL = {("similarity", "offset"): ("offset", "slider"),
                ("rope", "rotation"): ("scaling", "radio")}
# Views without a chart: their change is seen in the main area's text (the worked formula).
TEXT_VIEWS = {"pos"}


def page_views(url_path: str) -> list[str | None]:
    """The page's `view` choices, or [None] for a page without them."""
    for spec in PAGE_PARAMS.get(url_path, ()):
        if spec.name == "view":
            return list(spec.choices)
    return [None]


def scenarios(pages: list[str] | None, *, views: bool = True) -> list[Scenario]:
    """The floor first and again last (a run takes minutes on a shared machine: the pages are
    compared with the mean of both), the pages in between: for each page its page-wide control
    (the parts of the page drawn with it), then with `views` each view through a control of its
    own (a fragment's rerun), at default and at maximum settings."""
    out = [Scenario(FLOOR_RUNS[0], "benchmarks/floor_app.py", "/")]
    for page in PAGES:
        url_path = page.url_path
        if pages and url_path not in pages:
            continue
        query = max_query(url_path)
        page_wide = bench_control(url_path)
        runs = [("", page_wide, {}, False)] if page_wide else []
        if views:
            runs += [(f" / {view or url_path}", None, {"view": view} if view else {}, True)
                     for view in page_views(url_path)]
            runs += [(f" / {name}", control, {}, False)
                     for name, control in FRAGMENT_VIEWS.get(url_path, {}).items()]
        for label, control, view_query, find in runs:
            for settings, extra in (("default", {}), ("max", query)):
                if settings == "max" and not query:
                    continue
                out.append(Scenario(
                    f"{url_path}{label} ({settings})", "app.py", f"/{url_path}",
                    control or ("", "number"), view_query | extra, find_view_control=find,
                ))
    return [*out, Scenario(FLOOR_RUNS[1], "benchmarks/floor_app.py", "/")]


# The first of these a view shows in the main area (not the sidebar) is the one it is measured
# with: sizes first, then any number control of the page.
VIEW_CONTROL_JS = """(names) => {
  const main = document.querySelector('[data-testid="stMain"]');
  for (const name of names) {
    const box = main && main.querySelector('.st-key-' + CSS.escape(name));
    if (!box || box.getClientRects().length === 0) continue;
    if (box.querySelector('input:disabled')) continue;  // shown, but changes nothing here
    if (box.querySelector('input[type=range]')) return [name, 'slider'];
    if (box.querySelector('[data-testid="stNumberInputStepUp"]')) return [name, 'number'];
    if (box.querySelector('input[type=radio]')) return [name, 'radio'];
  }
  return null;
}"""


class NoViewControlError(RuntimeError):
    """A view with no control of its own (its page-wide controls are measured on the page's
    own row): listed as not measured, not as a failure."""


def view_control(page, url_path: str) -> tuple[str, str]:
    """A view's own control: its sizes first, then its other numbers, then its choices (a
    radio: each change switches option, so from the third change on the page has drawn both
    before and the app's caches answer; Streamlit's message cache does not, the figure being
    sent again)."""
    params = PAGE_PARAMS.get(url_path, ())
    specs = [s for s in params if isinstance(s, IntParam | FloatParam)]
    names = ([s.name for s in specs if s.name in SIZE_PARAMS]
             + [s.name for s in specs if s.name not in SIZE_PARAMS]
             + [s.name for s in params if isinstance(s, ChoiceParam) and s.name != "view"])
    found = page.evaluate(VIEW_CONTROL_JS, names)
    if not found:
        raise NoViewControlError(f"no control of its own in {url_path}'s view")
    return found[0], found[1]


def floor_reference(results: list[Result]) -> Result:
    """The floor the ratios use: the mean of its first and last runs (or the one that ran)."""
    runs = [r for r in results if r.scenario in FLOOR_RUNS]
    if not runs:
        raise ValueError("no floor run in the results")
    mean = {name: statistics.mean(getattr(r, name) for r in runs)
            for name in ("cold_start_s", "latency_median_s", "latency_p95_s", "bytes_per_rerun",
                         "rss_mb")}
    timed = [r.run_median_s for r in runs if r.run_median_s is not None]
    mean["run_median_s"] = statistics.mean(timed) if timed else None
    drags = [r.drag_settle_s for r in runs if r.drag_settle_s is not None]
    settles = [r.settle_median_s for r in runs if r.settle_median_s is not None]
    return Result(scenario="floor (mean)", changes=runs[0].changes,
                  drag_settle_s=statistics.mean(drags) if drags else None,
                  settle_median_s=statistics.mean(settles) if settles else None, **mean)


# The script's runs as the browser sees them (its app container's script state): each change's
# run, from "running" to "notRunning", in the page's clock. What a repaint spends besides is the
# browser's: the messages' React renders and the charts' drawing (docs/performance.md).
RUN_WATCH_JS = """() => {
    window.__peRuns = [];
    const app = document.querySelector('[data-testid="stApp"]');
    new MutationObserver(() => window.__peRuns.push([app.dataset.testScriptState,
                                                    performance.now()]))
        .observe(app, { attributes: true, attributeFilter: ['data-test-script-state'] });
}"""
RUN_TIME_JS = """() => {
    const runs = window.__peRuns.splice(0);
    const start = runs.find(([state]) => state === 'running');
    const end = [...runs].reverse().find(([state]) => state === 'notRunning');
    return start && end && end[1] > start[1] ? (end[1] - start[1]) / 1000 : null;
}"""


def server_rss_mb(server) -> float:
    process = psutil.Process(server.pid)
    total = process.memory_info().rss
    for child in process.children(recursive=True):
        total += child.memory_info().rss
    return total / 2**20


def bench_control(page: str) -> tuple[str, str] | None:
    """The control a benchmark changes on `page`: the first sizing parameter (d_model, positions,
    ...), or BENCH_CONTROLS' choice. Returns (key, kind), or None for a page whose page-wide
    controls are text boxes only (the order page's two sentences: its views are measured)."""
    if page in BENCH_CONTROLS:
        return BENCH_CONTROLS[page]
    for spec in PAGE_PARAMS.get(page, ()):
        if isinstance(spec, IntParam) and spec.name in SIZE_PARAMS:
            return spec.name, "number"
    return None


def prepare_change(page, control: tuple[str, str], step: int, *, down: bool):
    """One change, as a person makes it, ready to go: returns the action that makes it.

    Everything that is not the person's input happens here, before the clock starts: finding the
    control, scrolling it into view, Playwright's actionability checks (a `click()` waits for the
    element to be stable over two animation frames: ~30 ms that are the tool's, not the app's).
    The action is then one real mouse click at the control's centre, or one key press on the
    focused control. Going back and forth between two values would measure Streamlit's message
    cache (the browser keeps the messages it has seen) and the app's caches, not the page: see
    `browser_support.control_change`."""
    key, kind = control
    if kind == "number" and page.locator(f".st-key-{key} input[type=range]").count():
        kind = "slider"  # a swept number is a slider (ui.controls.PageControls.stops / slider)
    kind, selector, arg = browser_support.control_change(key, kind, step, down=down)
    target = page.locator(selector)
    if kind == "click":
        target = target.nth(arg)
        target.scroll_into_view_if_needed()
        box = target.bounding_box()
        if box is None:
            raise RuntimeError(f"{selector} is not visible")
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        return lambda: page.mouse.click(x, y)
    target.first.focus()
    return lambda: page.keyboard.press(arg)


DRAG_STOPS = 10
DRAG_MOVE_MS = 40


def drag_slider(page, key: str, *, left: bool):
    """Press the mouse on slider `key`'s thumb and move it through DRAG_STOPS stops, a move per
    stop DRAG_MOVE_MS apart, toward `left` (down) or, without room for it there, the other
    way. Returns (release, the value expected after it) without releasing: the caller starts
    its clock, then calls release()."""
    # Streamlit 1.67's slider (react-aria): a range input, visually hidden, inside the thumb
    # (its grandparent), which sits on the track (the thumb's parent).
    field = page.locator(f".st-key-{key} input[type=range]").first
    field.scroll_into_view_if_needed()
    now, low, high = (float(field.evaluate(f"e => e.{name}")) for name in ("value", "min", "max"))
    thumb = field.locator("xpath=../..")
    track = thumb.locator("xpath=..").bounding_box()
    box = thumb.bounding_box()
    if box is None or track is None or high <= low:
        raise RuntimeError(f"slider {key} is not visible")
    # Stops are evenly spaced along the track (a select slider's value is the option's index).
    # Toward `left` if there is room for the whole drag there, else the other way.
    room = {True: now - low, False: high - now}
    if room[left] < DRAG_STOPS and room[not left] > room[left]:
        left = not left
    steps = int(min(DRAG_STOPS, room[left]))
    if steps < 2:
        raise RuntimeError(f"slider {key} has no room for a drag")
    pitch = track["width"] / (high - low)
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    direction = -1 if left else 1
    for step in range(1, steps + 1):
        page.mouse.move(x + direction * step * pitch, y, steps=2)
        page.wait_for_timeout(DRAG_MOVE_MS)
    return page.mouse.up, now + direction * steps


def measure_drag(page, scenario: Scenario,
                 signature: str = browser_support.CHART_SIGNATURE_JS) -> float:
    """Seconds from a drag's release to the chart drawn with the last stop's data and the
    script finished (see the module's doc)."""
    key = scenario.control[0]
    if not page.locator(f".st-key-{key} input[type=range]").count():
        raise RuntimeError(f"{key} is not a slider")
    before = page.evaluate(signature)
    release, _aimed = drag_slider(page, key, left=bool(scenario.query))
    start = time.perf_counter()
    release()
    # Where the thumb ended (a pixel's rounding can land it a stop from where it was aimed).
    field = f".st-key-{key} input[type=range]"
    expected = float(page.locator(field).first.evaluate("e => e.value"))
    page.wait_for_function(
        f"""([before, expected]) => {{
            const sig = ({signature})();
            const idle = document.querySelector('{browser_support.IDLE_SELECTOR}');
            const field = document.querySelector('{field}');
            return idle !== null && sig !== before && field !== null
                && Number(field.value) === expected;
        }}""",
        arg=[before, expected],
        timeout=120_000,
    )
    drawn = time.perf_counter() - start
    # A rerun still queued behind the one drawn (a pile-up) shows as a new run within 300 ms:
    # then the drag settles only when that one is drawn. The charts out of the window, drawn a
    # frame after those in view (ui/chart/element.js), finish first: they are this run's.
    page.evaluate(browser_support.CHARTS_DRAWN_JS)
    shown = page.evaluate(signature)
    page.wait_for_timeout(300)
    if (page.locator(browser_support.IDLE_SELECTOR).count() == 0
            or page.evaluate(signature) != shown):
        page.wait_for_selector(browser_support.IDLE_SELECTOR, timeout=120_000)
        drawn = time.perf_counter() - start
    return drawn


def away_from_the_end(page, key: str, down: bool) -> bool:
    """`down`, unless slider or number box `key` is already at that end (20 changes down from
    d_model's maximum pass its smallest stop on a page whose slider has 16; a window's corner at
    its maximum settings is still 0): then the other way."""
    field = page.locator(f".st-key-{key} input[type=range]")
    if not field.count():
        field = page.locator(f".st-key-{key} input[type=number]")
    if not field.count():
        return down
    now, low, high = (float(field.first.evaluate(f"e => Number(e.{name} || NaN)"))
                      for name in ("value", "min", "max"))
    if down and now <= low:
        return False
    if not down and now >= high:
        return True
    return down


# The text of the main area, for a view without a chart (TEXT_VIEWS).
TEXT_SIGNATURE_JS = "() => document.querySelector('[data-testid=\"stMain\"]').innerText"
# The charts and their annotations' text and border, for a view whose own control only marks a
# panel's title (ALiBi's heads view outlines the chosen head's): the chart signature leaves out
# what is placed on the paper, which a narrower window may rewrap, but the bench does not resize.
TITLE_SIGNATURE_JS = f"""() => ({browser_support.CHART_SIGNATURE_JS})() + '|'
    + Array.from(document.querySelectorAll('.js-plotly-plot')).map(gd =>
        ((gd.layout || {{}}).annotations || []).map(a => a.text + a.bordercolor).join(';'))
        .join('|')"""
TITLE_VIEWS = {("alibi", "heads")}


def wait_repainted(page, before: str, timeout: float = 120_000, *,
                   signature: str = browser_support.CHART_SIGNATURE_JS) -> None:
    page.wait_for_function(
        f"""(before) => {{
            const sig = ({signature})();
            const idle = document.querySelector('{browser_support.IDLE_SELECTOR}');
            return idle !== null && sig !== before;
        }}""",
        arg=before,
        timeout=timeout,
    )


QUIET_S = 0.15  # no message for this long, the page idle: a change's run has ended


def settle_time(page, start: float, repaint: float, arrived: list[float]) -> float:
    """A change's settle: to its run's last message (a live control's repaint is its preview,
    drawn before the run; the run's picture is the same). The run shows as messages: a fast
    one may never set the page's script state to "running" (React renders both states at
    once), so its messages are watched, until none came for QUIET_S and the page is idle."""
    deadline = time.perf_counter() + 60
    while time.perf_counter() < deadline:
        page.wait_for_timeout(10)
        after = [t for t in arrived if t > start]
        if (after and time.perf_counter() - after[-1] >= QUIET_S
                and page.locator(browser_support.IDLE_SELECTOR).count()):
            return max(repaint, after[-1] - start)
    raise TimeoutError("no rerun after a change")


def measure(browser, scenario: Scenario, changes: int, *, served=None) -> Result:
    """One scenario: on its own server (its cold start measured), or on `served`, a
    (server, url) already running (then the cold start is the page's load in a new tab)."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    if served is None:
        server, url = browser_support.start_streamlit(scenario.script,
                                                      RESULTS / "server.log.tmp")
    else:
        server, url = served
    try:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        received: list[int] = []
        arrived: list[float] = []  # each frame's arrival (perf_counter), for a change's settle

        def frame(payload) -> None:
            received.append(len(payload))
            arrived.append(time.perf_counter())

        page.on("websocket", lambda ws: ws.on("framereceived", frame))
        # Large payloads (media, big element specs) may come over HTTP instead: count those too.
        page.on("requestfinished", lambda request: received.append(
            max(request.sizes()["responseBodySize"], 0)))
        query = f"?{urlencode(scenario.query)}" if scenario.query else ""
        page.goto(f"{url}{scenario.path}{query}")
        page.wait_for_selector(".js-plotly-plot .main-svg", timeout=120_000)
        cold_start = time.perf_counter() - started
        page.wait_for_selector(browser_support.IDLE_SELECTOR, timeout=120_000)
        page.wait_for_timeout(500)
        if scenario.find_view_control:
            url_path = scenario.path.strip("/")
            own = VIEW_CONTROL.get((url_path, scenario.query.get("view")))
            scenario.control = own or view_control(page, url_path)
        latencies, sizes, messages, runs, settles = [], [], [], [], []
        page.evaluate(RUN_WATCH_JS)
        if scenario.control[0] in TEXT_VIEWS:
            signature = TEXT_SIGNATURE_JS
        elif (scenario.path.strip("/"), scenario.query.get("view")) in TITLE_VIEWS:
            signature = TITLE_SIGNATURE_JS
        else:
            signature = browser_support.CHART_SIGNATURE_JS
        for step in range(changes):
            # The last change's draws done (a live control's preview comes first, the server's
            # picture after the run): `before` is what the page shows, not a preview on its way
            # out (a preview equal to the next change's picture never changed the signature).
            page.evaluate(browser_support.CHARTS_DRAWN_JS)
            page.wait_for_selector(browser_support.IDLE_SELECTOR, timeout=120_000)
            before = page.evaluate(signature)
            received.clear()
            page.evaluate(RUN_TIME_JS)  # the runs so far are not this change's
            # At maximum settings down, each change new work; at default settings one stop up
            # and back, the page staying at its default size (see the module's doc).
            down = bool(scenario.query) or step % 2 == 1
            down = away_from_the_end(page, scenario.control[0], down)
            change = prepare_change(page, scenario.control, step, down=down)
            start = time.perf_counter()
            change()
            wait_repainted(page, before, signature=signature)
            latencies.append(time.perf_counter() - start)
            settles.append(settle_time(page, start, latencies[-1], arrived))
            runs.append(page.evaluate(RUN_TIME_JS))
            page.wait_for_timeout(100)  # trailing frames of this rerun
            sizes.append(sum(received))
            messages.append(len(received))
        drag = None
        if page.locator(f".st-key-{scenario.control[0]} input[type=range]").count():
            drag = measure_drag(page, scenario, signature)
        rss = server_rss_mb(server)
        context.close()
    finally:
        if served is None:
            browser_support.stop(server)
    latencies.sort()
    return Result(
        scenario=scenario.name,
        cold_start_s=cold_start,
        latency_median_s=statistics.median(latencies),
        latency_p95_s=latencies[min(len(latencies) - 1, round(0.95 * (len(latencies) - 1)))],
        bytes_per_rerun=statistics.mean(sizes),
        rss_mb=rss,
        changes=changes,
        drag_settle_s=drag,
        messages_per_rerun=statistics.mean(messages),
        control=scenario.control[0],
        run_median_s=statistics.median(timed) if (timed := [r for r in runs if r]) else None,
        settle_median_s=statistics.median(settles),
    )


# Where each benchmark's last results are shown (between <!-- marker --> and <!-- /marker -->).
RESULT_DOCS = {
    "bench:browser": "docs/performance.md",
    "bench:live": "docs/performance.md",
    "bench:follow": "docs/performance.md",
    "bench:load": "docs/performance.md",
    "bench:memory": "docs/robustness.md",
    "bench:slide-cost": "docs/robustness.md",
}


def update_docs(marker: str, text: str) -> None:
    """Put `text` between <!-- marker --> and <!-- /marker --> in the doc that shows the results
    (RESULT_DOCS: the docs include the last results, with the machine they ran on)."""
    doc = ROOT / RESULT_DOCS[marker]
    content = doc.read_text(encoding="utf-8")
    start, end = f"<!-- {marker} -->\n", f"<!-- /{marker} -->"
    if start in content and end in content:
        head, rest = content.split(start, 1)
        _, tail = rest.split(end, 1)
        doc.write_text(head + start + text + end + tail, encoding="utf-8")


# Budgets, as ratios to the floor (repaint: at default / at maximum settings); a drag's settle
# time as a ratio to the same page's one-change median.
REPAINT_BUDGET = {"default": 1.3, "max": 1.8}
DRAG_BUDGET = 1.5
COLD_START_BUDGET = 1.5
BYTES_BUDGET = 1.5 * 2**20


def drag_ratio(result: Result) -> float | None:
    """A drag's settle against one change's (results saved before there was one: its
    repaint)."""
    if result.drag_settle_s is None:
        return None
    return result.drag_settle_s / (result.settle_median_s or result.latency_median_s)


def missed_budgets(result: Result, floor: Result) -> list[str]:
    """The budgets `result` misses, named with the measured ratio: ["repaint 2.3x > 1.3x"]."""
    if result.scenario in (*FLOOR_RUNS, floor.scenario):
        return []
    settings = "max" if result.scenario.endswith("(max)") else "default"
    missed = []
    repaint = result.latency_median_s / floor.latency_median_s
    if repaint > REPAINT_BUDGET[settings]:
        missed.append(f"repaint {repaint:.2f}x > {REPAINT_BUDGET[settings]}x "
                      f"({why_slow(result)})")
    cold = result.cold_start_s / floor.cold_start_s
    if cold > COLD_START_BUDGET:
        missed.append(f"cold start {cold:.2f}x > {COLD_START_BUDGET}x")
    drag = drag_ratio(result)
    if drag is not None and drag > DRAG_BUDGET:
        missed.append(f"drag {drag:.1f}x > {DRAG_BUDGET}x")
    if result.bytes_per_rerun > BYTES_BUDGET:
        missed.append(f"{result.bytes_per_rerun / 2**20:.2f} MB per rerun > 1.5 MB")
    return missed


def why_slow(result: Result) -> str:
    """Where a repaint's time went, measured: the script's run, and the rest (the browser's
    rendering of the messages and drawing of the charts, the round trip)."""
    if result.run_median_s is None:
        return "run not seen"
    rest = result.latency_median_s - result.run_median_s
    if rest < 0:  # a live control's preview, drawn before the run
        return f"a preview; the run after it {1000 * result.run_median_s:.0f} ms"
    return (f"run {1000 * result.run_median_s:.0f} ms, browser and round trip "
            f"{1000 * rest:.0f} ms")


def drag_text(result: Result) -> str:
    ratio = drag_ratio(result)
    return "-" if ratio is None else f"{result.drag_settle_s:.3f} ({ratio:.1f}x)"


def markdown(results: list[Result], machine: str,
             not_measured: list[tuple[str, str]] = ()) -> str:
    floor = floor_reference(results)
    lines = [
        f"Measured {time.strftime('%Y-%m-%d')} on {machine}. Ratios: to the floor app's mean "
        "of its first and last runs (it varies ~15% between runs). A row names the page and "
        "the view whose own control changed (a fragment's rerun); without a view, the page's "
        "first page-wide control. Messages: websocket messages per change (~one per element).",
        "",
        "| page / view (settings) | control | cold start s (x floor) | repaint median s "
        "(x floor) | run median s | repaint p95 s | drag settle s (x one change) "
        "| messages per rerun | KB per rerun | server RSS MB | budgets missed |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    ordered = [r for r in results if r.scenario in FLOOR_RUNS] + [floor] + [
        r for r in results if r.scenario not in FLOOR_RUNS]
    for r in ordered:
        count = "-" if r.messages_per_rerun is None else f"{r.messages_per_rerun:.0f}"
        lines.append(
            f"| {r.scenario} | {r.control or '-'} "
            f"| {r.cold_start_s:.2f} ({r.cold_start_s / floor.cold_start_s:.2f}x) "
            f"| {r.latency_median_s:.3f} ({r.latency_median_s / floor.latency_median_s:.2f}x) "
            f"| {'-' if r.run_median_s is None else f'{r.run_median_s:.3f}'} "
            f"| {r.latency_p95_s:.3f} | {drag_text(r)} | {count} "
            f"| {r.bytes_per_rerun / 1024:.0f} | {r.rss_mb:.0f} "
            f"| {', '.join(missed_budgets(r, floor)) or 'none'} |"
        )
    if not_measured:  # grouped by reason (a view without a control of its own, ...), once a view
        reasons: dict[str, list[str]] = {}
        for name, why in not_measured:
            why = re.sub(r" in \S+ view$", "", why.removeprefix("RuntimeError: "))
            view = re.sub(r" \((default|max)\)$", "", name)
            if view not in reasons.setdefault(why, []):
                reasons[why].append(view)
        lines += ["", "Not measured: " + "; ".join(f"{', '.join(names)} ({why})"
                                                    for why, names in reasons.items()) + "."]
    return "\n".join(lines) + "\n"


LIVE_STEP_BUDGET_MS = 50
LIVE_STATES_BUDGET = 8


@dataclass
class LiveResult:
    page: str
    control: str
    chart: str
    stops: int  # the slider's values
    states: int  # distinct pictures of the chart during the drag
    delay_median_ms: float | None  # pointer move -> the chart's frame with the state
    delay_max_ms: float | None
    first_ms: float | None  # the drag's first step (the slider starting its drag)
    runs: int  # script runs during the drag


@contextlib.contextmanager
def opened(browser, address: str):
    """A page of a new 1440 x 900 context at `address`, its charts drawn."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    try:
        page = context.new_page()
        page.goto(address)
        page.wait_for_selector(browser_support.IDLE_SELECTOR, timeout=120_000)
        browser_support.wait_charts_drawn(page)
        yield page
    finally:
        context.close()


def measure_live(browser, path: str, url: str) -> list[LiveResult]:
    """Each live slider shown at `path` (a view of a page of LIVE_SLIDERS) dragged for a second
    in 20 moves."""
    out = []
    with opened(browser, url + path) as page:
        sliders = browser_support.LIVE_SLIDERS[path.split("?")[0]]
        for key, chart, rightward in browser_support.live_controls_shown(page, sliders):
            low, high, step = page.locator(f".st-key-{key} input[type=range]").first.evaluate(
                "e => [Number(e.min), Number(e.max), Number(e.step) || 1]")
            drag = browser_support.drag_live(page, key, chart, rightward=rightward)
            page.wait_for_selector(browser_support.IDLE_SELECTOR, timeout=120_000)
            page.wait_for_timeout(500)
            page.wait_for_selector(browser_support.IDLE_SELECTOR, timeout=120_000)
            delays = sorted(drag.delays_ms)
            first = drag.delays_ms[0] if drag.delays_ms else None
            out.append(LiveResult(
                page=path, control=key, chart=chart, stops=round((high - low) / step) + 1,
                states=len(set(drag.states)), runs=drag.runs,
                delay_median_ms=statistics.median(delays) if delays else None,
                delay_max_ms=delays[-1] if delays else None, first_ms=first))
    return out


def live_missed(result: LiveResult) -> list[str]:
    missed = []
    wanted = min(LIVE_STATES_BUDGET, result.stops)
    if result.states < wanted:
        missed.append(f"{result.states} states < {wanted}")
    if result.delay_max_ms is None or result.delay_max_ms > LIVE_STEP_BUDGET_MS:
        missed.append(f"a step drawn in {result.delay_max_ms or 0:.0f} ms > "
                      f"{LIVE_STEP_BUDGET_MS} ms")
    if result.runs:
        missed.append(f"{result.runs} script runs during the drag")
    return missed


def live_markdown(results: list[LiveResult], machine: str) -> str:
    lines = [
        f"Measured {time.strftime('%Y-%m-%d')} on {machine}, default settings.",
        "",
        "| page | control | chart | stops | states drawn | move -> drawn median ms | max ms "
        "| first step ms | runs during drag | budgets missed |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]

    def ms(value: float | None) -> str:
        return "-" if value is None else f"{value:.0f}"

    for r in results:
        lines.append(f"| {r.page} | {r.control} | {r.chart} | {r.stops} | {r.states} "
                     f"| {ms(r.delay_median_ms)} | {ms(r.delay_max_ms)} | {ms(r.first_ms)} "
                     f"| {r.runs} | {', '.join(live_missed(r)) or 'none'} |")
    return "\n".join(lines) + "\n"


def run_live(browser, pages: list[str] | None, machine: str) -> str:
    """The live-controls table (printed, saved, and in docs/performance.md on a full run)."""
    server, url = browser_support.start_streamlit("app.py", RESULTS / "server-live.log.tmp")

    def chosen(path: str) -> bool:
        return not pages or path.split("?")[0].strip("/") in pages

    try:
        results = [r for page in browser_support.LIVE_SLIDERS if chosen(page)
                   for path in browser_support.view_paths(page)
                   for r in measure_live(browser, path, url)]
        followed = [r for path in browser_support.FOLLOWED_CONTROLS if chosen(path)
                    for r in measure_followed(browser, path, url)]
    finally:
        browser_support.stop(server)
    table = live_markdown(results, machine)
    follow_table = follow_markdown(followed, machine)
    print(table)
    print(follow_table)
    (RESULTS / "live.json").write_text(json.dumps(
        {"machine": machine, "results": [asdict(r) for r in results],
         "followed": [asdict(r) for r in followed]}, indent=2))
    if not pages:
        update_docs("bench:live", table)
        update_docs("bench:follow", follow_table)
    return table


FOLLOWED_STATES_BUDGET = 3


@dataclass
class FollowResult:
    page: str
    control: str
    chart: str
    states: int  # distinct pictures of the chart during the drag
    runs: int  # script runs during the drag (one value at a time)
    drag_s: float  # the 20 moves' wall time (1.0 s when nothing holds the browser up)
    settled_s: float  # from the release to the released value drawn and the app idle


def measure_followed(browser, path: str, url: str) -> list[FollowResult]:
    """Each followed slider of page `path` (FOLLOWED_CONTROLS) dragged for a second in 20
    moves: the server draws the value under the pointer as it keeps up (ui/follow.py)."""
    out = []
    with opened(browser, url + path) as page:
        for key, chart, rightward in browser_support.FOLLOWED_CONTROLS[path]:
            start = time.perf_counter()
            drag = browser_support.drag_live(page, key, chart, rightward=rightward,
                                             release=False)
            dragged = time.perf_counter() - start
            shown = browser_support.shown_value(page, key)
            released = time.perf_counter()
            page.mouse.up()
            page.wait_for_function(
                "([key, value]) => new URL(location.href).searchParams.get(key) === value",
                arg=[key, shown], timeout=120_000)
            page.wait_for_selector(browser_support.IDLE_SELECTOR, timeout=120_000)
            out.append(FollowResult(page=path, control=key, chart=chart,
                                    states=len(set(drag.states)), runs=drag.runs,
                                    drag_s=dragged, settled_s=time.perf_counter() - released))
    return out


def follow_markdown(results: list[FollowResult], machine: str) -> str:
    lines = [
        f"Measured {time.strftime('%Y-%m-%d')} on {machine}, default settings.",
        "",
        "| page | control | chart | states drawn | runs during drag | 20 moves took s "
        "| release -> idle s | budgets missed |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        missed = (f"{r.states} states < {FOLLOWED_STATES_BUDGET}"
                  if r.states < FOLLOWED_STATES_BUDGET else "none")
        lines.append(f"| {r.page} | {r.control} | {r.chart} | {r.states} | {r.runs} "
                     f"| {r.drag_s:.1f} | {r.settled_s:.2f} | {missed} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--changes", type=int, default=12)
    parser.add_argument("--pages", nargs="*", help="url paths (default: every page)")
    parser.add_argument("--no-views", action="store_true",
                        help="only each page's page-wide control, not every view")
    parser.add_argument("--live-only", action="store_true",
                        help="only the live controls' drags")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    executable = browser_support.find_chromium()
    if executable is None:
        sys.exit(browser_support.NO_CHROMIUM)
    memory_gib = psutil.virtual_memory().total / 2**30
    machine = (f"{platform.machine()}, {psutil.cpu_count()} cores, {memory_gib:.0f} GiB, "
               f"Python {platform.python_version()}")
    results, not_measured = [], []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, args=browser_support.CHROMIUM_ARGS
        )
        if args.live_only:
            run_live(browser, args.pages, machine)
            browser.close()
            return
        run_live(browser, args.pages, machine)
        # A page's first scenario on a server of its own (its cold start), the page's other
        # scenarios on one server shared by them (cold start: the page opened in a new tab).
        shared: dict[str, tuple] = {}
        try:
            for scenario in scenarios(args.pages, views=not args.no_views):
                for path in [p for p in shared if p != scenario.path]:  # a page at a time
                    browser_support.stop(shared.pop(path)[0])
                served = shared.get(scenario.path) if scenario.script == "app.py" else None
                try:
                    result = measure(browser, scenario, args.changes, served=served)
                except NoViewControlError as error:
                    print(f"{scenario.name:44} not measured: {error}", flush=True)
                    not_measured.append((scenario.name, str(error)))
                    continue
                except Exception as error:  # one broken scenario must not lose the others'
                    why = f"{type(error).__name__}: {str(error).splitlines()[0][:200]}"
                    print(f"{scenario.name:44} FAILED: {why}", flush=True)
                    not_measured.append((scenario.name, why))
                    continue
                finally:
                    if scenario.script == "app.py" and scenario.path not in shared:
                        shared[scenario.path] = browser_support.start_streamlit(
                            "app.py", RESULTS / "server-shared.log.tmp")
                results.append(result)
                print(f"{result.scenario:44} {result.control:12} "
                      f"cold {result.cold_start_s:6.2f}s  "
                      f"median {result.latency_median_s:6.3f}s  "
                      f"p95 {result.latency_p95_s:6.3f}s  "
                      f"{result.messages_per_rerun or 0:4.0f} msgs  "
                      f"{result.bytes_per_rerun / 1024:8.0f} KB/rerun  RSS {result.rss_mb:5.0f} MB",
                      flush=True)
        finally:
            for server, _url in shared.values():
                browser_support.stop(server)
        browser.close()
    table = markdown(results, machine, not_measured)
    print(table)
    (RESULTS / "browser.json").write_text(json.dumps(
        {"machine": machine, "results": [asdict(r) for r in results]}, indent=2))
    (RESULTS / "browser.md").write_text(table)
    if not args.pages:  # a full run: docs/performance.md shows it
        update_docs("bench:browser", table)


if __name__ == "__main__":
    main()
