"""A phone held upright (390 x 844, touch): in English and Chinese, no chart text on any page and
view collides with another, is cut by the chart's edge or lies under plotly's modebar, and no
legend scrolls (tests.browser_support.CHART_TEXT_PROBLEMS_JS); a figure's panels side by side are
stacked in one column there, and side by side again once the screen is wide (the chart element
fits the figure to its width, ui/chart/fit.js `fitToWidth`). Every chart text is drawn at 12 px
or more; every display formula fits the phone's width (ui/formula_fit.js draws a wide one
smaller); a square matrix stays square, on its page and on its slide."""

from __future__ import annotations

import contextlib
import math

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.conftest import BrowserPage, new_page
from tests.test_browser_slides import EVERY_PAGE, chart_text_problems, walk_views

pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def phone_page(browser, app_url) -> BrowserPage:
    return new_page(browser, app_url, **PHONE)


# One test per page (its views walked in one page load), so that the pages spread over the
# workers.
@pytest.mark.parametrize("page", EVERY_PAGE)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_chart_text_collides_or_is_cut_on_a_phone(browser, app_url, lang, page):
    seen = phone_page(browser, app_url)
    found, badly_broken, small, wide = {}, {}, {}, {}
    try:
        for path in walk_views(seen, page, lang):
            # Titles, ticks, legends, annotations and a scatter's point labels (the clocks',
            # laid out three to a row here; word-position's, placed again for a phone's square
            # plot).
            found |= chart_text_problems(seen, path, lang, f"phone-390x844-{lang}")
            # Lines the chart element wrapped (titles, notes) start with no closing mark and
            # end with no opening one, as figures.common.wrap_words breaks them.
            badly_broken[path] = seen.page.evaluate(BADLY_BROKEN_JS)
            small[path] = seen.page.evaluate(SMALL_TEXT_JS)
            wide[path] = formulas_left_wide(seen.page)
    finally:
        seen.close()
    assert found == {}
    assert {path: lines for path, lines in badly_broken.items() if lines} == {}
    assert {path: texts for path, texts in small.items() if texts} == {}
    assert {path: boxes for path, boxes in wide.items() if boxes} == {}


# Chart text as drawn (its font size times the SVG's scale on screen) under 12 px.
SMALL_TEXT_JS = """() => [...document.querySelectorAll('[data-testid=stMain] .main-svg text')]
  .filter(text => text.textContent.trim() && text.getBoundingClientRect().width >= 1)
  .map(text => {
    const m = text.getScreenCTM();
    return [text.textContent.trim().slice(0, 20),
            parseFloat(getComputedStyle(text).fontSize) * (m ? Math.hypot(m.a, m.b) : 1)];
  }).filter(([, size]) => size < 11.95).slice(0, 5)"""

# Display formulas wider than their column (KaTeX's box overhangs by up to 2 px on its own).
WIDE_FORMULAS_JS = """() => [...document.querySelectorAll('[data-testid=stMain] .katex-display')]
  .filter(box => box.getBoundingClientRect().width > 0 && box.scrollWidth > box.clientWidth + 3)
  .map(box => [box.textContent.slice(0, 30), box.scrollWidth, box.clientWidth])"""


def formulas_left_wide(page) -> list:
    """The formulas still wider than their column once the fonts have loaded and ui/formula_fit.js
    has had its frame: it fits them at the frame after a change (a font arriving is one)."""
    page.wait_for_function("() => document.fonts.status === 'loaded'", timeout=30_000)
    with contextlib.suppress(PlaywrightTimeout):  # the assertion shows which stayed wide
        page.wait_for_function(f"() => ({WIDE_FORMULAS_JS})().length === 0", timeout=5_000)
    return page.evaluate(WIDE_FORMULAS_JS)


# The similarity matrix's plot area (plotly's drag rectangle over it): width and height.
SQUARE_JS = """() => {
  const box = document.querySelector('.st-key-matrix_chart .nsewdrag').getBoundingClientRect();
  return [box.width, box.height];
}"""


@pytest.mark.parametrize("path", ["/similarity?lang=zh", "/tour?slide=5&lang=zh"])
def test_the_similarity_matrix_is_square_on_a_phone(browser, app_url, path):
    """Its diagonals at 45°, on the page and on the tour's slide 5 (a 128 x 128 matrix was a
    181 x 390 rectangle)."""
    seen = phone_page(browser, app_url)
    try:
        seen.open(path, charts=1, timeout=120_000)
        seen.page.wait_for_selector(".st-key-matrix_chart .nsewdrag", timeout=60_000)
        width, height = seen.page.evaluate(SQUARE_JS)
    finally:
        seen.close()
    assert width > 150 and abs(width - height) <= 2, (width, height)


BADLY_BROKEN_JS = """() => [...document.querySelectorAll('.js-plotly-plot .main-svg text')]
  .filter(text => text.querySelectorAll('tspan.line').length > 1)
  .flatMap(text => [...text.querySelectorAll('tspan.line')].map(line => line.textContent))
  .filter(line => /^[)\\]}）】」』，。、：；！？]/.test(line) || /[(\\[{（【「『]$/.test(line))"""


# The RoPE rotation's three circles as drawn: each panel's domains and the y axis's range.
PANELS_JS = """() => {
  const layout = document.querySelector('.st-key-rotation_chart .js-plotly-plot')._fullLayout;
  return ['', '2', '3'].map(n => ({x: layout['xaxis' + n].domain, y: layout['yaxis' + n].domain,
                                   range: layout['yaxis' + n].range}));
}"""


def test_panels_stack_on_a_phone_and_stand_side_by_side_when_wide(browser, app_url):
    seen = phone_page(browser, app_url)
    try:
        seen.open("/rope?view=rotation&lang=en", charts=1)
        seen.page.wait_for_selector(".st-key-rotation_chart .js-plotly-plot .main-svg")
        panels = seen.page.evaluate(PANELS_JS)
        # One column, top to bottom in reading order, each panel the plot's full width.
        assert all(p["x"] == [0, 1] for p in panels), panels
        assert panels[0]["y"][0] > panels[1]["y"][1] and panels[1]["y"][0] > panels[2]["y"][1]
        # Square panels show the unit circle (a narrow panel stretched y to +-6: dots).
        assert all(max(abs(v) for v in p["range"]) < 2 for p in panels), panels
        # Turned into a wide screen: side by side again, without a rerun.
        seen.page.set_viewport_size({"width": 1280, "height": 800})
        seen.page.wait_for_function(f"() => ({PANELS_JS})()[0].x[1] < 0.5")
        wide = seen.page.evaluate(PANELS_JS)
        assert wide[0]["x"][1] <= wide[1]["x"][0] and wide[1]["x"][1] <= wide[2]["x"][0], wide
        assert all(p["y"] == wide[0]["y"] for p in wide), wide
    finally:
        seen.close()


# The clocks as drawn: each clock's centre (its label, 1.25 above it), and each hand's tip.
CLOCKS_JS = """() => {
  const gd = document.querySelector('.st-key-clock_chart .js-plotly-plot');
  const [labels, tips] = [gd._fullData[1], gd._fullData[3]];
  const box = selector => [...gd.querySelectorAll(selector)].map(e => e.getBoundingClientRect())
    .map(r => ({top: r.top, bottom: r.bottom, left: r.left, right: r.right}));
  return {x: Array.from(labels.x), y: Array.from(labels.y).map(v => v - 1.25),
          tipX: Array.from(tips.x), tipY: Array.from(tips.y),
          buttons: box('.updatemenu-button'), rail: box('.slider-rail-rect'),
          label: box('.slider-group > text.slider-label')};  // the current value
}"""
TURN = """() => {
  const gd = document.querySelector('.st-key-clock_chart .js-plotly-plot');
  return window.__pePlotly.animate(gd, ['40'], {mode: 'immediate', transition: {duration: 0},
                                                frame: {duration: 0, redraw: false}});
}"""


def test_the_clocks_flow_three_to_a_row_on_a_phone_and_turn_in_place(browser, app_url):
    """On a phone the clocks are laid out again, fewer to a row (their labels fit), the hands
    of every animation frame move with their clocks, and the slider sits below the play and
    pause buttons; turned wide, eight to a row again."""
    seen = phone_page(browser, app_url)
    try:
        seen.open("/wavelengths?view=clocks&lang=en", charts=1)
        seen.page.wait_for_selector(".st-key-clock_chart .slider-rail-rect")
        drawn = seen.page.evaluate(CLOCKS_JS)
        assert len(drawn["x"]) == 13  # the default pairs (clock_pairs)
        assert 2 <= len({round(x, 3) for x in drawn["x"]}) <= 4, drawn["x"]
        assert [round(y, 3) for y in drawn["y"]] == sorted((round(y, 3) for y in drawn["y"]),
                                                           reverse=True)  # reading order
        seen.page.evaluate(TURN)
        seen.page.wait_for_function("() => document.querySelector("
                                    "'.st-key-clock_chart .js-plotly-plot').layout.sliders[0]"
                                    ".active === 40")
        turned = seen.page.evaluate(CLOCKS_JS)
        assert turned["tipX"] != drawn["tipX"]
        for x, y, tip_x, tip_y in zip(turned["x"], turned["y"], turned["tipX"], turned["tipY"],
                                      strict=True):  # each hand on its own unit circle
            assert abs(math.hypot(tip_x - x, tip_y - y) - 1) < 1e-3, (x, y, tip_x, tip_y)
        lowest_button = max(b["bottom"] for b in turned["buttons"])
        assert turned["rail"] and turned["label"]
        assert all(r["top"] > lowest_button for r in turned["rail"] + turned["label"]), turned
        seen.page.set_viewport_size({"width": 1280, "height": 800})
        seen.page.wait_for_function(
            f"() => new Set(({CLOCKS_JS})().x.map(x => x.toFixed(3))).size === 8")
        wide = seen.page.evaluate(CLOCKS_JS)
        assert len({round(y, 3) for y in wide["y"]}) == 2
    finally:
        seen.close()
