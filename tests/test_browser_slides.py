"""Presentation mode as a projector shows it: at 1920 x 1080 and 1280 x 720, in English and
Chinese, no chart text on any page and view (point labels and annotations included) collides
with another, is cut by the chart's edge or lies under plotly's modebar, and no legend scrolls
(tests.browser_support.CHART_TEXT_PROBLEMS_JS measures the drawn boxes); the controls' type
grows with the page's. The tour's slides are these views (tests/test_browser_tour.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from tests import browser_support
from tests.conftest import new_page
from tests.test_browser_offline import foreign
from ui.pages import HOME, PAGES, PageInfo

pytestmark = pytest.mark.browser

# A projector's two common sizes.
SLIDE_SIZES = ({"width": 1920, "height": 1080}, {"width": 1280, "height": 720})


def view_paths(page: PageInfo, query: str = "") -> list[str]:
    """`page` in each of its views (home: itself), with `query` (e.g. "present=1") in the link."""
    specs = {spec.name: spec for spec in page.params}
    paths = []
    for view in specs["view"].choices if "view" in specs else (None,):
        parts = [part for part in (query, f"view={view}" if view else "") if part]
        paths.append(f"/{page.url_path}?" + "&".join(parts))
    return paths


def walk_views(seen, page: PageInfo, lang: str, query: str = "") -> Iterator[str]:
    """Each view of `page` in `lang` in turn, as a visitor goes through them: the first opened
    by its link, each next one chosen with the view choice (a rerun, not a new page load).
    Yields each one's path (view_paths) once its run has ended and a chart is drawn; checks,
    at the end, that no request left the app's server (tests/test_browser_offline.py)."""
    requests: list[str] = []
    seen.listen("request", lambda request: requests.append(request.url))
    for index, path in enumerate(view_paths(page, query)):
        view = path.partition("view=")[2]
        if index == 0:
            seen.open(f"{path}&lang={lang}".replace("?&", "?"), charts=1, timeout=120_000)
        else:
            browser_support.radio_option(seen.page, "view", view, lang).first.click()
            seen.page.wait_for_function(  # the run that draws it has written it (a default
                # view leaves the address, as Streamlit leaves defaults out)
                "([v, plain]) => new URLSearchParams(location.search).get('view') === v"
                " || (plain && !new URLSearchParams(location.search).has('view'))",
                arg=[view, view in browser_support.DEFAULT_VIEWS], timeout=120_000)
            seen.wait_idle(timeout=120_000)
            seen.page.wait_for_function(
                "() => document.querySelector('.js-plotly-plot .main-svg') !== null",
                timeout=120_000)
        assert seen.exceptions() == [], path
        yield path
    assert requests, page.url_path  # the recorder works: the page itself was requested
    assert foreign(requests, seen.base_url) == [], page.url_path


def chart_text_problems(seen, path: str, lang: str, name: str, *, points: bool = True,
                        then: dict | None = None) -> dict:
    """The chart text problems of `path` in `lang` as shown now (walk_views), by path and window
    size, with `points` a scatter's labels beside its points too; with `then` (a viewport)
    measured again once the window is resized to it. A screenshot of each size with problems,
    test-artifacts/<name>-<path>[-<width>x<height>].png."""
    found = {}
    shot = f"{name}-{re.sub(r'[^a-z0-9]+', '-', path).strip('-') or 'home'}"
    for size in (None, then) if then else (None,):
        if size:
            seen.page.set_viewport_size(size)
            shot = f"{shot}-{size['width']}x{size['height']}"
        browser_support.wait_charts_drawn(seen.page)  # plotly's text layout after the paint
        problems = seen.page.evaluate(browser_support.CHART_TEXT_PROBLEMS_JS, points)
        if problems:
            found[f"{path} {seen.page.viewport_size}"] = problems
            seen.screenshot(shot)
    return found


# Every page, one pytest parameter each (its views walked in one page load), named by slug.
EVERY_PAGE = [pytest.param(page, id=page.slug) for page in (HOME, *PAGES)]


# One test per page, so that the pages spread over the workers. Each view is measured at both
# sizes: drawn at one and the window then resized to the other (English draws at 1920 x 1080,
# Chinese at 1280 x 720), so both sizes are drawn first and after a resize.
@pytest.mark.parametrize("page", EVERY_PAGE)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_chart_text_collides_or_is_cut_on_a_slide(browser, app_url, lang, page):
    first, then = SLIDE_SIZES if lang == "en" else SLIDE_SIZES[::-1]
    seen = new_page(browser, app_url)
    seen.page.set_viewport_size(first)
    found = {}
    try:
        for path in walk_views(seen, page, lang, "present=1"):
            found |= chart_text_problems(seen, path, lang,
                                         f"slide-{first['width']}x{first['height']}-{lang}",
                                         then=then)
            seen.page.set_viewport_size(first)  # the next view is drawn first at this size
    finally:
        seen.close()
    assert found == {}


# The type of each kind of control shown first, and of the page's text (stMain's, which
# paragraphs use).
CONTROL_TYPE_JS = """() => {
  const size = (element, pseudo) => parseFloat(getComputedStyle(element, pseudo).fontSize);
  const shown = selector => [...document.querySelectorAll(selector)].find(
    element => element.getClientRects().length > 0);
  const option = shown('[data-testid="stRadioOption"] [data-testid="stMarkdownContainer"] p');
  return {
    text: size(document.querySelector('[data-testid="stMain"]')),
    label: size(shown('[data-testid="stWidgetLabel"] p')),
    option: size(option),
    slider: size(shown('[data-testid="stSliderThumbValue"]')),
    button: size(shown('[data-testid="stPopover"] button p')),
  };
}"""


def test_controls_grow_with_the_type_on_a_slide(browser, app_url):
    """A label, a radio option, a slider's number and the Export button are drawn at least at the
    text's size in presentation mode, and larger than without it (Streamlit draws them smaller
    than the text, and the slide's larger text left them small)."""
    seen = new_page(browser, app_url)
    seen.page.set_viewport_size({"width": 1920, "height": 1080})
    try:
        sizes = {}
        for query in ("", "&present=1"):
            seen.open(f"/similarity?view=offset&lang=en{query}", charts=1)
            sizes[query] = seen.page.evaluate(CONTROL_TYPE_JS)
        seen.screenshot("slide-controls-1920x1080")
    finally:
        seen.close()
    slide, plain = sizes["&present=1"], sizes[""]
    for control in ("label", "option", "slider", "button"):
        assert slide[control] >= slide["text"] - 0.5, (control, slide)
        assert slide[control] > plain[control], (control, slide, plain)


@pytest.mark.parametrize(("width", "height"), [(1920, 1080), (1280, 720)])
def test_word_positions_point_labels_stay_apart_on_a_slide(browser, app_url, width, height):
    """The sentence's points carry labels (tokens, P0..P7, sums): on a slide none covers
    another label or the chart's other text, with MiniLM's vectors and the article's."""
    seen = new_page(browser, app_url)
    seen.page.set_viewport_size({"width": width, "height": height})
    found = {}
    try:
        for lang in ("en", "zh"):
            for query in ("embedding=minilm", "embedding=article"):
                path = f"/word-position?{query}&present=1&lang={lang}"
                seen.open(path, charts=1, timeout=120_000)
                browser_support.wait_charts_drawn(seen.page)
                assert seen.page.locator(".js-plotly-plot .textpoint text").count() >= 8
                problems = seen.page.evaluate(browser_support.CHART_TEXT_PROBLEMS_JS, True)
                if problems:
                    found[path] = problems
        seen.screenshot(f"slide-word-position-{width}x{height}-last")
    finally:
        seen.close()
    assert found == {}


def test_the_export_menu_opened_low_on_a_slide_is_within_the_window(browser, app_url):
    """Opened under the heatmap at 1920 x 1080, the menu would hang below the window, CSV and
    .npy out of sight: the page scrolls by what it overflows."""
    seen = new_page(browser, app_url)
    seen.page.set_viewport_size({"width": 1920, "height": 1080})
    try:
        seen.open("/heatmap?present=1", charts=1, timeout=120_000)
        seen.page.get_by_role("button", name="Export").first.click()
        last = seen.page.locator('[data-testid="stPopoverBody"] [data-testid="stDownloadButton"]')
        last.last.wait_for(timeout=60_000)
        seen.page.wait_for_timeout(800)
        for index in range(last.count()):
            box = last.nth(index).bounding_box()
            assert box["y"] >= 0 and box["y"] + box["height"] <= 1080, box
    finally:
        seen.close()
