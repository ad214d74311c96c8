"""The home page in headless Chromium: why sines and cosines, three pictures whose sliders move
the picture while the pointer moves (plotly's own sliders: no server round trip)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

# The drawn state of each picture: the anchor's x (similarity), the first arrow's end (shift).
STATE = {
    "home_why_nearby": "gd => String(gd.data[1].x[0])",
    "home_why_shift": "gd => String(gd.data[1].x[1])",
}


def drag_slider(page, chart, read: str, *, steps: int = 20) -> tuple[list[str], int]:
    """Press the slider's grip, move the mouse across its rail in `steps` steps over ~1 s, then
    release, as a person does: the states drawn after each step, and the script runs started."""
    plot = chart.locator(".js-plotly-plot")
    grip = plot.locator(".slider-grip-rect").first
    rail = plot.locator(".slider-rail-rect").first
    grip.scroll_into_view_if_needed()
    g, r = grip.bounding_box(), rail.bounding_box()
    y = g["y"] + g["height"] / 2
    page.mouse.move(g["x"] + g["width"] / 2, y)
    page.mouse.down()
    runs = page.evaluate("() => (window.__peRuns = 0)")
    page.evaluate("""() => {
        const app = document.querySelector('[data-testid="stApp"]');
        new MutationObserver(() => {
            if (app.dataset.testScriptState === "running") window.__peRuns += 1;
        }).observe(app, { attributes: true });
    }""")
    states = []
    for i in range(1, steps + 1):
        page.mouse.move(r["x"] + r["width"] * i / (steps + 1), y)
        page.wait_for_timeout(50)
        states.append(plot.evaluate(read))
    page.mouse.up()
    page.wait_for_timeout(300)
    runs = page.evaluate("() => window.__peRuns")
    return states, runs


def test_home_opens_on_why_sines_and_cosines_and_its_sliders_move_in_the_browser(browser_page):
    browser_page.open("/", charts=4)
    page = browser_page.page
    heading = page.get_by_role("heading", name="Why sines and cosines?")
    assert heading.is_visible()
    first_chart = page.locator('.st-key-home_why_code')
    # the reason comes before the formula's picture
    assert heading.bounding_box()["y"] < first_chart.bounding_box()["y"] < (
        page.locator('.st-key-home_picture').bounding_box()["y"])
    for key, read in STATE.items():
        chart = page.locator(f".st-key-{key}")
        before = chart.locator(".js-plotly-plot").evaluate(read)
        states, runs = drag_slider(page, chart, read)
        drawn = len(set(states) - {before})
        assert drawn >= 8, (key, states)  # the picture follows the pointer
        assert runs == 0, key  # with no server round trip
    assert browser_page.exceptions() == []
    browser_page.screenshot("home-why")
