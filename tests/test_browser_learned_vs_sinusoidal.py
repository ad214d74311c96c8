"""The learned-vs-sinusoidal page in headless Chromium, opened by deep links: charts drawn, no
exception, no dialog; screenshots in test-artifacts/."""

from __future__ import annotations

import pytest

from tests import browser_support
from tests.browser_support import option_label

pytestmark = pytest.mark.browser


def alerts(browser_page) -> str:
    return "\n".join(browser_page.page.locator('[data-testid="stAlert"]').all_inner_texts())


def test_learned_vs_sinusoidal_default(browser_page):
    browser_page.open("/learned-vs-sinusoidal", charts=2)
    page = browser_page.page
    assert browser_page.exceptions() == []
    assert page.get_by_role("heading", name="Learned vs sinusoidal").is_visible()
    browser_page.screenshot("learned-vs-sinusoidal")
    for view, charts in (("similarity", 2), ("offset", 1), ("space", 2), ("extent", 1)):
        browser_page.open(f"/learned-vs-sinusoidal?view={view}", charts=charts)
        assert browser_page.exceptions() == []
        browser_page.screenshot(f"learned-vs-sinusoidal-{view}")
    page.get_by_text("no learned row from position 512").first.wait_for(
        state="attached", timeout=30_000)


def test_learned_vs_sinusoidal_deep_link_past_the_table(browser_page):
    browser_page.open("/learned-vs-sinusoidal?positions=1500&metric=dot&anchor=40", charts=2)
    page = browser_page.page
    assert browser_page.exceptions() == []
    assert browser_support.shown_value(page, "positions") == "1500"
    # The tables view draws the same at any metric: the control is not shown there, and keeps
    # the link's value (the numbers above the view read it).
    dot = page.get_by_role("radio", name=option_label("dot"), exact=True, include_hidden=True)
    assert dot.is_checked() and not dot.is_visible()
    assert "metric=dot" in page.url
    assert "rows 0 to 511 only" in alerts(browser_page)
    assert browser_page.dialogs == []
    browser_page.screenshot("learned-vs-sinusoidal-1500-dot")
