"""Word + position with MiniLM's real embeddings, as drawn in headless Chromium: the same word at
two positions is two points apart (the picture with the words), and the position vectors are told
apart (the positions alone, below it), measured on the charts themselves (pixels of the plot, not
the numbers sent)."""

from __future__ import annotations

import math

import pytest

pytestmark = pytest.mark.browser

# Each point's pixel position in the plot, by its trace and its customdata (the sums' "the @1",
# the positions' 1 .. 6), and the plot's size in pixels.
POINTS_JS = """(gd, [traces, field]) => {
    const l = gd._fullLayout, at = {};
    const px = (x, y) => [l.xaxis.l2p(l.xaxis.d2l(x)), l.yaxis.l2p(l.yaxis.d2l(y))];
    for (const t of traces) {
        const trace = gd._fullData[t];
        const names = trace[field];
        trace.x.forEach((x, i) => { at[`${t}:${names[i]}`] = px(x, trace.y[i]); });
    }
    return { at, width: l._size.w, height: l._size.h };
}"""


def drawn_points(chart, traces: list[int], field: str):
    """Each point's pixel position by "<trace>:<its `field`>" (customdata, text), and
    apart(a, b): their distance as a share of the plot's larger side."""
    drawn = chart.locator(".js-plotly-plot").first.evaluate(POINTS_JS, [traces, field])
    extent = max(drawn["width"], drawn["height"])

    def apart(a: str, b: str) -> float:
        (xa, ya), (xb, yb) = drawn["at"][a], drawn["at"][b]
        return math.hypot(xa - xb, ya - yb) / extent

    return apart


def test_minilm_picture_draws_the_two_the_and_the_positions_apart(browser_page):
    browser_page.open("/word-position?embedding=minilm", charts=2)
    page = browser_page.page
    # the article's sentence: "the" at positions 1 and 5 (after [CLS] at 0, left out); the
    # sums are trace 3 of the picture, named "the @1" ...
    apart = drawn_points(page.locator(".st-key-projection_chart"), [3], "customdata")
    assert apart("3:the @1", "3:the @5") >= 0.05
    # the positions alone: P1 .. P6, each from the next
    apart = drawn_points(page.locator(".st-key-position_path_chart"), [0], "text")
    for p in range(1, 6):
        assert apart(f"0:P{p}", f"0:P{p + 1}") >= 0.02, p
    assert browser_page.exceptions() == []
    browser_page.screenshot("word-position-minilm-2d")
