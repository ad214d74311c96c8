"""Controls in headless Chromium: sliders moved by the keyboard, the exact-value box, controls a
view does not use out of sight with their values kept in the address bar."""

from __future__ import annotations

import pytest

from tests import browser_support
from tests.conftest import new_page
from tests.test_browser_share import shown_link

pytestmark = pytest.mark.browser


def test_hidden_controls_keep_their_values_in_the_link(browser, app_url):
    seen = new_page(browser, app_url)
    try:
        seen.open("/rope?view=extension&layout=half_split&positions=300&d_head=64", charts=1)
        page = seen.page
        assert not page.locator(".st-key-layout").is_visible()
        assert not page.locator(".st-key-positions").is_visible()
        assert page.locator(".st-key-factor").is_visible()
        # A slider moved by the keyboard: factor 4 -> 5.
        page.locator(".st-key-factor input[type=range]").focus()
        page.keyboard.press("ArrowRight")
        seen.wait_idle()
        page.wait_for_function("() => location.search.includes('factor=5')")
        for kept in ("layout=half_split", "positions=300", "d_head=64", "view=extension"):
            assert kept in page.url, (kept, page.url)
        page.wait_for_timeout(400)
        assert "layout=half_split" in shown_link(seen)
        # Back to a view whose logits follow the layout (the relative logit; the rotation view's
        # pairs turn the same in either, so it does not show it): it shows with its value.
        browser_support.radio_option(page, "view", "relative").click()
        seen.wait_idle()
        assert page.locator(".st-key-layout").is_visible()
        assert browser_support.radio_option(page, "layout", "half_split").locator(
            "input").is_checked()
        assert seen.exceptions() == []
        seen.screenshot("controls-rope-rotation")
    finally:
        seen.close()


def test_exact_box_sets_a_width_between_the_stops(browser, app_url):
    seen = new_page(browser, app_url)
    try:
        seen.open("/heatmap?positions=32", charts=2)
        page = seen.page
        page.locator(".st-key-_exact_box_d_model button").first.click()
        box = page.locator(".st-key-_exact_d_model input")
        box.wait_for()
        box.fill("768")
        box.press("Enter")
        seen.wait_idle()
        page.wait_for_function("() => location.search.includes('d_model=768')")
        page.keyboard.press("Escape")
        seen.wait_idle()
        assert "32 positions x 768 dimensions" in page.locator("body").inner_text()
        assert seen.exceptions() == []
        seen.screenshot("controls-exact-d-model")
    finally:
        seen.close()


def test_a_stops_slider_moved_by_the_keyboard_keeps_its_value(browser, app_url):
    """d_model 128 -> 160 by the arrow key, then another control: the slider, the URL and the
    page all say 160. (A session's first rerun once got a NewSession message naming the script
    differently from its first run's, and the browser put every widget back to its default: the
    slider showed 128 while the URL kept 160.)"""
    seen = new_page(browser, app_url)
    try:
        seen.open("/heatmap", charts=2)
        page = seen.page
        thumb = page.locator('.st-key-d_model [data-testid="stSliderThumbValue"]')
        assert thumb.inner_text().strip() == "128"
        page.locator(".st-key-d_model input[type=range]").focus()
        page.keyboard.press("ArrowRight")
        seen.wait_idle()
        page.wait_for_function("() => location.search.includes('d_model=160')")
        page.locator(".st-key-positions input[type=range]").focus()
        page.keyboard.press("ArrowRight")
        seen.wait_idle()
        page.wait_for_function("() => location.search.includes('positions=')")
        seen.wait_idle()
        assert thumb.inner_text().strip() == "160"
        assert "d_model=160" in page.url
        assert "x 160 dimensions" in page.locator("body").inner_text()
        assert seen.exceptions() == []
    finally:
        seen.close()
