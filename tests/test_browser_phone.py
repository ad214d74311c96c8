"""A phone held upright (390 x 844, touch): in English and Chinese, no chart text on any page and
view collides with another, is cut by the chart's edge or lies under plotly's modebar, and no
legend scrolls (tests.browser_support.CHART_TEXT_PROBLEMS_JS); a figure's panels side by side are
stacked in one column there, and side by side again once the screen is wide (the chart element
fits the figure to its width, ui/plotly_react.js `fitToWidth`)."""

from __future__ import annotations

import pytest

from tests.conftest import BrowserPage, new_page
from tests.test_browser_slides import chart_text_problems, every_view

pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def phone_page(browser, app_url) -> BrowserPage:
    return new_page(browser, app_url, **PHONE)


# One test per view, so that the views spread over the workers.
@pytest.mark.parametrize("path", every_view())
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_chart_text_collides_or_is_cut_on_a_phone(browser, app_url, lang, path):
    seen = phone_page(browser, app_url)
    try:
        # Titles, ticks, legends and annotations: a scatter's point labels may still touch on
        # a phone's 390 px (the clocks' wavelength labels, word-position's), not on a slide.
        found = chart_text_problems(seen, path, lang, f"phone-390x844-{lang}", points=False)
    finally:
        seen.close()
    assert found == {}


# The RoPE rotation's three circles as drawn: each panel's domains and the y axis's range.
PANELS_JS = """() => {
  const layout = document.querySelector('.st-key-rotation_chart .js-plotly-plot')._fullLayout;
  return ['', '2', '3'].map(n => ({x: layout['xaxis' + n].domain, y: layout['yaxis' + n].domain,
                                   range: layout['yaxis' + n].range}));
}"""


def test_panels_stack_on_a_phone_and_stand_side_by_side_when_wide(browser, app_url):
    seen = phone_page(browser, app_url)
    try:
        seen.open("/rope?view=rotation&lang=en", charts=1)
        seen.page.wait_for_selector(".st-key-rotation_chart .js-plotly-plot .main-svg")
        panels = seen.page.evaluate(PANELS_JS)
        # One column, top to bottom in reading order, each panel the plot's full width.
        assert all(p["x"] == [0, 1] for p in panels), panels
        assert panels[0]["y"][0] > panels[1]["y"][1] and panels[1]["y"][0] > panels[2]["y"][1]
        # Square panels show the unit circle (a narrow panel stretched y to +-6: dots).
        assert all(max(abs(v) for v in p["range"]) < 2 for p in panels), panels
        # Turned into a wide screen: side by side again, without a rerun.
        seen.page.set_viewport_size({"width": 1280, "height": 800})
        seen.page.wait_for_function(f"() => ({PANELS_JS})()[0].x[1] < 0.5")
        wide = seen.page.evaluate(PANELS_JS)
        assert wide[0]["x"][1] <= wide[1]["x"][0] and wide[1]["x"][1] <= wide[2]["x"][0], wide
        assert all(p["y"] == wide[0]["y"] for p in wide), wide
    finally:
        seen.close()
