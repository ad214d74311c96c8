"""The home and heatmap pages in headless Chromium: what a person sees."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def test_home_lists_the_pages(browser_page):
    browser_page.open("/", charts=0)
    page = browser_page.page
    assert page.get_by_role("heading", name="Positional Encoding Explorer").is_visible()
    assert page.locator('[data-testid="stPageLink"]').filter(has_text="Sinusoid heatmap").count()
    assert browser_page.exceptions() == []
    browser_page.screenshot("home")


def test_heatmap_default(browser_page):
    browser_page.open("/heatmap", charts=2)
    assert browser_page.exceptions() == []
    assert browser_page.page.get_by_text("The formula, worked").is_visible()
    browser_page.screenshot("heatmap")


def test_heatmap_deep_link_sets_controls_and_url_follows_clicks(browser_page):
    browser_page.open("/heatmap?d_model=64&positions=50&layout=concatenated", charts=2)
    page = browser_page.page
    assert page.get_by_role("spinbutton", name="d_model (even)").input_value() == "64"
    assert page.get_by_role("spinbutton", name="positions").input_value() == "50"
    assert page.get_by_role("radio", name="concatenated").is_checked()
    browser_page.screenshot("heatmap-deep-link")
    page.get_by_text("interleaved", exact=True).click()
    browser_page.wait_idle()
    page.wait_for_function("() => !location.search.includes('layout=')")  # default: dropped
    assert "d_model=64" in page.url
    assert browser_page.exceptions() == []


def test_heatmap_bad_url_shows_notice_not_traceback(browser_page):
    browser_page.open("/heatmap?d_model=7&base=nan&layout=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E",
                      charts=2)
    page = browser_page.page
    alerts = page.locator('[data-testid="stAlert"]').all_inner_texts()
    text = "\n".join(alerts)
    assert "d_model=7 is not allowed" in text
    assert "base=nan is not allowed" in text
    assert "layout=<img src=x onerror=alert(1)> is not allowed" in text  # literal, not HTML
    assert browser_page.exceptions() == []
    assert browser_page.dialogs == []
    browser_page.screenshot("heatmap-bad-url")


def test_heatmap_at_maximum_size_draws_an_overview(browser_page):
    browser_page.open("/heatmap?d_model=4096&positions=8192", charts=2)
    # The chart's text may paint after its svg exists: wait for it, a fixed check is flaky.
    browser_page.page.get_by_text("Overview: each cell is the mean").first.wait_for(timeout=30_000)
    assert browser_page.exceptions() == []
    browser_page.screenshot("heatmap-max")
