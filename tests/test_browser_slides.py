"""Presentation mode as a projector shows it: at 1920 x 1080 and 1280 x 720, in English and
Chinese, no chart text on any page and view collides with another or is cut by the chart's edge,
and no legend scrolls (tests.browser_support.CHART_TEXT_PROBLEMS_JS measures the drawn boxes)."""

from __future__ import annotations

import pytest

from core.page_params import PAGE_PARAMS
from tests import browser_support
from tests.test_browser_share import new_page
from ui.pages import PAGES

pytestmark = pytest.mark.browser


def slide_paths() -> list[str]:
    paths = ["/?present=1"]
    for page in PAGES:
        specs = {spec.name: spec for spec in PAGE_PARAMS.get(page.url_path, ())}
        for view in specs["view"].choices if "view" in specs else (None,):
            paths.append(f"/{page.url_path}?present=1" + (f"&view={view}" if view else ""))
    return paths


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("width", "height"), [(1920, 1080), (1280, 720)])
def test_no_chart_text_collides_or_is_cut_on_a_slide(browser, app_url, width, height, lang):
    seen = new_page(browser, app_url)
    seen.page.set_viewport_size({"width": width, "height": height})
    found = {}
    try:
        for path in slide_paths():
            seen.open(f"{path}&lang={lang}", charts=1, timeout=120_000)
            seen.page.wait_for_timeout(500)  # plotly's text layout after the last paint
            problems = seen.page.evaluate(browser_support.CHART_TEXT_PROBLEMS_JS)
            if problems:
                found[path] = problems
            assert seen.exceptions() == [], path
        seen.screenshot(f"slide-{width}x{height}-{lang}-last")
    finally:
        seen.page.context.close()
    assert found == {}
