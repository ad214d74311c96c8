"""The wavelengths page in headless Chromium, opened by deep links: charts drawn, no exception, no
dialog; screenshots in test-artifacts/."""

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
    page.get_by_text("dim 100: sin, λ=").first.wait_for(state="attached", timeout=30_000)
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
