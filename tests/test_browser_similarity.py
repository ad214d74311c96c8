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


# The ±k labels of the offset view's sinusoid panel: each one's box and the panel's plot area,
# in page pixels.
MARK_LABELS_JS = """() => {
  const gd = document.querySelector('.st-key-offset_chart .js-plotly-plot');
  const box = e => { const r = e.getBoundingClientRect();
                     return [r.left, r.top, r.right, r.bottom]; };
  const marks = [...gd.querySelectorAll('.subplot.xy .scatterlayer .trace')].pop();
  // A label's written lines (an empty line over one moves it down: not part of its box).
  const written = text => {
    const lines = [...text.querySelectorAll('tspan.line')].filter(l => l.textContent.trim());
    const boxes = (lines.length ? lines : [text]).map(box);
    return [Math.min(...boxes.map(b => b[0])), Math.min(...boxes.map(b => b[1])),
            Math.max(...boxes.map(b => b[2])), Math.max(...boxes.map(b => b[3]))];
  };
  return { area: box(gd.querySelector('.draglayer .xy .nsewdrag')),
           labels: [...marks.querySelectorAll('.textpoint text')].map(written) };
}"""


@pytest.mark.parametrize("offset", [3, 40, 127])  # near the centre, between, the table's end
def test_offset_marks_labels_stay_in_their_panel_apart(browser_page, offset):
    """Each ±k label is drawn inside the sinusoid panel (at the table's ends it ran over the
    y axis's numbers and out of the chart) and the two labels do not cover each other."""
    browser_page.open(f"/similarity?view=offset&offset={offset}&anchor=64")
    drawn = browser_page.page.evaluate(MARK_LABELS_JS)
    left, top, right, bottom = drawn["area"]
    assert len(drawn["labels"]) == 2
    for x0, y0, x1, y1 in drawn["labels"]:
        assert left <= x0 and x1 <= right and top <= y0 and y1 <= bottom, (drawn, offset)
    (a, b) = drawn["labels"]  # apart (lines one under the other: their em boxes may touch)
    assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] + 1 or b[3] <= a[1] + 1, (drawn, offset)
