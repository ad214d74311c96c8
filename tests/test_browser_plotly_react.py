"""The Plotly.react chart element (ui/plotly_react.py) in headless Chromium, with the switch forced
on (PE_PLOTLY_REACT=1) whatever the default:

- it draws what st.plotly_chart draws: the same figure, layout (Streamlit's theme, light and
  dark, and presentation mode's own template), config and size, side by side in one page, before
  and after a change;
- a control change keeps the chart's div (the same DOM node, marked with a JS property, shows the
  new data), where st.plotly_chart puts a new one;
- plotly.js comes from the app's own server (app/static/, the installed plotly package's copy),
  and no request leaves it;
- hover, the modebar's PNG download with the chart's file name, the fullscreen button, the theme
  following the browser without a rerun, presentation mode. Screenshots in test-artifacts/.
"""

from __future__ import annotations

import json
import os
import urllib.request
from email.utils import parsedate_to_datetime
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests import browser_support
from tests.conftest import ARTIFACTS, BrowserPage, new_page
from ui import plotly_react

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent


def _serve(script: str | Path, log_name: str):
    """`streamlit run script` with the element switched on."""
    ARTIFACTS.mkdir(exist_ok=True)
    saved = os.environ.get(plotly_react.ENV_SWITCH)
    os.environ[plotly_react.ENV_SWITCH] = "1"
    try:
        return browser_support.start_streamlit(script, ARTIFACTS / log_name)
    except RuntimeError as error:
        pytest.fail(str(error), pytrace=False)
    finally:
        if saved is None:
            os.environ.pop(plotly_react.ENV_SWITCH, None)
        else:
            os.environ[plotly_react.ENV_SWITCH] = saved


@pytest.fixture(scope="module")
def react_url():
    """The app, every chart drawn by the element."""
    server, url = _serve("app.py", "streamlit-server-plotly-react.log")
    yield url
    browser_support.stop(server)


def _page(browser, url: str, **context_options) -> BrowserPage:
    seen = new_page(browser, url, viewport={"width": 1400, "height": 1000},
                    accept_downloads=True, **context_options)
    # Console errors, but not the "Failed to load resource" of Streamlit's own probe of a page
    # path's /_stcore/ (404 with st.plotly_chart too): failed responses are checked by address.
    seen.listen("console", lambda m: m.type == "error" and not m.text.startswith(
        "Failed to load resource") and seen.console_errors.append(m.text))
    seen.listen("request", lambda request: seen.requests.append(request.url))
    seen.failed = []
    seen.listen("response", lambda r: r.status >= 400 and "/_stcore/" not in r.url
                and seen.failed.append(f"{r.status} {r.url}"))
    return seen


def _foreign(requests: list[str], base_url: str) -> list[str]:
    own = urlsplit(base_url).netloc
    return [url for url in requests if urlsplit(url).scheme in ("http", "https", "ws", "wss")
            and urlsplit(url).netloc != own]


CHART = "st-key-{key} .js-plotly-plot"

# What a chart shows: its layout and traces as plotly.js holds them (functions named, not
# compared), the config's user-facing settings, the drawn size and the element's.
DUMP_JS = """(key) => {
    const gd = document.querySelector('.st-key-' + key + ' .js-plotly-plot');
    if (!gd) return null;
    const plain = o => JSON.parse(JSON.stringify(o, (k, v) =>
        typeof v === 'function' ? 'function' : v));
    const c = gd._context;
    const box = e => { const r = e.getBoundingClientRect(); return [r.width, r.height]; };
    const element = gd.closest('[data-testid="stElementContainer"]');
    return {
        layout: plain(gd.layout), data: plain(gd.data),
        config: plain({displaylogo: c.displaylogo, showSendToCloud: c.showSendToCloud,
                       toImageButtonOptions: c.toImageButtonOptions,
                       modeBarButtonsToRemove: c.modeBarButtonsToRemove,
                       modeBarButtonsToAdd: c.modeBarButtonsToAdd}),
        size: box(gd), element: element ? box(element) : null,
        paper: gd._fullLayout.paper_bgcolor, font: gd._fullLayout.font,
    };
}"""


def _differences(a, b, path="") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(set(a) | set(b)):
            out += _differences(a.get(key, "<missing>"), b.get(key, "<missing>"),
                                f"{path}.{key}")
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True))
                for d in _differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {str(a)[:100]} != {str(b)[:100]}"]


def _rgb(colour: str) -> tuple[float, ...]:
    """A '#rrggbb' or 'rgb(r, g, b)' colour's channels."""
    if colour.startswith("#"):
        return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return tuple(float(v) for v in colour[colour.index("(") + 1:-1].split(",")[:3])


def _level(colour: str) -> float:
    """The mean of a colour's channels: 0 black, 255 white."""
    return sum(_rgb(colour)) / 3


# The differences the element draws on purpose: chart text (fonts of ticks, titles, legends,
# hovers) in Streamlit's gray80 where its theme uses gray70, 3.6:1 on white (text needs 4.5:1);
# tick labels drawn without plotly's overflow check (`_overflow_allowed`).
STREAMLIT_TEXT, ELEMENT_TEXT = "#808495", "#555867"


def _muted_text(value, path: str = ""):
    """st.plotly_chart's dump as the element draws it: gray70 text read as gray80."""
    if isinstance(value, dict):
        return {key: _muted_text(item, f"{path}.{key}") for key, item in value.items()}
    if isinstance(value, list):
        return [_muted_text(item, path) for item in value]
    layout_font = "font" in path and ".template.data" not in path  # (not a trace type's)
    return ELEMENT_TEXT if value == STREAMLIT_TEXT and layout_font else value


def _overflow_allowed(dump: dict) -> dict:
    """st.plotly_chart's dump as the element draws it: tick labels past the chart's edge not
    measured to be hidden (ticklabeloverflow "allow" in the template, ui/chart/figure.js)."""
    template = dump["layout"].setdefault("template", {}).setdefault("layout", {})
    for axis in ("xaxis", "yaxis"):
        template[axis] = {"ticklabeloverflow": "allow", **template.get(axis, {})}
    return dump


def _unbold_twice(dump: dict) -> dict:
    """st.plotly_chart applies Streamlit's theme twice when it mounts a chart (once for its
    first state, once in an effect): its title is '<b><b>text</b></b>', drawn as '<b>text</b>'
    is. The comparison reads it as the single bold it shows."""
    title = dump["layout"].get("title")
    if isinstance(title, dict) and isinstance(title.get("text"), str):
        text = title["text"]
        while text.startswith("<b><b>") and text.endswith("</b></b>"):
            text = text[3:-4]
        title["text"] = text
    return dump


# Both ways side by side: figures like the app's (a title, a legend, axis titles, a colour bar
# with a title, a colour axis, client-side frames with a slider and buttons), and one that a
# second slider alone changes.
PROBE_APP = """
import sys
sys.path.insert(0, {root!r})
import numpy as np
import plotly.graph_objects as go
import streamlit as st
from ui.plotly_react import plotly_react_chart

st.set_page_config(layout="wide")
theme = None if st.query_params.get("theme") == "none" else "streamlit"
n = st.slider("n", 1, 50, 5, key="n")
m = st.slider("m", 1, 50, 5, key="m")  # changes only the last chart
x = np.linspace(0, 1, 200)
lines = go.Figure(go.Scatter(x=x, y=np.sin(2 * np.pi * n * x), name="sin"))
lines.add_scatter(x=x, y=np.cos(2 * np.pi * n * x), name="cos", mode="lines+markers")
lines.update_layout(title="Two waves", xaxis_title="x", yaxis_title="y", height=380)
table = np.sin(np.outer(np.arange(64), np.arange(128)) / (n + 1))
heat = go.Figure(go.Heatmap(z=table, coloraxis="coloraxis"))
heat.update_layout(title={{"text": "A table"}}, yaxis={{"autorange": "reversed"}},
                   coloraxis={{"colorscale": "RdBu", "cmid": 0, "colorbar": {{
                       "title": {{"text": "value"}}, "tickvals": [-1, 0, 1],
                       "ticktext": ["-1", "0", "1"]}}}})
# A note whose colour follows m (as ALiBi's chosen head is outlined).
heat.add_annotation(text="note", x=1, y=1.02, xref="paper", yref="paper", xanchor="right",
                    yanchor="bottom", showarrow=False, borderwidth=1,
                    bordercolor="#c0392b" if m % 2 else "rgba(0,0,0,0)")
shared = go.Figure(go.Heatmap(z=table, coloraxis="coloraxis"))
shared.update_layout(coloraxis={{"colorscale": "Viridis"}}, height=300)
frames = go.Figure(go.Scatter(x=[0, 1], y=[0, n]),
                   frames=[go.Frame(name=str(k), data=[go.Scatter(x=[0, 1], y=[0, k])])
                           for k in range(5)])
frames.update_layout(
    sliders=[{{"steps": [{{"label": str(k), "method": "animate", "args": [[str(k)]]}}
                        for k in range(5)]}}],
    updatemenus=[{{"type": "buttons", "buttons": [{{"label": "Play", "method": "animate",
                                                   "args": [None]}}]}}])
config = {{"displaylogo": False, "toImageButtonOptions": {{
    "format": "png", "filename": "probe", "width": 1920, "height": 1080, "scale": 2}}}}
other = go.Figure(go.Bar(x=["a", "b"], y=np.array([1.0, n])))
other.add_annotation(x="b", y=n, text=f"m = {{m}}", showarrow=False, yshift=10)
# The last chart's file name follows m, as the app's follow their views.
named = {{**config, "toImageButtonOptions": {{**config["toImageButtonOptions"],
                                              "filename": f"probe-m{{m}}"}}}}
for i, fig in enumerate([lines, heat, shared, frames, other]):
    st.plotly_chart(fig, key=f"ref{{i}}", theme=theme, config=named if i == 4 else config)
    plotly_react_chart(fig, key=f"new{{i}}", theme=theme, config=named if i == 4 else config)
"""
PROBE_CHARTS = 5


@pytest.fixture(scope="module")
def probe_url(tmp_path_factory):
    folder = tmp_path_factory.mktemp("plotly-react-probe")
    script = folder / "probe_app.py"
    script.write_text(PROBE_APP.format(root=str(ROOT)), encoding="utf-8")
    server, url = _serve(script, "streamlit-server-plotly-react-probe.log")
    yield url
    browser_support.stop(server)


def _wait_charts(seen: BrowserPage, count: int) -> None:
    seen.wait_idle()
    seen.page.wait_for_function(
        "n => document.querySelectorAll('.js-plotly-plot .main-svg').length >= n", arg=count,
        timeout=60_000)
    # Each probe chart (ref0.., new0..) drawn: st.plotly_chart remounts its charts on a rerun,
    # and the old ones may still make up the count while a new one is not there yet.
    seen.page.wait_for_function(
        "n => [...Array(n).keys()].every(i => ['ref', 'new'].every(k => document.querySelector("
        "`.st-key-${k}${i} .js-plotly-plot .main-svg`)))", arg=count // 2, timeout=60_000)
    # st.plotly_chart draws first without a width, then at its container's width.
    seen.page.wait_for_function(
        "() => [...document.querySelectorAll('.js-plotly-plot')].every(gd => gd.layout.width)")
    seen.page.wait_for_timeout(500)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("query", ["", "?theme=none"], ids=["streamlit-theme", "no-theme"])
def test_it_draws_what_st_plotly_chart_draws(browser, probe_url, scheme, query):
    seen = _page(browser, probe_url, color_scheme=scheme)
    try:
        seen.page.goto(f"{probe_url}/{query}")
        _wait_charts(seen, 2 * PROBE_CHARTS)
        for changed in (False, True):
            if changed:  # st.plotly_chart remounts its charts, the element reacts
                before = seen.page.evaluate(DUMP_JS, "new0")["data"]
                seen.page.locator('.st-key-n input[type="range"]').first.focus()
                seen.page.keyboard.press("ArrowRight")
                seen.page.wait_for_function(
                    "(before) => JSON.stringify(document.querySelector("
                    "'.st-key-new0 .js-plotly-plot').data) !== before",
                    arg=json.dumps(before, separators=(",", ":")))
                _wait_charts(seen, 2 * PROBE_CHARTS)
            for i in range(PROBE_CHARTS):
                ref = _overflow_allowed(_muted_text(_unbold_twice(
                    seen.page.evaluate(DUMP_JS, f"ref{i}"))))
                new = _unbold_twice(seen.page.evaluate(DUMP_JS, f"new{i}"))
                assert _differences(ref, new) == [], (i, changed)
        # The theme really is the browser's (both ways agree, and not by both failing).
        paper = seen.page.evaluate(DUMP_JS, "new0")["paper"]
        if query == "":
            assert (_level(paper) < 128) == (scheme == "dark"), paper
        assert seen.console_errors == [] == seen.failed
        seen.page.screenshot(path=str(ARTIFACTS / f"plotly-react-probe-{scheme}"
                                      f"{query.replace('?theme=', '-')}.png"), full_page=True)
    finally:
        seen.close()


X_RANGE_JS = """(key) => { const a = document.querySelector(
    '.st-key-' + key + ' .js-plotly-plot')._fullLayout.xaxis;
    return {autorange: a.autorange, range: a.range.map(v => Math.round(v * 1000) / 1000)}; }"""


def _move(seen: BrowserPage, key: str) -> None:
    """One step right on slider `key`, until the run it asks for has ended (the server's
    message, however late the run begins) and the charts are drawn."""
    seen.page.locator(f'.st-key-{key} input[type="range"]').first.focus()
    runs = browser_support.RunsEnded(seen.page)
    try:
        with runs.ended():
            seen.page.keyboard.press("ArrowRight")
        assert runs.count, f"no run ended {browser_support.RUN_ENDS_S} s after moving {key}"
    finally:
        runs.close()
    _wait_charts(seen, 2 * PROBE_CHARTS)


def test_a_zoom_lasts_until_the_figure_changes_as_with_st_plotly_chart(browser, probe_url):
    """A rerun resends every chart: the element leaves an unchanged figure as drawn (the
    reader's zoom stays), as st.plotly_chart does; a changed figure is drawn afresh."""
    seen = _page(browser, probe_url)
    try:
        seen.page.goto(probe_url)
        _wait_charts(seen, 2 * PROBE_CHARTS)
        for key in ("ref0", "new0"):  # a zoom, dragged with the mouse
            area = seen.page.locator(f".st-key-{key} .nsewdrag").first
            area.scroll_into_view_if_needed()
            box = area.bounding_box()
            seen.page.mouse.move(box["x"] + box["width"] * 0.2, box["y"] + box["height"] * 0.3)
            seen.page.mouse.down()
            seen.page.mouse.move(box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.7,
                                 steps=8)
            seen.page.mouse.up()
            seen.page.wait_for_function(f"() => !({X_RANGE_JS})('{key}').autorange")
        zoomed = {key: seen.page.evaluate(X_RANGE_JS, key) for key in ("ref0", "new0")}
        assert zoomed["ref0"] == zoomed["new0"] and not zoomed["new0"]["autorange"]
        _move(seen, "m")  # another chart changes
        assert {key: seen.page.evaluate(X_RANGE_JS, key) for key in ("ref0", "new0")} == zoomed
        _move(seen, "n")  # this chart changes
        after = {key: seen.page.evaluate(X_RANGE_JS, key) for key in ("ref0", "new0")}
        assert after["ref0"] == after["new0"] and after["new0"]["autorange"] is True
        assert seen.console_errors == [] == seen.failed
    finally:
        seen.close()


def test_a_mark_moved_alone_leaves_the_traces_as_computed(browser, probe_url):
    """A change that moves only a mark of the layout (here an annotation) and the download's
    file name keeps each unchanged trace's arrays and the chart's config, so plotly.js redraws
    the mark alone: the traces' computed points (the chart's calcdata) stay the same object,
    and the modebar's download takes the new name. So for a heatmap whose y axis is reversed
    and whose colour bar has its own ticks (arrays equal to those drawn, handed back as drawn),
    when only a note's colour changes. A change of the data computes them again."""
    seen = _page(browser, probe_url)
    try:
        seen.page.goto(probe_url)
        _wait_charts(seen, 2 * PROBE_CHARTS)
        browser_support.wait_charts_drawn(seen.page)
        chart = "document.querySelector('.st-key-new4 .js-plotly-plot')"
        heat = "document.querySelector('.st-key-new1 .js-plotly-plot')"
        seen.page.evaluate(f"() => {{ window.__calc = {chart}.calcdata; "
                           f"window.__heat = {heat}.calcdata; }}")
        _move(seen, "m")
        seen.page.wait_for_function(f"() => {chart}.layout.annotations[0].text === 'm = 6'")
        seen.page.wait_for_function(f"() => {heat}.layout.annotations[0].bordercolor "
                                    "=== 'rgba(0,0,0,0)'")
        browser_support.wait_charts_drawn(seen.page)
        assert seen.page.evaluate(f"() => {chart}.calcdata === window.__calc")
        assert seen.page.evaluate(f"() => {heat}.calcdata === window.__heat")
        assert seen.page.evaluate(f"() => {heat}._fullLayout.yaxis.range[0] > "
                                  f"{heat}._fullLayout.yaxis.range[1]")  # still reversed
        assert seen.page.locator(".st-key-new4 .annotation-text").text_content() == "m = 6"
        assert seen.page.evaluate(
            f"() => {chart}._context.toImageButtonOptions.filename") == "probe-m6"
        _move(seen, "n")
        seen.page.wait_for_function(f"() => {chart}._fullData[0].y[1] === 6")
        browser_support.wait_charts_drawn(seen.page)
        assert not seen.page.evaluate(f"() => {chart}.calcdata === window.__calc")
        assert seen.console_errors == [] == seen.failed
    finally:
        seen.close()


def test_the_chart_div_is_kept_across_a_control_change(browser, react_url):
    seen = _page(browser, react_url)
    try:
        seen.open("/heatmap", charts=1)
        chart = ".st-key-heatmap_chart .js-plotly-plot"
        seen.page.wait_for_selector(f"{chart} .main-svg")
        before = seen.page.evaluate(browser_support.CHART_SIGNATURE_JS)
        seen.page.evaluate(f"() => {{ const gd = document.querySelector('{chart}');"
                           " gd.__keptMark = 'mine'; window.__keptChart = gd; }")
        # The table's layout: interleaved -> concatenated, a new table in the same chart.
        _, selector, _ = browser_support.control_change("layout", "radio", 0, down=False)
        seen.page.locator(selector).first.click()
        seen.page.wait_for_function(
            f"""(before) => ({browser_support.CHART_SIGNATURE_JS})() !== before
                && document.querySelector('{browser_support.IDLE_SELECTOR}') !== null""",
            arg=before, timeout=60_000)
        seen.wait_idle()
        kept = seen.page.evaluate(f"""() => {{ const gd = document.querySelector('{chart}');
            return {{same: gd === window.__keptChart, mark: gd.__keptMark,
                     connected: window.__keptChart.isConnected,
                     drawn: gd.querySelectorAll('.main-svg').length,
                     version: window.__pePlotly && window.__pePlotly.version}}; }}""")
        assert kept == {"same": True, "mark": "mine", "connected": True,
                        "drawn": kept["drawn"], "version": plotly_react.plotly_js_version()}
        assert kept["drawn"] >= 1
        assert "layout=concatenated" in seen.page.url
        # plotly.js came from the app's own server, and nothing else left it.
        plotly_js = next(u for u in seen.requests if urlsplit(u).path.endswith(
            f"/app/static/plotly-{plotly_react.plotly_js_version()}.min.js"))
        # ...and a browser keeps it: nothing forbids caching, and Last-Modified lies far enough
        # back that its heuristic freshness (a tenth of the age) is years (ui/plotly_react.py).
        with urllib.request.urlopen(plotly_js, timeout=30) as response:
            headers = response.headers
        assert "no-" not in headers.get("Cache-Control", "")
        age = (parsedate_to_datetime(headers["Date"])
               - parsedate_to_datetime(headers["Last-Modified"])).total_seconds()
        assert age / 10 > 365 * 24 * 3600, headers["Last-Modified"]
        assert _foreign(seen.requests, react_url) == []
        assert seen.exceptions() == [] and seen.console_errors == [] == seen.failed
    finally:
        seen.close()


# A redraw of one chart, as a rerun's new figure makes it (its title changed), and the
# Plotly.react calls it made: after a few microtask turns (an on-screen chart is drawn at once,
# within them) and once its draw is done.
REDRAW_JS = """async (key) => {
  const gd = document.querySelector(`.st-key-${key} .js-plotly-plot`);
  const state = gd.__pePlotlyReact;
  const Plotly = window.__pePlotly, react = Plotly.react;
  const calls = [];
  Plotly.react = function (target, ...rest) {
    calls.push(target === gd ? key : 'other');
    return react.call(this, target, ...rest);
  };
  try {
    const spec = JSON.parse(state.data.spec);
    spec.layout.title.text += ' (redrawn)';
    state.data = {...state.data, spec: JSON.stringify(spec)};
    state.draw();
    for (let turn = 0; turn < 20; turn++) await Promise.resolve();
    const atOnce = calls.length;
    await state.queue;
    return {onScreen: state.onScreen, atOnce, calls,
            title: gd.layout.title.text.includes('redrawn')};
  } finally {
    Plotly.react = react;
  }
}"""


def test_a_chart_out_of_the_window_is_redrawn_after_the_next_frame(browser, react_url):
    """A redraw of a chart out of the window waits for the next frame, so the charts in view
    are drawn and painted first; it is still drawn without scrolling to it. A chart in view is
    redrawn at once."""
    seen = _page(browser, react_url)
    try:
        seen.open("/vit-grid?view=rope", charts=2)
        page = seen.page
        # The first chart in view, the tiles (below it) out of the window.
        page.locator(".st-key-rope_chart").scroll_into_view_if_needed()
        page.evaluate("() => window.scrollBy(0, -200)")
        page.wait_for_function("""() => document.querySelector(
            '.st-key-rope_tiles_chart .js-plotly-plot').__pePlotlyReact.onScreen === false""")
        assert page.evaluate(REDRAW_JS, "rope_tiles_chart") == {
            "onScreen": False, "atOnce": 0, "calls": ["rope_tiles_chart"], "title": True}
        assert page.evaluate(REDRAW_JS, "rope_chart") == {
            "onScreen": True, "atOnce": 1, "calls": ["rope_chart"], "title": True}
        assert seen.exceptions() == [] and seen.console_errors == [] == seen.failed
    finally:
        seen.close()


def test_hover_and_the_modebar_download(browser, react_url):
    seen = _page(browser, react_url)
    try:
        seen.open("/heatmap?d_model=64&positions=32", charts=1)
        chart = seen.page.locator(".st-key-heatmap_chart .js-plotly-plot")
        plot = chart.locator(".nsewdrag").first
        box = plot.bounding_box()
        seen.page.mouse.move(box["x"] + box["width"] * 0.4, box["y"] + box["height"] * 0.4)
        seen.page.wait_for_selector(".st-key-heatmap_chart .hoverlayer .hovertext",
                                    timeout=10_000)
        camera = chart.locator('.modebar-btn[data-title="Download plot as a PNG"]')
        with seen.page.expect_download(timeout=60_000) as download_info:
            camera.click(force=True)
        assert download_info.value.suggested_filename == "pe-heatmap_d64_pos32_interleaved.png"
        assert seen.console_errors == [] == seen.failed
    finally:
        seen.close()


def test_the_fullscreen_button(browser, react_url):
    seen = _page(browser, react_url)
    try:
        seen.open("/heatmap", charts=1)
        chart = seen.page.locator(".st-key-heatmap_chart .js-plotly-plot")
        width = chart.bounding_box()["width"]
        chart.locator('.modebar-btn[data-title="Fullscreen"]').click(force=True)
        seen.page.wait_for_function(
            "() => document.querySelector('.st-key-heatmap_chart .js-plotly-plot')"
            ".getBoundingClientRect().height > 800")
        big = chart.bounding_box()
        assert big["width"] > width and big["width"] > 1300 and big["y"] < 60
        seen.page.screenshot(path=str(ARTIFACTS / "plotly-react-fullscreen.png"))
        seen.page.keyboard.press("Escape")
        seen.page.wait_for_function(
            "(w) => Math.abs(document.querySelector('.st-key-heatmap_chart .js-plotly-plot')"
            ".getBoundingClientRect().width - w) < 2", arg=width)
        assert seen.console_errors == [] == seen.failed
    finally:
        seen.close()


def test_the_theme_follows_the_browser_without_a_rerun(browser, react_url):
    seen = _page(browser, react_url, color_scheme="light")
    try:
        seen.open("/heatmap", charts=1)
        paper = ("() => document.querySelector('.st-key-heatmap_chart .js-plotly-plot')"
                 "._fullLayout.paper_bgcolor")
        light = seen.page.evaluate(paper)
        seen.page.emulate_media(color_scheme="dark")
        seen.page.wait_for_function(f"(light) => ({paper})() !== light", arg=light)
        background = seen.page.evaluate(
            "() => getComputedStyle(document.querySelector('[data-testid=stApp]'))"
            ".backgroundColor")
        assert _rgb(seen.page.evaluate(paper)) == _rgb(background)
        assert _level(background) < 128
    finally:
        seen.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("present", [False, True], ids=["normal", "present"])
def test_screenshots(browser, react_url, scheme, present):
    seen = _page(browser, react_url, color_scheme=scheme)
    try:
        seen.open("/heatmap?d_model=64&positions=64" + ("&present=1" if present else ""),
                  charts=2)
        if present:  # presentation type: the axis title at the slide's size
            size = seen.page.locator(".js-plotly-plot .xtitle").first.evaluate(
                "e => parseFloat(getComputedStyle(e).fontSize)")
            assert size >= 20
        assert seen.exceptions() == [] and seen.console_errors == [] == seen.failed
        seen.screenshot(f"plotly-react-heatmap-{scheme}{'-present' if present else ''}")
    finally:
        seen.close()
