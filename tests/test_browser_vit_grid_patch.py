"""The ViT grid's selected patch in headless Chromium: the pointer over a patch of a map previews
that patch (its map, square and title) with no script run, leaving the chart draws the server's
figure again, and a click selects the patch (the patch box and the link take it).

That each preview is the server's picture at that patch is checked in Python
(tests/test_figures_vit_grid.py); here, that the browser draws them under the pointer."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

GRID = "grid_h=6&grid_w=10&d_model=64&patch=1,5"  # every patch previewed at this size

# The page coordinates of patch (row, col)'s cell on panel `panel` ("" for the first, "4" for
# the fourth) of a chart's plotly div.
CELL_JS = """(gd, [row, col, panel]) => {
  const layout = gd._fullLayout, x = layout['xaxis' + panel], y = layout['yaxis' + panel];
  const box = gd.getBoundingClientRect();
  return [box.left + x._offset + x.d2p(col), box.top + y._offset + y.d2p(row)];
}"""
DRAWN_JS = """gd => ({title: gd.layout.title.text,
                      marks: (gd.layout.shapes || []).map(s => [s.yanchor, s.xanchor])})"""


def chart(page, key: str):
    return page.locator(f".st-key-{key} .js-plotly-plot").first


def drawn_at(page, key: str, title: str) -> None:
    """Wait until chart `key` draws a title that contains `title`."""
    page.wait_for_function(
        "([key, title]) => { const gd = document.querySelector(`.st-key-${key} .js-plotly-plot`);"
        " return gd && gd.layout.title.text.includes(title); }",
        arg=[key, title], timeout=10_000)


def test_the_pointer_over_a_patch_previews_it_and_a_click_selects_it(browser_page):
    page = browser_page.page
    browser_page.open(f"/vit-grid?{GRID}", charts=2)
    patch = chart(page, "patch_chart")
    patch.scroll_into_view_if_needed()
    page.mouse.move(*patch.evaluate(CELL_JS, [4, 0, ""]), steps=4)
    drawn_at(page, "patch_chart", "Patch (4, 0) against every patch")
    assert patch.evaluate(DRAWN_JS)["marks"] == [[4, 0]]
    assert new_patch(page) == "1,5"  # a preview: the link and the box keep the selection
    assert page.locator(".st-key-patch input").input_value() == "1,5"
    page.mouse.move(5, 5, steps=2)  # off the chart: the server's figure again
    drawn_at(page, "patch_chart", "Patch (1, 5) against every patch")
    assert patch.evaluate(DRAWN_JS)["marks"] == [[1, 5]]
    page.mouse.click(*patch.evaluate(CELL_JS, [4, 0, ""]))
    # The click's rerun reaches the address bar; in make test the short soak's crowd may share
    # the cores meanwhile (a fresh clone's run missed 30 s once): a generous bound, not a budget.
    page.wait_for_function("() => new URL(location.href).searchParams.get('patch') === '4,0'",
                           timeout=120_000)
    browser_page.wait_idle()
    page.mouse.move(5, 5)
    assert page.locator(".st-key-patch input").input_value() == "4,0"
    drawn_at(page, "patch_chart", "Patch (4, 0) against every patch")
    assert browser_page.exceptions() == []


def test_the_pointer_over_any_rope_panel_previews_every_panel(browser_page):
    page = browser_page.page
    browser_page.open(f"/vit-grid?{GRID}&view=rope", charts=2)
    rope = chart(page, "rope_chart")
    rope.scroll_into_view_if_needed()
    page.mouse.move(*rope.evaluate(CELL_JS, [2, 3, "4"]), steps=4)  # RoPE-Mixed's panel
    drawn_at(page, "rope_chart", "Patch (2, 3) against every patch")
    assert rope.evaluate(DRAWN_JS)["marks"] == [[2, 3]] * 4
    assert new_patch(page) == "1,5"
    assert browser_page.exceptions() == []


def new_patch(page) -> str | None:
    return page.evaluate("() => new URL(location.href).searchParams.get('patch')")
