"""A link to a page that does not exist: the home page, and a notice in the visitor's language
(Streamlit's own "Page not found" dialog is English only)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from locales import message
from tests.conftest import new_page

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_an_unknown_page_says_so_in_the_visitors_language(browser, app_url, lang):
    seen = new_page(browser, app_url)
    try:
        seen.open(f"/no-such-page?lang={lang}", charts=1)
        page = seen.page
        page.wait_for_selector('[data-testid="stAlert"]')
        shown = page.locator('[data-testid="stMain"]').inner_text()
        notice = message("app.page_not_found", lang, path="/no\\-such\\-page")
        assert notice.replace("\\", "").split("：")[0][:30] in shown
        assert "Page not found" not in page.locator("body").inner_text()
        assert urlsplit(page.url).path == "/"  # the home page
        assert parse_qs(urlsplit(page.url).query).get("lang", ["en"]) == [lang]  # kept
        assert page.title() == message("app.title", lang)
        assert seen.exceptions() == []
        seen.screenshot(f"not-found-{lang}")
    finally:
        seen.close()
