"""The order page in headless Chromium: a click on a cell of the head map draws that head (its
layer and head sliders, the URL and the attention chart follow)."""

from __future__ import annotations

import pytest

from locales import message
from tests import browser_support

pytestmark = pytest.mark.browser


def test_clicking_a_head_map_cell_selects_that_head(browser_page):
    browser_page.open("/order", charts=2)
    page = browser_page.page
    assert (browser_support.shown_value(page, "layer"),
            browser_support.shown_value(page, "head")) == ("1", "1")
    plot = page.locator(".st-key-order_change_chart .js-plotly-plot")
    plot.scroll_into_view_if_needed()
    # The cell of layer 4, head 9, from the plot's own axes (x: head, y: layer).
    x, y = plot.evaluate("""gd => {
        const l = gd._fullLayout, box = gd.querySelector('.nsewdrag').getBoundingClientRect();
        return [box.left + l.xaxis.l2p(l.xaxis.d2l(9)), box.top + l.yaxis.l2p(l.yaxis.d2l(4))];
    }""")
    page.mouse.click(x, y)
    page.wait_for_function(
        "() => new URL(location.href).searchParams.get('head') === '9'", timeout=30_000)
    browser_page.wait_idle()
    assert "layer=4" in page.url
    assert (browser_support.shown_value(page, "layer"),
            browser_support.shown_value(page, "head")) == ("4", "9")
    title = page.locator(".st-key-order_attention_chart .gtitle").first.text_content()
    assert title == message("fig.order.pair_title", "en", layer=4, head=9)
    assert browser_page.exceptions() == []


def test_dragging_the_head_slider_draws_each_head_before_the_release(browser_page):
    """The head slider's value reaches the server on release; the charts carry every head's
    picture and draw the one under the pointer at each step of the drag (live states)."""
    browser_page.open("/order", charts=2)
    page = browser_page.page
    slider = page.locator('.st-key-head [data-testid="stSlider"]').first
    slider.scroll_into_view_if_needed()
    thumb = page.locator('.st-key-head [data-testid="stSliderThumbValue"]').first.bounding_box()
    rail = slider.bounding_box()
    pair = page.locator(".st-key-order_attention_chart .js-plotly-plot")
    outline = page.locator(".st-key-order_change_chart .js-plotly-plot")
    page.evaluate("""() => {
        window.__peRuns = 0;
        const app = document.querySelector('[data-testid="stApp"]');
        new MutationObserver(() => {
            if (app.dataset.testScriptState === "running") window.__peRuns += 1;
        }).observe(app, { attributes: true });
    }""")
    y = thumb["y"] + thumb["height"] + 8  # on the track, under the thumb's number
    page.mouse.move(thumb["x"] + thumb["width"] / 2, y)
    page.mouse.down()
    titles, cells = [], []
    for step in range(1, 21):  # 20 steps across the track, as a one-second drag
        page.mouse.move(rail["x"] + rail["width"] * step / 21, y)
        page.wait_for_timeout(50)
        titles.append(pair.evaluate("gd => gd.layout.title.text"))
        cells.append(outline.evaluate("gd => gd.layout.shapes[0].x0"))
    assert page.evaluate("() => window.__peRuns") == 0  # nothing asked of the server yet
    assert len(set(titles)) >= 8 and len(set(cells)) >= 8, (titles, cells)
    assert titles[-1] == "<b>" + message("fig.order.pair_title", "en", layer=1, head=12) + "</b>"
    page.mouse.up()
    page.wait_for_function(
        "() => new URL(location.href).searchParams.get('head') === '12'", timeout=30_000)
    browser_page.wait_idle()
    assert browser_support.shown_value(page, "head") == "12"
    assert browser_page.exceptions() == []
