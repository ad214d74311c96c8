"""Hostile text in every URL parameter and text box of every page, in a real browser.

HTML and markdown must appear literally (as the characters typed), never run or render, and no
dialog may fire: page.on("dialog") records every alert/confirm/prompt.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from ui.pages import PAGE_PARAMS, PAGES

pytestmark = pytest.mark.browser

HOSTILE = [
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)</script>",
    "**x**",
    "[a](javascript:alert(1))",
]
SCRIPTS = {page.url_path: page.script for page in PAGES}


@pytest.mark.parametrize("page", [p for p in PAGE_PARAMS if p in SCRIPTS])
@pytest.mark.parametrize("hostile", HOSTILE)
def test_hostile_strings_in_every_url_parameter(browser_page, page, hostile):
    query = urlencode({spec.name: hostile for spec in PAGE_PARAMS[page]})
    browser_page.open(f"/{page}?{query}", charts=0)
    body = browser_page.page.locator("body").inner_text()
    assert hostile in body  # shown literally: in a notice, or as the text it is
    assert browser_page.page.locator('img[src="x"]').count() == 0
    assert browser_page.dialogs == []
    assert browser_page.exceptions() == []


# Where a page's text boxes are shown: word + position's sentence with its own vectors (the
# article's preset has its own), the order page's second sentence in its facts view.
TEXT_BOXES_SHOWN = {"word-position": "?embedding=random", "order": "?view=facts"}


@pytest.mark.parametrize("page", [p.url_path for p in PAGES])
def test_hostile_strings_typed_into_every_text_box(browser_page, page):
    browser_page.open(f"/{page}{TEXT_BOXES_SHOWN.get(page, '')}", charts=0)
    shown = browser_page.page.locator('[data-testid="stTextInput"] input').filter(visible=True)
    for index in range(shown.count()):
        for hostile in HOSTILE:
            box = browser_page.page.locator('[data-testid="stTextInput"] input').filter(
                visible=True).nth(index)
            box.fill(hostile)
            box.press("Enter")
            browser_page.wait_idle()
            assert browser_page.exceptions() == []
    assert browser_page.dialogs == []
    assert browser_page.page.locator('img[src="x"]').count() == 0


def test_bad_urls_show_notices_not_tracebacks(browser_page):
    browser_page.open("/vit-grid?patch=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E&d_model=6",
                      charts=2)
    text = "\n".join(browser_page.page.locator('[data-testid="stAlert"]').all_inner_texts())
    assert "patch=<img src=x onerror=alert(1)> is not allowed" in text
    assert "d_model=6 is not allowed" in text
    assert browser_page.dialogs == []
    assert browser_page.exceptions() == []
    browser_page.screenshot("vit-grid-bad-url")
    browser_page.open("/wavelengths?dims=0,999999&metric=x", charts=2)
    text = "\n".join(browser_page.page.locator('[data-testid="stAlert"]').all_inner_texts())
    assert "dims=999999 is not allowed" in text
    browser_page.open("/similarity?positions=99999&metric=euclid", charts=1)
    text = "\n".join(browser_page.page.locator('[data-testid="stAlert"]').all_inner_texts())
    assert "positions=99999 is not allowed" in text and "metric=euclid is not allowed" in text
    assert browser_page.exceptions() == []
