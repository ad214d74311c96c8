"""Live controls in headless Chromium: a view's slider dragged with the mouse, as a person drags
it (pressed, moved across the track in 20 steps over a second, released), redraws its chart at
each step before the release, with no script run; on release the value lands in the URL and
the server draws it (ui/plotly_react.js, figures.common.add_live_states).

That each state is the server's picture at that value is checked in Python, chart by chart
(tests/live_states.py); here, that the browser draws them while the thumb moves."""

from __future__ import annotations

import pytest

from tests import browser_support
from tests.browser_support import LIVE_CONTROLS

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("path", sorted(LIVE_CONTROLS))
def test_dragging_a_views_slider_moves_its_chart_before_the_release(browser_page, path):
    page = browser_page.page
    browser_page.open(path)
    for key, chart, rightward in LIVE_CONTROLS[path]:
        # Eight states at least, or every stop of a shorter slider (the order page's 6 layers).
        low, high, step = page.locator(f".st-key-{key} input[type=range]").first.evaluate(
            "e => [Number(e.min), Number(e.max), Number(e.step) || 1]")
        wanted = min(8, round((high - low) / step) + 1)
        drag = browser_support.drag_live(page, key, chart, rightward=rightward, release=False)
        shown = browser_support.shown_value(page, key)
        assert drag.runs == 0, f"{key}: the server ran during the drag"
        assert len(set(drag.states)) >= wanted, (key, wanted, drag.states)
        page.mouse.up()
        page.wait_for_function(
            "([key, value]) => new URL(location.href).searchParams.get(key) === value",
            arg=[key, shown], timeout=30_000)
        browser_page.wait_idle()
        assert browser_support.shown_value(page, key) == shown
    assert browser_page.exceptions() == []
