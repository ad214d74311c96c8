"""The app runs offline, and the browser draws what the app asks for.

- No page makes the visitor's browser contact anything but the app's own server (a hosted demo
  must not send its visitors to third parties; offline, such a request fails). Streamlit used to
  fetch the active page's material icon from fonts.gstatic.com as a favicon. Checked on every
  page and view, in English and Chinese, presenting and not, where the layout tests open them
  (tests/test_browser_slides.py `walk_views`, with `foreign` below).
- At the largest sizes, plotly draws the block-averaged heatmaps as one image: it warns
  'cannot use zsmooth: "fast"' in the console when their coordinates are not evenly spaced, and
  then paints a rectangle per cell.
"""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit

import pytest

from ui.pages import PAGE_PARAMS
from ui.params import IntParam

pytestmark = pytest.mark.browser

def foreign(requests: list[str], base_url: str) -> list[str]:
    """Requests to anywhere but the app's server (data: and blob: URLs stay in the browser)."""
    own = urlsplit(base_url).netloc
    return [url for url in requests
            if urlsplit(url).scheme in ("http", "https", "ws", "wss")
            and urlsplit(url).netloc != own]


def test_foreign_requests_are_recognised():
    base = "http://127.0.0.1:8501"
    assert foreign([f"{base}/heatmap", "data:image/svg+xml,x", f"{base}/_stcore/stream",
                    "https://fonts.gstatic.com/s/i/x.svg"], base) == [
        "https://fonts.gstatic.com/s/i/x.svg"]


def largest(page: str) -> dict[str, str]:
    return {spec.name: str(spec.maximum) for spec in PAGE_PARAMS[page]
            if isinstance(spec, IntParam) and spec.name in ("d_model", "positions")}


@pytest.mark.parametrize("page", ["heatmap", "similarity"])
def test_large_heatmaps_are_drawn_as_one_image(browser_page, page):
    browser_page.open(f"/{page}?{urlencode(largest(page))}", timeout=120_000)
    browser_page.page.wait_for_timeout(500)
    assert browser_page.exceptions() == []
    assert [text for text in browser_page.console_warnings if "zsmooth" in text] == []
    # The heatmap is there, drawn as an <image> (plotly draws every heatmap as one).
    assert browser_page.page.locator(".js-plotly-plot .hm image").count() >= 1


def test_dense_spectrum_draws_a_sample_of_its_markers(browser_page):
    """2048 wavelength pairs (d_model = 4096): the figure carries every pair, the browser draws
    at most 256 markers per trace (each is a styled SVG node; all 2048 drew 4x slower)."""
    browser_page.open("/wavelengths?d_model=4096&positions=100", charts=2)
    drawn = browser_page.page.evaluate("""() => {
        const gd = Array.from(document.querySelectorAll('.js-plotly-plot'))
            .find(g => g.data.some(t => t.mode === 'markers'));
        return Array.from(gd.querySelectorAll('.scatterlayer .trace'))
            .map(trace => trace.querySelectorAll('.point').length);
    }""")
    assert 0 < max(drawn) <= 256
    assert sum(drawn) < 2048
    assert browser_page.exceptions() == []
