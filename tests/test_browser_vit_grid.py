"""The vit-grid page in headless Chromium, opened by deep links: charts drawn, no exception, no
dialog; screenshots in test-artifacts/."""

from __future__ import annotations

import pytest

from tests import browser_support

pytestmark = pytest.mark.browser


def test_vit_grid_deep_link(browser_page):
    browser_page.open(
        "/vit-grid?grid_h=6&grid_w=10&d_model=128&cls_token=false&patch=2,7", charts=2
    )
    page = browser_page.page
    assert browser_support.shown_value(page, "grid_w") == "10"
    assert page.get_by_label("selected patch (row,col)", exact=True).input_value() == "2,7"
    page.get_by_text("Patch (2, 7) against every patch").first.wait_for(
        state="attached", timeout=30_000)
    assert browser_page.exceptions() == []
    assert browser_page.dialogs == []
    browser_page.screenshot("vit-grid")
    browser_page.open("/vit-grid?grid_h=6&grid_w=10&d_model=128&view=halves", charts=1)
    assert page.get_by_text("The two halves", exact=True).is_visible()
    browser_page.screenshot("vit-grid-halves")


def test_vit_grid_large_grid_and_preset(browser_page):
    browser_page.open("/vit-grid?grid_h=64&grid_w=64&d_model=256", charts=2)
    page = browser_page.page
    page.get_by_text("14 x 14 of the 64 x 64 patches").first.wait_for(
        state="attached", timeout=30_000)
    browser_page.screenshot("vit-grid-64")
    page.get_by_role("button", name="ViT-B/16").click()
    browser_page.wait_idle()
    page.wait_for_function("() => location.search.includes('grid_h') === false")  # default
    page.get_by_text("(197, 768)").first.wait_for(state="attached", timeout=30_000)
    assert browser_page.exceptions() == []
