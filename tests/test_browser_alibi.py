"""The ALiBi page in headless Chromium, opened by deep links: charts drawn, no exception, no
dialog; screenshots in test-artifacts/."""

from __future__ import annotations

import pytest

from tests import browser_support
from tests.browser_support import chart_keys, click_section, screenshot_whole_page

pytestmark = pytest.mark.browser


def test_alibi_deep_link(browser_page):
    browser_page.open("/alibi?num_heads=12&positions=64&causal=false&head=10&view=head", charts=1)
    page = browser_page.page
    assert browser_support.shown_value(page, "num_heads") == "12"
    assert browser_support.shown_value(page, "head") == "10"
    page.get_by_text("Head 10: bias").first.wait_for(state="attached", timeout=30_000)
    assert chart_keys(page) == ["head_chart"]
    screenshot_whole_page(browser_page, "alibi-deep-link")
    for view, key in (("slopes", "slopes_chart"), ("heads", "bias_grid_chart"),
                      ("reach", "reach_chart")):
        click_section(browser_page, view)
        assert chart_keys(page) == [key], view
        assert browser_support.shown_value(page, "num_heads") == "12"
    assert browser_page.exceptions() == []
    assert browser_page.dialogs == []
