"""The extrapolation page in headless Chromium, opened by deep links: charts drawn, no exception,
no dialog; screenshots in test-artifacts/."""

from __future__ import annotations

import pytest

from tests import browser_support

pytestmark = pytest.mark.browser


def _drawn_charts(browser_page) -> int:
    return browser_page.page.locator(".js-plotly-plot .main-svg").count()


def _screenshot_whole_page(browser_page, name: str) -> None:
    """Streamlit scrolls inside its main section, so a full-page screenshot shows only the top:
    grow the viewport to the content's height first, let plotly re-lay out, then shoot."""
    page = browser_page.page
    height = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll('section, [data-testid=stMain]')]"
        ".map(e => e.scrollHeight), document.body.scrollHeight)"
    )
    page.set_viewport_size({"width": 1400, "height": min(int(height) + 100, 12000)})
    page.wait_for_timeout(1000)
    browser_page.screenshot(name)


def test_extrapolation_deep_link(browser_page):
    browser_page.open("/extrapolation?train_length=1024&target_length=6000&d_model=256", charts=3)
    page = browser_page.page
    assert browser_support.shown_value(page, "train_length") == "1024"
    assert browser_support.shown_value(page, "target_length") == "6000"
    page.get_by_text("RoPE (d_head = 256)").first.wait_for(state="attached", timeout=30_000)
    assert page.get_by_text("RoPE (d_head = 256)").count() == 1
    assert _drawn_charts(browser_page) >= 3
    assert browser_page.exceptions() == []
    assert browser_page.dialogs == []
    _screenshot_whole_page(browser_page, "extrapolation-deep-link")
