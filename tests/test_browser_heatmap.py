"""The home and heatmap pages in headless Chromium: what a person sees."""

from __future__ import annotations

import io

import numpy as np
import pytest

import core
from tests.browser_support import option_label, radio_option
from tests.conftest import ARTIFACTS

pytestmark = pytest.mark.browser


def test_home_lists_the_pages(browser_page):
    browser_page.open("/", charts=0)
    page = browser_page.page
    assert page.get_by_role("heading", name="Positional Encoding Explorer").is_visible()
    # the page list comes after the picture: wait for it (a loaded machine draws it later)
    page.locator('[data-testid="stPageLink"]').filter(has_text="Sinusoid heatmap").first.wait_for(
        timeout=30_000)
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
    # The sliders' thumbs show the link's values.
    assert page.locator('.st-key-d_model [data-testid="stSliderThumbValue"]').inner_text() == "64"
    assert (page.locator('.st-key-positions [data-testid="stSliderThumbValue"]').inner_text()
            == "50")
    assert page.get_by_role("radio", name=option_label("concatenated"), exact=True).is_checked()
    browser_page.screenshot("heatmap-deep-link")
    radio_option(page, "layout", "interleaved").click()
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
    browser_page.page.get_by_text("never a sine with a cosine").first.wait_for(timeout=30_000)
    assert browser_page.exceptions() == []
    browser_page.screenshot("heatmap-max")


def test_tensorflow_tutorial_table_downloads_exactly_and_says_what_it_hides(browser_page):
    """/heatmap?d_model=512&positions=2048: the chart is a resampled overview that names its
    too-fast columns; its .npy download is the exact 2048 x 512 table."""
    browser_page.open("/heatmap?d_model=512&positions=2048", charts=2)
    page = browser_page.page
    page.get_by_text("change faster than one cell").first.wait_for(timeout=30_000)
    browser_page.screenshot("heatmap-2048x512")
    page.locator(".st-key-heatmap_chart_export button").first.click()
    button = page.get_by_role("button", name=".npy (data)").first
    button.wait_for()
    with page.expect_download(timeout=60_000) as download_info:
        button.click()
    download = download_info.value
    assert download.suggested_filename == "pe-heatmap_d512_pos2048_interleaved.npy"
    path = ARTIFACTS / download.suggested_filename
    download.save_as(path)
    table = np.load(io.BytesIO(path.read_bytes()), allow_pickle=False)
    assert table.shape == (2048, 512)
    np.testing.assert_allclose(table, core.sinusoidal_encoding(2048, 512), atol=1e-6)
    assert browser_page.exceptions() == []
