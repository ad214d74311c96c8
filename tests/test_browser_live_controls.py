"""Live controls in headless Chromium: a view's slider dragged with the mouse, as a person drags
it (pressed, moved across the track in 20 steps over a second, released), redraws its chart at
each step before the release, with no script run; on release the value lands in the URL and
the server draws it (ui/chart/live.js, figures.common.add_live_states).

The sliders are the registry's (`live=True` in ui/pages.py: tests/browser_support.LIVE_SLIDERS),
found on each view that shows them. That each state is the server's picture at that value is
checked in Python, chart by chart (tests/live_states.py, tests/test_live_controls.py); here, that
the browser draws them while the thumb moves."""

from __future__ import annotations

from io import BytesIO

import numpy as np
import pytest
from PIL import Image

from tests import browser_support
from tests.browser_support import LIVE_SLIDERS

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("page", sorted(LIVE_SLIDERS))
def test_dragging_a_live_slider_moves_its_chart_before_the_release(browser_page, page):
    """Every live slider of the page (the registry's: ui/pages.py), on each view that shows it,
    at the page's defaults: eight states at least in a one-second drag, or every stop of a
    shorter slider (the order page's 6 layers)."""
    drawn: dict[str, list[int]] = {}
    for path in browser_support.view_paths(page):
        browser_page.open(path)
        for key, chart, rightward in browser_support.live_controls_shown(
                browser_page.page, LIVE_SLIDERS[page]):
            drawn.setdefault(key, []).append(drag_and_release(browser_page, key, chart,
                                                              rightward, where=path))
    print(f"\n{page}: states drawn in a 1 s drag, by slider and view: {drawn}")
    assert set(drawn) == set(LIVE_SLIDERS[page]), (
        f"{page}: live slider(s) on no view, or moving no chart: "
        f"{sorted(set(LIVE_SLIDERS[page]) - set(drawn))}")
    assert browser_page.exceptions() == []


def drag_and_release(browser_page, key: str, chart: str, rightward: bool, *, where: str) -> int:
    """Drag slider `key` for a second (`browser_support.drag_live`): chart `chart` draws a new
    state at each step, no script run, every layer kept; then release: the value lands in the
    URL and the server draws it. Returns the number of states drawn."""
    page = browser_page.page
    low, high, step = page.locator(f".st-key-{key} input[type=range]").first.evaluate(
        "e => [Number(e.min), Number(e.max), Number(e.step) || 1]")
    wanted = min(8, round((high - low) / step) + 1)
    layers = page.evaluate(browser_support.CHART_LAYERS_JS)
    page.evaluate(browser_support.SCATTER_LAYERS_TAKEN_JS)
    page.evaluate(browser_support.RAW_PREVIEW_WATCH_JS, chart)
    drag = browser_support.drag_live(page, key, chart, rightward=rightward, release=False)
    shown = browser_support.shown_value(page, key)
    assert drag.runs == 0, f"{where} {key}: the server ran during the drag"
    assert len(set(drag.states)) >= wanted, (where, key, wanted, drag.states)
    # Every chart still draws all its traces (another panel's, another kind's).
    assert page.evaluate(browser_support.CHART_LAYERS_JS) == layers, (where, key)
    # ...and leaves the points of the traces it does not move in place (not drawn again).
    assert page.evaluate("window.__peScatterTaken") == 0, (where, key)
    # Each new state is drawn as the pointer moves, not once the next frame dispatches
    # the move (its work then held that frame back).
    raw = page.evaluate("window.__peRawPreview")
    assert raw["changed"] >= 1 and raw["early"] >= 0.8 * raw["changed"], (where, key, raw)
    page.mouse.up()
    page.wait_for_function(
        "([key, value]) => new URL(location.href).searchParams.get(key) === value",
        arg=[key, shown], timeout=30_000)
    browser_page.wait_idle()
    assert browser_support.shown_value(page, key) == shown
    return len(set(drag.states))


def test_dragging_a_slider_that_needs_new_numbers_redraws_as_the_server_keeps_up(browser_page):
    """The heatmap's number of positions has no live states (each value is a new table): while
    it is dragged the server draws the value under the pointer (ui/follow.py), one at a time,
    the link keeping the released value; the release lands in the URL and is drawn."""
    page = browser_page.page
    browser_page.open("/heatmap")
    summary = page.locator('[data-testid="stMarkdownContainer"]').filter(
        has_text="positions x")
    drag = browser_support.drag_live(page, "positions", "heatmap_chart", release=False)
    assert drag.runs >= 2, "the server did not follow the drag"
    assert len(set(drag.states)) >= 3, drag.states
    assert "positions=" not in page.url  # the link keeps the released value meanwhile
    shown = browser_support.shown_value(page, "positions")
    page.mouse.up()
    page.wait_for_function(
        "value => new URL(location.href).searchParams.get('positions') === value",
        arg=shown, timeout=30_000)
    browser_page.wait_idle()
    assert summary.first.inner_text().startswith(f"{shown} positions x")
    chart = page.locator(".st-key-heatmap_chart .js-plotly-plot").first
    drawn = chart.evaluate(browser_support.CHART_STATE_JS)
    # Dragged away and back, released where it started (Streamlit sends nothing then): the
    # picture is the value's again, not the last one followed.
    thumb = page.locator('.st-key-positions [data-testid="stSliderThumbValue"]').first
    thumb = thumb.bounding_box()
    x, y = thumb["x"] + thumb["width"] / 2, thumb["y"] + thumb["height"] + 8
    page.mouse.move(x, y)
    page.mouse.down()
    for step in (-40, -120, -200, -120, -40, 0):  # back faster than a heatmap's run
        page.mouse.move(x + step, y)
        page.wait_for_timeout(40)
    page.mouse.up()
    page.wait_for_function(
        """value => [...document.querySelectorAll('[data-testid="stMarkdownContainer"]')]
            .some(e => e.innerText.startsWith(value + ' positions x'))""",
        arg=shown, timeout=10_000)
    browser_page.wait_idle()
    assert browser_support.shown_value(page, "positions") == shown
    assert chart.evaluate(browser_support.CHART_STATE_JS) == drawn
    # A crafted follow (a value past the parameter's range, a control the page has not, not a
    # value at all) is ignored: no error, the picture as it was.
    for follow in ({"name": "positions", "value": "1e99"}, {"name": "nope", "value": "3"},
                   {"name": "positions", "value": ["8"]}):
        page.locator(".st-key-heatmap_chart .pe-plotly-chart").first.evaluate(
            "(gd, follow) => gd.__pePlotlyReact.setTriggerValue('follow', follow)", follow)
        browser_page.wait_idle()
        assert chart.evaluate(browser_support.CHART_STATE_JS) == drawn, follow
        assert summary.first.inner_text().startswith(f"{shown} positions x")
    assert page.locator('[data-testid="stException"]').count() == 0
    assert browser_page.exceptions() == []


@pytest.mark.parametrize(("path", "key", "chart"), [
    ("/similarity?view=anchor", "anchor", "anchor_chart"),  # a state redrawn whole
    ("/similarity?view=offset", "offset", "offset_chart"),  # an animated one
])
def test_pressing_a_live_sliders_thumb_draws_its_value_as_the_server_did(browser_page, path,
                                                                         key, chart):
    """The press draws the state of the value the slider shows before the pointer moves (a
    page's first plotly.js update is its slowest: the press's, not the drag's first step's):
    the server's picture again. Released unmoved, nothing is sent and it stays."""
    page = browser_page.page
    browser_page.open(path)
    shown = browser_support.shown_value(page, key)
    plot = page.locator(f".st-key-{chart} .js-plotly-plot").first
    drawn = Image.open(BytesIO(plot.screenshot()))
    runs = page.evaluate(browser_support.LIVE_DRAG_WATCH_JS)
    thumb = page.locator(f'.st-key-{key} [data-testid="stSliderThumbValue"]').first.bounding_box()
    page.mouse.move(thumb["x"] + thumb["width"] / 2, thumb["y"] + thumb["height"] + 8)
    page.mouse.down()
    assert plot.evaluate("(gd, key) => (gd.__pePlotlyReact.previewing || '').startsWith(key + '=')",
                         key), "the press drew no state"
    pressed = Image.open(BytesIO(plot.screenshot()))
    page.mouse.up()
    browser_page.wait_idle()
    released = Image.open(BytesIO(plot.screenshot()))
    assert page.evaluate("() => window.__peDrag.runs") == runs  # no run: nothing was sent
    assert f"{key}=" not in page.url and browser_support.shown_value(page, key) == shown
    for picture in (pressed, released):
        assert picture.size == drawn.size
        assert np.array_equal(np.asarray(picture), np.asarray(drawn))
    assert browser_page.exceptions() == []


# A live state that gives heatmaps new cells on the figure's colour range is drawn as pictures
# over them (ui/chart/pictures.js): the same picture plotly.js draws from the
# state's numbers. Categories and a reversed y axis, two panels (order); masked cells and
# "fast" smoothing (ALiBi); numeric axes with edged cells (the shift matrix); the last of four
# panels (ViT's RoPE-Mixed head).
PICTURED = [("/order", "head", "order_attention_chart", 2),
            ("/alibi?view=head", "head", "head_chart", 1),
            ("/similarity?view=rotation", "offset", "shift_chart", 1),
            ("/vit-grid?view=rope", "head", "rope_chart", 1)]
# The state's numbers drawn by plotly.js itself, the pictures taken away (and the heatmaps they
# hid shown: these figures' heatmaps are opaque).
DRAW_STATE_JS = """async (gd, value) => {
    const P = window.__pePlotly, live = gd.layout.meta.live[NAME];
    // The state as live.js applies it (an array it makes from the figure's, made): its module.
    const module = performance.getEntriesByType('resource').map(e => e.name)
        .find(name => /\\/live\\.js$/.test(name));
    const { madeUpdate } = await import(module);
    const [data, layout, traces] = madeUpdate(live.updates[live.values.indexOf(value)],
                                              gd.__pePlotlyReact.sent.data);
    await P.relayout(gd, { images: [] });
    await P.update(gd, { ...data, opacity: 1 }, {}, traces);
    await new Promise(resolve => requestAnimationFrame(() => setTimeout(resolve, 50)));
}"""


@pytest.mark.parametrize(("path", "key", "chart", "heatmaps"), PICTURED)
def test_a_live_heatmap_state_is_drawn_as_plotly_draws_its_cells(browser_page, path, key, chart,
                                                                  heatmaps):
    page = browser_page.page
    browser_page.open(path)
    drag = browser_support.drag_live(page, key, chart, steps=6, release=False)
    plot = page.locator(f".st-key-{chart} .js-plotly-plot").first
    assert plot.evaluate("gd => (gd.layout.images || []).length") == heatmaps
    area = plot.locator(".cartesianlayer").first.bounding_box()

    def shot() -> np.ndarray:
        return np.asarray(Image.open(BytesIO(page.screenshot(clip=area))).convert("RGB"),
                          dtype=np.int16)

    pictured = shot()
    plot.evaluate(DRAW_STATE_JS.replace("NAME", repr(key)), drag.values[-1])
    assert plot.evaluate("gd => (gd.layout.images || []).length") == 0
    drawn = shot()
    page.mouse.up()
    # Cell edges may fall a pixel apart (plotly.js rounds each rectangle's corners to pixels,
    # the picture is scaled whole): each pixel's colour is found within a pixel of it.
    difference = np.min([np.abs(pictured - np.roll(drawn, (dy, dx), axis=(0, 1))).max(axis=2)
                         for dy in (-1, 0, 1) for dx in (-1, 0, 1)], axis=0)[1:-1, 1:-1]
    assert np.mean(difference <= 6) > 0.998, np.mean(difference <= 6)
