"""The similarity page in headless Chromium, opened by deep links: charts drawn, no exception, no
dialog; screenshots in test-artifacts/."""

from __future__ import annotations

import pytest

from tests import browser_support
from tests.browser_support import option_label, radio_option

pytestmark = pytest.mark.browser


def test_similarity_deep_link(browser_page):
    query = "d_model=128&positions=600&anchor=300&offset=12&metric=dot&pair=2"
    browser_page.open(f"/similarity?{query}", charts=1)
    page = browser_page.page
    # the matrix view's own control
    assert page.get_by_role("radio", name=option_label("dot"), exact=True).is_checked()
    assert page.locator(".st-key-anchor").count() == 0  # the other views' are theirs
    assert page.get_by_text("Toeplitz: constant along diagonals").is_visible()
    browser_page.screenshot("similarity")
    # Each section has its own link; clicking another section shows it in place, with the
    # values the link gave its controls although the first view did not show them.
    radio_option(page, "view", "rotation").click()
    browser_page.wait_idle()
    page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length === 2")
    assert page.get_by_text("A shift by k is a rotation").is_visible()
    assert "view=rotation" in page.url
    assert browser_support.shown_value(page, "anchor") == "300"
    assert browser_support.shown_value(page, "offset") == "12"
    assert browser_support.shown_value(page, "pair") == "2"
    assert "anchor=300" in page.url
    browser_page.screenshot("similarity-rotation")
    browser_page.open(f"/similarity?{query}&view=offset", charts=1)
    assert page.get_by_text("Distance vs dot product", exact=True).is_visible()
    browser_page.screenshot("similarity-offset")
    assert browser_page.exceptions() == []
    assert browser_page.dialogs == []
