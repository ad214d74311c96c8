"""The ALiBi page in headless Chromium, opened by deep links: charts drawn, no exception, no
dialog; screenshots in test-artifacts/."""

from __future__ import annotations

import pytest

from tests import browser_support

pytestmark = pytest.mark.browser


def _screenshot_whole_page(browser_page, name: str) -> None:
    """Streamlit scrolls inside its main section, so a full-page screenshot shows only the top:
    grow the viewport to the content's height first, let plotly re-lay out, then shoot."""
    page = browser_page.page
    height = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll('section, [data-testid=stMain]')]"
        ".map(e => e.scrollHeight), document.body.scrollHeight)"
    )
    page.set_viewport_size({"width": 1400, "height": min(int(height) + 100, 12000)})
    page.wait_for_timeout(1000)
    browser_page.screenshot(name)


def _chart_keys(page) -> list[str]:
    """The `key` of every drawn chart (Streamlit's class st-key-<key> on its container)."""
    return page.evaluate(
        "() => [...document.querySelectorAll('.js-plotly-plot')].map(gd => {"
        " const box = gd.closest('[class*=\"st-key-\"]');"
        " return box ? [...box.classList].find(c => c.startsWith('st-key-')).slice(7) : null; })"
    )


DEFAULT_VIEWS = ("rotation", "slopes")  # rope's and alibi's


def _show_section(browser_page, view: str, charts: int = 1) -> None:
    """Click the `view` radio's option `view`, as a visitor does; wait for its charts."""
    page = browser_page.page
    page.locator(".st-key-view label").filter(has_text=view).first.click()
    browser_page.wait_idle()
    page.wait_for_function(
        "n => document.querySelectorAll('.js-plotly-plot').length === n", arg=charts
    )
    # The URL names the section, except the default one (Streamlit leaves defaults out).
    assert f"view={view}" in page.url or (view in DEFAULT_VIEWS and "view=" not in page.url)


def test_alibi_deep_link(browser_page):
    browser_page.open("/alibi?num_heads=12&positions=64&causal=false&head=10&view=head", charts=1)
    page = browser_page.page
    assert browser_support.shown_value(page, "num_heads") == "12"
    assert browser_support.shown_value(page, "head") == "10"
    page.get_by_text("Head 10: bias").first.wait_for(state="attached", timeout=30_000)
    assert _chart_keys(page) == ["head_chart"]
    _screenshot_whole_page(browser_page, "alibi-deep-link")
    for view, key in (("slopes", "slopes_chart"), ("heads", "bias_grid_chart"),
                      ("reach", "reach_chart")):
        _show_section(browser_page, view)
        assert _chart_keys(page) == [key], view
        assert browser_support.shown_value(page, "num_heads") == "12"
    assert browser_page.exceptions() == []
    assert browser_page.dialogs == []
