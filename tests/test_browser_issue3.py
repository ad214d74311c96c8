"""The wavelengths, similarity and vit-grid pages in headless Chromium: opened by deep links with
non-default parameters, charts drawn, no exception, no dialog; screenshots in test-artifacts/."""

from __future__ import annotations

import pytest

from tests import browser_support

pytestmark = pytest.mark.browser


def test_wavelengths_deep_link(browser_page):
    browser_page.open("/wavelengths?d_model=256&positions=300&base=5000&dims=0,1,100,101", charts=2)
    page = browser_page.page
    assert browser_support.shown_value(page, "d_model") == "256"
    assert page.get_by_label("dimensions to plot", exact=True).input_value() == "0,1,100,101"
    # the legend
    page.get_by_text("dim 100: sin, i=50").first.wait_for(state="attached", timeout=30_000)
    assert page.get_by_text("The progression, in numbers", exact=True).is_visible()
    assert browser_page.exceptions() == []
    assert browser_page.dialogs == []
    browser_page.screenshot("wavelengths")


def test_wavelengths_clock_slider_moves_the_hands(browser_page):
    browser_page.open("/wavelengths?d_model=64&positions=50&view=clocks", charts=1)
    page = browser_page.page
    assert page.get_by_text("Clocks", exact=True).is_visible()
    clock = page.locator(".js-plotly-plot").nth(0)
    # The article's sin(7) = sin(0.23π); the chart's text may paint after its svg exists.
    clock.get_by_text("pos 7: 0.23π").first.wait_for(timeout=15_000)
    assert clock.get_by_text("pos 7: 0.23π").count() == 1
    rail = clock.locator(".slider-rail-touch-rect")  # plotly's clickable slider rail
    rail.click(position={"x": 9, "y": 10})  # its left end: position 0
    # The slider animates to its frame: wait for it (a fixed pause is flaky on a loaded machine).
    clock.get_by_text("pos 0: 0.00π").first.wait_for(timeout=15_000)
    assert browser_page.exceptions() == []


def test_similarity_deep_link(browser_page):
    query = "d_model=128&positions=600&anchor=300&offset=12&metric=dot&pair=2"
    browser_page.open(f"/similarity?{query}", charts=1)
    page = browser_page.page
    assert browser_support.shown_value(page, "anchor") == "300"
    assert page.get_by_role("radio", name="dot").is_checked()
    assert page.get_by_text("Toeplitz: constant along diagonals").is_visible()
    browser_page.screenshot("similarity")
    # Each section has its own link; clicking another section shows it in place.
    page.locator('[data-testid="stRadio"] label').filter(has_text="rotation").click()
    browser_page.wait_idle()
    page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length === 2")
    assert page.get_by_text("A shift by k is a rotation").is_visible()
    assert "view=rotation" in page.url
    browser_page.screenshot("similarity-rotation")
    browser_page.open(f"/similarity?{query}&view=offset", charts=1)
    assert page.get_by_text("Distance vs dot product", exact=True).is_visible()
    browser_page.screenshot("similarity-offset")
    assert browser_page.exceptions() == []
    assert browser_page.dialogs == []


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


def test_bad_urls_show_notices_not_tracebacks(browser_page):
    browser_page.open("/vit-grid?patch=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E&d_model=6",
                      charts=2)
    text = "\n".join(browser_page.page.locator('[data-testid="stAlert"]').all_inner_texts())
    assert "patch=<img src=x onerror=alert(1)> is not allowed" in text
    assert "d_model=6 is not allowed" in text
    assert browser_page.dialogs == []
    assert browser_page.exceptions() == []
    browser_page.screenshot("vit-grid-bad-url")
    browser_page.open("/wavelengths?dims=0,999999&metric=x", charts=2)
    text = "\n".join(browser_page.page.locator('[data-testid="stAlert"]').all_inner_texts())
    assert "dims=999999 is not allowed" in text
    browser_page.open("/similarity?positions=99999&metric=euclid", charts=1)
    text = "\n".join(browser_page.page.locator('[data-testid="stAlert"]').all_inner_texts())
    assert "positions=99999 is not allowed" in text and "metric=euclid is not allowed" in text
    assert browser_page.exceptions() == []
