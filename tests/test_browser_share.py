"""Sharing and presenting, in headless Chromium: the Chinese interface, presentation mode in both
themes and a PNG downloaded from the Export menu. Screenshots in test-artifacts/. (Every page's
state round-tripping through its link: tests/test_browser_control_effects.py, which sets every
control.)"""

from __future__ import annotations

import csv
import math
import re
import struct
from urllib.parse import parse_qsl, urlsplit

import numpy as np
import pytest

from locales import message
from tests.conftest import ARTIFACTS, BrowserPage, new_page
from ui.pages import HOME, PAGES

pytestmark = pytest.mark.browser

CJK = "[\u4e00-\u9fff]"


def same_link(a: str, b: str) -> bool:
    """The same page and parameters (in any order)."""
    first, second = urlsplit(a), urlsplit(b)
    return (first.scheme, first.netloc, first.path) == (second.scheme, second.netloc, second.path) \
        and sorted(parse_qsl(first.query)) == sorted(parse_qsl(second.query))


@pytest.mark.parametrize("page", [HOME, *PAGES], ids=lambda p: p.slug)
def test_every_page_in_chinese(browser_page, page):
    browser_page.open(f"/{page.url_path}?lang=zh", charts=0 if page is HOME else 1)
    seen = browser_page.page
    expected = message("app.title", "zh")
    if page is not HOME:
        expected = f"{page.title_in('zh')} · {expected}"
    assert seen.title() == expected
    heading = seen.locator("h1").first.inner_text()
    assert seen.evaluate(f"t => /{CJK}/.test(t)", heading), heading
    # The navigation lists every page by its Chinese title.
    nav = seen.locator('[data-testid="stSidebarNav"]').inner_text()
    assert all(p.title_in("zh") in nav for p in PAGES)
    assert browser_page.exceptions() == []
    browser_page.screenshot(f"zh-{page.slug}")


def test_the_browser_locale_chooses_the_language(browser, app_url):
    seen = new_page(browser, app_url, locale="zh-CN")
    try:
        seen.open("/heatmap", charts=1)
        assert seen.page.title().startswith(message("pages.heatmap.title", "zh"))
        assert "lang=" not in seen.page.url  # the default: nothing to put in the link
        # The switch to English goes into the URL.
        seen.page.locator(".st-key-lang label").filter(has_text="en").first.click()
        seen.wait_idle()
        seen.page.wait_for_function("() => location.search.includes('lang=en')")
        seen.page.wait_for_function("() => document.title.startsWith('Sinusoid heatmap')")
    finally:
        seen.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_presentation_mode_hides_the_explanations(browser, app_url, scheme):
    explanation = "positions x 64 dimensions"  # the heatmap's explanatory summary
    normal = new_page(browser, app_url, color_scheme=scheme)
    presenting = new_page(browser, app_url, color_scheme=scheme)
    try:
        normal.open("/heatmap?d_model=64&positions=64", charts=2)
        assert normal.page.locator('[data-testid="stMarkdown"]').filter(
            has_text=explanation).count() >= 1
        assert normal.page.locator('[data-testid="stSidebarNav"]').is_visible()
        presenting.open("/heatmap?d_model=64&positions=64&present=1", charts=2)
        page = presenting.page
        assert page.locator('[data-testid="stMarkdown"]').filter(has_text=explanation).count() == 0
        # The page list folded away with the sidebar, its opener faint in a see-through header.
        assert not page.locator('[data-testid="stSidebarNav"]').is_visible()
        assert page.locator('[data-testid="stExpandSidebarButton"]').is_visible()
        assert page.locator('[data-testid="stHeader"]').evaluate(
            "e => getComputedStyle(e).backgroundColor") in ("rgba(0, 0, 0, 0)", "transparent")
        assert "present=true" in page.url  # present=1 is kept, in Streamlit's spelling
        # Larger type in the figure: the axis title is drawn at the presentation size.
        size = page.locator(".js-plotly-plot .xtitle").first.evaluate(
            "e => parseFloat(getComputedStyle(e).fontSize)")
        assert size >= 20
        assert presenting.exceptions() == []
        presenting.screenshot(f"present-heatmap-{scheme}")
        normal.screenshot(f"heatmap-{scheme}")
    finally:
        normal.close()
        presenting.close()


def shown_link(seen: BrowserPage) -> str:
    """The text of the "Link to this view" element at the top of the page."""
    return seen.page.locator(".pe-link code").first.text_content().strip()


def test_export_menu_downloads_a_png(browser_page):
    browser_page.open("/heatmap?d_model=64&positions=32", charts=2)
    page = browser_page.page
    page.locator(".js-plotly-plot").first.wait_for()
    export = page.get_by_role("button", name="Export").first
    export.click()
    button = page.get_by_role("button", name="PNG 3840 x 2160").first
    button.wait_for()
    browser_page.screenshot("export-menu")
    button.click()  # drawn on the server in turn (the menu says so), then offered to save
    save = page.get_by_role("button", name=re.compile(r"^Save PNG 3840 x 2160")).first
    save.wait_for(timeout=60_000)
    with page.expect_download(timeout=60_000) as download_info:
        save.click()
    download = download_info.value
    assert download.suggested_filename == "pe-heatmap_d64_pos32_interleaved.png"
    path = ARTIFACTS / download.suggested_filename
    download.save_as(path)
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24]) == (3840, 2160)
    assert browser_page.exceptions() == []


def test_zoom_window_data_downloads_as_csv_with_the_exact_values(browser_page):
    """The zoom chart's Export menu (a menu inside the zoom fragment): its CSV holds the exact
    table, checked against the paper's formula computed here in float64."""
    browser_page.open("/heatmap?d_model=64&positions=32&zoom_pos=3&zoom_size=8", charts=2)
    page = browser_page.page
    page.locator(".st-key-zoom_chart_export button").first.click()
    button = page.get_by_role("button", name="CSV (data)").first
    button.wait_for()
    with page.expect_download(timeout=60_000) as download_info:
        button.click()
    download = download_info.value
    assert download.suggested_filename.startswith("pe-heatmap-zoom_d64_pos32_interleaved")
    path = ARTIFACTS / download.suggested_filename
    download.save_as(path)
    rows = list(csv.reader(path.read_text(encoding="utf-8").splitlines()))
    dims = [int(float(v)) for v in rows[0][1:]]
    assert dims == list(range(8))
    for row in rows[1:]:
        pos = int(float(row[0]))
        for dim, value in zip(dims, row[1:], strict=True):
            angle = pos / 10000 ** (2 * (dim // 2) / 64)
            expected = math.sin(angle) if dim % 2 == 0 else math.cos(angle)
            assert float(value) == pytest.approx(expected, abs=1e-6), (pos, dim)
    assert [int(float(r[0])) for r in rows[1:]] == list(range(3, 11))
    assert browser_page.exceptions() == []


def test_similarity_matrix_downloads_exactly_while_the_chart_is_resampled(browser_page):
    """600 positions are drawn as 400 x 400 resampled cells; the .npy is the exact (600, 600)
    cosine matrix, checked against sum_i cos(w_i (p - q)) / (d/2) computed here."""
    browser_page.open("/similarity?positions=600&d_model=32&metric=cosine", charts=1)
    page = browser_page.page
    page.locator(".st-key-matrix_chart_export button").first.click()
    button = page.get_by_role("button", name=".npy (data)").first
    button.wait_for()
    with page.expect_download(timeout=60_000) as download_info:
        button.click()
    download = download_info.value
    assert download.suggested_filename == "pe-similarity-matrix_d32_pos600_cosine.npy"
    path = ARTIFACTS / download.suggested_filename
    download.save_as(path)
    matrix = np.load(path, allow_pickle=False)
    omega = 10000.0 ** (-np.arange(0, 32, 2) / 32)
    offsets = np.subtract.outer(np.arange(600), np.arange(600))
    expected = np.cos(offsets[..., None] * omega).sum(axis=-1) / 16
    np.testing.assert_allclose(matrix, expected, atol=1e-5)
    assert browser_page.exceptions() == []


def test_link_carries_fragment_controls_and_restores_them(browser, app_url):
    """The heatmap's worked example and zoom window are fragments: changing them reruns only the
    fragment. The link at the top is the address bar itself, so it carries them, and a fresh
    browser opening it shows PE(5, 2), not PE(1, 2)."""
    first = new_page(browser, app_url)
    second = new_page(browser, app_url)
    try:
        first.open("/heatmap?d_model=64&positions=50", charts=2)
        position = first.page.locator('.st-key-pos input[type="number"]')
        position.fill("5")
        position.press("Enter")
        first.wait_idle()
        first.page.locator('.st-key-zoom_size [data-testid="stNumberInputStepUp"]').click()
        first.wait_idle()
        first.page.wait_for_function("() => location.search.includes('zoom_size=')")
        first.page.wait_for_timeout(400)
        link = shown_link(first)
        assert same_link(link, first.page.url) and "pos=5" in link and "zoom_size=33" in link
        second.page.goto(link)
        second.wait_idle(timeout=60_000)
        # The app container reports "notRunning" between navigation's first run and the page's
        # run, and a number input mounts with its default before its value: wait for the page.
        formula = second.page.locator(".katex-display").first  # the worked formula
        formula.wait_for()
        second.wait_idle(timeout=60_000)
        restored = "() => document.querySelector('.st-key-pos input')?.value === '5'"
        try:
            second.page.wait_for_function(restored, timeout=5_000)
        finally:
            assert second.page.locator('.st-key-pos input').input_value() == "5"
        assert second.page.locator('.st-key-zoom_size input').input_value() == "33"
        value = math.sin(5 / 10000 ** (2 / 64))  # PE(5, 2): the sine of pair 1
        assert f"{value:.6f}" in formula.text_content()
        assert first.exceptions() == [] and second.exceptions() == []
        first.screenshot("link-fragment-controls")
    finally:
        first.close()
        second.close()
