"""The heatmap's worked entry follows the pointer, in headless Chromium: a cell's hover label
works its formula (plotly.js reads the cell's data, the column's function from the x axis's
label aliases), and a click on a cell makes it the worked entry (the number boxes, the URL, the
formula and the outline follow). What only a browser shows: the figure's data are checked in
tests/test_figures_heatmap.py."""

from __future__ import annotations

import math

import pytest

from tests import browser_support

pytestmark = pytest.mark.browser

# The cell (dim, pos) where the plot's own axes put it, in page pixels.
CELL_AT = """(gd, [dim, pos]) => {
    const l = gd._fullLayout, box = gd.querySelector('.nsewdrag').getBoundingClientRect();
    return [box.left + l.xaxis.l2p(l.xaxis.d2l(dim)), box.top + l.yaxis.l2p(l.yaxis.d2l(pos))];
}"""


def test_hovering_a_cell_works_its_formula_and_a_click_works_it_below(browser_page):
    browser_page.open("/heatmap?d_model=16&positions=12&layout=concatenated"
                      "&timescales=tensor2tensor", charts=2)
    page = browser_page.page
    plot = page.locator(".st-key-heatmap_chart .js-plotly-plot")
    plot.scroll_into_view_if_needed()
    # tensor2tensor's concatenated table: dimension 11 is the cosine of pair 11 - 8 = 3, whose
    # timescale is 10000^(3/7).
    denominator = 10000 ** (3 / 7)
    angle = 5 / denominator
    page.mouse.move(*plot.evaluate(CELL_AT, [11, 5]))
    label = page.locator(".hoverlayer .hovertext")
    label.wait_for(timeout=10_000)
    assert label.text_content() == (f"PE(5, 11) = cos(5 / {denominator:.6g}) = "
                                    f"cos({angle:.6g}) = {math.cos(angle):.6f}")
    # plotly.js clicks the point its last hover found: over the cell first, as a pointer is.
    target = plot.evaluate(CELL_AT, [13, 3])
    page.mouse.move(*target)
    page.wait_for_function("() => document.querySelector('.hoverlayer .hovertext')"
                           "?.textContent.startsWith('PE(3, 13)')", timeout=10_000)
    page.mouse.click(*target)
    page.wait_for_function(
        "() => new URL(location.href).searchParams.get('dim') === '13'", timeout=30_000)
    browser_page.wait_idle()
    assert "pos=3" in page.url
    assert (browser_support.shown_value(page, "pos"),
            browser_support.shown_value(page, "dim")) == ("3", "13")
    formula = page.locator('[data-testid="stMain"] .katex-display annotation').first
    assert formula.text_content().startswith(r"\begin{aligned}PE_{(3,\,13)} &= \cos")
    outline = plot.evaluate("gd => gd.layout.shapes.map(s => [s.x0, s.x1, s.y0, s.y1])")
    assert outline == [[12.5, 13.5, 2.5, 3.5]]
    assert browser_page.exceptions() == []
