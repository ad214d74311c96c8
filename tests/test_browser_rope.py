"""The RoPE page in headless Chromium, opened by deep links: charts drawn, no exception, no dialog;
screenshots in test-artifacts/."""

from __future__ import annotations

import pytest

from tests import browser_support
from tests.browser_support import (
    chart_keys,
    click_section,
    option_label,
    screenshot_whole_page,
)

pytestmark = pytest.mark.browser


ROPE_LINK = ("/rope?d_head=64&base=500000&layout=half_split&positions=300"
             "&scaling=position_interpolation&factor=8")


def test_rope_deep_link(browser_page):
    browser_page.open(f"{ROPE_LINK}&view=relative", charts=1)
    page = browser_page.page
    assert browser_support.shown_value(page, "d_head") == "64"
    assert browser_support.shown_value(page, "base") == "500000"
    for value in ("half_split", "position_interpolation", "relative"):
        assert page.get_by_role("radio", name=option_label(value), exact=True).is_checked()
    assert page.get_by_text("Relative position without adding anything").is_visible()
    assert chart_keys(page) == ["logits_chart"]
    screenshot_whole_page(browser_page, "rope-deep-link")
    browser_page.open(f"{ROPE_LINK}&view=extension", charts=1)
    page.get_by_text("Context extension ×8").first.wait_for(state="attached", timeout=30_000)
    assert chart_keys(page) == ["extension_chart"]
    click_section(browser_page, "decay")  # the page's controls stay as the link set them
    assert chart_keys(page) == ["decay_chart"]
    assert browser_support.shown_value(page, "d_head") == "64"
    assert "layout=half_split" in page.url  # a view's own control, kept for its views
    click_section(browser_page, "extension")  # the extension's own factor, as it was
    assert browser_support.shown_value(page, "factor") == "8"
    page.wait_for_function("() => location.search.includes('factor=8')", timeout=10_000)
    assert browser_page.exceptions() == []
    assert browser_page.dialogs == []
    screenshot_whole_page(browser_page, "rope-decay")


def test_rope_link_without_view_opens_the_rotation(browser_page):
    browser_page.open(ROPE_LINK, charts=1)
    page = browser_page.page
    assert page.get_by_role("radio", name=option_label("rotation"), exact=True).is_checked()
    assert chart_keys(page) == ["rotation_chart"]
    assert page.get_by_text("RoFormer (Su et al. 2021)").is_visible()  # the intro stays on top
    assert browser_page.exceptions() == []


def test_bad_url_values_show_notices_not_tracebacks(browser_page):
    browser_page.open("/rope?d_head=7&scaling=%3Cb%3Eyarn%3C%2Fb%3E&view=everything", charts=1)
    text = "\n".join(browser_page.page.locator('[data-testid="stAlert"]').all_inner_texts())
    assert "d_head=7 is not allowed" in text
    assert "scaling=<b>yarn</b> is not allowed" in text  # literal, not HTML
    assert "view=everything is not allowed" in text
    assert chart_keys(browser_page.page) == ["rotation_chart"]  # the default section
    assert browser_page.exceptions() == []
    assert browser_page.dialogs == []
    screenshot_whole_page(browser_page, "rope-bad-url")
