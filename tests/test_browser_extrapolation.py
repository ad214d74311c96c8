"""The extrapolation page in headless Chromium, opened by deep links: charts drawn, no exception,
no dialog; screenshots in test-artifacts/."""

from __future__ import annotations

import pytest

from tests import browser_support
from tests.browser_support import screenshot_whole_page

pytestmark = pytest.mark.browser


def _drawn_charts(browser_page) -> int:
    return browser_page.page.locator(".js-plotly-plot .main-svg").count()


def test_extrapolation_deep_link(browser_page):
    browser_page.open("/extrapolation?train_length=1024&target_length=6000&d_model=256", charts=3)
    page = browser_page.page
    assert browser_support.shown_value(page, "train_length") == "1024"
    assert browser_support.shown_value(page, "target_length") == "6000"
    rope = page.get_by_text("RoPE (256 dimensions per head)")
    rope.first.wait_for(state="attached", timeout=30_000)
    assert rope.count() == 1
    assert _drawn_charts(browser_page) >= 3
    assert browser_page.exceptions() == []
    assert browser_page.dialogs == []
    screenshot_whole_page(browser_page, "extrapolation-deep-link")
