"""The order page in headless Chromium: a click on a cell of the head map draws that head (its
layer and head sliders, the URL and the attention chart follow). Its sliders' drags:
tests/test_browser_live_controls.py."""

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

