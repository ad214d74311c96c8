"""The first request a freshly started server gets is a deep link (a shared URL, a class opening a
link): it must show the app's navigation and the page, not Streamlit's v1 multipage fallback.

Streamlit decides per process whether the app uses the old `pages/` folder layout before any
`st.navigation` call; this test starts its own server so that the deep link really is the first
request, and puts an unparsable number in the URL (Streamlit itself raised OverflowError on
`num_heads=inf` for an int widget).
"""

from __future__ import annotations

import pytest

from tests import browser_support
from tests.conftest import ARTIFACTS
from ui.pages import PAGES

pytestmark = pytest.mark.browser


@pytest.fixture
def fresh_app_url():
    ARTIFACTS.mkdir(exist_ok=True)
    server, url = browser_support.start_streamlit("app.py", ARTIFACTS / "fresh-server.log")
    yield url
    browser_support.stop(server)


def test_first_request_to_a_fresh_server_is_a_deep_link(browser, fresh_app_url):
    context = browser.new_context(viewport={"width": 1400, "height": 1200})
    page = context.new_page()
    try:
        page.goto(f"{fresh_app_url}/alibi?num_heads=inf")
        page.wait_for_selector(browser_support.IDLE_SELECTOR, timeout=60_000)
        page.wait_for_function(
            "() => document.querySelectorAll('.js-plotly-plot .main-svg').length >= 1",
            timeout=60_000,
        )
        page.wait_for_selector(browser_support.IDLE_SELECTOR, timeout=60_000)
        page.screenshot(path=str(ARTIFACTS / "fresh-server-deep-link.png"), full_page=True)

        nav = page.locator('[data-testid="stSidebarNav"]').inner_text()
        titles = [p.title for p in PAGES]
        assert all(title in nav for title in titles), nav
        assert "app" not in nav.split("\n"), nav  # the v1 fallback names the main script "app"
        assert page.title().startswith("ALiBi"), page.title()
        assert page.locator('[data-testid="stException"]').count() == 0
        warnings = page.locator('[data-testid="stAlertContentWarning"]').all_inner_texts()
        assert any("num_heads=inf" in w for w in warnings), warnings
        assert "num_heads=" not in page.url  # the unusable value is dropped from the link
    finally:
        context.close()
